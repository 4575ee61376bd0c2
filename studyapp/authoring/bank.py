"""Writing a new bank from cards drafted out of another format (CSV, Markdown, an Anki package).

Cards keep the order and the text they came with. Their ids are stable: made from the question's
words (or, without Latin words, from a hash of it), so importing the same file again gives the same
ids, and an id a studyapp export carried is kept as it was. The bank is checked by the deck loader
before it is put in place: every problem is reported against the input's own lines, and a bank with
an error is never written, nor is any of its media.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..core.loader import SLUG_RE, load_deck
from ..core.problems import ERROR, WARNING, Problem, StudyappError

MAX_ID_WORDS = 6
MAX_ID_CHARS = 48
CARD_KEY_ORDER = ("id", "type", "front", "back", "text", "statement", "choices", "answer", "feedback",
                  "accept", "explanation", "source", "tags")


@dataclass
class Draft:
    """One card as it came from the input, before it has an id."""

    type: str
    fields: dict
    line: int  # where it starts in the input (a note's position in a package)
    id: str | None = None  # an id the input carried (a studyapp export's Id field)

    @property
    def question(self) -> str:
        return str(self.fields.get("front") or self.fields.get("text") or self.fields.get("statement") or "")


@dataclass
class Import:
    """What an importer produced: the bank's cards and what it noticed on the way."""

    source: Path
    deck_id: str
    title: str
    drafts: list[Draft] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    media: dict[str, bytes] = field(default_factory=dict)

    def warn(self, line: int, code: str, message: str) -> None:
        self.problems.append(Problem(str(self.source), line, 1, WARNING, code, message))

    def error(self, line: int, code: str, message: str) -> None:
        self.problems.append(Problem(str(self.source), line, 1, ERROR, code, message))

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.problems)


def id_from_text(text: str) -> str:
    from ..core.models import CLOZE_RE

    text = CLOZE_RE.sub(lambda m: m.group(2), text)
    words = re.findall(r"[a-z0-9]+", text.lower())[:MAX_ID_WORDS]
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > MAX_ID_CHARS:
            break
        slug = candidate
    if slug:
        return slug
    return "card-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def assign_ids(drafts: list[Draft]) -> list[str]:
    """An id per draft: its own when it carried a valid one, else from its question; repeats numbered."""
    ids: list[str] = []
    taken: set[str] = {d.id for d in drafts if d.id and SLUG_RE.match(d.id)}
    used: set[str] = set()
    for draft in drafts:
        if draft.id and SLUG_RE.match(draft.id) and draft.id not in used:
            ids.append(draft.id)
            used.add(draft.id)
            continue
        base = id_from_text(draft.question)
        candidate, number = base, 2
        while candidate in used or (candidate in taken and candidate != draft.id):
            candidate, number = f"{base}-{number}", number + 1
        ids.append(candidate)
        used.add(candidate)
    return ids


def default_deck_id(path: Path) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", path.stem.lower()))


def _dumper():
    import yaml

    class BankDumper(yaml.SafeDumper):
        """Multi-line texts as literal blocks, the way an author writes them."""

    def text(dumper, value: str):
        style = "|" if "\n" in value and not value.endswith((" ", "\t")) and value == value.strip("\n") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    BankDumper.add_representer(str, text)
    return BankDumper


def bank_text(result: Import, command: str) -> tuple[str, list[int]]:
    """The bank's YAML, and the line where each card starts in it."""
    import yaml

    dumper = _dumper()
    ids = assign_ids(result.drafts)
    cards = []
    for draft, card_id in zip(result.drafts, ids):
        card = {"id": card_id, "type": draft.type, **draft.fields}
        cards.append({key: card[key] for key in CARD_KEY_ORDER if key in card and card[key] not in (None, "", [], {})})
    document: dict = {"schema": 1, "id": result.deck_id, "title": result.title}
    if result.tags:
        document["tags"] = list(result.tags)
    head = (f"# Imported from {result.source.name} by 'studyapp {command}'. It names no source document, so its\n"
            "# quotes are not verified: add 'seed: ../seeds/FILE.md' and quote it in each card's 'source'.\n")
    body = yaml.dump(document, Dumper=dumper, allow_unicode=True, sort_keys=False, width=100)
    lines = [head + body + "cards:\n"]
    starts = []
    line = (head + body).count("\n") + 2
    for card in cards:
        chunk = yaml.dump([card], Dumper=dumper, allow_unicode=True, sort_keys=False, width=100)
        chunk = "".join("  " + row + "\n" for row in chunk.splitlines())
        starts.append(line)
        line += chunk.count("\n")
        lines.append(chunk)
    return "".join(lines), starts


def write_bank(result: Import, output: Path, command: str) -> list[Problem]:
    """Check the bank and put it (and its media) in place; every problem, mapped to the input's lines.

    Nothing is written when the input or the bank has an error."""
    output = Path(output)
    if output.exists():
        raise StudyappError("the file already exists; choose another with -o, or remove it first", path=output)
    if not result.ok:
        return result.problems
    if not result.drafts:
        result.error(1, "no-cards", "no cards found in the file; nothing was written")
        return result.problems
    text, starts = bank_text(result, command)
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(f".{output.name}.import-{os.getpid()}")
    media_temporary = output.with_name(f".{output.stem}-media.import-{os.getpid()}")
    media_dir = output.with_name(f"{output.stem}-media")
    try:
        temporary.write_text(text, encoding="utf-8")
        loaded = load_deck(temporary)
        for problem in loaded.problems:
            if problem.code == "no-source":
                continue
            index = max(0, sum(1 for start in starts if start <= problem.line) - 1)
            draft_line = result.drafts[index].line if starts and problem.line >= starts[0] else 1
            result.problems.append(Problem(str(result.source), draft_line, 1, problem.severity, problem.code,
                                           problem.message))
        if not result.ok:
            return result.problems
        if result.media:
            if media_dir.exists():
                raise StudyappError(f"{media_dir} already exists; remove it or choose another -o", path=output)
            media_temporary.mkdir()
            for name, data in result.media.items():
                (media_temporary / name).write_bytes(data)
            os.replace(media_temporary, media_dir)
        os.replace(temporary, output)
    finally:
        if temporary.exists():
            temporary.unlink()
        if media_temporary.exists():
            shutil.rmtree(media_temporary)
    return result.problems


def safe_media_name(name: str) -> str | None:
    """A media file's name fit to write in the media folder: no folders, no hidden files."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if not base or base.startswith(".") or base != name or "\x00" in base:
        return None
    return base
