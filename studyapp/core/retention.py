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
from typing import Callable, Iterable

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


def spans_json(spans: dict[str, TrueRetention]) -> dict[str, dict]:
    """``by_span``'s result as ``stats --json`` and the report write it, span by span."""
    return {name: spans[name].to_json() for name in SPANS}


__all__ = ["TrueRetention", "true_retention", "by_span", "spans_json", "counts", "SPANS", "MATURE_DAYS",
           "DEFINITION"]
