"""Per-deck counts for `studyapp list`: cards, items, and what is new or due."""

from __future__ import annotations

from .models import Deck
from .settings import Location


def deck_summaries(decks: list[Deck], location: Location) -> list[dict]:
    counts = _progress_counts(decks, location)
    rows = []
    for deck in decks:
        items = deck.items()
        new, due = counts.get(deck.id, (len(items), 0))
        rows.append({"id": deck.id, "title": deck.title, "path": str(deck.path), "cards": len(deck.cards),
                     "items": len(items), "new": new, "due": due})
    return rows


def _progress_counts(decks: list[Deck], location: Location) -> dict[str, tuple[int, int]]:
    """(new, due) per deck from the learner's database; empty until progress exists."""
    if not location.database.exists():
        return {}
    try:
        from ..store.summary import new_and_due
    except ImportError:
        return {}
    return new_and_due(decks, location)
