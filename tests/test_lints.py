"""The deck lints of `studyapp check`: each a warning with a code, both sides of each boundary."""

import math

import pytest

from studyapp.core.lints import _upper_tail, position_bias
from studyapp.core.loader import load_deck


def deck_file(tmp_path, cards: list[str], schema: int = 1) -> list:
    (tmp_path / "seed.md").write_text("alpha", encoding="utf-8")
    (tmp_path / "decks").mkdir(exist_ok=True)
    head = "schema: 1\nid: d\ntitle: D\n" if schema == 1 else "schema: 2\nid: d\ntitle: D\nlanguages: [zh, en]\n"
    body = "".join(f"  - {{id: c{i}, source: alpha, {card}}}\n" for i, card in enumerate(cards))
    path = tmp_path / "decks" / "d.yaml"
    path.write_text(head + "seed: ../seed.md\ncards:\n" + body, encoding="utf-8")
    result = load_deck(path)
    assert not [p for p in result.problems if p.is_error], [p.format() for p in result.problems]
    return result.problems


def codes(problems, code):
    return [(p.line, p.column) for p in problems if p.code == code]


def basic(i):
    return f"type: basic, front: Question number {i}?, back: answer {i}"


def truefalse(i):
    return f"type: truefalse, statement: Statement number {i} holds, answer: true"


# -- true/false share -----------------------------------------------------------

def test_a_quarter_of_true_false_is_allowed(tmp_path):
    problems = deck_file(tmp_path, [truefalse(0), basic(1), basic(2), basic(3)])
    assert codes(problems, "truefalse-share") == []


def test_above_a_quarter_of_true_false_warns_at_the_deck_id(tmp_path):
    problems = deck_file(tmp_path, [truefalse(0), truefalse(1), basic(2), basic(3), basic(4), basic(5), basic(6)])
    assert codes(problems, "truefalse-share") == [(2, 5)]
    [problem] = [p for p in problems if p.code == "truefalse-share"]
    assert problem.severity == "warning"
    assert "2 of the deck's 7 cards (29%)" in problem.message and "(1 at most)" in problem.message


# -- right choice position --------------------------------------------------------

def choice(i, right):
    options = [f"option {i}-{k}" for k in range(4)]
    return f"type: choice, front: Which one is right for {i}?, choices: [{', '.join(options)}], answer: {options[right]}"


def test_position_bias_is_the_exact_poisson_binomial_tail():
    assert position_bias([]) is None
    assert position_bias([(0, 2), (0, 2)]) == (0, 2, 0.25)
    # Two of three at position 1 with 3, 3 and 2 options: P(X >= 2) for chances 1/3, 1/3, 1/2.
    position, observed, p = position_bias([(1, 3), (1, 3), (0, 2)])
    assert (position, observed) == (1, 2)
    # Exactly two: 1/18 + 1/9 + 1/9; all three: 1/18.
    assert p == pytest.approx(1 / 3)


def test_the_tail_beyond_the_exact_range_is_close_to_the_binomial():
    n, observed = 400, 125
    exact = sum(math.comb(n, m) * 0.25 ** m * 0.75 ** (n - m) for m in range(observed, n + 1))
    approximate = _upper_tail([0.25] * n, observed)
    assert approximate == pytest.approx(exact, rel=0.25)
    assert _upper_tail([0.25] * 300, 0) == pytest.approx(1.0)


def test_four_right_choices_of_four_at_one_position_warn(tmp_path):
    problems = deck_file(tmp_path, [choice(i, 0) for i in range(4)])
    assert codes(problems, "choice-position-bias") == [(2, 5)]
    [problem] = [p for p in problems if p.code == "choice-position-bias"]
    assert "option 1 in 4 of the deck's 4 choice cards" in problem.message and "p = 0.0039" in problem.message


def test_three_at_one_position_is_within_chance(tmp_path):
    assert codes(deck_file(tmp_path, [choice(i, 2) for i in range(3)]), "choice-position-bias") == []


def test_varied_positions_do_not_warn(tmp_path):
    assert codes(deck_file(tmp_path, [choice(i, i % 4) for i in range(8)]), "choice-position-bias") == []


# -- an answer in another card's prompt ------------------------------------------------

def test_an_answer_in_another_cards_prompt_warns_at_the_answer(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does the cache avoid?, back: Repeated forward graph construction",
        "type: choice, front: Which cache avoids repeated forward graph construction?, choices: [AOT, FX], answer: AOT",
    ])
    assert codes(problems, "answer-in-other-prompt") == [(6, 83)]
    [problem] = [p for p in problems if p.code == "answer-in-other-prompt"]
    assert "card 'c0'" in problem.message and "front of card 'c1' (line 7)" in problem.message


def test_declared_related_cards_may_share_the_fact(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does the cache avoid?, back: Repeated forward graph construction, related: [c1]",
        "type: choice, front: Which cache avoids repeated forward graph construction?, choices: [AOT, FX], answer: AOT",
    ])
    assert codes(problems, "answer-in-other-prompt") == []


def test_a_three_word_answer_is_a_term_and_does_not_warn(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does the cache avoid?, back: forward graph construction",
        "type: truefalse, statement: The FX cache avoids forward graph construction, answer: false",
    ])
    assert codes(problems, "answer-in-other-prompt") == []


def test_latin_answers_match_whole_words_only(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does the cache avoid?, back: repeated forward graph construct",
        "type: truefalse, statement: It avoids repeated forward graph constructions, answer: false",
    ])
    assert codes(problems, "answer-in-other-prompt") == []


def test_a_cloze_deletion_given_away_by_a_true_false_statement_warns(tmp_path):
    problems = deck_file(tmp_path, [
        'type: cloze, text: "Buckets merge {{c1::the gradients of many parameters}} into one call"',
        "type: truefalse, statement: A bucket merges the gradients of many parameters, answer: true",
    ])
    assert codes(problems, "answer-in-other-prompt") == [(6, 48)]


def test_chinese_answers_match_without_word_boundaries_in_their_own_language(tmp_path):
    problems = deck_file(tmp_path, [
        'type: basic, front: {zh: "meta service 为什么可以任意连接？", en: "Why can any meta service be used?"},'
        ' back: {zh: "元信息持久化在数据库中", en: "metadata persisted in FoundationDB"}',
        'type: truefalse, statement: {zh: "因为元信息持久化在数据库中所以无状态", en: "Metadata lives in FoundationDB, so it is stateless"},'
        ' answer: true',
    ], schema=2)
    warned = [p for p in problems if p.code == "answer-in-other-prompt"]
    assert [(p.line, "(zh)" in p.message) for p in warned] == [(7, True)]


# -- reverse sides -------------------------------------------------------------------------

@pytest.mark.parametrize(("side", "warned"), [
    ("one two three four five six", False),
    ("one two three four five six seven", True),
    ("远程直接内存访问远程直接", False),  # 12 Han characters, two to a word: 6 words
    ("远程直接内存访问远程直接内", True),  # 13: 7 words
])
def test_a_reverse_side_longer_than_six_words_warns(tmp_path, side, warned):
    problems = deck_file(tmp_path, [f"type: reverse, front: RDMA, back: {side}"])
    assert codes(problems, "reverse-long-side") == ([(6, 63)] if warned else [])
