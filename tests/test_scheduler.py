"""The FSRS adapter: settings, study days, the four buttons, deterministic fuzz."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from studyapp.core.clock import DAY_MS, HOUR_MS, MINUTE_MS
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import (AGAIN, EASY, GOOD, HARD, NEW_STATE, RATINGS, REVIEW, ItemState, ReviewScheduler,
                                     Settings, StudyDays, format_days, format_seconds, resolve_zone)

from engine_support import T0, ZONE

BERLIN = ZoneInfo(ZONE)


def at(*args) -> int:
    return int(datetime(*args, tzinfo=BERLIN).timestamp() * 1000)


def sched(**changes) -> ReviewScheduler:
    return ReviewScheduler(Settings(timezone=ZONE, **changes))


# ---------------------------------------------------------------- settings


def test_defaults_are_the_documented_ones():
    s = Settings()
    assert (s.desired_retention, s.new_per_day, s.reviews_per_day, s.rollover_hour) == (0.9, 20, 200, 4)
    assert (s.learning_steps, s.relearning_steps, s.maximum_interval, s.fuzz) == ((60, 600), (600,), 36500, True)
    assert s.leech_lapses == 8


@pytest.mark.parametrize("retention", [0.7, 0.70, 0.85, 0.99])
def test_retention_in_range_is_accepted(retention):
    assert Settings(desired_retention=retention).desired_retention == retention


@pytest.mark.parametrize("retention", [0.69, 0.995, 1.0, 0.0, -1, "0.9", None, True])
def test_retention_out_of_range_is_a_clear_error(retention):
    with pytest.raises(StudyappError) as caught:
        Settings(desired_retention=retention)
    assert "0.70 to 0.99" in caught.value.message
    assert caught.value.code == "usage"


@pytest.mark.parametrize("changes, words", [
    ({"rollover_hour": 24}, "rollover hour"),
    ({"new_per_day": -1}, "new per day"),
    ({"reviews_per_day": 2.5}, "reviews per day"),
    ({"timezone": "Mars/Olympus"}, "unknown time zone"),
    ({"learning_steps": (60, 0)}, "learning steps"),
    ({"maximum_interval": 40000}, "maximum interval"),
    ({"parameters": (1.0,) * 21}, "FSRS parameters"),
])
def test_bad_settings_name_the_setting(changes, words):
    with pytest.raises(StudyappError, match=words):
        Settings(**changes)


def test_settings_round_trip_and_unknown_names():
    from studyapp.core.scheduler import DeckLimits

    s = Settings(desired_retention=0.85, timezone="Asia/Tokyo", deck_limits={"a": DeckLimits(new_per_day=5)})
    assert Settings.from_dict(s.to_dict()) == s
    with pytest.raises(StudyappError, match="unknown setting 'colour'"):
        Settings.from_dict({"colour": "red"})
    with pytest.raises(StudyappError, match="new per day of deck 'a'"):
        Settings.from_dict({"deck_limits": {"a": {"new_per_day": -3}}})


# ---------------------------------------------------------------- study days


def test_a_study_day_starts_at_the_rollover_hour():
    days = StudyDays(BERLIN, 4)
    assert days.day_of(at(2026, 3, 3, 3, 59)) == days.day_of(at(2026, 3, 2, 12, 0))
    assert days.day_of(at(2026, 3, 3, 4, 0)) == days.day_of(at(2026, 3, 2, 12, 0)) + 1
    assert days.start_ms(days.day_of(at(2026, 3, 2, 12, 0))) == at(2026, 3, 2, 4, 0)
    # A configurable hour.
    midnight = StudyDays(BERLIN, 0)
    assert midnight.day_of(at(2026, 3, 3, 0, 30)) == midnight.day_of(at(2026, 3, 2, 23, 30)) + 1


def test_study_days_follow_daylight_saving():
    days = StudyDays(BERLIN, 4)
    spring = days.day_of(at(2026, 3, 29, 12, 0))  # clocks go forward that night
    assert days.end_ms(spring - 1) - days.start_ms(spring - 1) == 23 * HOUR_MS
    # Moving a time by whole days keeps the study day arithmetic exact across the change.
    for hours in range(24):
        start = at(2026, 3, 25, 0, 0) + hours * HOUR_MS
        moved = days.add_days(start, 7)
        assert days.day_of(moved) == days.day_of(start) + 7


def test_elapsed_days_count_as_anki_counts_them():
    s = sched()
    assert s.elapsed_days(at(2026, 3, 2, 5, 0), at(2026, 3, 2, 23, 0)) == 0
    assert s.elapsed_days(at(2026, 3, 2, 23, 0), at(2026, 3, 3, 5, 0)) == 1
    assert s.elapsed_days(at(2026, 3, 3, 1, 0), at(2026, 3, 3, 5, 0)) == 1  # 01:00 was still the 2nd
    # Across the autumn change, a review just after the rollover counts one more day than
    # the calendar suggests: Anki measures whole 24-hour periods to the next rollover.
    assert s.elapsed_days(at(2027, 10, 23, 4, 6), at(2027, 11, 11, 13, 27)) == 20


def test_the_machine_zone_is_used_unless_one_is_set(monkeypatch):
    resolve_zone.cache_clear()
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    try:
        assert getattr(resolve_zone(None), "key", None) == "Asia/Tokyo"
        assert resolve_zone("UTC").key == "UTC"
    finally:
        resolve_zone.cache_clear()


def test_results_do_not_depend_on_the_machine_zone(monkeypatch):
    expected = _history_intervals(sched())
    for tz in ("UTC", "America/Los_Angeles", "Asia/Kolkata"):
        resolve_zone.cache_clear()
        monkeypatch.setenv("TZ", tz)
        assert _history_intervals(sched()) == expected
    resolve_zone.cache_clear()


def _history_intervals(s: ReviewScheduler) -> list:
    state, now, out = NEW_STATE, T0, []
    for rating in (GOOD, GOOD, GOOD, AGAIN, GOOD, EASY, HARD, GOOD):
        previews = s.previews(state, "d/c/main", now)
        out.append([p.label for p in previews.values()])
        state = previews[rating].after
        now = state.due_ms + 2 * HOUR_MS
    return out


# ---------------------------------------------------------------- the buttons


def test_a_new_item_uses_the_learning_steps():
    previews = sched(fuzz=False).previews(NEW_STATE, "d/c/main", T0)
    assert [previews[r].interval_secs for r in (AGAIN, HARD, GOOD)] == [60, 330, 600]
    assert previews[EASY].interval_days >= 1 and previews[EASY].after.state == REVIEW
    assert previews[GOOD].after.state == "learning" and previews[GOOD].after.step == 1
    assert previews[GOOD].due_ms == T0 + 10 * MINUTE_MS


def test_a_lapse_goes_to_the_relearning_step_and_counts():
    s = sched()
    state = ItemState(state=REVIEW, stability=20.0, difficulty=5.0, due_ms=T0, last_review_ms=T0 - 20 * DAY_MS,
                      interval=20, reps=5, lapses=2)
    again = s.previews(state, "d/c/main", T0)[AGAIN]
    assert again.after.state == "relearning" and again.interval_secs == 600
    assert again.after.lapses == 3 and again.after.reps == 6
    assert again.after.stability < state.stability


def _random_history(seed: int, retention: float = 0.9):
    """A random walk of states as a learner would make them (answers on time or late)."""
    rng = random.Random(seed)
    s = sched(desired_retention=retention)
    state, now = NEW_STATE, T0
    for _ in range(rng.randrange(1, 40)):
        previews = s.previews(state, f"d/c{seed}/main", now)
        yield state, previews
        state = previews[rng.choice(RATINGS)].after
        now = state.due_ms + rng.choice([0, 0, HOUR_MS, DAY_MS, 9 * DAY_MS])


@hsettings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), retention=st.sampled_from([0.7, 0.8, 0.9, 0.95, 0.99]))
def test_the_buttons_keep_ankis_order(seed, retention):
    for state, previews in _random_history(seed, retention):
        days = {r: p.interval_days for r, p in previews.items()}
        top = 36500  # at the maximum interval the buttons can only tie
        if state.state == REVIEW:
            assert days[HARD] >= 1
            assert days[GOOD] > days[HARD] or days[GOOD] == top
            assert days[EASY] > days[GOOD] or days[EASY] == top
        elif days[EASY] is not None and days[GOOD] is not None:
            # A graduating Easy beats Good's interval fuzzed before rounding, which can be a day
            # below Good's own button (Anki's learning.rs answer_easy): at least equal, then.
            assert days[EASY] >= days[GOOD]
        for p in previews.values():
            assert (p.interval_days is None) != (p.interval_secs is None)
            assert p.interval_days is None or 1 <= p.interval_days <= 36500


def test_fuzz_is_fixed_by_item_and_review_count():
    s = sched()
    state = ItemState(state=REVIEW, stability=50.0, difficulty=5.0, due_ms=T0, last_review_ms=T0 - 40 * DAY_MS,
                      interval=40, reps=7)
    first = s.previews(state, "d/c/main", T0)
    random.seed(1)
    again = ReviewScheduler(Settings(timezone=ZONE)).previews(state, "d/c/main", T0)
    assert first == again
    for rating in RATINGS:
        assert s.apply(state, "d/c/main", rating, T0) == first[rating]
    # Other items (or another review count) land elsewhere in the fuzz range.
    goods = {s.previews(replace(state, reps=n), f"d/c{n}/main", T0)[GOOD].interval_days for n in range(40)}
    assert len(goods) > 3


def test_fuzz_stays_inside_ankis_range():
    plain, fuzzed = sched(fuzz=False), sched()
    seen = set()
    for n in range(200):
        stability = 3 + n * 1.7
        state = ItemState(state=REVIEW, stability=stability, difficulty=5.0, due_ms=T0,
                          last_review_ms=T0 - 3 * DAY_MS, interval=3, reps=n)
        # Hard has no button before it, so its range is the plain one (Good's may be pushed up by Hard's).
        base = plain.previews(state, f"k{n}", T0)[HARD].interval_days
        got = fuzzed.previews(state, f"k{n}", T0)[HARD].interval_days
        delta = 1 + 0.15 * (min(base, 7) - 2.5) + 0.1 * max(0, min(base, 20) - 7) + 0.05 * max(0, base - 20)
        assert abs(got - base) <= delta + 1, (base, got)
        seen.add(got - base)
    assert min(seen) < 0 < max(seen)


def test_stability_is_capped_like_ankis():
    s = sched()
    state = ItemState(state=REVIEW, stability=36000.0, difficulty=1.0, due_ms=T0, last_review_ms=T0 - 36000 * DAY_MS,
                      interval=36000, reps=30)
    for preview in s.previews(state, "d/c/main", T0).values():
        assert preview.after.stability <= 36500
        assert preview.interval_days is None or preview.interval_days <= 36500


def test_the_eighth_lapse_marks_a_leech():
    s = sched()
    state, now = NEW_STATE, T0
    state = s.apply(state, "k", EASY, now).after
    for lapse in range(1, 9):
        now = state.due_ms + HOUR_MS
        state = s.apply(state, "k", AGAIN, now).after
        assert state.lapses == lapse
        assert state.leech == (lapse >= 8)
        now = state.due_ms + MINUTE_MS
        state = s.apply(state, "k", GOOD, now).after
    assert state.leech


def test_labels():
    assert [format_seconds(x) for x in (30, 60, 330, 600, 5400, 86400 * 3)] == ["30s", "1m", "6m", "10m", "1.5h", "3d"]
    assert [format_days(x) for x in (1, 29, 45, 365, 800)] == ["1d", "29d", "1.5mo", "1y", "2.2y"]
    assert sched().previews(NEW_STATE, "k", T0)[GOOD].label == "10m"


def test_a_bad_rating_is_refused():
    with pytest.raises(StudyappError, match="not a grade"):
        sched().apply(NEW_STATE, "k", 5, T0)


def test_review_dates_land_on_the_right_study_day():
    s = sched()
    state = ItemState(state=REVIEW, stability=10.0, difficulty=5.0, due_ms=T0, last_review_ms=T0 - 10 * DAY_MS,
                      interval=10, reps=3)
    for minutes in range(0, 24 * 60, 37):
        now = at(2026, 3, 26, 0, 0) + minutes * MINUTE_MS  # DST starts on the 29th
        for p in s.previews(state, "k", now).values():
            if p.interval_days is not None:
                assert s.days.day_of(p.due_ms) == s.days.day_of(now) + p.interval_days
