"""The session gives the scheduler's load balancer its decks' workload, as Anki's queue does."""

from __future__ import annotations

from dataclasses import replace

from engine_support import SETTINGS, deck, store_at

from studyapp.core.scheduler import EASY, REVIEW
from studyapp.core.session import ReviewSession


def _graduated_session(tmp_path, count: int = 30, **changes):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 30)]
    session = ReviewSession(store, decks, clock=clock, settings=replace(SETTINGS, new_per_day=30, **changes))
    for _ in range(count):  # items straight to review with Easy (8.3 days, fuzz range 6 to 10)
        session.next()
        session.answer(EASY)
        clock.advance(seconds=20)
    return session, store, clock


def test_the_workload_is_the_stores_items_due_by_day_and_grows_with_each_answer(tmp_path):
    session, store, clock = _graduated_session(tmp_path)
    days = session.scheduler.days
    today = days.day_of(clock.now_ms())
    stored = {}
    for row in store.all_items():
        if row.state.state == REVIEW:
            offset = days.day_of(row.state.due_ms) - today
            stored[offset] = stored.get(offset, 0) + 1
    assert sum(stored.values()) == 30
    assert session._workload(clock.now_ms()) == stored
    # The balancer read the store once (at the first balanced answer) and counted each answer since.
    assert {d: n for d, n in enumerate(session.load_balancer.counts) if n} == stored


def test_balanced_answers_fill_the_empty_days_of_the_fuzz_range_first(tmp_path):
    balanced, store, clock = _graduated_session(tmp_path / "on", count=5)
    # Each of the five Easy answers went to a day with no review yet: one on each day 6 to 10.
    assert balanced.load_balancer.counts[6:11] == [1, 1, 1, 1, 1]
    days = balanced.scheduler.days
    today = days.day_of(clock.now_ms())
    assert sorted(days.day_of(r.state.due_ms) - today for r in store.all_items() if r.state.reps) == [6, 7, 8, 9, 10]
    plain, _, _ = _graduated_session(tmp_path / "off", count=5, load_balancer=False)
    assert plain.scheduler.load_balancer is None and balanced.scheduler.load_balancer is balanced.load_balancer
