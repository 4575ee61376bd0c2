"""The progress store: schema and pragmas, the review log, identity of items, and every way
a database file can be wrong (each gives a message that says what to do, and nothing
stored is damaged)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import time
from dataclasses import replace
from pathlib import Path

import pytest

from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import AGAIN, EASY, GOOD, HARD, NEW_STATE, Settings
from studyapp.core.session import ReviewSession
from studyapp.store import open_store, schema
from studyapp.store.repository import Store
from studyapp.store.schema import APPLICATION_ID, SCHEMA_VERSION

from engine_support import BANK_ORDER, SETTINGS, T0, card, deck, dump, location, store_at


def _answer_some(store, clock, decks, ratings, settings=SETTINGS):
    session = ReviewSession(store, decks, clock=clock, settings=settings, presets=BANK_ORDER)
    for rating in ratings:
        shown = session.next()
        if shown is None:
            clock.advance(days=1)
            continue
        session.answer(rating, duration_ms=4000)
        clock.advance(minutes=3)
    return session


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _as_seen_by_a_user(path, mode, *args, **kwargs):
    """os.access as an unprivileged user would get it (the tests may run as root)."""
    st = os.stat(path)
    bits = {os.R_OK: stat.S_IRUSR, os.W_OK: stat.S_IWUSR, os.X_OK: stat.S_IXUSR}
    return all(st.st_mode & bit for flag, bit in bits.items() if mode & flag)


@pytest.fixture
def unprivileged(monkeypatch):
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "access", _as_seen_by_a_user)


# ---------------------------------------------------------------- schema


def test_a_new_database_has_the_promised_settings(tmp_path):
    store, _ = store_at(tmp_path)
    path = location(tmp_path).database
    assert path == tmp_path / "home" / "profiles" / "default.sqlite3"
    pragma = lambda name: store.conn.execute(f"PRAGMA {name}").fetchone()[0]
    assert pragma("journal_mode") == "wal"
    assert pragma("foreign_keys") == 1
    assert pragma("synchronous") == 2  # FULL
    assert pragma("busy_timeout") >= 5000
    assert pragma("application_id") == APPLICATION_ID
    assert pragma("user_version") == SCHEMA_VERSION
    store.close()


def test_times_are_integer_epoch_milliseconds(tmp_path):
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", 5)], [GOOD, AGAIN, GOOD, EASY])
    types = store.conn.execute(
        "SELECT DISTINCT typeof(time_ms), typeof(sched_ms), typeof(duration_ms), typeof(due_ms) FROM review_log"
    ).fetchall()
    assert types == [("integer",) * 4]
    times = [t for (t,) in store.conn.execute("SELECT time_ms FROM review_log")]
    assert all(T0 <= t < T0 + 86_400_000 for t in times)


def test_each_answer_logs_state_interval_and_scheduler(tmp_path):
    store, clock = store_at(tmp_path)
    session = ReviewSession(store, [deck("a", 3)], clock=clock, settings=SETTINGS)
    shown = session.next()
    applied = session.answer(HARD, duration_ms=2500)
    (entry,) = store.history(shown.item_id)
    assert (entry.kind, entry.rating, entry.duration_ms) == ("review", HARD, 2500)
    assert (entry.state_before, entry.state_after) == ("new", "learning")
    assert entry.interval == -applied.interval_secs == -330
    assert entry.time_ms == entry.sched_ms == T0
    version, params = store.conn.execute("SELECT version, params FROM schedulers WHERE id = ?",
                                         (entry.scheduler_id,)).fetchone()
    assert version == "fsrs rs-0.9.3"
    params = json.loads(params)
    assert params["desired_retention"] == 0.9 and params["timezone"] == "Europe/Berlin"
    assert params["rollover_hour"] == 4 and len(params["parameters"]) == 21


def test_the_review_log_is_append_only(tmp_path):
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", 2)], [GOOD])
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("UPDATE review_log SET rating = 4")


def test_replaying_the_log_gives_the_stored_state(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("x"), card("y", "reverse"), card("z", "cloze", clozes=3)]), deck("b", 6)]
    ratings = [GOOD, AGAIN, HARD, EASY, GOOD, GOOD, AGAIN, GOOD] * 12
    _answer_some(store, clock, decks, ratings)
    clock.advance(days=3)
    _answer_some(store, clock, decks, ratings)
    # A revision bump restarts one item; the replay must see that too.
    changed = [deck("a", [card("x", revision=2), card("y", "reverse"), card("z", "cloze", clozes=3)]), decks[1]]
    _answer_some(store, clock, changed, [GOOD, GOOD])
    rebuilt = store.rebuild_states()
    stored = store.stored_states()
    assert len(rebuilt) >= 8
    assert {k: stored[k] for k in rebuilt} == rebuilt


def test_settings_are_kept_in_the_database(tmp_path):
    store, _ = store_at(tmp_path)
    assert store.load_settings() == Settings()
    mine = Settings(desired_retention=0.85, new_per_day=7, timezone="Asia/Tokyo")
    store.save_settings(mine)
    store.close()
    store, _ = store_at(tmp_path)
    assert store.load_settings() == mine
    store.conn.execute("UPDATE settings SET json = '{\"desired_retention\": 0.4}'")
    with pytest.raises(StudyappError, match="0.70 to 0.99"):
        store.load_settings()


# ---------------------------------------------------------------- identity


def test_editing_text_keeps_progress_and_a_new_revision_restarts(tmp_path):
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", [card("q1"), card("q2")])], [EASY, EASY])
    before = store.item("a/q1/main").state
    assert before.state == "review"
    edited = deck("a", [card("q1", front="Reworded question?"), card("q2", revision=3)])
    ReviewSession(store, [edited], clock=clock, settings=SETTINGS)
    assert store.item("a/q1/main").state == before
    restarted = store.item("a/q2/main")
    assert restarted.state == NEW_STATE and restarted.revision == 3
    kinds = [e.kind for e in store.history(restarted.id)]
    assert kinds == ["review", "reset"]


def test_progress_of_cards_that_leave_a_deck_is_kept(tmp_path):
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", [card("q1"), card("q2")])], [EASY, EASY])
    kept = store.item("a/q2/main")
    session = ReviewSession(store, [deck("a", [card("q1")])], clock=clock, settings=SETTINGS)
    gone = store.item("a/q2/main")
    assert not gone.present and gone.state == kept.state
    assert all(key != "a/q2/main" for key, _ in session.upcoming())
    ReviewSession(store, [deck("a", [card("q1"), card("q2")])], clock=clock, settings=SETTINGS)
    back = store.item("a/q2/main")
    assert back.present and back.state == kept.state


def test_reviews_due_read_whole_gives_the_rows_the_reads_by_id_give(tmp_path):
    """``reviews_due(whole=True)`` (every due row in full, sorted in Python) returns exactly what the
    read of ids and then rows by id returns, for any first row and count: due days, ranks within a
    day, a hidden item left out."""
    import random

    from studyapp.core.queue import rank

    store, clock = store_at(tmp_path)
    ReviewSession(store, [deck("a", 80), deck("b", 40)], clock=clock, settings=SETTINGS)
    rng = random.Random(3)
    now = clock.now_ms()
    day_ms = 86_400_000
    with store.guarded():
        for (item_id,) in store.conn.execute("SELECT id FROM items ORDER BY id").fetchall():
            due = now - rng.randrange(0, 6) * day_ms + rng.randrange(-5, 5) * 3_600_000
            store.conn.execute("UPDATE items SET queue = 2, state = 'review', stability = 9, difficulty = 5, "
                               "due_ms = ?, last_review_ms = ?, interval = 5, reps = 2, suspended = ? WHERE id = ?",
                               (due, due - 5 * day_ms, int(item_id % 17 == 0), item_id))
    days = ReviewSession(store, [deck("a", 80), deck("b", 40)], clock=clock, settings=SETTINGS).scheduler.days
    today = days.day_of(now)
    end = days.end_ms(today)
    every = store.reviews_due(["a", "b"], end, today, 1000, day_of=days.day_of, seed=11)
    assert 90 < len(every) < 120  # a few due tomorrow, the suspended ones left out
    assert [(days.day_of(r.state.due_ms), rank(11, r.key)) for r in every] == sorted(
        (days.day_of(r.state.due_ms), rank(11, r.key)) for r in every)
    for limit, offset in [(1000, 0), (len(every), 0), (10, 0), (7, 30), (50, len(every) - 3), (5, 500)]:
        for decks in (["a", "b"], ["b"]):
            by_id = store.reviews_due(decks, end, today, limit, offset, day_of=days.day_of, seed=11)
            whole = store.reviews_due(decks, end, today, limit, offset, day_of=days.day_of, seed=11, whole=True)
            assert whole == by_id, (limit, offset, decks)


@pytest.mark.parametrize("reads", ["reader", "this thread"])
@pytest.mark.parametrize("change", ["none", "revision", "moved", "removed", "added", "reverse", "cloze", "left",
                                    "empty", "shifted", "stored-revision"])
def test_a_deck_without_its_fingerprint_is_compared_item_by_item(tmp_path, monkeypatch, change, reads):
    """Without a stored fingerprint (a profile written before fingerprints, or the decks changed),
    sync compares every stored item with the deck: only an exact match skips the diff, and any
    difference gives the same rows as a profile that never saw the old deck synced afresh. The
    decks' rows are read by the second thread (a group_concat) or by this one (row by row, for
    the decks the other has not reached): each way, all of them."""
    import threading

    aside = Store._aside

    def reader_first(self, work, name):
        if reads == "this thread":  # a reader that never reached a deck
            worker = threading.Thread(target=lambda: None)
            worker.start()
        else:
            worker = aside(self, work, name)
            worker.join()  # every deck read before this thread looks
        used.append(name)
        return worker

    used: list[str] = []

    old = [card("q1"), card("q2", "reverse"), card("q3", "cloze", clozes=3), card("q4")]
    new = {"none": old, "revision": [old[0], old[1], old[2], card("q4", revision=2)],
           "moved": [old[1], old[0], old[2], old[3]], "removed": old[:3], "added": [*old, card("q5")],
           "reverse": [card("q1", "reverse"), *old[1:]], "cloze": [*old[:2], card("q3", "cloze", clozes=2), old[3]],
           "left": old, "empty": [], "shifted": old, "stored-revision": old}[change]
    store, clock = store_at(tmp_path / "one")
    # Two decks without fingerprints: their rows are read on a second connection while the
    # fingerprints are made (Store._read_sync_rows_aside); "b" stays in step.
    ReviewSession(store, [deck("a", old), deck("b", 3)], clock=clock, settings=SETTINGS)
    if change == "left":  # stored as gone, though the deck still has it
        store.conn.execute("UPDATE items SET present = 0 WHERE key = 'a/q2/backward'")
    if change == "shifted":  # a stored position off by one, every key in its place
        store.conn.execute("UPDATE items SET position = position + 1 WHERE key = 'a/q4/main'")
    if change == "stored-revision":
        store.conn.execute("UPDATE items SET revision = 7 WHERE key = 'a/q1/main'")
    store.conn.execute("DELETE FROM meta WHERE key LIKE 'sync:%'")
    writes = store.writes
    monkeypatch.setattr(Store, "_aside", reader_first)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    ReviewSession(store, [deck("a", new), deck("b", 3)], clock=clock, settings=SETTINGS)
    store.conn.set_trace_callback(None)
    monkeypatch.undo()
    assert used == ["sync-rows"]
    diffed = [s for s in statements if s.startswith("SELECT key, id, revision, position, present FROM items")]
    assert len(diffed) == (change != "none")  # decks found in step are not diffed, whoever read them
    assert (store.writes - writes == 1) == (change == "none")  # only the fingerprints, when in step
    fresh, _ = store_at(tmp_path / "two")
    ReviewSession(fresh, [deck("a", new), deck("b", 3)], clock=clock, settings=SETTINGS)
    columns = "key, revision, position, present"
    query = f"SELECT {columns} FROM items WHERE present = 1 ORDER BY key"
    assert store.conn.execute(query).fetchall() == fresh.conn.execute(query).fetchall()


# ---------------------------------------------------------------- files that are not right


def test_a_new_database_another_process_holds_opens_once_it_lets_go(tmp_path):
    """Two processes creating the same new database: switching it to WAL needs the file to itself,
    and SQLite refused at once while the other held a lock (busy_timeout or not), so one of them
    failed saying the file "stayed busy for 10 s" (tests/test_durability.py's two processes, now
    and then). The switch now waits for the other, as every other lock does."""
    import threading

    from studyapp.core.clock import FakeClock

    path = tmp_path / "home" / "profiles" / "default.sqlite3"
    path.parent.mkdir(parents=True)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # the lock a creating process holds, on a file not yet WAL
    released = threading.Event()

    def let_go() -> None:
        time.sleep(0.3)
        other.execute("COMMIT")
        released.set()

    letting_go = threading.Thread(target=let_go)
    letting_go.start()
    store = open_store(location(tmp_path), clock=FakeClock(T0))
    letting_go.join()
    other.close()
    assert released.is_set()
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()


def test_a_missing_home_folder_is_created(tmp_path):
    store, _ = store_at(tmp_path / "not" / "yet")
    assert (tmp_path / "not" / "yet" / "home" / "profiles" / "default.sqlite3").exists()
    store.close()


def test_a_home_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "home").write_text("oops")
    with pytest.raises(StudyappError, match="Not a directory.*--home DIR or STUDYAPP_HOME"):
        store_at(tmp_path)


def _existing(tmp_path) -> Path:
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", 30)], [GOOD] * 40)
    store.close()  # checkpoints the WAL into the file
    return location(tmp_path).database


def _refused(tmp_path, path: Path, *words: str) -> StudyappError:
    digest = _digest(path)
    with pytest.raises(StudyappError) as caught:
        store_at(tmp_path)
    for word in words:
        assert word in caught.value.message
    assert _digest(path) == digest, "the file was changed"
    return caught.value


def test_a_text_file_is_not_taken_for_a_database(tmp_path):
    path = location(tmp_path).database
    path.parent.mkdir(parents=True)
    path.write_text("name,score\nada,10\n" * 20)
    error = _refused(tmp_path, path, "is not a studyapp progress database", "--profile")
    assert error.format().startswith("studyapp: error: ")


def test_another_programs_sqlite_database_is_left_alone(tmp_path):
    path = location(tmp_path).database
    path.parent.mkdir(parents=True)
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    other.execute("INSERT INTO notes (body) VALUES ('keep me')")
    other.commit()
    other.close()
    _refused(tmp_path, path, "not a studyapp progress database", "another program")
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_another_application_id_is_left_alone(tmp_path):
    path = location(tmp_path).database
    path.parent.mkdir(parents=True)
    other = sqlite3.connect(path)
    other.execute("PRAGMA application_id = 1234")
    other.execute("CREATE TABLE t (x)")
    other.commit()
    other.close()
    _refused(tmp_path, path, "application id 0x4d2")


def test_a_truncated_database_is_reported(tmp_path):
    path = _existing(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    error = _refused(tmp_path, path, "damaged", "truncated", "SQLite:",
                     "copy default.sqlite3, default.sqlite3-wal and default.sqlite3-shm")
    assert "move the file away" not in error.message  # that would throw the -wal file's answers away


def test_a_corrupted_database_is_reported(tmp_path):
    path = _existing(tmp_path)
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page * 2, min(len(data), page * 6), 7):  # scribble over a few pages
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    _refused(tmp_path, path, "damaged", "restore a backup", "copy default.sqlite3")


def test_a_newer_schema_is_left_untouched(tmp_path):
    path = _existing(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    _refused(tmp_path, path, "newer studyapp", "Upgrade studyapp")


def test_a_read_only_database_is_reported(tmp_path, unprivileged):
    path = _existing(tmp_path)
    path.chmod(0o444)
    try:
        _refused(tmp_path, path, "read-only", "--home")
    finally:
        path.chmod(0o644)


def test_a_read_only_home_folder_is_reported(tmp_path, unprivileged):
    folder = tmp_path / "home" / "profiles"
    folder.mkdir(parents=True)
    folder.chmod(0o555)
    try:
        with pytest.raises(StudyappError, match="read-only.*--home DIR or STUDYAPP_HOME"):
            store_at(tmp_path)
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_a_full_disk_loses_nothing_and_says_so(tmp_path):
    store, clock = store_at(tmp_path)
    plenty = replace(SETTINGS, new_per_day=1000)
    session = _answer_some(store, clock, [deck("a", 1000)], [GOOD] * 5, settings=plenty)
    # SQLite reports a full disk when the file may not grow: the same code path as ENOSPC.
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    before = dump(store)
    shown = session.next()
    failed = None
    for _ in range(300):
        try:
            session.answer(GOOD, duration_ms=1000)
        except StudyappError as error:
            failed = error
            break
        before = dump(store)
        shown = session.next()
    assert failed is not None and "disk holding" in failed.message and "full" in failed.message
    assert dump(store) == before
    assert session.next() == shown  # the same item, same buttons, still waiting for its answer
    store.conn.execute(f"PRAGMA max_page_count = {pages * 100}")
    session.answer(GOOD, duration_ms=1000)
    assert store.integrity_check() == ["ok"]


# ---------------------------------------------------------------- migrations


def test_a_migration_backs_up_first_and_keeps_everything(tmp_path, monkeypatch):
    path = _existing(tmp_path)
    log_rows = sqlite3.connect(path).execute("SELECT count(*) FROM review_log").fetchone()[0]

    def add_column(conn):
        conn.execute("ALTER TABLE items ADD COLUMN note TEXT")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION, add_column)
    store, _ = store_at(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    assert store.conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == log_rows
    store.conn.execute("SELECT note FROM items LIMIT 1")
    (backup,) = path.parent.glob(f"{path.name}.schema{SCHEMA_VERSION}-*.bak")
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert old.execute("SELECT count(*) FROM review_log").fetchone()[0] == log_rows


def test_a_failed_migration_changes_nothing(tmp_path, monkeypatch):
    path = _existing(tmp_path)
    items_before = sqlite3.connect(path).execute("SELECT * FROM items ORDER BY id").fetchall()

    def broken(conn):
        conn.execute("DELETE FROM items")
        raise RuntimeError("bug in migration")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION, broken)
    with pytest.raises(StudyappError, match="left as it was"):
        store_at(tmp_path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT * FROM items ORDER BY id").fetchall() == items_before


# ---------------------------------------------------------------- two connections


def test_two_windows_answering_the_same_item_chain_their_answers(tmp_path):
    first, clock = store_at(tmp_path)
    second = open_store(location(tmp_path), clock=clock)
    decks = [deck("a", 1)]
    one = ReviewSession(first, decks, clock=clock, settings=SETTINGS)
    two = ReviewSession(second, decks, clock=clock, settings=SETTINGS)
    assert one.next().key == two.next().key
    one.answer(GOOD)
    clock.advance(seconds=5)
    two.answer(GOOD)  # computed from the state the first window left, not from a stale one
    item = first.item("a/c000/main")
    assert item.state.reps == 2
    assert [e.rating for e in first.history(item.id)] == [GOOD, GOOD]
    assert first.rebuild_states()[item.id] == item.state


def test_an_answer_checks_every_column_of_the_row_it_was_shown(tmp_path):
    """The answer's update applies only where the stored row is the one shown (in place of reading
    it again): its column list is ITEM_COLUMNS, and a row changed in another window meanwhile is read
    again, so that the row kept for undo is the stored one."""
    from studyapp.store.repository import ITEM_COLUMNS, _row_to_item, _row_values

    first, clock = store_at(tmp_path)
    second = open_store(location(tmp_path), clock=clock)
    decks = [deck("a", 3)]
    one = ReviewSession(first, decks, clock=clock, settings=SETTINGS)
    one.next()
    one.answer(AGAIN)
    second.set_status(first.item("a/c001/main").id, suspended=True)
    shown = one.next()
    assert shown.key == "a/c002/main" and shown.flag_note is None
    second.set_status(shown.item_id, flag_note="unclear", flagged_ms=T0 + 1)  # while it is on screen
    one.answer(GOOD)
    assert first.item(shown.key).state == shown.previews[GOOD].after
    one.undo()  # back to the row as stored before the answer: the other window's flag kept
    restored = first.item(shown.key)
    assert restored.state == shown.state and restored.flag_note == "unclear" and restored.flagged_ms == T0 + 1
    for row in first.all_items():  # learning, new, suspended, flagged
        values = (row.id, *_row_values(row))
        assert len(values) == len(ITEM_COLUMNS.split(","))
        assert _row_to_item(values) == row


def test_answers_that_keep_the_state_store_the_same_row_as_those_that_change_it(tmp_path):
    """An answer that keeps the item's state (learning to learning, review to review) updates
    fewer columns; the rows stored, and a queue column out of step with the state, come out as
    a full update leaves them."""
    from studyapp.store.repository import _SET_STATE, QUEUE_OF_STATE

    assert _SET_STATE.startswith("queue = ?, state = ?, ")
    store, clock = store_at(tmp_path)
    session = ReviewSession(store, [deck("a", 2)], clock=clock, settings=SETTINGS)
    states = []
    for rating in (AGAIN, GOOD, GOOD, EASY, GOOD, HARD, AGAIN, GOOD):
        shown = session.next()
        if shown is None:
            clock.advance(days=30)
            shown = session.next()
        if rating == HARD:  # the queue column out of step with the state: the row is read again
            with store.guarded():
                store.conn.execute("UPDATE items SET queue = 0 WHERE id = ?", (shown.item_id,))
        applied = session.answer(rating)
        stored = store.item(shown.key)
        assert stored.state == applied.after
        with store.guarded():
            assert store.conn.execute("SELECT queue FROM items WHERE id = ?", (stored.id,)).fetchone()[0] \
                == QUEUE_OF_STATE[stored.state.state]
        states.append((shown.state.state, stored.state.state))
        clock.advance(minutes=15)
    assert {("learning", "learning"), ("review", "review")} <= set(states)
    assert store.rebuild_states() == {row.id: row.state for row in store.all_items()}


# ---------------------------------------------------------------- read-only figures for list and stats


def _answered_keys(home) -> set[str]:
    import sqlite3

    conn = sqlite3.connect(home / "profiles" / "default.sqlite3")
    try:
        return {k for (k,) in conn.execute("SELECT DISTINCT i.key FROM review_log r JOIN items i ON i.id = r.item_id")}
    finally:
        conn.close()


def test_list_counts_without_touching_a_missing_database(tmp_path):
    from studyapp.store.summary import deck_counts

    decks = [deck("a", 4), deck("b", [card("r", "reverse")]), deck("c", 21)]
    # (new within today's limit, learning, due): 20 new a day by default, one side of a reverse card.
    assert deck_counts(decks, location(tmp_path)) == {"a": (4, 0, 0), "b": (1, 0, 0), "c": (20, 0, 0)}
    assert not (tmp_path / "home").exists()


def test_list_counts_new_items_from_the_database(tmp_path):
    from studyapp.store.summary import deck_counts

    store, clock = store_at(tmp_path)
    decks = [deck("a", 6), deck("b", 2)]
    _answer_some(store, clock, decks, [GOOD, EASY, AGAIN])
    store.close()
    counts = deck_counts(decks, location(tmp_path))
    # Read at the wall clock, months after the fake clock's answers: c000 (Good) and c002 (Again)
    # are learning and due, c001 (Easy) is a review due; three new are left in a, two in b.
    assert counts == {"a": (3, 2, 1), "b": (2, 0, 0)}


def test_stats_json_has_the_contract_shape(tmp_path, capsys, monkeypatch):
    from studyapp.cli import main
    from studyapp.core.catalog import discover

    home = tmp_path / "home"
    bundled = discover().decks
    target = bundled[0]
    store, clock = store_at(tmp_path)
    # The learner's machine clock: today's figures are computed at the wall-clock time.
    from studyapp.core.clock import SystemClock

    clock.set(SystemClock().now_ms() - 3_600_000)
    _answer_some(store, clock, [target], [AGAIN, GOOD, GOOD, EASY, HARD, GOOD])
    store.close()
    monkeypatch.delenv("STUDYAPP_DECKS", raising=False)
    assert main(["stats", target.id, "--json", "--home", str(home)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"reviews", "decks", "retention_by_span"}
    (row,) = document["decks"]
    contract = {"id", "items", "new", "learning", "review", "due", "reviews", "retention"}
    assert contract <= set(row) and set(row) - contract == {"retention_young", "retention_mature", "unseen",
                                                            "retention_by_span"}
    assert set(row["retention_by_span"]) == set(document["retention_by_span"]) == {"day", "week", "month", "year"}
    assert row["id"] == target.id and row["items"] == len(target.items())
    assert document["reviews"] == row["reviews"] == 6
    # True Retention: six answers, but all to new items or short learning steps: none counts.
    assert row["retention"] is None and row["retention_young"] is None and row["retention_mature"] is None
    studied = len({k for k in _answered_keys(home)})
    assert row["unseen"] == row["items"] - studied
    assert main(["stats", "--home", str(home)]) == 0
    table = capsys.readouterr().out
    assert target.id in table and "RETENTION" in table


def test_list_counts_cards_added_since_the_last_session_one_item_a_card(tmp_path):
    from studyapp.store.summary import deck_counts

    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", 2)], [EASY])
    store.close()
    grown = deck("a", [card("c000"), card("c001"), card("r", "reverse"), card("z", "cloze", clozes=3)])
    # c001 is stored and new; r and z are not stored yet: one item each can come today.
    assert deck_counts([grown], location(tmp_path))["a"][0] == 3


def test_an_older_databases_retired_index_is_dropped_and_the_queue_stays_the_same(tmp_path):
    """items_queue_due (queue, due_ms) is gone from new databases, and an older database that has
    it loses it on its next writable open (a read-only one leaves it): an answer then moves one
    due index entry, not two. The due reviews come out in the same order either way."""
    store, clock = store_at(tmp_path)
    decks = [deck("a", 4), deck("b", 4)]
    _answer_some(store, clock, decks, [GOOD, GOOD, EASY, EASY, GOOD, EASY, HARD, EASY] * 3)
    clock.advance(days=40)
    path = store.path

    def indexes(conn) -> set[str]:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}

    # The day's reviews in due order, as the store reads them: on which index.
    due_in_order = ("EXPLAIN QUERY PLAN SELECT id FROM items WHERE queue = 2 AND due_ms < ? AND deck_id IN ('a', 'b') "
                    "AND present = 1 AND suspended = 0 AND buried_day < ? ORDER BY due_ms, id")

    def plan(conn) -> str:
        return " ".join(row[3] for row in conn.execute(due_in_order, (clock.now_ms(), 0)))

    assert "items_queue_due" not in indexes(store.conn) and "items_deck_due" in indexes(store.conn)
    store.conn.execute("CREATE INDEX items_queue_due ON items (queue, due_ms)")  # as schema 6 made it
    assert "items_queue_due" in plan(store.conn)
    order = [shown.key for shown in _shown_in_turn(store, clock, decks)]
    store.close()
    with open_store(location(tmp_path), clock=clock, readonly=True) as reader:
        assert "items_queue_due" in indexes(reader.conn)
    reopened = open_store(location(tmp_path), clock=clock)
    assert reopened.path == path and "items_queue_due" not in indexes(reopened.conn)
    assert "items_deck_due" in plan(reopened.conn)
    assert [shown.key for shown in _shown_in_turn(reopened, clock, decks)] == order and len(order) > 4
    reopened.close()


def _ephemeral_in(conn, sql: str, args: tuple) -> bool:
    """Whether SQLite builds a temporary index to run ``sql`` (as it does for an IN list of three values)."""
    return any(row[1] == "OpenEphemeral" for row in conn.execute(f"EXPLAIN {sql}", args))


_LOG_INSERT = ("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
               "interval, last_interval, scheduler_id) VALUES (?, ?, 3, 0, 0, 0, 'new', 'review', 1, 0, ?)")
_STATE_UPDATE = "UPDATE items SET state = ? WHERE id = ?"


def _checks_as_an_older_studyapp_wrote_them(conn) -> dict[str, str]:
    """Put the IN-list CHECKs back into a new database's schema; returns the schema text as it was."""
    new_sql = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')"))
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    for table, (old, new) in schema.OLD_CHECKS.items():
        assert new in new_sql[table]
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?", (new_sql[table].replace(new, old), table))
    conn.execute(f"PRAGMA schema_version = {version + 1}")
    conn.execute("PRAGMA writable_schema = OFF")
    return new_sql


def test_an_older_databases_in_list_checks_become_or_chains_that_keep_the_same_rules(tmp_path):
    """Older databases hold the log's kind and the item's state CHECKs as IN lists, which SQLite
    evaluates by building a temporary index for every row written (every answer). Their next
    writable open rewrites the two CHECKs as the schema now writes them; a read-only open leaves
    them. The rules stay: a wrong kind or state is still refused, and every row is kept."""
    store, clock = store_at(tmp_path)
    _answer_some(store, clock, [deck("a", 3)], [GOOD, AGAIN, EASY])
    path = store.path
    fresh_sql = dict(store.conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')"))
    item_id, scheduler_id = store.conn.execute("SELECT item_id, scheduler_id FROM review_log LIMIT 1").fetchone()
    assert not _ephemeral_in(store.conn, _LOG_INSERT, (item_id, "review", scheduler_id))
    assert not _ephemeral_in(store.conn, _STATE_UPDATE, ("review", item_id))
    assert _checks_as_an_older_studyapp_wrote_them(store.conn) == fresh_sql
    before = dump(store)
    store.close()

    # Not through the store: SQLite leaves CHECKs out of a read-only connection's code. (No statement
    # cache: a cached EXPLAIN would not see the schema change.)
    raw = sqlite3.connect(path, cached_statements=0)
    assert _ephemeral_in(raw, _LOG_INSERT, (item_id, "review", scheduler_id))
    assert _ephemeral_in(raw, _STATE_UPDATE, ("review", item_id))
    with open_store(location(tmp_path), clock=clock, readonly=True) as reader:
        assert dict(reader.conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')")) \
            != fresh_sql
    reopened = open_store(location(tmp_path), clock=clock)
    assert reopened.path == path
    settled = dict(reopened.conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')"))
    assert settled == fresh_sql
    assert not _ephemeral_in(reopened.conn, _LOG_INSERT, (item_id, "review", scheduler_id))
    assert not _ephemeral_in(reopened.conn, _STATE_UPDATE, ("review", item_id))
    # A connection open across the rewrite reads the schema again at its next statement.
    assert raw.execute("SELECT count(*) FROM review_log").fetchone()[0] == len(before[1])
    assert not _ephemeral_in(raw, _LOG_INSERT, (item_id, "review", scheduler_id))
    assert dump(reopened) == before
    assert reopened.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn = reopened.conn
    conn.execute("BEGIN IMMEDIATE")
    for wrong in ((_LOG_INSERT, (item_id, "revue", scheduler_id)), (_STATE_UPDATE, ("forgotten", item_id))):
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(*wrong)
    for right in ((_LOG_INSERT, (item_id, "cram", scheduler_id)), (_STATE_UPDATE, ("relearning", item_id))):
        assert conn.execute(*right).rowcount == 1
    conn.execute("ROLLBACK")
    settled_version = reopened.conn.execute("PRAGMA schema_version").fetchone()[0]
    raw.close()
    reopened.close()
    again = open_store(location(tmp_path), clock=clock)  # nothing left to do: the schema stays as it is
    assert again.conn.execute("PRAGMA schema_version").fetchone()[0] == settled_version
    again.close()


def test_where_sqlite_refuses_to_rewrite_the_checks_the_database_opens_as_it_is(tmp_path, monkeypatch):
    """A SQLite that forbids writing the schema (defensive mode; here an authorizer refusing
    writes to sqlite_master) leaves the older IN lists in place: the store opens, answers, and
    the rules hold."""
    store, clock = store_at(tmp_path)
    _checks_as_an_older_studyapp_wrote_them(store.conn)
    store.close()
    refused = []

    def no_schema_writes(action, table, *_):
        if action == sqlite3.SQLITE_UPDATE and table in ("sqlite_master", "sqlite_schema"):
            refused.append(table)
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    connect = schema.connect

    def guarded_connect(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_authorizer(no_schema_writes)
        return conn

    monkeypatch.setattr(schema, "connect", guarded_connect)
    reopened = open_store(location(tmp_path), clock=clock)
    assert refused
    stored = dict(reopened.conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')"))
    assert all(old in stored[table] for table, (old, _) in schema.OLD_CHECKS.items())
    assert not reopened.conn.in_transaction
    _answer_some(reopened, clock, [deck("a", 2)], [GOOD, AGAIN])
    assert reopened.conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == 2
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        reopened.conn.execute("UPDATE items SET state = 'forgotten' WHERE id = 1")
    reopened.close()


def test_a_rewritten_check_sqlite_cannot_parse_is_rolled_back(tmp_path, monkeypatch):
    """Were the new text of a CHECK ever wrong, the rewrite fails inside its transaction and is
    rolled back: the database keeps its IN lists and opens, instead of every later open failing
    on a schema SQLite cannot read."""
    store, clock = store_at(tmp_path)
    _checks_as_an_older_studyapp_wrote_them(store.conn)
    store.close()
    old, _ = schema.OLD_CHECKS["items"]
    monkeypatch.setitem(schema.OLD_CHECKS, "items", (old, "CHECK (state = 'new' OR"))  # cut short
    reopened = open_store(location(tmp_path), clock=clock)
    assert not reopened.conn.in_transaction
    stored = dict(reopened.conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('items', 'review_log')"))
    assert all(old in stored[table] for table, (old, _) in schema.OLD_CHECKS.items())
    _answer_some(reopened, clock, [deck("a", 2)], [GOOD])
    reopened.close()
    fresh = sqlite3.connect(location(tmp_path).home / "profiles" / "default.sqlite3")
    assert fresh.execute("SELECT count(*) FROM review_log").fetchone()[0] == 1
    fresh.close()


def _shown_in_turn(store, clock, decks) -> list:
    """Every item a session shows today, each buried once shown (nothing is answered)."""
    session = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
    shown = []
    while (item := session.next()) is not None:
        shown.append(item)
        session.bury()
    for _ in shown:
        session.undo()
    return shown


def test_a_buried_review_is_not_counted_as_due_anywhere(tmp_path):
    """One visibility rule (present, not suspended, not buried today) for the queue, the deck
    list and the stats table: a learner who buries a due review sees one fewer everywhere."""
    from studyapp.store.summary import deck_figures

    store, clock = store_at(tmp_path)
    decks = [deck("a", 2)]
    _answer_some(store, clock, decks, [EASY, EASY])  # both graduate to review
    clock.advance(days=30)  # both due
    session = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
    assert [(row.due, row.review) for row in session.deck_progress()] == [(2, 2)]
    buried = session.next().key
    session.bury()
    # Still two items in the review state, one of them due today.
    assert [(row.due, row.review) for row in session.deck_progress()] == [(1, 2)]
    assert session.next().key != buried
    store.close()
    figures = deck_figures(decks, location(tmp_path), clock=clock)["a"]
    assert (figures["due"], figures["review"]) == (1, 2)


def test_decks_without_fingerprints_have_their_rows_read_aside_and_found_in_step(tmp_path, monkeypatch):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("q1"), card("q2", "reverse"), card("q3", "cloze", clozes=3)]), deck("b", 4), deck("c", 0)]
    ReviewSession(store, decks, clock=clock, settings=SETTINGS)
    store.conn.execute("DELETE FROM meta WHERE key LIKE 'sync:%'")
    seen = []
    in_step = Store._in_step

    def spy(self, deck, read=None):
        seen.append((deck.id, read is not None and deck.id in read, in_step(self, deck, read)))
        return seen[-1][2]

    monkeypatch.setattr(Store, "_in_step", spy)
    writes = store.writes
    store.sync(decks)
    assert sorted(seen) == [("a", True, True), ("b", True, True), ("c", True, True)]
    assert store.writes - writes == 1
    # A deck that differs is found so from the rows read aside too.
    seen.clear()
    store.conn.execute("DELETE FROM meta WHERE key LIKE 'sync:%'")
    changed = [deck("a", [card("q1"), card("q2", "reverse")]), *decks[1:]]
    store.sync(changed)
    assert sorted(seen) == [("a", True, False), ("b", True, True), ("c", True, True)]
    assert store.stored_keys("a") == {"a/q1/main", "a/q2/forward", "a/q2/backward"}


def test_a_row_read_is_the_item_its_constructors_make():
    """_row_to_item fills ItemRow and ItemState through their slots (a quarter of opening a session
    went into their __init__): every field lands where the constructors put it, flags as bools."""
    from studyapp.core.scheduler import ItemState
    from studyapp.store.repository import ItemRow, _row_to_item

    rows = [(1, "d/c/main", "d", "c", "main", 2, 3000, 1, "review", None, 4.5, 6.25, 10, 20, 7, 3, 1, 1, 0, 5, "n", 9),
            (2, "d/e/c1", "d", "e", "c1", 1, 0, 0, "learning", 1, None, None, None, None, -600, 0, 0, 0, 1, 0, None,
             None)]
    for row in rows:
        (id_, key, deck_id, card_id, variant, revision, position, present, state, step, stability, difficulty,
         due_ms, last_review_ms, interval, reps, lapses, leech, suspended, buried_day, flag_note, flagged_ms) = row
        made = ItemRow(id_, key, deck_id, card_id, variant, revision, position, bool(present),
                       ItemState(state=state, step=step, stability=stability, difficulty=difficulty, due_ms=due_ms,
                                 last_review_ms=last_review_ms, interval=interval, reps=reps, lapses=lapses,
                                 leech=bool(leech)),
                       bool(suspended), buried_day, flag_note, flagged_ms)
        read = _row_to_item(row)
        assert read == made and repr(read) == repr(made)
        assert type(read.present) is bool and type(read.suspended) is bool and type(read.state.leech) is bool
