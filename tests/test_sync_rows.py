"""What each sync carries, column by column, against a real PostgreSQL server: every field of an
answer and of an exam on the server and on the learner's other device, flags and settings where
the latest change wins, the item states the team view reads, an undo counted once, and a row
whose transaction commits after a pull began still pulled by the next one."""

from __future__ import annotations

import json
from dataclasses import replace

from studyapp.core.scheduler import AGAIN, GOOD, HARD, Settings
from studyapp.core.session import ReviewSession
from studyapp.sync.client import sync

from pg_server import pg  # noqa: F401  (the fixture)
from test_sync_pg import DECKS, device, server_with, study

ANSWER_COLUMNS = ("item_key, revision, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
                  "interval, last_interval, stability, difficulty, due_ms, scheduler_version, scheduler_params")


def local_answers(store) -> dict[str, tuple]:
    """Every answer of the local log by its global id, with the item key and scheduler it names."""
    with store.guarded():
        return {row[0]: row[1:] for row in store.conn.execute(
            "SELECT r.uid, i.key, i.revision, r.kind, r.rating, r.time_ms, r.sched_ms, r.duration_ms, r.state_before, "
            "r.state_after, r.interval, r.last_interval, r.stability, r.difficulty, r.due_ms, s.version, s.params "
            "FROM review_log r JOIN items i ON i.id = r.item_id JOIN schedulers s ON s.id = r.scheduler_id")}


def owner_rows(pg, query: str, params=()) -> list[tuple]:
    import psycopg

    with psycopg.connect(pg.owner_url()) as owner:
        return owner.execute(query, params).fetchall()


def local_exams(store) -> list[tuple]:
    with store.guarded():
        return store.conn.execute("SELECT uid, time_ms, deck_ids, seed, mode, questions, correct, pass_mark, answers "
                                  "FROM exam_results ORDER BY time_ms").fetchall()


def item_flags(store) -> dict[str, tuple]:
    return {row.key: (row.flag_note, row.flagged_ms) for row in store.all_items() if row.flag_note is not None}


def test_every_field_of_an_answer_reaches_the_server_and_the_other_device(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    keys = study(laptop, clock, [GOOD, AGAIN, HARD, GOOD, AGAIN])
    up = sync(laptop, pg.url(ana))
    assert (up.learner, up.uploaded) == (ana, 5)  # the learner is the server's name for this connection's role
    answers = local_answers(laptop)
    on_server = owner_rows(pg, f"SELECT uid, learner, {ANSWER_COLUMNS} FROM studyapp.reviews")
    assert {uid: rest for uid, _, *rest in on_server} == {uid: list(row) for uid, row in answers.items()}
    assert {learner for _, learner, *_ in on_server} == {ana}
    desktop, _ = device(tmp_path, "desktop")
    pulled = sync(desktop, pg.url(ana))
    assert (pulled.uploaded, pulled.pulled, pulled.replayed_items) == (0, 5, len(set(keys)))
    assert local_answers(desktop) == answers
    # the pulled answers replayed: each item the laptop studied is in the same state on the desktop
    assert ({row.key: row.state for row in desktop.all_items()} == {row.key: row.state for row in laptop.all_items()})
    again = sync(desktop, pg.url(ana))
    assert (again.pulled, again.replayed_items) == (0, 0)
    assert local_answers(desktop) == answers


def test_an_exam_goes_up_once_and_comes_down_once_whole(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    given = [{"key": "a/c000/main", "given": "clé à molette", "correct": True},
             {"key": "a/c001/main", "given": "", "correct": False}]
    laptop.record_exam(deck_ids=["a"], seed=7, mode="typed", questions=2, correct=1, pass_mark=0.75, answers=given)
    first = sync(laptop, pg.url(ana))
    assert (first.exams_uploaded, first.exams_pulled) == (1, 0)
    (exam,) = local_exams(laptop)
    uid, time_ms = exam[0], exam[1]
    assert owner_rows(pg, "SELECT uid, learner, time_ms, result FROM studyapp.exams") == [
        (uid, ana, time_ms, {"deck_ids": ["a"], "seed": 7, "mode": "typed", "questions": 2, "correct": 1,
                             "pass_mark": 0.75, "answers": given})]
    clock.advance(minutes=10)
    laptop.record_exam(deck_ids=["a"], seed=8, mode="choice", questions=1, correct=1, pass_mark=0.5,
                       answers=given[:1])
    second = sync(laptop, pg.url(ana))
    assert (second.exams_uploaded, second.exams_pulled) == (1, 0)  # the new one only; its own come back as known
    assert sync(laptop, pg.url(ana)).exams_uploaded == 0
    assert len(owner_rows(pg, "SELECT uid FROM studyapp.exams")) == 2
    desktop, _ = device(tmp_path, "desktop")
    assert sync(desktop, pg.url(ana)).exams_pulled == 2
    there, here = local_exams(laptop), local_exams(desktop)
    # The JSON columns went through jsonb (which orders keys its own way): equal as JSON, and the
    # learner's letters kept as they are, not escaped.
    assert [row[:2] + row[3:8] for row in here] == [row[:2] + row[3:8] for row in there]
    assert [(json.loads(row[2]), json.loads(row[8])) for row in here] == [
        (json.loads(row[2]), json.loads(row[8])) for row in there]
    assert "clé à molette" in here[0][8]
    assert sync(desktop, pg.url(ana)).exams_pulled == 0
    assert len(local_exams(desktop)) == 2
    # An exam taken on the desktop reaches the laptop, after the laptop's own two (which it skips).
    desktop.record_exam(deck_ids=["a"], seed=9, mode="typed", questions=1, correct=0, pass_mark=0.5, answers=[])
    assert sync(desktop, pg.url(ana)).exams_uploaded == 1
    assert sync(laptop, pg.url(ana)).exams_pulled == 1
    assert sorted(row[3] for row in local_exams(laptop)) == [7, 8, 9]


def test_the_latest_flag_wins_on_the_server_and_on_every_device(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, laptop_clock = device(tmp_path, "laptop")
    desktop, desktop_clock = device(tmp_path, "desktop")
    first, second = (item.key for item in DECKS[0].items()[:2])
    ReviewSession(laptop, DECKS, clock=laptop_clock).flag("the back has a typo", key=first)
    flagged_at = laptop_clock.now_ms()
    sync(laptop, pg.url(ana))
    assert owner_rows(pg, "SELECT learner, item_key, note, changed_ms FROM studyapp.flags") == [
        (ana, first, "the back has a typo", flagged_at)]
    sync(desktop, pg.url(ana))
    assert item_flags(desktop) == {first: ("the back has a typo", flagged_at)}
    # Later, the desktop changes that note and flags another item; the laptop, which has not pulled
    # since, uploads its older note first: the server keeps the newer one and the laptop takes it.
    desktop_clock.advance(minutes=30)
    session = ReviewSession(desktop, DECKS, clock=desktop_clock)
    session.flag("the typo is in the front", key=first)
    session.flag("ambiguous", key=second)
    changed_at = desktop_clock.now_ms()
    sync(desktop, pg.url(ana))
    sync(laptop, pg.url(ana))
    expected = {first: ("the typo is in the front", changed_at), second: ("ambiguous", changed_at)}
    assert {key: (note, ms) for _, key, note, ms in owner_rows(
        pg, "SELECT learner, item_key, note, changed_ms FROM studyapp.flags")} == expected
    assert item_flags(laptop) == expected
    # A flag cleared later is cleared everywhere: the server's older flag does not come back.
    laptop_clock.set(changed_at + 60_000)
    ReviewSession(laptop, DECKS, clock=laptop_clock).flag("", key=second)
    sync(laptop, pg.url(ana))
    sync(desktop, pg.url(ana))
    del expected[second]
    assert item_flags(laptop) == item_flags(desktop) == expected
    assert owner_rows(pg, "SELECT note, changed_ms FROM studyapp.flags WHERE item_key = %s", (second,)) == [
        (None, changed_at + 60_000)]


def test_the_latest_settings_win_and_a_new_device_takes_them(tmp_path, pg):
    import psycopg

    (ana,), _ = server_with(pg, "ana")
    laptop, laptop_clock = device(tmp_path, "laptop")
    desktop, desktop_clock = device(tmp_path, "desktop")
    chosen = replace(Settings(), desired_retention=0.85, new_per_day=7, timezone="Europe/Paris")
    laptop.save_settings(chosen)
    saved_at = laptop_clock.now_ms()
    sync(laptop, pg.url(ana))
    assert owner_rows(pg, "SELECT learner, name, value, changed_ms FROM studyapp.settings") == [
        (ana, "settings", json.loads(json.dumps(chosen.to_dict())), saved_at)]
    # The desktop never saved settings of its own: it takes the learner's.
    sync(desktop, pg.url(ana))
    assert desktop.load_settings() == chosen
    # Settings saved later on the desktop win over the laptop's older ones, on the server and on the laptop.
    desktop_clock.advance(hours=1)
    newer = replace(chosen, new_per_day=12)
    desktop.save_settings(newer)
    sync(laptop, pg.url(ana))  # uploads its older settings: they replace nothing
    sync(desktop, pg.url(ana))
    sync(laptop, pg.url(ana))
    assert laptop.load_settings() == newer
    with psycopg.connect(pg.owner_url()) as owner:
        assert owner.execute("SELECT value, changed_ms FROM studyapp.settings").fetchall() == [
            (json.loads(json.dumps(newer.to_dict())), desktop_clock.now_ms())]


def test_each_studied_item_state_reaches_the_server_and_only_a_newer_one_replaces_it(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    solo = [DECKS[0]]
    laptop, laptop_clock = device(tmp_path, "laptop")
    study(laptop, laptop_clock, [GOOD, AGAIN, HARD])
    sync(laptop, pg.url(ana))

    def states(store) -> dict[str, tuple]:
        return {row.key: (row.state.state, row.state.stability, row.state.reps, row.state.last_review_ms)
                for row in store.all_items() if row.state.last_review_ms is not None}

    def on_server() -> dict[str, tuple]:
        return {key: (state, stability, reps, last) for learner, key, state, stability, reps, last in owner_rows(
            pg, "SELECT learner, item_key, state, stability, reps, last_review_ms FROM studyapp.item_states")
            if learner == ana}

    assert len(states(laptop)) == 2 and on_server() == states(laptop)  # the Again came back before the Hard
    # The desktop studies one of those items later, then the laptop (which has not pulled that
    # answer yet) syncs: its older state uploads first and must not replace the desktop's.
    desktop, desktop_clock = device(tmp_path, "desktop", laptop_clock.now_ms() + 3_600_000, decks=solo)
    sync(desktop, pg.url(ana))
    session = ReviewSession(desktop, solo, clock=desktop_clock)
    shown = session.next()
    session.answer(GOOD, duration_ms=2000)
    sync(desktop, pg.url(ana))
    newer = states(desktop)[shown.key]
    assert on_server()[shown.key] == newer
    with laptop.guarded():
        stale = laptop.conn.execute("SELECT state, stability, reps, last_review_ms FROM items WHERE key = ?",
                                    (shown.key,)).fetchone()
    assert tuple(stale) != newer
    sync(laptop, pg.url(ana))
    assert on_server()[shown.key] == newer == states(laptop)[shown.key]
    assert on_server() == states(laptop) == states(desktop)


def test_answers_undone_on_one_device_are_taken_back_once_on_the_other(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    session = ReviewSession(laptop, DECKS, clock=clock)
    for rating in (GOOD, AGAIN, GOOD):
        session.next()
        session.answer(rating, duration_ms=1000)
    desktop, _ = device(tmp_path, "desktop")
    sync(laptop, pg.url(ana))
    assert sync(desktop, pg.url(ana)).pulled == 3
    before = set(local_answers(laptop))
    session.undo()
    session.undo()
    undone = before - set(local_answers(laptop))
    up = sync(laptop, pg.url(ana))
    assert up.undone == 0  # undone here already: nothing to take back
    assert {uid for (uid,) in owner_rows(pg, "SELECT uid FROM studyapp.undone")} == undone and len(undone) == 2
    down = sync(desktop, pg.url(ana))
    assert (down.undone, down.replayed_items) == (2, 2)
    assert set(local_answers(desktop)) == set(local_answers(laptop)) and len(local_answers(desktop)) == 1
    assert {row.key: row.state for row in desktop.all_items()} == {row.key: row.state for row in laptop.all_items()}
    assert sync(desktop, pg.url(ana)).undone == 0
    # The laptop sends its undo list with every sync; the server keeps it once.
    sync(laptop, pg.url(ana))
    assert len(owner_rows(pg, "SELECT uid FROM studyapp.undone")) == 2


def test_a_row_committed_after_a_pull_began_is_pulled_by_the_next_one(tmp_path, pg):
    """The pull's mark is the oldest transaction its snapshot could not see: an upload still open
    during a pull, which commits after it, is read by the next pull, not skipped."""
    import psycopg

    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    study(laptop, clock, [GOOD, HARD])
    desktop, _ = device(tmp_path, "desktop")
    sync(laptop, pg.url(ana))
    answers = local_answers(laptop)
    late_uid, late = next(iter(answers.items()))
    with psycopg.connect(pg.url(ana)) as slow:  # a device's upload, begun and not yet committed
        slow.execute(f"INSERT INTO studyapp.reviews (uid, {ANSWER_COLUMNS}) VALUES "
                     f"(%s, {', '.join(['%s'] * len(late))})", ("late-" + late_uid, *late))
        assert sync(desktop, pg.url(ana)).pulled == 2  # the two committed rows; the open one is not seen
        slow.commit()
    assert sync(desktop, pg.url(ana)).pulled == 1
    assert "late-" + late_uid in local_answers(desktop)
    assert sync(desktop, pg.url(ana)).pulled == 0


def test_a_sync_connection_names_itself_and_commits_each_transaction_at_its_end(pg):
    from studyapp.sync.client import connect

    (ana,), _ = server_with(pg, "ana")
    conn = connect(pg.url(ana))
    try:
        # the server's activity list shows who is connected: studyapp's connections say so
        assert conn.execute("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()").fetchone() == (
            "studyapp",)
        assert conn.autocommit is True
    finally:
        conn.close()


def test_a_server_that_never_answers_is_given_up_after_the_connect_timeout(monkeypatch):
    import socket
    import threading

    from studyapp.core.problems import StudyappError
    from studyapp.sync import client

    monkeypatch.setattr(client, "CONNECT_TIMEOUT_S", 2)
    listener = socket.create_server(("127.0.0.1", 0))  # accepts (the kernel's backlog) and never answers
    port = listener.getsockname()[1]
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            client.connect(f"postgresql://ana@127.0.0.1:{port}/team")
        except BaseException as error:  # noqa: BLE001 - the test looks at it below
            outcome.append(error)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(60)  # far beyond the timeout: without one, libpq would wait for ever
    listener.close()
    assert not worker.is_alive(), "connect() still waiting on a server that never answers"
    (error,) = outcome
    assert isinstance(error, StudyappError)
    assert error.message.startswith(f"cannot reach the team server user=ana dbname=team host=127.0.0.1 port={port}: ")
    assert "timeout expired" in error.message


def test_an_answer_undone_here_is_not_pulled_back_when_the_last_pull_was_lost(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    session = ReviewSession(laptop, DECKS, clock=clock)
    session.next()
    session.answer(GOOD, duration_ms=1000)
    session.next()
    session.answer(AGAIN, duration_ms=1000)
    sync(laptop, pg.url(ana))
    session.undo()
    kept = set(local_answers(laptop))
    # As if the answer to the last pull never came back: the next one reads the server from the start.
    with laptop.guarded():
        laptop.conn.execute("DELETE FROM meta WHERE key = 'sync:pulled_xmin'")
        laptop.conn.commit()
    again = sync(laptop, pg.url(ana))
    assert (again.pulled, again.undone, again.replayed_items) == (0, 0, 0)
    assert set(local_answers(laptop)) == kept and len(kept) == 1


def test_a_sync_stopped_by_an_error_without_words_names_its_kind(tmp_path, pg, monkeypatch):
    import psycopg
    import pytest

    from studyapp.core.problems import StudyappError
    from studyapp.sync import client, server
    from studyapp.sync.client import redacted

    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")

    def cut(conn):
        raise psycopg.OperationalError("")

    monkeypatch.setattr(server, "check_server", cut)
    with pytest.raises(StudyappError) as raised:
        client.sync(laptop, pg.url(ana))
    assert raised.value.message == (f"sync with {redacted(pg.url(ana))} stopped: OperationalError; nothing was lost, "
                                    "run 'studyapp sync' again to finish")


def test_a_sync_stopped_by_the_server_repeats_its_words(tmp_path, pg):
    import psycopg
    import pytest

    from studyapp.core.problems import StudyappError
    from studyapp.sync.client import redacted

    (ana,), _ = server_with(pg, "ana")
    with psycopg.connect(pg.owner_url()) as owner:  # a server whose schema lost a table since init
        owner.execute("DROP TABLE studyapp.reviews")
    laptop, clock = device(tmp_path, "laptop")
    study(laptop, clock, [GOOD])
    with pytest.raises(StudyappError) as raised:
        sync(laptop, pg.url(ana))
    assert raised.value.message == (f'sync with {redacted(pg.url(ana))} stopped: relation "studyapp.reviews" does not '
                                    "exist; nothing was lost, run 'studyapp sync' again to finish")
