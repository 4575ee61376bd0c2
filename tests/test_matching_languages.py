"""Typed answers in any of a card's languages, and Chinese matched as Chinese: widths, punctuation, no word boundaries."""

import pytest

from studyapp.core.matching import allowed_typos, check_typed, expected_answers
from studyapp.core.models import BACKWARD, Card, CardText


def bilingual(card_type="basic", zh=None, en=None, **fields):
    zh = zh or {}
    en = en or {}
    texts = {"zh": CardText(**zh), "en": CardText(**en)}
    return Card(id="c", type=card_type, source=("x",), language="zh", texts=texts, **zh, **fields)


STATELESS = bilingual(zh={"front": "为什么？", "back": "元信息持久化在数据库中", "accept": ("无状态",)},
                      en={"front": "Why?", "back": "Metadata is persisted in a database", "accept": ("stateless",)})


def plain(back):
    return Card(id="c", type="basic", source=("x",), front="问题？", back=back)


def test_the_answer_in_any_language_is_right_and_the_shown_one_is_expected():
    result = check_typed("metadata is persisted in a database", STATELESS)
    assert (result.correct, result.expected, result.reason) == (True, "元信息持久化在数据库中", "in another language")
    assert check_typed("元信息持久化在数据库中", STATELESS).reason == "exact"
    assert check_typed("stateless", STATELESS).reason == "accepted answer"
    assert check_typed("无状态", STATELESS).reason == "accepted answer"
    assert not check_typed("有状态", STATELESS).correct


def test_expected_answers_list_backs_in_every_language_before_accept_entries():
    assert expected_answers(STATELESS) == ["元信息持久化在数据库中", "Metadata is persisted in a database", "无状态", "stateless"]
    english = STATELESS.in_language("en")
    assert expected_answers(english)[:2] == ["Metadata is persisted in a database", "元信息持久化在数据库中"]
    assert check_typed("元信息持久化在数据库中", english).expected == "Metadata is persisted in a database"


def test_a_reverse_cards_backward_side_takes_the_front_in_any_language():
    card = bilingual("reverse", zh={"front": "远程直接内存访问", "back": "RDMA"}, en={"front": "Remote Direct Memory Access", "back": "RDMA"})
    assert check_typed("remote direct memory access", card, BACKWARD).correct
    assert check_typed("远程直接内存访问", card, BACKWARD).correct
    assert not check_typed("RDMA", card, BACKWARD).correct
    assert check_typed("rdma", card).correct


def test_a_cloze_variant_takes_its_own_deletion_in_any_language():
    card = bilingual("cloze", zh={"text": "{{c1::存算分离}}的{{c2::3FS}}"}, en={"text": "{{c2::3FS}} separates {{c1::storage and compute}}"})
    assert check_typed("存算分离", card, "c1").correct
    assert check_typed("storage and compute", card, "c1").correct
    assert not check_typed("3FS", card, "c1").correct
    assert check_typed("3fs", card, "c2").correct


@pytest.mark.parametrize("typed", ["ＲＤＭＡ网络", "RDMA 网络", "ｒｄｍａ网络", "RDMA网络。", "「RDMA」网络！", "RDMA，网络"])
def test_full_width_forms_and_chinese_punctuation_are_folded(typed):
    assert check_typed(typed, plain("RDMA网络")).correct


def test_full_width_digits_are_the_same_numbers_and_numbers_are_still_exact():
    assert check_typed("３６万亿", plain("36万亿")).correct
    assert not check_typed("３５万亿", plain("36万亿")).correct


@pytest.mark.parametrize("typed", ["元 信息 持久化", "元信息持久化", " 元信息 持久 化 "])
def test_spaces_never_matter_in_chinese(typed):
    result = check_typed(typed, plain("元信息持久化"))
    assert (result.correct, result.reason) == (True, "exact")


def test_the_chinese_typo_allowance_is_counted_in_characters():
    assert [allowed_typos(n, cjk=True) for n in (3, 4, 7, 8)] == [0, 1, 1, 2]
    assert [allowed_typos(n) for n in (4, 5, 11, 12)] == [0, 1, 1, 2]
    assert not check_typed("无状太", plain("无状态")).correct  # 3 characters: exact only
    assert check_typed("存算分开", plain("存算分离")).reason == "accepted with 1 typo"  # 4 characters: one typo
    assert not check_typed("存算合开", plain("存算分离")).correct
    assert check_typed("元信息持就花在库", plain("元信息持久化在库")).reason == "accepted with 2 typos"  # 8 characters: two
    assert not check_typed("元信息持就花在", plain("元信息持久化在")).correct  # 7 characters: two typos are too many
    assert check_typed("元信息持就化在", plain("元信息持久化在")).reason == "accepted with 1 typo"


def test_a_spaced_chinese_answer_is_not_charged_for_its_spaces():
    # Latin rules would count the three spaces as typos against a 4-character answer.
    result = check_typed("存 算 分 开", plain("存算分离"))
    assert (result.correct, result.reason) == (True, "accepted with 1 typo")
