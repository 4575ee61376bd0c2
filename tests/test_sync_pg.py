"""Sync against a real PostgreSQL server: row-level security, idempotent uploads, two devices of
one learner merging offline study, undo after a sync, a newer server schema, a cut connection."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from studyapp.core.clock import FakeClock
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import AGAIN, GOOD, HARD
from studyapp.core.session import ReviewSession
from studyapp.core.settings import resolve
from studyapp.store import open_store
from engine_support import SCHEMA_6_UNDONE
from studyapp.sync.client import redacted, sync
from studyapp.sync.server import init_server

from cli_runner import ROOT, run_cli
from engine_support import T0, deck
from pg_server import pg  # noqa: F401  (the fixture)

DECKS = [deck("a", 6)]


def device(tmp_path, name: str, start_ms: int = T0, decks=DECKS):
    """A learner's machine: its own home folder and clock."""
    clock = FakeClock(start_ms)
    store = open_store(resolve(str(tmp_path / name), "default", [], environ={}), clock=clock)
    store.sync(decks)
    return store, clock


def study(store, clock, ratings, decks=DECKS) -> list[str]:
    session = ReviewSession(store, decks, clock=clock)
    keys = []
    for rating in ratings:
        shown = session.next()
        assert shown is not None
        keys.append(shown.key)
        session.answer(rating, duration_ms=3000)
        clock.advance(minutes=2)
    return keys


def server_with(pg, *learners: str, leads: tuple[str, ...] = ()):
    import psycopg

    roles = [pg.role(n) for n in learners]
    lead_roles = [pg.role(n) for n in leads]
    with psycopg.connect(pg.owner_url()) as owner:
        init_server(owner, roles, lead_roles)
    return roles, lead_roles


def server_rows(pg, table: str = "reviews") -> list[tuple]:
    import psycopg

    with psycopg.connect(pg.owner_url()) as owner:
        return owner.execute(f"SELECT learner, uid FROM studyapp.{table} ORDER BY seq").fetchall()


def local_uids(store) -> list[str]:
    with store.guarded():
        return [uid for (uid,) in store.conn.execute("SELECT uid FROM review_log ORDER BY id")]


def test_a_learner_reads_and_writes_only_their_own_rows(tmp_path, pg):
    import psycopg

    (ana, bob), (lead,) = server_with(pg, "ana", "bob", leads=("lead",))
    store, clock = device(tmp_path, "ana-laptop")
    study(store, clock, [GOOD, GOOD, AGAIN])
    assert sync(store, pg.url(ana)).uploaded == 3
    with psycopg.connect(pg.url(bob)) as conn:
        assert conn.execute("SELECT count(*) FROM studyapp.reviews").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO studyapp.reviews (uid, learner, item_key, revision, kind, rating, time_ms, "
                         "sched_ms, duration_ms, state_before, state_after, interval, last_interval, "
                         "scheduler_version, scheduler_params) VALUES ('forged', %s, 'a/c000/main', 1, 'review', 4, "
                         "0, 0, 0, 'new', 'review', 1, 0, 'x', '{}')", (ana,))
    with psycopg.connect(pg.url(ana)) as conn:
        # the log is append-only on the server as well: not even its owner's role may change a row
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE studyapp.reviews SET rating = 4")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM studyapp.reviews")
    with psycopg.connect(pg.url(lead)) as conn:
        assert [r[0] for r in conn.execute("SELECT learner FROM studyapp.reviews")] == [ana] * 3
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO studyapp.undone (uid, time_ms) VALUES ('x', 0)")


def test_syncing_twice_uploads_each_answer_once(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    store, clock = device(tmp_path, "laptop")
    study(store, clock, [GOOD, HARD, GOOD, AGAIN])
    first = sync(store, pg.url(ana))
    again = sync(store, pg.url(ana))
    assert (first.uploaded, first.pulled) == (4, 0)
    assert (again.uploaded, again.pulled) == (0, 0)
    assert [uid for _, uid in server_rows(pg)] == local_uids(store)
    # Forgetting what was uploaded (as if the answer to the last upload was lost) sends them again:
    # the server keeps one copy of each.
    with store.guarded():
        store.conn.execute("DELETE FROM meta WHERE key = 'sync:uploaded_log_id'")
        store.conn.commit()
    assert sync(store, pg.url(ana)).uploaded == 4
    assert len(server_rows(pg)) == 4


def test_two_devices_that_studied_offline_end_in_the_same_state(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    solo = [deck("solo", 1)]  # one card, so that both devices study the same one
    laptop, laptop_clock = device(tmp_path, "laptop", decks=solo)
    desktop, desktop_clock = device(tmp_path, "desktop", T0 + 30_000, decks=solo)
    laptop_keys = study(laptop, laptop_clock, [GOOD], solo)
    desktop_keys = study(desktop, desktop_clock, [HARD], solo)
    assert laptop_keys == desktop_keys  # the same card, studied on both, offline
    sync(laptop, pg.url(ana))
    result = sync(desktop, pg.url(ana))
    assert (result.uploaded, result.pulled) == (1, 1)
    assert sync(laptop, pg.url(ana)).pulled == 1
    assert sorted(local_uids(laptop)) == sorted(local_uids(desktop)) and len(local_uids(laptop)) == 2
    laptop_states = {row.key: row.state for row in laptop.all_items()}
    desktop_states = {row.key: row.state for row in desktop.all_items()}
    assert laptop_states == desktop_states
    # ... and that state is the whole merged history replayed in the order the answers were given
    shared = next(k for k in laptop_keys if k in desktop_keys)
    item = next(row for row in laptop.all_items() if row.key == shared)
    assert item.state.reps == laptop_keys.count(shared) + desktop_keys.count(shared)
    assert laptop.replay([item.id], merged=True)[item.id] == item.state


def test_an_answer_undone_after_a_sync_is_left_out_everywhere(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    laptop, clock = device(tmp_path, "laptop")
    session = ReviewSession(laptop, DECKS, clock=clock)
    session.next()
    session.answer(GOOD, duration_ms=1000)
    shown = session.next()
    session.answer(AGAIN, duration_ms=1000)
    sync(laptop, pg.url(ana))
    assert session.undo() is not None  # the Again, which the server already has
    sync(laptop, pg.url(ana))
    desktop, _ = device(tmp_path, "desktop")
    sync(desktop, pg.url(ana))
    assert sorted(local_uids(desktop)) == sorted(local_uids(laptop)) and len(local_uids(desktop)) == 1
    item = next(row for row in desktop.all_items() if row.key == shown.key)
    assert item.state.reps == 0
    assert len(server_rows(pg, "undone")) == 1  # nothing is deleted on the server: it is told


def test_a_newer_server_schema_is_refused_before_anything_is_written(tmp_path, pg):
    import psycopg

    (ana,), _ = server_with(pg, "ana")
    with psycopg.connect(pg.owner_url()) as owner:
        owner.execute("UPDATE studyapp.meta SET value = '99' WHERE key = 'schema_version'")
    store, clock = device(tmp_path, "laptop")
    study(store, clock, [GOOD])
    with pytest.raises(StudyappError) as raised:
        sync(store, pg.url(ana))
    assert "schema is version 99, newer than this studyapp knows" in raised.value.message
    assert server_rows(pg) == []


class CuttingProxy:
    """A TCP proxy to the server that cuts both directions after ``budget`` bytes from the client:
    a connection lost in the middle of a sync, on a real socket."""

    def __init__(self, target: tuple[str, int], budget: int) -> None:
        self.target, self.budget = target, budget
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            sent = [0]

            def pump(src, dst, counted):
                try:
                    while data := src.recv(65536):
                        if counted:
                            sent[0] += len(data)
                            if sent[0] > self.budget:
                                break
                        dst.sendall(data)
                except OSError:
                    pass
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

            threading.Thread(target=pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=pump, args=(upstream, client, False), daemon=True).start()

    def close(self) -> None:
        self.listener.close()


def test_a_connection_cut_mid_sync_loses_nothing_and_the_next_sync_completes(tmp_path, pg):
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    (ana,), _ = server_with(pg, "ana")
    store, clock = device(tmp_path, "laptop")
    study(store, clock, [GOOD] * 6 + [AGAIN] * 6)
    before = local_uids(store)
    parts = conninfo_to_dict(pg.url(ana))
    proxy = CuttingProxy((parts.get("host", "127.0.0.1"), int(parts.get("port", 5432))), budget=2500)
    try:
        cut = make_conninfo(**dict(parts, host="127.0.0.1", port=str(proxy.port)))
        with pytest.raises(StudyappError) as raised:
            sync(store, cut)
        message = raised.value.message
        head, tail = f"sync with {redacted(cut)} stopped: ", "; nothing was lost, run 'studyapp sync' again to finish"
        assert message.startswith(head) and message.endswith(tail)
        detail = message.removeprefix(head).removesuffix(tail)  # libpq's first line, of its own words
        assert "connection" in detail and "\n" not in detail
    finally:
        proxy.close()
    assert local_uids(store) == before
    assert server_rows(pg) == []  # the server's transaction never committed
    done = sync(store, pg.url(ana))
    assert done.uploaded == 12 and [uid for _, uid in server_rows(pg)] == before


def test_the_command_line_syncs_and_never_shows_a_password(tmp_path, pg):
    (ana,), _ = server_with(pg, "ana")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STUDYAPP_", "PG"))}
    env.update(STUDYAPP_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    done = run_cli(["sync", "--json", "--server", pg.url(ana)], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["learner"] == ana
    secret = "s3cret-Pa55"
    refused = run_cli(["sync", "--server", f"postgresql://{ana}:{secret}@127.0.0.1:1/nowhere"], env, cwd=tmp_path)
    assert refused.returncode == 1
    assert "cannot reach the team server" in refused.stderr and secret not in refused.stderr + refused.stdout
    (tmp_path / "home" / "config.toml").write_text(f'[sync]\nserver = "{pg.url(ana)}"\n', encoding="utf-8")
    from_config = run_cli(["sync", "--json"], env, cwd=tmp_path)
    assert from_config.returncode == 0, from_config.stderr


def test_a_schema_2_database_gets_global_ids_for_its_old_rows(tmp_path):
    """The upgrade to schema 3 gives every answer and exam already logged an id of its own."""
    import sqlite3

    from studyapp.store import schema

    store, clock = device(tmp_path, "old")
    study(store, clock, [GOOD, AGAIN, GOOD])
    path = store.path
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX review_log_uid")
    conn.execute("DROP INDEX exam_results_uid")
    conn.execute("DROP TABLE undone_log")
    conn.execute("DROP TRIGGER review_log_append_only")
    conn.execute("ALTER TABLE review_log DROP COLUMN uid")
    conn.execute("ALTER TABLE exam_results DROP COLUMN uid")
    # Schema 4's review sources (import anki) go too: this database is a schema 2 one.
    conn.execute("DROP INDEX review_log_anki")
    conn.execute("ALTER TABLE review_log DROP COLUMN anki_revlog_id")
    conn.execute("ALTER TABLE review_log DROP COLUMN source")
    # And schema 5's fitted parameters (studyapp optimize).
    conn.execute("DROP TABLE preset_parameters")
    for statement in SCHEMA_6_UNDONE:  # and schema 6's stored new-card ranks
        conn.execute(statement)
    conn.execute(schema.APPEND_ONLY_TRIGGER)
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    reopened = open_store(resolve(str(tmp_path / "old"), "default", [], environ={}), clock=clock)
    uids = local_uids(reopened)
    assert len(uids) == 3 and len(set(uids)) == 3 and all(len(uid) == 32 for uid in uids)
    with pytest.raises(sqlite3.IntegrityError):
        reopened.conn.execute("UPDATE review_log SET rating = 4")  # still append-only after the backfill
    reopened.close()


def test_report_team_reads_everyone_for_a_lead_and_only_oneself_for_a_learner(tmp_path, pg):
    (ana, bob), (lead,) = server_with(pg, "ana", "bob", leads=("lead",))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STUDYAPP_", "PG"))}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    for role, answers in ((ana, 3), (bob, 1)):
        home = tmp_path / role
        run_env = dict(env, STUDYAPP_HOME=str(home))
        store = open_store(resolve(str(home), "default", [], environ={}))
        from studyapp.core.catalog import load_paths, bundled_decks_dir

        decks = load_paths([bundled_decks_dir()]).decks[:1]
        session = ReviewSession(store, decks)
        for _ in range(answers):
            session.next()
            session.answer(GOOD, duration_ms=2000)
        store.close()
        done = run_cli(["sync", "--server", pg.url(role)], run_env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    lead_env = dict(env, STUDYAPP_HOME=str(tmp_path / "lead-home"))
    team = run_cli(["report", "--team", "--format", "json", "--server", pg.url(lead)], lead_env, cwd=tmp_path)
    assert team.returncode == 0, team.stderr
    learners = {row["profile"]: row for row in json.loads(team.stdout)["learners"]}
    assert set(learners) == {ana, bob}
    assert (learners[ana]["reviews"], learners[bob]["reviews"]) == (3, 1)
    # A learner's role sees the same table with only themself in it.
    own = run_cli(["report", "--team", "--format", "json", "--server", pg.url(bob)], lead_env, cwd=tmp_path)
    assert [row["profile"] for row in json.loads(own.stdout)["learners"]] == [bob]
    markdown = run_cli(["report", "--team", "--server", pg.url(lead)], lead_env, cwd=tmp_path)
    assert markdown.returncode == 0 and f"| {ana} |" in markdown.stdout


def _fill_log(store, count: int, start_ms: int = T0) -> None:
    """``count`` answers written straight into the log (as a long history would be), on the deck's items."""
    from studyapp.store.schema import NEW_UID_SQL, write

    with store.guarded():
        item_ids = [row[0] for row in store.conn.execute("SELECT id FROM items ORDER BY id")]
        scheduler = store.conn.execute("SELECT id FROM schedulers LIMIT 1").fetchone()
        if scheduler is None:
            store.conn.execute("INSERT INTO schedulers (version, params) VALUES ('fsrs test', '{}')")
            scheduler = store.conn.execute("SELECT id FROM schedulers LIMIT 1").fetchone()
        with write(store.conn):
            store.conn.executemany(
                "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, uid) VALUES "
                f"(?, 'cram', 3, ?, ?, 1000, 'new', 'new', 0, 0, NULL, NULL, NULL, ?, {NEW_UID_SQL})",
                [(item_ids[i % len(item_ids)], start_ms + i * 1000, start_ms + i * 1000, scheduler[0])
                 for i in range(count)])


def _per_learner(pg) -> dict[str, tuple[int, int]]:
    import psycopg

    with psycopg.connect(pg.owner_url()) as owner:
        return {learner: (rows, distinct) for learner, rows, distinct in owner.execute(
            "SELECT learner, count(*), count(DISTINCT uid) FROM studyapp.reviews GROUP BY learner")}


def test_fifty_learners_syncing_at_once_each_arrive_exactly_once(tmp_path, pg):
    from concurrent.futures import ThreadPoolExecutor

    names = [f"l{i:02d}" for i in range(50)]
    roles, _ = server_with(pg, *names)
    stores = []
    for role in roles:
        store, _ = device(tmp_path, role)
        _fill_log(store, 2000)
        stores.append(store)
    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(lambda pair: sync(pair[0], pg.url(pair[1])), zip(stores, roles)))
    assert [r.uploaded for r in results] == [2000] * 50
    assert _per_learner(pg) == {role: (2000, 2000) for role in roles}
    for store in stores:
        store.close()


def test_two_devices_of_one_learner_syncing_at_once_both_end_with_everything(tmp_path, pg):
    from concurrent.futures import ThreadPoolExecutor

    (ana,), _ = server_with(pg, "ana")
    laptop, _ = device(tmp_path, "laptop")
    desktop, _ = device(tmp_path, "desktop")
    _fill_log(laptop, 2000)
    _fill_log(desktop, 2000, T0 + 500)
    for _ in range(2):  # at once, then once more each to fetch what the other sent meanwhile
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda store: sync(store, pg.url(ana)), (laptop, desktop)))
    assert _per_learner(pg) == {ana: (4000, 4000)}
    assert sorted(local_uids(laptop)) == sorted(local_uids(desktop)) and len(local_uids(laptop)) == 4000


def test_sync_killed_at_random_moments_loses_and_duplicates_nothing(tmp_path, pg):
    import random
    import signal
    import subprocess
    import sys
    import time

    (ana,), _ = server_with(pg, "ana")
    store, _ = device(tmp_path, "laptop")
    _fill_log(store, 20000)
    before = sorted(local_uids(store))
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STUDYAPP_", "PG"))}
    env.update(STUDYAPP_HOME=str(tmp_path / "laptop"), PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    rng = random.Random(2026)
    for attempt in range(20):
        process = subprocess.Popen([sys.executable, "-m", "studyapp", "sync", "--server", pg.url(ana)], env=env,
                                   cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 1.5))  # a random moment to kill it at, not a wait for a result
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        counts = _per_learner(pg).get(ana, (0, 0))
        assert counts[0] == counts[1]  # never a duplicate, whenever it died
    done = run_cli(["sync", "--json", "--server", pg.url(ana)], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _per_learner(pg) == {ana: (20000, 20000)}
    reopened = open_store(resolve(str(tmp_path / "laptop"), "default", [], environ={}))
    assert sorted(local_uids(reopened)) == before
    assert reopened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    reopened.close()
