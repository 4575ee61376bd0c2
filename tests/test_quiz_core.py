"""Lenient answer checking and seeded quizzes."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.grades import AGAIN, GOOD
from studyapp.core.matching import _diff, _fold, check_typed, normalise
from studyapp.core.models import BACKWARD, Card
from studyapp.core.quiz import build_quiz


def basic(back, accept=(), front="In the test, what is it?"):
    return Card(id="c", type="basic", source=("x",), front=front, back=back, accept=tuple(accept))


@pytest.mark.parametrize("given_text", [
    "FX graph cache", "fx GRAPH cache", "  FX   graph cache. ", "ＦＸ　ｇｒａｐｈ　ｃａｃｈｅ", "FX-graph cache!",
    "the FX graph cache", "FXgraphcache",
])
def test_case_spacing_punctuation_and_width_do_not_matter(given_text):
    assert check_typed(given_text, basic("FX graph cache")).correct


def test_accept_list_and_reverse_backward_side():
    card = Card(id="c", type="reverse", source=("x",), front="top layer", back="AOTAutograd", accept=("AOT Autograd",))
    assert check_typed("aot autograd", card).correct
    assert check_typed("top layer", card, BACKWARD).correct
    assert not check_typed("AOTAutograd", card, BACKWARD).correct


def test_small_typos_only_in_longer_answers():
    assert check_typed("FoundatonDB", basic("FoundationDB")).correct  # one letter missing in 12
    assert not check_typed("Fundatoin", basic("Foundation")).correct  # two typos in ten letters is too many
    assert not check_typed("RMDA", basic("RDMA")).correct  # short answers must be exact
    assert not check_typed("etc", basic("etcd")).correct


def test_numbers_are_never_forgiven():
    card = basic("36 trillion tokens", accept=["36 trillion"])
    assert check_typed("36 trillion", card).correct
    assert not check_typed("63 trillion tokens", card).correct
    assert not check_typed("35 trillion tokens", card).correct


def test_wrong_answer_gives_a_diff_and_proposes_again():
    result = check_typed("middle layr", basic("bottom layer"))
    assert not result.correct and result.proposed_rating == AGAIN
    # A different word is marked whole; a nearly right one letter by letter.
    assert result.diff == [("delete", "middle"), ("insert", "bottom"), ("equal", " lay"), ("insert", "e"), ("equal", "r")]
    assert "".join(t for op, t in result.diff if op != "delete") == "bottom layer"
    assert check_typed("bottom layer", basic("bottom layer")).proposed_rating == GOOD


def test_empty_answer_is_wrong():
    assert not check_typed("   ", basic("x")).correct


@pytest.mark.parametrize("answer", ["compilation", "Mega-Cache", "σίγμα", "Straße", "KV cache 缓存", "3FS"])
def test_an_answer_typed_in_capitals_or_lower_case_is_right(answer):
    card = basic(answer)
    assert check_typed(answer.upper(), card).correct
    assert check_typed(answer.lower(), card).correct
    assert check_typed(answer.swapcase(), card).correct


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_the_expected_answer_always_matches_itself(text):
    if normalise(text):
        assert check_typed(text, basic(text)).correct
        assert check_typed(text.upper(), basic(text)).correct or text.upper().casefold() != text.casefold()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.text(min_size=1, max_size=40))
def test_diff_rebuilds_both_strings(given_text, expected):
    result = check_typed(given_text, basic(expected))
    assert "".join(t for op, t in result.diff if op != "insert") == given_text
    # The expected side up to case and width, which matching ignores and the diff does not mark.
    assert _fold("".join(t for op, t in result.diff if op != "delete")) == _fold(result.shown_expected)


def test_a_one_letter_typo_marks_one_letter_and_case_is_no_difference():
    result = check_typed("Compilaton", basic("compilation"))
    assert result.correct and result.diff == [("equal", "Compilat"), ("insert", "i"), ("equal", "on")]
    assert check_typed("COMPILATION", basic("compilation")).diff == [("equal", "COMPILATION")]
    assert check_typed("３ layers", basic("3 layers")).diff == [("equal", "３ layers")]
    result = check_typed("Thre layer", basic("Three layers"))
    assert result.diff == [("equal", "Thre"), ("insert", "e"), ("equal", " layer"), ("insert", "s")]


def test_chinese_is_compared_character_by_character():
    result = check_typed("缓存管里器", basic("缓存管理器"))
    assert result.diff == [("equal", "缓存管"), ("delete", "里"), ("insert", "理"), ("equal", "器")]


def test_the_diff_is_against_the_answer_shown_as_expected():
    card = basic("Compilation performance", accept=["compile performance"])
    result = check_typed("startup perf", card)
    assert not result.correct and result.expected == "Compilation performance"
    assert result.compared == result.shown_expected == "compile performance"
    assert result.diff == [("delete", "startup"), ("insert", "compile"), ("equal", " perf"), ("insert", "ormance")]
    # Closest to the card's own answer: that is what is shown and compared.
    result = check_typed("Compilation perf", card)
    assert result.shown_expected == "Compilation performance"
    assert result.diff == [("equal", "Compilation perf"), ("insert", "ormance")]
    assert check_typed("compile performance", card).shown_expected == "compile performance"
    assert check_typed("", card).shown_expected == "Compilation performance"


def test_a_changed_stretch_is_marked_by_letter_from_half_alike_and_whole_below():
    assert _diff("ab", "ac") == [("equal", "a"), ("delete", "b"), ("insert", "c")]  # ratio 0.5
    assert _diff("abcd", "abxyz") == [("delete", "abcd"), ("insert", "abxyz")]  # ratio 0.44
    assert _diff("reasoning", "thinking mode") == [("delete", "reasoning"), ("insert", "thinking mode")]
    assert _diff("", "abc") == [("insert", "abc")] and _diff("abc", "") == [("delete", "abc")]


@pytest.fixture(scope="module")
def decks():
    return load_paths([bundled_decks_dir()]).decks


def test_quiz_is_reproducible_from_its_seed(decks):
    first = build_quiz(decks, n=15, mode="mixed", seed=42)
    again = build_quiz(decks, n=15, mode="mixed", seed=42)
    other = build_quiz(decks, n=15, mode="mixed", seed=43)
    assert [(q.key, q.options) for q in first.questions] == [(q.key, q.options) for q in again.questions]
    assert [q.key for q in first.questions] != [q.key for q in other.questions]
    assert len({q.key for q in first.questions}) == 15
    assert {q.kind for q in first.questions} <= {"choice", "truefalse", "typed"}


@pytest.mark.parametrize("mode,kind", [("choice", "choice"), ("truefalse", "truefalse"), ("typed", "typed")])
def test_mode_restricts_the_kind(decks, mode, kind):
    quiz = build_quiz(decks, n=8, mode=mode, seed=1)
    assert {q.kind for q in quiz.questions} == {kind}
    for question in quiz.questions:
        if kind == "choice":
            assert sorted(question.options) == sorted(question.card.choices)


def test_answering_scoring_misses_and_override(decks):
    quiz = build_quiz(decks, n=30, mode="mixed", seed=7)
    typed_seen = False
    while not quiz.finished:
        question = quiz.current
        if question.kind == "choice":
            wrong = next(i for i, o in enumerate(question.options) if o != question.card.answer)
            answer = quiz.answer(wrong)
            assert not answer.correct
            assert answer.feedback == question.card.feedback.get(question.options[wrong], "")
        elif question.kind == "truefalse":
            assert quiz.answer(bool(question.card.answer)).correct
        else:
            answer = quiz.answer("definitely not it")
            assert not answer.correct and answer.match.diff
            if not typed_seen:
                quiz.override_correct()
                assert quiz.answers[-1].correct and quiz.answers[-1].overridden
                typed_seen = True
    right, total = quiz.score()
    assert total == 30
    truefalse = sum(1 for q in quiz.questions if q.kind == "truefalse")
    assert right == truefalse + (1 if typed_seen else 0)
    assert len(quiz.misses()) == total - right
    with pytest.raises(ValueError):
        quiz.answer(0)


def test_override_refuses_choice_answers(decks):
    quiz = build_quiz(decks, n=3, mode="choice", seed=3)
    quiz.answer(0)
    with pytest.raises(ValueError):
        quiz.override_correct()


def test_bad_quiz_arguments(decks):
    with pytest.raises(ValueError):
        build_quiz(decks, n=0)
    with pytest.raises(ValueError):
        build_quiz(decks, mode="essay")
    # Capped at what exists: every basic card of the decks once, none twice (a quiz types
    # only basic cards; reverse and cloze ones are review's).
    typed_cards = [(deck.id, card.id) for deck in decks for card in deck.cards if card.type == "basic"]
    questions = build_quiz(decks, n=10_000, mode="typed", seed=1).questions
    assert sorted((q.deck_id, q.card.id) for q in questions) == sorted(typed_cards)
