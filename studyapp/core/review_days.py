"""The days of a review's Hard, Good and Easy buttons: Anki's fuzz and load balancer together.

Each button is at least a day past the one before (and past the last interval, where the
fuzz range reaches it), fuzzed with the card's fuzz number, and, with the load balancer,
placed by workload inside the fuzz range (core/fuzz.py, core/load_balancer.py).

``review_days`` is the compiled copy (studyapp/core/_speedups.c) when the install could
build it, else ``review_days_python``, the reference here: a pick spends most of its time on
these three days in Python. tests/test_review_days.py holds the two equal.
"""

from __future__ import annotations

from typing import Callable

from .fuzz import minimum_review_fuzz_interval, with_review_fuzz
from .load_balancer import balanced_day

ReviewDays = Callable[[float, float, float, int, int, "float | None", "list[int] | None"], tuple[int, int, int]]


def review_days_python(hard: float, good: float, easy: float, previous: int, maximum: int, factor: float | None,
                       counts: list[int] | None) -> tuple[int, int, int]:
    """(Hard, Good, Easy) days for FSRS's three intervals (f32 values), the last interval
    ``previous`` and the maximum; ``factor``: the fuzz number (None: fuzz off); ``counts``: the
    load balancer's due counts by day from today (None: off; needs the factor)."""
    _check_fuzz(factor, counts)
    previous = max(previous, 0)
    floor = 1
    out = []
    for interval in (hard, good, easy):
        minimum = min(max(minimum_review_fuzz_interval(interval, previous, maximum), floor), maximum)
        days = _fuzzed_day(interval, minimum, maximum, factor, counts)
        out.append(days)
        floor = days + 1
    return out[0], out[1], out[2]


def fuzzed_day_python(interval: float, minimum: int, maximum: int, factor: float | None,
                      counts: list[int] | None) -> int:
    """A day in [minimum, maximum] for ``interval``: the load balancer's where it decides (with
    ``counts``), else the fuzz's (with ``factor``), else the interval rounded (Anki's
    StateContext.with_review_fuzz)."""
    _check_fuzz(factor, counts)
    return _fuzzed_day(interval, minimum, maximum, factor, counts)


def _fuzzed_day(interval: float, minimum: int, maximum: int, factor: float | None, counts: list[int] | None) -> int:
    days = None if counts is None else balanced_day(interval, minimum, maximum, factor, counts)
    return with_review_fuzz(factor, interval, minimum, maximum) if days is None else days


def _check_fuzz(factor: float | None, counts: list[int] | None) -> None:
    if factor is not None and not 0.0 <= factor < 1.0:
        raise ValueError("the fuzz factor must be in [0, 1)")
    if counts is not None and factor is None:
        raise ValueError("the load balancer draws with the fuzz number: give a factor")


try:
    from ._speedups import fuzzed_day as fuzzed_day_compiled, review_days as review_days_compiled
except ImportError:  # an install that could not compile them
    fuzzed_day_compiled = review_days_compiled = None
review_days: ReviewDays = review_days_compiled or review_days_python
fuzzed_day = fuzzed_day_compiled or fuzzed_day_python
