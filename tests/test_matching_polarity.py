"""A typo allowance never turns the opposite answer into a right one: polarity in Chinese, units after numbers."""

import pytest

from studyapp.core.matching import check_typed
from studyapp.core.models import Card


def plain(back, accept=()):
    return Card(id="c", type="basic", source=("x",), front="问题？", back=back, accept=tuple(accept))


# One character apart, inside the allowance (4 to 7 characters forgive one), yet the opposite answer.
@pytest.mark.parametrize(("expected", "opposite"), [
    ("仅正样本", "仅负样本"),
    ("反向传播", "前向传播"),
    ("非思考能力", "思考能力"),
    ("后训练阶段", "预训练阶段"),
    ("meta service 无状态", "meta service 有状态"),
    ("高吞吐量", "低吞吐量"),
    ("不够格，不到数十亿", "够格，不到数十亿"),
    ("通信次数变多", "通信次数变少"),
    ("异步不阻塞，通信与计算重叠", "同步不阻塞，通信与计算重叠"),
    ("备节点接管", "主节点接管"),
])
def test_a_character_that_flips_the_meaning_is_never_a_typo(expected, opposite):
    result = check_typed(opposite, plain(expected))
    assert (result.correct, result.reason) == (False, "does not match")


@pytest.mark.parametrize(("expected", "typo", "typos"), [
    ("存算分离", "存算分开", 1),          # 离 -> 开: neither carries polarity
    ("仅正样本", "只正样本", 1),          # 仅 -> 只
    ("反向传播", "反向传搏", 1),
    ("通信与计算重叠", "通信和计算重叠", 1),
    ("计算效率低下", "计算效率低", 1),      # dropping 下 flips nothing: only a negation does
    ("高可扩展性", "可扩展性", 1),
    ("激活随序列长度线性增长", "激活内随序列长度线性增长", 1),
    ("meta service 无状态", "因为 meta service 无状态", 2),  # a negation both share is no difference
])
def test_an_ordinary_typo_in_chinese_is_still_forgiven(expected, typo, typos):
    assert check_typed(typo, plain(expected)).reason == f"accepted with {typos} typo{'s' if typos > 1 else ''}"


def test_a_unit_after_a_number_is_exact_like_the_number():
    card = plain("4096GB", accept=["4096 GB", "4TB"])
    assert not check_typed("4096MB", card).correct
    assert not check_typed("4096 mb", card).correct
    assert not check_typed("4GB", card).correct
    assert check_typed("4096 gb", card).correct  # the same quantity, spaced and lower-case
    assert check_typed("4 TB", card).correct


def test_a_unit_letter_is_told_from_the_word_after_a_number():
    # "2.5 math": the m starts a word, it is no unit, so a typo elsewhere is still forgiven.
    card = plain("Qwen2.5-Math and Qwen2.5-Coder")
    assert check_typed("Qwen2.5-Math and Qwen2.5-Codr", card).reason == "accepted with 1 typo"
    assert not check_typed("Qwen2.6-Math and Qwen2.5-Coder", card).correct
