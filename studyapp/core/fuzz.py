"""Anki's review fuzz (rslib/src/scheduler/states/fuzz.rs), in Anki's own f32 arithmetic.

Anki computes intervals, fuzz deltas and bounds in f32; a bound that sits near x.5 rounds
differently in f64, so every step here is rounded to f32 as Rust would round it. A sum,
difference or product of two f32 values computed in f64 and then rounded to f32 is the
correctly rounded f32 result, so ``f32(a op b)`` is exactly Rust's ``a op b``.
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache

_F32 = struct.Struct("f")
_pack, _unpack = _F32.pack, _F32.unpack


def f32(value: float) -> float:
    """``value`` rounded to the nearest f32 (kept as a Python float)."""
    return _unpack(_pack(value))[0]


def round_f32(value: float) -> int:
    """Rust's ``f32::round``: halves away from zero (Python's round() is half to even)."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def as_u32(value: float) -> int:
    """Rust's ``f32 as u32``: truncation, saturating at 0 and at u32::MAX."""
    if value != value or value <= 0:
        return 0
    return min(int(value), 0xFFFFFFFF)


_F015, _F01, _F005 = (_unpack(_pack(v))[0] for v in (0.15, 0.1, 0.05))


def fuzz_delta(interval: float) -> float:
    """Anki's fuzz_delta in f32: 1 + 15% of the days from 2.5 to 7, 10% from 7 to 20, 5% past 20.

    ``interval`` is an f32. Each ``min(interval, end) - start`` is exact in f32 (both are
    multiples of the interval's own precision and the difference is smaller), so only the
    products and sums are rounded, as Rust rounds them.
    """
    if interval < 2.5:
        return 0.0
    # Past 7 (and 20) days the first (two) terms are the same for every interval: _DELTA_7, _DELTA_20.
    if interval > 20.0:
        return _unpack(_pack(_DELTA_20 + _unpack(_pack(_F005 * (interval - 20.0)))[0]))[0]
    if interval > 7.0:
        return _unpack(_pack(_DELTA_7 + _unpack(_pack(_F01 * (interval - 7.0)))[0]))[0]
    return _unpack(_pack(1.0 + _unpack(_pack(_F015 * (interval - 2.5)))[0]))[0]


_DELTA_7 = _unpack(_pack(1.0 + _unpack(_pack(_F015 * (7.0 - 2.5)))[0]))[0]
_DELTA_20 = _unpack(_pack(_DELTA_7 + _unpack(_pack(_F01 * (20.0 - 7.0)))[0]))[0]


@lru_cache(maxsize=4096)
def fuzz_bounds(interval: float) -> tuple[int, int]:
    delta = fuzz_delta(interval)
    return _rounded_u32(_unpack(_pack(interval - delta))[0]), _rounded_u32(_unpack(_pack(interval + delta))[0])


def _rounded_u32(value: float) -> int:
    """``as_u32(round_f32(value))`` in one call: the rounding gives a whole number, so only its sign
    and the saturation are left of ``as u32`` (a NaN or an infinity raises in floor, as there)."""
    rounded = math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)
    return 0 if rounded <= 0 else min(rounded, 0xFFFFFFFF)


def constrained_fuzz_bounds(interval: float, minimum: int, maximum: int) -> tuple[int, int]:
    # Not cached: a review's intervals are new floats nearly every time (a cache only cost its
    # look-up), and fuzz_bounds keeps the intervals that recur (those clamped to a whole day).
    if minimum > maximum:
        minimum = maximum
    # f32 of a whole number under 2**24 is that number.
    low = float(minimum) if -_EXACT_INT <= minimum <= _EXACT_INT else f32(minimum)
    high = float(maximum) if -_EXACT_INT <= maximum <= _EXACT_INT else f32(maximum)
    lower, upper = fuzz_bounds(min(max(interval, low), high))
    lower = min(max(lower, minimum), maximum)
    upper = min(max(upper, minimum), maximum)
    if upper == lower and 2 < upper < maximum:
        upper = lower + 1
    return lower, upper


def with_review_fuzz(factor: float | None, interval: float, minimum: int, maximum: int) -> int:
    """A whole number of days in [minimum, maximum]: fuzzed when ``factor`` is given, else rounded."""
    if factor is None:
        return min(max(_rounded_u32(interval), minimum), maximum)
    lower, upper = constrained_fuzz_bounds(interval, minimum, maximum)
    if upper < _EXACT_INT:  # small whole numbers are exact in f32: only the product and the sum round
        return max(0, math.floor(_unpack(_pack(lower + _unpack(_pack(factor * (1 + upper - lower)))[0]))[0]))
    return as_u32(math.floor(f32(f32(lower) + f32(factor * f32(1 + upper - lower)))))


_EXACT_INT = 1 << 24


def minimum_review_fuzz_interval(interval: float, previous: int, maximum: int) -> int:
    """The least a passing review may schedule: one more than before, or the previous
    interval itself when the new one did not grow past it but the fuzz range reaches it."""
    if _rounded_u32(interval) > previous:
        return previous + 1
    if previous <= constrained_fuzz_bounds(interval, 1, maximum)[1]:
        return previous
    return 0
