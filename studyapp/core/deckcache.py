"""A cache of loaded decks, so that start-up does not parse YAML that has not changed.

Each entry is keyed by the deck file's path and remembers the size, modification time and
inode of the deck file and of its seed (the quote checks depend on the seed). Any
difference and the file is loaded again. The cache lives in the learner's home folder and
is only ever a copy: a missing, stale, unreadable or unwritable cache changes nothing but
speed.
"""

from __future__ import annotations

import copyreg
import dataclasses
import os
import pickle
import sys
from pathlib import Path

from .. import __version__
from .cachefile import write_cache
from .gcpause import collector_paused
from .models import Card, CardText, Deck, LoadResult, Position
from .problems import Problem

# 3: schema 2 decks (Card.texts, Card.related, Deck.languages) and LoadResult.card_entries.
# 4: Deck.seed_hash, Deck.min_coverage, Deck.key_positions, and decks without a seed.
CACHE_FORMAT = 4


def file_stamp(path: str | Path) -> tuple[int, int, int] | None:
    """What says a file changed (size, mtime, inode); the deck summary compares the same stamps."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _by_constructor(cls: type) -> dict:
    """Pickle ``cls`` as a call of its constructor with its fields, when they all fit one.

    Slots dataclasses otherwise pickle as a state that a Python ``__setstate__`` restores
    field by field: for 10,000 cards (70,000 positions) that made the cache take seconds
    to write and most of a second to read. A class whose fields do not all go, in
    order, to its constructor keeps the default.
    """
    names = tuple(f.name for f in dataclasses.fields(cls))
    if not all(f.init and not f.kw_only for f in dataclasses.fields(cls)):
        return {}
    if cls is Card:
        last = names.index("field_positions")

        def reduce(card: Card) -> tuple:
            values = [getattr(card, name) for name in names]
            # Interned, the field names and card types are written once each rather than
            # once per card: a smaller file that reads faster and shares the strings.
            values[1] = sys.intern(card.type)
            values[last] = {sys.intern(key): value for key, value in card.field_positions.items()}
            return (Card, tuple(values))
    else:
        def reduce(obj) -> tuple:
            return (cls, tuple([getattr(obj, name) for name in names]))
    return {cls: reduce}


_DISPATCH = {**copyreg.dispatch_table, **_by_constructor(Position), **_by_constructor(Card), **_by_constructor(CardText),
             **_by_constructor(Deck), **_by_constructor(Problem)}


class DeckCache:
    def __init__(self, file: Path):
        self.file = file
        self.entries: dict[str, tuple] = {}
        self.changed = False
        self.saved = False  # written by this process (core.decksummary then writes its summary again)
        # The cache is a few hundred thousand small objects and no cycles: without the cycle
        # collector running again and again as they appear, it reads three times faster.
        try:
            with collector_paused(), open(file, "rb") as f:
                data = pickle.load(f)
            if data.get("format") == CACHE_FORMAT and data.get("version") == __version__:
                self.entries = data["entries"]
        except Exception:  # a cache that cannot be read is simply rebuilt
            self.entries = {}

    def get(self, path: Path) -> LoadResult | None:
        entry = self.entries.get(str(path))
        if entry is None:
            return None
        deck_stamp, seed_path, seed_stamp, result = entry
        if deck_stamp != file_stamp(path):
            return None
        if seed_path is not None and seed_stamp != file_stamp(seed_path):
            return None
        return result

    def put(self, path: Path, result: LoadResult) -> None:
        seed_path = result.deck.seed_path if result.deck else None
        self.entries[str(path)] = (file_stamp(path), seed_path, file_stamp(seed_path) if seed_path else None, result)
        self.changed = True

    def save(self) -> None:
        if not self.changed:
            return

        def write(f) -> None:
            pickler = pickle.Pickler(f, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dispatch_table = _DISPATCH
            pickler.dump({"format": CACHE_FORMAT, "version": __version__, "entries": self.entries})

        if write_cache(self.file, write):
            self.changed = False
            self.saved = True
