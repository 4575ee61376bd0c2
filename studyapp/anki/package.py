"""Reading an Anki package (.apkg, .colpkg): its note types, notes, decks and media.

Shared by the imports of cards (``studyapp import anki-deck``) and of progress (``studyapp import
anki``). An Anki package is a zip holding a SQLite collection and its media. Read here: the legacy
collections (``collection.anki21``, written by Anki's "Support older Anki versions" export, and
``collection.anki2``, written by genanki and older Anki), whose note types live as JSON in the
``col`` table. The current default (``collection.anki21b``) is zstd-compressed, which the Python
standard library cannot read: it is refused with what to do instead.

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

    def media_bytes(self, name: str) -> bytes:
        member = self.media[name]
        with zipfile.ZipFile(self.path) as archive:
            info = archive.getinfo(member)
            if info.file_size > MAX_MEDIA_BYTES:
                raise StudyappError(f"media file {name!r} is {info.file_size} bytes, more than {MAX_MEDIA_BYTES}",
                                    path=self.path)
            return archive.read(member)


def read_package(path: Path) -> Package:
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise StudyappError(f"not an Anki package (a .apkg is a zip file): {error}", path=path) from None
    with archive:
        names = set(archive.namelist())
        member = next((n for n in ("collection.anki21", "collection.anki2") if n in names), None)
        if member is None:
            if "collection.anki21b" in names:
                raise StudyappError("this package is in Anki's newer compressed format; export it again from Anki "
                                    "with 'Support older Anki versions' ticked", path=path)
            raise StudyappError("no collection inside: this zip is not an Anki package", path=path)
        info = archive.getinfo(member)
        if info.file_size > MAX_COLLECTION_BYTES:
            raise StudyappError(f"its collection is {info.file_size} bytes, more than {MAX_COLLECTION_BYTES}", path=path)
        package = Package(path)
        if "media" in names:
            try:
                listed = json.loads(archive.read("media").decode("utf-8") or "{}")
            except (UnicodeDecodeError, ValueError):
                listed = {}
            if isinstance(listed, dict):
                package.media = {str(name): str(number) for number, name in listed.items() if str(number) in names}
        with tempfile.TemporaryDirectory(prefix="studyapp-apkg-") as folder:
            copy = Path(folder) / "collection.sqlite"
            with archive.open(member) as source, open(copy, "wb") as out:
                while chunk := source.read(1 << 20):
                    out.write(chunk)
            _read_collection(copy, package)
    return package


def _read_collection(copy: Path, package: Package) -> None:
    try:
        connection = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise StudyappError(f"its collection cannot be opened: {error}", path=package.path) from None
    try:
        row = connection.execute("SELECT models, decks FROM col").fetchone()
        models = json.loads(row[0] or "{}") if row else {}
        decks = json.loads(row[1] or "{}") if row else {}
        for key, model in models.items():
            fields = tuple(f["name"] for f in sorted(model.get("flds", []), key=lambda f: f.get("ord", 0)))
            templates = tuple(Template(t.get("name", ""), t.get("qfmt", ""), t.get("afmt", ""))
                              for t in sorted(model.get("tmpls", []), key=lambda t: t.get("ord", 0)))
            package.notetypes[int(key)] = NoteType(int(key), str(model.get("name", "")), model.get("type") == CLOZE_KIND,
                                                   fields, templates)
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
