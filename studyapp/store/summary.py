"""Per-deck figures for ``studyapp list`` and ``studyapp stats``, read without changing anything."""

from __future__ import annotations

from typing import Sequence

from ..core.clock import Clock, SystemClock
from ..core.models import Deck
from ..core.settings import Location
from .repository import open_store


def deck_figures(decks: Sequence[Deck], location: Location, clock: Clock | None = None) -> dict[str, dict]:
    """Per deck id: items; new, learning and due as Anki counts them (new within today's limits,
    due = reviews due today within the limits); unseen (never studied) and review (items in the
    review state); reviews answered; True Retention over the last 30 study days, young and mature,
    and (``true_retention``) over each span of core.retention.SPANS.

    Read without changing anything. Items the database does not know yet count as unseen
    (and as new, up to today's limit); so does everything when there is no database.
    """
    from ..core.presets import NO_PRESETS
    from ..core.retention import SPANS, TrueRetention
    from ..core.scheduler import Settings
    from ..core.session import ReviewSession

    clock = clock or SystemClock()
    default_new = NO_PRESETS.default.scheduling(Settings()).new_per_day
    from ..core.queue import group_keys

    # One item of each sibling group can come today (the Default preset buries new siblings).
    groups = {deck.id: len({g for (d, _), g in group_keys([deck]).items() if d == deck.id}) for deck in decks}
    figures = {deck.id: {"items": len(deck.items()), "new": min(groups[deck.id], default_new), "learning": 0,
                         "review": 0, "due": 0, "reviews": 0, "retention": None, "unseen": len(deck.items()),
                         "retention_young": None, "retention_mature": None, "retention_passed": 0,
                         "retention_answers": 0, "true_retention": {name: TrueRetention() for name in SPANS}}
               for deck in decks}
    store = open_store(location, clock=clock, readonly=True)
    if store is None:
        return figures
    with store:
        overview = ReviewSession(store, decks, clock=clock)
        for progress, deck in zip(overview.deck_progress(), decks):
            row = figures[deck.id]
            stored = store.stored_keys(deck.id)
            # Items of the bank not stored yet (the deck changed since it was last studied) are new.
            # One a sibling group, as above.
            keys = group_keys([deck])
            missing = len({keys[(deck.id, item.card.id)] for item in deck.items() if item.key not in stored})
            month = progress.true_retention["month"]
            new_limit = overview.new_left_today(deck.id)
            row.update(new=progress.new + min(missing, max(0, new_limit - progress.new)), learning=progress.learning,
                       review=progress.review, due=progress.due, reviews=progress.reviews, retention=month.rate,
                       unseen=progress.unseen, retention_young=month.young, retention_mature=month.mature,
                       retention_passed=month.passed, retention_answers=month.total,
                       true_retention=dict(progress.true_retention))
    return figures


def deck_counts(decks: Sequence[Deck], location: Location) -> dict[str, tuple[int, int, int]]:
    """(new, learning, due) per deck id, for ``studyapp list``: as Anki counts them."""
    return {deck_id: (row["new"], row["learning"], row["due"]) for deck_id, row in deck_figures(decks, location).items()}


def first_answer_ms(store) -> int | None:
    """When the learner first answered anything (a review or cram), through the log's time index."""
    with store.guarded():
        # ORDER BY ... LIMIT 1 walks the time index and stops at the first answer.
        row = store.conn.execute("SELECT time_ms FROM review_log WHERE kind IN ('review', 'cram') "
                                 "ORDER BY time_ms LIMIT 1").fetchone()
    return row[0] if row else None

