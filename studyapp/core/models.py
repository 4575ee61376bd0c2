"""The domain's value objects: decks, cards and the items that get scheduled.

An item is the unit of spaced repetition. Its identity is ``deck id / card id /
variant`` and never its text, so that editing a card's wording keeps its progress.
"""

from __future__ import annotations

import hashlib
import re
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path

from .lazyre import LazyPattern
from .problems import Problem

CARD_TYPES = ("basic", "reverse", "cloze", "choice", "truefalse")

# Variants: one item per basic/choice/truefalse card, two per reverse card,
# one per cloze number ("c1", "c2", ...).
MAIN = "main"
FORWARD = "forward"
BACKWARD = "backward"

CLOZE_RE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
# Only deck loading and authoring count words; the Han ranges take milliseconds to compile.
HAN_RE = LazyPattern(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_WORD_RE = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9'’/+.-]*")


def phrase_words(text: str) -> int:
    """A text's length in words: Latin words (and numbers), and Han characters two to a word (rounded up)."""
    hans = len(HAN_RE.findall(text))
    return len(LATIN_WORD_RE.findall(HAN_RE.sub(" ", text))) + (hans + 1) // 2


@dataclass(frozen=True, slots=True)
class Position:
    """1-based line and column in a deck file."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class CardText:
    """A card's wording in one language (schema 2): the fields of :class:`Card` a learner reads or types."""

    front: str = ""
    back: str = ""
    text: str = ""
    statement: str = ""
    choices: tuple[str, ...] = ()
    answer: str | bool | None = None
    feedback: dict[str, str] = field(default_factory=dict)
    accept: tuple[str, ...] = ()
    explanation: str = ""


TEXT_FIELDS = tuple(f for f in CardText.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    type: str
    source: tuple[str, ...]
    position: Position = Position(0, 0)
    front: str = ""
    back: str = ""
    text: str = ""  # cloze only
    statement: str = ""  # truefalse only
    choices: tuple[str, ...] = ()
    # choice: the correct option's text; truefalse: a bool; otherwise None.
    answer: str | bool | None = None
    feedback: dict[str, str] = field(default_factory=dict)
    accept: tuple[str, ...] = ()
    explanation: str = ""
    tags: tuple[str, ...] = ()
    revision: int = 1
    related: tuple[str, ...] = ()
    # Schema 2: the language the text fields above are in, and the card's wording in each of
    # the deck's languages (empty for schema 1, whose texts have no language).
    language: str = ""
    texts: dict[str, CardText] = field(default_factory=dict, compare=False, hash=False)
    # The learner chose both languages: this one is shown dimmed under each text ("" otherwise).
    second_language: str = ""
    # Where each field starts in the file, for messages that point at it.
    field_positions: dict[str, Position] = field(default_factory=dict, compare=False, hash=False)

    @property
    def question(self) -> str:
        """The text that asks: front, statement, or the cloze text."""
        if self.type == "truefalse":
            return self.statement
        if self.type == "cloze":
            return self.text
        return self.front

    @property
    def answer_text(self) -> str:
        """The correct answer as a learner would say it."""
        if self.type == "truefalse":
            return "True" if self.answer else "False"
        if self.type == "choice":
            return str(self.answer)
        if self.type == "cloze":
            return ", ".join(m.group(2) for m in CLOZE_RE.finditer(self.text))
        return self.back

    def cloze_numbers(self) -> list[int]:
        return sorted({int(m.group(1)) for m in CLOZE_RE.finditer(self.text)})

    def variants(self) -> list[str]:
        if self.type not in MULTI_VARIANT_TYPES:
            return [MAIN]
        if self.type == "reverse":
            return [FORWARD, BACKWARD]
        if self.type == "cloze":
            return [f"c{n}" for n in self.cloze_numbers()]
        return [MAIN]

    def position_of(self, field_name: str) -> Position:
        return self.field_positions.get(field_name, self.position)

    def in_language(self, language: str) -> Card:
        """This card worded in ``language``; a language it lacks gives it unchanged (its primary)."""
        wording = self.texts.get(language)
        if wording is None or language == self.language:
            return self
        return replace(self, language=language, second_language="", **{name: getattr(wording, name) for name in TEXT_FIELDS})

    @property
    def second(self) -> Card | None:
        """The card worded in its second language, when the learner chose to see both."""
        if not self.second_language or self.second_language not in self.texts:
            return None
        return self.in_language(self.second_language)

    def wordings(self) -> list[Card | CardText]:
        """The card's wording in every language it has, the shown one (the card itself) first.

        Each entry has the text fields of :class:`CardText`; schema 1 cards have only themselves.
        """
        if not self.texts:
            return [self]
        return [self, *(text for language, text in self.texts.items() if language != self.language)]


# weakref_slot: the deck views kept for opening sessions (_DECK_VIEWS) must not keep decks alive.
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Deck:
    id: str
    title: str
    path: Path
    seed_path: Path | None  # None: a bank with no source document (its quotes are not verified)
    cards: tuple[Card, ...]
    description: str = ""
    tags: tuple[str, ...] = ()
    # Where the deck's id is written, for messages about the deck as a whole.
    position: Position = Position(1, 1)
    # Schema 2: the deck's languages, primary first, and its title and description in each.
    languages: tuple[str, ...] = ()
    language: str = ""
    titles: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    descriptions: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    # The seed's content hash as the author last accepted it ("sha256:<hex>", "" when none is recorded),
    # and the share of the seed's statements its cards must quote (None: no minimum).
    seed_hash: str = ""
    min_coverage: float | None = None
    # Where deck-level keys are written (seed, seed_hash, min_coverage), for messages about them.
    key_positions: dict[str, Position] = field(default_factory=dict, compare=False, hash=False)

    @property
    def primary_language(self) -> str:
        return self.languages[0] if self.languages else ""

    def in_language(self, language: str) -> Deck:
        """The deck with every text in ``language``; a language the deck lacks gives its primary."""
        if language not in self.languages or language == self.language:
            return self
        return replace(
            self, language=language, title=self.titles.get(language, self.title),
            description=self.descriptions.get(language, self.description),
            cards=tuple(card.in_language(language) for card in self.cards),
        )

    def card(self, card_id: str) -> Card | None:
        for card in self.cards:
            if card.id == card_id:
                return card
        return None

    def items(self) -> list[Item]:
        return [Item(self.id, card, variant) for card in self.cards for variant in card.variants()]


@dataclass(frozen=True, slots=True)
class Item:
    """One schedulable side of a card."""

    deck_id: str
    card: Card
    variant: str

    @property
    def key(self) -> str:
        return item_key(self.deck_id, self.card.id, self.variant)

    @property
    def sibling_key(self) -> str:
        """Items sharing this key are siblings and are not shown on the same day."""
        return f"{self.deck_id}/{self.card.id}"


def item_key(deck_id: str, card_id: str, variant: str) -> str:
    return f"{deck_id}/{card_id}/{variant}"


@dataclass
class LoadResult:
    """A deck file's outcome: the deck (None when the file is not usable as one) and every problem found."""

    path: Path
    deck: Deck | None
    problems: list[Problem] = field(default_factory=list)
    card_entries: int = 0  # cards in the file, counting those left out for their errors

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.problems)


# Items are numbered inside a deck as card index * VARIANT_SLOTS + variant index: bank order.
VARIANT_SLOTS = 1000


# The card types with more than one item (every other type has one, MAIN).
MULTI_VARIANT_TYPES = ("reverse", "cloze")


def sync_rows(deck: Deck) -> str:
    """The deck's items as the store's sync keeps them: each item's key, revision and bank
    position joined by \\x1f, the items in bank order joined by \\x1e. The store compares it with
    its own rows read in the same form (Store._in_step)."""
    return _deck_view(deck)[0]


def sync_fingerprint(deck: Deck) -> str:
    """What the store's sync depends on: ``sync_rows`` hashed."""
    return _deck_view(deck)[1]


def has_links(deck: Deck) -> bool:
    """Whether a card of ``deck`` names related cards (sibling groups then join cards)."""
    return _deck_view(deck)[2]


def _deck_view(deck: Deck) -> tuple[str, str, bool]:
    # What opening a session needs from every card, in one pass. Decks are immutable: a deck
    # object's view is kept while the deck lives, so that every session on the same loaded decks
    # after the first costs a look-up, not a pass over the cards (a second at a million cards).
    found = _DECK_VIEWS.get(id(deck))
    if found is not None and found[0]() is deck:
        return found[1]
    prefix = f"{deck.id}/"
    if _compiled_rows is not None:
        data, linked = _compiled_rows(deck.cards, prefix, MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)
        text = data.decode()
    else:
        text, linked = _deck_rows_python(deck.cards, prefix)
        data = text.encode()
    view = (text, f"{SYNC_VERSION}:{hashlib.blake2b(data, digest_size=16).hexdigest()}", linked)
    key = id(deck)
    _DECK_VIEWS[key] = (weakref.ref(deck, lambda gone: _forget_view(key, gone)), view)
    return view


def _forget_view(key: int, gone: weakref.ref) -> None:
    # The deck is gone; its id may be another deck's next, whose view is then kept instead.
    found = _DECK_VIEWS.get(key)
    if found is not None and found[0] is gone:
        del _DECK_VIEWS[key]


def _deck_rows_python(cards: tuple[Card, ...], prefix: str) -> tuple[str, bool]:
    """(every item's sync row, "key\x1frevision\x1fposition", joined by \x1e; whether a card has
    links): the reference for the compiled deck_rows (core/_speedups.c)."""
    rows: list[str] = []
    add = rows.append
    position = 0
    linked = False
    for card in cards:
        if card.type in MULTI_VARIANT_TYPES:
            for index, variant in enumerate(card.variants()):
                add(f"{prefix}{card.id}/{variant}\x1f{card.revision}\x1f{position + index}")
        else:
            add(f"{prefix}{card.id}/{MAIN}\x1f{card.revision}\x1f{position}")
        if card.related:
            linked = True
        position += VARIANT_SLOTS
    return "\x1e".join(rows), linked


try:
    from ._speedups import deck_rows as _compiled_rows
except ImportError:  # an install that could not compile it
    _compiled_rows = None

# id(deck) -> (a weak reference to the deck, its view). Held strongly (the last 256 decks, as
# before), replaced deck objects stayed in memory with all their cards after every reload.
_DECK_VIEWS: dict[int, tuple[weakref.ref, tuple[str, str, bool]]] = {}
# Part of every fingerprint the store keeps: a new version makes every deck sync again.
SYNC_VERSION = 2
