"""When each exported note and note type last changed, so that Anki re-imports correctly.

Anki replaces a note (or note type) on import only when the package's modification time
is strictly newer than the collection's, in whole seconds. Stamping every note with the
export time, as genanki does, rewrites every note on every import and throws away a
learner's own edits. Instead each note carries the time its content last changed:

- a ledger maps each note's GUID (and each note type's model id) to a hash of what was
  exported and the time that content was first exported;
- unchanged content keeps its time; changed content gets ``max(now, previous + 1)``,
  so that even two exports within one second give the newer one a newer time;
- the ledger that ships beside the decks (``anki-ledger.json`` in a deck folder) holds
  the times of a release, so every learner's export of that release is identical; a
  learner-local ledger in the home folder remembers changes made since.

Regenerate a deck folder's shipped ledger after editing its decks with::

    python -m studyapp.export.ledger update [DECK_FOLDER]

and check it is current with ``python -m studyapp.export.ledger check``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.problems import StudyappError
from .files import TEMP_PREFIX, replacing

LEDGER_NAME = "anki-ledger.json"
SCHEMA = 1
UPDATE_COMMAND = "python -m studyapp.export.ledger update"


@dataclass(frozen=True)
class Entry:
    hash: str
    mtime: int
    # For people reading the file, and to notice a card that changed type.
    label: str = ""
    kind: str = ""

    def to_json(self) -> dict:
        document: dict = {"hash": self.hash, "mtime": self.mtime}
        if self.label:
            document["label"] = self.label
        if self.kind:
            document["kind"] = self.kind
        return document

    def to_line(self) -> str:
        """``json.dumps(self.to_json(), ensure_ascii=False)``, five times faster: a ledger has a line per note."""
        if type(self.mtime) is not int or not all(type(v) is str for v in (self.hash, self.label, self.kind)):
            return json.dumps(self.to_json(), ensure_ascii=False)
        line = f'{{"hash": {_json_text(self.hash)}, "mtime": {self.mtime}'
        if self.label:
            line += f', "label": {_json_text(self.label)}'
        if self.kind:
            line += f', "kind": {_json_text(self.kind)}'
        return line + "}"


# The string encoders json.dumps itself uses (C-accelerated), without its per-call setup.
_json_text = json.encoder.encode_basestring  # ensure_ascii=False
_json_key = json.encoder.encode_basestring_ascii  # the default, ensure_ascii=True


@dataclass
class Ledger:
    notes: dict[str, Entry] = field(default_factory=dict)
    notetypes: dict[str, Entry] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, *, replaceable: bool = False) -> Ledger:
        """The ledger at ``path``; empty when there is none. Raises StudyappError when unreadable.

        ``replaceable``: the learner's own ledger, which the caller replaces rather than asks about."""
        advice = "" if replaceable else "; " + _MOVE_ASIDE.format(path=path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError) as error:
            raise StudyappError(f"cannot read the Anki export ledger: {_reason(error)}", path=path, line=1, column=1,
                                code="ledger") from None
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise StudyappError(f"the Anki export ledger is not valid JSON: {error.msg}{advice}",
                                path=path, line=error.lineno, column=error.colno, code="ledger") from None
        except RecursionError:
            # A ledger is three levels deep; the parser gives up near a thousand.
            raise StudyappError(f"the Anki export ledger is nested far deeper than a ledger is (three levels), so it "
                                f"is no ledger studyapp wrote{advice}", path=path, line=1,
                                column=1, code="ledger") from None
        try:
            if document.get("schema") != SCHEMA:
                raise ValueError(f"schema {document.get('schema')!r} is not {SCHEMA}")
            return cls(
                notes={str(k): _entry(v) for k, v in document.get("notes", {}).items()},
                notetypes={str(k): _entry(v) for k, v in document.get("notetypes", {}).items()},
            )
        except (AttributeError, TypeError, ValueError, KeyError, OverflowError) as error:
            raise StudyappError(f"the Anki export ledger has an unexpected shape ({error}){advice}", path=path,
                                line=1, column=1,
                                code="ledger") from None

    def to_text(self) -> str:
        """JSON with one entry per line, in a stable order, so that diffs stay readable."""
        def block(entries: dict[str, Entry]) -> str:
            ordered = sorted(entries.items(), key=lambda kv: (kv[1].label, kv[0]))
            lines = [f"    {_json_key(k) if type(k) is str else json.dumps(k)}: {e.to_line()}" for k, e in ordered]
            return "{\n" + ",\n".join(lines) + "\n  }" if lines else "{}"

        return (
            "{\n"
            f'  "schema": {SCHEMA},\n'
            f'  "about": {json.dumps(f"When each exported Anki note last changed; regenerate with: {UPDATE_COMMAND}")},\n'
            f'  "notetypes": {block(self.notetypes)},\n'
            f'  "notes": {block(self.notes)}\n'
            "}\n"
        )

    def save(self, path: Path) -> None:
        """Write atomically: a reader sees the old ledger or the new one, never half of one."""
        write_atomically(Path(path), self.to_text().encode("utf-8"))


# Whole seconds, as Anki keeps modification times; past the year 9999 no calendar shows it and
# past 2**63 SQLite cannot hold it.
MAX_MTIME = 253_402_300_799
_MOVE_ASIDE = ("regenerate it with '" + UPDATE_COMMAND + "', or move it aside (mv {path} {path}.broken) and export "
               "again: export works without it, though Anki may then update notes it imported before (replacing "
               "edits made to them in Anki)")


def _entry(value) -> Entry:
    mtime = value["mtime"]
    if type(mtime) is not int or not 0 <= mtime <= MAX_MTIME:
        raise ValueError(f"mtime {mtime!r} is not whole seconds from 0 to {MAX_MTIME}")
    return Entry(str(value["hash"]), mtime, str(value.get("label", "")), str(value.get("kind", "")))


def _reason(error: OSError | UnicodeDecodeError) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return "not UTF-8 text"


def write_atomically(path: Path, data: bytes) -> None:
    # Named as an export's temporary files are, so that one a kill left is removed by the next export.
    with replacing(path, prefix=f"{TEMP_PREFIX}{path.name}.") as temporary:
        temporary.write_bytes(data)


class Stamper:
    """Decides each note's and note type's modification time from the ledgers.

    ``shipped`` are read-only ledgers from the deck folders; ``local`` records every
    time this stamper hands out for new or changed content. For each key the latest
    entry across all ledgers is what this learner last exported (a release's time, or a
    later local change), and is the one compared against.
    """

    def __init__(self, shipped: list[Ledger], local: Ledger, now: int):
        self.shipped = shipped
        self.local = local
        self.now = int(now)
        self.changed_notes: list[str] = []
        self.changed_notetypes: list[str] = []
        self.kind_changes: list[tuple[str, str, str]] = []  # (label, old kind, new kind)

    def note_time(self, guid: str, content_hash: str, *, label: str = "", kind: str = "") -> int:
        # _latest, unrolled: this runs once per note.
        previous = None
        for ledger in (*self.shipped, self.local):
            entry = ledger.notes.get(guid)
            if entry is not None and (previous is None or (entry.mtime, entry.hash == content_hash)
                                      > (previous.mtime, previous.hash == content_hash)):
                previous = entry
        if previous is not None and previous.kind and kind and previous.kind != kind:
            self.kind_changes.append((label, previous.kind, kind))
        if previous is not None and previous.hash == content_hash:
            return previous.mtime
        mtime = self.now if previous is None else max(self.now, previous.mtime + 1)
        self.local.notes[guid] = Entry(content_hash, mtime, label, kind)
        self.changed_notes.append(guid)
        return mtime

    def notetype_time(self, model_id: int, content_hash: str, *, label: str = "") -> int:
        key = str(model_id)
        previous = self._latest([ledger.notetypes.get(key) for ledger in (*self.shipped, self.local)], content_hash)
        if previous is not None and previous.hash == content_hash:
            return previous.mtime
        mtime = self.now if previous is None else max(self.now, previous.mtime + 1)
        self.local.notetypes[key] = Entry(content_hash, mtime, label)
        self.changed_notetypes.append(key)
        return mtime

    @staticmethod
    def _latest(entries: list[Entry | None], content_hash: str) -> Entry | None:
        present = [e for e in entries if e is not None]
        if not present:
            return None
        # On a tie, the entry that matches the content wins: it needs no new time.
        return max(present, key=lambda e: (e.mtime, e.hash == content_hash))


def shipped_ledger_path(deck_folder: Path) -> Path:
    return Path(deck_folder) / LEDGER_NAME


def local_ledger_path(home: Path) -> Path:
    return Path(home) / LEDGER_NAME


# -- the maintainer's command -------------------------------------------------


def update_folder(folder: Path, now: int) -> tuple[Ledger, Stamper]:
    """Restamp ``folder``'s shipped ledger against its own decks (no learner's ledger involved)."""
    from ..core.catalog import load_paths
    from .anki import plan_export

    catalog = load_paths([folder])
    if catalog.errors:
        raise StudyappError("; ".join(p.format() for p in catalog.errors[:5])
                            + ("; ..." if len(catalog.errors) > 5 else "")
                            + f"; fix the decks in {folder} first ('studyapp check {folder}')")
    path = shipped_ledger_path(folder)
    ledger = Ledger.load(path)
    stamper = Stamper([], ledger, now)
    plan_export(catalog.decks, stamper)
    return ledger, stamper


def main(argv: list[str] | None = None, clock: Callable[[], float] | None = None) -> int:
    import argparse
    import time

    from ..core.catalog import bundled_decks_dir

    parser = argparse.ArgumentParser(prog="python -m studyapp.export.ledger",
                                     description="Maintain the Anki export ledger shipped beside a deck folder.")
    parser.add_argument("action", choices=("update", "check"),
                        help="update: restamp changed notes and write the ledger; check: exit 1 if it is stale")
    parser.add_argument("folder", nargs="?", type=Path, default=None,
                        help="the deck folder (default: the bundled decks)")
    args = parser.parse_args(argv)
    folder = args.folder or bundled_decks_dir()
    try:
        ledger, stamper = update_folder(folder, int((clock or time.time)()))
        path = shipped_ledger_path(folder)
        stale = len(stamper.changed_notes) + len(stamper.changed_notetypes)
        if args.action == "check":
            if stale:
                print(f"{path}: error: {stale} notes or note types changed since the ledger was written; "
                      f"run '{UPDATE_COMMAND} {folder}'", file=sys.stderr)
                return 1
            print(f"{path}: up to date")
            return 0
        ledger.save(path)
    except StudyappError as error:
        print(error.format(), file=sys.stderr)
        return 1
    except OSError as error:
        print(f"studyapp: error: cannot write {shipped_ledger_path(folder)}: {error.strerror or error}", file=sys.stderr)
        return 1
    for label, old, new in stamper.kind_changes:
        print(f"{path}: warning: card {label} changed from {old} to {new}; Anki keeps the old note on import "
              "(a conflict); give the card a new id instead", file=sys.stderr)
    print(f"{path}: {len(stamper.changed_notes)} notes and {len(stamper.changed_notetypes)} note types restamped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
