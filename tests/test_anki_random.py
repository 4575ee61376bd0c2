"""Anki's fuzz numbers, reproduced: checked against what the real Anki 26.9.3 drew.

tests/fixtures/anki_fuzz.json comes from tools/anki_fuzz.py (the real backend, fuzz on):
for each card id, the review fuzz Anki applied to intervals of 30000, 100, 7 and 3 days
(``Collection.fuzz_delta``) and the learning-step fuzz it added to an Again (steps of 1,
10 and 30 minutes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine_support import empty_fuzz_caches, use_scheduling_copy

from studyapp.core import anki_random
from studyapp.core.anki_random import StdRng, chacha_block, seed_key
from studyapp.core.fuzz import constrained_fuzz_bounds, fuzz_delta, with_review_fuzz

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "anki_fuzz.json").read_text())
CARDS = FIXTURE["cards"]


@pytest.fixture(params=["compiled", "python"])
def block_copy(request, monkeypatch):
    """Runs a test on each copy of the scheduling code (the first-block function among it):
    core/_speedups.c, and the Python (what an install without a compiler runs), with the fuzz
    numbers' caches emptied around it."""
    use_scheduling_copy(monkeypatch, request.param)
    yield request.param
    empty_fuzz_caches()


def test_fixture_comes_from_anki_and_covers_the_ranges():
    assert FIXTURE["anki_version"] == "26.9.3"
    assert len(CARDS) >= 60
    deltas = [delta for card in CARDS for _, interval, delta in card["review"] if interval == 30000]
    assert min(deltas) < -1000 and max(deltas) > 1000  # factors from both ends of [0, 1)
    assert {steps for card in CARDS for steps, _ in card["learning"]} == {60, 600, 1800}


@pytest.mark.parametrize("card", CARDS, ids=lambda c: str(c["card_id"]))
def test_review_fuzz_equals_anki(card, block_copy):
    # fuzz_delta seeds with reps - 1, saturating: card id + 0 for a new card.
    factor = anki_random.fuzz_factor(card["card_id"])
    for maximum, interval, anki_delta in card["review"]:
        assert with_review_fuzz(factor, float(interval), 1, maximum) - interval == anki_delta


@pytest.mark.parametrize("card", CARDS, ids=lambda c: str(c["card_id"]))
def test_learning_fuzz_equals_anki(card, block_copy):
    for secs, anki_delay in card["learning"]:
        assert anki_random.learning_fuzz_secs(card["card_id"], secs) == anki_delay


def test_learning_fuzz_range_is_a_quarter_capped_at_five_minutes(block_copy):
    learning_fuzz_secs = anki_random.learning_fuzz_secs
    delays = {learning_fuzz_secs(seed, 1800) for seed in range(400)}
    assert min(delays) == 1800 and max(delays) == 2099  # upper bound exclusive: 1800 + 300
    assert {learning_fuzz_secs(seed, 60) for seed in range(400)} == set(range(60, 75))
    assert learning_fuzz_secs(5, 3) == 3  # a quarter of 3 s floors to 0: no fuzz
    assert learning_fuzz_secs(5, 0) == 0 and learning_fuzz_secs(5, -7) == -7  # no quarter to add


# Seeds whose first draw over 300 values falls in rand's rejection zone, so the second word
# decides (Canon's correction): found by a search over the first block, once. Each is drawn
# with and without the carry that correction can add.
CANON_SEEDS = {1008953013: False, 1062796089: True, 1065403077: False, 1073842503: True}


def _canon_carry(seed: int, span: int) -> bool | None:
    """Whether Canon's correction adds one for ``seed`` over ``span`` values (None: not reached)."""
    block = chacha_block(seed_key(seed), 0)
    low_order = block[0] * span & 0xFFFFFFFF
    if low_order <= (-span) & 0xFFFFFFFF:
        return None
    return low_order + (block[1] * span >> 32) > 0xFFFFFFFF


def test_the_canon_seeds_reach_the_correction_both_ways():
    assert {seed: _canon_carry(seed, 300) for seed in CANON_SEEDS} == CANON_SEEDS


@pytest.mark.parametrize("seed", sorted(CANON_SEEDS))
def test_the_compiled_learning_fuzz_takes_canons_correction_as_python_does(seed):
    plain = chacha_block(seed_key(seed), 0)[0] * 300 >> 32  # the draw without the correction
    expected = 1800 + plain + CANON_SEEDS[seed]
    assert anki_random.learning_fuzz_secs_python(seed, 1800) == expected
    assert anki_random.learning_fuzz_secs_compiled(seed, 1800) == expected


@settings(max_examples=3000, deadline=None)
@given(seed=st.integers(-2 ** 64, 2 ** 66),
       secs=st.one_of(st.integers(-5, 1300), st.integers(2 ** 24 - 3, 2 ** 24 + 3), st.integers(-2 ** 62, 2 ** 62)))
def test_the_compiled_fuzz_numbers_are_the_python_ones(seed, secs):
    assert anki_random.fuzz_factor_compiled is not None, "core/_speedups.c was not compiled"
    assert anki_random.fuzz_factor_compiled(seed) == anki_random.fuzz_factor_python(seed)
    assert anki_random.learning_fuzz_secs_compiled(seed, secs) == anki_random.learning_fuzz_secs_python(seed, secs)


def test_the_compiled_fuzz_numbers_refuse_what_python_refuses():
    for compiled, python in ((anki_random.fuzz_factor_compiled, anki_random.fuzz_factor_python.__wrapped__),
                             (lambda s: anki_random.learning_fuzz_secs_compiled(s, 60),
                              lambda s: anki_random.learning_fuzz_secs_python.__wrapped__(s, 60))):
        for bad in (1.5, "7", None):
            with pytest.raises(TypeError):
                python(bad)
            with pytest.raises(TypeError):
                compiled(bad)
    with pytest.raises(TypeError):
        anki_random.learning_fuzz_secs_compiled(1)


def test_chacha_block_is_rfc_7539s_test_vector_with_twenty_rounds():
    # RFC 7539 section 2.3.2: key 00..1f, block counter 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
    # Its 32-bit counter and first nonce word are rand_chacha's 64-bit counter.
    key = tuple(int.from_bytes(bytes(range(4 * i, 4 * i + 4)), "little") for i in range(8))
    block = chacha_block(key, 1 | (0x09000000 << 32), rounds=20, stream=(0x4A000000, 0))
    assert block == [0xE4E7F110, 0x15593BD1, 0x1FDD0F50, 0xC47120A3, 0xC7F4D1C7, 0x0368C033, 0x9AAA2204, 0x4E6CD4C3,
                     0x466482D2, 0x09AA9F07, 0x05D7C214, 0xA2028BD9, 0xD19C12B5, 0xB94E16DE, 0xE883D0CB, 0x4E3C50A2]


def test_seed_expansion_and_stream_are_deterministic_and_seed_dependent():
    assert seed_key(1) != seed_key(2)
    first, second = StdRng(42), StdRng(42)
    assert [first.next_u32() for _ in range(40)] == [second.next_u32() for _ in range(40)]  # crosses a block


def test_fuzz_bounds_at_the_edges_of_the_ranges():
    assert fuzz_delta(2.49) == 0.0
    assert fuzz_delta(2.5) == 1.0
    assert constrained_fuzz_bounds(2.4, 1, 36500) == (2, 2)  # under 2.5 days: no fuzz
    assert constrained_fuzz_bounds(2.6, 1, 36500) == (2, 4)
    assert constrained_fuzz_bounds(1.0, 3, 36500) == (3, 4)  # the minimum lifts the interval first
    assert constrained_fuzz_bounds(100.0, 1, 36500) == (93, 107)
    assert constrained_fuzz_bounds(100.0, 1, 100) == (93, 100)
    assert with_review_fuzz(None, 2.5, 1, 36500) == 3  # halves round up, as in Rust
    assert with_review_fuzz(0.0, 100.0, 1, 36500) == 93
    assert with_review_fuzz(0.99, 100.0, 1, 36500) == 107
    # The largest factor Anki can draw: in f32, 93 + 14.9999982 rounds to 108, one past the
    # upper bound. Rust does the same, so we do too.
    assert with_review_fuzz(1 - 2**-23, 100.0, 1, 36500) == 108


def _fuzz_delta_step_by_step(interval: float) -> float:
    """fuzz.rs's fold written out, every operation rounded to f32."""
    from studyapp.core.fuzz import f32

    if interval < 2.5:
        return 0.0
    delta = 1.0
    for start, end, factor in ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, 3.4e38, 0.05)):
        delta = f32(delta + f32(f32(factor) * max(f32(min(interval, end) - start), 0.0)))
    return delta


def test_the_short_fuzz_delta_equals_the_fold_in_f32():
    import random

    from studyapp.core.fuzz import f32

    rng = random.Random(7)
    values = [f32(rng.choice([rng.uniform(0, 40), rng.uniform(0, 40000), rng.uniform(2, 8)])) for _ in range(50000)]
    values += [2.5, 7.0, 20.0, f32(6.9999999), f32(7.0000001), f32(19.999999), 36500.0, 2.4999998]
    assert [fuzz_delta(v) for v in values] == [_fuzz_delta_step_by_step(v) for v in values]


def test_blocks_drawn_for_many_seeds_at_once_are_the_blocks_of_each(block_copy):
    """anki_random.prime computes the first ChaCha12 block of many seeds in one go (one lane per
    seed): each must be the block the one-seed function gives, at the ends of the u64 range too."""
    import random as _random

    from studyapp.core import anki_random

    rng = _random.Random(5)
    seeds = [0, 1, 2 ** 64 - 1, 2 ** 63] + [rng.getrandbits(64) for _ in range(700)]
    anki_random._FIRST_BLOCKS.clear()
    anki_random.prime(seeds + seeds[:10])  # a seed asked for twice is drawn once
    assert len(anki_random._FIRST_BLOCKS) == len(set(seeds))
    for seed in seeds:
        key, block = anki_random._FIRST_BLOCKS[seed]
        assert key == anki_random.seed_key(seed)
        assert block == anki_random.chacha_block(key, 0)


def test_the_compiled_block_is_the_python_block():
    import random as _random

    from studyapp.core import anki_random

    compiled = anki_random._compiled_first_block
    assert compiled is not None, "core/_speedups.c was not compiled"
    rng = _random.Random(11)
    for seed in [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 63, 2 ** 64 - 1] + [rng.getrandbits(64) for _ in range(2_000)]:
        key, block = compiled(seed)
        assert key == anki_random.seed_key(seed)
        assert block == anki_random.chacha_block(key, 0), seed
    # Python's seed & 2**64 - 1, as anki_random masks a card id plus reps.
    assert compiled(-1) == compiled(2 ** 64 - 1) and compiled(2 ** 64 + 5) == compiled(5)
