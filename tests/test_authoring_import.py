"""Imports: CSV (Anki's text import and its "Notes in Plain Text" export), hashcards-style Markdown and
Anki packages (round trips through studyapp's export and through the real Anki)."""

import json
import zipfile
from pathlib import Path

import pytest

from authoring_helpers import studyapp, write
from studyapp.authoring.bank import assign_ids, Draft, id_from_text
from studyapp.authoring.html_text import html_to_text
from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.loader import load_deck

ROOT = Path(__file__).resolve().parent.parent


def cards_of(path):
    result = load_deck(path)
    assert not [p for p in result.problems if p.is_error], result.problems
    return result.deck.cards


# -- ids and HTML -------------------------------------------------------------------------------

def test_ids_come_from_the_question_and_repeats_are_numbered():
    assert id_from_text("What is the KV cache, really, in detail here?") == "what-is-the-kv-cache-really"
    assert id_from_text("The {{c1::FX graph}} cache") == "the-fx-graph-cache"
    assert id_from_text("什么是缓存？") == "card-" + __import__("hashlib").sha1("什么是缓存？".encode()).hexdigest()[:8]
    drafts = [Draft("basic", {"front": "Same?"}, 1), Draft("basic", {"front": "Same?"}, 2),
              Draft("basic", {"front": "x"}, 3, id="same"), Draft("basic", {"front": "Same?"}, 4)]
    assert assign_ids(drafts) == ["same-2", "same-3", "same", "same-4"]


def test_anki_html_becomes_plain_text_and_what_cannot_is_kept_and_named():
    assert html_to_text("<b>KV</b> &amp; <i>cache</i><br>line two<div>block</div>") == ("KV & cache\nline two\nblock", [])
    text, kept = html_to_text('See <img src="a.png"> and [sound:b.mp3]')
    assert text == 'See <img src="a.png"> and [sound:b.mp3]' and kept == ['<img src="a.png">', "[sound:b.mp3]"]
    text, kept = html_to_text("x<table><tr><td>1</td></tr></table>y")
    assert text == "x<table><tr><td>1</td></tr></table>y" and kept == ["<table><tr><td>1</td></tr></table>"]


# -- CSV ----------------------------------------------------------------------------------------

ANKI_NOTES_IN_PLAIN_TEXT = (
    "#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#deck column:3\n#tags column:6\n"
    '"LE>+D7@T#="\tBasic\tDefault\tWhat is <b>KV</b> cache?\tKeys &amp; values<br>stored\tinfra llm\n'
    'pkg,<YgMx;\tBasic\tDefault\t"Tab\there; semi"\t"Quote ""x"""\t\n'
    "kDFK<H+:Pi\tCloze\tDefault\tThe {{c1::FX graph}} cache\textra\t\n"
    "II5}dOR`3x\tBasic (and reversed card)\tDefault\tKV\tKey-value\t\n")


def test_csv_as_ankis_own_notes_in_plain_text_export_writes_it(tmp_path, capsys, monkeypatch):
    write(tmp_path / "notes.txt", ANKI_NOTES_IN_PLAIN_TEXT)
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "notes.txt")
    assert code == 0, err
    assert out == "decks/notes.yaml: 4 cards from notes.txt\n"
    cards = cards_of(tmp_path / "decks" / "notes.yaml")
    assert [(c.id, c.type, c.question, c.answer_text, c.explanation, c.tags) for c in cards] == [
        ("what-is-kv-cache", "basic", "What is KV cache?", "Keys & values\nstored", "", ("infra", "llm")),
        ("tab-here-semi", "basic", "Tab\there; semi", 'Quote "x"', "", ()),
        ("the-fx-graph-cache", "cloze", "The {{c1::FX graph}} cache", "FX graph", "extra", ()),
        ("kv", "reverse", "KV", "Key-value", "", ()),
    ]


def test_the_real_ankis_plain_text_export_imports_cleanly(tmp_path, capsys, monkeypatch):
    from anki.collection import DeckIdLimit

    from anki_helpers import fresh_collection

    collection = fresh_collection(tmp_path / "anki")
    basic = collection.models.by_name("Basic")
    for front, back in (("What is <b>FX</b>?", "A graph"), ("Semi; colon, comma", "Yes, all of them")):
        note = collection.new_note(basic)
        note["Front"], note["Back"] = front, back
        note.tags = ["exported"]
        collection.add_note(note, collection.decks.id("Default"))
    collection.export_note_csv(out_path=str(tmp_path / "plain.txt"), limit=DeckIdLimit(collection.decks.id("Default")),
                               with_html=False, with_tags=True, with_deck=False, with_notetype=False, with_guid=False)
    collection.close()
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "plain.txt", "--id", "fx")
    assert code == 0, err
    assert [(c.front, c.back, c.tags) for c in cards_of(tmp_path / "decks" / "fx.yaml")] == [
        ("What is FX?", "A graph", ("exported",)), ("Semi; colon, comma", "Yes, all of them", ("exported",))]


@pytest.mark.parametrize("separator", [",", ";", "\t"])
def test_csv_separator_is_found_and_a_header_row_names_the_columns(tmp_path, capsys, monkeypatch, separator):
    rows = [["Tags", "Back", "Front"], ["t1", "Paris", "Capital of France?"], ["", "Rome, Italy", "Capital of Italy?"]]
    text = "\n".join(separator.join(f'"{cell}"' if separator in cell or "," in cell else cell for cell in row)
                     for row in rows) + "\n"
    write(tmp_path / "capitals.csv", text)
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "capitals.csv")
    assert code == 0, err
    assert [(c.front, c.back, c.tags) for c in cards_of(tmp_path / "decks" / "capitals.yaml")] == [
        ("Capital of France?", "Paris", ("t1",)), ("Capital of Italy?", "Rome, Italy", ())]


def test_csv_columns_option_skips_and_orders_columns(tmp_path, capsys, monkeypatch):
    write(tmp_path / "c.csv", "x;Q1?;A1;z\ny;Q2?;A2;z\n")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "c.csv", "--columns=-,front,back,skip")
    assert code == 0, err
    assert [(c.front, c.back) for c in cards_of(tmp_path / "decks" / "c.yaml")] == [("Q1?", "A1"), ("Q2?", "A2")]


@pytest.mark.parametrize(("content", "line", "code", "words"), [
    (b"Q1?,A1\nQ2?,A2,extra\n", 2, "ragged-row", "this row has 3 columns where the file's rows have 2"),
    (b"Q1?,A1\nQ\xe92?,A2\n", 2, "encoding", "is not UTF-8 text"),
    (b"#separator:tab\n#notetype column:1\nImage Occlusion\tQ?\tA\n", 3, "unknown-note-type", "'Image Occlusion'"),
    (b"Q1?,A1\n,A2\n", 2, "empty", "the front (first field) is empty"),
])
def test_bad_csv_is_reported_by_file_and_line_and_nothing_is_written(tmp_path, capsys, monkeypatch, content, line,
                                                                     code, words):
    (tmp_path / "bad.csv").write_bytes(content)
    status, out, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "bad.csv")
    assert status == 1 and out == ""
    assert f"bad.csv:{line}:1: error: " in err and f"[{code}]" in err and words in err
    assert "no bank was written" in err
    assert not (tmp_path / "decks").exists() or list((tmp_path / "decks").iterdir()) == []


def test_an_import_never_overwrites_a_bank(tmp_path, capsys, monkeypatch):
    write(tmp_path / "c.csv", "Q?,A\n")
    existing = write(tmp_path / "decks" / "c.yaml", "mine\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "c.csv")
    assert status == 1 and "already exists" in err and existing.read_text() == "mine\n"


# -- Markdown (hashcards) -----------------------------------------------------------------------

HASHCARDS = """\
---
name = "Geography"
---

Q: What is the capital of France?
A: Paris

C: [Paris] is the capital of [France].

Q: List the PGM minerals.
A:

- ruthenium
- rhodium

C:
See [the map](http://x.example) of [Europe].
"""


def test_a_hashcards_file_imports_cleanly(tmp_path, capsys, monkeypatch):
    write(tmp_path / "geo.md", HASHCARDS)
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "import", "markdown", "geo.md")
    assert code == 0, err
    deck = load_deck(tmp_path / "decks" / "geo.yaml").deck
    assert deck.title == "Geography"
    assert [(c.type, c.question, c.answer_text) for c in deck.cards] == [
        ("basic", "What is the capital of France?", "Paris"),
        ("cloze", "{{c1::Paris}} is the capital of {{c2::France}}.", "Paris, France"),
        ("basic", "List the PGM minerals.", "- ruthenium\n- rhodium"),
        ("cloze", "See [the map](http://x.example) of {{c1::Europe}}.", "Europe"),
    ]
    assert [c.variants() for c in deck.cards][1] == ["c1", "c2"]


@pytest.mark.parametrize(("text", "line", "code"), [
    ("Q: One?\nA: Yes\n\nQ: Two?\n", 4, "question-without-answer"),
    ("Stray words\nQ: One?\nA: Yes\n", 1, "text-outside-card"),
    ("Q: One?\nA: Yes\nA: Again\n", 3, "answer-without-question"),
    ("C: nothing hidden here\n", 1, "cloze-none"),
])
def test_bad_markdown_cards_are_reported_by_line(tmp_path, capsys, monkeypatch, text, line, code):
    write(tmp_path / "bad.md", text)
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "markdown", "bad.md")
    assert status == 1 and f"bad.md:{line}:1: error: " in err and f"[{code}]" in err
    assert not (tmp_path / "decks" / "bad.yaml").exists()


# -- Anki packages ------------------------------------------------------------------------------

def comparable(card):
    return (card.id, card.type, card.front, card.back, card.text, card.statement, card.choices, card.answer,
            card.feedback, card.explanation, card.source)


def test_a_bundled_deck_exported_by_studyapp_comes_back_as_the_same_cards(tmp_path, capsys, monkeypatch):
    from studyapp.export.anki import export_anki

    deck = next(d for d in load_paths([bundled_decks_dir()]).decks if d.id == "pytorch-mega-cache")
    export_anki([deck], tmp_path / "out.apkg", home=tmp_path / "home")
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "out.apkg", "-o", "decks/back.yaml")
    assert code == 0, err
    back = load_deck(tmp_path / "decks" / "back.yaml").deck
    assert back.id == deck.id and back.title == deck.title
    assert [comparable(c) for c in back.cards] == [comparable(c) for c in deck.cards]
    assert [set(back.tags) | set(c.tags) for c in back.cards] == [set(deck.tags) | set(c.tags) for c in deck.cards]


@pytest.mark.parametrize("legacy", [True, False])
def test_through_the_real_anki_and_its_export_the_cards_are_the_same(tmp_path, capsys, monkeypatch, legacy):
    from anki.collection import DeckIdLimit
    from anki.import_export_pb2 import ExportAnkiPackageOptions

    from anki_helpers import fresh_collection, import_package
    from studyapp.export.anki import export_anki

    decks = {d.id: d for d in load_paths([bundled_decks_dir()]).decks}
    deck = decks["3fs-file-system"] if "3fs-file-system" in decks else sorted(decks.values(), key=lambda d: d.id)[-1]
    export_anki([deck], tmp_path / "studyapp.apkg", home=tmp_path / "home")
    collection = fresh_collection(tmp_path / "anki")
    import_package(collection, tmp_path / "studyapp.apkg")
    deck_id = next(d.id for d in collection.decks.all_names_and_ids() if d.name.endswith(deck.title.split("::")[-1])
                   or d.name.startswith("studyapp::"))
    collection.export_anki_package(out_path=str(tmp_path / "anki.apkg"), limit=DeckIdLimit(deck_id),
                                   options=ExportAnkiPackageOptions(with_scheduling=False, with_media=True,
                                                                    legacy=legacy, with_deck_configs=False))
    collection.close()
    assert ("collection.anki21b" in zipfile.ZipFile(tmp_path / "anki.apkg").namelist()) is not legacy
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "anki.apkg", "-o", "decks/x.yaml")
    assert code == 0, err
    back = load_deck(tmp_path / "decks" / "x.yaml").deck
    assert [comparable(c) for c in back.cards] == [comparable(c) for c in deck.cards]


def _anki_package_with_standard_notes(tmp_path, legacy=True):
    """A package the real Anki writes, from its own stock note types, with an image."""
    from anki.collection import DeckIdLimit
    from anki.import_export_pb2 import ExportAnkiPackageOptions

    from anki_helpers import fresh_collection

    collection = fresh_collection(tmp_path / "anki")
    image = tmp_path / "diagram.png"
    image.write_bytes(b"\x89PNG fake image bytes")
    name = collection.media.add_file(str(image))
    deck = collection.decks.id("Team::Onboarding")
    kinds = [("Basic", {"Front": "What is <b>FX</b>?", "Back": f'A graph <img src="{name}">'}, ["fx"]),
             ("Basic (and reversed card)", {"Front": "KV", "Back": "Key-value"}, []),
             ("Basic (type in the answer)", {"Front": "Port of SSH?", "Back": "22"}, ["net"]),
             ("Basic (optional reversed card)", {"Front": "DDP", "Back": "Distributed Data Parallel",
                                                 "Add Reverse": "y"}, []),
             ("Cloze", {"Text": "The {{c1::FX graph}} cache is the {{c2::middle}} layer", "Back Extra": "Mega-Cache"}, [])]
    for kind, fields, tags in kinds:
        note = collection.new_note(collection.models.by_name(kind))
        for key, value in fields.items():
            note[key] = value
        note.tags = tags
        collection.add_note(note, deck)
    collection.export_anki_package(out_path=str(tmp_path / "team.apkg"), limit=DeckIdLimit(deck),
                                   options=ExportAnkiPackageOptions(with_scheduling=False, with_media=True,
                                                                    legacy=legacy, with_deck_configs=False))
    collection.close()
    return tmp_path / "team.apkg", name


@pytest.mark.parametrize("legacy", [True, False])
def test_ankis_stock_note_types_tags_and_media_come_in(tmp_path, capsys, monkeypatch, legacy):
    package, image = _anki_package_with_standard_notes(tmp_path, legacy)
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "team.apkg", "--id", "team")
    assert code == 0, err
    assert out == "decks/team.yaml: 5 cards from team.apkg and 1 media file in decks/team-media\n"
    cards = cards_of(tmp_path / "decks" / "team.yaml")
    assert [(c.type, c.question, c.answer_text, c.explanation, c.tags) for c in cards] == [
        ("basic", "What is FX?", f'A graph <img src="{image}">', "", ("fx",)),
        ("reverse", "KV", "Key-value", "", ()),
        ("basic", "Port of SSH?", "22", "", ("net",)),
        ("reverse", "DDP", "Distributed Data Parallel", "", ()),
        ("cloze", "The {{c1::FX graph}} cache is the {{c2::middle}} layer", "FX graph, middle", "Mega-Cache", ()),
    ]
    assert (tmp_path / "decks" / "team-media" / image).read_bytes() == b"\x89PNG fake image bytes"
    assert f"team.apkg:1:1: warning: note 1 (id " in err and f"'<img src=\"{image}\">' has no plain-text form" in err


def test_an_unknown_note_type_stops_the_import_naming_the_note(tmp_path, capsys, monkeypatch):
    from anki.collection import DeckIdLimit
    from anki.import_export_pb2 import ExportAnkiPackageOptions

    from anki_helpers import fresh_collection

    collection = fresh_collection(tmp_path / "anki")
    models = collection.models
    odd = models.new("Three sides")
    for name in ("One", "Two", "Three"):
        models.add_field(odd, models.new_field(name))
    for index, (question, answer) in enumerate((("{{One}}", "{{Two}}"), ("{{Two}}", "{{Three}}"),
                                                ("{{Three}}", "{{One}}"))):
        template = models.new_template(f"Card {index + 1}")
        template["qfmt"], template["afmt"] = question, answer
        models.add_template(odd, template)
    models.add(odd)
    deck = collection.decks.id("Odd")
    basic = collection.new_note(models.by_name("Basic"))
    basic["Front"], basic["Back"] = "Fine?", "Yes"
    collection.add_note(basic, deck)
    note = collection.new_note(models.by_name("Three sides"))
    note["One"], note["Two"], note["Three"] = "a", "b", "c"
    collection.add_note(note, deck)
    collection.export_anki_package(out_path=str(tmp_path / "odd.apkg"), limit=DeckIdLimit(deck),
                                   options=ExportAnkiPackageOptions(legacy=False))
    collection.close()
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "odd.apkg")
    assert code == 1
    assert "odd.apkg:2:1: error: note 2 (id " in err and "of note type 'Three sides'" in err
    assert not (tmp_path / "decks").exists()


def test_a_damaged_package_or_no_zip_is_refused_with_a_message(tmp_path, capsys, monkeypatch):
    with zipfile.ZipFile(tmp_path / "new.apkg", "w") as archive:
        archive.writestr("collection.anki21b", b"not zstd at all")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "new.apkg")
    assert code == 1 and "new.apkg:0:0: error: its compressed collection is damaged" in err
    write(tmp_path / "text.apkg", "not a zip")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "text.apkg")
    assert code == 1 and "text.apkg:0:0: error: not an Anki package" in err


def test_a_row_longer_than_the_header_row_is_ragged(tmp_path, capsys, monkeypatch):
    write(tmp_path / "h.csv", "front,back\nQ1?,A1\nQ2?,A2,extra\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "csv", "h.csv")
    assert status == 1 and "h.csv:3:1: error: this row has 3 columns where the file's rows have 2" in err


def test_without_zstandard_a_current_package_says_what_to_do(tmp_path, capsys, monkeypatch):
    import sys

    package, _ = _anki_package_with_standard_notes(tmp_path, legacy=False)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # an install without it
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "team.apkg")
    assert code == 1 and "needs the 'zstandard' package" in err and "Support older Anki versions" in err


def test_protobuf_fields_are_read_by_number_and_wire_type():
    from studyapp.anki.package import _protobuf

    message = bytes([0x08, 0x96, 0x01, 0x12, 0x03]) + b"abc" + bytes([0x1D, 1, 2, 3, 4])
    assert _protobuf(message) == [(1, 150), (2, b"abc"), (3, bytes([1, 2, 3, 4]))]
    with pytest.raises(ValueError):
        _protobuf(bytes([0x12, 0x05, 0x61]))


def test_an_image_occlusion_note_is_not_taken_for_a_cloze(tmp_path, capsys, monkeypatch):
    from anki.collection import DeckIdLimit
    from anki.import_export_pb2 import ExportAnkiPackageOptions

    from anki_helpers import fresh_collection

    collection = fresh_collection(tmp_path / "anki")
    deck = collection.decks.id("Pictures")
    note = collection.new_note(collection.models.by_name("Image Occlusion"))
    note["Occlusion"], note["Image"] = "{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2}}", "<img src=x.png>"
    collection.add_note(note, deck)
    collection.export_anki_package(out_path=str(tmp_path / "io.apkg"), limit=DeckIdLimit(deck),
                                   options=ExportAnkiPackageOptions(legacy=False))
    collection.close()
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "anki-deck", "io.apkg")
    assert code == 1 and "io.apkg:1:1: error: note 1 (id " in err and "'Image Occlusion'" in err


def test_html_blocks_lists_and_entities_become_lines_and_characters():
    assert html_to_text("<ul><li>one</li><li>two</li></ul>after") == ("one\ntwo\nafter", [])
    assert html_to_text("a&nbsp;b &lt;tag&gt; &#91;x&#93; \\\u2060(y\\\u2060)") == ("a b <tag> [x] \\(y\\)", [])
    assert html_to_text("<p>one</p>\n\n\n<p>two</p>") == ("one\n\ntwo", [])
    assert html_to_text("plain text") == ("plain text", [])
    text, kept = html_to_text('x <span style="color:red">red</span> [latex]x^2[/latex]')
    assert text == "x red [latex]x^2[/latex]" and kept == ["[latex]x^2[/latex]"]


def test_a_carried_id_wins_over_a_generated_one_of_the_same_name():
    drafts = [Draft("basic", {"front": "Layer count?"}, 1), Draft("basic", {"front": "Other"}, 2, id="layer-count")]
    assert assign_ids(drafts) == ["layer-count-2", "layer-count"]
    assert assign_ids([Draft("basic", {"front": "x"}, 1, id="Not A Slug")]) == ["x"]


def test_hashcards_images_links_and_escaped_brackets_are_not_deletions(tmp_path, capsys, monkeypatch):
    write(tmp_path / "m.md", "# Maps\n\nC: ![map](m.png) shows [Paris] and \\[not this] or [a link](http://x).\n")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", "markdown", "m.md")
    assert code == 0, err
    deck = load_deck(tmp_path / "decks" / "m.yaml").deck
    assert deck.title == "Maps"
    assert deck.cards[0].text == "![map](m.png) shows {{c1::Paris}} and \\[not this] or [a link](http://x)."


@pytest.mark.parametrize("kind", ["csv", "markdown", "anki-deck"])
def test_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path, capsys, monkeypatch, kind):
    import os

    os.mkfifo(tmp_path / "pipe")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", kind, "pipe")
    assert code == 1 and "pipe:0:0: error: it is not a regular file" in err
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "import", kind, ".")
    assert code == 1 and "it is not a regular file" in err
