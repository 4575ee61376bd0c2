"""Typed answers, rule by rule: what the learner sees after typing (right or wrong, why, the answer
the diff is shown against) for every card type, the typo allowance's edges, and long answers."""

from __future__ import annotations

import hashlib

import pytest

from studyapp.core.matching import MatchResult, _diff, check_typed, cloze_deletion, expected_answers
from studyapp.core.models import BACKWARD, Card, CardText


def basic(back: str, accept: tuple[str, ...] = ()) -> Card:
    return Card("c", "basic", ("x",), front="What is it?", back=back, accept=accept)


def bilingual(card_type: str, zh: dict, en: dict) -> Card:
    return Card(id="c", type=card_type, source=("x",), language="zh", texts={"zh": CardText(**zh), "en": CardText(**en)}, **zh)


def test_an_empty_answer_is_wrong_and_says_so_against_the_cards_answer():
    assert check_typed("  ", basic("Paris")) == MatchResult(False, "Paris", [("delete", "  "), ("insert", "Paris")], "no answer given",
                                                           "Paris")


def test_a_forgiven_typo_shows_which_answer_it_was_forgiven_against():
    card = basic("Paris", accept=("City of Light",))
    assert check_typed("cty of lihgt", card) == MatchResult(  # three typos in 13 letters: two are forgiven
        False, "Paris", _diff("cty of lihgt", "City of Light"), "does not match", "City of Light")
    result = check_typed("city of ligt", card)
    assert result == MatchResult(True, "Paris", _diff("city of ligt", "City of Light"), "accepted with 1 typo",
                                 "City of Light")
    assert check_typed("Pariss", card).reason == "accepted with 1 typo"
    assert check_typed("transfromer blocks", basic("transformer blocks")).reason == "accepted with 2 typos"


def test_on_a_tie_the_typo_is_forgiven_against_the_cards_own_answer():
    # "parts" is one letter from both; the card's answer comes before its accept entry
    result = check_typed("parts", basic("paris", accept=("parks",)))
    assert (result.correct, result.compared) == (True, "paris")


def test_a_missing_space_in_a_latin_answer_is_no_typo_but_counts_beside_one():
    assert check_typed("newyork", basic("New York")).reason == "exact"
    # "ice cream" (9 letters) forgives one typo: the missing space and a doubled m are two
    assert not check_typed("icecreamm", basic("ice cream")).correct
    assert check_typed("ice creamm", basic("ice cream")).correct


def test_a_space_between_a_number_and_its_unit_keeps_the_same_quantity():
    # two typos (the space, the o) in 16 characters are forgiven: 4096 MB is still 4096MB
    result = check_typed("4096 MB of memry", basic("4096MB of memory"))
    assert (result.correct, result.reason) == (True, "accepted with 2 typos")


@pytest.mark.parametrize("answer, right, wrong", [(True, "true", "false"), (False, "FALSE", "True")])
def test_a_true_false_card_takes_true_or_false(answer, right, wrong):
    card = Card("c", "truefalse", ("x",), statement="The sky is green.", answer=answer)
    assert expected_answers(card) == ["True" if answer else "False"]
    assert check_typed(right, card).correct and check_typed(right, card).reason == "exact"
    assert not check_typed(wrong, card).correct


def test_a_choice_card_takes_the_right_options_text_in_any_language():
    card = bilingual("choice", zh={"choices": ("一", "二"), "answer": "二"}, en={"choices": ("one", "two"), "answer": "two"})
    assert expected_answers(card) == ["二", "two"]
    assert check_typed("two", card).reason == "in another language"
    assert not check_typed("one", card).correct


def test_the_other_languages_answer_is_named_as_such_for_every_card_type():
    reverse = bilingual("reverse", zh={"front": "远程直接内存访问", "back": "RDMA"}, en={"front": "Remote Direct Memory Access", "back": "RDMA"})
    assert check_typed("remote direct memory access", reverse, BACKWARD).reason == "in another language"
    assert expected_answers(reverse, BACKWARD) == ["远程直接内存访问", "Remote Direct Memory Access"]
    cloze = bilingual("cloze", zh={"text": "{{c1::存算分离}}的3FS"}, en={"text": "3FS separates {{c1::storage and compute}}"})
    assert check_typed("storage and compute", cloze, "c1").reason == "in another language"


def test_expected_answers_never_repeat_one():
    assert expected_answers(basic("Paris", accept=("paris", "Paris", "Lutetia", "Lutetia"))) == ["Paris", "paris", "Lutetia"]


def test_a_cloze_number_used_twice_hides_both_and_main_hides_every_deletion():
    text = "{{c1::Adam}} keeps {{c2::two moments}} per weight, {{c1::AdamW}} too"
    assert cloze_deletion(text, "c1") == "Adam, AdamW"
    assert cloze_deletion(text, "main") == "Adam, two moments, AdamW"
    assert check_typed("adam, adamw", Card("c", "cloze", ("x",), text=text), "c1").reason == "exact"


@pytest.mark.parametrize("expected, typed", [("知识蒸馏", "知识正馏"), ("正向传播", "政向传播")])
def test_a_chinese_homophone_typo_is_forgiven_when_only_one_side_carries_polarity(expected, typed):
    # pinyin input puts 正 for 蒸 (and 政 for 正): one side is not a polar character, so no meaning flips
    result = check_typed(typed, basic(expected))
    assert (result.correct, result.reason) == (True, "accepted with 1 typo")


def test_a_long_chinese_answer_with_one_typo_is_forgiven():
    # Over 200 characters difflib's autojunk would treat common characters as noise and pair
    # polar characters up in one large replacement, taking the typo for a flipped meaning.
    answer = "前向传播计算损失，反向传播计算梯度。" * 14  # 224 characters once the punctuation is folded away
    typed = answer[:100] + "钟" + answer[101:]
    assert check_typed(typed, basic(answer)).reason == "accepted with 1 typo"


def test_a_long_answer_with_one_typo_marks_that_letter_only():
    answer = " ".join(f"word{i % 7} and" for i in range(120))
    typed = answer.replace("word3", "wrod3", 1)
    result = check_typed(typed, basic(answer))
    assert result.correct
    changed = [(op, text) for op, text in result.diff if op != "equal"]
    assert changed == [("insert", "o"), ("delete", "o")]


def test_a_long_hash_with_one_wrong_digit_marks_that_digit_only():
    digest = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(4))  # 256 hex digits, no spaces
    wrong = "1" if digest[120] == "0" else "0"
    typed = digest[:120] + wrong + digest[121:]
    assert _diff(typed, digest) == [("equal", digest[:120]), ("delete", wrong), ("insert", digest[120]),
                                   ("equal", digest[121:])]
