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


# -- what counts as an answer, and where it is found -------------------------------------

GIVEAWAY = ("{kind} '{card}': its answer {answer!r} appears word for word in the {field} of card '{other}' "
            "(line {line}){where}, which gives it away; reword one of them, or declare them 'related' if they test "
            "the same fact")


def giveaways(problems):
    return [(p.line, p.column, p.message) for p in problems if p.code == "answer-in-other-prompt"]


def test_a_right_option_given_away_warns_at_the_answer_with_the_whole_message(tmp_path):
    problems = deck_file(tmp_path, [
        'type: basic, front: "Which cache avoids repeated forward graph construction?", back: AOT',
        "type: choice, front: What does the cache avoid?, choices: [repeated forward graph construction, eager mode],"
        " answer: repeated forward graph construction",
    ])
    assert giveaways(problems) == [(7, 146, GIVEAWAY.format(
        kind="card", card="c1", answer="repeated forward graph construction", field="front", other="c0", line=6,
        where=""))]


def test_a_reverse_cards_back_is_an_answer_too(tmp_path):
    problems = deck_file(tmp_path, [
        "type: reverse, front: AOT cache, back: avoids repeated graph construction",
        "type: truefalse, statement: The FX cache avoids repeated graph construction, answer: false",
    ])
    assert giveaways(problems) == [(6, 68, GIVEAWAY.format(
        kind="card", card="c0", answer="avoids repeated graph construction", field="statement", other="c1", line=7,
        where=""))]


def test_a_giveaway_in_the_second_language_only_is_found_and_named(tmp_path):
    # the first language (zh) has no answer long enough to look for: the second is still searched
    problems = deck_file(tmp_path, [
        'type: basic, front: {zh: "为什么？", en: "Why?"}, back: {zh: "元信息", en: "metadata persisted in FoundationDB"}',
        'type: truefalse, statement: {zh: "无状态", en: "Metadata persisted in FoundationDB makes it stateless"},'
        ' answer: true',
    ], schema=2)
    assert giveaways(problems) == [(7, 81, GIVEAWAY.format(
        kind="card", card="c0", answer="metadata persisted in FoundationDB", field="statement", other="c1", line=8,
        where=" (en)"))]


def test_a_chinese_answer_written_right_after_a_latin_name_is_found(tmp_path):
    # "FDB元信息…" once made one token of the Latin name and the Han characters after it, and the prompt
    # index never offered this statement for the answer
    problems = deck_file(tmp_path, [
        'type: basic, front: {zh: "为什么？", en: "Why?"}, back: {zh: "元信息持久化在数据库中", en: "meta"}',
        'type: truefalse, statement: {zh: "用FDB元信息持久化在数据库中", en: "M"}, answer: true',
    ], schema=2)
    assert [(line, "(zh)" in message) for line, _, message in giveaways(problems)] == [(7, True)]


def test_an_answer_and_a_prompt_differing_only_in_punctuation_and_case_match(tmp_path):
    problems = deck_file(tmp_path, [
        'type: basic, front: What does the cache avoid?, back: "Repeated, forward graph construction."',
        'type: truefalse, statement: "The cache avoids REPEATED FORWARD GRAPH CONSTRUCTION, always", answer: true',
    ])
    assert [line for line, _, _ in giveaways(problems)] == [6]


@pytest.mark.parametrize(("statement", "warned"), [
    # at the very start of the prompt
    ("Graph construction is repeated by the eager mode", True),
    # only as the start of longer words, though every word of it is in the prompt
    ("Graph construction is repeatedly slow, so repeated work", False),
    # a partial occurrence first, then a whole one
    ("Graph construction is repeatedly slow: graph construction is repeated", True),
    # whole between two partial ones
    ("Graph construction is repeatedly slow; graph construction is repeated, graph construction is repeatedly", True),
    # partial on its left only: the occurrence ends a longer word
    ("Subgraph construction is repeated, it is said", False),
])
def test_an_answer_counts_only_as_whole_words(tmp_path, statement, warned):
    problems = deck_file(tmp_path, [
        "type: basic, front: What happens in eager mode?, back: graph construction is repeated",
        f'type: truefalse, statement: "{statement}", answer: true',
    ])
    assert [line for line, _, _ in giveaways(problems)] == ([6] if warned else [])


@pytest.mark.parametrize(("haystack", "occurs"), [
    ("用fdb元信息持久化", True),  # a Han answer needs no space before it, after a Latin letter either
    ("元信息持久化fdb", True),  # nor after it
    ("x元信息持久化", True),
    ("abc", False),
])
def test_a_han_answer_needs_no_word_boundary(haystack, occurs):
    from studyapp.core.lints import _occurs

    assert bool(_occurs("元信息持久化", haystack)) is occurs


@pytest.mark.parametrize(("needle", "haystack", "occurs"), [
    ("data base", "data base", True),
    ("data base", "a data base.", True),
    ("data base", "metadata base", False),  # a Latin letter before the answer
    ("data base", "data bases", False),  # and after it
    ("data base", "元data base", True),  # a Han character is a boundary for a Latin answer, before it
    ("data base", "data base元", True),  # and after it
    ("元x", "b元x", True),  # an answer starting with a Han character needs no boundary before it
    ("x元", "x元b", True),  # nor one ending with one after it
    ("xy元", "xy元b", True),
    ("data base", "data basement data base", True),
])
def test_a_latin_answer_needs_a_boundary_on_each_side(needle, haystack, occurs):
    from studyapp.core.lints import _occurs

    assert bool(_occurs(needle, haystack)) is occurs


# -- the right-choice position: the figures of the warning -----------------------------------

def choice_of(i, options, right):
    names = [f"option {i}-{k}" for k in range(options)]
    return f"type: choice, front: Which one is right for {i}?, choices: [{', '.join(names)}], answer: {names[right]}"


def test_the_position_warning_counts_chance_only_over_cards_with_that_many_options(tmp_path):
    # six cards of three options with the right one third, two of two options: those two cannot have it third
    problems = deck_file(tmp_path, [*(choice_of(i, 3, 2) for i in range(6)), choice_of(6, 2, 0), choice_of(7, 2, 1)])
    [problem] = [p for p in problems if p.code == "choice-position-bias"]
    assert problem.message == (
        "the right choice is option 3 in 6 of the deck's 8 choice cards (chance would put about 2.0 there; "
        f"p = {(1 / 3) ** 6:.2g}); a learner can pick by position: move the right options to varied positions")


def test_the_position_with_the_smallest_chance_is_named(tmp_path):
    # four at the first of four options (p = 0.0039) beat two at the second (p well above)
    positions = [(0, 4)] * 4 + [(1, 4)] * 2
    position, observed, p = position_bias(positions)
    assert (position, observed) == (0, 4)
    # a later position with the same chance does not replace the first found
    assert position_bias([(0, 2), (1, 2)])[:2] == (0, 1)
    # an empty position is skipped, not the end of the search
    assert position_bias([(1, 3), (1, 3), (1, 3)])[:2] == (1, 3)


def test_the_tail_switches_to_the_normal_approximation_only_above_300_cards():
    # exactly 300 trials are still summed exactly: P(all 300 succeed) at 1/2 is 2^-300, tiny but not 0
    assert _upper_tail([0.5] * 300, 300) == pytest.approx(0.5 ** 300, rel=1e-9, abs=0)
    # near the mean, with its continuity correction, the approximation is within 1% of the exact binomial tail
    # (2.4% off without the correction, 6% with a correction of 1.5)
    n, observed = 1000, 250
    exact = sum(math.comb(n, m) * 0.25 ** m * 0.75 ** (n - m) for m in range(observed, n + 1))
    assert _upper_tail([0.25] * n, observed) == pytest.approx(exact, rel=0.01)


def test_a_warning_names_the_deck_file(tmp_path):
    problems = deck_file(tmp_path, [truefalse(0), truefalse(1)])
    [problem] = [p for p in problems if p.code == "truefalse-share"]
    assert problem.path == str(tmp_path / "decks" / "d.yaml")


def test_a_position_exactly_at_the_one_percent_threshold_does_not_warn(tmp_path):
    layout = [(0, 2), (0, 4), (0, 4), (0, 5), (0, 5), (1, 6), (1, 6)]  # (right option, options)
    assert position_bias(layout) == (0, 5, 0.01)  # five of seven first: p is 0.01 to the last bit
    problems = deck_file(tmp_path, [choice_of(i, options, right) for i, (right, options) in enumerate(layout)])
    assert codes(problems, "choice-position-bias") == []


def test_a_cloze_text_is_a_prompt_with_its_deletions_filled_in(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What do buckets do?, back: merge the gradients of many parameters",
        'type: cloze, text: "Buckets {{c1::merge the gradients}} of many parameters into one call"',
    ])
    assert giveaways(problems) == [(6, 76, GIVEAWAY.format(
        kind="card", card="c0", answer="merge the gradients of many parameters", field="text", other="c1", line=7,
        where=""))]


def test_both_sides_of_a_reverse_card_are_prompts(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does RDMA stand for?, back: remote direct memory access",
        "type: reverse, front: RDMA, back: Remote direct memory access",
    ])
    assert giveaways(problems) == [(6, 82, GIVEAWAY.format(
        kind="card", card="c0", answer="remote direct memory access", field="back", other="c1", line=7, where=""))]
    # a basic card's back is no prompt: the reverse card's answer (its back) is not found in it
    assert [line for line, _, _ in giveaways(deck_file(tmp_path, [
        "type: reverse, front: RDMA, back: Remote direct memory access",
        "type: basic, front: What is it?, back: remote direct memory access is it",
    ]))] == []


def test_a_giveaway_in_both_languages_is_reported_once(tmp_path):
    problems = deck_file(tmp_path, [
        'type: basic, front: {zh: "为什么？", en: "Why?"}, back: {zh: "元信息持久化在数据库中", en: "metadata persisted in FoundationDB"}',
        'type: truefalse, statement: {zh: "因为元信息持久化在数据库中所以无状态", en: "Metadata persisted in FoundationDB makes it stateless"},'
        ' answer: true',
    ], schema=2)
    assert [(line, "(zh)" in message) for line, _, message in giveaways(problems)] == [(7, True)]


def test_a_reverse_cards_front_is_a_prompt_too(tmp_path):
    problems = deck_file(tmp_path, [
        "type: basic, front: What does the acronym stand for?, back: remote direct memory access",
        "type: reverse, front: remote direct memory access, back: RDMA",
    ])
    assert giveaways(problems) == [(6, 89, GIVEAWAY.format(
        kind="card", card="c0", answer="remote direct memory access", field="front", other="c1", line=7, where=""))]
