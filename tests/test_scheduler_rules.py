"""The scheduler's smaller rules, each at its edge: what a button label says, how Anki counts the
days since a review, retrievability where its value is known, the state an Again leaves with and
without relearning steps, and the settings' messages word for word."""

from __future__ import annotations

from datetime import timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import (AGAIN, GOOD, LEARNING, RELEARNING, REVIEW, DeckLimits, ItemState, ReviewScheduler,
                                     Settings, format_days, format_seconds, zone_name)

DAY_MS = 86_400_000
NOW = 1_780_000_000_000  # 2026-05-28 20:26:40 UTC; the next 04:00 rollover is 1_780_027_200_000


@pytest.mark.parametrize("secs, label", [(59, "59s"), (60, "1m"), (3599, "60m"), (3600, "1h"), (3780, "1.1h"),
                                         (7200, "2h"), (86399, "24h"), (86400, "1d"), (129_600, "2d")])
def test_button_labels_for_seconds(secs, label):
    assert format_seconds(secs) == label


@pytest.mark.parametrize("days, label", [(29, "29d"), (30, "1mo"), (50, "1.7mo"), (60, "2mo"), (364, "12.1mo"),
                                         (365, "1y"), (420, "1.2y"), (730, "2y")])
def test_button_labels_for_days(days, label):
    assert format_days(days) == label


def test_days_since_a_review_count_whole_seconds_to_the_next_rollover():
    scheduler = ReviewScheduler(Settings(timezone="UTC"))
    rollover = scheduler.days.next_day_at_ms(NOW)
    assert rollover == 1_780_027_200_000
    # Anki drops the milliseconds of the review time: 86,400 whole seconds before the rollover is one day
    assert scheduler.elapsed_days(rollover - DAY_MS + 500, NOW) == 1
    assert scheduler.elapsed_days(rollover - DAY_MS + 1000, NOW) == 0
    assert scheduler.elapsed_days(NOW - 10 * DAY_MS, NOW) == 10
    assert scheduler.elapsed_days(NOW + DAY_MS, NOW) == 0  # a clock that went back


def test_retrievability_is_the_desired_retention_after_stability_days_and_one_at_once():
    scheduler = ReviewScheduler(Settings(timezone="UTC"))
    state = ItemState(state=REVIEW, stability=10.0, difficulty=5.0, last_review_ms=NOW - 10 * DAY_MS, interval=10)
    assert scheduler.retrievability(state, NOW) == pytest.approx(0.9, abs=1e-12)
    assert scheduler.retrievability(ItemState(state=REVIEW, stability=10.0, difficulty=5.0, last_review_ms=NOW), NOW) == 1.0
    assert scheduler.retrievability(ItemState(state=REVIEW, last_review_ms=NOW), NOW) is None
    assert scheduler.retrievability(ItemState(state=REVIEW, stability=10.0), NOW) is None


REVIEWED = ItemState(state=REVIEW, stability=10.0, difficulty=5.0, last_review_ms=NOW - 10 * DAY_MS, due_ms=NOW,
                     interval=10, reps=3)


def test_again_on_a_review_card_starts_relearning_at_its_first_step():
    after = ReviewScheduler(Settings(timezone="UTC", fuzz=False)).apply(REVIEWED, "d/c/main", AGAIN, NOW)
    assert (after.after.state, after.after.step, after.interval_secs, after.label) == (RELEARNING, 0, 600, "10m")


def test_without_relearning_steps_a_short_again_interval_stays_relearning():
    scheduler = ReviewScheduler(Settings(timezone="UTC", fuzz=False, relearning_steps=()))
    weak = ItemState(state=REVIEW, stability=0.3, difficulty=8.0, last_review_ms=NOW - 10 * DAY_MS, due_ms=NOW, interval=10,
                     reps=3)
    again = scheduler.apply(weak, "d/c/main", AGAIN, NOW)
    # FSRS gives under half a day: Anki keeps the card relearning for that long, at step 0
    assert (again.after.state, again.after.step, again.interval_days) == (RELEARNING, 0, None)
    assert 0 < again.interval_secs < 43_200 and again.after.interval == -again.interval_secs
    strong = scheduler.apply(REVIEWED, "d/c/main", AGAIN, NOW)
    assert (strong.after.state, strong.after.step, strong.interval_days) == (REVIEW, None, 1)


def test_without_learning_steps_a_new_cards_again_stays_learning_and_good_graduates():
    scheduler = ReviewScheduler(Settings(timezone="UTC", fuzz=False, learning_steps=()))
    again = scheduler.apply(ItemState(), "d/c/main", AGAIN, NOW)
    assert (again.after.state, again.after.step, again.interval_days) == (LEARNING, 0, None)
    assert 0 < again.interval_secs < 43_200
    good = scheduler.apply(ItemState(), "d/c/main", GOOD, NOW)
    # FSRS-6's default stability after a first Good is 2.3065 days: at 90% retention, a 2-day interval
    assert (good.after.state, good.after.step, good.interval_days) == (REVIEW, None, 2)


def test_a_rating_that_is_not_a_grade_is_a_usage_error():
    with pytest.raises(StudyappError) as raised:
        ReviewScheduler().apply(REVIEWED, "d/c/main", 5, NOW)
    assert (raised.value.message, raised.value.code) == (
        "rating 5 is not a grade; use 1 (again), 2 (hard), 3 (good) or 4 (easy)", "usage")


# -- settings ---------------------------------------------------------------------------------


def usage_error(data, **kwargs) -> str:
    with pytest.raises(StudyappError) as raised:
        Settings.from_dict(data, **kwargs)
    assert raised.value.code == "usage"
    return raised.value.message


def test_settings_errors_name_the_source_and_what_is_accepted():
    assert usage_error([1]) == "settings: expected a mapping of setting names to values"
    known = ", ".join(sorted(Settings().to_dict()))
    assert usage_error({"colour": 1, "size": 2}, source="config.toml") == (
        f"config.toml: unknown setting 'colour', 'size'; known settings: {known}")
    assert usage_error({"deck_limits": [1]}) == "settings: deck_limits must map deck ids to limits"
    assert usage_error({"deck_limits": {"a": {"per_day": 1}}}) == (
        "settings: deck_limits: DeckLimits.__init__() got an unexpected keyword argument 'per_day'")


def test_deck_limits_come_in_as_mappings_or_as_they_are_and_go_out_as_mappings():
    settings = Settings.from_dict({"deck_limits": {"a": DeckLimits(5, None), 7: {"reviews_per_day": 9}}})
    assert settings.deck_limits == {"a": DeckLimits(5, None), "7": DeckLimits(None, 9)}
    assert settings.to_dict()["deck_limits"] == {"7": {"new_per_day": None, "reviews_per_day": 9},
                                                 "a": {"new_per_day": 5, "reviews_per_day": None}}
    assert Settings.from_dict(settings.to_dict()) == settings


def test_the_recorded_parameters_name_the_time_zone():
    assert Settings(timezone="Pacific/Chatham").scheduler_params()["timezone"] == "Pacific/Chatham"
    assert zone_name(ZoneInfo("Asia/Tokyo")) == "Asia/Tokyo"
    assert zone_name(timezone.utc) == "UTC"
    assert zone_name(timezone(timedelta(hours=2))) == "UTC+02:00"


# -- Anki's fuzz arithmetic (rslib/src/scheduler/states/fuzz.rs) ------------------------------


def test_rusts_f32_as_u32_saturates_and_maps_nan_to_zero():
    from studyapp.core.fuzz import as_u32

    assert [as_u32(v) for v in (float("nan"), -3.5, -1.0, 0.0, 2.9, 1e10)] == [0, 0, 0, 0, 2, 4_294_967_295]


def test_a_passing_review_is_at_least_one_day_longer_unless_the_fuzz_range_reaches_the_previous_interval():
    from studyapp.core.fuzz import minimum_review_fuzz_interval

    # Interval 10: fuzz delta 1 + 15% of 4.5 + 10% of 3 = 1.975 days, so the range is 8 to 12.
    assert minimum_review_fuzz_interval(10.0, 5, 36500) == 6
    assert minimum_review_fuzz_interval(10.0, 12, 36500) == 12
    assert minimum_review_fuzz_interval(10.0, 13, 36500) == 0


# -- steps that reach the rollover, lapses --------------------------------------------------


def test_a_step_that_reaches_the_rollover_is_due_on_a_study_day_as_anki_shows_it():
    scheduler = ReviewScheduler(Settings(timezone="UTC", fuzz=False))
    rollover = scheduler.days.next_day_at_ms(NOW)
    at = rollover - 600_000  # 03:50: the 10-minute relearning step ends exactly at the rollover
    review = ItemState(state=REVIEW, stability=10.0, difficulty=5.0, last_review_ms=at - 10 * DAY_MS, due_ms=at,
                       interval=10, reps=3)
    again = scheduler.apply(review, "d/c/main", AGAIN, at)
    assert (again.rating, again.step_days, again.label, again.due_ms) == (AGAIN, 1, "1d", rollover)
    # a step of a day and ten minutes from 03:50 ends 24 hours past the rollover: two study days on
    long = ReviewScheduler(Settings(timezone="UTC", fuzz=False, relearning_steps=(87_000,)))
    assert long.apply(review, "d/c/main", AGAIN, at).step_days == 2


def test_only_again_on_a_review_card_is_a_lapse():
    scheduler = ReviewScheduler(Settings(timezone="UTC", fuzz=False))
    assert scheduler.apply(REVIEWED, "d/c/main", AGAIN, NOW).after.lapses == 1
    assert scheduler.apply(REVIEWED, "d/c/main", GOOD, NOW).after.lapses == 0
    learning = ItemState(state=LEARNING, step=1, stability=2.0, difficulty=5.0, last_review_ms=NOW - 600_000, due_ms=NOW,
                         interval=-600, reps=2)
    again = scheduler.apply(learning, "d/c/main", AGAIN, NOW)
    assert (again.after.state, again.after.step, again.after.lapses, again.interval_secs) == (LEARNING, 0, 0, 60)
    assert scheduler.apply(ItemState(), "d/c/main", AGAIN, NOW).after.lapses == 0


@pytest.mark.parametrize("setting, message", [
    ({"rollover_hour": 24}, "rollover hour 24 is out of range; use a whole hour from 0 to 23 (4 is the default)"),
    ({"rollover_hour": True}, "rollover hour True is out of range; use a whole hour from 0 to 23 (4 is the default)"),
    ({"rollover_hour": 4.0}, "rollover hour 4.0 is out of range; use a whole hour from 0 to 23 (4 is the default)"),
    ({"leech_lapses": 0}, "leech threshold 0 must be a whole number of lapses, at least 1"),
    ({"leech_lapses": True}, "leech threshold True must be a whole number of lapses, at least 1"),
    ({"leech_lapses": 2.0}, "leech threshold 2.0 must be a whole number of lapses, at least 1"),
    ({"learning_steps": (60, 0)}, "learning steps [60, 0] must be positive whole seconds"),
    ({"relearning_steps": (True,)}, "relearning steps [True] must be positive whole seconds"),
    ({"learning_steps": (1.5,)}, "learning steps [1.5] must be positive whole seconds"),
    ({"maximum_interval": 0}, "maximum interval 0 must be from 1 to 36500 days"),
    ({"maximum_interval": 36501}, "maximum interval 36501 must be from 1 to 36500 days"),
    ({"maximum_interval": True}, "maximum interval True must be from 1 to 36500 days"),
    ({"maximum_interval": 30.0}, "maximum interval 30.0 must be from 1 to 36500 days"),
    ({"load_balancer": "yes"}, "load balancer 'yes' must be true or false"),
    ({"fuzz": 1}, "fuzz 1 must be true or false"),
    ({"new_per_day": -1}, "new per day -1 must be a whole number from 0 to 1000000"),
    ({"reviews_per_day": 1_000_001}, "reviews per day 1000001 must be a whole number from 0 to 1000000"),
    ({"learn_ahead_minutes": True}, "learn ahead minutes True must be a whole number from 0 to 1000000"),
    ({"new_per_day": 5.0}, "new per day 5.0 must be a whole number from 0 to 1000000"),
    ({"desired_retention": 2.0},
     "desired retention 2.0 is out of range; use a number from 0.70 to 0.99 (0.90 is the default)"),
])
def test_each_bad_setting_is_a_usage_error_naming_it_and_what_is_accepted(setting, message):
    with pytest.raises(StudyappError) as raised:
        Settings(**setting)
    assert (raised.value.message, raised.value.code) == (message, "usage")


@pytest.mark.parametrize("setting", [{"rollover_hour": 0}, {"rollover_hour": 23}, {"leech_lapses": 1},
                                     {"maximum_interval": 1}, {"maximum_interval": 36500}, {"new_per_day": 0},
                                     {"reviews_per_day": 1_000_000}, {"learning_steps": (1,)}])
def test_the_edges_of_each_setting_are_accepted(setting):
    ((name, value),) = setting.items()
    assert getattr(Settings(**setting), name) == value


def test_fsrs_parameters_are_checked_for_count_and_each_bound():
    from studyapp.core.scheduler import DEFAULT_PARAMETERS, PARAMETER_BOUNDS

    with pytest.raises(StudyappError) as raised:
        Settings(parameters=(1.0,))
    assert (raised.value.message, raised.value.code) == (
        f"FSRS parameters are not valid: expected {len(PARAMETER_BOUNDS)} numbers (FSRS-6), got 1", "usage")
    (low0, high0), (low1, _) = PARAMETER_BOUNDS[0], PARAMETER_BOUNDS[1]
    wrong = (True, low1 - 1, *DEFAULT_PARAMETERS[2:])
    with pytest.raises(StudyappError) as raised:
        Settings(parameters=wrong)
    assert (raised.value.message, raised.value.code) == (
        f"FSRS parameters are not valid: parameters[0] = True is outside {low0} to {high0}; "
        f"parameters[1] = {low1 - 1!r} is outside {low1} to {PARAMETER_BOUNDS[1][1]}", "usage")
    with pytest.raises(StudyappError):
        Settings(parameters=("1", *DEFAULT_PARAMETERS[1:]))
    assert Settings(parameters=(high0, *DEFAULT_PARAMETERS[1:])).parameters[0] == high0


def test_rust_rounding_takes_halves_away_from_zero_on_both_sides():
    from studyapp.core.fuzz import round_f32

    assert [round_f32(v) for v in (0.5, 1.5, 2.4, 0.0, -0.4, -0.5, -2.5, -2.6)] == [1, 2, 2, 0, 0, -1, -3, -3]


def test_a_one_day_maximum_interval_and_the_rollover_hour_reach_the_scheduler():
    one_day = ReviewScheduler(Settings(timezone="UTC", fuzz=False, maximum_interval=1))
    good = one_day.apply(REVIEWED, "d/c/main", GOOD, NOW)
    assert (good.rating, good.interval_days) == (GOOD, 1)
    midnight = ReviewScheduler(Settings(timezone="UTC", rollover_hour=0))
    assert midnight.days.next_day_at_ms(NOW) == 1_780_012_800_000  # 2026-05-29 00:00 UTC
