"""Opening a progress database safely: checks, pragmas, schema creation and forward migrations.

Before anything is written, the file is checked: it must be SQLite, carry studyapp's
``application_id`` (or be empty), pass SQLite's own ``quick_check`` once SQLite has
recovered its WAL, and not have a schema newer than this version knows. Each failure becomes a StudyappError that says what to do; nothing
already stored is touched. A migration first copies the database with SQLite's backup
API, then runs in one transaction.

Durability choice: ``synchronous=FULL``. In WAL mode NORMAL already survives a killed
process (the commit is in the WAL file, the OS has it), but it can lose the last
answers on power loss. FULL fsyncs the WAL on every commit; that costs a fraction of a
millisecond per answer (see bench/), which nobody grading cards by hand can notice,
and an answered review then survives a power cut too. The review screen is the one exception:
its answer commits under ``Store.sync_later`` (NORMAL for that transaction) and the WAL is
fsynced right after the next card is drawn (``Store.sync_wal``); a killed app keeps the answer
either way.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import struct
import time
from pathlib import Path
from typing import Callable

from ..core.problems import StudyappError

APPLICATION_ID = 0x53545544  # "STUD"
SCHEMA_VERSION = 6
BUSY_TIMEOUT_MS = 10_000
# Databases up to this size get a quick_check when opened; bigger ones are checked
# page by page as they are read (SQLite reports damage then, and we turn it into a message).
QUICK_CHECK_MAX_BYTES = 32 * 1024 * 1024
SQLITE_MAGIC = b"SQLite format 3\x00"

APPEND_ONLY_TRIGGER = """CREATE TRIGGER review_log_append_only BEFORE UPDATE ON review_log
BEGIN
    SELECT RAISE(ABORT, 'the review log is append-only');
END;"""

# The review log's two indexes. Each carries, after the columns it orders by, the columns the
# report's scans read (F15): a scan of a million answers then reads the index alone, in item
# order for the per-item sums (no sort) and in time order for the last year's study days. They
# were (item_id, id) and (time_ms): every query that used those uses these the same way, and an
# answer writes no more entries than before. An index is no schema change
# (any version reads and keeps it), so an older database gets the wider ones on its next
# writable open (``settle_indexes``), not through a migration; until then its readers only
# go slower.
LOG_INDEXES = {
    "review_log_item": "CREATE INDEX review_log_item ON review_log (item_id, id, kind, rating, last_interval, "
                       "duration_ms, time_ms)",
    "review_log_time": "CREATE INDEX review_log_time ON review_log (time_ms, kind, rating, last_interval)",
}


# Indexes that older databases have and nothing reads any more, dropped on the next writable open
# like the log's indexes are widened. ``items_queue_due`` (queue, due_ms) streamed the due items of
# every deck in due order; items_deck_due serves the same queries (one range a deck, a sort of the
# day's due items, as Anki's one ix_cards_sched does), and every answer moved the item's entry in
# both: two of the ten pages an answer wrote, some 10 us of it.
RETIRED_INDEXES = ("items_queue_due",)


def settle_indexes(conn: sqlite3.Connection) -> None:
    """Put LOG_INDEXES in place of older definitions of the same indexes, and drop RETIRED_INDEXES
    (one transaction)."""
    if _indexes_settled(_index_sql(conn)):
        return
    with write(conn):
        current = _index_sql(conn)  # read again under the write lock: another process may have widened them
        for name, sql in LOG_INDEXES.items():
            if current.get(name) != sql:
                conn.execute(f"DROP INDEX IF EXISTS {name}")
                conn.execute(sql)
        for name in RETIRED_INDEXES:
            conn.execute(f"DROP INDEX IF EXISTS {name}")


# CHECKs that older databases hold as IN lists, and the same CHECKs as the schema now writes them.
# SQLite evaluates an IN list of three or more values by building a small temporary index for
# every row it writes: 1.6 us of a 6 us review-log insert, on every answer. Compared one by one,
# as an OR chain, the same check costs next to nothing. Rewritten in the stored schema on the
# next writable open (``settle_checks``): the rule is the same, so no row needs checking again.
OLD_CHECKS = {
    "items": ("CHECK (state IN ('new', 'learning', 'review', 'relearning'))",
              "CHECK (state = 'new' OR state = 'learning' OR state = 'review' OR state = 'relearning')"),
    "review_log": ("CHECK (kind IN ('review', 'cram', 'reset'))",
                   "CHECK (kind = 'review' OR kind = 'cram' OR kind = 'reset')"),
}


def settle_checks(conn: sqlite3.Connection) -> None:
    """Rewrite OLD_CHECKS in the stored schema (one transaction; SQLite's documented way of
    changing a CHECK without rebuilding the table: writable_schema, then a new schema version,
    which makes every connection read the schema again).

    Where SQLite refuses (a build in defensive mode forbids writable_schema) or the write lock
    does not come, the IN lists stay: the same rules, only slower; the next open tries again."""
    if not _stale_checks(conn):
        return
    try:
        with write(conn):
            stale = _stale_checks(conn)  # read again under the write lock: another process may have done it
            if not stale:
                return
            version = conn.execute("PRAGMA schema_version").fetchone()[0]
            conn.execute("PRAGMA writable_schema = ON")
            try:
                for table, sql in stale.items():
                    old, new = OLD_CHECKS[table]
                    conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                                 (sql.replace(old, new), table))
                conn.execute(f"PRAGMA schema_version = {version + 1}")
            finally:
                conn.execute("PRAGMA writable_schema = OFF")
            # SQLite reads the new text only at the next statement: a text it cannot parse must
            # fail here, inside the transaction, and be rolled back, not after COMMIT, when every
            # later open of the file would fail.
            conn.execute("SELECT 1 FROM items, review_log LIMIT 0").fetchall()
    except sqlite3.Error:
        if conn.in_transaction:  # a COMMIT that failed leaves its transaction open
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        return


def _stale_checks(conn: sqlite3.Connection) -> dict[str, str]:
    """Table -> its stored SQL, for the tables whose SQL still holds an OLD_CHECKS list."""
    names = ",".join(f"'{name}'" for name in OLD_CHECKS)
    rows = conn.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ({names})")
    return {name: sql for name, sql in rows if OLD_CHECKS[name][0] in sql}


def has_wide_log_indexes(conn: sqlite3.Connection) -> bool:
    return _log_indexes_wide(_index_sql(conn))


def _log_indexes_wide(current: dict[str, str]) -> bool:
    return all(current.get(name) == sql for name, sql in LOG_INDEXES.items())


def _indexes_settled(current: dict[str, str]) -> bool:
    return _log_indexes_wide(current) and not any(name in current for name in RETIRED_INDEXES)


def _index_sql(conn: sqlite3.Connection) -> dict[str, str]:
    """The SQL of the indexes named in LOG_INDEXES and RETIRED_INDEXES, as the database holds it."""
    names = ",".join(f"'{name}'" for name in (*LOG_INDEXES, *RETIRED_INDEXES))
    return dict(conn.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ({names})"))


SCHEMA_V1 = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    json TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- One row per scheduler version and parameter set; every review names the one it used.
CREATE TABLE schedulers (
    id INTEGER PRIMARY KEY,
    version TEXT NOT NULL,
    params TEXT NOT NULL,
    UNIQUE (version, params)
);

CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,             -- deck id / card id / variant
    deck_id TEXT NOT NULL,
    card_id TEXT NOT NULL,
    variant TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 1,
    position INTEGER NOT NULL DEFAULT 0,  -- bank order inside the deck
    present INTEGER NOT NULL DEFAULT 1,   -- 0: the card left its deck; progress kept
    queue INTEGER NOT NULL DEFAULT 0,     -- 0 new, 1 learning or relearning, 2 review
    state TEXT NOT NULL DEFAULT 'new' CHECK (state = 'new' OR state = 'learning' OR state = 'review' OR state = 'relearning'),
    step INTEGER,
    stability REAL,
    difficulty REAL,
    due_ms INTEGER,
    last_review_ms INTEGER,
    interval INTEGER NOT NULL DEFAULT 0,  -- days if > 0, seconds if < 0 (as Anki's revlog)
    reps INTEGER NOT NULL DEFAULT 0,
    lapses INTEGER NOT NULL DEFAULT 0,
    leech INTEGER NOT NULL DEFAULT 0,
    suspended INTEGER NOT NULL DEFAULT 0,
    buried_day INTEGER NOT NULL DEFAULT 0, -- hidden while the study day is <= this
    flag_note TEXT,
    flagged_ms INTEGER,
    created_ms INTEGER NOT NULL
);
-- Queues: each deck's due items by due time, and its new items in bank order; the counts read
-- only these (covering) indexes.
CREATE INDEX items_deck_due ON items (deck_id, queue, due_ms, present, suspended, buried_day);
CREATE INDEX items_deck_new ON items (deck_id, queue, position, present, suspended, buried_day);

-- Append-only (an undo removes the row it added, nothing else changes a row).
CREATE TABLE review_log (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items (id),
    kind TEXT NOT NULL CHECK (kind = 'review' OR kind = 'cram' OR kind = 'reset'),
    rating INTEGER NOT NULL CHECK (rating BETWEEN 0 AND 4),  -- 0 only for a reset
    time_ms INTEGER NOT NULL,      -- when the answer was given
    sched_ms INTEGER NOT NULL,     -- when the four intervals were computed (item shown)
    duration_ms INTEGER NOT NULL,
    state_before TEXT NOT NULL,
    state_after TEXT NOT NULL,
    interval INTEGER NOT NULL,     -- applied: days if > 0, seconds if < 0
    last_interval INTEGER NOT NULL,
    stability REAL,
    difficulty REAL,
    due_ms INTEGER,
    scheduler_id INTEGER NOT NULL REFERENCES schedulers (id)
);
{log_indexes}
{append_only_trigger}

-- Exams (`studyapp quiz --exam`): kept with the profile, never touching the schedule.
CREATE TABLE exam_results (
    id INTEGER PRIMARY KEY,
    time_ms INTEGER NOT NULL,
    deck_ids TEXT NOT NULL,        -- JSON list of deck ids
    seed INTEGER NOT NULL,
    mode TEXT NOT NULL,
    questions INTEGER NOT NULL,
    correct INTEGER NOT NULL CHECK (correct BETWEEN 0 AND questions),
    pass_mark REAL NOT NULL,
    answers TEXT NOT NULL          -- JSON list of {key, kind, given, correct}
);
""".replace("{append_only_trigger}", APPEND_ONLY_TRIGGER).replace("{log_indexes}", "\n".join(
    f"{sql};" for sql in LOG_INDEXES.values()))

# Schema 2: deck option presets (named, one per deck; unassigned decks use "Default") and
# today's limit extensions from custom study ("N more new cards today"), which leave the
# presets' limits as they are.
SCHEMA_V2 = """
CREATE TABLE presets (
    name TEXT PRIMARY KEY,
    json TEXT NOT NULL,             -- core.presets.Preset.to_dict()
    updated_ms INTEGER NOT NULL
);
CREATE TABLE deck_presets (
    deck_id TEXT PRIMARY KEY,
    preset TEXT NOT NULL REFERENCES presets (name) ON UPDATE CASCADE ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE limit_extensions (
    day INTEGER NOT NULL,           -- the study day (proleptic ordinal) the extension is for
    deck_id TEXT NOT NULL,
    new INTEGER NOT NULL DEFAULT 0 CHECK (new >= 0),
    review INTEGER NOT NULL DEFAULT 0 CHECK (review >= 0),
    PRIMARY KEY (day, deck_id)
) WITHOUT ROWID;
"""

# Schema 3: what a team server needs to merge the logs of several devices. Every log row and
# exam result gets a globally unique id when it is written, so an upload is idempotent; an
# answer undone after it may have left the machine is remembered by its id, so that the server
# (append-only, like the log) can tell the other devices to leave it out.
SCHEMA_V3 = """
ALTER TABLE review_log ADD COLUMN uid TEXT;
ALTER TABLE exam_results ADD COLUMN uid TEXT;
CREATE TABLE undone_log (
    uid TEXT PRIMARY KEY,
    time_ms INTEGER NOT NULL        -- when the answer was undone
) WITHOUT ROWID;
"""
# After the backfill: unique, so that a row pulled twice cannot be inserted twice.
SCHEMA_V3_INDEXES = """
CREATE UNIQUE INDEX review_log_uid ON review_log (uid);
CREATE UNIQUE INDEX exam_results_uid ON exam_results (uid);
"""
NEW_UID_SQL = "lower(hex(randomblob(16)))"

# Schema 4: reviews that came from Anki (``studyapp import anki``): where each row was answered, and
# for Anki's rows the revlog id they carry there, so that importing a file twice adds nothing.
REVIEW_SOURCES = """
ALTER TABLE review_log ADD COLUMN source TEXT NOT NULL DEFAULT 'studyapp' CHECK (source IN ('studyapp', 'anki'));
ALTER TABLE review_log ADD COLUMN anki_revlog_id INTEGER;
CREATE UNIQUE INDEX review_log_anki ON review_log (item_id, anki_revlog_id) WHERE anki_revlog_id IS NOT NULL;
"""

# Schema 5: FSRS parameters fitted to the learner's own reviews (``studyapp optimize``), per preset:
# what is in use, when it was fitted, from how many reviews, and how well old and new predicted
# them. A preset without a row schedules with the profile's parameters (FSRS-6's defaults).
PRESET_PARAMETERS = """
CREATE TABLE preset_parameters (
    preset TEXT PRIMARY KEY REFERENCES presets (name) ON UPDATE CASCADE ON DELETE CASCADE,
    params TEXT NOT NULL,           -- JSON list of the 21 numbers in use
    fitted_ms INTEGER NOT NULL,     -- when they were fitted
    reviews INTEGER NOT NULL,       -- review-log rows the fit counted (Anki's review count)
    items INTEGER NOT NULL,         -- training items those gave
    source TEXT NOT NULL,           -- 'profile', or 'pooled' from exported logs
    fit TEXT NOT NULL               -- JSON: the whole result (evaluations, the fitted values, adopted or not)
) WITHOUT ROWID;
"""

# MIGRATIONS[n] upgrades a database from schema n to n + 1, inside one transaction.
Migration = Callable[[sqlite3.Connection], None]


def _to_v2(conn: sqlite3.Connection) -> None:
    import json

    from ..core.presets import Preset

    for statement in _statements(SCHEMA_V2):
        conn.execute(statement)
    conn.execute("INSERT INTO presets (name, json, updated_ms) VALUES (?, ?, 0)",
                 (Preset().name, json.dumps(Preset().to_dict(), sort_keys=True)))


def _to_v3(conn: sqlite3.Connection) -> None:
    for statement in _statements(SCHEMA_V3):
        conn.execute(statement)
    # The log is append-only: its guard steps aside for the one backfill of the new column.
    conn.execute("DROP TRIGGER review_log_append_only")
    conn.execute(f"UPDATE review_log SET uid = {NEW_UID_SQL}")
    conn.execute(f"UPDATE exam_results SET uid = {NEW_UID_SQL}")
    conn.execute(APPEND_ONLY_TRIGGER)
    for statement in _statements(SCHEMA_V3_INDEXES):
        conn.execute(statement)



def _add_review_sources(conn: sqlite3.Connection) -> None:
    for statement in _statements(REVIEW_SOURCES):
        conn.execute(statement)


def _add_preset_parameters(conn: sqlite3.Connection) -> None:
    for statement in _statements(PRESET_PARAMETERS):
        conn.execute(statement)


# Schema 6: what opening a session on a large collection would otherwise recompute for every item.
# ``new_rank`` is the item's place in the random new orders that go by card (Anki's random notes,
# studyapp's interleaved default): core.queue.rank of "deck/card" under the profile's seed, kept in
# meta as ``seed`` from now on, so that renaming the file no longer reshuffles the new cards and
# the stored ranks stay right. With the partial index the first new items of a deck are read in
# that order from the index, where every new item of the deck was read and ranked in Python
# (3.3 s of a session's opening at 1,000,000 items). ``items_deck_sync`` holds each deck's rows
# in bank order with ``sync_row``, each row's key, revision and position joined as
# core.models.sync_rows joins a deck's items: checking a deck against its file (Store._in_step)
# reads that one index in order and joins strings already made (a generated column is computed
# when the row is written; joining the three columns at every check took twice as long).
NEW_RANKS = """
ALTER TABLE items ADD COLUMN new_rank INTEGER;
ALTER TABLE items ADD COLUMN sync_row TEXT GENERATED ALWAYS AS (key || char(31) || revision || char(31) || position) VIRTUAL;
CREATE INDEX items_new_rank ON items (deck_id, new_rank, position, present, suspended, buried_day) WHERE queue = 0;
CREATE INDEX items_deck_sync ON items (deck_id, present, position, sync_row);
"""


def profile_seed_of(created_ms: str | int, file_name: str) -> int:
    """The seed of a profile's random new-card orders, as it was made before schema 6 kept it:
    from when the database was created and its file's name."""
    from ..core.queue import rank

    return rank(0, f"{created_ms}/{file_name}")


def keep_seed(conn: sqlite3.Connection, seed: int) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES ('seed', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                 (str(seed),))


def _add_new_ranks(conn: sqlite3.Connection) -> None:
    from ..core.queue import card_rank, rank

    for statement in _statements(NEW_RANKS):
        conn.execute(statement)
    created = conn.execute("SELECT value FROM meta WHERE key = 'created_ms'").fetchone()
    if created is None:  # a database being created: prepare keeps its seed once it has its creation time
        return
    file = conn.execute("PRAGMA database_list").fetchone()[2]
    seed = profile_seed_of(created[0], Path(file).name)
    keep_seed(conn, seed)
    # Uncached: a collection's cards would only churn the ranks' cache.
    conn.executemany("UPDATE items SET new_rank = ? WHERE id = ?",
                     [(card_rank(seed, deck_id, card_id, rank.__wrapped__), id_) for id_, deck_id, card_id in
                      conn.execute("SELECT id, deck_id, card_id FROM items").fetchall()])


MIGRATIONS: dict[int, Migration] = {1: _to_v2, 2: _to_v3, 3: _add_review_sources, 4: _add_preset_parameters,
                                    5: _add_new_ranks}


# ---------------------------------------------------------------- messages


def companions(path: Path) -> tuple[Path, Path]:
    """The -wal and -shm files SQLite keeps beside a WAL-mode database."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def copy_aside_advice(path: Path) -> str:
    wal, shm = companions(path)
    return (f"Before trying anything else, copy {path.name}, {wal.name} and {shm.name} (those present) from "
            f"{path.parent} to a safe place: together they hold every answer SQLite could still read")


def damaged(path: Path, detail: str) -> StudyappError:
    """Only for SQLite's own verdict (quick_check, SQLITE_CORRUPT, SQLITE_NOTADB), never a guess of ours.

    The advice never discards anything: moving the file away would lose the -wal file's answers."""
    return StudyappError(
        f"the progress database {path} is damaged ({detail}); nothing was changed. {copy_aside_advice(path)}. "
        f"Then restore a backup (a copy named {path.name}.*.bak next to it, if one exists), or keep the copy "
        "and study with fresh progress under another profile (--profile NAME)")


def io_failed(path: Path, detail: str) -> StudyappError:
    return StudyappError(
        f"reading or writing {path} failed ({detail}); this is not damage to the database, and the last change "
        "was not saved. Check the disk it is on (space, a file-size limit such as 'ulimit -f', a removed or "
        "network drive), then try again")


def _busy(error: sqlite3.Error) -> bool:
    """Whether SQLite said another connection holds a lock (the cause ``translate`` calls busy)."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(error)


def translate(error: sqlite3.Error, path: Path) -> StudyappError:
    """A user-facing message for an SQLite failure, one per cause."""
    name = getattr(error, "sqlite_errorname", "") or ""
    text = str(error)
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return StudyappError(f"the disk holding {path} is full; the last change was not saved and nothing stored "
                             "was lost. Free some space, then try again")
    if _busy(error):
        # code "busy": the TUI retries such a write in the background instead of dropping it (F10).
        return StudyappError(f"the progress database {path} stayed busy for {BUSY_TIMEOUT_MS // 1000} s "
                             "(another studyapp is writing to it); close the other one and try again", code="busy")
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        return read_only(path)
    if name.startswith("SQLITE_NOTADB") or "not a database" in text:
        return damaged(path, f"SQLite: {text}")
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        hint = header_short_of_pages(path)
        return damaged(path, f"{hint}; SQLite: {text}" if hint else f"SQLite: {text}")
    if name.startswith("SQLITE_IOERR") or "disk I/O error" in text:
        detail = f"{text}, {name}" if name else text
        limit = _file_size_limit()
        if limit is not None:
            detail += f"; this process may not write files larger than {limit} bytes (ulimit -f)"
        return io_failed(path, detail)
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return StudyappError(f"cannot open {path}; check that its folder exists and is readable and writable, "
                             "or choose another place with --home DIR or STUDYAPP_HOME")
    return StudyappError(f"the progress database {path} could not be used: {text}")


def _file_size_limit() -> int | None:
    """The RLIMIT_FSIZE soft limit when one is set: SQLite reports hitting it only as an I/O error."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def unwritable_files(path: Path) -> list[Path]:
    """Of the database, its -wal and -shm files (those present) and its folder, the ones this user cannot write."""
    candidates = [path, *(p for p in companions(path) if p.exists()), path.parent]
    return [p for p in candidates if p.exists() and not os.access(p, os.W_OK)]


def on_read_only_mount(folder: Path) -> StudyappError | None:
    try:
        mounted_read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return None
    if not mounted_read_only:
        return None
    return StudyappError(f"cannot write to {folder}: it is on a read-only file system. 'studyapp list', "
                         "'stats' and 'report' can still read it; to study, choose another place with "
                         "--home DIR or STUDYAPP_HOME")


def read_only(path: Path) -> StudyappError:
    mounted = on_read_only_mount(path.parent)
    if mounted is not None:
        return mounted
    blocked = unwritable_files(path)
    if not blocked:
        return StudyappError(f"cannot write to {path}: SQLite found it read-only (a read-only mount?). "
                             "Choose another place with --home DIR or STUDYAPP_HOME")
    names = ", ".join(str(p) for p in blocked)
    owners = {_owner(p) for p in blocked}
    hint = f" (owned by {', '.join(sorted(owners))})" if owners - {_owner(path.parent.parent)} else ""
    return StudyappError(f"cannot write to {names}{hint}: read-only for this user. Make {'it' if len(blocked) == 1 else 'them'} "
                         "writable (chown or chmod u+w), or choose another place with --home DIR or STUDYAPP_HOME")


def _owner(path: Path) -> str:
    try:
        uid = path.stat().st_uid
    except OSError:
        return "?"
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def not_studyapp(path: Path, why: str) -> StudyappError:
    return StudyappError(f"{path} is not a studyapp progress database ({why}); it was left untouched. "
                         "Move it away, or choose another profile with --profile NAME")


class guarded:  # noqa: N801 - used as a function: ``with guarded(path):``
    """Turn SQLite and file-system failures into StudyappError.

    A class rather than a generator context manager: every read and write of the store goes
    through one, two for each pick and answer, and this costs a fraction of contextlib's."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, traceback) -> bool:
        if kind is None:
            return False
        if issubclass(kind, sqlite3.Error):
            raise translate(error, self.path) from None
        if issubclass(kind, OSError):
            raise os_error(error, self.path) from None
        return False


def os_error(error: OSError, path: Path, *, reading: bool = False) -> StudyappError:
    where = error.filename or path
    if error.errno == errno.ENOSPC:
        return StudyappError(f"the disk holding {path} is full; free some space, then try again")
    if error.errno == errno.EFBIG:
        return StudyappError(f"{where} cannot grow: a file-size limit (ulimit -f) was reached; nothing stored was "
                             "lost. Raise the limit, then try again")
    if error.errno in (errno.EACCES, errno.EPERM):
        verb = "read" if reading else "write to"
        return StudyappError(f"cannot {verb} {where}: permission denied. Give yourself access (chmod u+rw), "
                             "or choose another place with --home DIR or STUDYAPP_HOME")
    if error.errno == errno.EROFS:
        return StudyappError(f"cannot write to {where}: it is on a read-only file system. "
                             "Choose another place with --home DIR or STUDYAPP_HOME")
    if error.errno == errno.EIO:
        return io_failed(Path(where), error.strerror or str(error))
    return StudyappError(f"cannot use {where}: {error.strerror or error}")


# ---------------------------------------------------------------- checks before opening


# SQLite holds POSIX (fcntl) locks on an open database, and POSIX drops every lock a process
# holds on a file when any descriptor of that file is closed. Reading the header with open() and
# close() while this process has the database open through SQLite would drop them, and another
# process closing its connection could then take the file for unused and remove its WAL. So a file
# this process already has open is never read around SQLite: it was checked when first opened.
_OPEN_HERE: dict[tuple[int, int], int] = {}


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def note_open(path: Path) -> tuple[int, int] | None:
    """Count a connection this process opened on ``path``; give the key to ``note_closed``."""
    key = _file_key(path)
    if key is not None:
        _OPEN_HERE[key] = _OPEN_HERE.get(key, 0) + 1
    return key


def note_closed(key: tuple[int, int] | None) -> None:
    if key is not None and key in _OPEN_HERE:
        _OPEN_HERE[key] -= 1
        if _OPEN_HERE[key] <= 0:
            del _OPEN_HERE[key]


def open_here(path: Path) -> bool:
    key = _file_key(path)
    return key is not None and key in _OPEN_HERE


def check_file(path: Path) -> bool | None:
    """Look at an existing file before SQLite opens it.

    True if its header carries studyapp's application id, False if it is empty (a new
    database), None if it is an SQLite file whose id is not set yet (SQLite decides).
    Refuses only what is plainly not an SQLite database or belongs to another program:
    whether the file is damaged is SQLite's call once it has recovered the WAL (a header
    that counts more pages than the file holds is normal while the -wal holds them, and
    it is seen for an instant while another process checkpoints).
    """
    if path.is_dir():
        raise StudyappError(f"{path} is a folder, not a progress database; move it away, or choose another "
                            "profile with --profile NAME")
    if open_here(path):
        return True
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as error:
        raise os_error(error, path, reading=True) from None
    wal, _ = companions(path)
    if not header:
        # Empty: nothing to lose, unless a WAL file holds the content not yet copied back.
        return None if _nonempty(wal) else False
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise not_studyapp(path, "it is not an SQLite database")
    application_id = struct.unpack(">I", header[68:72])[0]
    if application_id not in (0, APPLICATION_ID):
        raise not_studyapp(path, f"it belongs to another program, application id {application_id:#x}")
    return True if application_id == APPLICATION_ID else None


def header_short_of_pages(path: Path) -> str | None:
    """A hint, not a verdict: the header counts more pages than the file holds (then SQLite checks).
    Read only for a message about damage SQLite found, so reading around SQLite is acceptable here."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError:
        return None
    if len(header) < 100:
        return None
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, pages = struct.unpack(">II", header[24:32])
    valid_for = struct.unpack(">I", header[92:96])[0]
    if valid_for == change_counter and pages and size < pages * page_size:
        return f"the file is truncated: {size} bytes of {pages * page_size}"
    return None


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None,
                               timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def enable_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch to WAL; only after the file was found to be ours (it changes the header).

    Two processes creating the same new database: the switch needs the file to itself, and SQLite
    fails it at once ("database is locked") while the other holds a lock, busy_timeout or not. It
    is tried again, as busy_timeout would wait, until the other has switched (then it is already
    WAL) or BUSY_TIMEOUT_MS have passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as error:
            if not _busy(error) or time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    if str(mode).lower() != "wal":
        raise StudyappError(f"{path}: SQLite could not switch to WAL mode (got {mode}); "
                            "put the home folder on a local disk")


def prepare(conn: sqlite3.Connection, path: Path, now_ms: int, *, readonly: bool = False,
            shown_as: Path | None = None) -> int:
    """Create or migrate the schema as needed; return the schema version in use.

    ``shown_as`` is the path messages name when ``path`` is a private copy of it."""
    file, path = path, shown_as or path
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if application_id not in (0, APPLICATION_ID):
        raise not_studyapp(path, f"it belongs to another program, application id {application_id:#x}")
    if application_id == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise not_studyapp(path, "it is an SQLite database of another program")
        if readonly:
            return 0
        enable_wal(conn, path)
        with write(conn):
            # Another process may have created it while we waited for the lock.
            if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
                for statement in _statements(SCHEMA_V1):
                    conn.execute(statement)
                # A new database is schema 1 brought up to date by the same migrations an old one runs.
                for v in range(1, SCHEMA_VERSION):
                    MIGRATIONS[v](conn)
                conn.execute("INSERT INTO meta (key, value) VALUES ('created_ms', ?)", (str(now_ms),))
                keep_seed(conn, profile_seed_of(now_ms, file.name))
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StudyappError(
            f"{path} was written by a newer studyapp (schema {version}; this version knows up to "
            f"{SCHEMA_VERSION}); it was left untouched. Upgrade studyapp (pip install -U studyapp) to use it")
    quick_check(conn, file, shown_as=path)
    if readonly:
        if version < SCHEMA_VERSION:
            raise StudyappError(f"{path} uses an older schema ({version}); run 'studyapp study' once to upgrade it")
        return version
    enable_wal(conn, path)
    if version < SCHEMA_VERSION:
        migrate(conn, path, version)
        version = SCHEMA_VERSION
    settle_indexes(conn)
    settle_checks(conn)
    return version


def migrate(conn: sqlite3.Connection, path: Path, version: int, *, target: int | None = None) -> Path:
    """Back the database up, then apply each migration up to ``target`` in one transaction."""
    target = SCHEMA_VERSION if target is None else target
    backup = path.with_name(f"{path.name}.schema{version}-{time.strftime('%Y%m%d-%H%M%S')}.bak")
    missing = [v for v in range(version, target) if v not in MIGRATIONS]
    if missing:
        raise StudyappError(f"{path} uses schema {version}, which this version cannot upgrade; "
                            f"it was left untouched")
    with guarded(backup):
        target_conn = sqlite3.connect(backup)
        try:
            conn.backup(target_conn)
        finally:
            target_conn.close()
    try:
        with write(conn):
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            for v in range(current, target):
                MIGRATIONS[v](conn)
                conn.execute(f"PRAGMA user_version = {v + 1}")
    except StudyappError:
        raise
    except Exception as error:  # a failed migration is rolled back; say so, keep the backup
        raise StudyappError(f"upgrading {path} from schema {version} failed ({error}); it was left as it was, "
                            f"and a copy is at {backup}. Please report this") from None
    return backup


class write:  # noqa: N801 - used as a function: ``with write(conn):``
    """One write transaction. BEGIN IMMEDIATE takes the write lock up front, so two
    processes wait for each other (busy_timeout) instead of failing on a lock upgrade.

    A class rather than a generator context manager, as ``guarded``: every answer is one."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, error, traceback) -> bool:
        if kind is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        return False


def quick_check(conn: sqlite3.Connection, path: Path, *, shown_as: Path | None = None) -> None:
    """SQLite's own verdict, after it has recovered the WAL: on small files always, on big ones
    when the header counts more pages than the main file holds (truncation or a pending WAL).

    The page count comes from SQLite, never from reading the file here: closing any descriptor of
    the database file drops every POSIX lock this process holds on it, the open connection's among
    them. Another process closing its connection then takes itself for the last one and checkpoints
    and removes the WAL under this one's feet (found with F10's test: the next reader got
    SQLITE_IOERR_SHORT_READ)."""
    try:
        size = path.stat().st_size
    except OSError:
        return
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    hint = f"the file is truncated: {size} bytes of {pages * page_size}" if size < pages * page_size else None
    if size > QUICK_CHECK_MAX_BYTES and hint is None:
        return
    result = conn.execute("PRAGMA quick_check").fetchall()
    if result != [("ok",)]:
        detail = "; ".join(str(r[0]) for r in result[:3])
        raise damaged(shown_as or path, f"{hint}; SQLite: {detail}" if hint else f"SQLite: {detail}")


def _statements(script: str) -> list[str]:
    """Split the schema into statements (triggers contain ';' inside BEGIN ... END)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    return [s for s in statements if s]


def ensure_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StudyappError(f"{folder} exists but is not a folder; choose another place with --home DIR "
                            "or STUDYAPP_HOME") from None
    except OSError as error:
        raise StudyappError(f"cannot create the progress folder {folder}: {error.strerror or error}. "
                            "Choose a writable place with --home DIR or STUDYAPP_HOME") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise on_read_only_mount(folder) or StudyappError(f"cannot write in the progress folder {folder}: it is read-only. "
                            "Make it writable, or choose another place with --home DIR or STUDYAPP_HOME")
