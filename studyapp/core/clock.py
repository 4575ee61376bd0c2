"""Time as the engine sees it: integer UTC epoch milliseconds from an injectable clock.

Everything that depends on "now" (queues, previews, daily limits, the log) asks a
``Clock``; tests pass a ``FakeClock`` and move it by hand, so no test sleeps or reads
the wall clock.
"""

from __future__ import annotations

import time
from typing import Protocol

SECOND_MS = 1000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch, UTC."""
        ...


class SystemClock:
    """The wall clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class FakeClock:
    """A clock that moves only when told to (tests, tools, benchmarks)."""

    def __init__(self, start_ms: int) -> None:
        self._now = int(start_ms)

    def now_ms(self) -> int:
        return self._now

    def set(self, ms: int) -> None:
        self._now = int(ms)

    def advance(self, *, days: float = 0, hours: float = 0, minutes: float = 0, seconds: float = 0,
                ms: int = 0) -> int:
        """Move forward (or back, with negative amounts); returns the new time."""
        self._now += int(days * DAY_MS + hours * HOUR_MS + minutes * MINUTE_MS + seconds * SECOND_MS) + ms
        return self._now
