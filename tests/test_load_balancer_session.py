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


def test_the_workload_counted_aside_while_gathering_is_the_stores(tmp_path, monkeypatch):
    """A new session starts counting the workload on a second connection as it gathers the day's
    queues; the first review's previews take those counts, and only if nothing was written since."""
    session, store, clock = _graduated_session(tmp_path)
    clock.advance(days=7)  # some of the reviews are due
    started = []
    aside = store.due_between_aside
    monkeypatch.setattr(store, "due_between_aside", lambda *a: started.append(a) or aside(*a))
    fresh = ReviewSession(store, [deck("a", 30)], clock=clock, settings=replace(SETTINGS, new_per_day=30))
    assert fresh._workload_ahead is None
    shown = fresh.next()
    assert shown is not None and shown.state.state == REVIEW
    assert len(started) == 1 and fresh._workload_ahead is None  # taken by the first review's previews
    now = clock.now_ms()
    expected = {offset: count for offset, count in
                enumerate(store.due_between(fresh.deck_ids, fresh._workload_starts(now))) if count}
    assert {d: n for d, n in enumerate(fresh.load_balancer.counts) if n} == expected and expected
    # Counted before a write through the store: not used, counted again.
    fresh._count_workload_aside(now)
    assert fresh._workload_ahead is not None
    fresh.answer(EASY)
    counted_again = []
    monkeypatch.setattr(store, "due_between", lambda *a: counted_again.append(a) or [0] * 99)
    assert fresh._workload(now) == {} and len(counted_again) == 1 and fresh._workload_ahead is None


def test_one_statement_counts_each_day_as_the_span_query_does(tmp_path):
    session, store, clock = _graduated_session(tmp_path)
    days = session.scheduler.days
    today = days.day_of(clock.now_ms())
    starts = [days.start_ms(today + offset) for offset in range(100)]
    counts = store.due_between(session.deck_ids, starts)
    by_span = [store.conn.execute("SELECT count(*) FROM items WHERE queue IN (1, 2) AND due_ms >= ? AND due_ms < ? "
                                  "AND present = 1 AND suspended = 0",
                                  (-(1 << 62) if i == 0 else starts[i], starts[i + 1])).fetchone()[0]
               for i in range(99)]
    assert counts == by_span and sum(counts) == 30
    wait = store.due_between_aside(session.deck_ids, starts)
    assert wait is not None and wait() == counts
