"""Choice options are shown shuffled, by the item and its review count (check's position lint is core.lints')."""

from __future__ import annotations

from collections import Counter

import pytest

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.choices import choice_order, shown_choices
from studyapp.core.models import Card
from studyapp.core.quiz import build_quiz
from studyapp.core.session import ReviewSession
from studyapp.core.scheduler import GOOD

from engine_support import SETTINGS, deck, store_at

# Critical values of the chi-square distribution at p = 0.01, by degrees of freedom.
CHI2_CRITICAL_01 = {1: 6.635, 2: 9.210, 3: 11.345, 4: 13.277, 5: 15.086, 6: 16.812, 7: 18.475, 8: 20.090,
                    9: 21.666, 10: 23.209, 11: 24.725, 12: 26.217, 13: 27.688, 14: 29.141, 15: 30.578}


def choice(card_id: str, options=("A", "B", "C", "D"), answer="A") -> Card:
    return Card(id=card_id, type="choice", source=("s",), front=f"Q {card_id}?", choices=tuple(options), answer=answer)


def test_choice_order_is_a_permutation_fixed_by_key_and_salt():
    order = choice_order(6, "d/c/main", 3)
    assert sorted(order) == list(range(6))
    assert choice_order(6, "d/c/main", 3) == order  # a restart or an undo gives the same order
    # Other review counts and other items give other orders (over a few, not all equal).
    assert len({choice_order(6, "d/c/main", reps) for reps in range(10)}) > 5
    assert len({choice_order(6, f"d/c{i}/main", 0) for i in range(10)}) > 5


def test_shown_choices_track_the_right_answer():
    card = choice("c", ("w", "x", "y", "z"), "y")
    for reps in range(20):
        shown = shown_choices(card, "d/c/main", reps)
        assert sorted(shown.options) == ["w", "x", "y", "z"]
        assert shown.options[shown.correct] == "y"
    truefalse = Card(id="t", type="truefalse", source=("s",), statement="S", answer=False)
    assert shown_choices(truefalse, "d/t/main", 5).options == ("True", "False")
    assert shown_choices(truefalse, "d/t/main", 5).correct == 1
    assert shown_choices(Card(id="b", type="basic", source=("s",)), "d/b/main", 0).options == ()


def test_quiz_shows_the_options_in_choice_order():
    cards = [choice(f"c{i}", ("p", "q", "r", "s"), "p") for i in range(8)]
    quiz = build_quiz([deck("d", cards)], n=8, mode="choice", seed=42)
    for question in quiz.questions:
        assert question.options == shown_choices(question.card, question.key, 42).options
    firsts = Counter(q.options.index("p") for q in quiz.questions)
    assert firsts[0] < 8  # not all first, as in the file


def test_review_shows_shuffled_options_stable_across_undo_and_restart(tmp_path):
    cards = [choice("c", ("a", "b", "c", "d", "e", "f"), "a")]
    store, clock = store_at(tmp_path)
    session = ReviewSession(store, [deck("d", cards)], clock=clock, settings=SETTINGS)
    first = session.next()
    assert first.choices == shown_choices(cards[0], "d/c/main", 0)
    session.answer(GOOD)
    session.undo()
    assert session.next().choices.options == first.choices.options
    store.close()
    store, clock = store_at(tmp_path)
    again = ReviewSession(store, [deck("d", cards)], clock=clock, settings=SETTINGS).next()
    assert again.choices.options == first.choices.options
    store.close()


def test_bundled_right_answer_position_is_uniform_over_1000_seeded_reviews():
    """1,000 review presentations (each bundled choice card at successive review counts): the
    right answer's shown position passes a chi-square test of uniformity at p = 0.01, per
    option count (each a test with k - 1 degrees of freedom, summed)."""
    result = load_paths([bundled_decks_dir()])
    cards = [(d.id, c) for d in result.decks for c in d.cards if c.type == "choice"]
    assert len(cards) >= 30
    observed: dict[int, Counter] = {}
    for n in range(1000):
        deck_id, card = cards[n % len(cards)]
        shown = shown_choices(card, f"{deck_id}/{card.id}/main", n // len(cards))
        observed.setdefault(len(card.choices), Counter())[shown.correct] += 1
    statistic, freedom = 0.0, 0
    for k, counts in observed.items():
        total = sum(counts.values())
        expected = total / k
        statistic += sum((counts[j] - expected) ** 2 / expected for j in range(k))
        freedom += k - 1
    assert statistic < CHI2_CRITICAL_01[freedom], (statistic, freedom, observed)
    # The file order is far from uniform: the same statistic over the file positions fails.
    file_stat = 0.0
    for k in observed:
        at = Counter(c.choices.index(c.answer) for _, c in cards if len(c.choices) == k)
        total = sum(at.values())
        file_stat += sum((at[j] - total / k) ** 2 / (total / k) for j in range(k)) * (1000 / len(cards))
    assert file_stat > CHI2_CRITICAL_01[freedom], file_stat  # the file order would fail the test


def chi_square(observed: dict[int, Counter]) -> tuple[float, int]:
    """The statistic and degrees of freedom, one test per option count (k - 1 each), summed."""
    statistic, freedom = 0.0, 0
    for k, counts in observed.items():
        total = sum(counts.values())
        statistic += sum((counts[j] - total / k) ** 2 / (total / k) for j in range(k))
        freedom += k - 1
    return statistic, freedom


def test_bundled_right_answer_position_is_uniform_over_1000_review_session_presentations(tmp_path):
    """The same test through the review session itself: the bundled decks' choice cards studied
    day after day (Again about half the time, so cards come back within the day too), and the
    right answer's shown position recorded on each of the first 1,000 presentations, as the
    screen would show it (``ShownItem.choices``)."""
    import hashlib
    from dataclasses import replace as dc_replace

    from studyapp.core.clock import DAY_MS
    from studyapp.core.presets import DEFAULT_PRESET, Preset, Presets
    from studyapp.core.scheduler import AGAIN, EASY, HARD

    result = load_paths([bundled_decks_dir()])
    decks = [dc_replace(d, cards=tuple(c for c in d.cards if c.type == "choice")) for d in result.decks]
    decks = [d for d in decks if d.cards]
    store, clock = store_at(tmp_path)
    book = Presets({DEFAULT_PRESET: Preset(new_per_day=1000, reviews_per_day=1000)}, {})
    settings = dc_replace(SETTINGS, new_per_day=1000, reviews_per_day=1000)
    observed: dict[int, Counter] = {}
    shown_at: dict[str, set] = {}
    presentations = 0
    while presentations < 1000:
        session = ReviewSession(store, decks, clock=clock, settings=settings, presets=book)
        while presentations < 1000 and (item := session.next()) is not None:
            choices = item.choices
            assert choices.options[choices.correct] == item.item.card.answer
            observed.setdefault(len(choices.options), Counter())[choices.correct] += 1
            shown_at.setdefault(item.key, set()).add(choices.options)
            presentations += 1
            digest = hashlib.blake2b(f"{item.key}{item.state.reps}".encode(), digest_size=1).digest()[0]
            session.answer((AGAIN, AGAIN, HARD, GOOD, GOOD, EASY, AGAIN, GOOD)[digest % 8])
            clock.advance(seconds=20)
        clock.advance(days=1)
        clock.set(clock.now_ms() - clock.now_ms() % DAY_MS + 9 * 3_600_000)  # the next morning
    store.close()
    assert sum(len(d.cards) for d in decks) >= 30
    assert len(shown_at) >= 30 and sum(len(v) > 1 for v in shown_at.values()) >= 30  # orders change between reviews
    statistic, freedom = chi_square(observed)
    assert statistic < CHI2_CRITICAL_01[freedom], (statistic, freedom, observed)
    # Against the file's order the same statistic fails: the test can tell.
    cards = [c for d in decks for c in d.cards]
    in_file: dict[int, Counter] = {}
    for k, counts in observed.items():
        at = Counter(c.choices.index(c.answer) for c in cards if len(c.choices) == k)
        scale = sum(counts.values()) / sum(at.values())
        in_file[k] = Counter({j: at[j] * scale for j in range(k)})
    assert chi_square(in_file)[0] > CHI2_CRITICAL_01[freedom]



def test_cram_and_exams_show_the_options_shuffled(tmp_path):
    """Cram shows what review shows (the item's review count: cram answers change no schedule,
    so the order stays until the next real review); an exam's options are its quiz's, by its seed."""
    from studyapp.core.curriculum import ExamSettings
    from studyapp.onboarding.exams import build_exam

    cards = [choice(f"c{i}", ("a", "b", "c", "d", "e"), "a") for i in range(12)]
    bank = deck("d", cards)
    store, clock = store_at(tmp_path)
    cram = ReviewSession(store, [bank], clock=clock, settings=SETTINGS, cram=True)
    positions = []
    for _ in range(12):
        item = cram.next()
        assert item.queue == "cram"
        assert item.choices == shown_choices(item.item.card, item.key, item.state.reps)
        positions.append(item.choices.correct)
        cram.answer(GOOD)
    assert len(set(positions)) > 1  # not all at the file's first place
    store.close()
    exam = build_exam([bank], ExamSettings(questions=12, seed=7, mode="choice"))
    shown = [q.options.index("a") for q in exam.quiz.questions]
    assert all(q.options == shown_choices(q.card, q.key, 7).options for q in exam.quiz.questions)
    assert len(set(shown)) > 1
