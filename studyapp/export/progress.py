"""A learner's progress written into an Anki package the way Anki writes its own.

genanki writes every card as new and has no review log. ``write_progress`` runs on the
package's collection (schema 11, before it is zipped) and gives each card the state of
its studyapp item, as Anki stores it (rslib ``card/mod.rs``, ``storage/card/data.rs``):

- ``type``/``queue``: new 0/0, learning 1/1 (or 3 when the step ends on a later study
  day, Anki's interday learning), review 2/2, relearning 3/1; suspended -1, buried -3;
- ``due``: the position for new cards, epoch seconds for intraday learning, and for
  reviews the study day counted from the collection's creation day. Anki's importer
  shifts day numbers by the difference between the package's "today" and its own
  (rslib ``apkg/import/cards.rs``), so a card due in k study days here is due in k days
  there;
- ``left``: the learning steps still to go, ``ivl``, ``factor``, ``reps``, ``lapses``;
- ``data``: the FSRS memory state ``{"s", "d", "dr", "decay", "lrt"}``.

Every review becomes a ``revlog`` row, and the options become a deck preset (``dconf``)
that every exported deck uses. The card ids are ``ids.anki_card_id`` of the item keys.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from operator import itemgetter
from datetime import datetime, timedelta
from math import isfinite
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple, Sequence

from ..core.gcpause import collector_paused
from ..core.models import BACKWARD, FORWARD, MAIN
from ..core.scheduler import LEARNING, NEW, RELEARNING, REVIEW, ReviewScheduler, Settings, StudyDays
from .anki import ExportPlan, anki_deck_id
from .ids import anki_card_id

# Anki's card types, queues and review kinds.
TYPE_NEW, TYPE_LEARN, TYPE_REVIEW, TYPE_RELEARN = 0, 1, 2, 3
QUEUE_NEW, QUEUE_LEARN, QUEUE_REVIEW, QUEUE_DAY_LEARN = 0, 1, 2, 3
QUEUE_SUSPENDED, QUEUE_USER_BURIED = -1, -3
REVLOG_LEARNING, REVLOG_REVIEW, REVLOG_RELEARNING, REVLOG_FILTERED, REVLOG_MANUAL = 0, 1, 2, 3, 4

# Anki's initial ease (250%), which its cards carry once they graduate.
GRADUATED_FACTOR = 2500
# The one preset every exported deck uses; its id never changes, so a second import
# leaves a preset the learner has edited in Anki alone (Anki adds a preset only if new).
PRESET_ID = 1608416414
PRESET_NAME = "studyapp"

# json.dumps(..., separators=(",", ":")) without building an encoder for each of 10,000 cards.
_compact_json = json.JSONEncoder(separators=(",", ":")).encode
_ANKI_TYPE = {NEW: TYPE_NEW, LEARNING: TYPE_LEARN, REVIEW: TYPE_REVIEW, RELEARNING: TYPE_RELEARN}
_REVLOG_KIND = {NEW: REVLOG_LEARNING, LEARNING: REVLOG_LEARNING, REVIEW: REVLOG_REVIEW,
                RELEARNING: REVLOG_RELEARNING}


@dataclass(frozen=True)
class ItemProgress:
    """What the export needs of one stored item."""

    key: str
    state: object  # core.scheduler.ItemState
    suspended: bool = False
    buried_day: int = 0
    # The interval (days) of the item's last review-state schedule: a relearning card keeps it.
    review_interval: int = 0


class LoggedReview(NamedTuple):
    """One review-log row to carry over, with the Anki revlog id it travels under."""

    key: str
    revlog_id: int
    kind: str  # review | cram | reset
    rating: int
    state_before: str
    interval: int
    last_interval: int
    difficulty: float | None
    duration_ms: int


class LogSource(NamedTuple):
    """A profile's review log left where it is: the export copies it into the package with SQL.

    100,000 rows read into Python and written out again cost more than Anki's whole export;
    SQLite carries them from one file to the other (``_copy_revlog``) without a Python object each."""

    database: Path  # the profile's SQLite file, attached read-only
    until_id: int  # the last log row when the items were read: later answers wait for the next export
    count: int  # log rows up to it
    item_ids: Mapping[str, int]  # item key -> its row id in the profile


@dataclass
class Progress:
    """A profile's progress for the export: settings, items by key, the review log in order
    (``log``, or ``source`` where the export reads it itself)."""

    settings: Settings
    items: Mapping[str, ItemProgress]
    log: Sequence[LoggedReview] = field(default_factory=list)
    presets: object = None  # core.presets.Presets; None: every deck uses the profile's settings
    source: LogSource | None = None

    @property
    def review_count(self) -> int:
        """Rows of the review log the export carries (those of items it has no card for included)."""
        return len(self.log) if self.source is None else self.source.count

    def preset_of(self, deck_id: str) -> tuple[str, Settings]:
        """The name of the preset a deck uses and the settings it schedules with."""
        return deck_settings(self.presets, self.settings, deck_id)


def deck_settings(presets, settings: Settings, deck_id: str) -> tuple[str, Settings]:
    from ..core.presets import DEFAULT_PRESET

    if presets is None:
        return DEFAULT_PRESET, settings
    preset = presets.for_deck(deck_id)
    return preset.name, preset.scheduling(settings)


def anki_preset(name: str) -> tuple[int, str]:
    """The Anki deck preset (id, name) for a studyapp preset: the same in every export."""
    from ..core.presets import DEFAULT_PRESET

    if name == DEFAULT_PRESET:
        return PRESET_ID, PRESET_NAME
    digest = hashlib.blake2b(f"studyapp-preset:{name}".encode("utf-8"), digest_size=6).digest()
    return PRESET_ID + 1 + int.from_bytes(digest, "big") % 1_000_000_000, f"{PRESET_NAME} {name}"


def variant_ords(card) -> dict[str, int]:
    """Each of a card's variants and the Anki card (template ordinal) it is."""
    if card.type == "reverse":
        return {FORWARD: 0, BACKWARD: 1}
    if card.type == "cloze":
        return {f"c{n}": n - 1 for n in card.cloze_numbers()}
    return {MAIN: 0}


def collection_day(days: StudyDays, crt_secs: int) -> int:
    """The study day Anki counts a collection's days from: the local date of its creation.

    Anki (rslib ``scheduler/timing.rs``) counts days elapsed from the creation date without
    the rollover, and the current date with it, which is ``StudyDays.day_of`` for now."""
    return datetime.fromtimestamp(crt_secs, days.zone).date().toordinal()


def minutes_west(days: StudyDays, secs: int) -> int:
    offset = datetime.fromtimestamp(secs, days.zone).utcoffset() or timedelta(0)
    return -int(offset.total_seconds() // 60)


def revlog_factor(difficulty: float | None) -> int:
    """Anki's revlog ``factor`` under FSRS: difficulty mapped to 100..1100 (rslib ``difficulty_shifted``)."""
    if difficulty is None:
        return 0
    return int(round(((difficulty - 1.0) / 9.0 + 0.1) * 1000))


def card_values(state, *, suspended: bool, buried: bool, position: int, settings: Settings, days: StudyDays,
                crt_day: int, review_interval: int = 0) -> tuple:
    """(type, queue, due, ivl, factor, reps, lapses, left, data) of an Anki card in ``state``."""
    kind = state.state
    if kind == NEW:
        anki_type, queue, due, interval, factor, left, data = TYPE_NEW, QUEUE_NEW, position, 0, 0, 0, "{}"
    else:
        anki_type = _ANKI_TYPE[kind]
        last_review = state.last_review_ms
        due_ms = state.due_ms if state.due_ms is not None else last_review
        data = _card_data_json(state, settings)
        if kind == REVIEW:
            queue, due, interval, factor, left = (QUEUE_REVIEW, days.day_of(due_ms) - crt_day, max(state.interval, 1),
                                                  GRADUATED_FACTOR, 0)
        else:
            steps = settings.learning_steps if kind == LEARNING else settings.relearning_steps
            step = state.step or 0
            left = max(len(steps) - step, 1)
            if last_review is not None and days.day_of(due_ms) > days.day_of(last_review):
                queue, due = QUEUE_DAY_LEARN, days.day_of(due_ms) - crt_day
            else:
                queue, due = QUEUE_LEARN, due_ms // 1000
            # A relearning card keeps the interval of the review it lapsed from.
            interval = 0 if kind == LEARNING else max(1, review_interval)
            factor = 0 if kind == LEARNING else GRADUATED_FACTOR
    if suspended:
        queue = QUEUE_SUSPENDED
    elif buried:
        queue = QUEUE_USER_BURIED
    return anki_type, queue, due, interval, factor, state.reps, state.lapses, left, data


def _card_data(state, settings: Settings) -> dict:
    data: dict = {}
    if state.stability is not None and state.difficulty is not None:
        data["s"] = round(float(state.stability), 4)
        data["d"] = round(float(state.difficulty), 3)
        data["dr"] = round(float(settings.desired_retention), 2)
        data["decay"] = round(float(settings.parameters[20]), 3) if len(settings.parameters) > 20 else 0.5
    if state.last_review_ms is not None:
        data["lrt"] = state.last_review_ms // 1000
    return data


def _card_data_json(state, settings: Settings) -> str:
    """``_compact_json(_card_data(state, settings))``, written out: it runs once for each studied card."""
    stability, difficulty, last_review = state.stability, state.difficulty, state.last_review_ms
    memory = stability is not None and difficulty is not None
    if memory:
        stability, difficulty = round(float(stability), 4), round(float(difficulty), 3)
        if not (isfinite(stability) and isfinite(difficulty)):
            return _compact_json(_card_data(state, settings))  # json's NaN and Infinity
    if last_review is not None:
        lrt = last_review // 1000
        lrt = f'"lrt":{lrt}' if type(lrt) is int else f'"lrt":{_compact_json(lrt)}'
    if not memory:
        return "{}" if last_review is None else "{" + lrt + "}"
    # The preset's part (retention, decay) is the same for every card: json's text of it, once.
    text = f'{{"s":{stability!r},"d":{difficulty!r},{_preset_data(settings)}'
    return text + "}" if last_review is None else text + "," + lrt + "}"


def _preset_data(settings: Settings) -> str:
    key = (settings.desired_retention, tuple(settings.parameters))
    text = _PRESET_DATA.get(key)
    if text is None:
        decay = round(float(settings.parameters[20]), 3) if len(settings.parameters) > 20 else 0.5
        text = _PRESET_DATA[key] = _compact_json({"dr": round(float(settings.desired_retention), 2),
                                                  "decay": decay})[1:-1]
    return text


_PRESET_DATA: dict[tuple, str] = {}


@collector_paused()
def write_progress(connection: sqlite3.Connection, plan: ExportPlan, progress: Progress, *, now: float,
                   staging: _RevlogStaging | None = None) -> None:
    """Give the package's cards their schedules, add the review log and the preset (one connection, no commit).

    ``staging``: ``start_revlog_staging(progress)``, started before the notes were planned."""
    settings = progress.settings
    days = ReviewScheduler(settings).days
    now_ms = int(now * 1000)
    today = days.day_of(now_ms)
    crt = int(connection.execute("SELECT crt FROM col").fetchone()[0])
    crt_day = collection_day(days, crt)

    per_deck = {deck.id: progress.preset_of(deck.id) for deck in plan.decks}
    ords = {note.guid: (note, {o: v for v, o in variant_ords(note.card).items()}) for note in plan.notes}
    rows = connection.execute("SELECT c.id, n.guid, c.ord, c.due, c.nid, c.did FROM cards c "
                              "JOIN notes n ON n.id = c.nid").fetchall()
    updates = []
    ids_of: dict[str, int] = {}
    taken: dict[int, str] = {}
    in_place = True
    stamp = int(now)
    for old_id, guid, card_ord, position, note_id, deck_id in rows:
        note, variants = ords[guid]
        variant = variants[card_ord]
        key = f"{note.deck.id}/{note.card.id}/{variant}"
        card_id = anki_card_id(key)
        if card_id in taken:
            # About one export in ten million of 10,000 items; a new id would break the fuzz seed.
            from ..core.problems import StudyappError

            raise StudyappError(f"items {taken[card_id]} and {key} would share one Anki card id; "
                                "give one of the cards another id")
        taken[card_id] = key
        ids_of[key] = card_id
        in_place = in_place and old_id == card_id
        item = progress.items.get(key)
        if item is None:
            values = (TYPE_NEW, QUEUE_NEW, position, 0, 0, 0, 0, 0, "{}")
        else:
            values = card_values(item.state, suspended=item.suspended, buried=item.buried_day >= today,
                                 position=position, settings=per_deck[note.deck.id][1], days=days, crt_day=crt_day,
                                 review_interval=item.review_interval)
        updates.append((card_id, note_id, deck_id, card_ord, values))
    if in_place:
        # genanki wrote every card under its item's id (anki.item_card_ids) with usn -1 and no
        # original deck or flags, as here: only the schedule and the time change.
        connection.executemany(
            "UPDATE cards SET mod = ?, type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, lapses = ?, "
            "left = ?, data = ? WHERE id = ?", [(stamp, *values, card_id) for card_id, _, _, _, values in updates])
    else:
        # Written afresh rather than updated: rewriting a row's id (its rowid) costs SQLite more than inserting it.
        connection.execute("DELETE FROM cards")
        connection.executemany(
            "INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, "
            "odid, flags, data) VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)",
            [(card_id, note_id, deck_id, card_ord, stamp, *values)
             for card_id, note_id, deck_id, card_ord, values in updates])
    # In id order (the table's own) into a revlog without its indexes, which are then built once
    # from their own definitions: the package's revlog starts empty, and a sorted build beats
    # placing 100,000 rows one by one in two indexes.
    indexes = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'revlog' "
                                 "AND sql IS NOT NULL ORDER BY name").fetchall()
    for name, _ in indexes:
        connection.execute(f'DROP INDEX "{name}"')
    if progress.source is not None:
        _copy_revlog(connection, progress.source, ids_of, staging)
    else:
        revlog = _revlog_rows(progress.log, ids_of)
        revlog.sort(key=itemgetter(0))
        connection.executemany("INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)", revlog)
    for _, sql in indexes:
        connection.execute(sql)
    _write_options(connection, plan, per_deck, settings, days, crt, stamp)


def _revlog_rows(log: Iterable[LoggedReview], ids_of: Mapping[str, int]) -> list[tuple]:
    # revlog_factor written out: this runs once for each review of the log.
    rows = []
    append = rows.append
    card_of = ids_of.get
    kinds = _REVLOG_KIND
    for key, revlog_id, kind, rating, before, interval, last_interval, difficulty, duration in log:
        card_id = card_of(key)
        if card_id is None:
            continue
        if kind == "review":
            factor = 0 if difficulty is None else int(round(((difficulty - 1.0) / 9.0 + 0.1) * 1000))
            append((revlog_id, card_id, rating, interval, last_interval, factor, duration, kinds[before]))
        elif kind == "reset":
            append((revlog_id, card_id, 0, 0, last_interval, 0, 0, REVLOG_MANUAL))
        elif kind == "cram":
            # Anki's cramming rows: filtered kind with factor 0 (rslib RevlogEntry::is_cramming).
            append((revlog_id, card_id, rating, interval, last_interval, 0, duration, REVLOG_FILTERED))
        else:
            append((revlog_id, card_id, rating, interval, last_interval, revlog_factor(difficulty), duration,
                    kinds[before]))
    return rows


# _revlog_rows in SQL, column for column, for a row ``r`` of the log and ``c`` of its card. The factor
# is Python's int(round(x)): x computed in the same double operations (0.1 bound from Python, not
# parsed by SQLite), then rounded half to even.
_SCALED = "((r.difficulty - 1.0) / 9.0 + :tenth) * 1000.0"
_TRUNCATED = f"CAST({_SCALED} AS INTEGER)"
_REVLOG_VALUES = f"""CASE r.kind WHEN 'reset' THEN 0 ELSE r.rating END,
       CASE r.kind WHEN 'reset' THEN 0 ELSE r.interval END,
       r.last_interval,
       CASE WHEN r.kind IN ('reset', 'cram') OR r.difficulty IS NULL THEN 0
            WHEN {_SCALED} >= 0 THEN {_TRUNCATED} + CASE WHEN {_SCALED} - {_TRUNCATED} > 0.5 THEN 1
                                                        WHEN {_SCALED} - {_TRUNCATED} < 0.5 THEN 0
                                                        ELSE {_TRUNCATED} & 1 END
            ELSE {_TRUNCATED} - CASE WHEN {_TRUNCATED} - {_SCALED} > 0.5 THEN 1
                                     WHEN {_TRUNCATED} - {_SCALED} < 0.5 THEN 0
                                     ELSE {_TRUNCATED} & 1 END END,
       CASE r.kind WHEN 'reset' THEN 0 ELSE r.duration_ms END,
       CASE r.kind WHEN 'reset' THEN {REVLOG_MANUAL} WHEN 'cram' THEN {REVLOG_FILTERED}
            ELSE CASE r.state_before WHEN '{NEW}' THEN {REVLOG_LEARNING} WHEN '{LEARNING}' THEN {REVLOG_LEARNING}
                                     WHEN '{REVIEW}' THEN {REVLOG_REVIEW} WHEN '{RELEARNING}' THEN {REVLOG_RELEARNING}
                                     END END"""
_REVLOG_COLUMNS = f"c.card_id, -1, {_REVLOG_VALUES}"
_INSERT_REVLOG = "INSERT INTO main.revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"

# ids.revlog_ids in SQL: a row from Anki keeps its id, and the k-th row (in log order) answered at
# one millisecond takes that millisecond plus k - 1. When these numbers are all distinct they are
# revlog_ids' own (the rows before a row at its millisecond hold exactly the k - 1 numbers after it,
# and no row holds its number), and the window's order is the numbers' order, so the rows reach the
# table in id order without a second sort. A number taken twice is left out by OR IGNORE, and the
# count short of the log's tells that revlog_ids must decide (a row pushed onto a millisecond that
# another row was answered at). Every row of the log is numbered, those of items the package has no
# card for too; the card ids join later (_copy_revlog).
_STAGE_RANKED = f"""INSERT OR IGNORE INTO staged (number, item_id, ease, ivl, lastIvl, factor, time, type)
SELECT CASE WHEN r.anki_revlog_id IS NULL THEN r.time_ms + row_number() OVER same_number - 1
            ELSE r.anki_revlog_id END,
       r.item_id, {_REVLOG_VALUES}
FROM studyapp_profile.review_log AS r
WHERE r.id <= :until
WINDOW same_number AS (PARTITION BY coalesce(r.anki_revlog_id, r.time_ms) ORDER BY r.id)
ORDER BY coalesce(r.anki_revlog_id, r.time_ms), r.id
"""


class _RevlogStaging:
    """The revlog rows of an export with progress, numbered and converted in a thread of their own
    while the notes are planned and written (SQLite works without the GIL), into an in-memory
    database that ``_copy_revlog`` then reads in id order (``data``: its image, as
    ``Connection.serialize`` gives it; a database shared between connections costs a tenth more).
    ``exact``: no two rows took one number (else revlog_ids numbers them, after all)."""

    def __init__(self, source: LogSource) -> None:
        import threading

        self.source = source
        self.connection = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.exact = False
        self.data = b""
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="studyapp-revlog", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        connection = self.connection
        try:
            connection.execute("ATTACH DATABASE ? AS studyapp_profile", (f"{self.source.database.as_uri()}?mode=ro",))
            until = self.source.until_id
            logged = connection.execute("SELECT count(*) FROM studyapp_profile.review_log WHERE id <= ?",
                                        (until,)).fetchone()[0]
            connection.execute("CREATE TABLE staged (number INTEGER PRIMARY KEY, item_id INTEGER NOT NULL, ease, ivl, "
                               "lastIvl, factor, time, type)")
            self.exact = connection.execute(_STAGE_RANKED, {"until": until, "tenth": 0.1}).rowcount == logged
            connection.execute("DETACH DATABASE studyapp_profile")
            if self.exact:
                self.data = connection.serialize()
        except BaseException as error:  # handed to the exporting thread by wait()
            self.error = error

    def wait(self) -> bool:
        """Whether the staged rows are exact (see the class); a profile it could not read is an error."""
        self.thread.join()
        if self.error is not None:
            raise _unreadable_log(self.source, self.error)
        return self.exact

    def close(self) -> None:
        if self.thread.is_alive():
            self.connection.interrupt()
            self.thread.join()
        self.connection.close()


def start_revlog_staging(progress: Progress) -> _RevlogStaging | None:
    """Start numbering ``progress``'s review log beside the rest of the export (None: nothing to stage).
    The caller closes it once the package is written."""
    if progress.source is None or not hasattr(sqlite3.Connection, "serialize"):
        return None
    return _RevlogStaging(progress.source)


def _unreadable_log(source: LogSource, error: BaseException) -> Exception:
    from ..core.problems import StudyappError

    if not isinstance(error, sqlite3.Error):
        return error
    return StudyappError(f"cannot read the review log in {source.database} ({error}); nothing was written",
                         path=source.database)


# With the numbers revlog_ids gave, in id order (a number taken twice fails the insert, as the
# Python path's does).
_COPY_NUMBERED = f"""{_INSERT_REVLOG}
SELECT n.number, {_REVLOG_COLUMNS}
FROM temp.export_number AS n
JOIN studyapp_profile.review_log AS r ON r.id = n.log_id
JOIN temp.export_card AS c ON c.item_id = r.item_id
ORDER BY n.number
"""


def _copy_revlog(connection: sqlite3.Connection, source: LogSource, ids_of: Mapping[str, int],
                 staging: _RevlogStaging | None = None) -> None:
    """The profile's review log into the package's (empty) revlog, as ``_revlog_rows`` would write it."""
    item_ids = source.item_ids
    cards = sorted((item_ids[key], card_id) for key, card_id in ids_of.items() if key in item_ids)
    # An attached database stays attached until the caller's commit and close: SQLite detaches one
    # only outside the transaction that read it, and a commit here would be a second write
    # transaction, a different change counter in the package's header than the Python path's.
    if staging is not None and staging.wait():
        connection.execute("ATTACH DATABASE ':memory:' AS studyapp_staged")
        connection.deserialize(staging.data, name="studyapp_staged")
        connection.execute("CREATE TEMP TABLE export_card (item_id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL)")
        try:
            connection.executemany("INSERT INTO temp.export_card VALUES (?, ?)", cards)
            connection.execute(
                "INSERT INTO main.revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                "SELECT s.number, c.card_id, -1, s.ease, s.ivl, s.lastIvl, s.factor, s.time, s.type "
                "FROM studyapp_staged.staged AS s JOIN temp.export_card AS c ON c.item_id = s.item_id "
                "ORDER BY s.number")
        finally:
            connection.execute("DROP TABLE temp.export_card")
        return
    try:
        connection.execute("ATTACH DATABASE ? AS studyapp_profile", (f"{source.database.as_uri()}?mode=ro",))
        connection.execute("SELECT 1 FROM studyapp_profile.review_log LIMIT 1").fetchall()
    except sqlite3.Error as error:
        raise _unreadable_log(source, error) from None
    from .ids import revlog_ids

    until = source.until_id
    try:
        connection.execute("CREATE TEMP TABLE export_card (item_id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL)")
        connection.executemany("INSERT INTO temp.export_card VALUES (?, ?)", cards)
        connection.execute("CREATE TEMP TABLE export_number (number INTEGER NOT NULL, log_id INTEGER NOT NULL)")
        rows = connection.execute("SELECT id, time_ms, anki_revlog_id FROM studyapp_profile.review_log "
                                  "WHERE id <= ? ORDER BY id", (until,)).fetchall()
        numbers = revlog_ids((time_ms, anki_id) for _, time_ms, anki_id in rows)
        connection.executemany("INSERT INTO temp.export_number VALUES (?, ?)",
                               sorted(zip(numbers, (row[0] for row in rows))))
        connection.execute(_COPY_NUMBERED, {"tenth": 0.1})
    finally:
        connection.execute("DROP TABLE IF EXISTS temp.export_number")
        connection.execute("DROP TABLE IF EXISTS temp.export_card")


def _write_options(connection: sqlite3.Connection, plan: ExportPlan, per_deck: Mapping[str, tuple[str, Settings]],
                   settings: Settings, days: StudyDays, crt: int, now: int) -> None:
    """One Anki preset per studyapp preset the decks use, each deck assigned its own."""
    conf_text, dconf_text, decks_text = connection.execute("SELECT conf, dconf, decks FROM col").fetchone()
    conf = json.loads(conf_text)
    # The scheduler Anki has used since 2.1.45, the rollover and the creation offset that
    # make its day count the same as ours, and FSRS (a collection-wide switch that Anki's
    # importer does not take from a package: docs/export.md says where to turn it on).
    conf.update({"schedVer": 2, "sched2021": True, "rollover": settings.rollover_hour,
                 "creationOffset": minutes_west(days, crt), "fsrs": True})
    dconf = json.loads(dconf_text)
    template = dconf["1"]
    decks = json.loads(decks_text)
    for deck in plan.decks:
        name, deck_options = per_deck[deck.id]
        preset_id, preset_name = anki_preset(name)
        if str(preset_id) not in dconf:
            dconf[str(preset_id)] = _preset(template, preset_id, preset_name, deck_options, now)
        entry = decks.get(str(anki_deck_id(deck.id)))
        if entry is None:
            continue
        entry["conf"] = preset_id
        limits = settings.limits_for(deck.id)
        if limits.new_per_day is not None:
            entry["newLimit"] = limits.new_per_day
        if limits.reviews_per_day is not None:
            entry["reviewLimit"] = limits.reviews_per_day
    connection.execute("UPDATE col SET conf = ?, dconf = ?, decks = ?",
                       (json.dumps(conf), json.dumps(dconf), json.dumps(decks)))


def _preset(template: dict, preset_id: int, name: str, settings: Settings, now: int) -> dict:
    preset = json.loads(json.dumps(template))
    preset.update({"id": preset_id, "name": name, "mod": now, "usn": -1,
                   "fsrsParams6": [float(w) for w in settings.parameters],
                   "desiredRetention": float(settings.desired_retention)})
    preset["new"].update({"delays": [s / 60 for s in settings.learning_steps], "perDay": settings.new_per_day})
    preset["lapse"].update({"delays": [s / 60 for s in settings.relearning_steps],
                            "leechFails": settings.leech_lapses})
    preset["rev"].update({"perDay": settings.reviews_per_day, "maxIvl": settings.maximum_interval})
    return preset


@collector_paused()
def gather_progress(store, settings: Settings) -> Progress:
    """The items and review log of a ``store.Store`` as the export needs them."""
    database = store.conn.execute("PRAGMA database_list").fetchone()[2] if hasattr(store, "item_states") else ""
    if database:
        return _gather_with_source(store, settings, Path(database))
    return _gather_in_memory(store, settings)


def _gather_in_memory(store, settings: Settings) -> Progress:
    """``gather_progress`` with every log row read into ``Progress.log`` (a store without a file)."""
    from .ids import revlog_ids

    rows = store.all_items()
    key_of = {row.id: row.key for row in rows}
    log = store.log_for_export()
    numbers = revlog_ids([(entry[3], entry[10]) for entry in log])
    new = tuple.__new__
    reviews = [new(LoggedReview, (key_of[item_id], number, kind, rating, before, interval, last_interval, difficulty,
                                  duration))
               for (item_id, kind, rating, _, before, _, interval, last_interval, difficulty, duration, _), number
               in zip(log, numbers)]
    # The last review that left each item in review: later rows overwrite earlier ones.
    review_interval = {entry[0]: entry[6] for entry in log
                       if entry[1] == "review" and entry[5] == REVIEW and entry[6] > 0}
    items = {row.key: ItemProgress(row.key, row.state, row.suspended, row.buried_day,
                                   review_interval.get(row.id, 0)) for row in rows}
    presets = store.load_presets() if hasattr(store, "load_presets") else None
    return Progress(settings, items, reviews, presets)


def _gather_with_source(store, settings: Settings, database: Path) -> Progress:
    """``gather_progress`` that leaves the log in the profile for ``_copy_revlog`` to read."""
    conn = store.conn
    # Items and the log's extent from one snapshot: an answer given meanwhile waits for the next export.
    began = not conn.in_transaction
    if began:
        with store.guarded():
            conn.execute("BEGIN")
    try:
        rows = store.item_states()
        with store.guarded():
            until, count = conn.execute("SELECT coalesce(max(id), 0), count(*) FROM review_log").fetchone()
            # The last review that left each item in review (as gather_progress's log pass finds it).
            review_interval = dict(conn.execute(
                "SELECT item_id, interval FROM review_log WHERE id IN (SELECT max(id) FROM review_log "
                f"WHERE kind = 'review' AND state_after = '{REVIEW}' AND interval > 0 GROUP BY item_id)"))
    finally:
        if began:
            with store.guarded():
                conn.execute("COMMIT")
    items = {key: ItemProgress(key, state, suspended, buried_day, review_interval.get(id_, 0))
             for id_, key, state, suspended, buried_day in rows}
    presets = store.load_presets() if hasattr(store, "load_presets") else None
    return Progress(settings, items, [], presets, LogSource(database, until, count, {row[1]: row[0] for row in rows}))
