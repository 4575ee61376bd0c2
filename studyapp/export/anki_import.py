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
import re
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from .bulk import collector_paused
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


@dataclass
class ImportPlan:
    reviews: list[IncomingReview] = field(default_factory=list)
    states: dict[str, TakenState] = field(default_factory=dict)
    notes: int = 0
    notes_by_guid: int = 0
    notes_by_text: int = 0
    unmatched: list[str] = field(default_factory=list)
    cards_matched: int = 0
    reviews_known: int = 0
    reviews_skipped: int = 0  # Anki's manual rescheduling rows: no answer to log
    kept_newer: list[str] = field(default_factory=list)  # items studyapp answered after Anki did

    @property
    def changed(self) -> bool:
        return bool(self.reviews or self.states)


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
               anki_day: Callable[[int], int] | None = None) -> TakenState | None:
    """The studyapp state of an Anki card (None for a card Anki still has as new).

    ``anki_day``: ``study_day_of_anki_day`` for this collection and ``days`` (remembered by the caller)."""
    if card.type == TYPE_NEW:
        return None
    data = card.data
    # As the engine keeps them: Anki's f32 values (its card data writes them rounded to 4 and 3 places).
    stability = _as_f32(_number(data.get("s")))
    difficulty = _as_f32(_number(data.get("d")))
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
    common = dict(stability=stability, difficulty=difficulty, due_ms=due_ms, last_review_ms=last_review_ms,
                  reps=card.reps, lapses=card.lapses, leech=card.lapses >= settings.leech_lapses)
    if card.type == TYPE_REVIEW:
        state = ItemState(state=REVIEW, step=None, interval=max(card.interval, 1), **common)
    else:
        kind = LEARNING if card.type == TYPE_LEARN else RELEARNING
        steps = settings.learning_steps if kind == LEARNING else settings.relearning_steps
        step = min(max(len(steps) - card.left % 1000, 0), max(len(steps) - 1, 0))
        secs = -(steps[step] if steps else 0)
        if last_review_ms is not None and due_ms > last_review_ms:
            secs = -((due_ms - last_review_ms) // 1000)
        state = ItemState(state=kind, step=step, interval=secs, **common)
    return TakenState("", state, suspended, buried_day)


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


@collector_paused
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
    revlog: dict[int, list[AnkiReview]] = {}
    # A card's rows at a time (read_package gives them by card): a list per card, not a call per row.
    for card_id, entries in groupby(collection.revlog, key=itemgetter(1)):
        rows = revlog.get(card_id)
        if rows is None:
            revlog[card_id] = list(entries)
        else:
            rows.extend(entries)
    cards_of: dict[int, list[AnkiCard]] = {}
    for card in collection.cards:
        cards_of.setdefault(card.note_id, []).append(card)

    anki_days: dict[int, int] = {}

    def anki_day(number: int) -> int:
        day = anki_days.get(number)
        if day is None:
            day = anki_days[number] = study_day_of_anki_day(collection, days, number)
        return day

    scheduling: dict[str, Settings] = {}

    plan = ImportPlan()
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
            key = f"{deck.id}/{bank_card.id}/{variant}"
            plan.cards_matched += 1
            rows = revlog.get(card.id, [])
            incoming, known_count, skipped = convert_reviews(key, rows, known.get(key, set()))
            plan.reviews_known += known_count
            plan.reviews_skipped += skipped
            if not incoming:
                continue
            plan.reviews.extend(incoming)
            # The latest answer is the last one: a card's revlog is in time order (its ids are times).
            answered = next((r.time_ms for r in reversed(incoming) if r.kind == "review"), None)
            if answered is not None and answered <= last_answer.get(key, 0):
                plan.kept_newer.append(key)
                continue
            if answered is None and all(r.kind != "reset" for r in incoming):
                continue
            # The revlog is in time order per card: its last answer is the last row with a rating.
            last = next((r.id for r in reversed(rows) if r.ease > 0), None)
            deck_options = scheduling.get(deck.id)
            if deck_options is None:
                deck_options = scheduling[deck.id] = deck_settings(presets, settings, deck.id)[1]
            taken = card_state(card, collection, deck_options, days, last, today, anki_day)
            if taken is None:
                taken = TakenState("", ItemState(), False, 0)
            plan.states[key] = TakenState(key, taken.state, taken.suspended, taken.buried_day)
    return plan


def _label(field_text: str) -> str:
    text = html.unescape(_TAG_RE.sub(" ", field_text))
    text = _SPACE_RE.sub(" ", text).strip()
    return text if len(text) <= 60 else text[:57] + "..."


def _as_f32(value: float | None) -> float | None:
    return None if value is None else f32(value)
