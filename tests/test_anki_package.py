"""Reading an Anki package, field by field, from collections written here in both of Anki's layouts
(the legacy JSON one genanki writes, and schema 18 with protobuf settings, zstd-compressed as
Anki 23.10+ exports): note types with their fields and templates in order, decks, notes with
their tags and decks, media; and every refusal with its message."""

from __future__ import annotations

import json
import os
import sqlite3
import zipfile
from pathlib import Path

import pytest
import zstandard

from studyapp.anki import package as package_module
from studyapp.anki.package import Note, NoteType, Template, _media_list, _protobuf, read_package
from studyapp.core.problems import StudyappError

NOTES = [  # id, guid, mid, fields, tags, mod
    (30, "g3", 2, "{{c1::Paris}} is in France\x1f", "geo  europe ", 1700000003),
    (10, "g1", 1, "Front one\x1fBack one", "", 1700000001),
    (20, "g2", 1, "Front two\x1fBack two", "b a", 1700000002),
]
CARDS = [(10, 100, 1), (10, 100, 0), (20, 200, 1), (20, 100, 0), (30, 200, 0)]  # nid, did, ord


def fill(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE notes (id INTEGER, guid TEXT, mid INTEGER, flds TEXT, tags TEXT, mod INTEGER)")
    db.execute("CREATE TABLE cards (nid INTEGER, did INTEGER, ord INTEGER)")
    db.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)", NOTES)
    db.executemany("INSERT INTO cards VALUES (?, ?, ?)", CARDS)


def legacy_collection(path: Path) -> bytes:
    models = {
        "1": {"name": "Basic", "type": 0, "flds": [{"name": "Back", "ord": 1}, {"name": "Front", "ord": 0}],
              "tmpls": [{"name": "Card 2", "qfmt": "{{Back}}", "afmt": "{{Front}}", "ord": 1},
                        {"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{Back}}", "ord": 0}]},
        "2": {"name": "Cloze", "type": 1, "flds": [{"name": "Text"}, {"name": "Extra", "ord": 1}],
              "tmpls": [{"name": "Cloze", "qfmt": "{{cloze:Text}}", "afmt": "{{cloze:Text}}"}]},
    }
    decks = {"100": {"name": "Geo::Europe"}, "200": {"name": "Default"}}
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE col (models TEXT, decks TEXT)")
    db.execute("INSERT INTO col VALUES (?, ?)", (json.dumps(models), json.dumps(decks)))
    fill(db)
    db.commit()
    db.close()
    return path.read_bytes()


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value: bytes | int) -> bytes:
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def schema18_collection(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notetypes (id INTEGER, name TEXT, config BLOB)")
    db.execute("CREATE TABLE fields (ntid INTEGER, ord INTEGER, name TEXT)")
    db.execute("CREATE TABLE templates (ntid INTEGER, ord INTEGER, name TEXT, config BLOB)")
    db.execute("CREATE TABLE decks (id INTEGER, name TEXT)")
    db.executemany("INSERT INTO notetypes VALUES (?, ?, ?)", [(1, "Basic", b""), (2, "Cloze", field(1, 1))])
    db.executemany("INSERT INTO fields VALUES (?, ?, ?)", [(1, 1, "Back"), (1, 0, "Front"), (2, 0, "Text"), (2, 1, "Extra")])
    db.executemany("INSERT INTO templates VALUES (?, ?, ?, ?)", [
        (1, 1, "Card 2", field(1, b"{{Back}}") + field(2, b"{{Front}}")),
        (1, 0, "Card 1", field(2, b"{{Back}}") + field(1, b"{{Front}}")),
        (2, 0, "Cloze", field(1, b"{{cloze:Text}}") + field(2, b"{{cloze:Text}}"))])
    db.executemany("INSERT INTO decks VALUES (?, ?)", [(100, "Geo\x1fEurope"), (200, "Default")])
    fill(db)
    db.commit()
    db.close()
    return path.read_bytes()


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


EXPECTED_NOTETYPES = {
    1: NoteType(1, "Basic", False, ("Front", "Back"), (Template("Card 1", "{{Front}}", "{{Back}}"),
                                                       Template("Card 2", "{{Back}}", "{{Front}}"))),
    2: NoteType(2, "Cloze", True, ("Text", "Extra"), (Template("Cloze", "{{cloze:Text}}", "{{cloze:Text}}"),)),
}
EXPECTED_NOTES = [  # in id order, positions from 1; decks in card order, each once
    Note(10, "g1", 1, ("Front one", "Back one"), (), 1, (100,), 1700000001),
    Note(20, "g2", 1, ("Front two", "Back two"), ("b", "a"), 2, (100, 200), 1700000002),
    Note(30, "g3", 2, ("{{c1::Paris}} is in France", ""), ("geo", "europe"), 3, (200,), 1700000003),
]


def test_a_legacy_package_reads_note_types_decks_notes_and_media(tmp_path):
    path = write_zip(tmp_path / "deck.apkg", {
        "collection.anki2": legacy_collection(tmp_path / "c.db"),
        "media": json.dumps({"0": "a.png", "1": "gone.png", "2": ""}).encode(), "0": b"PNG-A", "2": b"?"})
    package = read_package(path)
    assert (package.path, package.compressed) == (path, False)
    assert package.notetypes == EXPECTED_NOTETYPES
    assert package.decks == {100: "Geo::Europe", 200: "Default"}
    assert package.notes == EXPECTED_NOTES
    assert package.media == {"a.png": "0"}  # "1" is not in the zip, "2" has no name
    assert package.media_bytes("a.png") == b"PNG-A"


def test_a_current_package_reads_the_same_from_its_compressed_schema_18_collection(tmp_path):
    compress = zstandard.ZstdCompressor().compress
    media = compress(field(1, field(1, b"a.png") + field(2, 5)) + field(1, field(1, b"b.png")))
    path = write_zip(tmp_path / "deck.apkg", {
        "collection.anki2": b"the dummy an Anki 23.10+ package carries",
        "collection.anki21b": compress(schema18_collection(tmp_path / "c.db")),
        "media": media, "0": compress(b"PNG-A"), "1": compress(b"PNG-B")})
    package = read_package(path)
    assert package.compressed
    assert package.notetypes == EXPECTED_NOTETYPES
    assert package.decks == {100: "Geo::Europe", 200: "Default"}
    assert package.notes == EXPECTED_NOTES
    assert package.media == {"a.png": "0", "b.png": "1"}
    assert (package.media_bytes("a.png"), package.media_bytes("b.png")) == (b"PNG-A", b"PNG-B")


def test_the_newest_collection_in_a_package_is_the_one_read(tmp_path):
    legacy = legacy_collection(tmp_path / "c.db")
    path = write_zip(tmp_path / "deck.apkg", {"collection.anki2": b"not a database", "collection.anki21": legacy})
    assert read_package(path).notes == EXPECTED_NOTES


def refusal(path: Path) -> str:
    with pytest.raises(StudyappError) as raised:
        read_package(path)
    assert raised.value.path == str(path)
    return raised.value.message


def test_what_is_not_an_anki_package_is_refused_saying_why(tmp_path):
    assert refusal(tmp_path / "none.apkg") == "cannot read it: No such file or directory"
    assert refusal(tmp_path) == "it is not a regular file; name the .apkg file itself"
    (tmp_path / "text.apkg").write_text("hello", encoding="utf-8")
    assert refusal(tmp_path / "text.apkg") == "not an Anki package (a .apkg is a zip file): File is not a zip file"
    assert refusal(write_zip(tmp_path / "other.zip", {"readme.txt": b"x"})) == (
        "no collection inside: this zip is not an Anki package")
    bad = write_zip(tmp_path / "bad.apkg", {"collection.anki2": b"SQLite format 3\x00" + b"\x00" * 200})
    assert refusal(bad).startswith("its collection is not one this version reads: ")
    foreign = sqlite3.connect(tmp_path / "foreign.db")
    foreign.execute("CREATE TABLE col (x)")
    foreign.commit()
    foreign.close()
    assert refusal(write_zip(tmp_path / "foreign.apkg", {"collection.anki2": (tmp_path / "foreign.db").read_bytes()})) == (
        "its collection is not one this version reads: no such column: models")


def test_a_damaged_compressed_collection_is_refused(tmp_path):
    data = zstandard.ZstdCompressor().compress(schema18_collection(tmp_path / "c.db"))
    damaged = write_zip(tmp_path / "cut.apkg", {"collection.anki21b": data[:4] + b"\xff" * 20})
    assert refusal(damaged).startswith("its compressed collection is damaged (")


def test_size_limits_stop_a_zip_bomb_before_it_unpacks(tmp_path, monkeypatch):
    legacy = legacy_collection(tmp_path / "c.db")
    path = write_zip(tmp_path / "deck.apkg", {"collection.anki2": legacy, "media": b'{"0": "a.png"}', "0": b"12345"})
    monkeypatch.setattr(package_module, "MAX_COLLECTION_BYTES", len(legacy) - 1)
    assert refusal(path) == f"its collection is {len(legacy)} bytes, more than {len(legacy) - 1}"
    monkeypatch.setattr(package_module, "MAX_COLLECTION_BYTES", len(legacy))
    package = read_package(path)
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 4)
    with pytest.raises(StudyappError) as raised:
        package.media_bytes("a.png")
    assert raised.value.message == "media file 'a.png' is 5 bytes, more than 4"
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 5)
    assert package.media_bytes("a.png") == b"12345"


def test_a_compressed_collection_that_unpacks_past_the_limit_is_refused(tmp_path, monkeypatch):
    raw = schema18_collection(tmp_path / "c.db")
    path = write_zip(tmp_path / "deck.apkg", {"collection.anki21b": zstandard.ZstdCompressor().compress(raw)})
    monkeypatch.setattr(package_module, "MAX_COLLECTION_BYTES", len(raw) - 1)
    assert refusal(path) == f"its collection unpacks to more than {len(raw) - 1} bytes"
    monkeypatch.setattr(package_module, "MAX_COLLECTION_BYTES", len(raw))
    assert read_package(path).notes == EXPECTED_NOTES


def test_compressed_media_past_the_limit_or_damaged_is_refused(tmp_path, monkeypatch):
    compress = zstandard.ZstdCompressor().compress
    path = write_zip(tmp_path / "deck.apkg", {
        "collection.anki21b": compress(schema18_collection(tmp_path / "c.db")),
        "media": compress(field(1, field(1, b"a.png")) + field(1, field(1, b"b.png"))),
        "0": compress(b"x" * 100), "1": b"not zstd"})
    package = read_package(path)
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 99)
    with pytest.raises(StudyappError) as raised:
        package.media_bytes("a.png")
    assert raised.value.message == "media file 'a.png' unpacks to more than 99 bytes or is damaged"
    with pytest.raises(StudyappError) as raised:
        package.media_bytes("b.png")
    assert raised.value.message == "media file 'b.png' unpacks to more than 99 bytes or is damaged"


def test_a_media_list_that_cannot_be_read_lists_nothing():
    names = {"0", "1"}
    assert _media_list(b'{"0": "a.png", "1": "b.png"}', False, names) == {"a.png": "0", "b.png": "1"}
    assert _media_list(b"", False, names) == {}
    assert _media_list(b"[1, 2]", False, names) == {}
    assert _media_list(b"{not json", False, names) == {}
    assert _media_list(b"\xff", False, names) == {}
    assert _media_list(b"not zstd", True, names) == {}


def test_protobuf_reads_every_wire_type_and_refuses_damage():
    assert _protobuf(field(1, 300) + bytes([0x11]) + bytes(range(8)) + bytes([0x1D, 1, 2, 3, 4]) + field(4, b"ab")) == [
        (1, 300), (2, bytes(range(8))), (3, bytes([1, 2, 3, 4])), (4, b"ab")]
    assert _protobuf(b"") == []
    with pytest.raises(ValueError, match="truncated varint"):
        _protobuf(bytes([0x08, 0x80]))
    with pytest.raises(ValueError, match="truncated field"):
        _protobuf(bytes([0x12, 0x03, 0x61, 0x62]))
    with pytest.raises(ValueError, match="protobuf wire type 3"):
        _protobuf(bytes([0x0B]))


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.apkg"
    os.mkfifo(fifo)
    assert refusal(fifo) == "it is not a regular file; name the .apkg file itself"


def test_reading_leaves_no_temporary_copy_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    read_package(write_zip(tmp_path / "deck.apkg", {"collection.anki2": legacy_collection(tmp_path / "c.db")}))
    assert list((tmp_path / "tmp").iterdir()) == []


def test_missing_settings_read_as_empty_and_order_defaults_to_first(tmp_path):
    db = sqlite3.connect(tmp_path / "c.db")
    models = {"5": {"flds": [{"name": "Extra", "ord": 1}, {"name": "Text"}], "tmpls": [{"name": "T"}]}, "6": {}}
    db.execute("CREATE TABLE col (models TEXT, decks TEXT)")
    db.execute("INSERT INTO col VALUES (?, ?)", (json.dumps(models), json.dumps({"7": {}})))
    fill(db)
    db.execute("INSERT INTO notes VALUES (40, 'g4', 5, 'lonely', '', 1)")  # a note without cards
    db.commit()
    db.close()
    package = read_package(write_zip(tmp_path / "p.apkg", {"collection.anki2": (tmp_path / "c.db").read_bytes()}))
    assert package.notetypes == {5: NoteType(5, "", False, ("Text", "Extra"), (Template("T", "", ""),)),
                                 6: NoteType(6, "", False, (), ())}
    assert package.decks == {7: ""}
    assert package.notes[-1] == Note(40, "g4", 5, ("lonely",), (), 4, (), 1)


@pytest.mark.parametrize("row", [None, (None, None)])
def test_a_legacy_collection_without_models_or_decks_has_none(tmp_path, row):
    db = sqlite3.connect(tmp_path / "c.db")
    db.execute("CREATE TABLE col (models TEXT, decks TEXT)")
    if row:
        db.execute("INSERT INTO col VALUES (?, ?)", row)
    fill(db)
    db.commit()
    db.close()
    package = read_package(write_zip(tmp_path / "p.apkg", {"collection.anki2": (tmp_path / "c.db").read_bytes()}))
    assert (package.notetypes, package.decks, len(package.notes)) == ({}, {}, 3)


def test_schema_18_settings_that_are_missing_read_as_empty(tmp_path):
    db = sqlite3.connect(tmp_path / "c.db")
    db.execute("CREATE TABLE notetypes (id INTEGER, name TEXT, config BLOB)")
    db.execute("CREATE TABLE fields (ntid INTEGER, ord INTEGER, name TEXT)")
    db.execute("CREATE TABLE templates (ntid INTEGER, ord INTEGER, name TEXT, config BLOB)")
    db.execute("CREATE TABLE decks (id INTEGER, name TEXT)")
    db.executemany("INSERT INTO notetypes VALUES (?, ?, ?)", [(1, "Bare", None), (2, "Half", b"")])
    db.executemany("INSERT INTO templates VALUES (?, ?, ?, ?)", [(2, 0, "Q only", field(1, b"{{Front}}")), (2, 1, "None", None)])
    fill(db)
    db.commit()
    db.close()
    data = zstandard.ZstdCompressor().compress((tmp_path / "c.db").read_bytes())
    package = read_package(write_zip(tmp_path / "p.apkg", {"collection.anki21b": data}))
    assert package.notetypes == {1: NoteType(1, "Bare", False, (), ()),
                                 2: NoteType(2, "Half", False, (), (Template("Q only", "{{Front}}", ""), Template("None", "", "")))}


def test_a_collection_in_several_zstd_frames_reads_whole(tmp_path):
    raw = schema18_collection(tmp_path / "c.db")
    compress = zstandard.ZstdCompressor().compress
    half = len(raw) // 2
    media = field(1, field(1, b"a.png"))
    path = write_zip(tmp_path / "deck.apkg", {"collection.anki21b": compress(raw[:half]) + compress(raw[half:]),
                                              "media": compress(media[:3]) + compress(media[3:]),
                                              "0": compress(b"PN") + compress(b"G")})
    package = read_package(path)
    assert package.notes == EXPECTED_NOTES and package.media_bytes("a.png") == b"PNG"


def test_the_unpack_limit_counts_every_chunk_of_a_large_collection(tmp_path, monkeypatch):
    db = sqlite3.connect(tmp_path / "c.db")
    db.execute("CREATE TABLE col (models TEXT, decks TEXT)")
    db.execute("INSERT INTO col VALUES ('{}', ?)", (json.dumps({"1": {"name": "x" * (3 << 20)}}),))
    fill(db)
    db.commit()
    db.close()
    raw = (tmp_path / "c.db").read_bytes()
    assert len(raw) > 3 << 20
    path = write_zip(tmp_path / "big.apkg", {"collection.anki21b": zstandard.ZstdCompressor().compress(raw)})
    monkeypatch.setattr(package_module, "MAX_COLLECTION_BYTES", 2 << 20)  # more than one 1 MiB chunk, less than all
    assert refusal(path) == f"its collection unpacks to more than {2 << 20} bytes"


def test_media_at_the_limit_is_read_and_refusals_name_the_package(tmp_path, monkeypatch):
    compress = zstandard.ZstdCompressor().compress
    path = write_zip(tmp_path / "deck.apkg", {
        "collection.anki21b": compress(schema18_collection(tmp_path / "c.db")),
        "media": compress(field(1, field(1, b"a.png")) + field(1, field(2, 7))), "0": compress(b"x" * 100)})
    package = read_package(path)
    assert package.media == {"a.png": "0"}  # the second entry has no name
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 100)
    assert package.media_bytes("a.png") == b"x" * 100
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 99)
    with pytest.raises(StudyappError) as raised:
        package.media_bytes("a.png")
    assert raised.value.path == str(path)
    monkeypatch.setattr(package_module, "MAX_MEDIA_BYTES", 10)  # the zip member itself is larger
    with pytest.raises(StudyappError) as raised:
        package.media_bytes("a.png")
    assert raised.value.path == str(path)


def test_without_zstandard_a_current_package_names_itself_and_what_to_do(tmp_path, monkeypatch):
    import sys

    path = write_zip(tmp_path / "deck.apkg", {
        "collection.anki21b": zstandard.ZstdCompressor().compress(schema18_collection(tmp_path / "c.db"))})
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert refusal(path) == ("this package is in Anki's current compressed format, which needs the 'zstandard' "
                             "package (pip install zstandard); or export it again from Anki with 'Support older "
                             "Anki versions' ticked")


def test_protobuf_damage_is_named_exactly():
    assert _protobuf(field(1, 100_000)) == [(1, 100_000)]  # three varint bytes
    for data, why in ((bytes([0x08, 0x80]), "truncated varint"), (bytes([0x12, 0x03, 0x61]), "truncated field"),
                      (bytes([0x0B]), "protobuf wire type 3")):
        with pytest.raises(ValueError) as raised:
            _protobuf(data)
        assert str(raised.value) == why
