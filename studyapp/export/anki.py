"""Decks to an Anki package (``.apkg``) with genanki.

``plan_export`` turns decks into notes (fields, tags, GUID, modification time) and
``write_package`` writes them. Two small genanki subclasses write the ledger's times
instead of the export time; see ``ledger.py`` for why that matters to Anki.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import genanki

from ..core.anki_ids import anki_card_id
from ..core.models import Card, Deck, item_key
from ..core.problems import StudyappError
from .fields import DeckTags, document_title, fields_for, note_guid, plain
from .files import TEMP_PREFIX, refuse_unless_replaceable, remove_leftovers, replacing, scratch_folder
from .ledger import Ledger, Stamper, local_ledger_path, shipped_ledger_path
from .notetypes import FIELDS, NOTE_TYPES, PARENT_DECK_ID, PARENT_DECK_NAME, NoteType

# progress(stage, done, total), stage "preparing" (fields, hashes, times) then "writing".
Progress = Callable[[str, int, int], None]


class LedgerModel(genanki.Model):
    """A note type whose modification time is the ledger's, not the export's."""

    def __init__(self, note_type: NoteType, mtime: int):
        super().__init__(
            note_type.model_id,
            note_type.name,
            fields=[{"name": name} for name in FIELDS],
            templates=[{"name": t.name, "qfmt": t.front, "afmt": t.back} for t in note_type.templates],
            css=note_type.css,
            model_type=genanki.Model.CLOZE if note_type.cloze else genanki.Model.FRONT_BACK,
            sort_field_index=0,
        )
        self.mtime = mtime
        if self.model_type == genanki.Model.CLOZE:
            # genanki's Note._cloze_cards looks for the fields the first template clozes on
            # every note; they are the same for every note of a type.
            front = self.templates[0]["qfmt"]
            names = set(re.findall(r"{{[^}]*?cloze:(?:[^}]?:)*(.+?)}}", front) + re.findall("<%cloze:(.+?)%>", front))
            field_names = [f["name"] for f in self.fields]
            self._cloze_fields = [field_names.index(n) if n in field_names else -1 for n in names]

    def to_json(self, timestamp: float, deck_id):
        return super().to_json(self.mtime, deck_id)

    def card_ords(self, fields: list[str]) -> list[int]:
        """The cards a note with ``fields`` gets, as genanki's ``Note.cards`` decides, in its order."""
        if self.model_type == genanki.Model.CLOZE:
            ords: set[int] = set()
            for index in self._cloze_fields:
                value = fields[index] if index >= 0 else ""
                ords.update(int(n) - 1 for n in _CLOZE_NUMBER_RE.findall(value) if int(n) > 0)
            return list(ords)
        return [card_ord for card_ord, any_or_all, required in self._req
                if (any if any_or_all == "any" else all)(fields[i] for i in required)]


# genanki's pattern for the cloze numbers in a field.
_CLOZE_NUMBER_RE = re.compile(r"{{c(\d+)::.+?}}", re.DOTALL)


class LedgerNote(genanki.Note):
    """A note whose modification time is the time its content last changed."""

    def __init__(self, *args, mtime: int, on_written: Callable[[], None] | None = None,
                 card_ids: dict[int, int] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.mtime = mtime
        self.on_written = on_written
        # Card ord -> the item's Anki card id (core.anki_ids), which seeds Anki's fuzz the
        # way studyapp's scheduler seeds it for the same item.
        self.card_ids = card_ids or {}

    @property
    def tags(self) -> list[str]:
        return self._tags

    @tags.setter
    def tags(self, value) -> None:
        # genanki checks every tag of every note for spaces; plan_export checks each
        # distinct tag list once (fields.DeckTags), and the deck loader refuses them.
        self._tags = list(value)

    @property
    def cards(self) -> list[genanki.Card]:
        return [genanki.Card(card_ord) for card_ord in self.model.card_ords(self.fields)]

    def write_to_db(self, cursor, timestamp: float, deck_id, id_gen):
        """The rows genanki's ``Note.write_to_db`` inserts, stamped with the ledger's time.

        Two of genanki's per-note checks are left out, as they cannot fail here and cost
        more than the insert itself: ``_check_invalid_html_tags_in_fields`` (a regex scan
        of every field for malformed tags, while fields.py builds every field from
        escaped text and its own well-formed tags), and the fix-up of genanki's
        deprecated built-in models (every note here has one of ours). Its cards are
        worked out as genanki does, with what is fixed per note type computed once.
        """
        model, fields, mtime = self.model, self.fields, self.mtime
        if len(fields) != len(model.fields):
            self._check_number_model_fields_matches_num_fields()  # raises genanki's own error
        note_id = next(id_gen)
        cursor.execute(_INSERT_NOTE, (note_id, self.guid, model.model_id, mtime, -1, f" {' '.join(self._tags)} ",
                                      "\x1f".join(fields), self.sort_field, 0, 0, ""))
        for card_ord in model.card_ords(fields):
            card_id = self.card_ids.get(card_ord) or next(id_gen)
            cursor.execute(_INSERT_CARD, (card_id, note_id, deck_id, card_ord, mtime, -1, 0, 0, self.due,
                                          0, 0, 0, 0, 0, 0, 0, 0, ""))
        if self.on_written is not None:
            self.on_written()


# The statements genanki's Note and Card write, column for column.
_INSERT_NOTE = "INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?);"
_INSERT_CARD = "INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);"


class _Rows:
    """Collects a deck's inserts so that they reach SQLite in one ``executemany`` per statement.

    Notes and cards carry their ids, so the order of the inserts changes nothing stored.
    """

    def __init__(self) -> None:
        self.batches: dict[str, list[tuple]] = {}

    def execute(self, sql: str, parameters: tuple) -> None:
        self.batches.setdefault(sql, []).append(parameters)

    def flush(self, cursor) -> None:
        for sql, rows in self.batches.items():
            cursor.executemany(sql, rows)
        self.batches.clear()


class LedgerDeck(genanki.Deck):
    """A genanki deck that inserts its notes and cards in batches (a third of genanki's time)."""

    def write_to_db(self, cursor, timestamp: float, id_gen):
        # genanki's own method writes the deck and its note types; the notes follow here.
        notes, self.notes = self.notes, []
        for note in notes:
            self.add_model(note.model)
        try:
            super().write_to_db(cursor, timestamp, id_gen)
        finally:
            self.notes = notes
        rows = _Rows()
        for note in notes:
            note.write_to_db(rows, timestamp, self.deck_id, id_gen)
        rows.flush(cursor)


@dataclass(frozen=True)
class PlannedNote:
    deck: Deck
    card: Card
    guid: str
    fields: list[str]
    tags: list[str]
    mtime: int

    @property
    def label(self) -> str:
        return f"{self.deck.id}/{self.card.id}"


@dataclass
class ExportPlan:
    decks: list[Deck]
    deck_names: dict[str, str]
    notes: list[PlannedNote] = field(default_factory=list)
    notetype_times: dict[str, int] = field(default_factory=dict)

    @property
    def card_count(self) -> int:
        """Cards Anki will have: one per scheduled item of the app."""
        return sum(len(note.card.variants()) for note in self.notes)


@dataclass(frozen=True)
class ExportResult:
    path: Path
    decks: int
    notes: int
    cards: int
    changed_notes: int
    changed_notetypes: int
    kind_changes: tuple[tuple[str, str, str], ...]
    ledger_warning: str | None = None


def content_hash(model_id: int, fields: list[str], tags: list[str]) -> str:
    """Everything a note carries into Anki. Unambiguous: fields hold no \x1f, tags no spaces."""
    text = f"{model_id}\x1e{chr(0x1f).join(fields)}\x1e{' '.join(tags)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def anki_deck_names(decks: list[Deck]) -> dict[str, str]:
    """One Anki deck per bank under the parent deck, named by title; unique even if titles repeat."""
    def clean(title: str) -> str:
        # "::" would nest the deck one level deeper in Anki.
        return " ".join(title.replace("::", ":").split()) or "untitled"

    counts: dict[str, int] = {}
    for deck in decks:
        counts[clean(deck.title).casefold()] = counts.get(clean(deck.title).casefold(), 0) + 1
    names = {}
    for deck in decks:
        title = clean(deck.title)
        if counts[title.casefold()] > 1:  # Anki matches decks by name, ignoring case: keep them apart
            title = f"{title} ({deck.id})"
        # Escaped as a field is: templates show it with {{Deck}} and {{Subdeck}}, as it is.
        names[deck.id] = f"{PARENT_DECK_NAME}::{plain(title)}"
    return names


def anki_deck_id(deck_id: str) -> int:
    digest = hashlib.sha256(f"studyapp-deck:{deck_id}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:8], "big") % (1 << 30)


def plan_export(decks: list[Deck], stamper: Stamper, progress: Progress | None = None) -> ExportPlan:
    """Every card of ``decks`` as a note, in bank order, with its modification time."""
    plan = ExportPlan(list(decks), anki_deck_names(list(decks)))
    total = sum(len(deck.cards) for deck in decks)
    for note_type in NOTE_TYPES.values():
        plan.notetype_times[note_type.card_type] = stamper.notetype_time(
            note_type.model_id, note_type.content_hash(), label=note_type.name)
    model_ids = {card_type: note_type.model_id for card_type, note_type in NOTE_TYPES.items()}
    owners: dict[str, str] = {}
    notes = plan.notes
    for deck in decks:
        document_html = plain(document_title(deck))
        tags_for = DeckTags(deck)
        for card in deck.cards:
            guid = note_guid(deck.id, card.id)
            label = f"{deck.id}/{card.id}"
            if guid in owners:
                raise StudyappError(
                    f"cards {owners[guid]} and {label} would share one Anki note id; "
                    "give one of them another card id (or its deck another deck id)",
                    path=deck.path, line=card.position.line, column=card.position.column, code="export")
            owners[guid] = label
            if card.type == "cloze" and not card.cloze_numbers():
                raise StudyappError(f"cloze card '{card.id}' has no deletion, so Anki would make no card for it; "
                                    "mark one as {{c1::answer}}", path=deck.path, line=card.position.line,
                                    column=card.position.column, code="export")
            fields = fields_for(card, deck.id, document_html)
            tags = tags_for(card)
            mtime = stamper.note_time(guid, content_hash(model_ids[card.type], fields, tags), label=label,
                                      kind=card.type)
            notes.append(PlannedNote(deck, card, guid, fields, tags, mtime))
            if progress is not None:
                progress("preparing", len(notes), total)
    return plan


def write_package(plan: ExportPlan, output: Path, *, now: float, progress: Progress | None = None,
                  finish: Callable[[sqlite3.Connection], None] | None = None) -> None:
    """Write the planned notes to ``output`` atomically: the old file stays until the new one is whole.

    ``finish`` sees the package's collection after genanki wrote it and before it is
    zipped (the schedules of an export with progress go in there)."""
    models = {
        card_type: LedgerModel(note_type, plan.notetype_times[card_type])
        for card_type, note_type in NOTE_TYPES.items()
    }
    total = len(plan.notes)
    written = itertools.count(1)
    report = (lambda: progress("writing", next(written), total)) if progress else None

    parent = genanki.Deck(PARENT_DECK_ID, PARENT_DECK_NAME, description="Question banks exported by studyapp.")
    anki_decks = {deck.id: LedgerDeck(anki_deck_id(deck.id), plan.deck_names[deck.id],
                                      description=_description(deck)) for deck in plan.decks}
    for position, note in enumerate(plan.notes):
        anki_decks[note.deck.id].add_note(LedgerNote(
            model=models[note.card.type], fields=note.fields, tags=note.tags, guid=note.guid,
            # New cards come up in the order of the bank, siblings together.
            due=position, mtime=note.mtime, on_written=report, card_ids=item_card_ids(note.deck.id, note.card),
        ))
    package = genanki.Package([parent, *anki_decks.values()])
    _write_atomically(package, Path(output), now, finish)


def item_card_ids(deck_id: str, card: Card) -> dict[int, int]:
    """Card ord -> Anki card id for each of ``card``'s items: ords follow ``Card.variants()``
    (cloze ``cN`` is ord N - 1), the id is ``anki_card_id`` of the item key."""
    if card.type == "cloze":
        return {number - 1: anki_card_id(item_key(deck_id, card.id, f"c{number}")) for number in card.cloze_numbers()}
    return {ord_: anki_card_id(item_key(deck_id, card.id, variant)) for ord_, variant in enumerate(card.variants())}


def _description(deck: Deck) -> str:
    return plain(deck.description)


def check_output(output: Path) -> None:
    """Refuse an output path that cannot work before doing any work (or remembering any times):
    a folder, a missing folder, and anything but a regular file this process may replace."""
    refuse_unless_replaceable(output, example=_example(output))
    folder = output.parent
    if not folder.is_dir():
        raise StudyappError(f"cannot write {output}: the folder {folder} does not exist; create it first")


def _example(output: Path) -> str:
    return "decks.apkg" if output.name in ("", "decks.apkg") or output.is_dir() else f"{output.stem}-export.apkg"


def _write_atomically(package: genanki.Package, output: Path, now: float,
                      finish: Callable[[sqlite3.Connection], None] | None = None) -> None:
    check_output(output)
    try:
        with replacing(output, prefix=f"{TEMP_PREFIX}{output.name}.", before_replace=check_output) as temporary, \
                scratch_folder() as scratch:
            # genanki's own write_to_file leaves its SQLite file behind in /tmp; this does not.
            database = Path(scratch) / "collection.anki2"
            # URIs on: an export with progress attaches the profile read-only (progress._copy_revlog).
            connection = sqlite3.connect(database.as_uri(), uri=True)
            try:
                # A scratch file, deleted if anything fails: no journal and no syncs (genanki's
                # schema alone made a dozen). The package itself is synced before it replaces
                # the old one.
                connection.execute("PRAGMA journal_mode=OFF")
                connection.execute("PRAGMA synchronous=OFF")
                package.write_to_db(connection.cursor(), now, itertools.count(int(now * 1000)))
                if finish is not None:
                    finish(connection)
                connection.commit()
            finally:
                connection.close()
            # Level 1: a sixth of the stored size, at a third of the cost of the default level.
            with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
                archive.write(database, "collection.anki2")
                archive.writestr("media", "{}")
    except OSError as error:
        raise StudyappError(f"cannot write {output}: {error.strerror or error}") from None
    except sqlite3.Error as error:
        # The collection is built in the temporary folder before it is zipped beside the output.
        raise StudyappError(f"cannot write {output}: building its collection in {tempfile.gettempdir()} failed "
                            f"({error}); free space there, or set TMPDIR to a folder with room") from None


def export_anki(decks: list[Deck], output: Path, *, home: Path | None, clock: Callable[[], float] = time.time,
                progress: Progress | None = None, schedule=None) -> ExportResult:
    """Export ``decks`` to ``output``; remember changed notes in ``home``'s ledger (none: remember nothing).

    The shipped ledgers are read from each deck's folder. ``schedule`` (a
    ``progress.Progress``) adds the learner's schedules, review log and options.
    """
    if not decks:
        raise StudyappError("there are no decks to export; add a deck folder with --decks DIR")
    check_output(Path(output))
    # What exports killed with SIGKILL left (their temporary package, their scratch collection).
    remove_leftovers(Path(output).parent, *([Path(home)] if home is not None else []))
    now = clock()
    folders = list(dict.fromkeys(Path(deck.path).resolve().parent for deck in decks))
    shipped = [Ledger.load(shipped_ledger_path(folder)) for folder in folders]
    local_path = local_ledger_path(home) if home is not None else None
    ledger_warning = None
    local = Ledger()
    if local_path is not None:
        try:
            local = Ledger.load(local_path, replaceable=True)
        except StudyappError as error:
            # Losing the local ledger is harmless: changes are stamped again, later.
            ledger_warning = f"{error.format()}; starting a new one"
    stamper = Stamper(shipped, local, int(now))
    staging = None
    if schedule is not None:
        from .progress import start_revlog_staging

        # The review log is numbered in SQLite, in a thread, while the notes are planned and written.
        staging = start_revlog_staging(schedule)
    try:
        return _export_planned(decks, output, home, now, progress, schedule, stamper, local, local_path,
                               ledger_warning, staging)
    finally:
        if staging is not None:
            staging.close()


def _export_planned(decks, output, home, now, progress, schedule, stamper, local, local_path, ledger_warning,
                    staging) -> ExportResult:
    plan = plan_export(decks, stamper, progress)
    changed = bool(stamper.changed_notes or stamper.changed_notetypes)
    if local_path is not None and changed:
        # Remember the times before the package appears: any package a learner can import
        # has its times recorded, so the next change is stamped later still.
        try:
            local_path.parent.mkdir(parents=True, exist_ok=True)
            local.save(local_path)
        except OSError as error:
            ledger_warning = (f"cannot remember export times in {local_path} ({error.strerror or error}); "
                              "a later export may not update the notes changed now")
    finish = None
    if schedule is not None:
        from .progress import write_progress

        def finish(connection):
            write_progress(connection, plan, schedule, now=now, staging=staging)
    write_package(plan, output, now=now, progress=progress, finish=finish)
    return ExportResult(
        path=Path(output), decks=len(decks), notes=len(plan.notes), cards=plan.card_count,
        changed_notes=len(stamper.changed_notes), changed_notetypes=len(stamper.changed_notetypes),
        kind_changes=tuple(stamper.kind_changes), ledger_warning=ledger_warning,
    )
