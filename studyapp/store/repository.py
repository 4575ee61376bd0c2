"""The progress store: items, their scheduling state and the review log, in one SQLite file.

Every change is one ``BEGIN IMMEDIATE`` transaction. An answer writes the item's new
state and appends one review-log row together, so a crash leaves either both or
neither. The log is the source of truth: ``rebuild_states`` replays it.
"""

from __future__ import annotations

import heapq
import json
import os
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from operator import itemgetter
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ..core.clock import Clock, SystemClock
from ..core.gcpause import collector_paused
from ..core.models import SYNC_VERSION, VARIANT_SLOTS, Deck, sync_fingerprint, sync_rows
from ..core.presets import DEFAULT_PRESET, Preset, Presets
from ..core.queue import card_rank, rank
from ..core.retention import TrueRetention
from ..core.problems import StudyappError
from ..core.scheduler import (FSRS_VERSION, LEARNING, NEW, NEW_STATE, RELEARNING, REVIEW, ItemState, Preview,
                              ReviewScheduler, Settings, _item_state)
from ..core.settings import Location
from . import schema, walindex
from .schema import guarded, write

QUEUE_NEW, QUEUE_LEARNING, QUEUE_REVIEW = 0, 1, 2
QUEUE_OF_STATE = {NEW: QUEUE_NEW, LEARNING: QUEUE_LEARNING, RELEARNING: QUEUE_LEARNING, REVIEW: QUEUE_REVIEW}
# What a queue may show today: the item is in its deck, not suspended, not buried today (bind today).
VISIBLE = "present = 1 AND suspended = 0 AND buried_day < ?"
# A deck's present rows in bank order, joined as core.models.sync_rows joins its items. SQLite
# 3.40 has no ORDER BY inside group_concat; it joins in the order it scans, and the index it must
# use holds a deck's present rows by position. Were that ever not so, the deck would only take
# the full diff, which is exact. (A subquery with ORDER BY, which says the order, copied every
# row into it: 2.35 ms a deck of 10,000 rows against 1.8.)
_SYNC_ROWS_FROM = "FROM items INDEXED BY items_deck_sync WHERE deck_id = ? AND present = 1"
_SYNC_ROWS_SQL = f"SELECT group_concat(sync_row, char(30)) {_SYNC_ROWS_FROM}"
# The same rows one by one, joined in Python: slower alone (3 ms a deck against 1.8), but beside
# the group_concat of another thread it takes nothing from it (see Store._read_sync_rows_aside).
_SYNC_ROW_BY_ROW_SQL = f"SELECT sync_row {_SYNC_ROWS_FROM}"
SYNC_PREFIX = f"{SYNC_VERSION}:"

ITEM_COLUMNS = ("id, key, deck_id, card_id, variant, revision, position, present, state, step, stability, "
                "difficulty, due_ms, last_review_ms, interval, reps, lapses, leech, suspended, buried_day, "
                "flag_note, flagged_ms")
LOG_COLUMNS = ("id, item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, interval, "
               "last_interval, stability, difficulty, due_ms, scheduler_id, source, anki_revlog_id")


@dataclass(frozen=True, slots=True)
class ItemRow:
    """An item as stored: identity, scheduling state and status (suspended, buried, flagged)."""

    id: int
    key: str
    deck_id: str
    card_id: str
    variant: str
    revision: int
    position: int
    present: bool
    state: ItemState
    suspended: bool = False
    buried_day: int = 0
    flag_note: str | None = None
    flagged_ms: int | None = None

    @property
    def sibling_key(self) -> str:
        return f"{self.deck_id}/{self.card_id}"


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One review-log row."""

    id: int
    item_id: int
    kind: str  # review | cram | reset
    rating: int
    time_ms: int
    sched_ms: int
    duration_ms: int
    state_before: str
    state_after: str
    interval: int
    last_interval: int
    stability: float | None
    difficulty: float | None
    due_ms: int | None
    scheduler_id: int
    source: str = "studyapp"  # studyapp | anki
    anki_revlog_id: int | None = None


def _row_to_item(row: Sequence) -> ItemRow:
    # Both objects made through their slots: a frozen dataclass's __init__ sets each field through
    # object.__setattr__, and opening a session makes two for every item due (9 us a row here, 4 now).
    (id_, key, deck_id, card_id, variant, revision, position, present, state, step, stability, difficulty,
     due_ms, last_review_ms, interval, reps, lapses, leech, suspended, buried_day, flag_note, flagged_ms) = row
    item = _new_object(ItemRow)
    _set_id(item, id_)
    _set_key(item, key)
    _set_deck(item, deck_id)
    _set_card(item, card_id)
    _set_variant(item, variant)
    _set_revision(item, revision)
    _set_position(item, position)
    _set_present(item, bool(present))
    _set_state(item, _item_state(state, step, stability, difficulty, due_ms, last_review_ms, interval, reps, lapses,
                                 bool(leech)))
    _set_suspended(item, bool(suspended))
    _set_buried(item, buried_day)
    _set_flag_note(item, flag_note)
    _set_flagged(item, flagged_ms)
    return item


(_set_id, _set_key, _set_deck, _set_card, _set_variant, _set_revision, _set_position, _set_present, _set_state,
 _set_suspended, _set_buried, _set_flag_note, _set_flagged) = (ItemRow.__dict__[f.name].__set__ for f in fields(ItemRow))
_new_object = object.__new__
_ITEM_ROW_FIELDS = tuple(f.name for f in fields(ItemRow))
_ITEM_STATE_FIELDS = tuple(f.name for f in fields(ItemState))

try:
    from ..core._speedups import item_rows as _compiled_item_rows
except ImportError:  # an install that could not compile it
    _compiled_item_rows = None


def _rows_to_items(rows: Sequence[Sequence]) -> list[ItemRow]:
    """``[_row_to_item(row) for row in rows]``, compiled where the install could (core/_speedups.c
    item_rows: opening a session makes two objects for every review due)."""
    if _compiled_item_rows is not None:
        return _compiled_item_rows(rows, ItemRow, _ITEM_ROW_FIELDS, ItemState, _ITEM_STATE_FIELDS)
    return [_row_to_item(row) for row in rows]


def _state_values(state: ItemState) -> tuple:
    return (QUEUE_OF_STATE[state.state], state.state, state.step, state.stability, state.difficulty, state.due_ms,
            state.last_review_ms, state.interval, state.reps, state.lapses, int(state.leech))


_SET_STATE = ("queue = ?, state = ?, step = ?, stability = ?, difficulty = ?, due_ms = ?, last_review_ms = ?, "
              "interval = ?, reps = ?, lapses = ?, leech = ?")


def _due_between(conn: sqlite3.Connection, deck_ids: Sequence[str], boundaries: Sequence[int]) -> list[int]:
    if not deck_ids or len(boundaries) < 2:
        return []
    spans = len(boundaries) - 1
    # One count per span over the covering index, all in one statement that returns one row: a
    # second thread (due_between_aside) then takes the GIL once, not once a span, while the
    # session's thread is busy in Python. (One GROUP BY query over the days took as long.)
    values = ", ".join(f"({i}, ?, ?)" for i in range(spans))
    marks = ",".join("?" * len(deck_ids))
    sql = (f"WITH span(i, low, high) AS (VALUES {values}) SELECT group_concat(i || ':' || (SELECT count(*) FROM "
           f"items INDEXED BY items_deck_due WHERE deck_id IN ({marks}) AND queue IN (1, 2) AND due_ms >= span.low "
           f"AND due_ms < span.high AND present = 1 AND suspended = 0)) FROM span")
    bounds = []
    for i in range(spans):
        bounds += [-(1 << 62) if i == 0 else boundaries[i], boundaries[i + 1]]
    out = [0] * spans
    for pair in conn.execute(sql, (*bounds, *deck_ids)).fetchone()[0].split(","):
        index, count = pair.split(":")
        out[int(index)] = int(count)
    return out


class Store:
    """A learner's progress database. Open it with ``open_store(location)``."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Clock, *, readonly: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.clock = clock
        self.readonly = readonly
        self._scheduler_ids: dict[str, int] = {}
        self._last_scheduler: tuple[Settings, int] | None = None
        self.writes = 0
        # data_version is asked before every pick: a cursor kept for it spares making one each time.
        self._version_cursor = conn.cursor()
        self._seed: int | None = None
        self._cleanup: Callable[[], object] | None = None
        self._file = conn.execute("PRAGMA database_list").fetchone()[2]  # "" for a database in memory
        # data_version's shortcut: the WAL-index header as the last PRAGMA data_version saw it
        # (store.walindex); None until then, or when it cannot be read.
        in_wal = self._file and str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
        self._wal_index = walindex.open_header(self._file) if in_wal else None
        self._seen_header: bytes | None = None
        self._seen_version = 0
        self._seen_writes = 0  # self.writes when the header was seen
        self._answered_at = -1  # self.writes as this store's last answer was stored
        self._open_key = schema.note_open(Path(self._file or path))
        conn.create_function("studyapp_rank", 2, rank, deterministic=True)

    # -- life cycle

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass
        schema.note_closed(self._open_key)
        self._open_key = None
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None

    def _aside(self, work: Callable[[sqlite3.Connection], object], name: str) -> threading.Thread | None:
        """``work`` started on a thread of its own with a second connection (closed after it); a
        failure there leaves its results unwritten, for the caller to find missing. None when
        no second connection could be opened (a database in memory, a busy or odd file)."""
        try:
            reader = self.second_reader()
        except (sqlite3.Error, OSError):
            return None
        if reader is None:
            return None

        def run() -> None:
            try:
                work(reader)
            except sqlite3.Error:
                pass
            finally:
                reader.close()

        worker = threading.Thread(target=run, name=name, daemon=True)
        worker.start()
        return worker

    def second_reader(self) -> sqlite3.Connection | None:
        """Another read-only connection to the file this store reads (None for a database in memory),
        for a long scan on a second thread: the caller closes it."""
        if not self._file:
            return None
        return schema.connect(Path(self._file), readonly=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def guarded(self):
        return guarded(self.path)

    # -- settings

    @contextmanager
    def busy_timeout(self, ms: int):
        """Wait at most ``ms`` for another process's write lock, within the block (instead of
        schema.BUSY_TIMEOUT_MS): for a caller that retries, and must not hold its thread that long."""
        with self.guarded():
            self.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")
        try:
            yield
        finally:
            with self.guarded():
                self.conn.execute(f"PRAGMA busy_timeout = {schema.BUSY_TIMEOUT_MS}")

    @contextmanager
    def sync_later(self):
        """Commits in the block return before their fsync (synchronous=NORMAL for the block); the
        caller then calls ``sync_wal``, on any thread. In WAL mode such a commit already survives a
        killed or crashed process (its frames are in the OS's cache once COMMIT returns); the fsync
        is what makes it survive a power cut, as synchronous=FULL would have before COMMIT returned.
        For the review screen, which draws the next card while that fsync runs."""
        with self.guarded():
            self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            yield
        finally:
            with self.guarded():
                self.conn.execute("PRAGMA synchronous = FULL")

    def sync_wal(self) -> None:
        """fsync the WAL (the commits made in ``sync_later``). Needs no lock and no connection: it
        runs on its own descriptor, and releases the GIL while the disk works."""
        if not self._file:
            return
        try:
            fd = os.open(self._file + "-wal", os.O_RDONLY)
        except FileNotFoundError:
            # The last connection closed and checkpointed: SQLite synced the WAL before copying it
            # into the database, and the database after.
            return
        try:
            os.fdatasync(fd)
        finally:
            os.close(fd)

    def load_settings(self) -> Settings:
        with self.guarded():
            row = self.conn.execute("SELECT json FROM settings WHERE id = 1").fetchone()
        if row is None:
            return Settings()
        try:
            data = json.loads(row[0])
        except ValueError:
            raise schema.damaged(self.path, "the stored settings are not valid JSON") from None
        return Settings.from_dict(data, source=f"{self.path}: settings")

    def save_settings(self, settings: Settings) -> None:
        settings.validate()
        text = json.dumps(settings.to_dict(), sort_keys=True)
        with self.guarded(), self._write():
            self.conn.execute("INSERT INTO settings (id, json, updated_ms) VALUES (1, ?, ?) "
                              "ON CONFLICT (id) DO UPDATE SET json = excluded.json, updated_ms = excluded.updated_ms",
                              (text, self.clock.now_ms()))

    # -- deck option presets (schema 2)

    def load_presets(self) -> Presets:
        """Every preset and the deck assignments; Default is always there."""
        with self.guarded():
            rows = self.conn.execute("SELECT name, json FROM presets ORDER BY name").fetchall()
            assigned = dict(self.conn.execute("SELECT deck_id, preset FROM deck_presets").fetchall())
        presets: dict[str, Preset] = {}
        for name, text in rows:
            try:
                data = json.loads(text)
            except ValueError:
                raise schema.damaged(self.path, f"preset {name!r} is not valid JSON") from None
            presets[name] = Preset.from_dict(data, source=f"{self.path}: preset {name!r}")
        presets.setdefault(DEFAULT_PRESET, Preset())
        for name, fitted in self.fitted_parameters().items():
            if name in presets:
                presets[name] = replace(presets[name], parameters=tuple(fitted["parameters"]))
        return Presets(presets, assigned)

    def save_preset(self, preset: Preset, *, rename_from: str | None = None) -> None:
        """Add or replace a preset (``rename_from``: the name it had, its decks follow it)."""
        preset.validate()
        data = preset.to_dict()
        # Fitted parameters live in preset_parameters, with when and from what they were fitted.
        data.pop("parameters", None)
        text = json.dumps(data, sort_keys=True)
        with self.guarded(), self._write():
            if rename_from is not None and rename_from != preset.name:
                if rename_from == DEFAULT_PRESET:
                    raise StudyappError("the Default preset cannot be renamed; make a new preset instead",
                                        code="usage")
                if self.conn.execute("SELECT 1 FROM presets WHERE name = ?", (preset.name,)).fetchone():
                    raise StudyappError(f"a preset named {preset.name!r} exists already; choose another name",
                                        code="usage")
                self.conn.execute("UPDATE presets SET name = ?, json = ?, updated_ms = ? WHERE name = ?",
                                  (preset.name, text, self.clock.now_ms(), rename_from))
                return
            self.conn.execute("INSERT INTO presets (name, json, updated_ms) VALUES (?, ?, ?) ON CONFLICT (name) "
                              "DO UPDATE SET json = excluded.json, updated_ms = excluded.updated_ms",
                              (preset.name, text, self.clock.now_ms()))

    # -- fitted FSRS parameters (schema 5)

    def fitted_parameters(self) -> dict[str, dict]:
        """Per preset name: {parameters, fitted_ms, reviews, items, source, fit} of the parameters in use."""
        with self.guarded():
            rows = self.conn.execute("SELECT preset, params, fitted_ms, reviews, items, source, fit "
                                     "FROM preset_parameters").fetchall()
        out = {}
        for preset, params, fitted_ms, reviews, items, source, fit in rows:
            try:
                out[preset] = {"parameters": json.loads(params), "fitted_ms": fitted_ms, "reviews": reviews,
                               "items": items, "source": source, "fit": json.loads(fit)}
            except ValueError:
                raise schema.damaged(self.path, f"the fitted parameters of preset {preset!r} are not valid JSON") \
                    from None
        return out

    def save_fitted_parameters(self, preset: str, parameters, *, reviews: int, items: int, source: str,
                               fit: dict, fitted_ms: int | None = None) -> None:
        """Make ``parameters`` the ones preset ``preset`` schedules with (creating the preset if new)."""
        Preset(name=preset, parameters=tuple(parameters))  # validates name and values
        fitted_ms = self.clock.now_ms() if fitted_ms is None else fitted_ms
        with self.guarded(), self._write():
            if not self.conn.execute("SELECT 1 FROM presets WHERE name = ?", (preset,)).fetchone():
                data = Preset(name=preset).to_dict()
                data.pop("parameters")
                self.conn.execute("INSERT INTO presets (name, json, updated_ms) VALUES (?, ?, ?)",
                                  (preset, json.dumps(data, sort_keys=True), fitted_ms))
            self.conn.execute(
                "INSERT INTO preset_parameters (preset, params, fitted_ms, reviews, items, source, fit) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (preset) DO UPDATE SET params = excluded.params, "
                "fitted_ms = excluded.fitted_ms, reviews = excluded.reviews, items = excluded.items, "
                "source = excluded.source, fit = excluded.fit",
                (preset, json.dumps(list(parameters)), fitted_ms, reviews, items, source,
                 json.dumps(fit, sort_keys=True)))

    def optimizer_log(self, deck_ids: Sequence[str] | None = None) -> list[tuple]:
        """(item key, kind, rating, time_ms, state before, duration_ms) of every log row (of the decks
        ``deck_ids``, or all), by item then time: what fitting and ``export log`` read. Undone
        answers are not in the log (an undo deletes its row; one undone on another device is named
        in undone_log and left out here too)."""
        where, args = "", ()
        if deck_ids is not None:
            where = f"AND i.deck_id IN ({','.join('?' * len(deck_ids))})"
            args = tuple(deck_ids)
        with self.guarded():
            return self.conn.execute(
                "SELECT i.key, r.kind, r.rating, r.time_ms, r.state_before, r.duration_ms FROM review_log r "
                "JOIN items i ON i.id = r.item_id "
                f"WHERE (r.uid IS NULL OR r.uid NOT IN (SELECT uid FROM undone_log)) {where} "
                "ORDER BY r.item_id, r.time_ms, r.id", args).fetchall()

    def stored_decks(self) -> list[str]:
        with self.guarded():
            return [d for (d,) in self.conn.execute("SELECT DISTINCT deck_id FROM items ORDER BY deck_id")]

    def _optimizer_select(self, columns: str, deck_ids: Sequence[str] | None) -> tuple[str, list]:
        """A SELECT of ``columns`` (``r`` is the log, ``kind`` Anki's review kind) over the rows fitting
        reads: every log row (of the decks ``deck_ids``, or all) but answers undone on another device."""
        from ..core import optimize as o

        kind = (f"CASE r.kind WHEN 'cram' THEN {o.KIND_CRAM} WHEN 'reset' THEN {o.KIND_RESET} ELSE "
                f"CASE r.state_before WHEN 'review' THEN {o.KIND_REVIEW} WHEN 'relearning' THEN {o.KIND_RELEARNING} "
                f"ELSE {o.KIND_LEARNING} END END")
        where, args = [], []
        if deck_ids is not None:
            where.append(f"r.item_id IN (SELECT id FROM items WHERE deck_id IN ({','.join('?' * len(deck_ids))}))")
            args += list(deck_ids)
        if self.conn.execute("SELECT 1 FROM undone_log LIMIT 1").fetchone():
            # An answer undone on another device after a sync: its row may still be here.
            where.append("(r.uid IS NULL OR r.uid NOT IN (SELECT uid FROM undone_log))")
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return f"SELECT {columns.format(kind=kind)} FROM review_log r{clause}", args

    def optimizer_rows(self, deck_ids: Sequence[str] | None = None, *, durations: bool = False) -> list[tuple]:
        """(item id, time_ms, rating, Anki's review kind) of every log row (of the decks ``deck_ids``,
        or all), by item, each item's in log order: what fitting reads (core.optimize.LogRow);
        with ``durations`` each row ends with its answer time (ms), for the workload simulator.
        The kind is ``core.optimize.kind_of`` in SQL: 100,000 rows then take a tenth of a second."""
        extra = ", r.duration_ms" if durations else ""
        with self.guarded():
            query, args = self._optimizer_select(f"r.item_id, r.time_ms, r.rating, {{kind}}{extra}", deck_ids)
            # In table order (the log's order), then by item: a stable sort keeps each item's rows
            # in log order, and costs a twentieth of SQLite's walk of the item index.
            rows = self.conn.execute(query, args).fetchall()
        rows.sort(key=itemgetter(0))
        return rows

    def optimizer_columns(self, next_day_at_s: int, deck_ids: Sequence[str] | None = None) -> list[list[int]]:
        """``optimizer_rows`` as five columns (item ids, times, ratings, kinds, and each row's Anki
        ``days_elapsed`` to the rollover ``next_day_at_s``), in the same order: what fitting reads.

        SQLite sorts the rows and hands each column over as one JSON array, which Python's json
        reads in C: at 100,000 rows half the time of fetching tuples, sorting and splitting them
        into columns. The days are Anki's arithmetic in SQL: SQLite's integer division truncates
        toward zero as Rust's does, and ``max(0, ...)`` is Anki's ``.max(0)``."""
        from ..core import optimize as o

        days = f"max(0, ({int(next_day_at_s)} - r.time_ms / 1000) / {o.DAY_SECS})"
        with self.guarded():
            query, args = self._optimizer_select(f"r.item_id AS c, r.time_ms AS t, r.rating AS g, {{kind}} AS k, "
                                                 f"{days} AS d", deck_ids)
            # Ordered by item, then by row id (the log's order), as optimizer_rows' stable sort;
            # NOT INDEXED: a sort of the table is cheaper than walking the item index row by row.
            query = query.replace("FROM review_log r", "FROM review_log r NOT INDEXED", 1)
            found = self.conn.execute(
                "SELECT json_group_array(c), json_group_array(t), json_group_array(g), json_group_array(k), "
                f"json_group_array(d) FROM ({query} ORDER BY r.item_id, r.id)", args).fetchone()
        return [json.loads(column) for column in found]

    def simulator_log_figures(self, deck_ids: Sequence[str], since_ms: int) -> tuple[dict[int, int], int]:
        """What the workload simulator needs of the log besides the answers (Anki's
        ``simulate_request_to_config``): each item's interval (days) of the last answer that left it
        in review (a relearning card's ``ivl`` in Anki: the interval of the review it lapsed from),
        and how many items of ``deck_ids`` were first answered after ``since_ms`` (Anki's
        ``introduced:1``: the first answer with a grade, cram included, after the previous rollover)."""
        marks = ",".join("?" * len(deck_ids))
        in_decks = (f"item_id IN (SELECT id FROM items WHERE deck_id IN ({marks})) "
                    "AND (uid IS NULL OR uid NOT IN (SELECT uid FROM undone_log))")
        with self.guarded():
            intervals = dict(self.conn.execute(
                f"SELECT item_id, interval FROM review_log WHERE {in_decks} AND kind = 'review' "
                "AND state_after = 'review' AND interval > 0 ORDER BY id", list(deck_ids)))
            (introduced,) = self.conn.execute(
                f"SELECT count(*) FROM (SELECT min(time_ms) AS first FROM review_log WHERE {in_decks} "
                "AND rating != 0 GROUP BY item_id) WHERE first > ?", [*deck_ids, since_ms]).fetchone()
        return intervals, introduced

    def delete_preset(self, name: str) -> None:
        """Remove a preset; its decks go back to Default."""
        if name == DEFAULT_PRESET:
            raise StudyappError("the Default preset cannot be deleted", code="usage")
        with self.guarded(), self._write():
            self.conn.execute("DELETE FROM presets WHERE name = ?", (name,))

    def assign_preset(self, deck_id: str, name: str) -> None:
        with self.guarded(), self._write():
            if name == DEFAULT_PRESET:
                self.conn.execute("DELETE FROM deck_presets WHERE deck_id = ?", (deck_id,))
                return
            if not self.conn.execute("SELECT 1 FROM presets WHERE name = ?", (name,)).fetchone():
                known = [n for (n,) in self.conn.execute("SELECT name FROM presets ORDER BY name")]
                raise StudyappError(f"no preset named {name!r}; presets: {', '.join(known)}", code="usage")
            self.conn.execute("INSERT INTO deck_presets (deck_id, preset) VALUES (?, ?) ON CONFLICT (deck_id) "
                              "DO UPDATE SET preset = excluded.preset", (deck_id, name))

    # -- custom study: today's limits extended, the presets untouched

    def extend_limits(self, day: int, deck_id: str, *, new: int = 0, review: int = 0) -> None:
        for label, value in (("new", new), ("review", review)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9999:
                raise StudyappError(f"{label} cards to add today must be a whole number from 0 to 9999, "
                                    f"not {value!r}", code="usage")
        with self.guarded(), self._write():
            self.conn.execute("INSERT INTO limit_extensions (day, deck_id, new, review) VALUES (?, ?, ?, ?) "
                              "ON CONFLICT (day, deck_id) DO UPDATE SET new = new + excluded.new, "
                              "review = review + excluded.review", (day, deck_id, new, review))

    def limit_extensions(self, day: int) -> dict[str, tuple[int, int]]:
        """Per deck: (extra new, extra reviews) allowed on study day ``day``."""
        with self.guarded():
            rows = self.conn.execute("SELECT deck_id, new, review FROM limit_extensions WHERE day = ?",
                                     (day,)).fetchall()
        return {deck_id: (new, review) for deck_id, new, review in rows}

    def profile_seed(self) -> int:
        """The seed of this profile's random new-card orders: made from when the database was
        created and its name, and kept (schema 6) so that it stays the same across restarts, a
        renamed file and a test's clock; the items' stored ``new_rank`` are ranks under it."""
        if self._seed is None:
            with self.guarded():
                rows = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN ('seed', 'created_ms')"))
            kept = rows.get("seed")
            self._seed = int(kept) if kept is not None else schema.profile_seed_of(rows.get("created_ms", 0),
                                                                                     self.path.name)
        return self._seed

    def scheduler_id(self, settings: Settings) -> int:
        """The id of this scheduler version and parameter set (call inside a write transaction)."""
        if self._last_scheduler is not None and self._last_scheduler[0] is settings:
            return self._last_scheduler[1]
        params = json.dumps(settings.scheduler_params(), sort_keys=True)
        cached = self._scheduler_ids.get(params)
        if cached is not None:
            self._last_scheduler = (settings, cached)
            return cached
        self.conn.execute("INSERT OR IGNORE INTO schedulers (version, params) VALUES (?, ?)",
                          (f"fsrs {FSRS_VERSION}", params))
        found = self.conn.execute("SELECT id FROM schedulers WHERE version = ? AND params = ?",
                                  (f"fsrs {FSRS_VERSION}", params)).fetchone()[0]
        self._scheduler_ids[params] = found
        self._last_scheduler = (settings, found)
        return found

    def scheduler_settings(self, scheduler_id: int) -> Settings:
        """The settings a logged review was scheduled with (limits set to defaults)."""
        with self.guarded():
            row = self.conn.execute("SELECT params FROM schedulers WHERE id = ?", (scheduler_id,)).fetchone()
        if row is None:
            raise schema.damaged(self.path, f"review log names an unknown scheduler {scheduler_id}")
        return Settings.from_dict(json.loads(row[0]), source=f"{self.path}: scheduler {scheduler_id}")

    # -- keeping items in step with the decks

    def sync(self, decks: Iterable[Deck]) -> None:
        """Make sure every item of ``decks`` has a row, with its bank position and revision.

        A card that left its deck keeps its row (``present = 0``) and its progress. A changed
        ``revision`` restarts the item: a ``reset`` row in the log records it.
        """
        if self.readonly:
            return
        decks = list(decks)
        # A fingerprint of each deck's items (keys, revisions, positions) is kept in meta:
        # a deck that has not changed since it was last synced costs one hash, not a scan.
        stored = self._stored_fingerprints([deck.id for deck in decks])
        # A deck with no fingerprint of this version will be compared with its rows whatever
        # its cards: SQLite reads those rows on a second connection while this thread makes the
        # decks' fingerprints (the two take about as long; the sqlite3 module lets go of the GIL).
        unmarked = [deck.id for deck in decks if not stored.get(deck.id, "").startswith(SYNC_PREFIX)]
        prefetched = self._read_sync_rows_aside(unmarked) if len(unmarked) > 1 else None
        stale: list[tuple[Deck, str]] = []
        for deck in decks:
            fingerprint = sync_fingerprint(deck)
            if stored.get(deck.id) != fingerprint:
                stale.append((deck, fingerprint))
        rows = prefetched() if prefetched is not None else {}
        if stale:
            self._sync([deck for deck, _ in stale], rows)
            with self.guarded(), self._write():
                self.conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                                      "SET value = excluded.value", [(f"sync:{d.id}", f) for d, f in stale])

    def _read_sync_rows_aside(self, deck_ids: Sequence[str]) -> Callable[[], dict[str, str | None]] | None:
        """Start reading the decks' rows as ``_in_step`` compares them, on a thread of its own;
        the function returned reads the ones the thread has not reached, then waits for it. None
        for a database in memory. A failure there only leaves the decks to be read again by
        ``_in_step``."""
        found: dict[str, str | None] = {}
        # The reader takes the decks from the last; this thread, once its fingerprints are made,
        # takes them from the first (on its own connection) until the two meet. Each reads its
        # own way: two group_concats at once in one process took longer than one after the
        # other (18 ms for 10 decks of 10,000 rows, against 24 on two threads), where one
        # group_concat beside a read of single rows took 15.5 (the reader lets go of the GIL
        # for the whole of each deck; this thread holds it to make each row's string).
        claimed: set[str] = set()
        lock = threading.Lock()

        def claim(deck_id: str) -> bool:
            with lock:
                if deck_id in claimed:
                    return False
                claimed.add(deck_id)
                return True

        def read(reader: sqlite3.Connection) -> None:
            for deck_id in reversed(deck_ids):
                if not claim(deck_id):
                    break
                found[deck_id] = reader.execute(_SYNC_ROWS_SQL, (deck_id,)).fetchone()[0]

        worker = self._aside(read, "sync-rows")  # a busy or odd file: _in_step reads the rows itself
        if worker is None:
            return None

        def wait() -> dict[str, str | None]:
            for deck_id in deck_ids:
                if not claim(deck_id):
                    break  # the reader has this one and every one after it
                with self.guarded():
                    rows = [row for (row,) in self.conn.execute(_SYNC_ROW_BY_ROW_SQL, (deck_id,)) if row is not None]
                found[deck_id] = "\x1e".join(rows) if rows else None
            worker.join()
            return found

        return wait

    def synced(self, fingerprints: Mapping[str, str]) -> bool:
        """Whether ``sync`` of decks with these fingerprints (deck id -> ``sync_fingerprint``) would
        change nothing: the last sync of every one of them kept the same fingerprint."""
        if not fingerprints:
            return False
        stored = self._stored_fingerprints(list(fingerprints))
        return all(stored.get(deck_id) == fingerprint and fingerprint for deck_id, fingerprint in fingerprints.items())

    def _stored_fingerprints(self, deck_ids: Sequence[str]) -> dict[str, str]:
        """deck id -> the fingerprint its last sync kept in meta, for the decks that have one."""
        if not deck_ids:
            return {}
        with self.guarded():
            rows = self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(deck_ids))})",
                                     [f"sync:{deck_id}" for deck_id in deck_ids]).fetchall()
        return {key.removeprefix("sync:"): value for key, value in rows}

    def _in_step(self, deck: Deck, read: Mapping[str, str | None] | None = None) -> bool:
        """Whether the stored items of ``deck`` are exactly its items (cards, variants, revisions,
        positions, all present, no other present): where a deck without a fingerprint (or with
        a stale one) has nothing to change, one read of an index in bank order and one string
        comparison instead of a diff. SQLite joins the deck's rows as ``sync_rows`` joins the
        deck's items, so no Python object is made per row on either side. (A row's key is its
        deck, card and variant joined, as sync writes it and as ``_sync`` matches rows.)
        ``read``: rows already read that way, by deck id (``_read_sync_rows_aside``)."""
        expected = sync_rows(deck)
        if read is not None and deck.id in read:
            joined = read[deck.id]
        else:
            with self.guarded():
                joined = self.conn.execute(_SYNC_ROWS_SQL, (deck.id,)).fetchone()[0]
        return (joined or "") == expected

    def _sync(self, decks: Sequence[Deck], read: Mapping[str, str | None] | None = None) -> None:
        decks = [deck for deck in decks if not self._in_step(deck, read)]
        if not decks:
            return
        now = self.clock.now_ms()
        wanted: dict[str, tuple[str, str, str, int, int]] = {}
        deck_ids = []
        for deck in decks:
            deck_ids.append(deck.id)
            for card_index, card in enumerate(deck.cards):
                for variant_index, variant in enumerate(card.variants()):
                    key = f"{deck.id}/{card.id}/{variant}"
                    wanted[key] = (deck.id, card.id, variant, card.revision,
                                   card_index * VARIANT_SLOTS + variant_index)
        with self.guarded():
            # Only identity columns: opening a session on 100,000 items must stay quick.
            existing: dict[str, tuple[int, int, int, int]] = {}
            for deck_id in deck_ids:
                for key, id_, revision, position, present in self.conn.execute(
                        "SELECT key, id, revision, position, present FROM items WHERE deck_id = ?", (deck_id,)):
                    existing[key] = (id_, revision, position, present)
            inserts, moves, gone, resets = [], [], [], []
            seed = self.profile_seed()
            for key, (deck_id, card_id, variant, revision, position) in wanted.items():
                found = existing.get(key)
                if found is None:
                    inserts.append((key, deck_id, card_id, variant, revision, position,
                                    card_rank(seed, deck_id, card_id), now))
                    continue
                id_, stored_revision, stored_position, present = found
                if stored_revision != revision:
                    resets.append((id_, revision))
                if stored_position != position or not present:
                    # A row another device's log brought in (sync.client) has no rank yet.
                    moves.append((position, card_rank(seed, deck_id, card_id), id_))
            for key, (id_, _, _, present) in existing.items():
                if key not in wanted and present:
                    gone.append((id_,))
            if not (inserts or moves or gone or resets):
                return
            with self._write():
                self.conn.executemany(
                    "INSERT INTO items (key, deck_id, card_id, variant, revision, position, new_rank, created_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING", inserts)
                self.conn.executemany("UPDATE items SET position = ?, new_rank = ?, present = 1 WHERE id = ?", moves)
                self.conn.executemany("UPDATE items SET present = 0 WHERE id = ?", gone)
                if resets:
                    scheduler = self.scheduler_id(self.load_settings())
                    for item_id, revision in resets:
                        self._reset(item_id, revision, now, scheduler)

    def _reset(self, item_id: int, revision: int, now: int, scheduler_id: int) -> None:
        current = self._item_by_id(item_id)
        assert current is not None
        if current.state != NEW_STATE:
            self._append_log(current.id, "reset", 0, now, now, 0, current.state, NEW_STATE, scheduler_id)
        self.conn.execute(f"UPDATE items SET {_SET_STATE}, revision = ?, suspended = 0, buried_day = 0 "
                          "WHERE id = ?", (*_state_values(NEW_STATE), revision, item_id))

    # -- reading items

    def item(self, key: str) -> ItemRow | None:
        with self.guarded():
            row = self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE key = ?", (key,)).fetchone()
        return _row_to_item(row) if row else None

    def item_by_id(self, item_id: int) -> ItemRow | None:
        with self.guarded():
            return self._item_by_id(item_id)

    def _item_by_id(self, item_id: int) -> ItemRow | None:
        row = self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE id = ?", (item_id,)).fetchone()
        return _row_to_item(row) if row else None

    def studied_keys(self, deck_id: str) -> set[str]:
        """Keys of the deck's stored items that have left the new state."""
        with self.guarded():
            rows = self.conn.execute("SELECT key FROM items WHERE deck_id = ? AND state != 'new'", (deck_id,))
            return {key for (key,) in rows}

    def stored_keys(self, deck_id: str) -> set[str]:
        """Keys of the deck's items present in the database."""
        with self.guarded():
            rows = self.conn.execute("SELECT key FROM items WHERE deck_id = ? AND present = 1", (deck_id,))
            return {key for (key,) in rows}

    def all_items(self) -> list[ItemRow]:
        with self.guarded():
            return [_row_to_item(r) for r in self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items ORDER BY id")]

    def item_states(self) -> list[tuple[int, str, ItemState, bool, int]]:
        """(id, key, state, suspended, buried day) of every item, in id order: what an export with progress
        reads, without building the rest of an ItemRow (half the time, for 10,000 items)."""
        with self.guarded():
            return [(id_, key, ItemState(state=state, step=step, stability=stability, difficulty=difficulty,
                                         due_ms=due_ms, last_review_ms=last_review_ms, interval=interval, reps=reps,
                                         lapses=lapses, leech=bool(leech)), bool(suspended), buried_day)
                    for (id_, key, state, step, stability, difficulty, due_ms, last_review_ms, interval, reps, lapses,
                         leech, suspended, buried_day) in self.conn.execute(
                        "SELECT id, key, state, step, stability, difficulty, due_ms, last_review_ms, interval, reps, "
                        "lapses, leech, suspended, buried_day FROM items ORDER BY id")]

    def _visible(self, deck_ids: Sequence[str], today: int) -> tuple[str, list]:
        marks = ",".join("?" * len(deck_ids))
        return f"deck_id IN ({marks}) AND {VISIBLE}", [*deck_ids, today]

    def learning_due(self, deck_ids: Sequence[str], until_ms: int, today: int, limit: int,
                     offset: int = 0) -> list[ItemRow]:
        """Learning and relearning items due at or before ``until_ms``, earliest first."""
        if not deck_ids:
            return []
        where, args = self._visible(deck_ids, today)
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT {ITEM_COLUMNS} FROM items WHERE queue = {QUEUE_LEARNING} AND due_ms <= ? AND {where} "
                "ORDER BY due_ms, id LIMIT ? OFFSET ?", (until_ms, *args, limit, offset)).fetchall()
        return _rows_to_items(rows)

    def reviews_due(self, deck_ids: Sequence[str], before_ms: int, today: int, limit: int,
                    offset: int = 0, *, day_of: Callable[[int], int] | None = None, seed: int = 0,
                    whole: bool = False) -> list[ItemRow]:
        """Review items due before ``before_ms`` (the end of today), most overdue first: by due
        time, or with ``day_of`` as Anki's default review order, by due day and then at random
        (core.queue.rank under ``seed``) within a day. ``whole``: the caller expects to want every
        row due (it counted them), which one read of full rows gives sooner; the result is the same."""
        if not deck_ids:
            return []
        where, args = self._visible(deck_ids, today)
        if whole and day_of is not None:
            # 2,142 rows due: 11 ms, where ids first and then the rows by id took 14.
            with self.guarded():
                rows = self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE queue = {QUEUE_REVIEW} "
                                         f"AND due_ms < ? AND {where}", (before_ms, *args)).fetchall()
            rows.sort(key=lambda r: (day_of(r[12]), rank(seed, r[1]), r[12]))  # due time: as ORDER BY due_ms below
            return _rows_to_items(rows[offset:offset + limit])
        if day_of is None:
            with self.guarded():
                rows = self.conn.execute(
                    f"SELECT {ITEM_COLUMNS} FROM items WHERE queue = {QUEUE_REVIEW} AND due_ms < ? AND {where} "
                    "ORDER BY due_ms, id LIMIT ? OFFSET ?", (before_ms, *args, limit, offset)).fetchall()
            return _rows_to_items(rows)
        with self.guarded():
            cursor = self.conn.execute(
                f"SELECT id, key, due_ms FROM items WHERE queue = {QUEUE_REVIEW} AND due_ms < ? AND {where} "
                "ORDER BY due_ms", (before_ms, *args))
            # A later due time is never an earlier day: the rows wanted are among those of the days up to
            # the last wanted row's, so only these are read and ranked (at 100,000 cards a deck has
            # thousands due).
            wanted = offset + limit
            due = cursor.fetchmany(wanted)
            if due and len(due) == wanted:
                last_day = day_of(due[-1][2])
                for row in cursor:
                    if day_of(row[2]) != last_day:
                        break
                    due.append(row)
            cursor.close()
            # Sorted here rather than by SQL functions: SQLite would call into Python twice for
            # every row due, at every read, where this calls rank and day_of from Python (cached).
            due.sort(key=lambda r: (day_of(r[2]), rank(seed, r[1])))
            ids = [r[0] for r in due[offset:offset + limit]]
            by_id = {r[0]: r for r in self._rows_by_id(ids)}
        return _rows_to_items([by_id[i] for i in ids])

    def new_items(self, deck_id: str, today: int, limit: int, offset: int = 0, *, order: str = "position",
                  seed: int = 0) -> list[ItemRow]:
        """New items of one deck: in bank order ("position"), by card in a random order and
        bank order within a card ("note", Anki's random notes), or each item at random ("card");
        the random orders rank with core.queue.rank under ``seed``."""
        where, args = self._visible([deck_id], today)
        if order == "position":
            with self.guarded():
                rows = self.conn.execute(
                    f"SELECT {ITEM_COLUMNS} FROM items WHERE queue = {QUEUE_NEW} AND {where} "
                    "ORDER BY position LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
            return _rows_to_items(rows)
        if order not in ("note", "card"):
            raise ValueError(f"unknown new item order {order!r}")
        if order == "note":
            stored = self._new_items_by_stored_rank(deck_id, today, limit, offset, seed, where, args)
            if stored is not None:
                return stored
        # The random orders, ranked here (see reviews_due): by card, bank order within it
        # ("note"), or by item ("card"); only the first rows are read in full.
        with self.guarded():
            if order == "note":
                ranked = self.conn.execute(f"SELECT id, card_id, position FROM items WHERE queue = {QUEUE_NEW} "
                                           f"AND {where}", args).fetchall()
                first = heapq.nsmallest(offset + limit, ranked, key=lambda r: (card_rank(seed, deck_id, r[1]), r[2]))
            else:
                ranked = self.conn.execute(f"SELECT id, key FROM items WHERE queue = {QUEUE_NEW} AND {where}",
                                           args).fetchall()
                first = heapq.nsmallest(offset + limit, ranked, key=lambda r: (rank(seed, r[1]), r[0]))
            ids = [r[0] for r in first[offset:]]
            by_id = {r[0]: r for r in self._rows_by_id(ids)}
        return _rows_to_items([by_id[i] for i in ids])

    def _new_items_by_stored_rank(self, deck_id: str, today: int, limit: int, offset: int, seed: int, where: str,
                                  args: list) -> list[ItemRow] | None:
        """``new_items`` in the "note" order read from the items' stored ranks (schema 6) through
        their index: only the rows wanted are read. None when the stored ranks cannot be trusted
        for this read: ranked under another seed than the one asked for, or an item of the deck
        without a rank (nothing studyapp writes leaves one; the ranking in Python then decides)."""
        if seed != self.profile_seed():
            return None
        with self.guarded():
            # In the index NULL ranks come first: one step finds out whether there is any.
            unranked = self.conn.execute(f"SELECT 1 FROM items INDEXED BY items_new_rank WHERE queue = {QUEUE_NEW} "
                                         "AND deck_id = ? AND new_rank IS NULL LIMIT 1", (deck_id,)).fetchone()
            if unranked is not None:
                return None
            rows = self.conn.execute(
                f"SELECT {ITEM_COLUMNS} FROM items INDEXED BY items_new_rank WHERE queue = {QUEUE_NEW} AND {where} "
                "ORDER BY new_rank, position LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
        return _rows_to_items(rows)

    def _rows_by_id(self, ids: Sequence[int]) -> list[tuple]:
        out: list[tuple] = []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            out += self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE id IN ({','.join('?' * len(chunk))})",
                                     chunk).fetchall()
        return out

    def count_capped(self, deck_ids: str | Sequence[str], queue: int, before_ms: int | None, today: int,
                     cap: int) -> int:
        """How many items of the deck(s) wait in ``queue`` (due before ``before_ms``), counting at most ``cap``."""
        if cap <= 0:
            return 0
        decks = [deck_ids] if isinstance(deck_ids, str) else list(deck_ids)
        if not decks:
            return 0
        marks = ",".join("?" * len(decks))
        index = "items_deck_new" if before_ms is None else "items_deck_due"
        due = "AND due_ms < ?" if before_ms is not None else ""
        due_args = [before_ms] if before_ms is not None else []
        with self.guarded():
            return self.conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM items INDEXED BY {index} WHERE deck_id IN ({marks}) "
                f"AND queue = ? {due} AND {VISIBLE} LIMIT ?)",
                (*decks, queue, *due_args, today, cap)).fetchone()[0]

    def due_counts(self, deck_ids: Sequence[str], queue: int, before_ms: int, today: int) -> dict[str, int]:
        """Per deck: items of ``queue`` (learning or review) due before ``before_ms``, in one indexed query."""
        if not deck_ids:
            return {}
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            # One pass over the covering index, one range per deck: no table lookups.
            rows = self.conn.execute(
                f"SELECT deck_id, count(*) FROM items INDEXED BY items_deck_due WHERE deck_id IN ({marks}) "
                f"AND queue = ? AND due_ms < ? AND {VISIBLE} GROUP BY deck_id",
                (*deck_ids, queue, before_ms, today)).fetchall()
        return dict(rows)

    def data_version(self) -> tuple[int, int]:
        """Changes whenever anything is committed: by another connection (SQLite's
        data_version) or through this store (its own count of write transactions).

        SQLite's figure is asked only when the WAL-index header moved (store.walindex) since it
        was last asked, by more than this store's own answer: an answer always changes rows, so
        its commit counts one on the header's change counter; when an answer was stored here
        since and the counter moved by exactly one, that answer was the only commit, and
        SQLite's figure, which leaves a connection's own commits out, is as it was. (Another
        write of the store may have changed nothing, and counted none: only answers count.)"""
        header = None
        if self._wal_index is not None:
            header = walindex.read_header(self._wal_index)
            if header is not None:
                if header == self._seen_header:
                    return self._seen_version, self.writes
                if self._answered_at > self._seen_writes and walindex.after_one_commit(self._seen_header, header):
                    self._seen_header, self._seen_writes = header, self.writes
                    return self._seen_version, self.writes
        with self.guarded():
            version = self._version_cursor.execute("PRAGMA data_version").fetchone()[0]
        # The header read before the PRAGMA: a commit between the two moves it again.
        self._seen_header = header if walindex.change_counter(header) is not None else None
        self._seen_version, self._seen_writes = version, self.writes
        return version, self.writes

    def _write(self):
        self.writes += 1
        return write(self.conn)

    def done_since(self, since_ms: int) -> dict[str, tuple[int, int]]:
        """Per deck: (new items introduced, review items answered) since ``since_ms`` (today's limits)."""
        with self.guarded():
            rows = self.conn.execute(
                "SELECT i.deck_id, sum(r.state_before = 'new'), sum(r.state_before = 'review') "
                # CROSS JOIN keeps SQLite on the time index: today's rows, not every item's history.
                "FROM review_log r CROSS JOIN items i ON i.id = r.item_id "
                "WHERE r.time_ms >= ? AND r.kind = 'review' GROUP BY i.deck_id", (since_ms,)).fetchall()
        return {deck_id: (new or 0, reviews or 0) for deck_id, new, reviews in rows}

    def reviewed_since(self, since_ms: int) -> dict[str, dict[str, str]]:
        """Sibling key -> {item key: the state it was in when first answered} since ``since_ms``
        (what an answer buries depends on the queue it was answered from, as in Anki)."""
        with self.guarded():
            rows = self.conn.execute(
                # The time index: today's rows, not a walk of the whole log in id order.
                "SELECT i.deck_id, i.card_id, i.key, r.state_before FROM review_log r INDEXED BY review_log_time "
                "CROSS JOIN items i ON i.id = r.item_id WHERE r.time_ms >= ? AND r.kind = 'review' ORDER BY r.id",
                (since_ms,)).fetchall()
        touched: dict[str, dict[str, str]] = {}
        for deck_id, card_id, key, state in rows:
            touched.setdefault(f"{deck_id}/{card_id}", {}).setdefault(key, state)
        return touched

    def forgotten_since(self, deck_ids: Sequence[str], since_ms: int) -> list[int]:
        """Ids of the items answered Again in a review since ``since_ms`` (custom study's "forgotten")."""
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT DISTINCT r.item_id FROM review_log r CROSS JOIN items i ON i.id = r.item_id "
                f"WHERE r.time_ms >= ? AND r.kind = 'review' AND r.rating = 1 AND i.deck_id IN ({marks}) "
                "AND i.present = 1 AND i.suspended = 0 ORDER BY r.item_id", (since_ms, *deck_ids)).fetchall()
        return [r[0] for r in rows]

    def next_due(self, deck_ids: Sequence[str], after_ms: int, today: int) -> tuple[int | None, int | None]:
        """(earliest learning due after ``after_ms``, earliest review due at or after ``after_ms``)."""
        if not deck_ids:
            return None, None
        where, args = self._visible(deck_ids, today)
        with self.guarded():
            learning = self.conn.execute(
                f"SELECT min(due_ms) FROM items WHERE queue = {QUEUE_LEARNING} AND due_ms > ? AND {where}",
                (after_ms, *args)).fetchone()[0]
            review = self.conn.execute(
                f"SELECT min(due_ms) FROM items WHERE queue = {QUEUE_REVIEW} AND due_ms >= ? AND {where}",
                (after_ms, *args)).fetchone()[0]
        return learning, review

    # -- writing: answers, status, undo

    def record_answer(self, item_id: int, compute: Callable[[ItemRow], Preview | None], *, kind: str, rating: int,
                      time_ms: int, sched_ms: int, duration_ms: int, settings: Settings,
                      suspend_leech: bool = False, shown: ItemRow | None = None) -> tuple[int, ItemRow, Preview | None]:
        """One transaction: re-read the item, let ``compute`` give the new state, store it and log it.

        ``compute`` sees the state as it is inside the transaction, so two processes answering
        the same item chain their answers instead of one overwriting the other. ``suspend_leech``:
        Anki's leech action "suspend", for an answer that makes the item a leech. ``shown``: the
        row as the caller read it; the update then applies only where the stored row is still
        exactly that one (every column), which stands for the re-read; else the item is read
        again and ``compute`` sees it as stored.
        Returns (log id, the row before, the preview applied).
        """
        conn = self.conn
        with self.guarded(), self._write():
            before = preview = None
            if shown is not None and kind == "review" and shown.id == item_id:
                preview = compute(shown)
                if preview is not None:
                    values = _state_values(preview.after)
                    if preview.after.state == shown.state.state:
                        # Queue and state stay: left out of SET, SQLite does not weigh the index
                        # on the queue (a third of the update's time); the stored queue checked.
                        cursor = conn.execute(_UPDATE_IF_UNCHANGED_SAME_QUEUE,
                                              (*values[2:], item_id, values[0], *_row_values(shown)))
                    else:
                        cursor = conn.execute(_UPDATE_IF_UNCHANGED, (*values, item_id, *_row_values(shown)))
                    if cursor.rowcount:
                        before = shown
            updated = before is not None
            if before is None:
                before = self._item_by_id(item_id)
                if before is None:
                    raise StudyappError(f"item {item_id} is not in {self.path}")
                preview = compute(before) if kind == "review" else None
            after = preview.after if preview is not None else before.state
            if preview is not None:
                # The intervals were computed when the item was shown: replaying needs that moment.
                sched_ms = preview.after.last_review_ms or sched_ms
            scheduler = self.scheduler_id(settings)
            log_id = self._append_log(item_id, kind, rating, time_ms, sched_ms, duration_ms, before.state, after,
                                      scheduler)
            if kind == "review" and not updated:
                conn.execute(_UPDATE_STATE, (*_state_values(after), item_id))
            if suspend_leech and preview is not None and after.leech and not before.state.leech:
                # In the answer's transaction: an answer and its leech suspension are stored together or
                # not at all, so an answer that failed (a busy database) can simply be given again.
                conn.execute("UPDATE items SET suspended = 1 WHERE id = ?", (item_id,))
        self._answered_at = self.writes  # (data_version) a commit of its own: the log row changed
        return log_id, before, preview

    def _append_log(self, item_id: int, kind: str, rating: int, time_ms: int, sched_ms: int, duration_ms: int,
                    before: ItemState, after: ItemState, scheduler_id: int) -> int:
        cursor = self.conn.execute(_INSERT_LOG, (
            item_id, kind, rating, time_ms, sched_ms, max(0, int(duration_ms)), before.state, after.state, after.interval,
            before.interval, after.stability, after.difficulty, after.due_ms, scheduler_id))
        return int(cursor.lastrowid)

    def set_status(self, item_id: int, *, suspended: bool | None = None, buried_day: int | None = None,
                   flag_note: str | None | type[Ellipsis] = ..., flagged_ms: int | None = None) -> ItemRow:
        """Change suspension, burial or flag; returns the row as it was before."""
        sets, args = [], []
        if suspended is not None:
            sets.append("suspended = ?")
            args.append(int(suspended))
        if buried_day is not None:
            sets.append("buried_day = ?")
            args.append(buried_day)
        if flag_note is not ...:
            # A cleared flag keeps the time it was cleared: sync passes the clearing on as the
            # latest change, instead of taking the server's older flag back.
            sets += ["flag_note = ?", "flagged_ms = ?"]
            args += [flag_note, flagged_ms]
        with self.guarded(), self._write():
            before = self._item_by_id(item_id)
            if before is None:
                raise StudyappError(f"item {item_id} is not in {self.path}")
            if sets:
                self.conn.execute(f"UPDATE items SET {', '.join(sets)} WHERE id = ?", (*args, item_id))
        return before

    def restore(self, row: ItemRow, *, delete_log_id: int | None = None) -> None:
        """Undo: put an item's status back as in ``row``; for an answer (``delete_log_id``) also
        its scheduling state, removing the log row the answer added."""
        with self.guarded(), self._write():
            if delete_log_id is not None:
                last = self.conn.execute("SELECT max(id) FROM review_log WHERE item_id = ?", (row.id,)).fetchone()[0]
                if last != delete_log_id:
                    raise StudyappError("cannot undo: this item was answered again since (in another window?)")
                # A sync may have carried the answer to the team server already: remember it was undone.
                self.conn.execute("INSERT OR IGNORE INTO undone_log (uid, time_ms) "
                                  "SELECT uid, ? FROM review_log WHERE id = ? AND uid IS NOT NULL",
                                  (self.clock.now_ms(), delete_log_id))
                self.conn.execute("DELETE FROM review_log WHERE id = ?", (delete_log_id,))
                self.conn.execute(f"UPDATE items SET {_SET_STATE} WHERE id = ?", (*_state_values(row.state), row.id))
            # Status only otherwise: an answer given meanwhile elsewhere must not be overwritten.
            self.conn.execute("UPDATE items SET suspended = ?, buried_day = ?, flag_note = ?, flagged_ms = ? "
                              "WHERE id = ?", (int(row.suspended), row.buried_day, row.flag_note, row.flagged_ms, row.id))

    # -- reviews from Anki

    def import_anki(self, planner: Callable[[dict[int, str], list[tuple]], object], settings: Settings, *,
                    dry_run: bool = False):
        """Apply what ``planner`` (``export.anki_import.plan_import`` bound to a package) finds, in one transaction.

        The plan is made inside the transaction from the log as it is then, so an answer given
        meanwhile in another window is seen. With ``dry_run`` nothing is written. Returns the plan.
        """
        if dry_run or self.readonly:
            with self.guarded():
                return planner(self._item_keys(), self._log())
        # A plan holds a tuple per review; the collector would walk them all, finding no cycle.
        with collector_paused():
            return self._import_anki(planner, settings)

    def _import_anki(self, planner, settings: Settings):
        with self.guarded():
            # Room for every page the log's indexes touch: with SQLite's default 2 MB the
            # insert of 100,000 rows spills pages to the WAL and reads them back.
            cache = self.conn.execute("PRAGMA cache_size").fetchone()[0]
            self.conn.execute("PRAGMA cache_size = -65536")
            # Every row's item and scheduler come from this same transaction's own reads, so
            # SQLite's two look-ups per row (a quarter of the insert) check nothing new.
            self.conn.execute("PRAGMA foreign_keys = OFF")
            # Likewise the log's CHECKs (half the cost of a row: SQLite builds the IN list of each
            # one again for every row): kind and source are the planner's own words, and the
            # rating is an Anki ease that read_package refuses outside 0 to 4.
            self.conn.execute("PRAGMA ignore_check_constraints = ON")
        try:
            return self._import_anki_within(planner, settings)
        finally:
            with self.guarded():
                # After the transaction (SQLite detaches a database only outside the one that read it).
                self.conn.execute("DROP TABLE IF EXISTS temp.import_item")
                if any(row[1] == "studyapp_package" for row in self.conn.execute("PRAGMA database_list")):
                    self.conn.execute("DETACH DATABASE studyapp_package")
                self.conn.execute("PRAGMA ignore_check_constraints = OFF")
                self.conn.execute("PRAGMA foreign_keys = ON")
                self.conn.execute(f"PRAGMA cache_size = {int(cache)}")

    def _import_anki_within(self, planner, settings: Settings):
        with self.guarded(), self._write():
            items = self._item_keys()
            plan = planner(dict(items), self._log())
            if not plan.changed:
                return plan
            ids = {key: id_ for id_, key in items.items()}
            scheduler = self.scheduler_id(settings)
            # One random prefix for the import and a count after it: as unique as a random uid each
            # (80 random bits tell imports apart), but the rows reach the uid index in its own order,
            # where random uids cost a quarter of the insert.
            prefix = secrets.token_hex(10)
            if plan.only_staged:
                self._insert_staged(plan, ids, scheduler, prefix)
            else:
                self._insert_reviews(plan, ids, scheduler, prefix)
            self.conn.executemany(
                f"UPDATE items SET {_SET_STATE}, suspended = ?, buried_day = ? WHERE id = ?",
                [(*_state_values(t.state), int(t.suspended), t.buried_day, ids[key]) for key, t in plan.states.items()])
            return plan

    def _insert_staged(self, plan, ids: dict[str, int], scheduler: int, prefix: str) -> None:
        """``_insert_reviews`` for a plan whose reviews are left in the package's collection: the same
        rows, converted and copied by SQL rather than bound one by one from Python."""
        staged = plan.staged
        self.conn.execute("ATTACH DATABASE ? AS studyapp_package", (f"{staged.database.as_uri()}?mode=ro",))
        self.conn.execute("CREATE TEMP TABLE import_item (card_seq INTEGER PRIMARY KEY, item_id INTEGER NOT NULL, "
                          "last_id INTEGER, state TEXT, stability REAL, difficulty REAL, due_ms INTEGER)")
        taken = []
        for card_seq, key in enumerate(staged.keys):
            state = plan.states.get(key)
            last = staged.last_rows.get(key) if state is not None else None
            if last is None:
                taken.append((card_seq, ids[key], None, None, None, None, None))
            else:
                state = state.state
                taken.append((card_seq, ids[key], last, state.state, state.stability, state.difficulty, state.due_ms))
        self.conn.executemany("INSERT INTO temp.import_item VALUES (?, ?, ?, ?, ?, ?, ?)", taken)
        # The last row of each item whose state is taken records that whole state; uids count in plan order.
        with self._indexes_built_after(staged.count):
            self.conn.execute(staged.insert("studyapp_package", scheduler), {"prefix": prefix})

    def _insert_reviews(self, plan, ids: dict[str, int], scheduler: int, prefix: str) -> None:
        # Item by item, each in time order (as the plan gives them): replaying needs only each
        # item's own order, and the item index then grows at its end.
        reviews = plan.reviews
        # The last row of each item whose state is taken records that whole state.
        last_of = {review.item_key: index for index, review in enumerate(reviews)}
        taken_at = {last_of[key]: taken.state for key, taken in plan.states.items() if key in last_of}
        # sched_ms is the answer time (?4 twice): Anki keeps no time the card was shown.
        rows = [(ids[r.item_key], r.kind, r.rating, r.time_ms, r.duration_ms, r.state_before, r.state_after,
                 r.interval, r.last_interval, None, r.difficulty, None, r.anki_revlog_id, f"{prefix}{index:012x}")
                for index, r in enumerate(reviews)]
        for index, state in taken_at.items():
            row = rows[index]
            rows[index] = (*row[:6], state.state, *row[7:9], state.stability, state.difficulty, state.due_ms,
                           *row[12:])
        with self._indexes_built_after(len(rows)):
            self.conn.executemany(
                "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, source, "
                "anki_revlog_id, uid) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                f"{int(scheduler)}, 'anki', ?13, ?14)", rows)

    @contextmanager
    def _indexes_built_after(self, incoming: int):
        """The review log's indexes dropped for an insert of ``incoming`` rows and built again after it,
        inside the caller's transaction, when the insert at least doubles the log.

        Building an index sorts its rows once; keeping it up during the insert places every row
        on its own, which costs more as long as the rows already there are fewer than the new
        ones. The indexes come back from their own definitions, so the schema is as it was, and
        a unique one refuses a duplicate when it is built, failing the transaction as the insert would.
        """
        existing = self.conn.execute("SELECT count(*) FROM review_log").fetchone()[0]
        if incoming <= existing:
            yield
            return
        indexes = self.conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                                    "AND tbl_name = 'review_log' AND sql IS NOT NULL ORDER BY name").fetchall()
        for name, _ in indexes:
            self.conn.execute(f'DROP INDEX "{name}"')
        yield
        for _, sql in indexes:
            self.conn.execute(sql)

    def _item_keys(self) -> dict[int, str]:
        return dict(self.conn.execute("SELECT id, key FROM items"))

    def _log(self) -> list[tuple]:
        """(item id, kind, time_ms, anki revlog id) of every log row, in order: what an import compares."""
        return self.conn.execute("SELECT item_id, kind, time_ms, anki_revlog_id FROM review_log ORDER BY id").fetchall()

    def log_for_export(self) -> list[tuple]:
        """(item id, kind, rating, time_ms, state before, state after, interval, last interval, difficulty,
        duration, anki revlog id) of every log row, in order: what an export with progress carries."""
        with self.guarded():
            return self.conn.execute(
                "SELECT item_id, kind, rating, time_ms, state_before, state_after, interval, last_interval, "
                "difficulty, duration_ms, anki_revlog_id FROM review_log ORDER BY id").fetchall()

    # -- the log

    def history(self, item_id: int) -> list[LogEntry]:
        with self.guarded():
            rows = self.conn.execute(f"SELECT {LOG_COLUMNS} FROM review_log WHERE item_id = ? ORDER BY id",
                                     (item_id,)).fetchall()
        return [LogEntry(*r) for r in rows]

    def log(self) -> list[LogEntry]:
        with self.guarded():
            return [LogEntry(*r) for r in self.conn.execute(f"SELECT {LOG_COLUMNS} FROM review_log ORDER BY id")]

    def rebuild_states(self) -> dict[int, ItemState]:
        """Every logged item's state, recomputed from the review log alone (in the order the
        answers were committed, which is the order they were applied in)."""
        return self.replay()

    def replay(self, item_ids: Iterable[int] | None = None, *, merged: bool = False) -> dict[int, ItemState]:
        """The state of each logged item (of ``item_ids``, or all), recomputed from the log alone.

        ``merged``: the log holds answers from several devices, replayed in the order they were
        given (time, then their global id), the one order every device agrees on, so that each
        device's answers count and all of them end in the same state."""
        keys = {row.id: row.key for row in self.all_items()}
        wanted = None if item_ids is None else set(item_ids)
        schedulers: dict[int, ReviewScheduler] = {}
        states: dict[int, ItemState] = {}
        order = "time_ms, uid" if merged else "id"
        with self.guarded():
            entries = [LogEntry(*r) for r in self.conn.execute(
                f"SELECT {LOG_COLUMNS} FROM review_log ORDER BY {order}")]
        for entry in entries:
            if wanted is not None and entry.item_id not in wanted:
                continue
            state = states.get(entry.item_id, NEW_STATE)
            if entry.kind == "reset":
                states[entry.item_id] = NEW_STATE
                continue
            if entry.kind != "review":
                states.setdefault(entry.item_id, state)
                continue
            if entry.source == "anki":
                # Anki scheduled it: its row holds the state Anki gave (the last one of an
                # import holds the card's whole state), never recomputed by ours. A review
                # older than one already replayed (studyapp answered after it, so the import
                # kept studyapp's schedule) joins the history without changing the state.
                if state.last_review_ms is None or entry.time_ms >= state.last_review_ms:
                    states[entry.item_id] = _state_from_anki_row(state, entry)
                else:
                    states[entry.item_id] = state
                continue
            scheduler = schedulers.get(entry.scheduler_id)
            if scheduler is None:
                scheduler = schedulers[entry.scheduler_id] = ReviewScheduler(self.scheduler_settings(entry.scheduler_id))
            after = scheduler.apply(state, keys[entry.item_id], entry.rating, entry.sched_ms).after
            if (scheduler.settings.load_balancer and after.state == REVIEW and entry.state_after == REVIEW
                    and entry.interval > 0 and entry.due_ms is not None):
                # The load balancer chose the day from that day's workload, which the log does not
                # hold: the logged day stands (the memory state is recomputed all the same).
                after = replace(after, interval=entry.interval, due_ms=entry.due_ms)
            states[entry.item_id] = after
        return states

    def write_states(self, states: dict[int, ItemState]) -> None:
        """Store recomputed states (after a replay), in one transaction."""
        with self.guarded(), self._write():
            self.conn.executemany(f"UPDATE items SET {_SET_STATE} WHERE id = ?",
                                  [(*_state_values(state), item_id) for item_id, state in states.items()])

    def stored_states(self) -> dict[int, ItemState]:
        return {row.id: row.state for row in self.all_items()}

    # -- figures for list, stats and the stats screen

    def deck_counts(self, deck_ids: Sequence[str]) -> dict[str, dict]:
        """Per deck: items present, new, learning and review (by state), reviews answered. What can
        be studied today (limits, burial) is the queue's to say (``ReviewSession``), and retention
        core.retention's, from ``retention_answers``."""
        out: dict[str, dict] = {}
        with self.guarded():
            for deck_id in deck_ids:
                counts = dict(self.conn.execute(
                    "SELECT state, count(*) FROM items WHERE deck_id = ? AND present = 1 GROUP BY state",
                    (deck_id,)).fetchall())
                reviews = self.conn.execute(
                    "SELECT count(*) FROM review_log r JOIN items i ON i.id = r.item_id "
                    "WHERE i.deck_id = ? AND r.kind = 'review'", (deck_id,)).fetchone()[0]
                out[deck_id] = {
                    "stored": sum(counts.values()),
                    "new": counts.get(NEW, 0),
                    "learning": counts.get(LEARNING, 0) + counts.get(RELEARNING, 0),
                    "review": counts.get(REVIEW, 0),
                    "reviews": reviews,
                }
        return out

    def due_between(self, deck_ids: Sequence[str], boundaries: Sequence[int]) -> list[int]:
        """Learning and review items due in each span [boundaries[i], boundaries[i + 1]); the
        first span takes everything due before its end (overdue items count there)."""
        with self.guarded():
            return _due_between(self.conn, deck_ids, boundaries)

    def due_between_aside(self, deck_ids: Sequence[str],
                          boundaries: Sequence[int]) -> Callable[[], list[int] | None] | None:
        """``due_between`` counted on a second connection, on a thread of its own, while this one
        goes on (a session gathers its queues meanwhile); the function returned waits for the
        counts: None when they could not be read there (then ask ``due_between``). None for a
        database in memory."""
        counted: list[list[int]] = []
        worker = self._aside(lambda reader: counted.append(_due_between(reader, deck_ids, boundaries)), "due-between")
        if worker is None:
            return None

        def wait() -> list[int] | None:
            worker.join()
            return counted[0] if counted else None

        return wait

    def due_per_day(self, deck_ids: Sequence[str], from_ms: int, day_of: Callable[[int], int],
                    until_ms: int) -> dict[int, int]:
        """Study day -> items falling due that day, for items due before ``until_ms`` (overdue count as ``from_ms``)."""
        if not deck_ids:
            return {}
        marks = ",".join("?" * len(deck_ids))
        counts: dict[int, int] = {}
        with self.guarded():
            for (due,) in self.conn.execute(
                    f"SELECT due_ms FROM items WHERE queue IN (1, 2) AND due_ms < ? AND present = 1 "
                    f"AND suspended = 0 AND deck_id IN ({marks})", (until_ms, *deck_ids)):
                day = day_of(max(due, from_ms))
                counts[day] = counts.get(day, 0) + 1
        return counts

    def answers_between(self, deck_ids: Sequence[str], from_ms: int, until_ms: int) -> list[tuple[int, int, int, str]]:
        """(time, rating, duration, state before) of the reviews answered in a window."""
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            return self.conn.execute(
                f"SELECT r.time_ms, r.rating, r.duration_ms, r.state_before FROM review_log r "
                f"CROSS JOIN items i ON i.id = r.item_id WHERE r.kind = 'review' AND r.time_ms >= ? AND r.time_ms < ? "
                f"AND i.deck_id IN ({marks}) ORDER BY r.time_ms", (from_ms, until_ms, *deck_ids)).fetchall()

    def retention_answers(self, deck_ids: Sequence[str], from_ms: int, until_ms: int) -> list[tuple[str, int, str, int, int]]:
        """(deck id, time, kind, rating, last interval) of the answers in a window, for core.retention."""
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            return self.conn.execute(
                f"SELECT i.deck_id, r.time_ms, r.kind, r.rating, r.last_interval FROM review_log r "
                f"CROSS JOIN items i ON i.id = r.item_id WHERE r.kind = 'review' AND r.time_ms >= ? AND r.time_ms < ? "
                f"AND i.deck_id IN ({marks}) ORDER BY r.time_ms", (from_ms, until_ms, *deck_ids)).fetchall()

    def retention_days(self, deck_ids: Sequence[str], from_ms: int, until_ms: int,
                       day_of: Callable[[int], int]) -> dict[str, dict[int, TrueRetention]]:
        """Per deck and study day, the True Retention counts of the reviews in a window: what
        ``core.retention.spans_from_days`` needs, summed in SQL by quarter hour (``retention_answers``
        read row by row gives the same figures, at a Python object and a day_of call per answer)."""
        from ..core.retention import BUCKET_MS, bucket_days, sql_counts, true_retention

        if not deck_ids:
            return {}
        marks = ",".join("?" * len(deck_ids))
        # `+` on time_ms: a scan of the log, as through the time index SQLite would fetch each row apart.
        where = (f"r.kind = 'review' AND +r.time_ms >= ? AND +r.time_ms < ? AND i.deck_id IN ({marks})")
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT i.deck_id, r.time_ms / {BUCKET_MS}, {sql_counts('r.kind', 'r.rating', 'r.last_interval')} "
                f"FROM review_log r CROSS JOIN items i ON i.id = r.item_id WHERE {where} GROUP BY 1, 2",
                (from_ms, until_ms, *deck_ids)).fetchall()
            days, split = bucket_days({row[1] for row in rows}, day_of)
            out: dict[str, dict[int, TrueRetention]] = {}
            for deck_id, bucket, *counts in rows:
                if bucket in days:
                    per_day = out.setdefault(deck_id, {})
                    day = days[bucket]
                    per_day[day] = per_day.get(day, TrueRetention()) + TrueRetention(*counts)
            for bucket in sorted(split):  # a bucket across two study days: answer by answer
                for deck_id, t, kind, rating, last_interval in self.conn.execute(
                        f"SELECT i.deck_id, r.time_ms, r.kind, r.rating, r.last_interval FROM review_log r "
                        f"CROSS JOIN items i ON i.id = r.item_id WHERE {where} AND r.time_ms >= ? AND r.time_ms < ?",
                        (from_ms, until_ms, *deck_ids, bucket * BUCKET_MS, (bucket + 1) * BUCKET_MS)):
                    per_day = out.setdefault(deck_id, {})
                    day = day_of(t)
                    per_day[day] = per_day.get(day, TrueRetention()) + true_retention(((kind, rating, last_interval),))
        return out

    def cram_items(self, deck_ids: Sequence[str]) -> list[int]:
        """Ids of every studyable item of the decks: scheduled ones soonest due first, then new in bank order."""
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        order = {deck_id: i for i, deck_id in enumerate(deck_ids)}
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT id, deck_id, queue, due_ms, position FROM items WHERE present = 1 AND suspended = 0 "
                f"AND deck_id IN ({marks})", tuple(deck_ids)).fetchall()
        rows.sort(key=lambda r: (r[2] == QUEUE_NEW, r[3] or 0, order[r[1]], r[4]))
        return [r[0] for r in rows]

    def leeches(self, deck_ids: Sequence[str]) -> list[ItemRow]:
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT {ITEM_COLUMNS} FROM items WHERE leech = 1 AND deck_id IN ({marks}) "
                "ORDER BY lapses DESC, key", tuple(deck_ids)).fetchall()
        return _rows_to_items(rows)

    def flagged(self, deck_ids: Sequence[str]) -> list[ItemRow]:
        if not deck_ids:
            return []
        marks = ",".join("?" * len(deck_ids))
        with self.guarded():
            rows = self.conn.execute(
                f"SELECT {ITEM_COLUMNS} FROM items WHERE flag_note IS NOT NULL AND deck_id IN ({marks}) "
                "ORDER BY flagged_ms", tuple(deck_ids)).fetchall()
        return _rows_to_items(rows)

    # -- exams

    def record_exam(self, *, deck_ids: Sequence[str], seed: int, mode: str, questions: int, correct: int,
                    pass_mark: float, answers: Sequence[dict]) -> None:
        """Store one finished exam (one transaction); the schedule is not touched."""
        with self.guarded(), self._write():
            self.conn.execute(
                "INSERT INTO exam_results (time_ms, deck_ids, seed, mode, questions, correct, pass_mark, answers, uid) "
                f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, {schema.NEW_UID_SQL})",
                (self.clock.now_ms(), json.dumps(list(deck_ids)), seed, mode, questions, correct, pass_mark,
                 json.dumps(list(answers), ensure_ascii=False)))

    def exam_results(self) -> list[dict]:
        """Every stored exam, oldest first, as keyword arguments for ``onboarding.report.ExamResult``."""
        with self.guarded():
            rows = self.conn.execute("SELECT time_ms, deck_ids, seed, mode, questions, correct, pass_mark "
                                     "FROM exam_results ORDER BY time_ms, id").fetchall()
        return [{"time_ms": t, "deck_ids": tuple(json.loads(d)), "seed": seed, "mode": mode, "questions": q,
                 "correct": c, "pass_mark": p} for t, d, seed, mode, q, c, p in rows]

    def integrity_check(self) -> list[str]:
        with self.guarded():
            return [r[0] for r in self.conn.execute("PRAGMA integrity_check").fetchall()]


# The answer's statements, built once (the sqlite3 module's statement cache is keyed by the text).
_UPDATE_STATE = f"UPDATE items SET {_SET_STATE} WHERE id = ?"
# ... applied only where every column still holds what the answering session read (_row_values).
_SAME_ROW = "".join(f" AND {c.strip()} IS ?" for c in ITEM_COLUMNS.split(",")[1:])
_UPDATE_IF_UNCHANGED = _UPDATE_STATE + _SAME_ROW
# ... and where the state stays: queue and state left out of SET (_state_values gives them first), the
# stored queue checked instead.
_UPDATE_IF_UNCHANGED_SAME_QUEUE = (
    f"UPDATE items SET {_SET_STATE.removeprefix('queue = ?, state = ?, ')} WHERE id = ? AND queue = ?{_SAME_ROW}")
_INSERT_LOG = ("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
               "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, uid) "
               f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {schema.NEW_UID_SQL})")


def _row_values(row: ItemRow) -> tuple:
    """An ItemRow's columns after the id, in ITEM_COLUMNS' order: _row_to_item read backwards."""
    state = row.state
    return (row.key, row.deck_id, row.card_id, row.variant, row.revision, row.position, row.present, state.state,
            state.step, state.stability, state.difficulty, state.due_ms, state.last_review_ms, state.interval,
            state.reps, state.lapses, state.leech, row.suspended, row.buried_day, row.flag_note, row.flagged_ms)


def _state_from_anki_row(before: ItemState, entry: LogEntry) -> ItemState:
    lapses = before.lapses + (1 if before.state == REVIEW and entry.rating == 1 else 0)
    return ItemState(state=entry.state_after, step=None if entry.state_after == REVIEW else 0,
                     stability=entry.stability if entry.stability is not None else before.stability,
                     difficulty=entry.difficulty if entry.difficulty is not None else before.difficulty,
                     due_ms=entry.due_ms, last_review_ms=entry.time_ms, interval=entry.interval,
                     reps=before.reps + 1, lapses=lapses, leech=before.leech)


def open_store(location: Location | Path, *, clock: Clock | None = None, readonly: bool = False) -> Store | None:
    """Open (creating if needed) the progress database of ``location``.

    Raises StudyappError with a message that says what to do for a foreign, damaged or
    newer database, a read-only or missing home folder, a full disk or another I/O failure.
    With ``readonly=True`` nothing is created or changed, and a missing database gives None;
    a database in a folder this user cannot write (a read-only home or backup) is read
    from a private copy of it and its -wal file, because SQLite needs a writable -shm to
    read a WAL-mode file in place.
    """
    path = location.database if isinstance(location, Location) else Path(location)
    clock = clock or SystemClock()
    if readonly:
        if not path.exists():
            return None
    else:
        schema.ensure_folder(path.parent)
    if path.exists():
        schema.check_file(path)
        if not readonly and schema.unwritable_files(path):
            raise schema.read_only(path)
    if readonly and schema.unwritable_files(path):
        return _open_copy(path, clock)
    return _open(path, path, clock, readonly)


def _open(path: Path, shown_as: Path, clock: Clock, readonly: bool, *, cleanup: Callable[[], None] | None = None,
          private_copy: bool = False) -> Store | None:
    conn = None
    try:
        with guarded(shown_as):
            # A private copy is opened read-write so that SQLite can build its -shm and read the -wal;
            # prepare(readonly=True) still writes nothing to it.
            conn = schema.connect(path, readonly=readonly and not private_copy)
            version = schema.prepare(conn, path, clock.now_ms(), readonly=readonly, shown_as=shown_as)
    except BaseException:
        if conn is not None:
            conn.close()
        if cleanup:
            cleanup()
        raise
    if readonly and version == 0:
        conn.close()
        if cleanup:
            cleanup()
        return None
    store = Store(conn, shown_as, clock, readonly=readonly)
    if cleanup is not None:
        import weakref

        # Also when a caller never closes it: the scratch copy holds the learner's answers.
        store._cleanup = weakref.finalize(store, _close_then, conn, cleanup)
    return store


def _close_then(conn: sqlite3.Connection, cleanup: Callable[[], None]) -> None:
    try:
        conn.close()
    except sqlite3.Error:
        pass
    cleanup()


def _open_copy(path: Path, clock: Clock) -> Store | None:
    import shutil
    import tempfile

    scratch = Path(tempfile.mkdtemp(prefix="studyapp-readonly-"))
    cleanup = lambda: shutil.rmtree(scratch, ignore_errors=True)  # noqa: E731
    try:
        with guarded(path):
            copy = scratch / path.name
            # The -wal first: a writer's checkpoint between the two copies then only repeats frames
            # the main file already has, never loses any.
            wal, _ = schema.companions(path)
            if wal.exists():
                shutil.copyfile(wal, scratch / wal.name)
            shutil.copyfile(path, copy)
    except BaseException:
        cleanup()
        raise
    return _open(copy, path, clock, True, cleanup=cleanup, private_copy=True)
