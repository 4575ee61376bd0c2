"""Retention, one definition for every screen, command and report: Anki's True Retention.

As rslib/src/stats/graphs/retention.rs counts it: only answers that affect the schedule
(``review`` rows of the log, not cram), and of those only answers to items that had an
interval of a day or more: review answers, and learning steps of a day or more.
First answers to new items and the minute-long learning and relearning steps are left
out. An answer is *young* when the interval before it was under 21 days, *mature*
otherwise; passed is any grade but Again. Spans end with today's study day: today,
the last 7 (week), 30 (month) and 365 (year) study days.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from .grades import AGAIN

MATURE_DAYS = 21
DAY_SECONDS = 86400
SPANS = {"day": 1, "week": 7, "month": 30, "year": 365}
DEFINITION = ("retention is Anki's True Retention: the share of review answers other than Again, counting only "
              "answers to items with an interval of a day or more (first answers to new items and short learning "
              "steps are left out); young under 21 days, mature from 21")


def counts(kind: str, last_interval: int) -> bool:
    """Whether an answer counts: a scheduling answer to an item with an interval of a day or more.

    ``last_interval`` is the log's: days when positive, seconds when negative (a step)."""
    return kind == "review" and (last_interval >= 1 or last_interval <= -DAY_SECONDS)


@dataclass(frozen=True)
class TrueRetention:
    young_passed: int = 0
    young_failed: int = 0
    mature_passed: int = 0
    mature_failed: int = 0

    @property
    def total(self) -> int:
        return self.young_passed + self.young_failed + self.mature_passed + self.mature_failed

    @property
    def passed(self) -> int:
        return self.young_passed + self.mature_passed

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def young(self) -> float | None:
        n = self.young_passed + self.young_failed
        return self.young_passed / n if n else None

    @property
    def mature(self) -> float | None:
        n = self.mature_passed + self.mature_failed
        return self.mature_passed / n if n else None

    def __add__(self, other: TrueRetention) -> TrueRetention:
        """The answers of both (decks summed: the shares are recomputed, never averaged)."""
        return TrueRetention(self.young_passed + other.young_passed, self.young_failed + other.young_failed,
                             self.mature_passed + other.mature_passed, self.mature_failed + other.mature_failed)

    def to_json(self) -> dict:
        return {"retention": self.rate, "young": self.young, "mature": self.mature, "answers": self.total,
                "young_answers": self.young_passed + self.young_failed,
                "mature_answers": self.mature_passed + self.mature_failed}


def true_retention(answers: Iterable[tuple[str, int, int]]) -> TrueRetention:
    """From (kind, rating, last interval) per logged answer."""
    yp = yf = mp = mf = 0
    for kind, rating, last_interval in answers:
        if not counts(kind, last_interval):
            continue
        # A day-or-longer learning step (negative seconds) is young, as in Anki.
        young = last_interval < MATURE_DAYS
        failed = rating == AGAIN
        if young:
            yf += failed
            yp += not failed
        else:
            mf += failed
            mp += not failed
    return TrueRetention(yp, yf, mp, mf)


def by_span(answers: Iterable[tuple[int, str, int, int]], day_of: Callable[[int], int],
            today: int) -> dict[str, TrueRetention]:
    """True retention over each span ending today, from (time, kind, rating, last interval)."""
    rows = list(answers)
    out = {}
    for name, days in SPANS.items():
        first = today - days + 1
        out[name] = true_retention((k, r, li) for t, k, r, li in rows if first <= day_of(t) <= today)
    return out


def spans_from_days(by_day: Mapping[int, TrueRetention], today: int) -> dict[str, TrueRetention]:
    """``by_span`` from retention already counted per study day (what the store's aggregates give):
    the same figures without a day_of call per answer."""
    out = {}
    for name, days in SPANS.items():
        total = TrueRetention()
        for day in range(today - days + 1, today + 1):
            found = by_day.get(day)
            if found is not None:
                total = total + found
        out[name] = total
    return out


# Aggregates over a log are grouped by quarter hour: every UTC offset in use today is a multiple of
# 15 minutes and rollover hours are whole, so a study day starts on a quarter-hour boundary and a
# bucket lies in one study day. A bucket that does not (an old local mean time offset) is resolved
# answer by answer, so the figures stay exact.
BUCKET_MS = 900_000


def bucket_days(buckets: Iterable[int], day_of: Callable[[int], int]) -> tuple[dict[int, int], set[int]]:
    """Each bucket's study day, and the buckets that span two study days (to be read answer by answer).

    Within a quarter hour the offset changes at most once, so a bucket whose first and last
    millisecond fall on the same study day lies wholly within it; and within one study day time
    runs one way (a change of offset never moves the clock back across the rollover hour), so
    the buckets between two of the same day are of that day too. A day's run of buckets is found
    by galloping, with a few day_of calls a day rather than two a bucket."""
    ordered = sorted(set(buckets))
    days: dict[int, int] = {}
    split: set[int] = set()

    def last_in(i: int, day: int) -> bool:
        return day_of(ordered[i] * BUCKET_MS + BUCKET_MS - 1) == day

    i, n = 0, len(ordered)
    while i < n:
        day = day_of(ordered[i] * BUCKET_MS)
        if not last_in(i, day):
            split.add(ordered[i])
            i += 1
            continue
        good, step = i, 1  # ordered[good] lies in `day`; find the last such
        while good + step < n and last_in(good + step, day):
            good += step
            step *= 2
        bad = min(good + step, n)  # the first index known not to (or n)
        while bad - good > 1:
            middle = (good + bad) // 2
            if last_in(middle, day):
                good = middle
            else:
                bad = middle
        for j in range(i, good + 1):
            days[ordered[j]] = day
        i = good + 1
    return days, split


def sql_counts(kind: str = "kind", rating: str = "rating", last_interval: str = "last_interval",
               names: tuple[str, str, str, str] | None = None) -> str:
    """The four True Retention counts (young passed, young failed, mature passed, mature failed) as SQL
    sums over log columns, for SQLite and PostgreSQL alike; the same rule as ``counts`` and ``true_retention``."""
    counted = f"{kind} = 'review' AND ({last_interval} >= 1 OR {last_interval} <= -{DAY_SECONDS})"
    young = f"{last_interval} < {MATURE_DAYS}"
    failed = f"{rating} = {AGAIN}"
    sums = [f"sum(CASE WHEN {counted} AND {age} AND {result} THEN 1 ELSE 0 END)"
            for age, result in ((young, f"NOT ({failed})"), (young, failed),
                                (f"NOT ({young})", f"NOT ({failed})"), (f"NOT ({young})", failed))]
    return ", ".join(f"{sql} AS {name}" for sql, name in zip(sums, names)) if names else ", ".join(sums)


# ``sql_packed_counts`` sums the four counts as one integer, PACK_BITS bits each: one CASE a row
# where ``sql_counts`` evaluates four (most of the time of a scan of a million answers). Exact while
# every group summed holds fewer than PACKED_MAX answers; callers check that with count(*).
PACK_BITS = 15
PACKED_MAX = 1 << PACK_BITS


def sql_packed_counts(kind: str = "kind", rating: str = "rating", last_interval: str = "last_interval") -> str:
    """The four counts of ``sql_counts`` (same rule) as one SQLite sum: young passed in the lowest
    PACK_BITS bits, then young failed, mature passed, mature failed. Read back with ``unpack``."""
    counted = f"{kind} = 'review' AND ({last_interval} >= 1 OR {last_interval} <= -{DAY_SECONDS})"
    field = f"(({last_interval} >= {MATURE_DAYS}) * 2 + ({rating} = {AGAIN})) * {PACK_BITS}"
    return f"sum(CASE WHEN {counted} THEN 1 << {field} ELSE 0 END)"


def sql_unpack(packed: str) -> list[str]:
    """SQL for each of the four counts in a ``sql_packed_counts`` value (young passed, young failed,
    mature passed, mature failed): unpack before summing further, where the fields could carry."""
    mask = PACKED_MAX - 1
    return [f"(({packed} >> {PACK_BITS * n}) & {mask})" for n in range(4)]


def unpack(packed: int) -> tuple[int, int, int, int]:
    mask = PACKED_MAX - 1
    return packed & mask, (packed >> PACK_BITS) & mask, (packed >> 2 * PACK_BITS) & mask, packed >> 3 * PACK_BITS


def spans_json(spans: dict[str, TrueRetention]) -> dict[str, dict]:
    """``by_span``'s result as ``stats --json`` and the report write it, span by span."""
    return {name: spans[name].to_json() for name in SPANS}


__all__ = ["TrueRetention", "true_retention", "by_span", "spans_json", "spans_from_days", "bucket_days", "sql_counts",
           "sql_packed_counts", "sql_unpack", "unpack", "PACKED_MAX", "BUCKET_MS", "counts", "SPANS", "MATURE_DAYS", "DEFINITION"]
