"""Anki's reviews and schedules into a studyapp profile (``studyapp import anki``).

``plan_import`` matches the package's notes to bank cards (by GUID for studyapp's own
exports, else by note type and front text), finds the Anki reviews the profile's log
does not hold yet (by revlog id), and reads each card's state as Anki left it. The store
applies a plan in one transaction (``Store.import_anki``); a dry run only reports it.

A matched card whose Anki reviews are all known changes nothing, so importing the same
file twice adds nothing. When studyapp answered an item after the last review the
package holds, the Anki reviews still join the log but studyapp's state stays.
"""

from __future__ import annotations

import html
import itertools
import re
import sqlite3
from dataclasses import dataclass, field
from itertools import groupby, repeat
from operator import itemgetter
from pathlib import Path
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from ..core.gcpause import collector_paused
from ..core.clock import DAY_MS
from ..core.fuzz import f32
from ..core.models import Deck
from ..core.scheduler import LEARNING, NEW, RELEARNING, REVIEW, ItemState, Settings, StudyDays
from .apkg import AnkiCard, AnkiCollection, AnkiReview
from .fields import fields_for, note_guid, plain
from .ids import revlog_ids
from .progress import (QUEUE_DAY_LEARN, QUEUE_LEARN, QUEUE_SUSPENDED, REVLOG_FILTERED, REVLOG_LEARNING,
                       REVLOG_MANUAL, REVLOG_RELEARNING, REVLOG_REVIEW, TYPE_LEARN, TYPE_NEW, TYPE_RELEARN,
                       TYPE_REVIEW, variant_ords)

_TAG_RE = re.compile(r"<[^>]*>")
# Tags that break a line (a space between words); any other tag joins what is on its sides.
_BREAK_RE = re.compile(r"<(?:br|/?(?:div|p|li|ol|ul|tr|td|h\d))\b[^>]*>", re.IGNORECASE)
_SPACE_RE = re.compile(r"\s+")


class IncomingReview(NamedTuple):
    """One Anki revlog row as a studyapp review-log row."""

    item_key: str
    anki_revlog_id: int
    kind: str  # review | cram | reset
    rating: int
    time_ms: int
    duration_ms: int
    state_before: str
    state_after: str
    interval: int
    last_interval: int
    difficulty: float | None


@dataclass(frozen=True)
class TakenState:
    """An item's state as Anki left it, with its suspension and burial."""

    item_key: str
    state: ItemState
    suspended: bool
    buried_day: int


class StagedReviews(NamedTuple):
    """A plan's incoming reviews, left in the package's unpacked collection: ``select(schema)`` is the SQL
    that converts them (``convert_reviews``, row for row, in plan order) from the tables the plan wrote
    there. The store copies them into the log with it (``Store.import_anki``); ``load`` reads them as
    ``IncomingReview`` for anything else that asks for ``ImportPlan.reviews``."""

    database: Path
    suffix: str  # of the plan's tables: studyapp_card<suffix>, studyapp_new<suffix>, ...
    count: int
    keys: list[str]  # the item key of each card_seq
    last_rows: dict[str, int]  # item key -> the revlog id of its last incoming row
    collection: AnkiCollection  # held: its unpacked file (``database``) goes with it

    def select(self, schema: str) -> str:
        """IncomingReview's fields in plan order, from the tables in database ``schema`` (the package's
        collection, attached or opened)."""
        return _converted(self, schema, f"c.item_key, r.id, {_KIND}, r.ease, r.id, {_DURATION}, {_BEFORE}, {_AFTER}, "
                                        f"{_INTERVAL}, r.lastIvl, {_DIFFICULTY}", "")

    def insert(self, schema: str, scheduler: int) -> str:
        """The review-log insert of these rows (from database ``schema``), with temp.import_item giving each
        card's item id and, on its last incoming row (last_id), the state taken from Anki; the uids are
        the parameter :prefix and a count in plan order."""
        taken = "r.id = i.last_id"
        return (
            "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
            "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, source, "
            "anki_revlog_id, uid) " + _converted(
                self, schema,
                f"i.item_id, {_KIND}, r.ease, r.id, r.id, {_DURATION}, {_BEFORE}, "
                f"CASE WHEN {taken} THEN i.state ELSE {_AFTER} END, {_INTERVAL}, r.lastIvl, "
                f"CASE WHEN {taken} THEN i.stability END, CASE WHEN {taken} THEN i.difficulty ELSE {_DIFFICULTY} END, "
                f"CASE WHEN {taken} THEN i.due_ms END, {int(scheduler)}, 'anki', r.id, "
                ":prefix || printf('%012x', o.position - 1)",
                "JOIN temp.import_item AS i ON i.card_seq = c.seq"))

    def load(self) -> list[IncomingReview]:
        connection = sqlite3.connect(f"{self.database.as_uri()}?mode=ro", uri=True)
        try:
            return list(map(tuple.__new__, repeat(IncomingReview), connection.execute(self.select("main"))))
        finally:
            connection.close()


# convert_reviews in SQL, by column, for a revlog row r (of a card c of the plan) with n, its row in
# studyapp_new when its state before is new (the card's first answer, or the first after a reset:
# _plan_staged works those out), and d, the difficulty of its factor.
_KIND = (f"CASE WHEN r.ease = 0 THEN 'reset' WHEN r.type = {REVLOG_FILTERED} AND r.factor = 0 THEN 'cram' "
         "ELSE 'review' END")
_DURATION = "CASE WHEN r.ease = 0 OR r.time <= 0 THEN 0 ELSE r.time END"
_BEFORE = (f"CASE WHEN r.ease = 0 THEN '{REVIEW}' "
           f"WHEN r.type = {REVLOG_LEARNING} THEN CASE WHEN n.id IS NULL THEN '{LEARNING}' ELSE '{NEW}' END "
           f"WHEN r.type = {REVLOG_RELEARNING} THEN '{RELEARNING}' ELSE '{REVIEW}' END")
_AFTER = (f"CASE WHEN r.ease = 0 THEN '{NEW}' WHEN r.ivl > 0 THEN '{REVIEW}' "
          f"WHEN r.type = {REVLOG_RELEARNING} OR (r.type != {REVLOG_LEARNING} AND r.ease <= 1) THEN '{RELEARNING}' "
          f"ELSE '{LEARNING}' END")
_INTERVAL = "CASE WHEN r.ease = 0 THEN 0 ELSE r.ivl END"
_DIFFICULTY = "CASE WHEN r.ease = 0 THEN NULL ELSE d.difficulty END"


def _converted(staged: StagedReviews, schema: str, columns: str, joins: str) -> str:
    """SELECT ``columns`` FROM the incoming revlog rows (r, of card c, at o.position in the plan's
    order), in that order: studyapp_order holds them sorted, so nothing here sorts the wide rows."""
    return (f"SELECT {columns} FROM {schema}.studyapp_order{staged.suffix} AS o "
            f"JOIN {schema}.revlog AS r ON r.id = o.id "
            f"JOIN {schema}.studyapp_card{staged.suffix} AS c ON c.cid = o.cid {joins} "
            f"LEFT JOIN {schema}.studyapp_new{staged.suffix} AS n ON n.id = r.id "
            f"LEFT JOIN {schema}.studyapp_difficulty{staged.suffix} AS d ON d.factor = r.factor "
            "ORDER BY o.position")


@dataclass
class ImportPlan:
    states: dict[str, TakenState] = field(default_factory=dict)
    notes: int = 0
    notes_by_guid: int = 0
    notes_by_text: int = 0
    unmatched: list[str] = field(default_factory=list)
    cards_matched: int = 0
    reviews_known: int = 0
    reviews_skipped: int = 0  # Anki's manual rescheduling rows: no answer to log
    kept_newer: list[str] = field(default_factory=list)  # items studyapp answered after Anki did
    staged: StagedReviews | None = None
    _reviews: list[IncomingReview] | None = field(default=None, repr=False)

    @property
    def reviews(self) -> list[IncomingReview]:
        """The Anki reviews to append, in order (read from ``staged`` when first asked for)."""
        if self._reviews is None:
            self._reviews = self.staged.load() if self.staged is not None else []
        return self._reviews

    @reviews.setter
    def reviews(self, rows: list[IncomingReview]) -> None:
        self._reviews = rows

    @property
    def only_staged(self) -> bool:
        """Whether the reviews are the staged rows, untouched (nobody has read them as a list)."""
        return self._reviews is None and self.staged is not None

    @property
    def review_count(self) -> int:
        return self.staged.count if self.only_staged else len(self.reviews)

    @property
    def changed(self) -> bool:
        return bool(self.review_count or self.states)


def normalized(text: str) -> str:
    """A field's visible text, for matching: tags dropped, entities decoded, spaces folded, case ignored."""
    text = html.unescape(_TAG_RE.sub("", _BREAK_RE.sub(" ", text))).replace("\u2060", "")
    return _SPACE_RE.sub(" ", text).strip().casefold()


def _front_texts(deck: Deck, card) -> set[str]:
    """What the first field of a note for ``card`` may read, in any of its languages: studyapp's own
    field, or the text as written."""
    texts: set[str] = set()
    for worded in [card, *(card.in_language(language) for language in getattr(card, "texts", {}) or {})]:
        question = fields_for(worded, deck.id, "")[0]
        raw = {"cloze": worded.text, "truefalse": worded.statement}.get(worded.type, worded.front) or ""
        texts |= {normalized(question), normalized(plain(raw)), normalized(raw)}
    return texts - {""}


def study_day_of_anki_day(collection: AnkiCollection, days: StudyDays, number: int) -> int:
    """The study day that Anki's day ``number`` (counted from the collection's creation) is.

    Anki counts from the creation date in the creation offset (rslib ``timing.rs``); collections
    older than that offset count whole days from the rollover on the creation date."""
    if collection.creation_offset is not None:
        zone = timezone(timedelta(minutes=-collection.creation_offset))
        return datetime.fromtimestamp(collection.crt, zone).date().toordinal() + number
    created = datetime.fromtimestamp(collection.crt, days.zone)
    start = created.replace(hour=collection.rollover % 24, minute=0, second=0, microsecond=0)
    return days.day_of(int(start.timestamp() * 1000) + number * DAY_MS)


def card_state(card: AnkiCard, collection: AnkiCollection, settings: Settings, days: StudyDays,
               last_review_ms: int | None, today: int,
               anki_day: Callable[[int], int] | None = None, key: str = "") -> TakenState | None:
    """The studyapp state of an Anki card (None for a card Anki still has as new), for item ``key``.

    ``anki_day``: ``study_day_of_anki_day`` for this collection and ``days`` (remembered by the caller)."""
    if card.type == TYPE_NEW:
        return None
    data = card.data
    # As the engine keeps them: Anki's f32 values (its card data writes them rounded to 4 and 3 places).
    # _as_f32(_number(...)) written out (a card's data comes from json: ints, floats and bools as such).
    stability = data.get("s")
    stability = f32(float(stability)) if type(stability) in _NUMBERS else _as_f32(_number(stability))
    difficulty = data.get("d")
    difficulty = f32(float(difficulty)) if type(difficulty) in _NUMBERS else _as_f32(_number(difficulty))
    lrt = data.get("lrt")
    if isinstance(lrt, int) and lrt > 0:
        last_review_ms = lrt * 1000
    suspended = card.queue == QUEUE_SUSPENDED
    buried_day = today if card.queue in (-2, -3) else 0
    queue = card.queue
    if queue < 0:
        # A suspended or buried card keeps its due in the way its type stores it.
        queue = QUEUE_LEARN if card.type in (TYPE_LEARN, TYPE_RELEARN) and card.due > 1_000_000_000 else (
            QUEUE_DAY_LEARN if card.type in (TYPE_LEARN, TYPE_RELEARN) else 2)
    if queue in (2, QUEUE_DAY_LEARN):
        day = anki_day(card.due) if anki_day is not None else study_day_of_anki_day(collection, days, card.due)
        anchor = last_review_ms if last_review_ms is not None else days.start_ms(day)
        due_ms = days.add_days(anchor, day - days.day_of(anchor))
    else:
        due_ms = card.due * 1000
    if card.type == TYPE_REVIEW:
        state = ItemState(state=REVIEW, step=None, interval=max(card.interval, 1), stability=stability,
                          difficulty=difficulty, due_ms=due_ms, last_review_ms=last_review_ms, reps=card.reps,
                          lapses=card.lapses, leech=card.lapses >= settings.leech_lapses)
    else:
        common = dict(stability=stability, difficulty=difficulty, due_ms=due_ms, last_review_ms=last_review_ms,
                      reps=card.reps, lapses=card.lapses, leech=card.lapses >= settings.leech_lapses)
        kind = LEARNING if card.type == TYPE_LEARN else RELEARNING
        steps = settings.learning_steps if kind == LEARNING else settings.relearning_steps
        step = min(max(len(steps) - card.left % 1000, 0), max(len(steps) - 1, 0))
        secs = -(steps[step] if steps else 0)
        if last_review_ms is not None and due_ms > last_review_ms:
            secs = -((due_ms - last_review_ms) // 1000)
        state = ItemState(state=kind, step=step, interval=secs, **common)
    return TakenState(key, state, suspended, buried_day)


_NUMBERS = (int, float)


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _difficulty_of_factor(factor: int) -> float | None:
    """The FSRS difficulty Anki's revlog ``factor`` holds (100..1100), None for SM-2 rows."""
    if 100 <= factor <= 1100:
        return round((factor / 1000 - 0.1) * 9 + 1, 3)
    return None


# Every factor a revlog row can hold under FSRS, worked out once rather than once a row.
_DIFFICULTY_OF_FACTOR = {factor: _difficulty_of_factor(factor) for factor in range(100, 1101)}
_UNLISTED = object()


def _state_before(kind: int, first: bool) -> str:
    if kind == REVLOG_LEARNING:
        return NEW if first else LEARNING
    if kind == REVLOG_RELEARNING:
        return RELEARNING
    return REVIEW


def _state_after(entry: AnkiReview, before: str) -> str:
    if entry.interval > 0:
        return REVIEW
    if before in (REVIEW, RELEARNING) and not (before == REVIEW and entry.ease > 1):
        return RELEARNING
    return LEARNING


def convert_reviews(key: str, revlog: Sequence[AnkiReview], known: set[int]) -> tuple[list[IncomingReview], int, int]:
    """(the rows ``known`` lacks, how many were known, how many are manual rows with no answer)."""
    # _state_before, _state_after and _difficulty_of_factor written out in the loop: it runs
    # once for each of a package's reviews (100,000 and more), where a call costs more than its work.
    out: list[IncomingReview] = []
    append = out.append
    new = tuple.__new__
    difficulty_of = _DIFFICULTY_OF_FACTOR.get
    unlisted = _UNLISTED
    known_count = skipped = 0
    first = True
    for revlog_id, _, ease, interval, last_interval, factor, taken_ms, kind in revlog:
        if ease == 0:
            reset = kind == REVLOG_MANUAL and factor == 0
            if revlog_id in known:
                known_count += 1
            elif reset:
                append(new(IncomingReview, (key, revlog_id, "reset", 0, revlog_id, 0, REVIEW, NEW, 0, last_interval,
                                            None)))
            else:
                skipped += 1
            first = first or reset
            continue
        if kind == REVLOG_LEARNING:
            before = NEW if first else LEARNING
        elif kind == REVLOG_RELEARNING:
            before = RELEARNING
        else:
            before = REVIEW
        first = False
        if revlog_id in known:
            known_count += 1
            continue
        if interval > 0:
            after = REVIEW
        elif before == RELEARNING or (before == REVIEW and ease <= 1):
            after = RELEARNING
        else:
            after = LEARNING
        cram = kind == REVLOG_FILTERED and factor == 0
        difficulty = difficulty_of(factor, unlisted)
        if difficulty is unlisted:  # not an integer factor: no collection Anki wrote, but read all the same
            difficulty = _difficulty_of_factor(factor)
        append(new(IncomingReview, (key, revlog_id, "cram" if cram else "review", ease, revlog_id,
                                    taken_ms if taken_ms > 0 else 0, before, after, interval, last_interval,
                                    difficulty)))
    return out, known_count, skipped


def known_revlog_ids(items: Mapping[int, str], log: Iterable[tuple]) -> tuple[dict[str, set[int]], dict[str, int]]:
    """Per item key: the Anki revlog ids its log rows travel under, and the time of its last answer.

    ``log`` holds (item id, kind, time_ms, anki revlog id) per row, in log order."""
    log = list(log)
    numbers = revlog_ids((time_ms, anki_id) for _, _, time_ms, anki_id in log)
    known: dict[str, set[int]] = {}
    last: dict[str, int] = {}
    for (item_id, kind, time_ms, _), number in zip(log, numbers):
        key = items[item_id]
        known.setdefault(key, set()).add(number)
        if kind == "review" and time_ms > last.get(key, 0):
            last[key] = time_ms
    return known, last


@collector_paused()
def plan_import(collection: AnkiCollection, decks: Sequence[Deck], items: Mapping[int, str], log: Iterable[tuple],
                settings: Settings, now_ms: int, presets=None) -> ImportPlan:
    """What importing ``collection`` into a profile with ``items`` (id -> key) and ``log`` would do.

    ``log`` is the profile's review log as (item id, kind, time_ms, anki revlog id), in order;
    ``presets`` (``core.presets.Presets``) give each deck's steps, as studyapp schedules it."""
    from .progress import deck_settings

    from ..core.scheduler import ReviewScheduler

    days = ReviewScheduler(settings).days
    today = days.day_of(now_ms)
    known, last_answer = known_revlog_ids(items, log)
    # What SQL can tell of the package before the notes are matched, read in a thread meanwhile.
    ahead = _Background(lambda: _read_ahead(collection.database, not any(known.values()))) \
        if collection.database is not None else None
    by_guid = {note_guid(deck.id, card.id): (deck, card) for deck in decks for card in deck.cards}
    by_text: dict[tuple[bool, str], list] = {}

    def text_index() -> dict[tuple[bool, str], list]:
        # Built only when a note has no GUID of ours: studyapp's own exports never need it.
        if not by_text:
            for deck in decks:
                for card in deck.cards:
                    for text in _front_texts(deck, card):
                        by_text.setdefault((card.type == "cloze", text), []).append((deck, card))
        return by_text
    cards_of: dict[int, list[AnkiCard]] = {}
    for card in collection.cards:
        cards_of.setdefault(card.note_id, []).append(card)

    plan = ImportPlan()
    matched: list[tuple[str, Deck, AnkiCard]] = []  # (item key, deck, Anki card), in the plan's order
    for note in collection.notes.values():
        if note.id not in cards_of:
            continue
        plan.notes += 1
        match = by_guid.get(note.guid)
        if match is not None:
            plan.notes_by_guid += 1
        else:
            notetype = collection.notetypes.get(note.notetype_id)
            cloze = notetype.cloze if notetype is not None else False
            candidates = text_index().get((cloze, normalized(note.fields[0] if note.fields else "")), [])
            if len(candidates) == 1:
                match = candidates[0]
                plan.notes_by_text += 1
        if match is None:
            plan.unmatched.append(_label(note.fields[0] if note.fields else "") or f"note {note.id}")
            continue
        deck, bank_card = match
        variants = {ord_: variant for variant, ord_ in variant_ords(bank_card).items()}
        for card in cards_of[note.id]:
            variant = variants.get(card.ord)
            if variant is None:
                continue
            plan.cards_matched += 1
            matched.append((f"{deck.id}/{bank_card.id}/{variant}", deck, card))

    anki_days: dict[int, int] = {}

    def anki_day(number: int) -> int:
        day = anki_days.get(number)
        if day is None:
            day = anki_days[number] = study_day_of_anki_day(collection, days, number)
        return day

    scheduling: dict[str, Settings] = {}

    def take(key: str, deck: Deck, card: AnkiCard, answered: int | None, reset: bool, last: int | None) -> None:
        """Anki's state of ``card`` for item ``key``, whose incoming reviews end with the answer at
        ``answered`` (None: no answer) and hold a reset or not; ``last``: the card's last answer."""
        if answered is not None and answered <= last_answer.get(key, 0):
            plan.kept_newer.append(key)
            return
        if answered is None and not reset:
            return
        deck_options = scheduling.get(deck.id)
        if deck_options is None:
            deck_options = scheduling[deck.id] = deck_settings(presets, settings, deck.id)[1]
        taken = card_state(card, collection, deck_options, days, last, today, anki_day, key)
        plan.states[key] = taken if taken is not None else TakenState(key, ItemState(), False, 0)

    integers, sums = ahead.result() if ahead is not None else (False, None)
    if integers and len({key for key, _, _ in matched}) == len(matched):
        _plan_staged(plan, collection, matched, known, take, sums)
    else:
        # Two notes matched to one card by their text interleave in the Python plan, and a factor that
        # is not an integer has a difficulty of its own there.
        _plan_in_python(plan, collection, matched, known, take)
    return plan


class _Background:
    """``function()`` in a thread of its own (SQLite works without the GIL); ``result()`` waits for it."""

    def __init__(self, function: Callable[[], object]) -> None:
        import threading

        self._result: object = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(function,), name="studyapp-import", daemon=True)
        self._thread.start()

    def _run(self, function: Callable[[], object]) -> None:
        try:
            self._result = function()
        except BaseException as error:  # handed to the waiting thread
            self._error = error

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def _read_ahead(database: Path, first_import: bool) -> tuple[bool, dict[int, list] | None]:
    """(whether every revlog value _plan_staged reads is an integer; for a first import, the per-card
    sums of ``_sums_without_known``, else None). A collection SQLite cannot read goes the Python way,
    which says what is wrong."""
    connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        odd = connection.execute(
            "SELECT 1 FROM revlog WHERE typeof(cid) != 'integer' OR typeof(ivl) != 'integer' "
            "OR typeof(lastIvl) != 'integer' OR typeof(factor) != 'integer' OR typeof(time) != 'integer' "
            "OR typeof(type) != 'integer' LIMIT 1").fetchone()
        if odd is not None:
            return False, None
        return True, _sums_without_known(connection) if first_import else None
    except sqlite3.DatabaseError:
        return False, None
    finally:
        connection.close()


def _plan_in_python(plan: ImportPlan, collection: AnkiCollection, matched, known: Mapping[str, set[int]],
                    take) -> None:
    revlog: dict[int, list[AnkiReview]] = {}
    # A card's rows at a time (read_package gives them by card): a list per card, not a call per row.
    for card_id, entries in groupby(collection.revlog, key=itemgetter(1)):
        rows = revlog.get(card_id)
        if rows is None:
            revlog[card_id] = list(entries)
        else:
            rows.extend(entries)
    reviews = plan.reviews
    for key, deck, card in matched:
        rows = revlog.get(card.id, [])
        incoming, known_count, skipped = convert_reviews(key, rows, known.get(key, set()))
        plan.reviews_known += known_count
        plan.reviews_skipped += skipped
        if not incoming:
            continue
        reviews.extend(incoming)
        # The latest answer is the last one: a card's revlog is in time order (its ids are times).
        answered = next((r.time_ms for r in reversed(incoming) if r.kind == "review"), None)
        reset = any(r.kind == "reset" for r in incoming)
        # The revlog is in time order per card: its last answer is the last row with a rating.
        last = next((r.id for r in reversed(rows) if r.ease > 0), None)
        take(key, deck, card, answered, reset, last)


_STAGE_NUMBERS = itertools.count(1)


def _sums_without_known(connection: sqlite3.Connection) -> dict[int, list]:
    """``_plan_staged``'s sums per card when the profile knows none of the rows (a first import): the
    answers in one narrow pass, the few rows without one (resets, manual rows) one by one."""
    sums: dict[int, list] = {}
    for cid, last, first, answers, answered in connection.execute(
            f"SELECT cid, max(id), min(id), count(*), max(CASE WHEN NOT (type = {REVLOG_FILTERED} AND factor = 0) "
            "THEN id END) FROM revlog NOT INDEXED WHERE ease > 0 GROUP BY cid"):
        sums[cid] = [0, 0, last, first, 0, answers, answered, 0, last]
    for cid, id_, kind, factor in connection.execute(
            "SELECT cid, id, type, factor FROM revlog NOT INDEXED WHERE ease = 0 ORDER BY id"):
        row = sums.setdefault(cid, [0, 0, None, None, 0, 0, None, 0, None])
        if kind == REVLOG_MANUAL and factor == 0:  # a reset: it comes in
            row[4] = row[7] = 1
            row[5] += 1
            row[8] = id_ if row[8] is None else max(row[8], id_)
        else:
            row[1] += 1
    return sums


def _plan_staged(plan: ImportPlan, collection: AnkiCollection, matched, known: Mapping[str, set[int]],
                 take, sums: dict[int, list] | None) -> None:
    """``_plan_in_python`` from per-card sums in SQL (``sums``: read ahead for a first import), the reviews
    left in the unpacked collection."""
    database = collection.database
    suffix = f"_{next(_STAGE_NUMBERS)}"
    connection = sqlite3.connect(database, isolation_level=None)
    try:
        # The unpacked file is scratch, deleted with the collection object.
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("BEGIN")
        connection.execute(f"CREATE TABLE studyapp_card{suffix} (cid INTEGER PRIMARY KEY, seq INTEGER NOT NULL, "
                           "item_key TEXT NOT NULL)")
        connection.executemany(f"INSERT INTO studyapp_card{suffix} VALUES (?, ?, ?)",
                               [(card.id, seq, key) for seq, (key, _, card) in enumerate(matched)])
        connection.execute(f"CREATE TABLE studyapp_known{suffix} (cid INTEGER NOT NULL, id INTEGER NOT NULL, "
                           "PRIMARY KEY (cid, id)) WITHOUT ROWID")
        known_rows = [(card.id, number) for key, _, card in matched for number in known.get(key, ())]
        connection.executemany(f"INSERT OR IGNORE INTO studyapp_known{suffix} VALUES (?, ?)", known_rows)
        connection.execute(f"CREATE TABLE studyapp_difficulty{suffix} (factor INTEGER PRIMARY KEY, difficulty REAL)")
        connection.executemany(f"INSERT INTO studyapp_difficulty{suffix} VALUES (?, ?)",
                               [(factor, d) for factor, d in _DIFFICULTY_OF_FACTOR.items() if d is not None])
        is_known = (f"EXISTS (SELECT 1 FROM studyapp_known{suffix} AS k WHERE k.cid = r.cid AND k.id = r.id)"
                    if known_rows else "0")
        reset = f"(r.ease = 0 AND r.type = {REVLOG_MANUAL} AND r.factor = 0)"
        # Per card, in one pass: rows known, manual rows left out, its last answer, its first answer,
        # whether it was reset; and of the rows that come in: how many, the last answer (cram aside),
        # a reset among them, the last one.
        sums = (sums if sums is not None else _sums_without_known(connection)) if not known_rows else {
            cid: rest for cid, *rest in connection.execute(f"""
            SELECT cid, sum(known), sum(ease = 0 AND NOT reset AND NOT known),
                   max(CASE WHEN ease > 0 THEN id END), min(CASE WHEN ease > 0 THEN id END), max(reset),
                   sum(incoming),
                   max(CASE WHEN incoming AND ease > 0 AND NOT (type = {REVLOG_FILTERED} AND factor = 0)
                            THEN id END),
                   max(incoming AND reset), max(CASE WHEN incoming THEN id END)
            FROM (SELECT r.cid AS cid, r.id AS id, r.ease AS ease, r.type AS type, r.factor AS factor,
                         {is_known} AS known, {reset} AS reset,
                         NOT {is_known} AND (r.ease > 0 OR {reset}) AS incoming
                  FROM revlog AS r NOT INDEXED JOIN studyapp_card{suffix} AS c ON c.cid = r.cid)
            GROUP BY cid""")}
        # A learning answer is the card's first when no answer comes before it since the last reset:
        # without a reset, the card's first answer; with one, worked out row by row.
        connection.execute(f"CREATE TABLE studyapp_new{suffix} (id INTEGER PRIMARY KEY)")
        connection.executemany(f"INSERT INTO studyapp_new{suffix} VALUES (?)",
                               sorted((row[3],) for row in sums.values() if not row[4] and row[3] is not None))
        reset_cards = [(cid,) for cid, row in sums.items() if row[4]]
        if reset_cards:
            connection.execute("CREATE TEMP TABLE reset_card (cid INTEGER PRIMARY KEY)")
            connection.executemany("INSERT INTO temp.reset_card VALUES (?)", reset_cards)
            connection.execute(f"""
                INSERT INTO studyapp_new{suffix}
                SELECT id FROM (
                    SELECT id, ease, max(CASE WHEN ease > 0 THEN id END) OVER earlier AS answered,
                           max(CASE WHEN {reset.replace("r.", "")} THEN id END) OVER earlier AS was_reset
                    FROM revlog NOT INDEXED WHERE cid IN (SELECT cid FROM temp.reset_card)
                    WINDOW earlier AS (PARTITION BY cid ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
                WHERE ease > 0 AND (answered IS NULL OR was_reset > answered)""")
        connection.execute("COMMIT")
    except sqlite3.DatabaseError as error:
        raise _damaged(collection, error) from None
    finally:
        connection.close()
    # The incoming rows in the plan's order (by card, then time), numbered: sorting the ids alone here
    # spares the insert from sorting its wide rows. Written in a thread while the states are taken.
    order = _Background(lambda: _write_order(collection, suffix, reset, bool(known_rows)))
    last_rows: dict[str, int] = {}
    try:
        for key, deck, card in matched:
            row = sums.get(card.id)
            if row is None:
                continue
            known_count, skipped, last, _, _, incoming, answered, reset_in, last_row = row
            plan.reviews_known += known_count
            plan.reviews_skipped += skipped
            if not incoming:
                continue
            last_rows[key] = last_row
            take(key, deck, card, answered, bool(reset_in), last)
    finally:
        count = order.result()
    plan.staged = StagedReviews(database, suffix, count, [key for key, _, _ in matched], last_rows, collection)


def _write_order(collection: AnkiCollection, suffix: str, reset: str, with_known: bool) -> int:
    connection = sqlite3.connect(collection.database, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("BEGIN")
        connection.execute(f"CREATE TABLE studyapp_order{suffix} (position INTEGER PRIMARY KEY, id INTEGER NOT NULL, "
                           "cid INTEGER NOT NULL)")
        not_known = (f"AND NOT EXISTS (SELECT 1 FROM studyapp_known{suffix} AS k WHERE k.cid = r.cid AND k.id = r.id)"
                     if with_known else "")
        count = connection.execute(
            f"INSERT INTO studyapp_order{suffix} (id, cid) SELECT r.id, r.cid FROM revlog AS r NOT INDEXED "
            f"JOIN studyapp_card{suffix} AS c ON c.cid = r.cid WHERE (r.ease > 0 OR {reset}) {not_known} "
            "ORDER BY c.seq, r.id").rowcount
        connection.execute("COMMIT")
        return count
    except sqlite3.DatabaseError as error:
        raise _damaged(collection, error) from None
    finally:
        connection.close()


def _damaged(collection: AnkiCollection, error: sqlite3.DatabaseError) -> Exception:
    # Inside the store's transaction: say which file it is, not the profile (which is rolled back).
    from .apkg import _unreadable

    return _unreadable(collection.path, f"its collection is damaged ({error})")


def _label(field_text: str) -> str:
    text = html.unescape(_TAG_RE.sub(" ", field_text))
    text = _SPACE_RE.sub(" ", text).strip()
    return text if len(text) <= 60 else text[:57] + "..."


def _as_f32(value: float | None) -> float | None:
    return None if value is None else f32(value)
