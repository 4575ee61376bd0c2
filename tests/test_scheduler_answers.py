"""Answers whose outcome the other scheduler tests leave open: leech flags at the threshold,
retrievability away from the desired retention, the load balancer's workload read at the
answer's time, Rust's ``as u32``, and a settings error."""

from __future__ import annotations

import pytest

from studyapp.core.clock import DAY_MS, HOUR_MS
from studyapp.core.fuzz import as_u32
from studyapp.core.load_balancer import LoadBalancer
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import (AGAIN, EASY, GOOD, HARD, NEW_STATE, REVIEW, ItemState, ReviewScheduler,
                                     Settings)

from engine_support import T0, ZONE


def _review(**changes) -> ItemState:
    fields = dict(state=REVIEW, stability=11.0, difficulty=5.0, due_ms=T0, last_review_ms=T0 - 11 * DAY_MS,
                  interval=11, reps=12)
    fields.update(changes)
    return ItemState(**fields)


def test_an_item_is_a_leech_once_its_lapses_reach_the_threshold():
    s = ReviewScheduler(Settings(timezone=ZONE))  # Anki's default: 8 lapses
    seven = s.previews(_review(lapses=7), "k", T0)
    assert [seven[r].after.leech for r in (HARD, GOOD, EASY)] == [False, False, False]
    assert seven[AGAIN].after.lapses == 8 and seven[AGAIN].after.leech
    # Reaching the threshold, not passing it: an item already at 8 (a lower threshold set
    # since) is a leech on its next answer, whatever the grade.
    eight = s.previews(_review(lapses=8), "k", T0)
    assert all(eight[r].after.leech for r in (AGAIN, HARD, GOOD, EASY))
    assert [eight[r].after.lapses for r in (AGAIN, HARD, GOOD, EASY)] == [9, 8, 8, 8]
    # A leech stays one, however few its lapses.
    flagged = s.previews(_review(lapses=1, leech=True), "k", T0)
    assert all(flagged[r].after.leech for r in (AGAIN, HARD, GOOD, EASY))
    lowered = ReviewScheduler(Settings(timezone=ZONE, leech_lapses=3)).previews(_review(lapses=3), "k", T0)
    assert lowered[GOOD].after.leech


def test_retrievability_follows_fsrs6_forgetting_curve_past_the_stability():
    # FSRS-6: R = (1 + f * t / S) ** -w20 with f = 0.9 ** (-1 / w20) - 1; w20 = 0.1542 by default,
    # so f = 0.98035 and twenty days after a review at stability 10, R = 2.96069 ** -0.1542.
    s = ReviewScheduler(Settings(timezone=ZONE))
    state = _review(stability=10.0, last_review_ms=T0 - 20 * DAY_MS)
    assert s.retrievability(state, T0) == pytest.approx(0.845885, abs=1e-6)
    assert s.retrievability(_review(stability=10.0, last_review_ms=T0 - 10 * DAY_MS), T0) == pytest.approx(0.9)
    assert s.retrievability(_review(stability=10.0, last_review_ms=T0 - HOUR_MS), T0) == 1.0


def test_the_load_balancer_reads_the_workload_at_the_answers_time():
    calls = []
    scheduler_days = Settings(timezone=ZONE).study_days()

    def fill(now_ms):
        calls.append(now_ms)
        return {d: 40 for d in range(99) if d != 33}

    balancer = LoadBalancer(fill=fill, day_of=scheduler_days.day_of)
    s = ReviewScheduler(Settings(timezone=ZONE), load_balancer=balancer)
    previews = s.previews(_review(reps=4), "k", T0)
    assert calls == [T0]  # the day of the answer, once
    assert previews[GOOD].interval_days == 33  # the only day of Good's range without reviews


def test_as_u32_truncates_and_saturates_as_rust_does():
    assert [as_u32(v) for v in (0.0, 0.99, 1.0, 1.5, 2.999, 36500.7)] == [0, 0, 1, 1, 2, 36500]
    assert as_u32(-3.5) == 0 and as_u32(float("nan")) == 0
    assert as_u32(5e9) == 0xFFFFFFFF


def test_deck_limits_of_the_wrong_kind_are_a_usage_error():
    with pytest.raises(StudyappError) as caught:
        Settings(deck_limits={"a": 5}).validate()
    assert caught.value.message == "limits for deck 'a' must be DeckLimits"
    assert caught.value.code == "usage"


def test_every_preview_names_its_grade_and_is_due_when_its_state_is():
    s = ReviewScheduler(Settings(timezone=ZONE))
    learning = ItemState(state="learning", step=1, stability=2.3, difficulty=2.1, last_review_ms=T0 - HOUR_MS,
                         due_ms=T0, reps=2)
    for state in (NEW_STATE, learning, _review()):
        previews = s.previews(state, "k", T0)
        for rating in (AGAIN, HARD, GOOD, EASY):
            assert previews[rating].rating == rating
            assert previews[rating].due_ms == previews[rating].after.due_ms
    # Easy graduates a new item: due that many study days on, at the same time of day.
    easy = s.previews(NEW_STATE, "k", T0)[EASY]
    assert easy.after.state == REVIEW
    assert easy.due_ms == T0 + easy.interval_days * DAY_MS  # no clock change in Berlin before 29 March


def test_a_lapse_whose_relearning_step_reaches_the_rollover_is_due_that_study_day():
    # The 10-minute relearning step, answered 601 s before the 04:00 rollover, ends 1 s before it;
    # answered 600 s before, it reaches it and is due when the next study day starts (Anki's
    # day learning, interval_kind.rs).
    s = ReviewScheduler(Settings(timezone=ZONE, fuzz=False))
    rollover = s.days.start_ms(s.days.day_of(T0) + 1)
    just_before = s.previews(_review(), "k", rollover - 601_000)[AGAIN]
    assert (just_before.due_ms, just_before.step_days) == (rollover - 1000, None)
    exactly = s.previews(_review(), "k", rollover - 600_000)[AGAIN]
    assert (exactly.due_ms, exactly.step_days) == (rollover, 1)
    assert exactly.after.state == "relearning" and exactly.after.lapses == 1


def test_an_item_in_learning_without_a_memory_state_is_answered_as_a_first_review():
    # No stability or difficulty yet (an item whose memory was never computed): FSRS-6 starts
    # from the initial stabilities w0..w3 of the grade, as for a new item.
    s = ReviewScheduler(Settings(timezone=ZONE))
    state = ItemState(state="learning", step=0, reps=1, last_review_ms=T0 - 600_000, due_ms=T0)
    previews = s.previews(state, "k", T0)
    assert [previews[r].after.stability for r in (AGAIN, HARD, GOOD, EASY)] == pytest.approx(
        [0.212, 1.2931, 2.3065, 8.2956], abs=1e-6)
    assert [previews[r].interval_secs for r in (AGAIN, HARD, GOOD)] == [60, 330, 600]  # the 1m 10m steps
    assert previews[EASY].after.state == REVIEW


@pytest.mark.parametrize("settings", [dict(), dict(relearning_steps=()), dict(relearning_steps=(), fuzz=False),
                                      dict(relearning_steps=(20 * HOUR_MS // 1000,))])
def test_lazy_previews_are_the_previews_built_when_read(settings):
    """A shown review's previews (``lazy``): the same four as the dict, in the same order, each built
    once when first read (the Again of a relearning step, of no steps, and of a step past the rollover)."""
    s = ReviewScheduler(Settings(timezone=ZONE, **settings), load_balancer=LoadBalancer([3, 0, 5, 1] * 20))
    for lapses in (0, 7):
        eager = s.previews(_review(lapses=lapses), "d/c/main", T0)
        lazy = s.previews(_review(lapses=lapses), "d/c/main", T0, lazy=True)
        assert type(eager) is dict and list(lazy) == list(eager) == [AGAIN, HARD, GOOD, EASY]
        assert len(lazy) == 4 and GOOD in lazy and 5 not in lazy and lazy.get(5) is None
        with pytest.raises(KeyError):
            lazy[5]
        assert lazy[EASY] == eager[EASY] and lazy[EASY] is lazy[EASY]
        assert lazy == eager and dict(lazy.items()) == eager and repr(lazy) == repr(eager)
    # Any other state: the dict itself.
    assert type(s.previews(NEW_STATE, "d/c/main", T0, lazy=True)) is dict
