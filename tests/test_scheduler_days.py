"""Study days across daylight-saving changes, worked from the definition (a study day is the
local date of ``t - rollover``), and Anki's fuzz on intervals too large for an exact f32 sum.

StudyDays answers most times from kept per-day windows; these tests ask it the times where
a wrong window would show: around every change, at each day's first and last millisecond,
in zones that move by an hour, by half an hour, and at midnight.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from studyapp.core.clock import DAY_MS, HOUR_MS
from studyapp.core.fuzz import with_review_fuzz
from studyapp.core import scheduler
from studyapp.core.scheduler import StudyDays


@pytest.fixture(autouse=True)
def _fresh_windows():
    # Every StudyDays of a zone and rollover shares the windows worked out so far in the process:
    # each test here works its own out, as a new process would, instead of reading other tests'.
    scheduler._SHARED_WINDOWS.clear()
    yield
    scheduler._SHARED_WINDOWS.clear()


def _utc_ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=timezone.utc).timestamp()) * 1000


def _ref_day(zone, rollover: int, ms: int) -> int:
    return (datetime.fromtimestamp(ms / 1000, zone) - timedelta(hours=rollover)).date().toordinal()


def _ref_start(zone, rollover: int, day: int) -> int:
    return int(datetime.combine(date.fromordinal(day), time(rollover), tzinfo=zone).timestamp() * 1000)


# (zone, a UTC moment of a change in it): spring and autumn, an hour, half an hour, at midnight.
CHANGES = [
    ("Europe/Berlin", (2026, 3, 29, 1)), ("Europe/Berlin", (2026, 10, 25, 1)),
    ("America/Los_Angeles", (2026, 3, 8, 10)), ("America/Los_Angeles", (2026, 11, 1, 9)),
    ("Australia/Lord_Howe", (2026, 4, 4, 14, 30)), ("Australia/Lord_Howe", (2026, 10, 3, 15, 30)),
    ("America/Santiago", (2026, 4, 5, 3)), ("America/Santiago", (2026, 9, 6, 4)),
]


@pytest.mark.parametrize("name,change", CHANGES)
@pytest.mark.parametrize("rollover", [0, 1, 2, 3, 4])
def test_study_days_around_a_clock_change_match_the_definition(name, change, rollover):
    zone = ZoneInfo(name)
    days = StudyDays(zone, rollover)
    centre = _utc_ms(*change)
    probes = [centre + k * 30 * 60_000 + d for k in range(-100, 101) for d in (-1, 0, 1)]
    # Twice: the second pass is answered from the windows the first one kept.
    for _ in range(2):
        for ms in probes:
            day = _ref_day(zone, rollover, ms)
            assert days.day_of(ms) == day, (name, rollover, ms)
            assert days.start_ms(day) == _ref_start(zone, rollover, day)
            assert days.end_ms(day) == _ref_start(zone, rollover, day + 1)
            assert days.start_ms(day) <= ms < days.end_ms(day)
    # Walking backwards too (the last window kept is then always the later day).
    for ms in reversed(probes):
        assert days.day_of(ms) == _ref_day(zone, rollover, ms)


@pytest.mark.parametrize("name,change", CHANGES)
@pytest.mark.parametrize("rollover", [0, 1, 2, 3, 4])
def test_add_days_keeps_the_wall_clock_and_lands_on_the_target_day(name, change, rollover):
    zone = ZoneInfo(name)
    days = StudyDays(zone, rollover)
    centre = _utc_ms(*change)
    for k in range(-60, 61):
        ms = centre + k * 40 * 60_000 + 7_000
        for n in (-3, -1, 1, 2, 5):
            moved = days.add_days(ms, n)
            target = _ref_day(zone, rollover, ms) + n
            assert days.day_of(moved) == target, (name, rollover, ms, n)
            wall = datetime.fromtimestamp(ms / 1000, zone) + timedelta(days=n)
            expected = int(wall.timestamp() * 1000)
            if _ref_day(zone, rollover, expected) == target:
                assert moved == expected
            else:  # the wall-clock time fell across the rollover: the nearest moment of the day
                assert moved in (_ref_start(zone, rollover, target), _ref_start(zone, rollover, target + 1) - 1)


def test_add_days_across_spring_forward_at_the_rollover_hour_is_hand_worked():
    # Berlin, rollover 2: on 29 March 2026 02:00 local does not exist (01:00 UTC is 03:00 CEST).
    days = StudyDays(ZoneInfo("Europe/Berlin"), 2)
    # 28 March 02:30 CET (01:30 UTC) plus a day is 29 March 02:30, which does not exist; Python
    # reads it as 03:30 CEST (01:30 UTC), but the target day (29 March) starts at 01:00 UTC, so
    # the wall time 02:30 there is inside that day and stays.
    assert days.add_days(_utc_ms(2026, 3, 28, 1, 30), 1) == _utc_ms(2026, 3, 29, 1, 30)
    # 28 March 01:30 CET (00:30 UTC) is study day 27 March; a day later is 29 March 01:30 CET
    # (00:30 UTC), still study day 28 March: kept.
    assert days.add_days(_utc_ms(2026, 3, 28, 0, 30), 1) == _utc_ms(2026, 3, 29, 0, 30)
    # Back across the change: 30 March 02:30 CEST (00:30 UTC) minus a day is 29 March 02:30,
    # which Python reads as 01:30 UTC (03:30 CEST); study day 29 March: kept.
    assert days.add_days(_utc_ms(2026, 3, 30, 0, 30), -1) == _utc_ms(2026, 3, 29, 1, 30)


def test_add_days_clamps_a_wall_time_pushed_across_the_rollover():
    # Santiago, rollover 0: on 6 September 2026 the clocks jump from 00:00 to 01:00 (04:00 UTC),
    # so that study day starts at 04:00 UTC. 5 September 23:30 (-04, 03:30 UTC 6 Sept) plus a
    # day is 6 September 23:30 -03 = 02:30 UTC 7 Sept: a plain move.
    days = StudyDays(ZoneInfo("America/Santiago"), 0)
    assert days.add_days(_utc_ms(2026, 9, 6, 3, 30), 1) == _utc_ms(2026, 9, 7, 2, 30)
    # 5 September 00:30 -04 (04:30 UTC) plus a day is 6 September 00:30, which does not exist;
    # read with the old offset it is 04:30 UTC = 01:30 -03, on study day 6 September: kept.
    assert days.add_days(_utc_ms(2026, 9, 5, 4, 30), 1) == _utc_ms(2026, 9, 6, 4, 30)


def test_add_days_onto_a_wall_time_that_does_not_exist_stays_on_the_target_day():
    # Berlin, rollover 3: the clocks jump from 02:00 to 03:00 on 29 March 2026 (01:00 UTC), and
    # study day 29 March starts at 03:00 CEST, that same instant.
    days = StudyDays(ZoneInfo("Europe/Berlin"), 3)
    # 28 March 02:30 CET (01:30 UTC) is still study day 27 March; a day on is study day 28 March.
    # 29 March 02:30 does not exist (Python reads it as 03:30 CEST, study day 29 March), so the
    # answer is the last millisecond of study day 28 March.
    assert days.add_days(_utc_ms(2026, 3, 28, 1, 30), 1) == _utc_ms(2026, 3, 29, 1) - 1
    # And back: 30 March 02:30 CEST (00:30 UTC) is study day 29 March; a day back is 28 March.
    assert days.add_days(_utc_ms(2026, 3, 30, 0, 30), -1) == _utc_ms(2026, 3, 29, 1) - 1
    # Santiago, rollover 1: the clocks jump from 00:00 to 01:00 on 6 September 2026 (04:00 UTC).
    # 5 September 00:30 -04 (04:30 UTC) is study day 4 September; 6 September 00:30 does not
    # exist, so a day on is the last millisecond of study day 5 September.
    santiago = StudyDays(ZoneInfo("America/Santiago"), 1)
    assert santiago.add_days(_utc_ms(2026, 9, 5, 4, 30), 1) == _utc_ms(2026, 9, 6, 4) - 1


def test_next_day_at_on_a_change_day_uses_the_offset_in_force():
    zone = ZoneInfo("Europe/Berlin")
    days = StudyDays(zone, 4)
    # 28 March 2026 23:00 CET (22:00 UTC): the next 04:00 in +01:00 is 03:00 UTC on the 29th
    # (05:00 CEST), an hour after the zone's own rollover at 04:00 CEST (02:00 UTC).
    assert days.next_day_at_ms(_utc_ms(2026, 3, 28, 22)) == _utc_ms(2026, 3, 29, 3)
    assert days.end_ms(days.day_of(_utc_ms(2026, 3, 28, 22))) == _utc_ms(2026, 3, 29, 2)
    # Autumn: 24 October 23:00 CEST (21:00 UTC): 04:00 in +02:00 is 02:00 UTC on the 25th.
    assert days.next_day_at_ms(_utc_ms(2026, 10, 24, 21)) == _utc_ms(2026, 10, 25, 2)
    # 25 October 03:30 CET (02:30 UTC), after the change: 04:00 CET is 03:00 UTC.
    assert days.next_day_at_ms(_utc_ms(2026, 10, 25, 2, 30)) == _utc_ms(2026, 10, 25, 3)
    # Exactly at that rollover (a whole second, with milliseconds), the next one is a day on.
    assert days.next_day_at_ms(_utc_ms(2026, 10, 25, 3) + 400) == _utc_ms(2026, 10, 26, 3)
    assert days.next_day_at_ms(_utc_ms(2026, 10, 25, 3) - 400) == _utc_ms(2026, 10, 25, 3)


def test_next_day_at_in_utc_itself():
    days = StudyDays(ZoneInfo("UTC"), 4)
    assert days.next_day_at_ms(_utc_ms(2026, 3, 29, 3, 59, 59) + 999) == _utc_ms(2026, 3, 29, 4)
    assert days.next_day_at_ms(_utc_ms(2026, 3, 29, 4)) == _utc_ms(2026, 3, 30, 4)


def test_days_far_from_the_last_asked_are_right_in_a_steady_zone():
    # After a day in March, asking about a day in July (another offset) and back.
    zone = ZoneInfo("Europe/Berlin")
    days = StudyDays(zone, 4)
    for ms in (_utc_ms(2026, 3, 2, 12), _utc_ms(2026, 7, 2, 12), _utc_ms(2026, 7, 2, 1, 59),
               _utc_ms(2026, 7, 2, 2), _utc_ms(2026, 3, 2, 2, 59), _utc_ms(2026, 3, 2, 3),
               _utc_ms(2030, 1, 1, 2, 59), _utc_ms(2030, 1, 1, 3)):
        assert days.day_of(ms) == _ref_day(zone, 4, ms)
    assert days.start_ms(date(2026, 7, 2).toordinal()) == _utc_ms(2026, 7, 2, 2)
    assert days.start_ms(date(2026, 3, 2).toordinal()) == _utc_ms(2026, 3, 2, 3)


# ---------------------------------------------------------------- fuzz past f32's exact integers


def test_fuzz_on_an_interval_past_f32s_exact_integers_rounds_as_anki():
    # Anki: (lower as f32 + factor * ((1 + upper - lower) as f32)).floor() as u32, every step f32.
    # Interval 2^25: delta = 1 + 0.675 + 1.3 + f32(0.05 * (2^25 - 20)) = 1,677,723.625, so the
    # bounds are 31,876,708 and 35,232,156 and the span 1 + upper - lower is 3,355,449.
    interval = float(1 << 25)
    maximum = 1 << 30
    assert with_review_fuzz(0.0, interval, 1, maximum) == 31_876_708
    # 0.25 * span = 838,862.25; the sum 32,715,570.25 is rounded to f32's spacing of 2 there.
    assert with_review_fuzz(0.25, interval, 1, maximum) == 32_715_570
    # 0.5 * span = 1,677,724.5; the sum 33,554,432.5 rounds to a multiple of 4 (past 2^25).
    assert with_review_fuzz(0.5, interval, 1, maximum) == 33_554_432
    # 0.999999 * span rounds to 3,355,445.75 in f32; the sum 35,232,153.75 rounds down to
    # 35,232,152 (in f64 it would floor to 35,232,153).
    assert with_review_fuzz(0.999999, interval, 1, maximum) == 35_232_152
    # Without fuzz the interval is only rounded (and kept in range).
    assert with_review_fuzz(None, interval, 1, maximum) == 1 << 25


def test_fuzz_of_a_zero_interval_with_no_minimum_is_zero():
    # fuzz.rs: with bounds (0, 0) the floor of 0 + factor * 1 is 0 for any factor below 1.
    assert with_review_fuzz(0.99, 0.0, 0, 36500) == 0
    assert with_review_fuzz(0.0, 0.0, 0, 36500) == 0


def test_next_day_at_on_change_days_in_a_zone_at_utc_and_exactly_at_the_rollover():
    # London, 28 March 2026 (study day 04:00 GMT to 04:00 BST, 23 hours): at 22:00 GMT the offset
    # in force is zero, and the next 04:00 in it is 04:00 UTC on the 29th (05:00 BST).
    london = StudyDays(ZoneInfo("Europe/London"), 4)
    assert london.next_day_at_ms(_utc_ms(2026, 3, 28, 22)) == _utc_ms(2026, 3, 29, 4)
    # Los Angeles, 7 March 2026 (04:00 PST to 04:00 PDT): exactly at its first moment the
    # rollover has been reached, so Anki's next one is 04:00 -08:00 the day after.
    la = StudyDays(ZoneInfo("America/Los_Angeles"), 4)
    assert la.next_day_at_ms(_utc_ms(2026, 3, 7, 12)) == _utc_ms(2026, 3, 8, 12)
    assert la.next_day_at_ms(_utc_ms(2026, 3, 7, 12) - 1) == _utc_ms(2026, 3, 7, 12)
