"""`report --team` reads, from the server, the very report each learner writes at home: the
team's copy of every answer (an undone one left out), every item's state and every exam."""

from __future__ import annotations

from types import SimpleNamespace

from studyapp.core.scheduler import AGAIN, GOOD, HARD
from studyapp.core.session import ReviewSession
from studyapp.core.settings import resolve
from studyapp.onboarding.collect import collect_report
from studyapp.sync.client import sync
from studyapp.sync.team import team_reports

from engine_support import T0
from pg_server import pg  # noqa: F401  (the fixture)
from test_sync_pg import DECKS, device, server_with, study


def test_the_team_report_is_each_learners_own_report(tmp_path, pg):
    import psycopg

    (ana, bob), (lead,) = server_with(pg, "ana", "bob", leads=("lead",))
    homes = {}
    for role, name, ratings in ((ana, "ana-laptop", [GOOD, AGAIN, HARD, GOOD]), (bob, "bob-laptop", [HARD])):
        store, clock = device(tmp_path, name)
        study(store, clock, ratings)
        session = ReviewSession(store, DECKS, clock=clock)
        session.next()
        session.answer(GOOD, duration_ms=1000)
        assert sync(store, pg.url(role)).uploaded == len(ratings) + 1
        session.undo()  # after the server has the answer: it gets the undo too, and no report counts it
        clock.advance(minutes=5)
        store.record_exam(deck_ids=["a"], seed=7, mode="typed", questions=4, correct=3 if role == ana else 1,
                          pass_mark=0.75, answers=[{"key": "a/c000/main", "correct": True}])
        assert sync(store, pg.url(role)).exams_uploaded == 1
        homes[role] = resolve(str(tmp_path / name), "default", [], environ={})
        store.close()
    now = T0 + 3 * 86_400_000
    catalog = SimpleNamespace(decks=DECKS)
    with psycopg.connect(pg.url(lead)) as conn:
        from studyapp.core.scheduler import Settings, StudyDays, resolve_zone

        days = StudyDays(resolve_zone(Settings().timezone), Settings().rollover_hour)
        reports = team_reports(conn, DECKS, None, now, days.day_of, days.date_of)
    assert [r["profile"] for r in reports] == sorted([ana, bob])
    for report in reports:
        local = collect_report(homes[report["profile"]], catalog, clock=SimpleNamespace(now_ms=lambda: now))
        assert report == dict(local, profile=report["profile"])
        assert report["totals"]["reviews"] > 0 and len(report["exams"]) == 1
    # a learner's own role reads only their own report
    with psycopg.connect(pg.url(bob)) as conn:
        assert [r["profile"] for r in team_reports(conn, DECKS, None, now, days.day_of, days.date_of)] == [bob]


def test_a_deck_studied_only_on_another_device_arrives_with_its_progress(tmp_path, pg):
    from engine_support import deck

    (ana,), _ = server_with(pg, "ana")
    both = [DECKS[0], deck("b", 3)]
    desktop, desktop_clock = device(tmp_path, "desktop", decks=both)
    session = ReviewSession(desktop, [both[1]], clock=desktop_clock)
    answered = set()
    for rating in (GOOD, AGAIN, GOOD):
        answered.add(session.next().key)
        session.answer(rating, duration_ms=2000)
        desktop_clock.advance(minutes=2)
    assert sync(desktop, pg.url(ana)).uploaded == 3
    laptop, _ = device(tmp_path, "laptop")  # has never loaded deck b
    pulled = sync(laptop, pg.url(ana))
    assert (pulled.pulled, pulled.replayed_items) == (3, len(answered))
    # rows wait out of sight for the deck, one per item answered on the desktop
    hidden = {row.key: row for row in laptop.all_items() if row.deck_id == "b"}
    assert set(hidden) == answered and not any(row.present for row in hidden.values())
    laptop.sync(both)  # the learner opens deck b here: its items appear with the desktop's progress
    here = {row.key: (row.present, row.revision, row.state) for row in laptop.all_items() if row.deck_id == "b"}
    there = {row.key: (row.present, row.revision, row.state) for row in desktop.all_items() if row.deck_id == "b"}
    assert here == there and len(here) == 3
