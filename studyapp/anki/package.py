"""Reading an Anki package (.apkg, .colpkg): its note types, notes, decks and media.

Shared by the imports of cards (``studyapp import anki-deck``) and of progress (``studyapp import
anki``). An Anki package is a zip holding a SQLite collection and its media. Read here: Anki's current
format (``collection.anki21b``: zstd-compressed, schema 18, note types in tables of their own
whose settings are protobuf messages, media listed in a compressed protobuf), and the legacy
collections (``collection.anki21``, written by Anki's "Support older Anki versions" export, and
``collection.anki2``, written by genanki and older Anki), whose note types live as JSON in the
``col`` table. A current package also holds a dummy ``collection.anki2``: it is never the one read.

The zip is read with limits (a package is a collection of notes, not a zip bomb), the collection is
copied to a private temporary file and opened read-only.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..core.problems import StudyappError

MAX_COLLECTION_BYTES = 1 << 30
MAX_MEDIA_BYTES = 256 << 20
FIELD_SEPARATOR = "\x1f"
CLOZE_KIND = 1


@dataclass(frozen=True)
class Template:
    name: str
    question: str
    answer: str


@dataclass(frozen=True)
class NoteType:
    id: int
    name: str
    cloze: bool
    fields: tuple[str, ...]
    templates: tuple[Template, ...]


@dataclass(frozen=True)
class Note:
    id: int
    guid: str
    notetype_id: int
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    position: int  # 1-based, in the package's order
    deck_ids: tuple[int, ...] = ()
    modified: int = 0


@dataclass
class Package:
    path: Path
    notetypes: dict[int, NoteType] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    decks: dict[int, str] = field(default_factory=dict)
    media: dict[str, str] = field(default_factory=dict)  # file name -> member of the zip
    compressed: bool = False  # Anki's current format: the collection and each media file in zstd

    def media_bytes(self, name: str) -> bytes:
        member = self.media[name]
        with zipfile.ZipFile(self.path) as archive:
            info = archive.getinfo(member)
            if info.file_size > MAX_MEDIA_BYTES:
                raise StudyappError(f"media file {name!r} is {info.file_size} bytes, more than {MAX_MEDIA_BYTES}",
                                    path=self.path)
            data = archive.read(member)
        if self.compressed:
            try:
                return _unzstd_bytes(data, MAX_MEDIA_BYTES)
            except ValueError:
                raise StudyappError(f"media file {name!r} unpacks to more than {MAX_MEDIA_BYTES} bytes or is damaged",
                                    path=self.path) from None
        return data


def read_package(path: Path) -> Package:
    import os
    import stat

    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise StudyappError(f"cannot read it: {error.strerror}", path=path) from None
    if not stat.S_ISREG(mode):  # a FIFO would hang the zip reader, a device feed it without end
        raise StudyappError("it is not a regular file; name the .apkg file itself", path=path)
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise StudyappError(f"not an Anki package (a .apkg is a zip file): {error}", path=path) from None
    with archive:
        names = set(archive.namelist())
        member = next((n for n in ("collection.anki21b", "collection.anki21", "collection.anki2") if n in names), None)
        if member is None:
            raise StudyappError("no collection inside: this zip is not an Anki package", path=path)
        compressed = member.endswith("b")
        info = archive.getinfo(member)
        if info.file_size > MAX_COLLECTION_BYTES:
            raise StudyappError(f"its collection is {info.file_size} bytes, more than {MAX_COLLECTION_BYTES}", path=path)
        package = Package(path, compressed=compressed)
        if "media" in names:
            package.media = _media_list(archive.read("media"), compressed, names)
        with tempfile.TemporaryDirectory(prefix="studyapp-apkg-") as folder:
            copy = Path(folder) / "collection.sqlite"
            with archive.open(member) as source, open(copy, "wb") as out:
                reader = _unzstd(source, path) if compressed else source
                written = 0
                while chunk := reader.read(1 << 20):
                    written += len(chunk)
                    if written > MAX_COLLECTION_BYTES:
                        raise StudyappError(f"its collection unpacks to more than {MAX_COLLECTION_BYTES} bytes", path=path)
                    out.write(chunk)
            _read_collection(copy, package)
    return package


def _unzstd(source, path: Path):
    try:
        import zstandard
    except ImportError:  # an install without it: say what works instead
        raise StudyappError("this package is in Anki's current compressed format, which needs the 'zstandard' "
                            "package (pip install zstandard); or export it again from Anki with 'Support older "
                            "Anki versions' ticked", path=path) from None
    return _Checked(zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True), zstandard.ZstdError,
                    path)


class _Checked:
    """A zstd stream whose damage is reported as the package's, not as a traceback."""

    def __init__(self, reader, error: type[Exception], path: Path) -> None:
        self.reader, self.error, self.path = reader, error, path

    def read(self, size: int) -> bytes:
        try:
            return self.reader.read(size)
        except self.error as why:
            raise StudyappError(f"its compressed collection is damaged ({why}); export it again", path=self.path) from None


def _unzstd_bytes(data: bytes, limit: int) -> bytes:
    import io

    import zstandard

    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
            out = reader.read(limit + 1)
    except zstandard.ZstdError as why:
        raise ValueError(str(why)) from None
    if len(out) > limit:
        raise ValueError("too large")
    return out


def _media_list(data: bytes, compressed: bool, names: set[str]) -> dict[str, str]:
    """File name -> zip member: JSON {"0": "a.png"} in legacy packages, a protobuf list in current ones."""
    try:
        if compressed:
            entries = [dict(_protobuf(entry)) for key, entry in _protobuf(_unzstd_bytes(data, 64 << 20)) if key == 1]
            listed = {str(i): entry.get(1, b"").decode("utf-8") for i, entry in enumerate(entries)}
        else:
            listed = json.loads(data.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError, ImportError, AttributeError):
        return {}
    if not isinstance(listed, dict):
        return {}
    return {str(name): str(number) for number, name in listed.items() if str(number) in names and name}


def _protobuf(data: bytes) -> list[tuple[int, object]]:
    """The (field number, value) pairs of a protobuf message: varints as ints, the rest as bytes."""
    fields: list[tuple[int, object]] = []
    i, n = 0, len(data)

    def varint() -> int:
        nonlocal i
        value = shift = 0
        while True:
            if i >= n:
                raise ValueError("truncated varint")
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    while i < n:
        key = varint()
        number, kind = key >> 3, key & 7
        if kind == 0:
            fields.append((number, varint()))
        elif kind == 2:
            length = varint()
            if i + length > n:
                raise ValueError("truncated field")
            fields.append((number, data[i:i + length]))
            i += length
        elif kind in (1, 5):
            size = 8 if kind == 1 else 4
            fields.append((number, data[i:i + size]))
            i += size
        else:
            raise ValueError(f"protobuf wire type {kind}")
    return fields


def _read_collection(copy: Path, package: Package) -> None:
    try:
        connection = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise StudyappError(f"its collection cannot be opened: {error}", path=package.path) from None
    try:
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "notetypes" in tables:
            _read_schema18(connection, package)
            models, decks = {}, {}
        else:
            row = connection.execute("SELECT models, decks FROM col").fetchone()
            models = json.loads(row[0] or "{}") if row else {}
            decks = json.loads(row[1] or "{}") if row else {}
        for key, model in models.items():
            fields = tuple(f["name"] for f in sorted(model.get("flds", []), key=lambda f: f.get("ord", 0)))
            templates = tuple(Template(t.get("name", ""), t.get("qfmt", ""), t.get("afmt", ""))
                              for t in sorted(model.get("tmpls", []), key=lambda t: t.get("ord", 0)))
            package.notetypes[int(key)] = NoteType(int(key), str(model.get("name", "")), model.get("type") == CLOZE_KIND,
                                                   fields, templates)
        if decks:
            package.decks = {int(key): str(deck.get("name", "")) for key, deck in decks.items()}
        note_decks: dict[int, list[int]] = {}
        for nid, did in connection.execute("SELECT nid, did FROM cards ORDER BY ord"):
            note_decks.setdefault(nid, []).append(did)
        rows = connection.execute("SELECT id, guid, mid, flds, tags, mod FROM notes ORDER BY id")
        for position, (nid, guid, mid, flds, tags, mod) in enumerate(rows, 1):
            package.notes.append(Note(nid, guid, mid, tuple(flds.split(FIELD_SEPARATOR)), tuple(tags.split()), position,
                                      tuple(dict.fromkeys(note_decks.get(nid, ()))), mod))
    except (sqlite3.Error, ValueError, KeyError, TypeError, AttributeError) as error:
        raise StudyappError(f"its collection is not one this version reads: {error}", path=package.path) from None
    finally:
        connection.close()


def _read_schema18(connection: sqlite3.Connection, package: Package) -> None:
    """Note types, fields, templates and decks as Anki's schema 18 keeps them (protobuf settings)."""
    fields: dict[int, list[str]] = {}
    for ntid, _, name in connection.execute("SELECT ntid, ord, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(ntid, []).append(name)
    templates: dict[int, list[Template]] = {}
    for ntid, _, name, config in connection.execute("SELECT ntid, ord, name, config FROM templates ORDER BY ntid, ord"):
        parts = dict(_protobuf(bytes(config or b"")))
        question, answer = (parts.get(number, b"") for number in (1, 2))
        templates.setdefault(ntid, []).append(Template(name, question.decode("utf-8"), answer.decode("utf-8")))
    for ntid, name, config in connection.execute("SELECT id, name, config FROM notetypes"):
        kind = dict(_protobuf(bytes(config or b""))).get(1, 0)
        package.notetypes[ntid] = NoteType(ntid, name, kind == CLOZE_KIND, tuple(fields.get(ntid, ())),
                                           tuple(templates.get(ntid, ())))
    # Schema 18 separates a deck's levels with \x1f; shown with Anki's own "::".
    package.decks = {did: name.replace("\x1f", "::") for did, name in connection.execute("SELECT id, name FROM decks")}
