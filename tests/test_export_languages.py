"""Anki export in each language, imported into a real Anki collection: every card renders, and a
re-export in another language updates the same notes (GUIDs never depend on the language)."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from anki_helpers import fresh_collection, import_package, notes_by_id_field, template_error, visible
from test_export_anki import _sides, cards_of

from studyapp.core.language import localize
from studyapp.core.loader import load_deck
from studyapp.export.anki import export_anki
from studyapp.export.fields import note_guid

ROOT = Path(__file__).resolve().parent.parent
T0 = int(time.time()) - 3600


@pytest.fixture
def deck(tmp_path):
    """The complete schema 2 example of docs/deck-format.md: every card type, in zh and en."""
    doc = (ROOT / "docs" / "deck-format.md").read_text(encoding="utf-8")
    (tmp_path / "seeds").mkdir()
    shutil.copy(ROOT / "seeds" / "08-3fs-file-system.md", tmp_path / "seeds")
    (tmp_path / "decks").mkdir()
    path = tmp_path / "decks" / "example.yaml"
    path.write_text(re.search(r"```yaml\n(.*?)```", doc, re.DOTALL).group(1), encoding="utf-8")
    result = load_deck(path)
    assert result.problems == []
    return result.deck


@pytest.fixture
def collection(tmp_path):
    col = fresh_collection(tmp_path / "anki")
    yield col
    col.close()


def clock(at):
    return lambda: float(at)


def assert_every_card_renders(collection, deck):
    notes = notes_by_id_field(collection)
    assert len(notes) == len(deck.cards)
    for card in deck.cards:
        anki_cards = cards_of(collection, notes[f"{deck.id}/{card.id}"])
        assert len(anki_cards) == len(card.variants())
        for anki_card in anki_cards:
            question, answer = anki_card.question(), anki_card.answer()
            where = f"{card.id} card {anki_card.ord}"
            assert template_error(question) is None and template_error(answer) is None, where
            front, back = _sides(card, anki_card.ord)
            assert front in visible(question), where
            assert back in visible(answer), where
            assert card.explanation in visible(answer), where
            if card.type == "choice":
                assert all(choice in visible(question) for choice in card.choices), where
                assert all(why in visible(answer) for why in card.feedback.values()), where


@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_language_exports_and_every_card_renders_in_it(deck, collection, tmp_path, language):
    shown = localize(deck, language)
    import_package(collection, export_anki([shown], tmp_path / f"{language}.apkg", home=None, clock=clock(T0)).path)
    assert_every_card_renders(collection, shown)
    question = visible(cards_of(collection, notes_by_id_field(collection)[f"{deck.id}/consistency-level"])[0].question())
    assert ("3FS 提供哪种一致性？" in question) == (language == "zh")
    assert ("Which consistency does 3FS provide?" in question) == (language == "en")


def test_a_re_export_in_another_language_updates_the_same_notes(deck, collection, tmp_path):
    home = tmp_path / "home"
    zh = export_anki([localize(deck, "zh")], tmp_path / "zh.apkg", home=home, clock=clock(T0))
    counts = import_package(collection, zh.path)
    assert counts.new == len(deck.cards)
    ids = {label: note.id for label, note in notes_by_id_field(collection).items()}
    guids = {label: note.guid for label, note in notes_by_id_field(collection).items()}
    assert guids == {f"{deck.id}/{card.id}": note_guid(deck.id, card.id) for card in deck.cards}

    english = localize(deck, "en")
    en = export_anki([english], tmp_path / "en.apkg", home=home, clock=clock(T0 + 10))
    assert en.changed_notes == len(deck.cards)  # every card has some text that differs in English
    counts = import_package(collection, en.path)
    assert (counts.new, counts.updated, counts.conflicting) == (0, len(deck.cards), 0)
    notes = notes_by_id_field(collection)
    assert {label: note.id for label, note in notes.items()} == ids
    assert {label: note.guid for label, note in notes.items()} == guids
    assert_every_card_renders(collection, english)
    assert collection.card_count() == sum(len(card.variants()) for card in deck.cards)

    both = export_anki([localize(deck, "both")], tmp_path / "both.apkg", home=home, clock=clock(T0 + 20))
    counts = import_package(collection, both.path)
    assert (counts.new, counts.updated) == (0, len(deck.cards))
    assert {label: note.id for label, note in notes_by_id_field(collection).items()} == ids


def test_both_languages_show_the_primary_with_the_second_under_it(deck, collection, tmp_path):
    both = localize(deck, "both")
    import_package(collection, export_anki([both], tmp_path / "both.apkg", home=None, clock=clock(T0)).path)
    assert_every_card_renders(collection, both)  # the primary wording, as for zh alone
    assert_every_card_renders(collection, localize(deck, "en"))  # and the English one on the same cards
    notes = notes_by_id_field(collection)
    choice = cards_of(collection, notes[f"{deck.id}/consistency-level"])[0]
    assert '<div class="second">Which consistency does 3FS provide?</div>' in choice.question()
    assert '<li>强一致 <span class="second">Strong consistency</span></li>' in choice.question()
    assert visible(choice.answer()).count("The text says strong consistency.") == 1
    rdma = cards_of(collection, notes[f"{deck.id}/rdma"])
    # A plain string (the same in both languages) is shown once.
    assert visible(rdma[0].question()).count("RDMA") == 1
    cloze = cards_of(collection, notes[f"{deck.id}/storage-compute"])
    assert len(cloze) == 1  # c1 in both languages: still one card
    assert "存算分离" not in visible(cloze[0].question()) and "storage-compute separation" not in visible(cloze[0].question())
    assert "存算分离" in visible(cloze[0].answer()) and "storage-compute separation" in visible(cloze[0].answer())
