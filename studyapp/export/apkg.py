"""Reading Anki packages (.apkg) and collection exports (.colpkg) without Anki.

A package is a zip archive. Since Anki 2.1.50 it holds a protobuf ``meta`` naming its
version and a zstd-compressed SQLite collection ``collection.anki21b`` (schema 18: note
types, decks and settings in tables of their own); older ones hold ``collection.anki21``
or ``collection.anki2`` (schema 11: those as JSON in the ``col`` row). Modern packages
also carry a dummy ``collection.anki2`` telling old versions to upgrade, so ``meta``
decides (rslib ``import_export/package/meta.rs``).

``read_package`` returns what an import needs: notes, cards, review log, note types and
the collection's day count. Every way a file can be wrong is a StudyappError naming it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import weakref
import zipfile
import zlib
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from ..core.gcpause import collector_paused
from ..core.problems import StudyappError

LEGACY_1, LEGACY_2, LATEST = 1, 2, 3
COLLECTION_FILES = {LEGACY_1: "collection.anki2", LEGACY_2: "collection.anki21", LATEST: "collection.anki21b"}
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_SQLITE_MAGIC = b"SQLite format 3\x00"


# Tuples: a package holds hundreds of thousands of these, and a tuple is built fastest.
class AnkiNote(NamedTuple):
    id: int
    guid: str
    notetype_id: int
    fields: tuple[str, ...]


class AnkiCard(NamedTuple):
    id: int
    note_id: int
    ord: int
    type: int
    queue: int
    due: int
    interval: int
    factor: int
    reps: int
    lapses: int
    left: int
    original_due: int
    original_deck_id: int
    data: dict


class AnkiReview(NamedTuple):
    id: int  # epoch milliseconds of the answer
    card_id: int
    ease: int
    interval: int
    last_interval: int
    factor: int
    taken_ms: int
    kind: int


@dataclass(frozen=True)
class AnkiNotetype:
    id: int
    name: str
    cloze: bool
    fields: tuple[str, ...]


@dataclass
class AnkiCollection:
    path: Path
    version: int
    crt: int  # creation time, epoch seconds
    creation_offset: int | None  # minutes west of UTC when created (None: older collections)
    rollover: int
    notetypes: dict[int, AnkiNotetype] = field(default_factory=dict)
    notes: dict[int, AnkiNote] = field(default_factory=dict)
    cards: list[AnkiCard] = field(default_factory=list)
    # The package's collection unpacked (SQLite, ours to write to: an import stages its rows there,
    # export/anki_import.py), kept while this object lives; None for a collection built in memory.
    database: Path | None = None
    _revlog: list[AnkiReview] | None = field(default=None, repr=False)

    @property
    def revlog(self) -> list[AnkiReview]:
        """Every review, by card, then time. Read from ``database`` when first asked for: an import
        copies the rows with SQL and never needs them as tuples (100,000 of them take longer than
        the rest of reading the package)."""
        if self._revlog is None:
            self._revlog = _read_revlog(self.path, self.database) if self.database is not None else []
        return self._revlog

    @revlog.setter
    def revlog(self, rows: list[AnkiReview]) -> None:
        self._revlog = rows


def _unreadable(path: Path, why: str, advice: str = "export it again from Anki (File > Export)") -> StudyappError:
    return StudyappError(f"{path}: cannot read this Anki package: {why}; nothing was changed. {advice}",
                         path=path)


@collector_paused()
def read_package(path: Path) -> AnkiCollection:
    """The collection inside the .apkg or .colpkg at ``path``."""
    path = Path(path)
    if path.is_dir():
        raise _unreadable(path, "it is a folder", "give the .apkg or .colpkg file Anki exported")
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise StudyappError(f"{path}: no such file", path=path) from None
    except (zipfile.BadZipFile, OSError) as error:
        raise _unreadable(path, f"it is not a zip archive, or it is truncated ({error})") from None
    scratch_folder = tempfile.TemporaryDirectory(prefix="studyapp-import-")
    try:
        with archive:
            collection = _unpack(path, archive, Path(scratch_folder.name))
    except BaseException:
        scratch_folder.cleanup()
        raise
    # The unpacked collection goes when the collection object does (or at exit).
    weakref.finalize(collection, scratch_folder.cleanup)
    return collection


def _unpack(path: Path, archive: zipfile.ZipFile, scratch: Path) -> AnkiCollection:
    names = set(archive.namelist())
    version = _version(path, archive, names)
    member = COLLECTION_FILES[version]
    if member not in names:
        raise _unreadable(path, f"its meta names {member}, which it does not contain")
    database = Path(scratch) / "collection.sqlite"
    try:
        with archive.open(member) as source, open(database, "wb") as target:
            if version == LATEST:
                _unzstd(path, source, target)
            else:
                shutil.copyfileobj(source, target, 1 << 20)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise _unreadable(path, f"{member} is damaged or cut short ({error})") from None
    return _read_collection(path, database, version)


def _version(path: Path, archive: zipfile.ZipFile, names: set[str]) -> int:
    if "meta" in names:
        try:
            meta = archive.read("meta")
        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise _unreadable(path, f"its meta is damaged ({error})") from None
        version = _protobuf_varint(meta, 1)
        if version not in COLLECTION_FILES:
            raise _unreadable(path, f"it is a package version this studyapp does not know ({version})",
                              "export it from Anki with 'Support older Anki versions' ticked")
        return version
    if "collection.anki21" in names:
        return LEGACY_2
    if "collection.anki2" in names:
        return LEGACY_1
    raise _unreadable(path, "it is a zip archive but not an Anki package (no collection.anki2, collection.anki21 "
                            "or collection.anki21b inside)", "give a file that Anki exported")


def _unzstd(path: Path, source, target) -> None:
    import zstandard

    head = source.read(4)
    if head != _ZSTD_MAGIC:
        raise _unreadable(path, "collection.anki21b is not zstd-compressed")
    decompressor = zstandard.ZstdDecompressor().decompressobj()
    try:
        chunk = head
        while chunk:
            target.write(decompressor.decompress(chunk))
            chunk = source.read(1 << 20)
    except zstandard.ZstdError as error:
        raise _unreadable(path, f"collection.anki21b is damaged ({error})") from None
    if not decompressor.eof:
        # zstd says nothing about a stream that simply stops: its last frame must be complete.
        raise _unreadable(path, "collection.anki21b is cut short (its compressed stream ends early)")


def _protobuf_varint(message: bytes, wanted: int) -> int:
    """Field ``wanted`` of a protobuf message when it is a varint (0, the default, when absent)."""
    position = 0
    found = 0
    while position < len(message):
        key, position = _varint(message, position)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, position = _varint(message, position)
            if number == wanted:
                found = value
        elif wire == 2:
            length, position = _varint(message, position)
            position += length
        elif wire == 5:
            position += 4
        elif wire == 1:
            position += 8
        else:
            break
    return found


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while position < len(data):
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
    return value, position


def _read_collection(path: Path, database: Path, version: int) -> AnkiCollection:
    with database.open("rb") as handle:
        header = handle.read(100)
    if header[:16] != _SQLITE_MAGIC:
        raise _unreadable(path, f"{COLLECTION_FILES[version]} is not an SQLite database")
    if len(header) == 100:
        # A database cut short still opens, and reads as if rows were missing: refuse it.
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        size = database.stat().st_size
        if pages and page_size and size < pages * page_size:
            raise _unreadable(path, f"{COLLECTION_FILES[version]} is cut short ({size} bytes of {pages * page_size})")
    connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = {"col", "notes", "cards", "revlog"} - tables
        if missing:
            raise _unreadable(path, f"its collection has no {', '.join(sorted(missing))} table")
        crt, conf_text, models_text = connection.execute("SELECT crt, conf, models FROM col").fetchone()
        if "config" in tables:
            config = {key: _json(value) for key, value in connection.execute("SELECT key, val FROM config")}
        else:
            config = _json(conf_text) or {}
        offset = config.get("creationOffset")
        collection = AnkiCollection(path, version, int(crt), int(offset) if isinstance(offset, int) else None,
                                    int(config.get("rollover", 4) if isinstance(config.get("rollover", 4), int) else 4))
        collection.notetypes = _notetypes(connection, tables, models_text)
        for note_id, guid, mid, fields in connection.execute("SELECT id, guid, mid, flds FROM notes"):
            collection.notes[note_id] = AnkiNote(note_id, guid, mid, tuple(fields.split("\x1f")))
        collection.cards = [
            AnkiCard(cid, nid, ord_, ctype, queue, due, ivl, factor, reps, lapses, left, odue, odid, _json(data) or {})
            for cid, nid, ord_, ctype, queue, due, ivl, factor, reps, lapses, left, odue, odid, data in connection.execute(
                "SELECT id, nid, ord, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, data FROM cards")]
        wrong = connection.execute("SELECT id, ease FROM revlog WHERE typeof(ease) != 'integer' "
                                   "OR ease NOT BETWEEN 0 AND 4 LIMIT 1").fetchone()
        if wrong is not None:
            raise _unreadable(path, f"its review log has a row (id {wrong[0]}) answered with ease {wrong[1]!r}, "
                                    "where Anki writes 0 to 4")
        collection.database = database
        return collection
    except sqlite3.DatabaseError as error:
        raise _unreadable(path, f"its collection is damaged ({error})") from None
    finally:
        connection.close()


def _read_revlog(path: Path, database: Path) -> list[AnkiReview]:
    connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        # In table order (the revlog id, which is time), then by card with a stable sort: SQLite's
        # ORDER BY cid walks the cid index and looks every row up in the table, twice the time.
        revlog = list(map(tuple.__new__, repeat(AnkiReview), connection.execute(
            "SELECT id, cid, ease, ivl, lastIvl, factor, time, type FROM revlog")))
    except sqlite3.DatabaseError as error:
        raise _unreadable(path, f"its collection is damaged ({error})") from None
    finally:
        connection.close()
    revlog.sort(key=itemgetter(1))
    return revlog


def _json(value):
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not value:
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _notetypes(connection: sqlite3.Connection, tables: set[str], models_text: str) -> dict[int, AnkiNotetype]:
    out: dict[int, AnkiNotetype] = {}
    if "notetypes" in tables:
        fields: dict[int, list[tuple[int, str]]] = {}
        for ntid, ord_, name in connection.execute("SELECT ntid, ord, name FROM fields"):
            fields.setdefault(ntid, []).append((ord_, name))
        for ntid, name, config in connection.execute("SELECT id, name, config FROM notetypes"):
            # NotetypeConfig.kind (field 1): 0 normal, 1 cloze.
            cloze = _protobuf_varint(bytes(config or b""), 1) == 1
            out[ntid] = AnkiNotetype(ntid, name, cloze, tuple(n for _, n in sorted(fields.get(ntid, []))))
        return out
    models = _json(models_text) or {}
    for key, model in models.items():
        ntid = int(model.get("id", key))
        names = tuple(f.get("name", "") for f in sorted(model.get("flds", []), key=lambda f: f.get("ord", 0)))
        out[ntid] = AnkiNotetype(ntid, str(model.get("name", "")), model.get("type") == 1, names)
    return out
