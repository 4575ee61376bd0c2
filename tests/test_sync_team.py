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


def test_a_learner_with_only_an_exam_has_a_report_with_it(tmp_path, pg):
    import psycopg

    (ana, cy), (lead,) = server_with(pg, "ana", "cy", leads=("lead",))
    homes = {}
    for role, name in ((ana, "ana-laptop"), (cy, "cy-laptop")):
        store, clock = device(tmp_path, name)
        if role == ana:
            study(store, clock, [GOOD, GOOD])
        else:  # sat the exam without studying here: no answer, no item state, only the exam
            store.record_exam(deck_ids=["a"], seed=3, mode="choice", questions=5, correct=4, pass_mark=0.6,
                              answers=[{"key": "a/c001/main", "correct": True}])
        sync(store, pg.url(role))
        homes[role] = resolve(str(tmp_path / name), "default", [], environ={})
        store.close()
    now = T0 + 86_400_000
    from studyapp.core.scheduler import Settings, StudyDays, resolve_zone

    days = StudyDays(resolve_zone(Settings().timezone), Settings().rollover_hour)
    with psycopg.connect(pg.url(lead)) as conn:
        reports = team_reports(conn, DECKS, None, now, days.day_of, days.date_of)
    assert [r["profile"] for r in reports] == sorted([ana, cy])
    for report in reports:
        local = collect_report(homes[report["profile"]], SimpleNamespace(decks=DECKS),
                               clock=SimpleNamespace(now_ms=lambda: now))
        assert report == dict(local, profile=report["profile"])
    only_exam = next(r for r in reports if r["profile"] == cy)
    assert only_exam["totals"]["reviews"] == 0 and len(only_exam["exams"]) == 1


def test_the_bucket_sums_run_on_a_second_connection_of_the_same_role(pg):
    """The per-quarter-hour query runs beside the main one, on a connection of its own with the
    same role and work_mem, and gives the rows the main connection would."""
    import psycopg

    from studyapp.sync.team import TEAM_WORK_MEM, _in_parallel

    (ana,), _ = server_with(pg, "ana")
    with psycopg.connect(pg.url(ana)) as conn:
        rows = _in_parallel(conn, "SELECT pg_backend_pid(), current_user, current_setting('work_mem'), %s::int + 1",
                            (41,))
        ((pid, user, work_mem, answer),) = rows()
        assert (user, work_mem, answer) == (ana, TEAM_WORK_MEM, 42)
        assert pid != conn.info.backend_pid


def test_where_no_second_connection_can_run_it_the_query_runs_on_the_main_one(pg):
    import psycopg

    from studyapp.sync.team import _in_parallel

    (ana,), _ = server_with(pg, "ana")
    with psycopg.connect(pg.url(ana), autocommit=True) as conn:
        # a setting only this session has: the same query fails on any other connection
        conn.execute("SET studyapp.probe = 'main'")
        rows = _in_parallel(conn, "SELECT current_setting('studyapp.probe'), pg_backend_pid(), %s::int", (7,))
        assert rows() == [("main", conn.info.backend_pid, 7)]
