"""core.gcpause.collector_paused: the cycle collector off for a block or a call, then as it was."""

from __future__ import annotations

import gc

import pytest

from studyapp.core.gcpause import collector_paused


def test_a_pause_inside_another_leaves_the_collector_off_for_the_outer_one():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_paused_function_puts_it_back_on_each_call_however_it_ends():
    seen = []

    @collector_paused()
    def failing():
        seen.append(gc.isenabled())
        raise ValueError("no")

    for _ in range(2):
        with pytest.raises(ValueError):
            failing()
        assert gc.isenabled()
    assert seen == [False, False]


def test_a_collector_off_before_stays_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
