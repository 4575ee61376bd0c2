"""One card id for an item: the Anki export writes it, studyapp's scheduler seeds its fuzz with it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from anki_helpers import fresh_collection, import_package, notes_by_id_field

from studyapp.core.anki_ids import anki_card_id
from studyapp.core.anki_random import fuzz_factor
from studyapp.core.fuzz import with_review_fuzz
from studyapp.core.models import Card, Deck, item_key
from studyapp.core.scheduler import ReviewScheduler, Settings
from studyapp.export.anki import export_anki


def test_card_ids_are_stable_distinct_and_in_ankis_range():
    keys = [f"deck/c{n}/main" for n in range(5000)]
    ids = [anki_card_id(k) for k in keys]
    assert len(set(ids)) == len(ids)
    assert all(1_000_000_000 <= i < 1_500_000_000_000 for i in ids)  # past times: Anki keeps them
    assert anki_card_id("deck/c1/main") == anki_card_id("deck/c1/main")
    assert anki_card_id("deck/c1/forward") != anki_card_id("deck/c1/backward")


def test_the_scheduler_seeds_its_fuzz_with_the_card_id():
    s = ReviewScheduler(Settings(timezone="UTC"))
    assert s.fuzz_factor("deck/c1/main", 3) == fuzz_factor(anki_card_id("deck/c1/main") + 3)


def test_exported_cards_carry_the_items_ids_and_draw_the_same_fuzz_in_anki(tmp_path: Path):
    folder = tmp_path / "decks"
    folder.mkdir()
    cards = (Card(id="b1", type="basic", source=("s",), front="Q", back="A"),
             Card(id="r1", type="reverse", source=("s",), front="F", back="B"),
             Card(id="z1", type="cloze", source=("s",), text="{{c1::one}} and {{c3::three}}"))
    deck = Deck("ids", "Ids", folder / "ids.yaml", folder / "seed.md", cards, "", ("t",))
    now = int(time.time()) - 3600
    result = export_anki([deck], tmp_path / "ids.apkg", home=None, clock=lambda: float(now))
    col = fresh_collection(tmp_path / "anki")
    try:
        import_package(col, result.path)
        notes = notes_by_id_field(col)
        found = {}
        for card in cards:
            for card_id in notes[f"ids/{card.id}"].card_ids():
                anki_card = col.get_card(card_id)
                found[(card.id, anki_card.ord)] = card_id
        expected = {("b1", 0): item_key("ids", "b1", "main"), ("r1", 0): item_key("ids", "r1", "forward"),
                    ("r1", 1): item_key("ids", "r1", "backward"), ("z1", 0): item_key("ids", "z1", "c1"),
                    ("z1", 2): item_key("ids", "z1", "c3")}
        assert found == {place: anki_card_id(key) for place, key in expected.items()}
        # Anki's own fuzz for the imported card is the one studyapp computes for the item.
        for place, key in expected.items():
            for interval in (5, 40, 300):
                ours = with_review_fuzz(fuzz_factor(anki_card_id(key)), float(interval), 1, 36500) - interval
                assert col.fuzz_delta(found[place], interval) == ours, (key, interval)
    finally:
        col.close()


@pytest.mark.parametrize("key", ["a/b/main", "ä/ü/c12", ""])
def test_any_key_has_an_id(key):
    assert isinstance(anki_card_id(key), int)
