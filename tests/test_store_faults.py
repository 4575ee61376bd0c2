"""Faults around the progress database (issue 15: F1, F3, F11, F12): a file is called damaged only
on SQLite's own verdict after it has recovered the WAL, each I/O failure gets its own true
message, and no message advises an action that would discard answers.

Several tests reproduce the fault for real: a full tmpfs, a file-size limit (RLIMIT_FSIZE) in a
child process, a read-only bind mount in a private mount namespace, files owned by another
user (via setpriv). They need root (the suite runs as root); without it they skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import GOOD
from studyapp.core.session import ReviewSession
from studyapp.store import open_store, schema

from cli_runner import ROOT
from engine_support import SETTINGS, deck, location, store_at

DRIVER = Path(__file__).resolve().parent / "fault_driver.py"
IS_ROOT = os.geteuid() == 0


def _drive(home: Path, answers: int, *extra: str) -> list[str]:
    done = subprocess.run([sys.executable, str(DRIVER), str(home), str(answers), *extra],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _review_rows(path: Path) -> int:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM review_log").fetchone()[0]
    finally:
        conn.close()


def _no_destructive_advice(message: str) -> None:
    assert "move the file away" not in message
    assert "fresh progress" not in message or "keep the copy" in message


@pytest.fixture
def small_disk(tmp_path):
    if not IS_ROOT:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1200k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


# ---------------------------------------------------------------- F1: full disk, then space freed


def test_after_a_full_disk_the_profile_opens_with_every_acknowledged_answer(small_disk):
    home = small_disk / "home"
    lines = _drive(home, 100_000)
    acked = sum(line.startswith("ACK ") for line in lines)
    assert lines[-1].startswith("ERR the disk holding") and "is full" in lines[-1]
    database = home / "profiles" / "default.sqlite3"
    # The state of the finding: the close's checkpoint wrote page 1 (the new page count) and then
    # ran out of space, so the main file is shorter than its header says; the -wal holds the rest.
    assert schema.header_short_of_pages(database) is not None
    assert database.with_name("default.sqlite3-wal").stat().st_size > 0
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)

    store = open_store(location(small_disk), clock=None)
    try:
        assert store.conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == acked
        assert store.integrity_check() == ["ok"]
    finally:
        store.close()
    assert acked > 0


def test_the_read_only_commands_also_open_it_after_a_full_disk(small_disk):
    home = small_disk / "home"
    lines = _drive(home, 100_000)
    acked = sum(line.startswith("ACK ") for line in lines)
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    store = open_store(location(small_disk), readonly=True)
    try:
        assert store.conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == acked
    finally:
        store.close()


# ---------------------------------------------------------------- F3: a checkpoint in progress elsewhere


def _pending_checkpoint(tmp_path: Path):
    """A writer with its answers in the -wal, and a main file whose header already counts pages
    it does not hold yet: what a reader sees while another process checkpoints."""
    store, clock = store_at(tmp_path)
    store.conn.execute("PRAGMA wal_autocheckpoint = 0")
    session = ReviewSession(store, [deck("a", 200)], clock=clock, settings=replace(SETTINGS, new_per_day=500))
    for _ in range(40):
        session.next()
        session.answer(GOOD, duration_ms=2000)
        clock.advance(minutes=1)
    path = store.path
    header = bytearray(path.read_bytes()[:100])
    pages = struct.unpack(">I", header[28:32])[0]
    header[28:32] = struct.pack(">I", pages + 64)
    with path.open("r+b") as handle:
        handle.write(header)
    return store, path


def test_a_header_ahead_of_the_file_while_the_wal_holds_the_pages_is_not_damage(tmp_path):
    writer, path = _pending_checkpoint(tmp_path)
    try:
        assert schema.header_short_of_pages(path) is not None  # what the old check called "truncated"
        for readonly in (True, False):
            reader = open_store(location(tmp_path), readonly=readonly)
            try:
                assert reader.conn.execute("SELECT count(*) FROM review_log").fetchone()[0] == 40
            finally:
                reader.close()
    finally:
        writer.close()


def test_a_truncated_file_with_no_wal_is_damage_by_sqlites_verdict(tmp_path):
    store, _ = store_at(tmp_path)
    store.sync([deck("a", 300)])
    path = store.path
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StudyappError) as caught:
        open_store(location(tmp_path))
    message = caught.value.message
    assert "is damaged (the file is truncated" in message and "SQLite:" in message
    assert "copy default.sqlite3, default.sqlite3-wal and default.sqlite3-shm" in message
    _no_destructive_advice(message)


# ---------------------------------------------------------------- F12: I/O errors are not damage


def test_a_file_size_limit_is_an_io_failure_not_damage(tmp_path):
    home = tmp_path / "home"
    _drive(home, 5)
    lines = _drive(home, 100_000, "65536")
    acked = sum(line.startswith("ACK ") for line in lines)
    error = lines[-1]
    assert error.startswith("ERR reading or writing") and "failed (disk I/O error" in error
    assert "this is not damage to the database" in error
    assert "may not write files larger than" in error and "ulimit -f" in error
    assert "damaged" not in error
    _no_destructive_advice(error)
    assert _review_rows(home / "profiles" / "default.sqlite3") == 5 + acked


def test_each_sqlite_failure_gets_its_own_message(tmp_path):
    path = tmp_path / "p.sqlite3"

    def message(name: str, text: str) -> str:
        error = sqlite3.OperationalError(text)
        error.sqlite_errorname = name
        return schema.translate(error, path).message

    assert "is full" in message("SQLITE_FULL", "database or disk is full")
    assert "stayed busy for 10 s" in message("SQLITE_BUSY", "database is locked")
    assert "is damaged (SQLite: database disk image is malformed)" in message("SQLITE_CORRUPT", "database disk image is malformed")
    assert "is damaged (SQLite: file is not a database)" in message("SQLITE_NOTADB", "file is not a database")
    io = message("SQLITE_IOERR_READ", "disk I/O error")
    assert io.startswith(f"reading or writing {path} failed (disk I/O error, SQLITE_IOERR_READ)")
    assert "damaged" not in io
    assert message("SQLITE_CANTOPEN", "unable to open database file").startswith(f"cannot open {path}")


def test_os_errors_say_read_or_write_truly(tmp_path):
    import errno

    path = tmp_path / "p.sqlite3"
    denied = OSError(errno.EACCES, "Permission denied", str(path))
    assert schema.os_error(denied, path, reading=True).message.startswith(f"cannot read {path}: permission denied")
    assert schema.os_error(denied, path).message.startswith(f"cannot write to {path}: permission denied")
    too_big = OSError(errno.EFBIG, "File too large", str(path))
    assert "file-size limit (ulimit -f)" in schema.os_error(too_big, path).message
    eio = OSError(errno.EIO, "Input/output error", str(path))
    assert "this is not damage" in schema.os_error(eio, path).message
    rofs = OSError(errno.EROFS, "Read-only file system", str(path))
    assert "read-only file system" in schema.os_error(rofs, path).message


# ---------------------------------------------------------------- F11: read-only homes, others' files


def _profile_with_answers_in_the_wal(source: Path, target_home: Path, answers: int) -> None:
    """A backup taken while the learner studied: the main file plus a -wal holding the answers."""
    from studyapp.core.catalog import discover

    catalog = discover([], cache_file=None)
    store, clock = store_at(source)
    store.conn.execute("PRAGMA wal_autocheckpoint = 0")
    first = catalog.decks[0]
    session = ReviewSession(store, [first], clock=clock, settings=replace(SETTINGS, new_per_day=500))
    for _ in range(answers):
        session.next()
        session.answer(GOOD, duration_ms=2000)
        clock.advance(minutes=1)
    profiles = target_home / "profiles"
    profiles.mkdir(parents=True)
    shutil.copyfile(store.path.with_name("default.sqlite3-wal"), profiles / "default.sqlite3-wal")
    shutil.copyfile(store.path, profiles / "default.sqlite3")
    store.close()
    return first.id


def _read_only_run(home: Path, *args: str, scratch: Path | None = None) -> subprocess.CompletedProcess:
    """Run the CLI with ``home`` bind-mounted read-only, in a mount namespace of its own."""
    env = {**os.environ, "TMPDIR": str(scratch)} if scratch else None
    script = (f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && '
              f'cd "{ROOT}" && exec "{sys.executable}" -m studyapp "$@" --home "{home}"')
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *args],
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def can_bind_read_only(tmp_path):
    if not IS_ROOT or shutil.which("unshare") is None:
        pytest.skip("a read-only bind mount needs root and unshare")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f'mount --bind "{tmp_path}" "{tmp_path}" && '
                            f'mount -o remount,bind,ro "{tmp_path}" && ! touch "{tmp_path}/x" 2>/dev/null'],
                           capture_output=True)
    if probe.returncode:
        pytest.skip(f"cannot make a read-only bind mount here: {probe.stderr.decode().strip()}")


def test_list_stats_and_report_read_a_read_only_home(tmp_path, can_bind_read_only):
    home = tmp_path / "backup"
    deck_id = _profile_with_answers_in_the_wal(tmp_path / "live", home, 7)
    before = {p.name: p.read_bytes() for p in (home / "profiles").iterdir()}
    scratch = tmp_path / "tmp"
    scratch.mkdir()

    stats = _read_only_run(home, "stats", "--json", scratch=scratch)
    assert stats.returncode == 0, stats.stderr
    figures = json.loads(stats.stdout)
    assert figures["reviews"] == 7
    assert [d["reviews"] for d in figures["decks"] if d["id"] == deck_id] == [7]

    listing = _read_only_run(home, "list", "--json", scratch=scratch)
    assert listing.returncode == 0, listing.stderr
    row = next(r for r in json.loads(listing.stdout) if r["id"] == deck_id)
    # New as Anki counts it, the same as from a writable copy of the home: the unseen items that today's
    # limit lets through, less the new siblings (related cards) of the seven learning items due now.
    from studyapp.core.catalog import discover
    from studyapp.core.settings import resolve
    from studyapp.store.summary import deck_figures

    writable = tmp_path / "writable"
    shutil.copytree(home, writable)
    reference = deck_figures([discover([], cache_file=None).deck(deck_id)], resolve(str(writable), None, None, environ={}))
    assert (row["new"], row["learning"]) == (reference[deck_id]["new"], reference[deck_id]["learning"]) == (3, 7)
    assert row["items"] - 7 == 12  # 12 unseen: burying, not the limit, leaves 3 of them for today

    report = _read_only_run(home, "report", "--format", "json", scratch=scratch)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["totals"]["reviews"] == 7
    after = {p.name: p.read_bytes() for p in (home / "profiles").iterdir()}
    assert after == before
    assert list(scratch.iterdir()) == []  # the private copies are gone


def test_studying_in_a_read_only_home_is_refused_naming_the_folder(tmp_path, can_bind_read_only):
    home = tmp_path / "backup"
    _profile_with_answers_in_the_wal(tmp_path / "live", home, 2)
    script = (f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && cd "{ROOT}" && '
              f'exec "{sys.executable}" -c "import sys; from pathlib import Path; from studyapp.store import open_store; '
              f"from studyapp.core.settings import Location; from studyapp.core.problems import StudyappError\n"
              f"try: open_store(Location(Path(sys.argv[1]), 'default', ()))\n"
              f"except StudyappError as e: print(e.message)\" \"{home}\"")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    profiles = home / "profiles"
    assert done.stdout.startswith(f"cannot write to {profiles}: it is on a read-only file system"), done


NOBODY = 65534


@pytest.fixture
def as_nobody():
    if not IS_ROOT or shutil.which("setpriv") is None:
        pytest.skip("running as another user needs root and setpriv")
    base = Path(tempfile.mkdtemp(prefix="studyapp-nobody-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_root_owned_wal_and_shm_are_named_when_the_profile_opens(as_nobody):
    home = as_nobody / "home"
    profiles = home / "profiles"
    live = as_nobody / "live"
    store, _ = store_at(live)
    store.sync([deck("a", 5)])
    profiles.mkdir(parents=True)
    # A `sudo studyapp` that was killed leaves its -wal and -shm behind, owned by root.
    shutil.copyfile(store.path, profiles / "default.sqlite3")
    shutil.copyfile(store.path.with_name("default.sqlite3-wal"), profiles / "default.sqlite3-wal")
    shutil.copyfile(store.path.with_name("default.sqlite3-shm"), profiles / "default.sqlite3-shm")
    store.close()
    for path in (home, profiles, profiles / "default.sqlite3"):
        os.chown(path, NOBODY, NOBODY)
    code = ("import sys; from pathlib import Path; from studyapp.store import open_store; from studyapp.core.settings import Location\n"
            "from studyapp.core.problems import StudyappError\n"
            "try: open_store(Location(Path(sys.argv[1]), 'default', ()))\n"
            "except StudyappError as e: print(e.message)\nelse: print('opened')")
    done = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           sys.executable, "-c", code, str(home)], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.stdout.strip().startswith(
        f"cannot write to {profiles / 'default.sqlite3-wal'}, {profiles / 'default.sqlite3-shm'} (owned by root): "
        "read-only for this user"), (done.stdout, done.stderr)


def test_an_unreadable_database_is_called_unreadable_not_read_only(as_nobody):
    home = as_nobody / "home"
    store, _ = store_at(as_nobody)
    store.close()
    database = home / "profiles" / "default.sqlite3"
    database.chmod(0o000)
    for path in (home, home / "profiles"):
        os.chown(path, NOBODY, NOBODY)
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-m", "studyapp",
         "stats", "--home", str(home)], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "STUDYAPP_DECKS": ""})
    assert done.returncode == 1
    assert done.stderr.strip().startswith(f"studyapp: error: cannot read {database}: permission denied"), done.stderr


def test_opening_a_profile_twice_in_one_process_keeps_the_first_connections_locks(tmp_path):
    """The app opens a second store on the same file (the background sync). Reading the file's
    header with open() and close() around SQLite would drop the first connection's POSIX locks,
    and another process closing its connection could then take the file for unused and remove
    the WAL under us. The probe asks, from another process, whether SQLite's shared lock is held."""
    import subprocess
    import sys

    from studyapp.core.clock import FakeClock
    from studyapp.store import open_store

    database = tmp_path / "profile.sqlite3"
    probe = ("import fcntl, os\n"
             f"fd = os.open({str(database)!r}, os.O_RDWR)\n"
             "try:\n"
             "    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002, 0)\n"  # SQLite's SHARED range
             "    print('free')\n"
             "except OSError:\n"
             "    print('held')\n")

    def shared_lock() -> str:
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()

    first = open_store(database, clock=FakeClock(1_800_000_000_000))
    try:
        assert shared_lock() == "held"
        second = open_store(database, clock=FakeClock(1_800_000_000_000))
        assert shared_lock() == "held"
        second.close()
        assert shared_lock() == "held"
    finally:
        first.close()
    assert shared_lock() == "free"
