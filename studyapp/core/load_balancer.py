"""Anki's load balancer (rslib/src/scheduler/states/load_balancer.rs), on by default in Anki.

When a fuzzed review interval is at most 90 days, Anki does not take the fuzz number's
day: it weighs every day of the fuzz range by how many reviews are already due then
(an empty day weighs 1; a day with n reviews ``n**-2.15 * interval**-3``) and draws one
day with the same seeded generator the fuzz uses (``WeightedIndex`` over f32 weights,
rand 0.9). Easy days and the sibling spreading are not modelled: studyapp has neither
easy-day settings nor Anki's "bury review siblings" option, and with those off (Anki's
defaults) their modifiers are 1.

The workload is the number of items due on each study day from today (index 0), the
same count Anki keeps: every card whose due day falls in the window.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from functools import lru_cache
from typing import Callable, Mapping, Sequence

from .anki_random import fuzz_factor
from .fuzz import constrained_fuzz_bounds, f32

MAX_LOAD_BALANCE_INTERVAL = 90
LOAD_BALANCE_DAYS = 99  # (90 * 1.1) as usize
_F32 = struct.Struct("f")
_I32 = struct.Struct("i")


class LoadBalancer:
    """The reviews due on each of the next ``LOAD_BALANCE_DAYS`` days, and Anki's pick among them.

    Give the counts (offset from today -> items due), or ``fill``: called with the time of
    the first answer of each study day, it returns them (Anki builds its balancer with the
    day's queue), and ``day_of`` tells the study days apart.
    """

    def __init__(self, due_by_offset: Sequence[int] | Mapping[int, int] = (), *,
                 fill: Callable[[int], Mapping[int, int]] | None = None,
                 day_of: Callable[[int], int] | None = None) -> None:
        self.counts = _counts(due_by_offset)
        self._fill, self._day_of = fill, day_of
        self._day: int | None = None

    def _refresh(self, now_ms: int) -> None:
        if self._fill is None or self._day_of is None:
            return
        day = self._day_of(now_ms)
        if day != self._day:
            self.counts = _counts(self._fill(now_ms))
            self._day = day

    def add(self, offset: int) -> None:
        """An item just scheduled ``offset`` days from today (Anki adds every answered review)."""
        if 0 <= offset < LOAD_BALANCE_DAYS:
            self.counts[offset] += 1

    def find_interval(self, interval: float, minimum: int, maximum: int, seed: int, key: str = "",
                      now_ms: int = 0) -> int | None:
        """The day Anki's load balancer picks, or None where it leaves the plain fuzz to decide."""
        if int(interval) > MAX_LOAD_BALANCE_INTERVAL or minimum > MAX_LOAD_BALANCE_INTERVAL:
            return None  # before reading the day's counts, which a long interval does not need
        return balanced_day(interval, minimum, maximum, fuzz_factor(seed), self.counts_at(now_ms))

    def needs_counts(self, now_ms: int) -> bool:
        """Whether the next ``counts_at(now_ms)`` will ask ``fill`` for the day's counts."""
        return self._fill is not None and self._day_of is not None and self._day_of(now_ms) != self._day

    def counts_at(self, now_ms: int) -> list[int]:
        """The due counts by day from the study day of ``now_ms`` (refilled on a new day)."""
        if self._fill is not None:
            self._refresh(now_ms)
        return self.counts


def balanced_day(interval: float, minimum: int, maximum: int, unit: float, counts: Sequence[int]) -> int | None:
    """The day of the fuzz range the load balancer draws with ``unit`` (the card's fuzz number, the
    generator's first f32) over the due ``counts``; None where it leaves the plain fuzz to decide."""
    if int(interval) > MAX_LOAD_BALANCE_INTERVAL or minimum > MAX_LOAD_BALANCE_INTERVAL:
        return None
    before, after = constrained_fuzz_bounds(interval, minimum, maximum)
    if before == after:  # one day to weigh: the draw cannot move it
        return before
    weights = [_weight(target, counts[target] if target < LOAD_BALANCE_DAYS else 0)
               for target in range(before, after + 1)]
    return before + _weighted_index(weights, unit)


@lru_cache(maxsize=1 << 16)
def _weight(target: int, count: int) -> float:
    """A day's weight: 1 when empty, else ``count**-2.15 * target**-3`` in Anki's f32 steps."""
    if count == 0:
        return 1.0
    count_weight = f32(f32(1.0 / f32(count)) ** 2.15)
    inverse = f32(1.0 / f32(target)) if target else float("inf")
    interval_weight = f32(f32(inverse * inverse) * inverse)
    return f32(count_weight * interval_weight)


def _counts(due_by_offset: Sequence[int] | Mapping[int, int]) -> list[int]:
    counts = [0] * LOAD_BALANCE_DAYS
    items = due_by_offset.items() if isinstance(due_by_offset, Mapping) else enumerate(due_by_offset)
    for offset, count in items:
        if 0 <= offset < LOAD_BALANCE_DAYS:
            counts[offset] = count
    return counts


def _weighted_index(weights: list[float], unit: float) -> int:
    """rand 0.9's ``WeightedIndex::new(weights).sample(rng)`` over f32 weights, ``unit`` being
    the generator's ``random_range(0.0f32..1.0)`` (``StdRng.unit_f32``)."""
    cumulative = []
    total = weights[0]
    for weight in weights[1:]:
        cumulative.append(total)
        total = _unpack_f32(_pack_f32(total + weight))[0]
    # UniformFloat::new(0, total): the scale is shrunk until the largest draw stays below total.
    scale = total
    while f32(scale * _LARGEST_BELOW_ONE) >= total:
        scale = _F32.unpack(_I32.pack(_I32.unpack(_F32.pack(scale))[0] - 1))[0]
    chosen = f32(unit * scale)
    # partition_point(|w| w <= chosen): the first cumulative weight above the draw (they never decrease).
    return bisect_right(cumulative, chosen)


_pack_f32, _unpack_f32 = _F32.pack, _F32.unpack
_LARGEST_BELOW_ONE = f32(1.0 - 2.0 ** -23)
