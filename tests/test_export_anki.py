"""Exports imported into a real Anki collection (the ``anki`` package), never a mock."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from anki_helpers import fresh_collection, import_package, notes_by_id_field, template_error, visible

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.models import CLOZE_RE, Card, Deck
from studyapp.export import notetypes
from studyapp.export.anki import anki_deck_names, export_anki
from studyapp.export.fields import document_title, note_tags
from studyapp.export.notetypes import FIELDS, NOTE_TYPES, PARENT_DECK_NAME

# Times the tests hand the exporter. Anki stamps a learner's own edits with the real
# clock, so export times sit an hour in the past: a learner's edit is then newer than
# any export, as it is in life.
T0 = int(time.time()) - 3600


@pytest.fixture
def collection(tmp_path):
    col = fresh_collection(tmp_path / "anki")
    yield col
    col.close()


@pytest.fixture(scope="module")
def bundled():
    catalog = load_paths([bundled_decks_dir()])
    assert catalog.decks and not catalog.errors, [p.format() for p in catalog.errors]
    return catalog.decks


def clock(at: int):
    return lambda: float(at)


def make_deck(folder: Path, cards: list[Card], deck_id: str = "test-deck", title: str = "Test deck",
              tags: tuple[str, ...] = ("testing",)) -> Deck:
    folder.mkdir(parents=True, exist_ok=True)
    return Deck(deck_id, title, folder / f"{deck_id}.yaml", folder / "missing-seed.md", tuple(cards), "", tags)


def basic(card_id: str, front: str, back: str = "the answer", **extra) -> Card:
    return Card(id=card_id, type="basic", source=("a quote",), front=front, back=back, **extra)


def cloze(card_id: str, text: str, **extra) -> Card:
    return Card(id=card_id, type="cloze", source=("a quote",), text=text, **extra)


def cards_of(col, note) -> list:
    return sorted((col.get_card(card_id) for card_id in note.card_ids()), key=lambda card: card.ord)


# -- the bundled decks ----------------------------------------------------------


def test_bundled_decks_import_as_notes_cards_decks_and_note_types(bundled, collection, tmp_path):
    result = export_anki(bundled, tmp_path / "all.apkg", home=None, clock=clock(T0))
    counts = import_package(collection, result.path)

    cards = [card for deck in bundled for card in deck.cards]
    items = [item for deck in bundled for item in deck.items()]
    assert counts.new == len(cards) and counts.updated == counts.duplicate == counts.conflicting == 0
    assert collection.note_count() == len(cards) == result.notes
    assert collection.card_count() == len(items) == result.cards

    names = {d.name for d in collection.decks.all_names_and_ids()}
    expected = set(anki_deck_names(bundled).values())
    assert expected == {f"{PARENT_DECK_NAME}::{deck.title}" for deck in bundled}
    assert expected | {PARENT_DECK_NAME} <= names

    for note_type in NOTE_TYPES.values():
        model = collection.models.get(note_type.model_id)
        assert model is not None and model["name"] == note_type.name
        assert [f["name"] for f in model["flds"]] == list(FIELDS)
        assert len(model["tmpls"]) == len(note_type.templates)

    notes = notes_by_id_field(collection)
    for deck in bundled:
        deck_cids = set(collection.decks.cids(collection.decks.id_for_name(anki_deck_names([deck])[deck.id])))
        for card in deck.cards:
            note = notes[f"{deck.id}/{card.id}"]
            assert note.note_type()["id"] == NOTE_TYPES[card.type].model_id
            assert {t.casefold() for t in note.tags} == {t.casefold() for t in note_tags(card, deck)}
            assert set(deck.tags) | set(card.tags) <= set(note.tags)
            assert len(note.card_ids()) == len(card.variants())
            assert set(note.card_ids()) <= deck_cids


def test_bundled_cards_render_their_text_without_template_errors(bundled, collection, tmp_path):
    import_package(collection, export_anki(bundled, tmp_path / "all.apkg", home=None, clock=clock(T0)).path)
    notes = notes_by_id_field(collection)
    for deck in bundled:
        document = document_title(deck)
        for card in deck.cards:
            for anki_card in cards_of(collection, notes[f"{deck.id}/{card.id}"]):
                question, answer = anki_card.question(), anki_card.answer()
                where = f"{deck.id}/{card.id} card {anki_card.ord}"
                assert template_error(question) is None and template_error(answer) is None, where
                assert "<script" not in question + answer, where
                shown_q, shown_a = visible(question), visible(answer)
                front, back = _sides(card, anki_card.ord)
                assert front in shown_q, where
                assert back in shown_a, where
                for quote in card.source:
                    assert quote in shown_a, where
                assert document in shown_a and f"{deck.id}/{card.id}" in shown_a, where
                assert card.explanation in shown_a, where
                if card.type == "choice":
                    assert all(choice in shown_q for choice in card.choices), where
                    assert all(why in shown_a for why in card.feedback.values() if why), where


def _sides(card: Card, ordinal: int) -> tuple[str, str]:
    """What Anki's card ``ordinal`` must show on its question and answer sides, as plain text."""
    if card.type == "cloze":
        number = ordinal + 1  # Anki's card cN has ordinal N - 1

        def hidden(match):
            if int(match.group(1)) != number:
                return match.group(2)
            return f"[{match.group(3)}]" if match.group(3) else "[...]"

        return CLOZE_RE.sub(hidden, card.text), CLOZE_RE.sub(lambda m: m.group(2), card.text)
    if card.type == "reverse" and ordinal == 1:
        return card.back, card.front
    return card.question, card.answer_text


def test_new_cards_come_up_in_bank_order(bundled, collection, tmp_path):
    deck = bundled[0]
    import_package(collection, export_anki([deck], tmp_path / "one.apkg", home=None, clock=clock(T0)).path)
    notes = notes_by_id_field(collection)
    dues = [min(collection.get_card(cid).due for cid in notes[f"{deck.id}/{card.id}"].card_ids()) for card in deck.cards]
    assert dues == sorted(dues) and len(set(dues)) == len(dues)


# -- plain text ---------------------------------------------------------------

HOSTILE = [
    "<script>alert('x')</script>",
    "<b>bold</b> & <i>italic</i> <img src=x onerror=alert(1)>",
    "[sound:evil.mp3] and [anki:tts lang=en_US]hi[/anki:tts]",
    "[latex]x^2[/latex] and [$]y[/$]",
    "\\(x^2\\) and \\[y\\]",
    "a {{c1::fake}} cloze and {{Question}} field",
    "line one\nline two",
    "&amp; &lt;already&gt; escaped",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_deck_text_reaches_anki_as_plain_text(text, collection, tmp_path):
    deck = make_deck(tmp_path / "decks", [
        basic("hostile", front=text, back=text, explanation=text),
        Card(id="choice", type="choice", source=(text,), front=text, choices=(text, "other"), answer=text,
             feedback={"other": text}),
    ])
    import_package(collection, export_anki([deck], tmp_path / "x.apkg", home=None, clock=clock(T0)).path)
    assert collection.card_count() == 2
    for note in notes_by_id_field(collection).values():
        for card in cards_of(collection, note):
            question, answer = card.question(), card.answer()
            assert template_error(question) is None and template_error(answer) is None
            for side in (question, answer):
                assert "<script" not in side and "<b>" not in side and "<img" not in side and "<i>" not in side
            assert text in visible(question)
            assert visible(answer).count(text) >= 2
            assert card.question_av_tags() == [] and card.answer_av_tags() == []


# -- cloze --------------------------------------------------------------------

CLOZE_CASES = [
    ("{{c1::alpha}} and {{c2::beta}}", 2),
    ("{{c1::alpha}} and {{c3::gamma}}", 2),  # numbers need not be consecutive
    ("{{c1::alpha}} and {{c1::again}}", 1),  # one number, one card
    ("{{c12::twelve}}", 1),
    ("{{c1::std::vector}} hint after the first ::", 1),
    ("{{c1::answer::a hint:: with colons}}", 1),
    ("{{c1::ratio 3:4}} and {{c2::a:}}", 2),
    ("{{c1::f(x) = {y}}} trailing brace", 1),
    ("{{c1::<b>tag</b>}} and {{c2::[sound:x.mp3]}}", 2),
    ("{{c1::a & b}} {{c2::x < y}}", 2),
    ("multi\nline {{c1::text}}", 1),
]


@pytest.mark.parametrize("text, expected", CLOZE_CASES)
def test_cloze_edge_cases_make_one_card_per_number(text, expected, collection, tmp_path):
    card = cloze("edge", text, explanation="not a deletion: {{c9::nine}}")
    assert len(card.variants()) == expected
    deck = make_deck(tmp_path / "decks", [card])
    import_package(collection, export_anki([deck], tmp_path / "c.apkg", home=None, clock=clock(T0)).path)
    note = next(iter(notes_by_id_field(collection).values()))
    anki_cards = cards_of(collection, note)
    assert [c.ord + 1 for c in anki_cards] == card.cloze_numbers()
    for anki_card in anki_cards:
        front, back = _sides(card, anki_card.ord)
        assert template_error(anki_card.question()) is None and template_error(anki_card.answer()) is None
        assert front in visible(anki_card.question())
        assert back in visible(anki_card.answer())
        assert anki_card.question_av_tags() == [] and anki_card.answer_av_tags() == []


# -- re-import ----------------------------------------------------------------


def _answer_next(col, ease: int = 3):
    col.decks.select(col.decks.id_for_name(PARENT_DECK_NAME))  # the parent shows its children's cards
    card = col.sched.getCard()
    assert card is not None
    col.sched.answerCard(card, ease)
    return col.get_card(card.id)


def _schedule(col) -> dict[int, tuple]:
    return {cid: (c.type, c.queue, c.due, c.ivl, c.reps, c.lapses, c.did)
            for cid in col.find_cards("") for c in [col.get_card(cid)]}


def test_reimport_updates_changed_notes_in_place_and_keeps_reviews_and_edits(collection, tmp_path):
    home = tmp_path / "home"
    folder = tmp_path / "decks"
    first = [basic("one", "First question?"), basic("two", "Second question?"),
             Card(id="three", type="reverse", source=("q",), front="Left", back="Right"),
             cloze("four", "A {{c1::cloze}} with {{c2::two}}")]
    deck = make_deck(folder, first)
    import_package(collection, export_anki([deck], tmp_path / "v1.apkg", home=home, clock=clock(T0)).path)
    note_ids = {label: note.id for label, note in notes_by_id_field(collection).items()}

    # The learner studies a while, then edits a note of their own.
    for _ in range(3):
        _answer_next(collection, ease=3)
    reviewed = _schedule(collection)
    assert sum(1 for state in reviewed.values() if state[4] > 0) == 3
    edited = collection.get_note(note_ids["test-deck/two"])
    edited["Spare"] = "my own mnemonic"
    collection.update_note(edited)

    # The deck changes one card; the next release is exported ten seconds later.
    second = [basic("one", "First question, reworded?"), *first[1:]]
    result = export_anki([make_deck(folder, second)], tmp_path / "v2.apkg", home=home, clock=clock(T0 + 10))
    assert result.changed_notes == 1
    counts = import_package(collection, result.path)

    assert (counts.new, counts.updated, counts.conflicting) == (0, 1, 0)
    assert counts.duplicate == len(first) - 1
    notes = notes_by_id_field(collection)
    assert {label: note.id for label, note in notes.items()} == note_ids
    assert "First question, reworded?" in visible(notes["test-deck/one"]["Question"])
    assert notes["test-deck/two"]["Spare"] == "my own mnemonic"
    assert collection.note_count() == len(first)
    assert _schedule(collection) == reviewed

    # Exporting again with nothing changed updates nothing, even later.
    result = export_anki([make_deck(folder, second)], tmp_path / "v3.apkg", home=home, clock=clock(T0 + 20))
    assert result.changed_notes == 0
    counts = import_package(collection, result.path)
    assert (counts.new, counts.updated, counts.duplicate) == (0, 0, len(first))
    assert _schedule(collection) == reviewed


def test_two_changes_within_one_second_both_reach_anki(collection, tmp_path):
    home, folder = tmp_path / "home", tmp_path / "decks"
    versions = ["Version one?", "Version two?", "Version three?"]
    for number, front in enumerate(versions):
        deck = make_deck(folder, [basic("card", front)])
        # Same second for every export: only the ledger's previous + 1 makes each newer.
        result = export_anki([deck], tmp_path / f"v{number}.apkg", home=home, clock=clock(T0))
        counts = import_package(collection, result.path)
        assert (counts.new, counts.updated) == ((1, 0) if number == 0 else (0, 1))
        note = next(iter(notes_by_id_field(collection).values()))
        assert front in visible(note["Question"])
        assert note.mod == T0 + number


def test_new_cards_are_added_beside_existing_ones(collection, tmp_path):
    home, folder = tmp_path / "home", tmp_path / "decks"
    export = export_anki([make_deck(folder, [basic("one", "One?")])], tmp_path / "a.apkg", home=home, clock=clock(T0))
    import_package(collection, export.path)
    _answer_next(collection)
    reviewed = _schedule(collection)
    deck = make_deck(folder, [basic("one", "One?"), basic("two", "Two?")])
    counts = import_package(collection, export_anki([deck], tmp_path / "b.apkg", home=home, clock=clock(T0 + 5)).path)
    assert (counts.new, counts.updated, counts.duplicate) == (1, 0, 1)
    after = _schedule(collection)
    assert {cid: after[cid] for cid in reviewed} == reviewed and len(after) == 2


def test_changed_templates_update_the_note_type_but_not_the_notes(collection, tmp_path, monkeypatch):
    home, folder = tmp_path / "home", tmp_path / "decks"
    deck = make_deck(folder, [basic("one", "One?")])
    import_package(collection, export_anki([deck], tmp_path / "a.apkg", home=home, clock=clock(T0)).path)
    restyled = dataclasses.replace(NOTE_TYPES["basic"], css=NOTE_TYPES["basic"].css + "\n.question { color: teal; }")
    monkeypatch.setitem(notetypes.NOTE_TYPES, "basic", restyled)
    result = export_anki([deck], tmp_path / "b.apkg", home=home, clock=clock(T0 + 5))
    assert result.changed_notetypes == 1 and result.changed_notes == 0
    counts = import_package(collection, result.path)
    assert counts.updated == 0
    assert "color: teal" in collection.models.get(restyled.model_id)["css"]
    assert len(collection.models.all_names_and_ids()) == len({m.name for m in collection.models.all_names_and_ids()})


def test_a_card_that_changes_type_is_reported_because_anki_keeps_the_old_note(collection, tmp_path):
    home, folder = tmp_path / "home", tmp_path / "decks"
    deck = make_deck(folder, [basic("one", "One?")])
    import_package(collection, export_anki([deck], tmp_path / "a.apkg", home=home, clock=clock(T0)).path)
    changed = make_deck(folder, [Card(id="one", type="reverse", source=("q",), front="One?", back="Yes")])
    result = export_anki([changed], tmp_path / "b.apkg", home=home, clock=clock(T0 + 5))
    assert result.kind_changes == (("test-deck/one", "basic", "reverse"),)
    counts = import_package(collection, result.path)
    assert counts.conflicting == 1 and collection.card_count() == 1
