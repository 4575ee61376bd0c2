"""The random numbers Anki draws for fuzz, reproduced bit for bit.

Anki (rslib, rand 0.9) seeds ``StdRng::seed_from_u64(card_id + reps)`` for every answer
and takes one number from it: ``random_range(0.0..1.0)`` as an f32 for the review fuzz,
``random_range(secs..upper)`` over u32 for a learning step's fuzz. ``StdRng`` is ChaCha
with 12 rounds (rand_chacha), keyed by 32 bytes that ``seed_from_u64`` expands from the
u64 with PCG32. Only the first block is ever needed, so no buffering is kept beyond it.

tests/test_anki_random.py checks these functions against numbers the real Anki produced.
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from typing import Callable, Iterable, Sequence

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
_PCG_MUL = 6364136223846793005
_PCG_INC = 11634580027462260723
# "expand 32-byte k", the ChaCha constants as little-endian words.
_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)


def seed_key(seed: int) -> tuple[int, ...]:
    """rand_core's ``seed_from_u64``: eight PCG32 outputs, the ChaCha key as u32 words."""
    state = seed & _MASK64
    words = []
    for _ in range(8):
        state = (state * _PCG_MUL + _PCG_INC) & _MASK64
        xorshifted = (((state >> 18) ^ state) >> 27) & _MASK32
        rot = state >> 59
        words.append(((xorshifted >> rot) | (xorshifted << (32 - rot))) & _MASK32)
    return tuple(words)


def _generate_block_function(rounds: int):
    """A ChaCha block function with the rounds unrolled over 16 local variables.

    The plain loop over a list takes about 150 us per block in CPython; unrolled over
    locals it takes a fraction of that, and a pick of the next item needs one block per item.
    """
    lines = ["def block(key, counter, stream):",
             "    k0, k1, k2, k3, k4, k5, k6, k7 = key",
             f"    x0, x1, x2, x3 = {_SIGMA[0]}, {_SIGMA[1]}, {_SIGMA[2]}, {_SIGMA[3]}",
             "    x4, x5, x6, x7, x8, x9, x10, x11 = key",
             "    x12, x13 = counter & 0xFFFFFFFF, (counter >> 32) & 0xFFFFFFFF",
             "    x14, x15 = stream",
             "    s12, s13 = x12, x13"]

    def quarter(a: int, b: int, c: int, d: int) -> list[str]:
        out = []
        for first, second, third, shift in ((a, b, d, 16), (c, d, b, 12), (a, b, d, 8), (c, d, b, 7)):
            # add, xor, rotate: two statements (statements, not operations, are what costs here)
            out.append(f"    x{first} = (x{first} + x{second}) & 0xFFFFFFFF")
            out.append(f"    x{third} = (((t := x{third} ^ x{first}) << {shift}) & 0xFFFFFFFF) | (t >> {32 - shift})")
        return out

    for _ in range(rounds // 2):
        for indices in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                        (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            lines += quarter(*indices)
    starts = [str(v) for v in _SIGMA] + [f"k{i}" for i in range(8)] + ["s12", "s13", "stream[0]", "stream[1]"]
    lines.append("    return [" + ", ".join(f"(x{i} + {start}) & 0xFFFFFFFF" for i, start in enumerate(starts)) + "]")
    namespace: dict = {}
    exec("\n".join(lines), namespace)  # noqa: S102 - our own generated source, no input in it
    return namespace["block"]


# Generated when first needed: compiling one takes tens of milliseconds, which every start
# of the app would pay, where a queue's blocks are mostly drawn by prime() anyway.
_BLOCKS: dict[int, Callable] = {}


def chacha_block(key: tuple[int, ...], counter: int = 0, rounds: int = 12,
                 stream: tuple[int, int] = (0, 0)) -> list[int]:
    """One 64-byte ChaCha block as 16 u32 words (64-bit counter, then the stream: rand_chacha's layout)."""
    block = _BLOCKS.get(rounds)
    if block is None:
        block = _BLOCKS[rounds] = _generate_block_function(rounds)
    return block(key, counter, stream)


# seed -> (key, first block). Bounded by hand: prime() fills it for a whole queue at once.
_FIRST_BLOCKS: dict[int, tuple[tuple[int, ...], list[int]]] = {}
_FIRST_BLOCKS_MAX = 1 << 16  # about a kilobyte each


def _first_block(seed: int) -> tuple[tuple[int, ...], list[int]]:
    # The review fuzz, the learning fuzz and the load balancer of one answer share a seed.
    found = _FIRST_BLOCKS.get(seed)
    if found is None:
        if _compiled_first_block is not None:
            found = _compiled_first_block(seed)
        else:
            key = seed_key(seed)
            found = key, chacha_block(key, 0)
        _remember(seed, found)
    return found


def _remember(seed: int, value: tuple[tuple[int, ...], list[int]]) -> None:
    if len(_FIRST_BLOCKS) >= _FIRST_BLOCKS_MAX:
        _FIRST_BLOCKS.clear()
    _FIRST_BLOCKS[seed] = value


def primed(seed: int) -> bool:
    """Whether ``seed``'s first block is drawn already."""
    return (seed & _MASK64) in _FIRST_BLOCKS


def drawn_on_demand() -> bool:
    """Whether a block costs under a microsecond when first asked for (the compiled copy), so
    that drawing many ahead (``prime``) gains nothing."""
    return _compiled_first_block is not None


def prime(seeds: Iterable[int]) -> None:
    """Compute the first ChaCha12 block of many seeds at once (what a pick of each then needs).

    The block function costs some 45 us per seed in CPython, a statement at a time; here
    every state word of all the seeds is one Python integer, one 64-bit lane per seed (the
    low 32 bits used, the rest room for the carry of an addition, masked off after it), so
    each statement of the rounds runs over every seed in C: a few microseconds per seed.
    Only the Python copy needs it (ReviewScheduler.prime): the compiled one (core/_speedups.c)
    computes each fuzz number when it is asked for.
    """
    todo = list(dict.fromkeys(seed & _MASK64 for seed in seeds if (seed & _MASK64) not in _FIRST_BLOCKS))
    for start in range(0, len(todo), _LANES):
        _prime_lanes(todo[start:start + _LANES])


_LANES = 2048


def _pack_lanes(words: Sequence[int]) -> int:
    return int.from_bytes(array("Q", words).tobytes(), "little")


def _unpack_lanes(value: int, lanes: int) -> array:
    out = array("Q")
    out.frombytes(value.to_bytes(8 * lanes, "little"))
    return out


def _prime_lanes(seeds: list[int]) -> None:
    n = len(seeds)
    keys = [seed_key(seed) for seed in seeds]
    ones = _pack_lanes([1] * n)
    mask = ones * _MASK32
    init = [_SIGMA[0] * ones, _SIGMA[1] * ones, _SIGMA[2] * ones, _SIGMA[3] * ones]
    init += [_pack_lanes([key[i] for key in keys]) for i in range(8)]
    init += [0, 0, 0, 0]  # counter 0, stream 0
    x = list(init)

    def quarter(a: int, b: int, c: int, d: int) -> None:
        xa, xb, xc, xd = x[a], x[b], x[c], x[d]
        xa = (xa + xb) & mask
        t = xd ^ xa
        xd = ((t << 16) | (t >> 16)) & mask
        xc = (xc + xd) & mask
        t = xb ^ xc
        xb = ((t << 12) | (t >> 20)) & mask
        xa = (xa + xb) & mask
        t = xd ^ xa
        xd = ((t << 8) | (t >> 24)) & mask
        xc = (xc + xd) & mask
        t = xb ^ xc
        xb = ((t << 7) | (t >> 25)) & mask
        x[a], x[b], x[c], x[d] = xa, xb, xc, xd

    for _ in range(6):  # ChaCha12: six double rounds
        quarter(0, 4, 8, 12)
        quarter(1, 5, 9, 13)
        quarter(2, 6, 10, 14)
        quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15)
        quarter(1, 6, 11, 12)
        quarter(2, 7, 8, 13)
        quarter(3, 4, 9, 14)
    words = [_unpack_lanes((x[i] + init[i]) & mask, n) for i in range(16)]
    for lane, seed in enumerate(seeds):
        _remember(seed, (keys[lane], [words[i][lane] for i in range(16)]))


try:
    from ._speedups import first_block as _compiled_first_block
except ImportError:  # an install that could not compile it: the Python above
    _compiled_first_block = None


class StdRng:
    """rand 0.9's ``StdRng::seed_from_u64(seed)``: its u32 outputs in order."""

    __slots__ = ("_key", "_block", "_counter", "_index")

    def __init__(self, seed: int) -> None:
        self._key, self._block = _first_block(seed & _MASK64)
        self._counter = 0
        self._index = 0

    def next_u32(self) -> int:
        if self._index == 16:
            self._counter += 1
            self._block = chacha_block(self._key, self._counter)
            self._index = 0
        value = self._block[self._index]
        self._index += 1
        return value

    def unit_f32(self) -> float:
        """``random_range(0.0f32..1.0)``: 23 random mantissa bits, a float in [0, 1) exact in f32."""
        return (self.next_u32() >> 9) / 8388608.0

    def range_u32(self, low: int, high: int) -> int:
        """``random_range(low..high)`` over u32 (rand 0.9's widening multiply with Canon's correction)."""
        if low >= high:
            raise ValueError(f"empty range {low}..{high}")
        span = (high - 1 - low + 1) & _MASK32
        if span == 0:
            return self.next_u32()
        product = self.next_u32() * span
        result, low_order = product >> 32, product & _MASK32
        if low_order > ((-span) & _MASK32):
            extra = (self.next_u32() * span) >> 32
            if low_order + extra > _MASK32:
                result += 1
        return (low + result) & _MASK32


@lru_cache(maxsize=65536)
def fuzz_factor_python(seed: int) -> float:
    """Anki's ``get_fuzz_factor``: the review fuzz number for ``card_id + reps``."""
    return StdRng(seed).unit_f32()


@lru_cache(maxsize=65536)
def learning_fuzz_secs_python(seed: int, secs: int) -> int:
    """Anki's ``learning_ivl_with_fuzz``: a step's delay plus up to 25% (at most 5 minutes)."""
    upper = secs + int(min(_f32_mul_quarter(secs), 300.0))
    if secs >= upper:
        return secs
    return StdRng(seed).range_u32(secs, upper)


# The compiled copies (core/_speedups.c) need no cache: a call costs less than a cache's lookup.
try:
    from ._speedups import fuzz_factor as fuzz_factor_compiled, learning_fuzz_secs as learning_fuzz_secs_compiled
except ImportError:
    fuzz_factor_compiled = learning_fuzz_secs_compiled = None
fuzz_factor = fuzz_factor_compiled or fuzz_factor_python
learning_fuzz_secs = learning_fuzz_secs_compiled or learning_fuzz_secs_python


_EXACT_F32_INT = 1 << 24


def _f32_mul_quarter(secs: int) -> float:
    # (secs as f32) * 0.25 in f32: exact for any u32 a learning step can hold, once secs
    # itself is rounded to f32 (above 2**24 seconds it is; the cap of 300 wins long before).
    if 0 <= secs <= _EXACT_F32_INT:  # a whole number this small is its own f32
        return secs * 0.25
    import struct

    as_f32 = struct.unpack("f", struct.pack("f", float(secs)))[0]
    return as_f32 * 0.25
