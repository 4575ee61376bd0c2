"""The compiled review days (core/_speedups.c) against the Python reference (core/review_days.py).

Anki's fuzz and load balancer round to f32 at every step; a missed rounding, a fused
multiply-add or a bound off by one shows here as a day that differs, on inputs drawn near the
edges where they do: intervals at x.5, at the fuzz deltas' knees (2.5, 7, 20 days), at the
balancer's 90-day limit, maxima past 2**24, previous intervals inside the fuzz range.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings, strategies as st

from studyapp.core import review_days
from studyapp.core.load_balancer import LOAD_BALANCE_DAYS, LoadBalancer
from studyapp.core.scheduler import REVIEW, ItemState, ReviewScheduler, Settings

compiled = review_days.review_days_compiled
python = review_days.review_days_python


def f32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def test_the_install_compiled_the_review_days():
    # An install without a C compiler runs the Python copy (same days, slower picks); this
    # project's own installs must have the fast one, or the pick figures mean nothing.
    assert compiled is not None, "core/_speedups.c was not compiled: install a C compiler and reinstall"
    from studyapp.core import scheduler

    assert scheduler._review_days is compiled


edges = [0.0, 0.5, 1.0, 1.5, 2.4999, 2.5, 2.5001, 3.5, 6.99, 7.0, 7.01, 19.99, 20.0, 20.01, 89.5, 90.0, 90.99,
         91.0, 91.5, 100.5, 36499.5, 36500.0, 36500.5, 2.0 ** 24, 2.0 ** 24 + 2, 3e9, 5e9]
intervals = st.one_of(st.floats(0, 40), st.floats(0, 120), st.floats(0, 40_000), st.sampled_from(edges),
                      st.integers(0, 400).map(lambda n: n / 2)).map(f32)
maxima = st.one_of(st.integers(1, 400), st.sampled_from([36_500, 2 ** 24 - 1, 2 ** 24, 2 ** 24 + 1, 2 ** 24 + 3,
                                                         2 ** 31, 2 ** 32 - 1, 2 ** 32 + 7]))
factors = st.one_of(st.none(), st.floats(0, 1, exclude_max=True).map(f32).filter(lambda f: f < 1),
                    st.sampled_from([0.0, f32(0.5), f32(1 - 2 ** -24)]))
counts = st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=LOAD_BALANCE_DAYS, max_size=LOAD_BALANCE_DAYS),
                   st.lists(st.integers(0, 5_000), min_size=LOAD_BALANCE_DAYS, max_size=LOAD_BALANCE_DAYS))


@settings(max_examples=2_000, deadline=None)
@given(intervals, intervals, intervals, st.integers(0, 50_000), maxima, factors, counts)
def test_compiled_days_equal_the_reference(hard, good, easy, previous, maximum, factor, due):
    if due is not None and factor is None:
        factor = f32(0.25)
    hard, good, easy = sorted((hard, good, easy))
    assert compiled(hard, good, easy, previous, maximum, factor, due) == python(hard, good, easy, previous, maximum,
                                                                               factor, due)


@settings(max_examples=2_000, deadline=None)
@given(intervals, st.integers(0, 120), maxima, factors, counts)
def test_a_compiled_graduating_day_equals_the_reference(interval, minimum, maximum, factor, due):
    if due is not None and factor is None:
        factor = f32(0.75)
    assert review_days.fuzzed_day_compiled(interval, minimum, maximum, factor, due) == \
        review_days.fuzzed_day_python(interval, minimum, maximum, factor, due)


def test_compiled_days_equal_the_reference_on_a_grid():
    """Every hundredth of a day up to 120 days, with the balancer and without, near edges of the
    range where the fuzz, its bounds and the balancer's window change."""
    workload = [(day * 37) % 11 for day in range(LOAD_BALANCE_DAYS)]
    checked = 0
    for hundredths in range(0, 12_000, 7):
        interval = f32(hundredths / 100)
        for previous in (0, int(interval), int(interval) + 1, int(interval) + 5):
            for factor, due in ((None, None), (f32(0.137), None), (f32(0.863), workload), (0.0, workload)):
                ours = compiled(interval, f32(interval * 1.7), f32(interval * 3.1), previous, 36_500, factor, due)
                assert ours == python(interval, f32(interval * 1.7), f32(interval * 3.1), previous, 36_500, factor,
                                      due), (interval, previous, factor, due is not None)
                checked += 1
    assert checked > 10_000


def test_each_button_is_past_the_one_before_and_within_the_maximum():
    # Properties of Anki's rule, not of either copy: Hard < Good < Easy <= maximum.
    for hundredths in range(100, 9_000, 13):
        interval = f32(hundredths / 100)
        days = compiled(interval, interval, interval, 0, 60, f32(0.5), [0] * LOAD_BALANCE_DAYS)
        assert days[0] < days[1] < days[2] or days[2] == 60, (interval, days)
        assert max(days) <= 60


def test_the_balancer_moves_days_off_busy_days():
    # One quiet day (day 12) in a busy fuzz range: the balancer draws it for most fuzz numbers.
    busy = [500] * LOAD_BALANCE_DAYS
    busy[12] = 0
    picked = [compiled(f32(12.0), f32(40.0), f32(80.0), 0, 36_500, f32(n / 100), busy)[0] for n in range(100)]
    assert picked.count(12) > 90
    plain = [compiled(f32(12.0), f32(40.0), f32(80.0), 0, 36_500, f32(n / 100), None)[0] for n in range(100)]
    assert len(set(plain)) >= 3 and plain.count(12) < 50


@pytest.mark.parametrize("arguments, message", [
    ((1.0, 2.0, 3.0, 0, 100, None, [0] * LOAD_BALANCE_DAYS), "give a factor"),
    ((1.0, 2.0, 3.0, 0, 100, 0.5, [0] * 5), "a list of 99"),
    ((1.0, 2.0, 3.0, 0, 100, 0.5), "7 arguments"),
    ((1.0, 2.0, 3.0, 0, 100, 1.0, None), r"in \[0, 1\)"),
    ((1.0, 2.0, 3.0, 0, 100, float("nan"), None), r"in \[0, 1\)"),
    ((1.0, 2.0, 3.0, 0, 100, 0.5, [0] * 98 + [1.5]), "99 ints"),
])
def test_the_compiled_copy_refuses_bad_arguments(arguments, message):
    with pytest.raises((TypeError, ValueError), match=message):
        compiled(*arguments)
    if "argument" not in message and "ints" not in message and "list" not in message:
        with pytest.raises(ValueError, match=message):
            python(*arguments)


def test_a_list_changed_by_the_code_it_runs_cannot_crash_it():
    """Cards whose attributes are computed by Python that empties the list being read: the
    compiled pass works on its own tuple (a borrowed item of the list would be freed)."""
    from studyapp.core.models import MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS, _compiled_rows

    cards: list = []

    class Emptying:
        type = "basic"
        revision = 1
        related = ()

        @property
        def id(self):
            cards.clear()
            return "x"

    cards.extend(Emptying() for _ in range(50))
    data, linked = _compiled_rows(cards, "d/", MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)
    assert data.decode().count("\x1e") == 49 and linked is False


def test_previews_are_the_same_with_either_copy(monkeypatch):
    from studyapp.core import scheduler as scheduler_module

    state = ItemState(state=REVIEW, stability=13.7, difficulty=5.2, due_ms=0, last_review_ms=0, interval=9, reps=6)
    now = 10 * 86_400_000 + 3_600_000
    shown = {}
    for name, copy in (("compiled", compiled), ("python", python)):
        monkeypatch.setattr(scheduler_module, "_review_days", copy)
        balancer = LoadBalancer([(n * 7) % 5 for n in range(LOAD_BALANCE_DAYS)])
        previews = ReviewScheduler(Settings(), load_balancer=balancer).previews(state, "deck/card-1", now)
        shown[name] = [(p.interval_days, p.due_ms, p.after.stability) for p in previews.values()]
    assert shown["compiled"] == shown["python"]


def _f32_neighbours(value: float) -> list[float]:
    bits = struct.unpack("<i", struct.pack("<f", value))[0]
    return [struct.unpack("<f", struct.pack("<i", b))[0] for b in range(bits - 2, bits + 3)]


def test_draws_that_land_on_a_day_boundary_pick_the_same_day():
    """The balancer's draw (fuzz number x total weight, rounded to f32) landing exactly on, or
    one f32 step either side of, the boundary between two days: random draws almost never hit
    these, and they are where a comparison or a rounding differs."""
    from studyapp.core.fuzz import constrained_fuzz_bounds
    from studyapp.core.load_balancer import _LARGEST_BELOW_ONE

    empty = [0] * LOAD_BALANCE_DAYS
    checked = 0
    for interval in (f32(3.0), f32(4.6), f32(6.0), f32(9.0), f32(15.0), f32(31.0), f32(64.0), f32(88.0)):
        before, after = constrained_fuzz_bounds(interval, 1, 36_500)
        days = after - before + 1  # each weighs 1: the boundaries are the whole numbers below ``days``
        scale = float(days)
        while f32(scale * _LARGEST_BELOW_ONE) >= days:
            scale = struct.unpack("<f", struct.pack("<i", struct.unpack("<i", struct.pack("<f", scale))[0] - 1))[0]
        for boundary in range(1, days):
            for unit in _f32_neighbours(f32(boundary / scale)):
                if 0 <= unit < 1:
                    ours = compiled(interval, f32(interval + 40), f32(interval + 90), 0, 36_500, unit, empty)
                    assert ours == python(interval, f32(interval + 40), f32(interval + 90), 0, 36_500, unit, empty), \
                        (interval, boundary, unit)
                    checked += 1
    assert checked > 100


def test_review_numbers_equal_the_reference_on_fsrs_rs_states():
    """review_numbers reads fsrs-rs's four next states and rounds their memory as Anki stores it
    (f32, 4 and 3 places): over real next_states of many memories, retentions and elapsed days."""
    import random

    import fsrs_rs_python

    from studyapp.core import scheduler

    assert scheduler._review_numbers_compiled is not None, "core/_speedups.c was not compiled"
    fsrs = fsrs_rs_python.FSRS(list(Settings().parameters))
    rng = random.Random(3)
    workload = [rng.randrange(0, 40) for _ in range(LOAD_BALANCE_DAYS)]
    for n in range(3_000):
        memory = None if n % 10 == 0 else fsrs_rs_python.MemoryState(rng.uniform(0.01, 3000), rng.uniform(1, 10))
        states = fsrs.next_states(memory, rng.choice([0.7, 0.9, 0.97]), rng.randrange(0, 400))
        previous, maximum = rng.randrange(0, 400), rng.choice([100, 36_500])
        factor = rng.choice([None, f32(rng.random())])
        due = workload if factor is not None and n % 2 else None
        ours = scheduler._review_numbers_compiled(states, previous, maximum, factor, due)
        assert ours == scheduler._review_numbers_python(states, previous, maximum, factor, due), n
        assert len(ours) == 11 and all(isinstance(day, int) for day in ours[8:])


def test_review_numbers_reports_a_bad_state_as_python_would():
    """A next state whose interval is not a number: a TypeError, as from the Python copy, not a
    SystemError from an exception left set."""
    from types import SimpleNamespace

    from studyapp.core import scheduler

    memory = SimpleNamespace(stability=3.0, difficulty=5.0)
    good = SimpleNamespace(memory=memory, interval=4.0)
    states = SimpleNamespace(again=good, hard=SimpleNamespace(memory=memory, interval="x"), good=good, easy=good)
    for copy in (scheduler._review_numbers_compiled, scheduler._review_numbers_python):
        with pytest.raises(TypeError):
            copy(states, 3, 100, 0.5, None)
    broken = SimpleNamespace(again=good, hard=good, good=SimpleNamespace(memory=SimpleNamespace(stability=None,
                                                                                               difficulty=5.0),
                                                                          interval=4.0), easy=good)
    with pytest.raises(TypeError):
        scheduler._review_numbers_compiled(broken, 3, 100, 0.5, None)
