"""Per-deck figures for ``studyapp list`` and ``studyapp stats``, read without changing anything."""

from __future__ import annotations

from typing import Sequence

from ..core.clock import Clock, SystemClock
from ..core.models import Deck
from ..core.scheduler import StudyDays, resolve_zone
from ..core.settings import Location
from .repository import open_store


def deck_figures(decks: Sequence[Deck], location: Location, clock: Clock | None = None) -> dict[str, dict]:
    """Per deck id: items, new, learning, review, due (today, no limits), reviews, retention.

    Items the database does not know yet count as new; so does everything when there is
    no database. Cards that left a deck are not counted (their progress stays stored).
    """
    clock = clock or SystemClock()
    figures = {deck.id: {"items": len(deck.items()), "new": len(deck.items()), "learning": 0, "review": 0,
                         "due": 0, "reviews": 0, "retention": None} for deck in decks}
    store = open_store(location, clock=clock, readonly=True)
    if store is None:
        return figures
    with store:
        settings = store.load_settings()
        days = StudyDays(resolve_zone(settings.timezone), settings.rollover_hour)
        today = days.day_of(clock.now_ms())
        counts = store.deck_counts([deck.id for deck in decks], today, days.end_ms(today))
        for deck in decks:
            c = counts[deck.id]
            row = figures[deck.id]
            studied = store.studied_keys(deck.id) & {item.key for item in deck.items()}
            row.update(new=row["items"] - len(studied), learning=c["learning"], review=c["review"], due=c["due"],
                       reviews=c["reviews"], retention=c["retention"])
    return figures


def deck_counts(decks: Sequence[Deck], location: Location) -> dict[str, tuple[int, int, int]]:
    """(new, learning, due) per deck id, for ``studyapp list``."""
    return {deck_id: (row["new"], row["learning"], row["due"]) for deck_id, row in deck_figures(decks, location).items()}


def first_answer_ms(store) -> int | None:
    """When the learner first answered anything (a review or cram), through the log's time index."""
    with store.guarded():
        # ORDER BY ... LIMIT 1 walks the time index and stops at the first answer.
        row = store.conn.execute("SELECT time_ms FROM review_log WHERE kind IN ('review', 'cram') "
                                 "ORDER BY time_ms LIMIT 1").fetchone()
    return row[0] if row else None

