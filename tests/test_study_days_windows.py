"""StudyDays keeps each day's bounds and answers times inside a day with one UTC offset without
datetime arithmetic; on every day, with or without an offset change, it must answer exactly as
the definitions (the ``_slow_`` methods) do."""

from __future__ import annotations

import random
from datetime import datetime, timezone
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
