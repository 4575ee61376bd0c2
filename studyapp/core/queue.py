"""Today's queue as Anki's v3 scheduler builds it (rslib/src/scheduler/queue/builder/).

Gathering goes queue by queue, and every item gathered marks its sibling group as seen
with its deck's bury options: intraday learning first (never buried itself), then
interday learning and reviews due today (within the review limits), then new items
(within the new limits, in the gather order). An item whose group was already seen is
skipped when the group's options bury its kind, and a skipped item uses up no limit.
Items answered earlier today bury their siblings as Anki's answer does
(rslib/src/scheduler/bury_and_suspend.rs): an answered new item buries new siblings, an
answered review buries new and review siblings, an answered learning item buries all
three kinds. The gathered new items are then sorted (the sort order); reviews and
interday learning are mixed evenly, and new items mixed evenly into those (Anki's
default "mix with reviews"; the session keeps that mix for the day, see core.session's
_Today.main_order). Learning items due now come before everything, and when
nothing else is left, learning items due within the learn-ahead limit are shown early.

Counts are Anki's: new and review are what was gathered, learning is the intraday
learning due within the learn-ahead limit plus the interday learning gathered.
"""

from __future__ import annotations

import hashlib
import heapq
from bisect import bisect_right, insort
from functools import lru_cache
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from .models import VARIANT_SLOTS, Deck
from .presets import Preset
from .scheduler import LEARNING, NEW, RELEARNING

if TYPE_CHECKING:
    from ..store.repository import ItemRow

LEARNING_QUEUE, REVIEW_QUEUE, NEW_QUEUE = "learning", "review", "new"
CUSTOM_KINDS = ("ahead", "forgotten")


@dataclass(frozen=True)
class CustomStudy:
    """Anki's custom study sessions that are not a limit increase: review ahead (reviews due in
    the next ``days`` days, rescheduled by the answers) and review forgotten cards (items answered
    Again in the last ``days`` days, random order, the schedule untouched)."""

    kind: str
    days: int = 1

    def __post_init__(self) -> None:
        from .problems import StudyappError

        if self.kind not in CUSTOM_KINDS:
            raise StudyappError(f"custom study {self.kind!r} is not one of {', '.join(CUSTOM_KINDS)}", code="usage")
        if isinstance(self.days, bool) or not isinstance(self.days, int) or not 1 <= self.days <= 365:
            raise StudyappError(f"custom study days {self.days!r} must be a whole number from 1 to 365",
                                code="usage")


@dataclass(frozen=True)
class LimitReached:
    """A daily limit that holds items back: ``kind`` new or review, for ``deck_id`` (None: all
    the session's decks together), the limit's value, and how many items wait behind it."""

    kind: str
    deck_id: str | None
    limit: int
    waiting: int


@lru_cache(maxsize=1 << 18)
def rank(seed: int, text: str) -> int:
    """A stable pseudo-random rank of ``text`` under ``seed`` (random new-card orders).

    Cached: SQLite calls it for every new item each time a queue reads more rows."""
    digest = hashlib.blake2b(f"{seed}\x00{text}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def card_rank(seed: int, deck_id: str, card_id: str, ranked_by: Callable[[int, str], int] = rank) -> int:
    """A card's place in the random orders that go by card (Anki's random notes): every item of
    the card shares it. The store keeps it with each item (schema 6); ``ranked_by`` may be
    ``rank.__wrapped__``, uncached, for a whole collection at once."""
    return ranked_by(seed, f"{deck_id}/{card_id}")


def group_keys(decks: Iterable[Deck]) -> dict[tuple[str, str], str]:
    """(deck id, card id) -> the sibling group: a card's own id, joined with the cards it names
    in ``related:`` (and theirs, transitively), named after the group's first card in the deck."""
    out: dict[tuple[str, str], str] = {}
    for deck in decks:
        ids = [card.id for card in deck.cards]
        known = set(ids)
        parent = {card_id: card_id for card_id in ids}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        order = {card_id: i for i, card_id in enumerate(ids)}
        for card in deck.cards:
            for other in card.related:
                if other in known:
                    a, b = find(card.id), find(other)
                    if a != b:
                        # The earlier card in the bank names the group.
                        first, second = (a, b) if order[a] < order[b] else (b, a)
                        parent[second] = first
        for card_id in ids:
            out[(deck.id, card_id)] = f"{deck.id}/{find(card_id)}"
    return out


def template_index(row: ItemRow) -> int:
    """Anki's card template number: forward 0, backward 1, cloze c1 0, c2 1, ..."""
    return row.position % VARIANT_SLOTS


@dataclass(frozen=True)
class BuryMode:
    new: bool = False
    reviews: bool = False
    interday: bool = False

    @classmethod
    def of(cls, preset: Preset) -> BuryMode:
        return cls(preset.bury_new, preset.bury_reviews, preset.bury_interday_learning)

    def __or__(self, other: BuryMode) -> BuryMode:
        return BuryMode(self.new or other.new, self.reviews or other.reviews, self.interday or other.interday)


def sibling_buried_by_answer(kind: str, answered_state: str, mode: BuryMode) -> bool:
    """Whether answering a sibling from ``answered_state`` buries an item of queue ``kind``
    (Anki's ``exclude_earlier_gathered_queues``: queues gathered before the answered one stay)."""
    if kind == NEW_QUEUE:
        return mode.new
    if kind == REVIEW_QUEUE:
        return mode.reviews and answered_state != NEW
    return mode.interday and answered_state in (LEARNING, RELEARNING)  # interday learning


def intersperse(one: list, two: list) -> list:
    """Anki's Intersperser: ``two`` spread evenly through ``one``."""
    ratio = (len(one) + 1) / (len(two) + 1)
    out, i, j = [], 0, 0
    while i < len(one) and j < len(two):
        if (j + 1) * ratio < i + 1:
            out.append(two[j])
            j += 1
        else:
            out.append(one[i])
            i += 1
    out.extend(one[i:])
    out.extend(two[j:])
    return out


@dataclass
class Built:
    learning_now: list[ItemRow] = field(default_factory=list)
    main: list[tuple[ItemRow, str]] = field(default_factory=list)
    ahead: list[ItemRow] = field(default_factory=list)
    counts_new: int = 0
    counts_learning: int = 0
    counts_review: int = 0

    def order(self, limit: int) -> list[tuple[ItemRow, str, bool]]:
        """The next ``limit`` items as (row, queue, shown ahead of time)."""
        out: list[tuple[ItemRow, str, bool]] = [(r, LEARNING_QUEUE, False) for r in self.learning_now[:limit]]
        out += [(r, q, False) for r, q in self.main[:max(0, limit - len(out))]]
        if not out:
            out = [(r, LEARNING_QUEUE, True) for r in self.ahead[:limit]]
        return out[:limit]


def sort_new(gathered: Sequence[ItemRow], sort: str, seed: int) -> list[ItemRow]:
    """The gathered new items in the sort order (Anki's new card sort order)."""
    new = list(gathered)
    if sort == "card-type":
        new.sort(key=template_index)  # stable: gather order within a card type
    elif sort == "card-type-random":
        new.sort(key=lambda r: (template_index(r), rank(seed, r.key)))
    elif sort == "random-note-card-type":
        new.sort(key=lambda r: (card_rank(seed, r.deck_id, r.card_id), template_index(r)))
    elif sort == "random":
        new.sort(key=lambda r: rank(seed, r.key))
    return new


def _remove(rows: list[ItemRow], row: ItemRow) -> bool:
    # The answered item is nearly always the first of its list.
    if rows and rows[0].id == row.id:
        del rows[0]
        return True
    for i, other in enumerate(rows):
        if other.id == row.id:
            del rows[i]
            return True
    return False


def _due_of(row: ItemRow) -> int:
    return row.state.due_ms or 0


def _first_interspersed(one: list, two: list):
    """``intersperse(one, two)[0]`` without building the list (None when both are empty)."""
    if len(one) < len(two):
        return two[0]
    return one[0] if one else None


@dataclass
class Gathered:
    """Today's gathered queues, before ``now`` splits the learning items: what a build keeps
    between picks. ``intraday`` is every intraday learning item, soonest due first (with the
    learn-ahead limit, ``now`` decides which of them are shown and counted); the rest is as
    Anki's builder leaves it: interday learning and reviews (gather order), new (sorted)."""

    intraday: list[ItemRow] = field(default_factory=list)
    day_learning: list[ItemRow] = field(default_factory=list)
    reviews: list[ItemRow] = field(default_factory=list)
    new: list[ItemRow] = field(default_factory=list)
    new_gathered: list[ItemRow] = field(default_factory=list)  # ``new`` before the sort
    sort: str = "gathered"
    seed: int = 0
    # The main queue (reviews and interday learning mixed with new) in the order the day's first
    # build gave it, when the session keeps it (Anki builds it once and answers pop it); None:
    # mixed from the three lists above.
    main: list[tuple[ItemRow, str]] | None = None

    def at(self, now: int, learn_ahead_until: int) -> Built:
        """The queue at ``now``, as QueueBuilder.finish builds it."""
        due_now = bisect_right(self.intraday, now, key=_due_of)
        counted = bisect_right(self.intraday, learn_ahead_until, key=_due_of) if learn_ahead_until > now else due_now
        built = Built(learning_now=self.intraday[:due_now], ahead=self.intraday[due_now:counted],
                      counts_new=len(self.new), counts_review=len(self.reviews),
                      counts_learning=counted + len(self.day_learning))
        if self.main is not None:
            built.main = list(self.main)
            return built
        due = intersperse([(r, REVIEW_QUEUE) for r in self.reviews], [(r, LEARNING_QUEUE) for r in self.day_learning])
        built.main = intersperse(due, [(r, NEW_QUEUE) for r in self.new])
        return built

    def first(self, now: int, learn_ahead_until: int) -> tuple[tuple[ItemRow, str, bool] | None, tuple[int, int, int]]:
        """``at(now, ...).order(1)`` and its counts (new, learning, review), in a few steps:
        the first of an interspersed list only depends on the two lengths."""
        intraday = self.intraday
        due_now = bisect_right(intraday, now, key=_due_of)
        counted = bisect_right(intraday, learn_ahead_until, key=_due_of) if learn_ahead_until > now else due_now
        counts = (len(self.new), counted + len(self.day_learning), len(self.reviews))
        if due_now:
            return (intraday[0], LEARNING_QUEUE, False), counts
        if self.main is not None:
            if self.main:
                row, queue = self.main[0]
                return (row, queue, False), counts
            return ((intraday[0], LEARNING_QUEUE, True), counts) if counted else (None, counts)
        reviews, day_learning, new = self.reviews, self.day_learning, self.new
        if len(reviews) < len(day_learning):
            due_first = (day_learning[0], LEARNING_QUEUE)
        else:
            due_first = (reviews[0], REVIEW_QUEUE) if reviews else None
        if len(reviews) + len(day_learning) < len(new):
            main_first = (new[0], NEW_QUEUE)
        else:
            main_first = due_first
        if main_first is not None:
            return (main_first[0], main_first[1], False), counts
        if counted:
            return (intraday[0], LEARNING_QUEUE, True), counts
        return None, counts

    def take_out(self, row: ItemRow) -> str | None:
        """Remove an item; returns which list held it ("intraday", "day_learning", "reviews", "new")."""
        names = ("intraday", "reviews", "new", "day_learning")
        # The head of a list first (an item is in one list only): a new item's answer then does
        # not walk every review before finding it.
        item_id = row.id
        for name in names:
            rows = getattr(self, name)
            if rows and rows[0].id == item_id:
                names = (name,)
                break
        for name in names:
            if _remove(getattr(self, name), row):
                if name == "new":
                    _remove(self.new_gathered, row)
                if self.main is not None and name != "intraday":
                    if self.main and self.main[0][0].id == row.id:  # the head, nearly always
                        del self.main[0]
                    else:
                        self.main = [entry for entry in self.main if entry[0].id != row.id]
                return name
        return None

    def reinterleave(self, done: Mapping[str, int], deck_ids: Sequence[str]) -> None:
        """The new items in the "interleaved" gather order for today's ``done`` counts: a deck's
        k-th item is taken at turn done + k, ties going to the deck listed first."""
        index = {deck_id: i for i, deck_id in enumerate(deck_ids)}
        seen: dict[str, int] = {}
        keyed = []
        for row in self.new_gathered:
            k = seen.get(row.deck_id, 0)
            seen[row.deck_id] = k + 1
            keyed.append((done.get(row.deck_id, 0) + k, index.get(row.deck_id, len(index)), row))
        keyed.sort(key=lambda t: (t[0], t[1]))  # stable: one deck's items keep their order
        self.new_gathered = [row for _, _, row in keyed]
        self.new = sort_new(self.new_gathered, self.sort, self.seed)

    def add_intraday(self, row: ItemRow) -> None:
        insort(self.intraday, row, key=lambda r: (_due_of(r), r.id))


class QueueBuilder:
    """One build of today's queue; see the module's docstring for the rules."""

    def __init__(self, *, group: Callable[[ItemRow], str], preset: Callable[[str], Preset],
                 answered: Mapping[str, Mapping[str, str]], new_left: dict[str, int], review_left: dict[str, int],
                 now: int, end_of_today: int, learn_ahead_until: int, interday: Callable[[ItemRow], bool]) -> None:
        self.group = group
        self.preset = preset
        self.answered = answered
        self.new_left = new_left
        self.review_left = review_left
        self.now = now
        self.end = end_of_today
        self.cutoff = learn_ahead_until
        self.interday = interday
        self.seen: dict[str, BuryMode] = {}
        self.built = Built()
        self._day_learning: list[ItemRow] = []
        self._pending_interday: list[ItemRow] = []  # interday learning due today, gathered with the reviews
        self._reviews: list[ItemRow] = []
        self._new: list[ItemRow] = []
        self._intraday: list[ItemRow] = []
        # Per deck, what its preset buries: one look-up per deck, not one per item walked.
        self._modes: dict[str, BuryMode] = {}

    def _mode(self, deck_id: str) -> BuryMode:
        mode = self._modes.get(deck_id)
        if mode is None:
            mode = self._modes[deck_id] = BuryMode.of(self.preset(deck_id))
        return mode

    # -- the rule every queue shares

    def _skip(self, row: ItemRow, kind: str) -> bool:
        """Mark the row's group as seen; True if the row is to be left out (buried as a sibling)."""
        group = self.group(row)
        mode = self._mode(row.deck_id)
        previous = self.seen.get(group)
        if kind == LEARNING_QUEUE:  # intraday learning is never buried
            self.seen[group] = mode if previous is None else previous | mode
            return False
        answered = self.answered.get(group)
        if answered:
            for key, state in answered.items():
                if key != row.key and sibling_buried_by_answer(kind, state, self._mode(key.split("/", 1)[0])):
                    return True
        self.seen[group] = mode if previous is None else previous | mode
        if previous is None:
            return False
        return {NEW_QUEUE: previous.new, REVIEW_QUEUE: previous.reviews}.get(kind, previous.interday)

    # -- gathering, in Anki's order

    def learning(self, rows: Iterable[ItemRow]) -> None:
        """Every learning item (soonest due first): intraday ones are gathered whenever due,
        interday ones (a step that crossed into a later day) only when due today."""
        built = self.built
        interday = []
        for row in rows:
            if self.interday(row):
                interday.append(row)
                continue
            self._skip(row, LEARNING_QUEUE)
            self._intraday.append(row)
            due = row.state.due_ms or 0
            if due <= self.now:
                built.learning_now.append(row)
                built.counts_learning += 1
            elif due <= self.cutoff:
                built.ahead.append(row)
                built.counts_learning += 1
        self._pending_interday = [r for r in interday if (r.state.due_ms or 0) < self.end]

    def due(self, reviews: Iterable[ItemRow]) -> None:
        """Interday learning due today, then reviews due today, within the review limits."""
        left = self.review_left
        for row in self._pending_interday:
            if left["*"] <= 0:
                break
            if left.get(row.deck_id, 0) <= 0 or self._skip(row, "interday"):
                continue
            self._day_learning.append(row)
            left[row.deck_id] -= 1
            left["*"] -= 1
        for row in reviews:
            if left["*"] <= 0:
                break
            if left.get(row.deck_id, 0) <= 0 or self._skip(row, REVIEW_QUEUE):
                continue
            self._reviews.append(row)
            left[row.deck_id] -= 1
            left["*"] -= 1

    def new(self, deck_ids: Sequence[str], streams: Callable[[str], Iterator[ItemRow]], gather: str,
            key: Callable[[ItemRow], tuple], done: Mapping[str, int] | None = None) -> None:
        """New items within the limits, in the gather order (see core.presets.GATHER_ORDERS)."""
        left = self.new_left
        done = done or {}

        def take(row: ItemRow) -> None:
            if left.get(row.deck_id, 0) > 0 and left["*"] > 0 and not self._skip(row, NEW_QUEUE):
                self._new.append(row)
                left[row.deck_id] -= 1
                left["*"] -= 1

        decks = [d for d in deck_ids if left.get(d, 0) > 0]
        if gather in ("deck", "deck-random"):
            for deck_id in decks:
                for row in streams(deck_id):
                    if left[deck_id] <= 0 or left["*"] <= 0:
                        break
                    take(row)
        elif gather == "interleaved":
            # One deck after another, each deck's turn ranked by how many new items it has
            # given today: the queue is rebuilt after every answer, and the turns carry on.
            live = {d: streams(d) for d in decks}
            turns = [(done.get(d, 0), i, d) for i, d in enumerate(decks)]
            heapq.heapify(turns)
            while turns and left["*"] > 0:
                turn, i, deck_id = heapq.heappop(turns)
                taken = len(self._new)
                for row in live[deck_id]:
                    take(row)
                    if len(self._new) > taken:
                        break
                if len(self._new) > taken and left[deck_id] > 0:
                    heapq.heappush(turns, (turn + 1, i, deck_id))
        else:  # random-notes, random-cards: all decks as one, by the same rank
            for row in heapq.merge(*(streams(d) for d in decks), key=key):
                if left["*"] <= 0:
                    break
                take(row)

    def gathered(self, sort: str, seed: int) -> Gathered:
        """The gathered queues (see Gathered), the new items sorted."""
        return Gathered(list(self._intraday), list(self._day_learning), list(self._reviews),
                        sort_new(self._new, sort, seed), list(self._new), sort, seed)

    def finish(self, sort: str, seed: int) -> Built:
        new = sort_new(self._new, sort, seed)
        built = self.built
        built.counts_new = len(new)
        built.counts_review = len(self._reviews)
        built.counts_learning += len(self._day_learning)
        due = intersperse([(r, REVIEW_QUEUE) for r in self._reviews], [(r, LEARNING_QUEUE) for r in self._day_learning])
        built.main = intersperse(due, [(r, NEW_QUEUE) for r in new])
        return built


__all__ = ["CustomStudy", "LimitReached", "QueueBuilder", "Built", "Gathered", "BuryMode", "group_keys", "rank", "card_rank",
           "intersperse", "sibling_buried_by_answer", "template_index"]
