"""A bank from a CSV or TSV file, read the way Anki's text import reads one.

Columns are front, back and tags (space-separated) unless a header row names them, ``--columns``
does, or the file starts with the ``#key:value`` lines of Anki's own "Notes in Plain Text" export
(``#separator:tab``, ``#html:true``, ``#tags column:3``, ``#notetype column:2``, ``#guid column:1``,
``#deck column:3``). Fields are plain text unless the file says ``#html:true``; a front holding a
``{{c1::...}}`` deletion, or a row whose note type is Cloze, makes a cloze card.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .bank import Draft, Import, default_deck_id
from .html_text import html_to_text

SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "space": " ", "pipe": "|", "colon": ":"}
COLUMN_NAMES = {"front": "front", "question": "front", "text": "front", "back": "back", "answer": "back",
                "back extra": "back", "extra": "back", "tags": "tags", "tag": "tags", "notetype": "notetype",
                "note type": "notetype", "deck": "deck", "guid": "guid", "explanation": "explanation", "-": "-", "skip": "-"}
NOTE_TYPES = {"basic": "basic", "basic (type in the answer)": "basic", "basic (and reversed card)": "reverse",
              "basic (optional reversed card)": "optional-reverse", "cloze": "cloze",
              "studyapp basic v1": "basic", "studyapp reverse v1": "reverse", "studyapp cloze v1": "cloze"}
MAX_BYTES = 64 * 1024 * 1024


def decode(data: bytes, path: Path, result: Import) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        result.error(line, "encoding", f"byte 0x{data[error.start]:02x} is not UTF-8 text; save the file as UTF-8 "
                                       "(Anki's exports are) and import it again; nothing was written")
        return None


def read_input(path: Path) -> bytes:
    import os
    import stat

    from ..core.problems import StudyappError

    try:
        info = os.stat(path)
    except OSError as error:
        raise StudyappError(f"cannot read it: {error.strerror}", path=path) from None
    if not stat.S_ISREG(info.st_mode):
        raise StudyappError("it is not a regular file", path=path)
    if info.st_size > MAX_BYTES:
        raise StudyappError(f"it is {info.st_size} bytes, more than the {MAX_BYTES} an import reads", path=path)
    return Path(path).read_bytes()


def import_csv(path: Path, deck_id: str | None = None, title: str | None = None, columns: str | None = None,
               delimiter: str | None = None) -> Import:
    path = Path(path)
    result = Import(path, deck_id or default_deck_id(path), title or path.stem)
    text = decode(read_input(path), path, result)
    if text is None:
        return result
    lines = text.splitlines(keepends=True)
    headers: dict[str, str] = {}
    skipped = 0
    for line in lines:
        stripped = line.rstrip("\r\n")
        if not stripped.startswith("#") or ":" not in stripped:
            break
        key, value = stripped[1:].split(":", 1)
        headers[key.strip().lower()] = value.strip()
        skipped += 1
    html = headers.get("html", "false").lower() == "true"
    separator = SEPARATORS.get(delimiter or "") or _separator(headers.get("separator"), lines[skipped:skipped + 5])
    body = "".join(lines[skipped:])
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator, quotechar='"')
    rows: list[tuple[int, list[str]]] = []
    previous = 0
    try:
        for row in reader:
            start = skipped + previous + 1
            previous = reader.line_num
            if not row or all(not cell.strip() for cell in row):
                continue
            rows.append((start, row))
    except csv.Error as error:
        result.error(skipped + reader.line_num, "csv", f"{error}; nothing was written")
        return result
    if not rows:
        return result
    names = _columns(columns, headers, rows, result)
    if names is None:
        return result
    declared = bool(columns)
    if names is True:  # the first row named the columns
        names = [COLUMN_NAMES[cell.strip().lower()] for cell in rows[0][1]]
        rows = rows[1:]
        declared = True
    expected = len(names) if declared else len(rows[0][1]) if rows else 0
    for line, row in rows:
        if len(row) != expected:
            result.error(line, "ragged-row", f"this row has {len(row)} columns where the file's rows have {expected} "
                                             f"(separator {_name(separator)}); quote a field that holds the separator")
    if not result.ok:
        return result
    for line, row in rows:
        _row(dict(zip(names, row)) if len(names) == len(row) else _by_position(names, row), line, html, result)
    return result


def _by_position(names: list[str], row: list[str]) -> dict[str, str]:
    return {name: row[i] for i, name in enumerate(names) if i < len(row)}


def _name(separator: str) -> str:
    return next((name for name, char in SEPARATORS.items() if char == separator), repr(separator))


def _separator(declared: str | None, sample: list[str]) -> str:
    if declared:
        return SEPARATORS.get(declared.lower(), declared[:1] or "\t")
    for candidate in ("\t", ";", ","):
        counts = {next(csv.reader([line], delimiter=candidate)).__len__() for line in sample if line.strip()}
        if len(counts) == 1 and counts.pop() >= 2:
            return candidate
    return "\t" if any("\t" in line for line in sample) else ","


def _columns(option: str | None, headers: dict[str, str], rows, result: Import):
    """The role of each column: from --columns, Anki's header lines, a header row (True), or the default."""
    if option:
        names = [part.strip().lower() for part in option.split(",")]
        unknown = [name for name in names if name not in COLUMN_NAMES]
        if unknown:
            from ..core.problems import StudyappError

            raise StudyappError(f"--columns: {', '.join(unknown)} is not a column this import knows; use front, back, "
                                "tags, notetype, deck, guid, explanation or - to skip a column", code="usage")
        return [COLUMN_NAMES[name] for name in names]
    if any(key.endswith(" column") for key in headers):
        width = max(len(row) for _, row in rows)
        roles: list[str | None] = [None] * width
        for key, value in headers.items():
            if key.endswith(" column") and value.isdigit() and 1 <= int(value) <= width:
                roles[int(value) - 1] = {"tags column": "tags", "notetype column": "notetype", "deck column": "deck",
                                         "guid column": "guid"}.get(key, "-")
        fields = iter(("front", "back", "explanation"))
        return [role or next(fields, "-") for role in roles]
    first = [cell.strip().lower() for cell in rows[0][1]]
    if first and all(cell in COLUMN_NAMES for cell in first) and "front" in {COLUMN_NAMES[c] for c in first}:
        return True
    return ["front", "back", "tags"][:max(len(row) for _, row in rows)] + ["-"] * (max(len(row) for _, row in rows) - 3)


def _row(cells: dict[str, str], line: int, html: bool, result: Import) -> None:
    def text(name: str) -> str:
        value = cells.get(name, "")
        if not html:
            return value.strip()
        plain, kept = html_to_text(value)
        for piece in kept:
            result.warn(line, "kept-markup", f"{piece!r} has no plain-text form; it is kept as written in the card")
        return plain

    front, back = text("front"), text("back")
    tags = cells.get("tags", "").split()
    kind = "basic"
    notetype = cells.get("notetype", "").strip()
    if notetype:
        kind = NOTE_TYPES.get(notetype.lower())
        if kind is None:
            known = "Basic, Basic (and reversed card), Basic (optional reversed card), Basic (type in the answer), Cloze"
            result.error(line, "unknown-note-type", f"note type {notetype!r} is not one this import reads ({known}); "
                                                    "nothing was written")
            return
        if kind == "optional-reverse":
            kind = "basic"
    elif "{{c" in front and "::" in front:
        kind = "cloze"
    if not front:
        result.error(line, "empty", "the front (first field) is empty; fill it or remove the row")
        return
    if kind == "cloze":
        fields = {"text": front, "explanation": back, "tags": tags}
    else:
        if not back:
            result.error(line, "empty", "the back (second field) is empty; fill it or remove the row")
            return
        fields = {"front": front, "back": back, "explanation": text("explanation"), "tags": tags}
    result.drafts.append(Draft(kind, fields, line))
