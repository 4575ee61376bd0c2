"""The export's fast paths write exactly what the plain genanki and json code they replace would."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import genanki
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.models import Card, Deck
from studyapp.export.anki import LedgerDeck, LedgerModel, LedgerNote, _Rows, plan_export
from studyapp.export.fields import DeckTags, fields_for, note_tags, plain
from studyapp.export.ledger import Entry, Ledger, Stamper
from studyapp.export.notetypes import NOTE_TYPES

NOW = 1_800_000_000
# Text that exercises escaping, cloze syntax, wide characters and JSON's escapes.
PIECES = [*"ab :{}[]<>&\"'\\\n\t\x00\x1f12", "c1", "{{c", "{{c1::", "{{c3::", "{{c0::", "}}", "::",
          "语", "\u2028", "\U0001f600"]
DELETION = st.builds("{{{{c{}::{}}}}}".format, st.integers(0, 12), st.sampled_from(["", "x", "a::hint", "}", "语"]))
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), DELETION), max_size=12).map("".join)


def tricky_deck(folder: Path) -> Deck:
    cards = [
        Card(id="b", type="basic", source=("q <1>", "q & 2"), front="<b>x</b> [sound:a.mp3]", back="\\(x\\)",
             explanation="{{c1::no}}", tags=("Alpha", "alpha", "beta")),
        Card(id="r", type="reverse", source=("q",), front="front", back="back", tags=("beta",)),
        Card(id="c", type="cloze", source=("q",), text="{{c2::a::hint}} and {{c1::b}} and {{c10::c}} {{c2::d}}"),
        Card(id="ch", type="choice", source=("q",), front="Pick", choices=("a", "<b>", "c"), answer="<b>",
             feedback={"a": "no & never"}),
        Card(id="tf", type="truefalse", source=("q",), statement="1 < 2", answer=True),
    ]
    return Deck("tricky", "Tricky :: deck", folder / "tricky.yaml", folder / "none.md", tuple(cards), "<desc>",
                ("deck-tag",))


def collection_rows(path: Path) -> dict[str, list]:
    connection = sqlite3.connect(path)
    try:
        return {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                for table in ("col", "notes", "cards")}
    finally:
        connection.close()


def write_with(deck_class, note_class, plan, path: Path) -> None:
    """The plan's notes written through ``deck_class``/``note_class``, every time ``NOW``."""
    models = {card_type: LedgerModel(note_type, NOW) for card_type, note_type in NOTE_TYPES.items()}
    decks = {deck.id: deck_class(1000 + i, plan.deck_names[deck.id]) for i, deck in enumerate(plan.decks)}
    for position, note in enumerate(plan.notes):
        extra = {"mtime": NOW} if note_class is LedgerNote else {}
        decks[note.deck.id].add_note(note_class(model=models[note.card.type], fields=note.fields, tags=note.tags,
                                                guid=note.guid, due=position, **extra))
    connection = sqlite3.connect(path)
    try:
        genanki.Package(list(decks.values())).write_to_db(connection.cursor(), NOW, itertools.count(NOW * 1000))
        connection.commit()
    finally:
        connection.close()


def test_batched_notes_write_the_rows_stock_genanki_writes(tmp_path):
    decks = [*load_paths([bundled_decks_dir()]).decks, tricky_deck(tmp_path)]
    plan = plan_export(decks, Stamper([], Ledger(), NOW))
    write_with(genanki.Deck, genanki.Note, plan, tmp_path / "stock.anki2")
    write_with(LedgerDeck, LedgerNote, plan, tmp_path / "ours.anki2")
    stock, ours = collection_rows(tmp_path / "stock.anki2"), collection_rows(tmp_path / "ours.anki2")
    assert len(ours["notes"]) == len(plan.notes) and len(ours["cards"]) == plan.card_count
    assert ours == stock


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=7, max_size=7), st.sampled_from(sorted(NOTE_TYPES)))
def test_cards_per_note_are_genankis(fields, card_type):
    model = LedgerModel(NOTE_TYPES[card_type], NOW)
    expected = [card.ord for card in genanki.Note(model=model, fields=fields).cards]
    assert model.card_ords(fields) == expected
    assert [card.ord for card in LedgerNote(model=model, fields=fields, mtime=NOW).cards] == expected


def test_a_write_failure_in_a_note_reaches_the_caller_and_rows_flush_in_order():
    rows = _Rows()
    rows.execute("INSERT INTO t VALUES(?)", (1,))
    rows.execute("INSERT INTO u VALUES(?)", (2,))
    rows.execute("INSERT INTO t VALUES(?)", (3,))
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (x)")
    connection.execute("CREATE TABLE u (x)")
    rows.flush(connection.cursor())
    assert connection.execute("SELECT x FROM t").fetchall() == [(1,), (3,)]
    assert connection.execute("SELECT x FROM u").fetchall() == [(2,)]
    assert rows.batches == {}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20), st.integers(min_value=0, max_value=2**40), st.text(max_size=20), st.text(max_size=10))
def test_ledger_lines_are_json_dumps(text_hash, mtime, label, kind):
    entry = Entry(text_hash, mtime, label, kind)
    assert entry.to_line() == json.dumps(entry.to_json(), ensure_ascii=False)
    assert json.loads(entry.to_line()) == entry.to_json()


def test_a_ledger_with_odd_keys_and_labels_reads_back_the_same(tmp_path):
    ledger = Ledger(notes={'k"\\é\u2028': Entry("h", 5, 'd/"c"\n', "basic"), "plain": Entry("h2", 6)},
                    notetypes={"1": Entry("h3", 7, "studyapp basic v1")})
    ledger.save(tmp_path / "ledger.json")
    assert Ledger.load(tmp_path / "ledger.json") == ledger


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "A", "b", "studyapp::type::basic", "x-y"]), max_size=4),
       st.sampled_from(["basic", "cloze"]))
def test_deck_tags_are_note_tags_and_a_fresh_list_each_time(card_tags, card_type):
    deck = Deck("d", "D", Path("d.yaml"), Path("s.md"), (), "", ("B", "a"))
    card = Card(id="c", type=card_type, source=("s",), front="f", back="b", text="{{c1::x}}", tags=tuple(card_tags))
    tags_for = DeckTags(deck)
    first = tags_for(card)
    assert first == note_tags(card, deck)
    first.append("mutated")
    assert tags_for(card) == note_tags(card, deck)


def test_a_tag_with_a_space_is_refused_naming_the_card(tmp_path):
    from studyapp.core.models import Position
    from studyapp.core.problems import StudyappError

    card = Card(id="spaced", type="basic", source=("s",), front="f", back="b", tags=("two words",),
                position=Position(7, 5))
    deck = Deck("d", "D", tmp_path / "d.yaml", tmp_path / "s.md", (card,))
    with pytest.raises(StudyappError) as raised:
        plan_export([deck], Stamper([], Ledger(), NOW))
    message = raised.value.format()
    assert message.startswith(f"{tmp_path / 'd.yaml'}:7:5: error:") and "'two words'" in message and "spaced" in message
