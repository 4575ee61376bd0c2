"""The export ledger, the field escaping and the note identities, without Anki."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from genanki.util import guid_for
from hypothesis import example, given
from hypothesis import strategies as st

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.models import Card, Deck
from studyapp.core.problems import StudyappError
from studyapp.export import ledger as ledger_module
from studyapp.export.anki import content_hash, plan_export
from studyapp.export.fields import cloze_field, note_guid, plain
from studyapp.export.ledger import UPDATE_COMMAND, Entry, Ledger, Stamper, shipped_ledger_path
from studyapp.export.notetypes import FIELDS, NOTE_TYPES

NOW = 1_800_000_000


def deck_with(cards: list[Card], deck_id: str = "d", folder: Path = Path("/nonexistent")) -> Deck:
    return Deck(deck_id, "D", folder / f"{deck_id}.yaml", folder / "seed.md", tuple(cards))


def basic(card_id: str, front: str = "Q?") -> Card:
    return Card(id=card_id, type="basic", source=("s",), front=front, back="A")


# -- the stamper -----------------------------------------------------------------


def test_new_content_is_stamped_now_and_remembered():
    local = Ledger()
    stamper = Stamper([], local, NOW)
    assert stamper.note_time("g", "h1", label="d/c", kind="basic") == NOW
    assert local.notes["g"] == Entry("h1", NOW, "d/c", "basic")
    assert stamper.changed_notes == ["g"]


def test_unchanged_content_keeps_its_time_and_is_not_rewritten():
    local = Ledger(notes={"g": Entry("h1", NOW - 500)})
    stamper = Stamper([], local, NOW)
    assert stamper.note_time("g", "h1") == NOW - 500
    assert stamper.changed_notes == [] and local.notes["g"].mtime == NOW - 500


def test_changed_content_is_newer_than_before_even_within_the_same_second():
    local = Ledger(notes={"g": Entry("h1", NOW)})
    assert Stamper([], local, NOW).note_time("g", "h2") == NOW + 1
    assert Stamper([], local, NOW).note_time("g", "h3") == NOW + 2
    # A clock that went backwards still yields a newer time.
    assert Stamper([], local, NOW - 100).note_time("g", "h4") == NOW + 3
    assert Stamper([], local, NOW + 50).note_time("g", "h5") == NOW + 50


def test_the_release_time_is_used_when_the_content_is_the_release():
    shipped = Ledger(notes={"g": Entry("release", NOW - 1000)})
    local = Ledger()
    stamper = Stamper([shipped], local, NOW)
    assert stamper.note_time("g", "release") == NOW - 1000
    assert local.notes == {} and shipped.notes["g"].mtime == NOW - 1000


def test_a_newer_release_wins_over_an_older_local_change():
    shipped = Ledger(notes={"g": Entry("release-2", NOW - 100)})
    local = Ledger(notes={"g": Entry("my-edit", NOW - 900)})
    assert Stamper([shipped], local, NOW).note_time("g", "release-2") == NOW - 100


def test_returning_to_the_release_after_a_local_change_is_a_change():
    # The learner's Anki holds the local edit (stamped after the release): going back
    # to the release text must be newer still, or Anki would keep the edit.
    shipped = Ledger(notes={"g": Entry("release", NOW - 1000)})
    local = Ledger(notes={"g": Entry("my-edit", NOW - 500)})
    stamper = Stamper([shipped], local, NOW)
    assert stamper.note_time("g", "release") == NOW
    assert local.notes["g"] == Entry("release", NOW)


def test_note_types_are_stamped_like_notes():
    local = Ledger()
    assert Stamper([], local, NOW).notetype_time(123, "css-1") == NOW
    assert Stamper([], local, NOW + 9).notetype_time(123, "css-1") == NOW
    assert Stamper([], local, NOW + 9).notetype_time(123, "css-2") == NOW + 9
    assert local.notetypes["123"].hash == "css-2"


def test_a_changed_card_type_is_noticed():
    local = Ledger(notes={"g": Entry("h", NOW, "d/c", "basic")})
    stamper = Stamper([], local, NOW + 5)
    stamper.note_time("g", "h2", label="d/c", kind="cloze")
    assert stamper.kind_changes == [("d/c", "basic", "cloze")]


# -- the ledger file ------------------------------------------------------------


def test_a_ledger_survives_a_round_trip_and_writes_one_line_per_note(tmp_path):
    ledger = Ledger(notes={"g2": Entry("h2", 2, "d/b", "cloze"), "g1": Entry("h1", 1, "d/a", "basic")},
                    notetypes={"7": Entry("t", 3, "studyapp basic v1")})
    path = tmp_path / "anki-ledger.json"
    ledger.save(path)
    assert Ledger.load(path) == ledger
    text = path.read_text(encoding="utf-8")
    assert text.index('"d/a"') < text.index('"d/b"')
    # One line per entry, so that a change to one note is a one-line diff in git.
    lines = text.splitlines()
    for key in ("g1", "g2", "7"):
        (line,) = [line for line in lines if f'"{key}":' in line]
        assert line.rstrip(",").endswith("}")
    assert UPDATE_COMMAND in json.loads(text)["about"]
    assert [p.name for p in tmp_path.iterdir()] == ["anki-ledger.json"]


def test_a_missing_ledger_is_empty(tmp_path):
    assert Ledger.load(tmp_path / "nothing.json") == Ledger()


@pytest.mark.parametrize("text, line", [
    ('{\n  "schema": 1,\n  "notes": {,}\n}', 3),
    ('{"schema": 2, "notes": {}}', 1),
    ('{"schema": 1, "notes": {"g": {"mtime": 3}}}', 1),
    ('[1, 2]', 1),
])
def test_a_broken_ledger_is_reported_with_its_place(tmp_path, text, line):
    path = tmp_path / "anki-ledger.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StudyappError) as raised:
        Ledger.load(path)
    assert raised.value.path == str(path) and raised.value.line == line
    assert raised.value.format().startswith(f"{path}:{line}:")


def test_the_shipped_ledger_is_current_for_the_bundled_decks():
    """Fails when a bundled deck or a note type changed without restamping the ledger."""
    folder = bundled_decks_dir()
    catalog = load_paths([folder])
    shipped = Ledger.load(shipped_ledger_path(folder))
    stamper = Stamper([shipped], Ledger(), NOW)
    plan_export(catalog.decks, stamper)
    stale = [shipped.notes.get(g, Entry("", 0, g)).label or g for g in stamper.changed_notes] + stamper.changed_notetypes
    assert not stale, (f"{shipped_ledger_path(folder)} is stale for {len(stale)} notes or note types "
                       f"(first: {stale[:5]}); run '{UPDATE_COMMAND}' and commit the result")


def test_the_update_command_restamps_only_what_changed(tmp_path, capsys):
    folder = tmp_path / "decks"
    folder.mkdir()
    (tmp_path / "seed.md").write_text("---\ntitle: Seed\n---\nthe quoted text\n", encoding="utf-8")
    deck = folder / "d.yaml"

    def write(front: str) -> None:
        deck.write_text(f"schema: 1\nid: d\ntitle: D\nseed: ../seed.md\ncards:\n"
                        f"  - {{id: a, type: basic, front: '{front}', back: B, source: quoted}}\n"
                        f"  - {{id: b, type: basic, front: Other?, back: C, source: quoted}}\n", encoding="utf-8")

    def run(*argv: str, at: int = NOW) -> int:
        return ledger_module.main(list(argv), clock=lambda: float(at))

    write("First?")
    assert run("check", str(folder)) == 1
    assert run("update", str(folder)) == 0
    assert run("check", str(folder)) == 0
    first = Ledger.load(shipped_ledger_path(folder))
    assert {e.mtime for e in first.notes.values()} == {NOW}

    write("Second?")
    assert run("check", str(folder), at=NOW + 60) == 1
    assert run("update", str(folder), at=NOW + 60) == 0
    second = Ledger.load(shipped_ledger_path(folder))
    assert sorted(e.mtime for e in second.notes.values()) == [NOW, NOW + 60]
    assert second.notetypes == first.notetypes
    out = capsys.readouterr()
    assert "1 notes and 0 note types restamped" in out.out


# -- identities and content -----------------------------------------------------


@given(st.text(alphabet="abcxyz019-", min_size=1, max_size=30), st.text(alphabet="abcxyz019-", min_size=1, max_size=30))
def test_guids_are_genankis_guid_for_the_ids(deck_id, card_id):
    assert note_guid(deck_id, card_id) == guid_for("studyapp", deck_id, card_id)


def test_guids_come_from_the_ids_not_the_text():
    assert note_guid("deck", "card") == note_guid("deck", "card")
    assert note_guid("deck", "card") != note_guid("deck", "card-2") != note_guid("deck-2", "card")
    one = plan_export([deck_with([basic("c", "Old wording?")])], Stamper([], Ledger(), NOW)).notes[0]
    two = plan_export([deck_with([basic("c", "New wording?")])], Stamper([], Ledger(), NOW)).notes[0]
    assert one.guid == two.guid and one.fields != two.fields


def test_two_cards_with_one_identity_are_refused_before_writing():
    decks = [deck_with([basic("same")], "d"), deck_with([basic("same")], "d")]
    with pytest.raises(StudyappError, match="share one Anki note id"):
        plan_export(decks, Stamper([], Ledger(), NOW))


def test_the_content_hash_covers_fields_tags_and_note_type():
    fields = ["q", "a", "", "", "", "", ""]
    base = content_hash(1, fields, ["t"])
    assert content_hash(1, fields, ["t"]) == base
    assert base not in {content_hash(2, fields, ["t"]), content_hash(1, ["Q", *fields[1:]], ["t"]),
                        content_hash(1, fields, ["t", "u"])}


def test_every_note_type_has_the_frozen_fields_and_its_own_id():
    assert FIELDS == ("Question", "Answer", "Explanation", "Source", "Document", "Id", "Spare")
    assert len({t.model_id for t in NOTE_TYPES.values()}) == len(NOTE_TYPES) == 5
    assert all(t.name.endswith(" v1") for t in NOTE_TYPES.values())
    # The ids shipped in the first release: changing one forks every learner's note type.
    assert {k: t.model_id for k, t in NOTE_TYPES.items()} == {
        "basic": 1879201082, "reverse": 2124258038, "cloze": 1955785567, "choice": 1145502550,
        "truefalse": 1500972829}


# -- plain text -------------------------------------------------------------------


def shown(field: str) -> str:
    """What Anki shows of a field, word joiners left out: plain() puts one after each backslash that
    would start MathJax, and the text's own (invisible too) cannot be told from those."""
    return html.unescape(field.replace("<br>", "\n")).replace("\u2060", "")


CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


@example("\u2060")  # a word joiner of the text's own (found by Hypothesis)
@example("\\(x\u2060")
@given(st.text())
def test_plain_text_shows_exactly_the_text_and_carries_no_markup(text):
    field = plain(text)
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert shown(field) == "".join(ch for ch in expected if ch not in CONTROLS).replace("\u2060", "")
    assert "<" not in field.replace("<br>", "") and ">" not in field.replace("<br>", "")
    assert not {"[", "{", "}", '"', "'", "\x1f"} & set(field)


def test_mathjax_delimiters_are_broken():
    assert "\\(" not in html.unescape(plain("\\(x\\) \\[y\\]"))
    assert "\\[" not in html.unescape(plain("\\(x\\) \\[y\\]"))


@given(st.lists(st.tuples(st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=8),
                          st.text(alphabet=st.characters(blacklist_characters="{}:"), min_size=1, max_size=8)),
                min_size=1, max_size=4))
def test_cloze_fields_keep_exactly_the_deletions(parts):
    text = "".join(f"{outside}{{{{c{i + 1}::{answer}}}}}" for i, (outside, answer) in enumerate(parts))
    field = cloze_field(text)
    assert field.count("{{c") == len(parts) and field.count("}}") == len(parts)
    for i, (_, answer) in enumerate(parts):
        assert f"{{{{c{i + 1}::{plain(answer).replace(':', '&#58;')}}}}}" in field
