"""A bank from the notes of an Anki package.

Read: Anki's Basic, Basic (and reversed card), Basic (optional reversed card), Basic (type in the
answer) and Cloze note types, recognised by their shape (a cloze note type; one template, or two
whose second asks the second field) rather than by name, which Anki translates and users rename;
and studyapp's own note types (by their fixed ids), whose notes come back as the cards they were
exported from, ids and all. Any other note type stops the import, naming its notes.

Media files the notes use are copied into a folder beside the bank (``ID-media/``); the HTML that
shows them has no plain-text form and is kept as written, and reported.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..anki.package import Note, NoteType, Package, read_package
from ..export.notetypes import NOTE_TYPES
from .bank import Draft, Import, default_deck_id, safe_media_name
from .html_text import html_to_text

KNOWN = "Basic, Basic (and reversed card), Basic (optional reversed card), Basic (type in the answer), Cloze"
_FIELD_REF = re.compile(r"\{\{([^#/^!{}][^{}]*)\}\}")
_MEDIA_REF = re.compile(r"""<(?:img|audio|video|source)\b[^>]*\bsrc=["']?([^"'>\s]+)|\[sound:([^\]]+)\]""", re.I)
STUDYAPP_MODELS = {note_type.model_id: card_type for card_type, note_type in NOTE_TYPES.items()}


def _refs(template: str) -> list[str]:
    return [ref.split(":")[-1].strip() for ref in _FIELD_REF.findall(template)]


def shape(notetype: NoteType) -> str | None:
    """basic, reverse, optional-reverse or cloze for the note types this import reads; None otherwise."""
    if notetype.id in STUDYAPP_MODELS:
        return "studyapp"
    if notetype.cloze:
        # Anki's cloze, not a cloze-kind type that draws something else (Image Occlusion's canvas).
        question = notetype.templates[0].question if notetype.templates else ""
        plain_cloze = bool(notetype.fields) and "<script" not in question.lower() and \
            notetype.fields[0] in [ref for ref in _refs(question)] and "{{cloze:" in question
        return "cloze" if plain_cloze else None
    if len(notetype.fields) < 2:
        return None
    first, second = notetype.fields[0], notetype.fields[1]
    templates = notetype.templates
    if len(templates) == 1 and first in _refs(templates[0].question):
        return "basic"
    if len(templates) == 2 and first in _refs(templates[0].question) and second in _refs(templates[1].question):
        conditional = re.search(r"\{\{#([^}]+)\}\}", templates[1].question)
        if conditional and conditional.group(1).strip() not in (first, second):
            return "optional-reverse"
        return "reverse"
    return None


def import_anki_deck(path: Path, deck_id: str | None = None, title: str | None = None) -> Import:
    path = Path(path)
    package = read_package(path)
    result = Import(path, deck_id or default_deck_id(path), title or path.stem)
    shapes = {notetype_id: shape(notetype) for notetype_id, notetype in package.notetypes.items()}
    for note in package.notes:
        kind = shapes.get(note.notetype_id)
        if kind is None:
            name = package.notetypes[note.notetype_id].name if note.notetype_id in package.notetypes else "(missing)"
            result.error(note.position, "unknown-note-type",
                         f"note {note.position} (id {note.id}) is of note type {name!r}, which this import does not read "
                         f"(it reads {KNOWN}); nothing was written")
    if not result.ok:
        return result
    studyapp_notes = [note for note in package.notes if shapes[note.notetype_id] == "studyapp"]
    if studyapp_notes:
        _studyapp_deck(package, studyapp_notes, result, deck_id, title)
    for note in package.notes:
        kind = shapes[note.notetype_id]
        if kind == "studyapp":
            _studyapp_note(note, result)
        else:
            _standard_note(note, kind, result)
    _copy_media(package, result)
    return result


def _text(value: str, note: Note, result: Import) -> str:
    text, kept = html_to_text(value)
    for piece in kept:
        result.warn(note.position, "kept-markup",
                    f"note {note.position} (id {note.id}): {piece!r} has no plain-text form; it is kept as written")
    return text


def _tags(note: Note, drop: set[str] = frozenset()) -> list[str]:
    return [tag for tag in note.tags if tag.casefold() not in drop and not tag.startswith("studyapp::")]


def _standard_note(note: Note, kind: str, result: Import) -> None:
    fields = note.fields
    if kind == "cloze":
        text = _text(fields[0], note, result)
        extra = _text(fields[1], note, result) if len(fields) > 1 else ""
        result.drafts.append(Draft("cloze", {"text": text, "explanation": extra, "tags": _tags(note)}, note.position))
        return
    front, back = _text(fields[0], note, result), _text(fields[1], note, result)
    if kind == "optional-reverse":
        kind = "reverse" if len(fields) > 2 and fields[2].strip() else "basic"
    result.drafts.append(Draft(kind, {"front": front, "back": back, "tags": _tags(note)}, note.position))


def _studyapp_deck(package: Package, notes: list[Note], result: Import, deck_id: str | None, title: str | None) -> None:
    """The deck an export of studyapp came from: its id from the notes' Id field, its tags those all share."""
    first = html_to_text(notes[0].fields[5])[0] if len(notes[0].fields) > 5 else ""
    if not deck_id and "/" in first:
        result.deck_id = first.split("/", 1)[0]
    if not title and notes[0].deck_ids:
        name = package.decks.get(notes[0].deck_ids[0], "")
        if name:
            result.title = name.split("::")[-1]
    shared = None
    for note in notes:
        tags = {tag for tag in note.tags if not tag.startswith("studyapp::")}
        shared = tags if shared is None else shared & tags
    if len(notes) > 1 and shared:
        result.tags = [tag for tag in notes[0].tags if tag in shared]


def _studyapp_note(note: Note, result: Import) -> None:
    question, answer, explanation, source, _document, identity = (list(note.fields) + [""] * 7)[:6]
    card_type = next((STUDYAPP_MODELS[mid] for mid in STUDYAPP_MODELS if mid == note.notetype_id), "basic")
    card_id = html_to_text(identity)[0].split("/", 1)[-1] or None
    quotes = [line for line in html_to_text(source)[0].split("\n") if line.strip()]
    fields: dict = {}
    if card_type == "choice":
        fields.update(_choice(question, answer, note, result))
    elif card_type == "truefalse":
        fields["statement"] = _text(question, note, result)
        fields["answer"] = _text(answer, note, result) == "True"
    elif card_type == "cloze":
        fields["text"] = _text(question, note, result)
    else:
        fields["front"] = _text(question, note, result)
        fields["back"] = _text(answer, note, result)
    fields["explanation"] = _text(explanation, note, result)
    fields["source"] = quotes[0] if len(quotes) == 1 else quotes
    fields["tags"] = _tags(note, {tag.casefold() for tag in result.tags})
    result.drafts.append(Draft(card_type, fields, note.position, id=card_id))


_OPTION = re.compile(r"<li>(.*?)</li>", re.S)
_CORRECT = re.compile(r'<div class="correct">([A-J])\. ', re.S)
_FEEDBACK = re.compile(r'<li><span class="option">([A-J])\. .*?</span>: (.*?)</li>', re.S)


def _choice(question: str, answer: str, note: Note, result: Import) -> dict:
    """A studyapp choice note back into front, choices, answer and feedback (see export/fields.py)."""
    head, _, options_html = question.partition('<ol class="choices" type="A">')
    options = [_text(option, note, result) for option in _OPTION.findall(options_html)]
    correct = _CORRECT.search(answer)
    letters = "ABCDEFGHIJ"
    fields: dict = {"front": _text(head, note, result), "choices": options}
    if correct and letters.index(correct.group(1)) < len(options):
        fields["answer"] = options[letters.index(correct.group(1))]
    feedback = {}
    for letter, why in _FEEDBACK.findall(answer.partition('<ul class="feedback">')[2]):
        if letters.index(letter) < len(options):
            feedback[options[letters.index(letter)]] = _text(why, note, result)
    if feedback:
        fields["feedback"] = feedback
    return fields


def _copy_media(package: Package, result: Import) -> None:
    used: set[str] = set()
    for note in package.notes:
        for value in note.fields:
            for match in _MEDIA_REF.finditer(value):
                used.add(match.group(1) or match.group(2))
    for name in sorted(used):
        if name not in package.media:
            result.warn(1, "missing-media", f"media file {name!r} is used by a note but not in the package")
            continue
        safe = safe_media_name(name)
        if safe is None:
            result.warn(1, "unsafe-media-name", f"media file {name!r} is not copied: its name is not a plain file name")
            continue
        result.media[safe] = package.media_bytes(name)
