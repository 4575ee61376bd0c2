"""StudyDays keeps each day's bounds and answers times inside a day with one UTC offset without
datetime arithmetic; on every day, with or without an offset change, it must answer exactly as
the definitions (the ``_slow_`` methods) do."""

from __future__ import annotations

import random
from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from studyapp.core.scheduler import StudyDays

ZONES = ["America/Los_Angeles", "Asia/Shanghai", "Europe/Berlin", "UTC", "Australia/Lord_Howe",
         "America/Sao_Paulo"]
# Around the 2026 daylight-saving changes of Los Angeles and Berlin, and anywhere in 2020-2030.
CHANGES = [int(datetime(2026, 3, 8, 10, tzinfo=timezone.utc).timestamp() * 1000),
           int(datetime(2026, 11, 1, 9, tzinfo=timezone.utc).timestamp() * 1000),
           int(datetime(2026, 3, 29, 1, tzinfo=timezone.utc).timestamp() * 1000),
           int(datetime(2026, 10, 25, 1, tzinfo=timezone.utc).timestamp() * 1000)]


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("hour", [0, 2, 4, 23])
def test_kept_days_answer_as_the_definitions(zone, hour):
    rng = random.Random(f"{zone}{hour}")
    days = StudyDays(ZoneInfo(zone), hour)
    for n in range(3000):
        if n % 2:
            ms = rng.choice(CHANGES) + rng.randrange(-3 * 86_400_000, 3 * 86_400_000)
        else:
            ms = rng.randrange(1_580_000_000_000, 1_900_000_000_000)
        ahead = rng.randrange(0, 400)
        day = days._slow_day_of(ms)
        assert days.day_of(ms) == day
        assert days.start_ms(day) == days._slow_start_ms(day)
        assert days.end_ms(day) == days._slow_start_ms(day + 1)
        assert days.add_days(ms, ahead) == days._slow_add_days(ms, ahead)
        assert days.next_day_at_ms(ms) == days._slow_next_day_at_ms(ms)


def test_a_day_with_an_offset_change_is_never_taken_as_uniform():
    days = StudyDays(ZoneInfo("America/Los_Angeles"), 4)
    change = days._slow_day_of(CHANGES[0])  # 8 March 2026: 23 hours long
    assert days._window(change)[3] is None
    assert days._window(change + 1)[3] is not None
    assert days.end_ms(change) - days.start_ms(change) == 23 * 3_600_000


def _defined_window(days: StudyDays, day: int):
    """A day's window as the definitions give it: bounds, and the offset when one holds from its
    start to its end inclusive and both ends of the day fall on it."""
    start, end = days._slow_start_ms(day), days._slow_start_ms(day + 1)
    offsets = {datetime.fromtimestamp(t / 1000, days.zone).utcoffset() for t in (start, end - 1, end)}
    uniform = (len(offsets) == 1 and end - start == 86_400_000 and days._slow_day_of(start) == day
               and days._slow_day_of(end - 1) == day)
    return day, start, end, next(iter(offsets)) if uniform else None


@pytest.mark.parametrize("zone", ZONES + ["Pacific/Apia", "America/Santiago", "Europe/Amsterdam"])
@pytest.mark.parametrize("hour", [0, 1, 2, 3, 4, 23])
def test_each_window_is_the_definitions(zone, hour):
    # Every day around each offset change of 1880-2040 (Apia skipped a day, Amsterdam's offsets
    # were not whole minutes, Lord Howe's change is half an hour, Sao Paulo's at midnight).
    days = StudyDays(ZoneInfo(zone), hour)
    epoch = date(1970, 1, 1).toordinal()
    previous, changes = None, []
    for day in range(date(1880, 1, 1).toordinal(), date(2040, 1, 1).toordinal()):
        offset = datetime.fromtimestamp((day - epoch) * 86_400, days.zone).utcoffset()
        if previous is not None and offset != previous:
            changes.append(day)
        previous = offset
    assert changes or zone == "UTC"
    for day in {d for change in changes for d in range(change - 2, change + 3)} | set(range(epoch, epoch + 40)):
        assert days._new_window(day) == _defined_window(days, day), day


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "UTC"])
def test_days_kept_in_one_pass_are_the_definitions(zone):
    # Three years from a few days before a change, some days already kept (a pass restarts after each).
    days = StudyDays(ZoneInfo(zone), 3)
    days._windows.clear()  # shared by every StudyDays of the zone and hour: none kept from other tests
    first = date(2011, 3, 20).toordinal()
    for day in (first + 5, first + 6, first + 400):
        days._window(day)
    days.keep_days(first, 1100)
    for day in range(first, first + 1100):
        assert days._windows[day] == _defined_window(days, day), day
