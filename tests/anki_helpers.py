"""A real Anki collection (the ``anki`` package from PyPI) to import exports into.

Anki is AGPL: it is used here, in tests, and never by the product.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from anki.collection import Collection
from anki.import_export_pb2 import (
    IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)

# What Anki reports instead of raising when a template cannot be rendered.
TEMPLATE_ERROR_MARKERS = ("docs.ankiweb.net/templates/errors", "template has a problem", "card is blank", "{{", "}}")


@dataclass(frozen=True)
class ImportCounts:
    new: int
    updated: int
    duplicate: int
    conflicting: int
    missing_notetype: int


def fresh_collection(folder: Path) -> Collection:
    folder.mkdir(parents=True, exist_ok=True)
    return Collection(str(folder / "collection.anki2"))


def import_package(collection: Collection, package: Path) -> ImportCounts:
    """Import as Anki's own dialog does by default: update notes and note types only if newer."""
    request = ImportAnkiPackageRequest(
        package_path=str(package),
        options=ImportAnkiPackageOptions(
            merge_notetypes=False,
            update_notes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
            update_notetypes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
            with_scheduling=False,
        ),
    )
    log = collection.import_anki_package(request).log
    # Note types are cached on the Python side; an import changes them underneath.
    collection.models._clear_cache()
    return ImportCounts(len(log.new), len(log.updated), len(log.duplicate), len(log.conflicting),
                        len(log.missing_notetype))


def notes_by_id_field(collection: Collection) -> dict[str, object]:
    """Every note keyed by its ``Id`` field (``deck-id/card-id``)."""
    notes = {}
    for note_id in collection.find_notes(""):
        note = collection.get_note(note_id)
        notes[note["Id"]] = note
    return notes


_STYLE_RE = re.compile(r"<style>.*?</style>", re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")


def visible(rendered: str) -> str:
    """The text a learner sees in a rendered card side (tags stripped, entities decoded)."""
    text = _STYLE_RE.sub("", rendered).replace("<br>", "\n")
    return html.unescape(_TAG_RE.sub("", text)).replace("\u2060", "")


def template_error(rendered: str) -> str | None:
    for marker in TEMPLATE_ERROR_MARKERS:
        if marker in rendered:
            return marker
    return None
