"""Upgrading from the schema-1 banks (217 cards, 269 items) to the rewritten ones keeps every learner's progress:
kept cards keep their ids and schedules, dropped cards keep their rows and review log (present = 0), never deleted."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.models import Card, Deck
from studyapp.core.scheduler import GOOD
from studyapp.core.session import ReviewSession

from engine_support import SETTINGS, store_at

V1_ITEMS = Path(__file__).parent / "fixtures" / "v1-bank-items.json"


def v1_decks() -> list[Deck]:
    """The schema-1 banks as the store saw them: deck ids, card ids, types and variants (texts do not matter)."""
    decks = []
    for deck_id, cards in json.loads(V1_ITEMS.read_text(encoding="utf-8")).items():
        built = []
        for card_id, card_type, variants, revision in cards:
            if card_type == "cloze":
                text = " ".join(f"{{{{{variant}::x}}}}" for variant in variants)
                built.append(Card(id=card_id, type="cloze", source=("s",), text=text, revision=revision))
            else:
                built.append(Card(id=card_id, type=card_type, source=("s",), front=f"Q {card_id}", back="A",
                                  choices=("A", "B") if card_type == "choice" else (), revision=revision,
                                  answer="A" if card_type == "choice" else (True if card_type == "truefalse" else None)))
            assert built[-1].variants() == variants
        decks.append(Deck(deck_id, deck_id, Path(f"/v1/{deck_id}.yaml"), Path("/v1/seed.md"), tuple(built)))
    return decks


def test_every_v1_item_keeps_its_progress_after_the_rewrite(tmp_path):
    old = v1_decks()
    old_keys = {item.key for deck in old for item in deck.items()}
    assert len(old_keys) == 269
    store, clock = store_at(tmp_path)
    session = ReviewSession(store, old, clock=clock, settings=replace(SETTINGS, new_per_day=1000))
    answered = 0
    while (shown := session.next()) is not None and answered < 400:
        session.answer(GOOD, duration_ms=3000)
        answered += 1
    before = {key: store.item(key) for key in old_keys}
    reviewed = {key for key, row in before.items() if row.state.state != "new"}
    assert len(reviewed) > 200
    log_before = store.conn.execute("SELECT COUNT(*) FROM review_log").fetchone()[0]
    history_before = {key: [entry.kind for entry in store.history(before[key].id)] for key in old_keys}

    new = load_paths([bundled_decks_dir()]).decks
    new_keys = {item.key for deck in new for item in deck.items()}
    ReviewSession(store, new, clock=clock, settings=SETTINGS)
    after = {key: store.item(key) for key in old_keys}

    kept, dropped = old_keys & new_keys, old_keys - new_keys
    assert kept and dropped
    assert all(after[key] is not None for key in old_keys)  # no row deleted
    assert {key for key in dropped if after[key].present} == set()
    assert {key for key in kept if not after[key].present} == set()
    # A card whose meaning changed has a new revision, which restarts its schedule (the log keeps its past).
    revised = {key for key in kept if after[key].revision != before[key].revision}
    unchanged = old_keys - revised
    assert {key: after[key].state for key in unchanged} == {key: before[key].state for key in unchanged}
    for key in revised:
        assert after[key].state.state == "new", key
        expected = history_before[key] + (["reset"] if before[key].state.state != "new" else [])
        assert [entry.kind for entry in store.history(after[key].id)] == expected, key
    for key in unchanged:
        assert [entry.kind for entry in store.history(after[key].id)] == history_before[key], key
    resets = sum(1 for key in revised if before[key].state.state != "new")
    assert store.conn.execute("SELECT COUNT(*) FROM review_log").fetchone()[0] == log_before + resets

    # Bringing a dropped card back (same id and revision) finds its schedule where it was.
    ReviewSession(store, old, clock=clock, settings=SETTINGS)
    assert all(store.item(key).present and store.item(key).state == before[key].state for key in dropped - revised)
