"""Store.data_version's shortcut through SQLite's WAL-index header (store/walindex.py): a
commit by anyone else is always seen; the store's own answer alone costs no read transaction."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studyapp.core.scheduler import GOOD
from studyapp.core.session import ReviewSession
from studyapp.store import walindex

from engine_support import SETTINGS, deck, store_at


def _session(tmp_path):
    store, clock = store_at(tmp_path)
    return ReviewSession(store, [deck("a", 20)], clock=clock, settings=SETTINGS), store, clock


def _statements(store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def _other_commit(store, value: str = "x") -> None:
    """A commit through another connection of this process."""
    other = sqlite3.connect(store._file, isolation_level=None)
    try:
        other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('walindex-test', ?)", (value,))
    finally:
        other.close()


def _answer(session, clock) -> None:
    session.next()
    session.answer(GOOD)
    clock.advance(seconds=10)


def test_the_stores_own_answer_needs_no_read_transaction(tmp_path):
    session, store, clock = _session(tmp_path)
    assert store._wal_index is not None
    _answer(session, clock)
    version, writes = store.data_version()
    _answer(session, clock)
    statements = _statements(store)
    assert store.data_version() == (version, writes + 1)  # SQLite's part unchanged, the store's own count moved
    assert statements == []


def test_another_connections_commit_is_seen(tmp_path):
    session, store, clock = _session(tmp_path)
    _answer(session, clock)
    before = store.data_version()
    _other_commit(store)
    statements = _statements(store)
    after = store.data_version()
    assert after[0] != before[0] and after[1] == before[1]
    assert statements == ["PRAGMA data_version"]
    assert store.data_version() == after  # and seen once: the header is as seen again


def test_another_processs_commit_is_seen(tmp_path):
    session, store, clock = _session(tmp_path)
    _answer(session, clock)
    before = store.data_version()
    code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
            "c.execute(\"INSERT OR REPLACE INTO meta (key, value) VALUES ('walindex-test', 'p')\")")
    subprocess.run([sys.executable, "-c", code, store._file], check=True)
    assert store.data_version()[0] != before[0]


def _shown_and_looked(tmp_path):
    """A session past its first answer, its next item shown: the pick has looked (data_version)."""
    session, store, clock = _session(tmp_path)
    _answer(session, clock)
    session.next()
    return session, store, store.data_version()


@pytest.mark.parametrize("when", ["before the answer", "after the answer"])
def test_a_commit_next_to_the_own_answer_is_seen(tmp_path, when):
    """Another connection's commit after the store last looked: before its answer's transaction,
    or between the answer's COMMIT and the look that follows."""
    session, store, before = _shown_and_looked(tmp_path)
    if when == "before the answer":
        _other_commit(store)
    session.answer(GOOD)
    if when == "after the answer":
        _other_commit(store)
    assert store.data_version()[0] != before[0]


def test_only_an_answer_counts_as_the_stores_own_commit(tmp_path):
    """Another write of the store may change nothing, so count no commit: the header's move
    then cannot be told from another connection's commit, and SQLite is asked."""
    session, store, clock = _session(tmp_path)
    _answer(session, clock)
    before = store.data_version()
    with store._write():
        pass  # a write transaction that changed nothing
    _other_commit(store)
    assert store.data_version()[0] != before[0]


def test_an_answer_and_a_write_of_its_own_since_the_look(tmp_path):
    session, store, before = _shown_and_looked(tmp_path)
    session.answer(GOOD)
    with store._write():  # changes a row: two commits of the store's own since the look
        store.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('walindex-own', '1')")
    statements = _statements(store)
    assert store.data_version() == (before[0], before[1] + 2)
    assert statements == ["PRAGMA data_version"]


def test_a_session_sees_an_answer_given_in_another_window(tmp_path):
    session, store, clock = _session(tmp_path)
    _answer(session, clock)
    shown = session.next()
    other_store, _ = store_at(tmp_path)
    other = ReviewSession(other_store, [deck("a", 20)], clock=clock, settings=SETTINGS)
    assert other.next().key == shown.key
    other.answer(GOOD)
    other_store.close()
    session.answer(GOOD)  # the same item, answered twice: chained, not overwritten
    clock.advance(seconds=10)
    assert session.next().key != shown.key
    assert [row for row in store.conn.execute(
        "SELECT count(*) FROM review_log JOIN items ON items.id = review_log.item_id WHERE items.key = ?",
        (shown.key,))] == [(2,)]


def test_a_database_in_memory_has_no_shortcut():
    assert walindex.open_header("") is None


def test_a_header_being_written_is_not_settled():
    copy = bytes(range(48))
    assert walindex.change_counter(copy + copy) == int.from_bytes(copy[8:12], sys.byteorder)
    assert walindex.change_counter(copy + bytes(48)) is None  # the second copy written, the first not yet
    assert walindex.change_counter(copy) is None  # a file cut short
    assert walindex.change_counter(None) is None


@pytest.mark.parametrize("before, after, one", [(7, 8, True), (7, 9, False), (7, 7, False),
                                                 (0xFFFFFFFF, 0, True)])
def test_one_commit_is_one_step_of_the_counter(before, after, one):
    def header(change):
        copy = bytes(8) + change.to_bytes(4, sys.byteorder) + bytes(36)
        return copy + copy

    assert walindex.after_one_commit(header(before), header(after)) is one


def test_descriptors_stay_open_while_their_file_exists(tmp_path):
    _, first, _ = _session(tmp_path / "one")
    descriptor = first._wal_index
    inode = os.fstat(descriptor).st_ino
    assert walindex.open_header(first._file) == descriptor  # one per file, shared
    first.close()
    _, second, _ = _session(tmp_path / "two")
    os.fstat(descriptor)  # still open: closing it would drop this process's locks on the file
    for name in os.listdir(Path(first._file).parent):
        os.remove(Path(first._file).parent / name)
    _, third, _ = _session(tmp_path / "three")
    # Closed once its file was gone (the number itself may be open again, for another file).
    assert first._file + "-shm" not in walindex._OPEN
    try:
        assert os.fstat(descriptor).st_ino != inode
    except OSError:
        pass
    assert os.fstat(second._wal_index).st_nlink == 1
    second.close()
    third.close()
