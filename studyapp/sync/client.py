"""``studyapp sync``: a profile's review log to and from the team's PostgreSQL server.

Up: every log row the server may not have yet (by global id, so a repeated upload adds
nothing), the answers undone here, the exam results, and flags and settings where this
device's are newer. Down: the rows other devices of the same learner uploaded. The items those
rows touch are then replayed from the merged log in the order the answers were given, so two
devices that studied the same card offline both count and end in the same state.

Each direction is one server transaction and one local transaction; a connection lost in
between loses nothing and the next sync completes the work. Nothing is ever deleted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..core.problems import StudyappError
from ..core.wording import plural
from . import server as server_schema

CONNECT_TIMEOUT_S = 5


@dataclass
class SyncResult:
    learner: str
    uploaded: int = 0
    pulled: int = 0
    undone: int = 0
    exams_uploaded: int = 0
    exams_pulled: int = 0
    replayed_items: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"Synced {self.learner}: {plural(self.uploaded, 'answer')} up, {self.pulled} down"
                f"{f', {self.undone} undone' if self.undone else ''}; "
                f"{self.exams_uploaded} exams up, {self.exams_pulled} down; "
                f"{self.replayed_items} items brought up to date")


def redacted(url: str) -> str:
    """The server's address as messages show it: never a password."""
    try:
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        parts = conninfo_to_dict(url)
    except Exception:  # not parseable: show no part of it that could hold a secret
        return "(the configured server)"
    parts.pop("password", None)
    return make_conninfo(**{k: v for k, v in parts.items() if v is not None})


def connect(url: str):
    try:
        import psycopg
    except ImportError:
        raise StudyappError("syncing needs psycopg: pip install 'studyapp[team]'") from None
    try:
        # autocommit: each `with conn.transaction()` is then a transaction of its own, committed at its end.
        return psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, application_name="studyapp", autocommit=True)
    except psycopg.Error as error:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise StudyappError(f"cannot reach the team server {redacted(url)}: {_without_secrets(detail, url)}") from None


def _without_secrets(text: str, url: str) -> str:
    try:
        from psycopg.conninfo import conninfo_to_dict

        password = conninfo_to_dict(url).get("password")
    except Exception:
        # An address that cannot be read: its error quotes the part it choked on, which can be
        # the password itself (a bad %-escape in it), and which part that is cannot be known.
        return re.sub(r'"[^"]*"', '"***"', text)
    return text.replace(password, "***") if password else text


def sync(store, url: str) -> SyncResult:
    """Upload, then pull, then replay; raises StudyappError with a clear message on any failure."""
    import psycopg

    conn = connect(url)
    try:
        server_schema.check_server(conn)
        learner = conn.execute("SELECT current_user").fetchone()[0]
        result = SyncResult(learner)
        _upload(store, conn, result)
        _pull(store, conn, result)
        _upload_states(store, conn)
        return result
    except psycopg.Error as error:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise StudyappError(f"sync with {redacted(url)} stopped: {_without_secrets(detail, url)}; nothing was lost, "
                            "run 'studyapp sync' again to finish") from None
    finally:
        conn.close()


# ---------------------------------------------------------------- up

def _mark(store, key: str) -> int:
    with store.guarded():
        row = store.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def _set_marks(store, marks: dict[str, int]) -> None:
    from ..store.schema import write

    with store.guarded(), write(store.conn):
        store.conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                               "SET value = excluded.value", [(k, str(v)) for k, v in marks.items()])


UPLOAD_COLUMNS = ("uid, item_key, revision, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
                  "interval, last_interval, stability, difficulty, due_ms, scheduler_version, scheduler_params")


def _upload(store, conn, result: SyncResult) -> None:
    after_log = _mark(store, "sync:uploaded_log_id")
    after_exam = _mark(store, "sync:uploaded_exam_id")
    with store.guarded():
        rows = store.conn.execute(
            "SELECT r.id, r.uid, i.key, i.revision, r.kind, r.rating, r.time_ms, r.sched_ms, r.duration_ms, "
            "r.state_before, r.state_after, r.interval, r.last_interval, r.stability, r.difficulty, r.due_ms, "
            "s.version, s.params FROM review_log r JOIN items i ON i.id = r.item_id "
            "JOIN schedulers s ON s.id = r.scheduler_id WHERE r.id > ? ORDER BY r.id", (after_log,)).fetchall()
        undone = store.conn.execute("SELECT uid, time_ms FROM undone_log").fetchall()
        exams = store.conn.execute(
            "SELECT id, uid, time_ms, deck_ids, seed, mode, questions, correct, pass_mark, answers "
            "FROM exam_results WHERE id > ? ORDER BY id", (after_exam,)).fetchall()
        flags = store.conn.execute("SELECT key, flag_note, flagged_ms FROM items WHERE flagged_ms IS NOT NULL").fetchall()
        settings = store.conn.execute("SELECT json, updated_ms FROM settings WHERE id = 1").fetchone()
    placeholders = ", ".join(["%s"] * len(UPLOAD_COLUMNS.split(", ")))
    with conn.transaction():
        with conn.cursor() as cursor:
            cursor.executemany(f"INSERT INTO studyapp.reviews ({UPLOAD_COLUMNS}) VALUES ({placeholders}) "
                               "ON CONFLICT (uid) DO NOTHING", [row[1:] for row in rows])
            cursor.executemany("INSERT INTO studyapp.undone (uid, time_ms) VALUES (%s, %s) ON CONFLICT (uid) DO NOTHING",
                               undone)
            cursor.executemany(
                "INSERT INTO studyapp.exams (uid, time_ms, result) VALUES (%s, %s, %s) ON CONFLICT (uid) DO NOTHING",
                [(e[1], e[2], json.dumps({"deck_ids": json.loads(e[3]), "seed": e[4], "mode": e[5], "questions": e[6],
                                          "correct": e[7], "pass_mark": e[8], "answers": json.loads(e[9])}))
                 for e in exams])
            cursor.executemany(
                "INSERT INTO studyapp.flags (item_key, note, changed_ms) VALUES (%s, %s, %s) "
                "ON CONFLICT (learner, item_key) DO UPDATE SET note = excluded.note, changed_ms = excluded.changed_ms "
                "WHERE studyapp.flags.changed_ms < excluded.changed_ms", flags)
            if settings is not None:
                cursor.execute(
                    "INSERT INTO studyapp.settings (name, value, changed_ms) VALUES ('settings', %s, %s) "
                    "ON CONFLICT (learner, name) DO UPDATE SET value = excluded.value, changed_ms = excluded.changed_ms "
                    "WHERE studyapp.settings.changed_ms < excluded.changed_ms", (settings[0], settings[1]))
    # Only after the server committed: a connection lost before this point sends them again next time,
    # and the server keeps one copy of each.
    marks = {}
    if rows:
        marks["sync:uploaded_log_id"] = rows[-1][0]
    if exams:
        marks["sync:uploaded_exam_id"] = exams[-1][0]
    if marks:
        _set_marks(store, marks)
    result.uploaded, result.exams_uploaded = len(rows), len(exams)


def _upload_states(store, conn) -> None:
    """Each studied item's state after the pull's replay, for the team view (which reads states
    instead of replaying everyone's log). The latest review decides: a device that has not pulled
    yet never overwrites a newer state."""
    with store.guarded():
        states = store.conn.execute("SELECT key, state, stability, reps, last_review_ms FROM items "
                                    "WHERE last_review_ms IS NOT NULL").fetchall()
    with conn.transaction(), conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO studyapp.item_states (item_key, state, stability, reps, last_review_ms) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (learner, item_key) DO UPDATE SET state = excluded.state, "
            "stability = excluded.stability, reps = excluded.reps, last_review_ms = excluded.last_review_ms "
            "WHERE studyapp.item_states.last_review_ms <= excluded.last_review_ms", states)


# ---------------------------------------------------------------- down

def _pull(store, conn, result: SyncResult) -> None:
    from ..store.schema import write

    after_xid = _mark(store, "sync:pulled_xmin")
    with conn.transaction():
        # One snapshot for every read, and the oldest transaction it could not see yet: the next
        # pull starts there (rows seen twice are known by their ids and skipped).
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        next_xid = conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").fetchone()[0]
        rows = conn.execute(f"SELECT seq, {UPLOAD_COLUMNS} FROM studyapp.reviews WHERE learner = current_user "
                            "AND xid >= %s::text::xid8 ORDER BY seq", (str(after_xid),)).fetchall()
        undone = conn.execute("SELECT seq, uid, time_ms FROM studyapp.undone WHERE learner = current_user "
                              "AND xid >= %s::text::xid8 ORDER BY seq", (str(after_xid),)).fetchall()
        exams = conn.execute("SELECT uid, time_ms, result FROM studyapp.exams WHERE learner = current_user").fetchall()
        flags = conn.execute("SELECT item_key, note, changed_ms FROM studyapp.flags "
                             "WHERE learner = current_user").fetchall()
        settings = conn.execute("SELECT value, changed_ms FROM studyapp.settings WHERE learner = current_user "
                                "AND name = 'settings'").fetchone()
    touched: set[int] = set()
    with store.guarded(), write(store.conn):
        db = store.conn
        known = {uid for (uid,) in db.execute("SELECT uid FROM review_log WHERE uid IS NOT NULL")}
        gone = {uid for (uid,) in db.execute("SELECT uid FROM undone_log")}
        new_rows = [row for row in rows if row[1] not in known and row[1] not in gone]
        for row in new_rows:
            (_, uid, key, revision, kind, rating, time_ms, sched_ms, duration_ms, before, after, interval,
             last_interval, stability, difficulty, due_ms, version, params) = row
            item_id = _item_id(db, key, revision)
            scheduler_id = _scheduler_id(db, version, params)
            db.execute("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                       "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, uid) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (item_id, kind, rating, time_ms, sched_ms, duration_ms, before, after, interval, last_interval,
                        stability, difficulty, due_ms, scheduler_id, uid))
            touched.add(item_id)
        for _, uid, time_ms in undone:
            found = db.execute("SELECT item_id FROM review_log WHERE uid = ?", (uid,)).fetchone()
            if found is not None:
                db.execute("DELETE FROM review_log WHERE uid = ?", (uid,))
                touched.add(found[0])
                result.undone += 1
            db.execute("INSERT OR IGNORE INTO undone_log (uid, time_ms) VALUES (?, ?)", (uid, time_ms))
        local_exams = {uid for (uid,) in db.execute("SELECT uid FROM exam_results WHERE uid IS NOT NULL")}
        for uid, time_ms, exam in exams:
            if uid in local_exams:
                continue
            exam = exam if isinstance(exam, dict) else json.loads(exam)
            db.execute("INSERT INTO exam_results (time_ms, deck_ids, seed, mode, questions, correct, pass_mark, "
                       "answers, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (time_ms, json.dumps(exam["deck_ids"]), exam["seed"], exam["mode"], exam["questions"],
                        exam["correct"], exam["pass_mark"], json.dumps(exam["answers"], ensure_ascii=False), uid))
            result.exams_pulled += 1
        for key, note, changed_ms in flags:
            db.execute("UPDATE items SET flag_note = ?, flagged_ms = ? WHERE key = ? "
                       "AND coalesce(flagged_ms, 0) < ?", (note, changed_ms, key, changed_ms))
        if settings is not None:
            value = settings[0] if isinstance(settings[0], str) else json.dumps(settings[0])
            # A device that never saved settings has no row yet: it takes the learner's.
            db.execute("INSERT INTO settings (id, json, updated_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE "
                       "SET json = excluded.json, updated_ms = excluded.updated_ms "
                       "WHERE settings.updated_ms < excluded.updated_ms", (value, settings[1]))
        db.execute("INSERT INTO meta (key, value) VALUES ('sync:pulled_xmin', ?) ON CONFLICT (key) DO UPDATE "
                   "SET value = excluded.value", (str(next_xid),))
    if touched:
        from ..core.scheduler import NEW_STATE

        # An item whose every answer was undone has nothing left to replay: it is new again.
        replayed = store.replay(touched, merged=True)
        store.write_states({item_id: replayed.get(item_id, NEW_STATE) for item_id in touched})
    result.pulled, result.replayed_items = len(new_rows), len(touched)


def _item_id(db, key: str, revision: int) -> int:
    found = db.execute("SELECT id FROM items WHERE key = ?", (key,)).fetchone()
    if found is not None:
        return found[0]
    deck_id, card_id, variant = key.split("/", 2)
    from ..core.clock import SystemClock

    # Studied on another device from a deck this one has not opened yet: the row waits, out of
    # sight, until the deck is loaded here; the deck's fingerprint is forgotten so that happens.
    cursor = db.execute("INSERT INTO items (key, deck_id, card_id, variant, revision, present, created_ms) "
                        "VALUES (?, ?, ?, ?, ?, 0, ?)", (key, deck_id, card_id, variant, revision,
                                                        SystemClock().now_ms()))
    db.execute("DELETE FROM meta WHERE key = ?", (f"sync:{deck_id}",))
    return int(cursor.lastrowid)


def _scheduler_id(db, version: str, params: str) -> int:
    db.execute("INSERT OR IGNORE INTO schedulers (version, params) VALUES (?, ?)", (version, params))
    return db.execute("SELECT id FROM schedulers WHERE version = ? AND params = ?", (version, params)).fetchone()[0]
