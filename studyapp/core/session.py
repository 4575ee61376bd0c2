"""The session API a user interface drives: one review (or cram) session over some decks.

    from studyapp.store import open_store
    from studyapp.core.session import ReviewSession

    store = open_store(location)                 # StudyappError with a clear message on trouble
    session = ReviewSession(store, catalog.decks, deck_ids=["qwen3-training"])
    shown = session.next()                       # None: nothing due (see next_due_time())
    shown.previews[GOOD].label                   # "10m", "3d": what each button will do
    session.answer(GOOD, duration_ms=5400)       # commits exactly the preview shown
    session.undo()                               # back, step by step, to the session start

Queue order: learning items due now, then reviews due today, then new items in bank
order, within the daily limits (overall and per deck); an item whose sibling was
reviewed today waits for tomorrow. When nothing else is left, learning items due within
``learn_ahead_minutes`` are shown early, as Anki does. Cram mode shows any item, ahead of
time, and logs its answers as ``cram`` without touching the schedule.

The session reads "now" from an injected clock; every change goes to the store at once
(one transaction each), so quitting at any moment loses nothing.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field, fields
from datetime import date
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from .choices import ShownChoices, shown_choices
from .clock import Clock, MINUTE_MS
from .gcpause import collector_paused
from .load_balancer import LOAD_BALANCE_DAYS, LoadBalancer
from .models import Card, Deck, Item, has_links
from .presets import Preset, Presets
from .problems import StudyappError
from .queue import Built, CustomStudy, Gathered, LimitReached, QueueBuilder, card_rank, group_keys, rank
from .retention import SPANS, TrueRetention, by_span, spans_from_days, true_retention
from .scheduler import AGAIN, RATINGS, REVIEW, ItemState, Preview, ReviewScheduler, Settings

if TYPE_CHECKING:  # the store imports core, never the other way round at run time
    from ..store.repository import ItemRow, LogEntry, Store

LEARNING_QUEUE, REVIEW_QUEUE, NEW_QUEUE, CRAM_QUEUE = "learning", "review", "new", "cram"
CRAM_AGAIN_GAP = 3  # an item failed in cram comes back after this many others
_NO_END_MS = 2 ** 62  # "due whenever": every learning item
# Items per queue whose fuzz needs (Anki card id; with the Python copy the fuzz numbers too) are
# worked out when the day's queues are gathered, then each time a pick finds its item without
# them, for it and the items after it (see _prime). Python's fuzz numbers drawn together cost
# some 13 us each, one alone some 45; a card id takes 1 us in a batch, 8 us alone in a pick.
_PRIMED_FIRST = 64
_PRIMED = 256
_KEPT_DAYS = 1024  # study days computed ahead when a queue is gathered (StudyDays.keep_days)
_FIRST_REVIEW_ROWS = 2048
_FIRST_ROWS = 32  # rows each in-memory queue reads at first; it reads more when a walk needs them
_new_object = object.__new__


@dataclass(frozen=True)
class Counts:
    """What is left today, the shown item included (new and review are within the limits)."""

    new: int = 0
    learning: int = 0
    review: int = 0

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review


@dataclass(frozen=True)
class ShownItem:
    """The item on screen, with its four buttons computed once."""

    item_id: int
    key: str
    item: Item | None  # the card's content (deck, card, variant)
    queue: str  # learning | review | new | cram
    state: ItemState
    previews: Mapping[int, Preview]
    shown_ms: int
    counts: Counts
    flag_note: str | None = None
    # A learning item shown before its step is over (Anki's learn-ahead): nothing else was left.
    ahead: bool = False

    @property
    def cram(self) -> bool:
        return self.queue == CRAM_QUEUE

    @property
    def choices(self) -> ShownChoices:
        """The options as shown (a choice card's shuffled by its review count: stable across
        undo and restart), and where the right one is."""
        if self.item is None:
            return ShownChoices((), None)
        return shown_choices(self.item.card, self.key, self.state.reps)


@dataclass(frozen=True)
class SessionSummary:
    reviewed: int
    again: int
    time_ms: int
    started_ms: int
    by_rating: Mapping[int, int]
    next_due_ms: int | None

    @property
    def again_share(self) -> float | None:
        return self.again / self.reviewed if self.reviewed else None


@dataclass(frozen=True)
class DeckProgress:
    """One deck's figures. ``new``, ``learning`` and ``due`` are what can be studied now, as
    Anki counts them (new within today's limits, due = reviews only); ``unseen`` is every
    item never studied, ``review`` every item in the review state. ``retention`` is True
    Retention over the last 30 study days (core.retention), as in the Stats header."""

    deck_id: str
    title: str
    items: int
    new: int
    learning: int
    review: int
    due: int
    reviews: int
    retention: float | None
    unseen: int = 0
    learning_items: int = 0
    true_retention: Mapping[str, TrueRetention] = field(default_factory=dict)


@dataclass(frozen=True)
class DayCount:
    day: date
    count: int
    again: int = 0


@dataclass(frozen=True)
class ItemInfo:
    """For the browse screen: an item's stored state and its review history."""

    key: str
    item: Item | None
    row: ItemRow
    history: list[LogEntry]
    retrievability: float | None


class _Rows:
    """The first rows of one queue as the database orders them (the whole queue when ``complete``).

    It stays exactly the database's first ``len(rows)`` rows: an answer removes its item
    and inserts it again only where it falls inside what was read; a walk past the end
    reads twice as many rows again.
    """

    def __init__(self, fetch: Callable[[int], list[ItemRow]], key: Callable[[ItemRow], tuple],
                 first: int = _FIRST_ROWS) -> None:
        self._fetch = fetch
        self.key = key
        self.rows: list[ItemRow] = []
        self.complete = False
        self._read(first)

    def _read(self, size: int) -> None:
        self.rows = self._fetch(size)
        self.complete = len(self.rows) < size

    def __iter__(self) -> Iterator[ItemRow]:
        i = 0
        while True:
            if i >= len(self.rows):
                if self.complete:
                    return
                self._read(2 * len(self.rows) + _FIRST_ROWS)
                continue
            yield self.rows[i]
            i += 1

    def at_least(self, n: int) -> int:
        """How many rows there are, counting no further than ``n``."""
        while len(self.rows) < n and not self.complete:
            self._read(max(n, 2 * len(self.rows) + _FIRST_ROWS))
        return min(n, len(self.rows))

    def remove(self, row: ItemRow) -> None:
        rows = self.rows
        if rows and rows[0].id == row.id:  # the answered item is mostly the first (ids are unique)
            del rows[0]
            return
        i = bisect_left(self.rows, self.key(row), key=self.key)
        if not (i < len(self.rows) and self.rows[i].id == row.id):
            i = next((j for j, r in enumerate(self.rows) if r.id == row.id), -1)
        if i >= 0:
            del self.rows[i]

    def add(self, row: ItemRow) -> None:
        if self.complete or (self.rows and self.key(row) < self.key(self.rows[-1])):
            insort(self.rows, row, key=self.key)


def _counts_of(built: Built) -> Counts:
    return Counts(new=built.counts_new, learning=built.counts_learning, review=built.counts_review)


def _with_state(row: ItemRow, state: ItemState) -> ItemRow:
    """``dataclasses.replace(row, state=state)``, each field set through its slot by a function
    written out for the class (replace goes through keywords and a frozen __init__, and a loop
    over the fields took twice as long again: every answer makes one)."""
    cls = type(row)
    replacer = _STATE_REPLACERS.get(cls)
    if replacer is None:
        replacer = _STATE_REPLACERS[cls] = _state_replacer(cls)
    return replacer(row, state)


def _state_replacer(cls: type) -> Callable[[ItemRow, ItemState], ItemRow]:
    names = [f.name for f in fields(cls)]
    lines = [f"    set_{name}(out, {'state' if name == 'state' else 'row.' + name})" for name in names]
    source = "def with_state(row, state):\n    out = new(cls)\n" + "\n".join(lines) + "\n    return out\n"
    namespace = {"new": _new_object, "cls": cls, **{f"set_{name}": cls.__dict__[name].__set__ for name in names}}
    exec(source, namespace)  # noqa: S102 - the source is made above from the class's own field names
    return namespace["with_state"]


_STATE_REPLACERS: dict[type, Callable[[ItemRow, ItemState], ItemRow]] = {}


def _due_order(row: ItemRow) -> tuple:
    return (row.state.due_ms, row.id)


def _bank_order(row: ItemRow) -> tuple:
    return (row.position,)


@dataclass
class _Today:
    day_start: int
    version: tuple[int, int]
    done: dict[str, tuple[int, int]]  # deck -> (new introduced, reviews answered)
    reviewed: dict[str, dict[str, str]]  # sibling group -> {key answered today: its state before}
    review_due: dict[str, int]  # deck -> reviews due today (before limits)
    extensions: dict[str, tuple[int, int]]  # deck (or "*") -> custom study's (extra new, extra reviews) today
    # Today's queues, read when first needed (visible items only: present, not suspended or buried).
    learning: _Rows | None = None  # every learning item, soonest due first
    reviews: _Rows | None = None  # reviews due today, most overdue first
    # Each deck's own reviews due today in the same order, for its count on the deck list (walking
    # the queue of every deck to find a small deck's few reviews read the whole of it); dropped
    # when this session answers, read again when next asked.
    deck_reviews: dict[str, _Rows] = field(default_factory=dict)
    new: dict[tuple[str, str], _Rows] = field(default_factory=dict)  # (deck, order) -> new items in that order
    # The last build's gathered queues: kept across picks, patched by this session's own answers
    # where that gives exactly what a new build would (see ReviewSession._patch_gathered).
    gathered: Gathered | None = None
    # Where each item of the main queue (reviews, interday learning, new) stood in the day's first
    # build: Anki builds that queue once and answers only take items off it, so the mix of new
    # into reviews is the first build's, not one re-spread over what is left after each answer.
    # Any other write (undo, bury, custom study, another window) reads the day again, and so
    # builds afresh, as Anki rebuilds its queues after such changes.
    main_order: dict[str, int] | None = None
    main_head: str | None = None  # the first of it at the last build
    main_next: int = 0  # the place the next item to join the main queue takes (after all before it)
    day: int = 0  # the study day, and the start of the next (set by ReviewSession._today)
    day_end: int = 0
    primed: bool = False  # today's first items' fuzz needs worked out (see ReviewSession._prime)


@dataclass
class _Undo:
    action: str  # answer | bury | suspend | unsuspend | flag
    before: ItemRow
    log_id: int | None = None
    shown: ShownItem | None = None
    cram_queue: list[int] | None = None
    answer_index: int | None = None


class ReviewSession:
    """One study session. Not thread-safe: drive it from one thread (a Textual worker is fine)."""

    # Keep today's gathered queues between picks (False: gather afresh at every pick, the
    # reference tests/test_queue_incremental.py compares with).
    _keep_gathered = True

    def __init__(self, store: Store, decks: Iterable[Deck], *, clock: Clock | None = None,
                 settings: Settings | None = None, cram: bool = False,
                 deck_ids: Sequence[str] | None = None, presets: Presets | None = None,
                 custom: CustomStudy | None = None, groups: Mapping[tuple[str, str], str] | None = None,
                 study_days_later: bool = False) -> None:
        """``groups``: the linked decks' sibling groups (``queue.group_keys``), when the caller knows them
        and that the store is in step with the decks (``Store.synced``): the decks then need only their
        ids (a ``core.decksummary.DeckSummary`` will do) for ``deck_counts``, and nothing is synced.
        ``study_days_later``: the first pick leaves the study days ahead to ``keep_study_days``, which
        the caller calls once that pick is shown (the terminal app: its first card waited for them)."""
        self._study_days_later = study_days_later
        self.store = store
        self.clock = clock or store.clock
        self.settings = settings or store.load_settings()
        # Anki's load balancer (when the settings have it on) sees the session's decks' workload.
        self._workload_ahead: tuple[list[int], int, Callable[[], list[int] | None]] | None = None
        self.load_balancer = LoadBalancer(fill=self._workload, day_of=lambda ms: self.scheduler.days.day_of(ms))
        self.scheduler = ReviewScheduler(self.settings, load_balancer=self.load_balancer)
        self.presets = presets or store.load_presets()
        self._presets_of: tuple[Presets | None, dict[str, Preset]] = (None, {})
        self.custom = custom
        self._schedulers: dict[str, ReviewScheduler] = {}  # preset name -> its scheduler
        all_decks = list(decks)
        if deck_ids:
            from .catalog import Catalog  # the one check of deck ids, as the command line makes it

            all_decks = Catalog(decks=all_decks).select(deck_ids)
        self.decks = all_decks
        self.deck_ids = [deck.id for deck in all_decks]
        # Custom study's "forgotten cards" is a cram over them, as Anki's filtered deck without rescheduling.
        self.cram = cram or (custom is not None and custom.kind == "forgotten")
        self._cards: dict[str, dict] = {}  # deck id -> card id -> Card, built when first needed
        if groups is None:
            # First: the sync reads rows on a second connection while it makes the decks'
            # fingerprints, the pass over every card that ``has_links`` then finds done.
            with collector_paused():
                store.sync(all_decks)
            # Decks where ``related:`` joins cards into groups; elsewhere a group is one card, named
            # as ``ItemRow.sibling_key``, so only the linked decks need a table.
            self._linked = {deck.id for deck in all_decks if has_links(deck)}
            # (deck id, card id) -> sibling group (related cards join), for the linked decks
            self._groups = group_keys([deck for deck in all_decks if deck.id in self._linked])
        else:
            self._linked, self._groups = {deck_id for deck_id, _ in groups}, dict(groups)
        self._group_cards: dict[str, int] | None = None  # group -> cards in it, for the linked decks
        self.seed = store.profile_seed()
        self._current: ShownItem | None = None
        # The stored row the shown item was read from (the answer's update checks it is unchanged).
        self._shown_row: ItemRow | None = None
        self._undo: list[_Undo] = []
        self._answers: list[tuple[int, int]] = []  # (rating, duration) per answer this session
        self.started_ms = self.clock.now_ms()
        self._cram_queue: list[int] = store.cram_items(self.deck_ids) if cram else []
        if custom is not None and custom.kind == "forgotten":
            days = self.scheduler.days
            since = days.start_ms(days.day_of(self.started_ms) - custom.days + 1)
            forgotten = store.forgotten_since(self.deck_ids, since)
            self._cram_queue = sorted(forgotten, key=lambda i: rank(self.seed, str(i)))
        self._today_cache: _Today | None = None

    # ------------------------------------------------------------ the study loop

    def next(self) -> ShownItem | None:
        """The item to show, or None when nothing is left (then see ``next_due_time``).

        Calling it again before answering returns the same item with the same previews.
        """
        if self._current is not None:
            return self._current
        now = self.clock.now_ms()
        if self.cram:
            return self._next_cram(now)
        picked, counts = self._first(now)
        if picked is None:
            return None
        row, queue, ahead = picked
        self._current = self._show(row, queue, now, Counts(*counts), ahead=ahead)
        return self._current

    def answer(self, rating: int, duration_ms: int = 0, *, at_ms: int | None = None) -> Preview | None:
        """Grade the shown item (1 again .. 4 easy); returns the preview applied (None in cram).

        ``at_ms``: when the grade was given, for an answer saved later (the database was busy);
        nothing of the session changes until the answer is stored, so a failed call can be retried."""
        shown = self._require_shown()
        if rating not in RATINGS:
            raise StudyappError(f"rating {rating!r} is not a grade; use 1 (again), 2 (hard), 3 (good) or 4 (easy)",
                                code="usage")
        now = self.clock.now_ms() if at_ms is None else at_ms

        deck_id = shown.key.split("/", 1)[0]
        scheduler = self.scheduler_for(deck_id)

        def compute(row: ItemRow) -> Preview:
            if row.state is shown.state or row.state == shown.state:
                return shown.previews[rating]
            # Another window answered this item meanwhile: grade the state as it is now.
            return scheduler.apply(row.state, row.key, rating, now)

        cram_before = list(self._cram_queue) if self.cram else None
        log_id, before, applied = self.store.record_answer(
            shown.item_id, compute, kind="cram" if self.cram else "review", rating=rating, time_ms=now,
            sched_ms=shown.shown_ms, duration_ms=max(0, int(duration_ms)), settings=scheduler.settings,
            # Anki's leech action "suspend"; an undo restores the status with the state.
            suspend_leech=self.preset_for(deck_id).leech_action == "suspend",
            shown=self._shown_row if self._shown_row is not None and self._shown_row.id == shown.item_id else None)
        if self.cram:
            self._cram_queue.pop(0)
            if rating == AGAIN:
                self._cram_queue.insert(min(CRAM_AGAIN_GAP, len(self._cram_queue)), shown.item_id)
        if not self.cram:
            self._remember_answer(before, applied.after if applied else before.state, now)
            if applied is not None and applied.interval_days is not None:
                self.load_balancer.add(applied.interval_days)  # as Anki adds each answered review
        self._undo.append(_Undo("answer", before, log_id=log_id, shown=shown, cram_queue=cram_before,
                                answer_index=len(self._answers)))
        self._answers.append((rating, max(0, int(duration_ms))))
        self._current = None
        return applied

    def bury(self) -> None:
        """Hide the shown item until tomorrow (the next study day)."""
        shown = self._require_shown()
        today = self.scheduler.days.day_of(self.clock.now_ms())
        before = self.store.set_status(shown.item_id, buried_day=today)
        self._after_hide(_Undo("bury", before, shown=shown))

    def suspend(self) -> None:
        """Take the shown item out of every queue until unsuspended."""
        shown = self._require_shown()
        before = self.store.set_status(shown.item_id, suspended=True)
        self._after_hide(_Undo("suspend", before, shown=shown))

    def unsuspend(self, key: str) -> None:
        row = self._row(key)
        before = self.store.set_status(row.id, suspended=False)
        self._undo.append(_Undo("unsuspend", before))

    def flag(self, note: str, key: str | None = None) -> None:
        """Flag the shown item (or ``key``) with a note; an empty note clears the flag."""
        note = note.strip()
        if key is None:
            shown = self._require_shown()
            item_id = shown.item_id
        else:
            shown = None
            item_id = self._row(key).id
        before = self.store.set_status(item_id, flag_note=note or None, flagged_ms=self.clock.now_ms())
        self._undo.append(_Undo("flag", before))
        if shown is not None:
            self._current = ShownItem(**{**shown.__dict__, "flag_note": note or None})

    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo(self) -> ShownItem | None:
        """Take back the last action (answers, buries, suspends, flags), exactly as stored before.

        Returns the item shown again for an undone answer, bury or suspend; None otherwise.
        """
        if not self._undo:
            raise StudyappError("nothing to undo: this is the start of the session")
        entry = self._undo[-1]
        self.store.restore(entry.before, delete_log_id=entry.log_id)
        self._undo.pop()
        self._today_cache = None
        if entry.cram_queue is not None:
            self._cram_queue = entry.cram_queue
        if entry.answer_index is not None:
            del self._answers[entry.answer_index:]
        if entry.shown is None:
            if self._current is not None and self._current.item_id == entry.before.id:
                self._current = ShownItem(**{**self._current.__dict__, "flag_note": entry.before.flag_note})
            return None
        now = self.clock.now_ms()
        row = self._row_by_id(entry.before.id)
        counts = self._cram_counts() if self.cram else self.counts(now)
        self._current = self._show(row, entry.shown.queue, now, counts)
        return self._current

    # ------------------------------------------------------------ what is left, what comes next

    def counts(self, now_ms: int | None = None) -> Counts:
        """What is left today as Anki counts it: new and reviews within today's limits, siblings
        that will be buried left out; learning = intraday learning due within the learn-ahead
        limit plus interday learning due today."""
        if self.cram:
            return self._cram_counts()
        return Counts(*self._first(self.clock.now_ms() if now_ms is None else now_ms)[1])

    def upcoming(self, limit: int = 10_000) -> list[tuple[str, str]]:
        """Today's queue as (key, queue name), in the order ``next`` would give it."""
        if self.cram:
            rows = [self._row_by_id(i) for i in self._cram_queue[:limit]]
            return [(row.key, CRAM_QUEUE) for row in rows]
        return [(row.key, queue) for row, queue, _ in self._build(self.clock.now_ms()).order(limit)]

    def limits_reached(self) -> list[LimitReached]:
        """The daily limits that hold items back right now (empty when none does): what the
        screen names when a session runs out, with custom study to go past them."""
        if self.cram or self.custom is not None:
            return []
        now = self.clock.now_ms()
        days = self.scheduler.days
        today = days.day_of(now)
        new_left, review_left = self._limits_left(days.start_ms(today))
        out = []
        for kind, left, queue, end in (("new", new_left, 0, None), ("review", review_left, 2, days.end_ms(today))):
            waiting = {d: self.store.count_capped(d, queue, end, today, 1_000_000) for d in self.deck_ids}
            held = {d: n for d, n in waiting.items() if n and left[d] <= 0}
            if not held:
                continue
            overall = left["*"] <= 0 and any(self._deck_left(kind, d, today) > 0 for d in held)
            limit = self._overall_limit(kind) if overall else None
            for deck_id, count in held.items():
                if overall and self._deck_left(kind, deck_id, today) > 0:
                    continue
                out.append(LimitReached(kind, deck_id, self._deck_limit(kind, deck_id), count))
            if overall:
                out.append(LimitReached(kind, None, limit, sum(held.values())))
        return out

    def new_left_today(self, deck_id: str) -> int:
        """New items the deck may still introduce today (its limit and the overall one)."""
        days = self.scheduler.days
        return self._limits_left(days.start_ms(days.day_of(self.clock.now_ms())))[0].get(deck_id, 0)

    def study_more_new(self, count: int, deck_id: str | None = None) -> None:
        """Custom study's "increase today's new card limit": ``count`` more new items today,
        for one deck or the session's decks, without changing any preset."""
        self._extend(count, 0, deck_id)

    def study_more_reviews(self, count: int, deck_id: str | None = None) -> None:
        self._extend(0, count, deck_id)

    def _extend(self, new: int, review: int, deck_id: str | None) -> None:
        if deck_id is not None and deck_id not in self.deck_ids:
            raise StudyappError(f"deck {deck_id!r} is not in this session", code="usage")
        today = self.scheduler.days.day_of(self.clock.now_ms())
        for target in ([deck_id] if deck_id else self.deck_ids):
            self.store.extend_limits(today, target, new=new, review=review)
        self.store.extend_limits(today, "*", new=new, review=review)
        self._today_cache = None

    def _workload(self, now_ms: int) -> dict[int, int]:
        """Items due on each of the next days (offset from today; overdue ones today), for the load balancer."""
        starts = self._workload_starts(now_ms)
        counts = None
        ahead, self._workload_ahead = self._workload_ahead, None
        if ahead is not None and ahead[0] == starts and ahead[1] == self.store.writes:
            counts = ahead[2]()
        if counts is None:
            counts = self.store.due_between(self.deck_ids, starts)
        return {offset: count for offset, count in enumerate(counts) if count}

    def _workload_starts(self, now_ms: int) -> list[int]:
        days = self.scheduler.days
        today = days.day_of(now_ms)
        return [days.start_ms(today + offset) for offset in range(LOAD_BALANCE_DAYS + 1)]

    def _count_workload_aside(self, now_ms: int) -> None:
        """Start counting the load balancer's workload for the day of ``now_ms`` on a second
        connection, while this thread gathers the day's queues: the first review's previews
        need it right after (some 20 ms of SQLite at 100,000 items, beside as much of gathering)."""
        if not (self.settings.fuzz and self.settings.load_balancer) or not self.deck_ids:
            return
        starts = self._workload_starts(now_ms)
        wait = self.store.due_between_aside(self.deck_ids, starts)
        if wait is not None:
            # Used only if nothing was written through this store meanwhile (then counted again).
            self._workload_ahead = (starts, self.store.writes, wait)

    # -- presets

    def preset_for(self, deck_id: str) -> Preset:
        # Kept per deck while ``presets`` is the same object (frozen: a change is a new one).
        kept = self._presets_of
        if kept[0] is not self.presets:
            kept = self._presets_of = (self.presets, {})
        preset = kept[1].get(deck_id)
        if preset is None:
            preset = kept[1][deck_id] = self.presets.for_deck(deck_id)
        return preset

    def settings_for(self, deck_id: str) -> Settings:
        return self.scheduler_for(deck_id).settings

    def scheduler_for(self, deck_id: str) -> ReviewScheduler:
        preset = self.preset_for(deck_id)
        scheduler = self._schedulers.get(preset.name)
        if scheduler is None:
            settings = preset.scheduling(self.settings)
            scheduler = (self.scheduler if settings == self.settings
                         else ReviewScheduler(settings, load_balancer=self.load_balancer))
            self._schedulers[preset.name] = scheduler
        return scheduler

    def next_due_time(self) -> int | None:
        """When something will next be ready (epoch ms), or None if nothing is scheduled at all."""
        now = self.clock.now_ms()
        days = self.scheduler.days
        today = days.day_of(now)
        tomorrow = days.start_ms(today + 1)
        learning, review = self.store.next_due(self.deck_ids, now, today)
        times = []
        if learning is not None:
            times.append(learning)
        if review is not None:
            times.append(max(days.start_ms(days.day_of(review)), tomorrow))
        # New items, and reviews held back today (limits, siblings, burial), wait for tomorrow;
        # counting with "today + 1" includes the items buried today.
        if any(self.store.count_capped(d, q, end, today + 1, 1)
               for d in self.deck_ids for q, end in ((0, None), (2, tomorrow))):
            times.append(tomorrow)
        return min(times) if times else None

    def summary(self) -> SessionSummary:
        by_rating = {r: 0 for r in RATINGS}
        for rating, _ in self._answers:
            by_rating[rating] += 1
        return SessionSummary(reviewed=len(self._answers), again=by_rating[AGAIN],
                              time_ms=sum(d for _, d in self._answers), started_ms=self.started_ms,
                              by_rating=by_rating, next_due_ms=self.next_due_time())

    # ------------------------------------------------------------ for the stats and browse screens

    def forecast(self, days: int = 30) -> list[DayCount]:
        """Items falling due on each of the next ``days`` study days (overdue ones count today)."""
        now = self.clock.now_ms()
        sd = self.scheduler.days
        today = sd.day_of(now)
        counts = self.store.due_per_day(self.deck_ids, now, sd.day_of, sd.start_ms(today + days))
        return [DayCount(sd.date_of(today + i), counts.get(today + i, 0)) for i in range(days)]

    def reviews_per_day(self, days: int = 30) -> list[DayCount]:
        """Answers (and how many were Again) on each of the last ``days`` study days, oldest first."""
        now = self.clock.now_ms()
        sd = self.scheduler.days
        today = sd.day_of(now)
        first = today - days + 1
        totals = {d: [0, 0] for d in range(first, today + 1)}
        for time_ms, rating, _, _ in self.store.answers_between(self.deck_ids, sd.start_ms(first), sd.end_ms(today)):
            day = sd.day_of(time_ms)
            if day in totals:
                totals[day][0] += 1
                totals[day][1] += rating == AGAIN
        return [DayCount(sd.date_of(d), c, a) for d, (c, a) in sorted(totals.items())]

    def retention(self, days: int = 30) -> tuple[float | None, float]:
        """(True Retention over the last ``days`` study days, the desired retention)."""
        now = self.clock.now_ms()
        sd = self.scheduler.days
        start = sd.start_ms(sd.day_of(now) - days + 1)
        rows = self.store.retention_answers(self.deck_ids, start, sd.end_ms(sd.day_of(now)))
        return true_retention((k, r, li) for _, _, k, r, li in rows).rate, self.settings.desired_retention

    def retention_spans(self, deck_id: str | None = None) -> dict[str, TrueRetention]:
        """True Retention (young, mature) over the day, week, month and year ending today."""
        now = self.clock.now_ms()
        sd = self.scheduler.days
        today = sd.day_of(now)
        decks = [deck_id] if deck_id else self.deck_ids
        per_day: dict[int, TrueRetention] = {}
        for days in self._retention_days(decks, today).values():
            for day, counts in days.items():
                per_day[day] = per_day.get(day, TrueRetention()) + counts
        return spans_from_days(per_day, today)

    def retention_spans_by_deck(self) -> dict[str, dict[str, TrueRetention]]:
        """``retention_spans`` for every deck of the session, from one read of the log."""
        today = self.scheduler.days.day_of(self.clock.now_ms())
        return {deck_id: spans_from_days(days, today)
                for deck_id, days in self._retention_days(self.deck_ids, today).items()}

    def _retention_days(self, deck_ids, today: int) -> dict[str, dict[int, TrueRetention]]:
        # Summed per day in SQL: a year of a million-answer log is not read into Python (F15).
        sd = self.scheduler.days
        return self.store.retention_days(deck_ids, sd.start_ms(today - SPANS["year"] + 1), sd.end_ms(today), sd.day_of)

    def deck_progress(self, *, spans: bool = True) -> list[DeckProgress]:
        """``spans=False`` leaves retention out (None, no spans): the home screen shows none, and they
        cost a scan of a year of the log."""
        sd = self.scheduler.days
        today = sd.day_of(self.clock.now_ms())
        counts = self.store.deck_counts(self.deck_ids)
        by_deck = self.retention_spans_by_deck() if spans else {}
        out = []
        for deck in self.decks:
            c = counts[deck.id]
            items = len(deck.items())
            # Items not yet stored are new; "stored" may include items that left the deck.
            unseen = c["new"] + max(0, items - (c["new"] + c["learning"] + c["review"]))
            now = self.deck_counts(deck.id)
            deck_spans = (by_deck.get(deck.id) or by_span((), sd.day_of, today)) if spans else {}
            out.append(DeckProgress(deck.id, deck.title, items, now.new, now.learning, c["review"], now.review,
                                    c["reviews"], deck_spans["month"].rate if spans else None, unseen, c["learning"],
                                    deck_spans))
        return out

    def deck_counts(self, deck_id: str) -> Counts:
        """What can be studied in the deck today: the deck on its own, as Anki's deck list counts it."""
        return _counts_of(self._build(self.clock.now_ms(), only=deck_id))

    def leeches(self) -> list[ItemInfo]:
        return [self._info(row) for row in self.store.leeches(self.deck_ids)]

    def flagged(self) -> list[ItemInfo]:
        return [self._info(row) for row in self.store.flagged(self.deck_ids)]

    def item_info(self, key: str) -> ItemInfo:
        return self._info(self._row(key))

    # ------------------------------------------------------------ internals

    def _info(self, row: ItemRow) -> ItemInfo:
        return ItemInfo(row.key, self._item(row), row, self.store.history(row.id),
                        self.scheduler.retrievability(row.state, self.clock.now_ms()))

    def _item(self, row: ItemRow) -> Item | None:
        """The deck content of a stored item (None if its card left the deck)."""
        card = self._card(row)
        return None if card is None else Item(row.deck_id, card, row.variant)

    def _card(self, row: ItemRow) -> Card | None:
        """The card of a stored item, where the card is in its deck and has the item's variant."""
        cards = self._cards.get(row.deck_id)
        if cards is None:
            deck = next((d for d in self.decks if d.id == row.deck_id), None)
            cards = self._cards[row.deck_id] = {c.id: c for c in deck.cards} if deck else {}
        card = cards.get(row.card_id)
        if card is None or row.variant not in card.variants():
            return None
        return card

    def _require_shown(self) -> ShownItem:
        if self._current is None:
            raise StudyappError("no item is shown; call next() first")
        return self._current

    def _row(self, key: str) -> ItemRow:
        row = self.store.item(key)
        if row is None:
            raise StudyappError(f"no progress is stored for item {key!r}")
        return row

    def _row_by_id(self, item_id: int) -> ItemRow:
        row = self.store.item_by_id(item_id)
        if row is None:
            raise StudyappError(f"item {item_id} is no longer stored")
        return row

    def _show(self, row: ItemRow, queue: str, now: int, counts: Counts, *, ahead: bool = False) -> ShownItem:
        previews = self.scheduler_for(row.deck_id).previews(row.state, row.key, now, lazy=True)
        self._shown_row = row
        # ShownItem(...) with every field given: a frozen dataclass's __init__ sets each through
        # object.__setattr__, a few microseconds of every pick; its __dict__ takes them at once.
        shown = _new_object(ShownItem)
        shown.__dict__.update(item_id=row.id, key=row.key, item=self._item(row), queue=queue, state=row.state,
                              previews=previews, shown_ms=now, counts=counts, flag_note=row.flag_note, ahead=ahead)
        return shown

    def _after_hide(self, entry: _Undo) -> None:
        if self.cram and self._cram_queue:
            entry.cram_queue = list(self._cram_queue)
            self._cram_queue.pop(0)
        self._undo.append(entry)
        self._current = None

    def _learn_ahead_ms(self) -> int:
        # Anki's learn-ahead limit is one for the collection; here the session's first deck's preset sets it.
        preset = self.preset_for(self.deck_ids[0]) if self.deck_ids else None
        minutes = preset.learn_ahead_minutes if preset and preset.learn_ahead_minutes is not None else None
        return (self.settings.learn_ahead_minutes if minutes is None else minutes) * MINUTE_MS

    def _today(self, day_start_ms: int) -> _Today:
        """Today's figures that only writes can change: answers done per deck, keys reviewed
        per sibling group, reviews due per deck.

        Kept in memory and updated as this session answers, with today's queues; read again
        from the database when the day changes, after any other write (undo, bury, another
        window), or when another process committed (data_version).
        """
        version = self.store.data_version()
        cached = self._today_cache
        if cached is not None and cached.day_start == day_start_ms and cached.version == version:
            return cached
        days = self.scheduler.days
        today = days.day_of(day_start_ms)
        reviewed: dict[str, dict[str, str]] = {}
        for sibling_key, answered in self.store.reviewed_since(day_start_ms).items():
            deck_id, card_id = sibling_key.split("/", 1)
            group = self._groups.get((deck_id, card_id), sibling_key)
            for key, state in answered.items():
                reviewed.setdefault(group, {}).setdefault(key, state)
        end = days.end_ms(today)
        self._today_cache = _Today(day_start_ms, version, self.store.done_since(day_start_ms), reviewed,
                                   self.store.due_counts(self.deck_ids, 2, end, today),
                                   self.store.limit_extensions(today), day=today, day_end=end)
        return self._today_cache

    def _remember_answer(self, before: ItemRow, after: ItemState, time_ms: int) -> None:
        cached = self._today_cache
        self._today_cache = None
        if cached is None:
            return
        days = self.scheduler.days
        if not cached.day_start <= time_ms < cached.day_end:  # answered on another day than the one kept
            return
        day = cached.day
        # Still exact only if the one write since the last read was this answer. A commit by another
        # connection since that read changes data_version: the next pick (``_today``) sees it
        # and reads the day again, so the patched copy kept here is never used then.
        writes = self.store.writes
        if writes != cached.version[1] + 1:
            return
        version = (cached.version[0], writes)
        cached.deck_reviews.clear()
        state = before.state
        new, review = cached.done.get(before.deck_id, (0, 0))
        cached.done[before.deck_id] = (new + (state.state == "new"), review + (state.state == REVIEW))
        cached.reviewed.setdefault(self._group(before), {}).setdefault(before.key, state.state)
        head = cached.gathered.main[0][0].key if cached.gathered is not None and cached.gathered.main else cached.main_head
        if cached.main_order is not None and before.key != head and (
                before.key in cached.main_order or not state.in_learning):
            # Not the head of the queue (shown before the day turned, or from another build):
            # Anki rebuilds its queues then (queue/mod.rs pop_entry), and so the mix is spread afresh.
            cached.main_order = None
        end = cached.day_end
        if cached.main_order is not None:
            cached.main_order.pop(before.key, None)  # answered: off the queue, as Anki pops it
            intraday = after.in_learning and days.day_of(after.due_ms or 0) <= day
            if after.state != "new" and (after.due_ms or 0) < end and not intraday:
                # Back in today's main queue at once (a card shown days before it was answered
                # keeps the intervals it was shown with): Anki's queue would not have it; build afresh.
                cached.main_order = None
        due_before = state.state == REVIEW and (state.due_ms or 0) < end
        # An item shown days before it was answered keeps the intervals it was shown with,
        # so it can come out of the answer already due.
        due_after = after.state == REVIEW and (after.due_ms or 0) < end
        if due_before != due_after:
            cached.review_due[before.deck_id] = cached.review_due.get(before.deck_id, 0) + (1 if due_after else -1)
        # The queues: the item leaves the one it was in and joins the one its new state puts it in.
        for rows in self._queues_of(cached, before):
            rows.remove(before)
        visible = before.present and not before.suspended and before.buried_day < day
        row = _with_state(before, after)
        if visible:
            for rows in self._queues_of(cached, row):
                if rows is not cached.reviews or (after.due_ms or 0) < end:
                    rows.add(row)
        if cached.gathered is not None and (cached.main_order is None or not self._patch_gathered(
                cached.gathered, before, row if visible else None, end, cached.done)):
            # (With the day's main order forgotten, the next pick spreads the mix afresh.)
            cached.gathered = None
        cached.version = version
        self._today_cache = cached

    def _patch_gathered(self, gathered: Gathered, before: ItemRow, after: ItemRow | None, end: int,
                        done: Mapping[str, tuple[int, int]]) -> bool:
        """Bring the gathered queues past this session's answer to ``before`` (now ``after``;
        None: hidden), where the result is exactly what gathering again would give; False
        where it would not be, and the next pick gathers again.

        Exact when the item is alone in its sibling group (its answer buries nothing, its
        place in a group marks nothing) and it was a review, an intraday learning item or a
        new item gathered deck by deck or in one ranked stream: it used one place of its
        deck's limit, the answer counts one against that limit, and every other item keeps
        its place ("interleaved" takes each deck's next item at its turn, and the answered
        deck's turns now start one later: the new items are put in that order again).
        Interday learning uses a review place that its answer gives back (another review may
        take it): that gathers again, as does an answer that puts an item back among today's
        reviews.
        """
        if not self._alone(before):
            return False
        was = gathered.take_out(before)
        if was is None or was == "day_learning":
            return False
        if was == "new" and self.preset_for(self.deck_ids[0]).new_gather_order == "interleaved":
            # Each deck's items keep their places in it; the turns of the answered item's deck
            # start one later (QueueBuilder.new), which can reorder the items before it.
            gathered.reinterleave({d: n for d, (n, _) in done.items()}, self.deck_ids)
        if after is None:
            return True
        state = after.state
        if state.in_learning:
            days = self.scheduler.days
            if days.day_of(state.due_ms or 0) > days.day_of(state.last_review_ms or 0):  # interday
                return (state.due_ms or 0) >= end
            gathered.add_intraday(after)
            return True
        return state.state == REVIEW and (state.due_ms or 0) >= end

    def _deck_limit(self, kind: str, deck_id: str) -> int:
        """The deck's own daily limit: a per-deck override in the settings, else its preset's."""
        override = self.settings.limits_for(deck_id)
        value = override.new_per_day if kind == "new" else override.reviews_per_day
        if value is not None:
            return value
        settings = self.settings_for(deck_id)
        return settings.new_per_day if kind == "new" else settings.reviews_per_day

    def _overall_limit(self, kind: str) -> int:
        return self.settings.new_per_day if kind == "new" else self.settings.reviews_per_day

    def _deck_left(self, kind: str, deck_id: str, today: int, cached: _Today | None = None) -> int:
        if cached is None:
            cached = self._today(self.scheduler.days.start_ms(today))
        index = 0 if kind == "new" else 1
        done = cached.done.get(deck_id, (0, 0))[index]
        extra = cached.extensions.get(deck_id, (0, 0))[index]
        return max(0, self._deck_limit(kind, deck_id) + extra - done)

    def _limits_left(self, day_start_ms: int, cached: _Today | None = None) -> tuple[dict[str, int], dict[str, int]]:
        """New and review items each deck (and "*", overall) may still show today; custom
        study's extensions for today are added, the limits themselves stay as set."""
        if cached is None:
            cached = self._today(day_start_ms)
        today = self.scheduler.days.day_of(day_start_ms)
        if self.custom is not None:  # review ahead: reviews only, no limits (Anki's filtered deck)
            return ({"*": 0, **{d: 0 for d in self.deck_ids}},
                    {"*": 1 << 40, **{d: 1 << 40 for d in self.deck_ids}})
        lefts = []
        for index, kind in enumerate(("new", "review")):
            done = sum(v[index] for v in cached.done.values())
            extra = cached.extensions.get("*", (0, 0))[index]
            left = {"*": max(0, self._overall_limit(kind) + extra - done)}
            for deck_id in self.deck_ids:
                left[deck_id] = min(self._deck_left(kind, deck_id, today, cached), left["*"])
            lefts.append(left)
        return lefts[0], lefts[1]

    def _group(self, row: ItemRow) -> str:
        group = self._groups.get((row.deck_id, row.card_id))
        return row.sibling_key if group is None else group

    def _alone(self, row: ItemRow) -> bool:
        """Whether the item is the only one of its sibling group (one card, one variant)."""
        card = self._card(row)
        if card is None or len(card.variants()) != 1:
            return False
        if row.deck_id not in self._linked:
            return True
        if self._group_cards is None:
            counts: dict[str, int] = {}
            for (deck_id, _), group in self._groups.items():
                if deck_id in self._linked:
                    counts[group] = counts.get(group, 0) + 1
            self._group_cards = counts
        return self._group_cards.get(self._group(row), 0) == 1

    def keep_study_days(self) -> None:
        """Work out the study days the intervals of today's items land on, _KEPT_DAYS from today in
        one pass (StudyDays.keep_days: a few milliseconds, kept for every later session of the
        process). Without them each pick works out the new days of its previews one by one."""
        days = self.scheduler.days
        days.keep_days(days.day_of(self.clock.now_ms()), _KEPT_DAYS)

    def _prime(self, gathered: Gathered, count: int, first: ItemRow | None = None,
               scheduler: ReviewScheduler | None = None) -> None:
        """Work out in one go what the fuzz of ``first`` and of the next ``count`` items of each
        of the day's queues needs (the items shown next; answered ones have left them)."""
        upcoming = ([row for row, _ in gathered.main[:count]] if gathered.main is not None else
                    [*gathered.reviews[:count], *gathered.day_learning[:count], *gathered.new[:count]])
        rows = [*([first] if first is not None else ()), *gathered.intraday[:count], *upcoming]
        (scheduler or self.scheduler).prime((row.key, row.state) for row in rows)

    def _first(self, now: int) -> tuple[tuple[ItemRow, str, bool] | None, tuple[int, int, int]]:
        """The item ``next`` shows at ``now`` and the counts (new, learning, review), from
        today's gathered queues (built when missing, kept across picks)."""
        days = self.scheduler.days
        today = days.day_of(now)
        start = days.start_ms(today)
        cached = self._today(start)
        gathered = cached.gathered
        if gathered is None:
            if self.load_balancer.needs_counts(now):
                self._count_workload_aside(now)
            with collector_paused():
                gathered = self._gather(cached, start, days.end_ms(today))
            if self.custom is None and self._keep_gathered:  # review ahead reads past today: built afresh
                cached.gathered = gathered
                if not cached.primed:
                    cached.primed = True
                    self._prime(gathered, _PRIMED_FIRST)
                    if self._study_days_later:
                        self._study_days_later = False  # the first gathering's only: another day keeps its own
                    else:  # the days their intervals land on
                        days.keep_days(today, _KEPT_DAYS)
        picked = gathered.first(now, now + self._learn_ahead_ms())
        if picked[0] is not None and self._keep_gathered:
            row = picked[0][0]
            scheduler = self.scheduler_for(row.deck_id)
            if not scheduler.primed(row.key, row.state):
                # Past the items primed so far, or a learning item answered today (its review
                # count moved on, and the learning items waiting come back the same way).
                self._prime(gathered, _PRIMED, row, scheduler)
        return picked

    def _build(self, now: int, only: str | None = None) -> Built:
        """Today's queue at ``now`` (see core.queue); ``only``: one deck of the session on its own
        (its own preset's order, the deck list's count of it)."""
        days = self.scheduler.days
        today = days.day_of(now)
        start, end = days.start_ms(today), days.end_ms(today)
        cached = self._today(start)
        return self._gather(cached, start, end, only).at(now, now + self._learn_ahead_ms())

    def _gather(self, cached: _Today, start: int, end: int, only: str | None = None) -> Gathered:
        """Today's queues gathered as Anki's builder gathers them (core.queue)."""
        days = self.scheduler.days
        new_left, review_left = self._limits_left(start, cached)
        deck_ids = [only] if only else self.deck_ids
        if only:
            new_left = {"*": new_left["*"], only: new_left[only]}
            review_left = {"*": review_left["*"], only: review_left[only]}
        day_of = days.day_of
        builder = QueueBuilder(
            group=self._group, preset=self.preset_for, answered=cached.reviewed, new_left=dict(new_left),
            review_left=dict(review_left), now=start, end_of_today=end, learn_ahead_until=start,
            interday=lambda row: day_of(row.state.due_ms or 0) > day_of(row.state.last_review_ms or 0))
        learning = self._learning(cached)
        builder.learning(learning if not only else (r for r in learning if r.deck_id == only))
        builder.due(self._reviews(cached) if not only else self._deck_reviews(cached, only))
        first = self.preset_for(deck_ids[0]) if deck_ids else None
        if first is not None and new_left["*"] > 0:
            gather = first.new_gather_order
            key = self._new_key(gather)
            builder.new(deck_ids, lambda d: iter(self._new(cached, d, gather)), gather, key,
                        {d: n for d, (n, _) in cached.done.items()})
        gathered = builder.gathered(first.new_sort_order if first else "gathered", self.seed)
        if only is None:
            main = gathered.at(start, start).main
            if cached.main_order is None:
                cached.main_order = {row.key: i for i, (row, _) in enumerate(main)}
                cached.main_next = len(main)
            else:
                # An item that joins the queue later (a review let in as the limit frees up)
                # takes the next place behind everything already in it, and keeps that place,
                # so whichever build first sees it, every later one orders it the same.
                known = cached.main_order
                for row, _ in main:
                    if row.key not in known:
                        known[row.key] = cached.main_next
                        cached.main_next += 1
                main.sort(key=lambda entry: known[entry[0].key])
            cached.main_head = main[0][0].key if main else None
            gathered.main = main
        return gathered

    def _new_key(self, gather: str) -> Callable[[ItemRow], tuple]:
        """The order new items of one deck are read in, for a gather order (the store's SQL agrees)."""
        seed = self.seed
        if gather == "random-cards":
            return lambda row: (rank(seed, row.key), row.id)
        if gather in ("deck", ):
            return _bank_order
        return lambda row: (card_rank(seed, row.deck_id, row.card_id), row.position)

    # -- today's queues in memory (see _Rows)

    def _learning(self, cached: _Today) -> _Rows:
        if cached.learning is None:
            today = self.scheduler.days.day_of(cached.day_start)
            cached.learning = _Rows(lambda n: self.store.learning_due(self.deck_ids, _NO_END_MS, today, n),
                                    _due_order)
        return cached.learning

    def _reviews(self, cached: _Today) -> _Rows:
        if cached.reviews is None:
            if self.custom is None:
                # The walk reads every review due up to the overall limit (and past it for the ones
                # it skips): all of them in one read where the day's count says that is what it
                # will want. A first read of a fixed size short of them read them all twice.
                due = sum(cached.review_due.get(deck_id, 0) for deck_id in self.deck_ids)
                left = self._limits_left(cached.day_start, cached)[1]["*"]
                first = min(due, left + _FIRST_REVIEW_ROWS) + 1
                cached.reviews = self._reviews_of(cached, self.deck_ids, first, whole_from=due + 1)
            else:
                cached.reviews = self._reviews_of(cached, self.deck_ids)
        return cached.reviews

    def _deck_reviews(self, cached: _Today, deck_id: str) -> _Rows:
        """``_reviews`` of one deck: the same rows in the same order as those of the deck in it."""
        rows = cached.deck_reviews.get(deck_id)
        if rows is None:
            # Counting the deck walks its reviews up to its limit (and past what is buried): a first
            # read of that many, where the whole day's first read is thousands of full rows.
            today = self.scheduler.days.day_of(cached.day_start)
            first = min(_FIRST_REVIEW_ROWS, self._deck_left("review", deck_id, today, cached) + _FIRST_ROWS)
            rows = cached.deck_reviews[deck_id] = self._reviews_of(cached, [deck_id], first)
        return rows

    def _reviews_of(self, cached: _Today, deck_ids: Sequence[str], first: int = _FIRST_REVIEW_ROWS,
                    whole_from: int | None = None) -> _Rows:
        """``whole_from``: from how many rows a read wants every row due (see Store.reviews_due)."""
        days = self.scheduler.days
        today = days.day_of(cached.day_start)
        # Review ahead (custom study): what falls due in the next days too.
        ahead = self.custom.days if self.custom is not None and self.custom.kind == "ahead" else 0
        end = days.end_ms(today + ahead)
        seed = self.seed
        # Anki's default review order ("Day"): by due day, at random within a day.
        return _Rows(lambda n: self.store.reviews_due(deck_ids, end, today, n, day_of=days.day_of, seed=seed,
                                                      whole=whole_from is not None and n >= whole_from),
                     lambda row: (days.day_of(row.state.due_ms or 0), rank(seed, row.key)),
                     # A walk reads every review due up to the limit: read them in one go.
                     first=first)

    def _new(self, cached: _Today, deck_id: str, gather: str = "deck") -> _Rows:
        order = {"random-cards": "card", "deck": "position"}.get(gather, "note")
        rows = cached.new.get((deck_id, order))
        if rows is None:
            today = self.scheduler.days.day_of(cached.day_start)
            seed = self.seed
            rows = cached.new[(deck_id, order)] = _Rows(
                lambda n: self.store.new_items(deck_id, today, n, order=order, seed=seed), self._new_key(gather))
        return rows

    def _queues_of(self, cached: _Today, row: ItemRow) -> list[_Rows]:
        """The in-memory queue(s) already read that an item in this state belongs to."""
        state = row.state
        if state.in_learning:
            return [cached.learning] if cached.learning is not None else []
        if state.state == REVIEW:
            return [cached.reviews] if cached.reviews is not None else []
        return [rows for (deck_id, _), rows in cached.new.items() if deck_id == row.deck_id]

    # -- cram

    def _next_cram(self, now: int) -> ShownItem | None:
        while self._cram_queue:
            row = self.store.item_by_id(self._cram_queue[0])
            if row is not None and not row.suspended:
                self._current = self._show(row, CRAM_QUEUE, now, self._cram_counts())
                return self._current
            self._cram_queue.pop(0)
        return None

    def _cram_counts(self) -> Counts:
        return Counts(review=len(self._cram_queue))


__all__ = ["ReviewSession", "ShownItem", "Counts", "SessionSummary", "DeckProgress", "DayCount", "ItemInfo",
           "LEARNING_QUEUE", "REVIEW_QUEUE", "NEW_QUEUE", "CRAM_QUEUE"]
