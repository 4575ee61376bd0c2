"""A bank from a Markdown file of cards in the style of hashcards.

    Q: What is the capital of France?
    A: Paris

    C: [Paris] is the capital of [France].

A card starts at a line beginning ``Q:`` (its answer at the next ``A:``) or ``C:`` and runs to the
next card; both sides may span lines. In a ``C:`` card each ``[bracketed]`` span is a deletion
(hashcards makes one card per deletion, as studyapp does per cloze number); a Markdown link or
image (``[text](url)``, ``![alt](src)``) is not. A ``---`` front matter block may name the deck
(``name = "..."``); a first ``# heading`` before any card is taken as the title.
"""

from __future__ import annotations

import re
from pathlib import Path

from .bank import Draft, Import, default_deck_id
from .import_csv import decode, read_input

_DELETION = re.compile(r"(?<!!)(?<!\\)\[([^\[\]\n]+)\](?!\()")


def import_markdown(path: Path, deck_id: str | None = None, title: str | None = None) -> Import:
    path = Path(path)
    result = Import(path, deck_id or default_deck_id(path), title or path.stem)
    text = decode(read_input(path), path, result)
    if text is None:
        return result
    lines = text.replace("\r\n", "\n").split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            result.error(1, "front-matter", "the front matter opened with '---' is never closed; add a '---' line")
            return result
        for line in lines[1:end]:
            match = re.match(r"\s*name\s*[=:]\s*[\"']?(.*?)[\"']?\s*$", line)
            if match and not title:
                result.title = match.group(1)
        start = end + 1
    card: dict | None = None
    for number, line in enumerate(lines[start:], start + 1):
        tag = line[:2]
        if tag in ("Q:", "C:"):
            _finish(card, result)
            card = {"kind": tag[0], "line": number, "question": [line[2:].strip()], "answer": None}
        elif tag == "A:":
            if card is None or card["kind"] != "Q" or card["answer"] is not None:
                result.error(number, "answer-without-question", "'A:' must follow a 'Q:' question; add the 'Q:' line")
                continue
            card["answer"] = [line[2:].strip()]
        elif card is None:
            if line.startswith("# ") and not title and not result.drafts:
                result.title = line[2:].strip()
            elif line.strip():
                result.error(number, "text-outside-card", "this text belongs to no card; start a card with 'Q:' or 'C:', "
                                                          "or remove it")
        elif card["answer"] is not None:
            card["answer"].append(line)
        else:
            card["question"].append(line)
    _finish(card, result)
    return result


def _joined(parts: list[str]) -> str:
    return "\n".join(parts).strip()


def _finish(card: dict | None, result: Import) -> None:
    if card is None:
        return
    question = _joined(card["question"])
    if card["kind"] == "Q":
        if card["answer"] is None:
            result.error(card["line"], "question-without-answer", "this 'Q:' card has no 'A:' answer; add one")
            return
        answer = _joined(card["answer"])
        if not question or not answer:
            result.error(card["line"], "empty", "a side of this card is empty; write it or remove the card")
            return
        result.drafts.append(Draft("basic", {"front": question, "back": answer}, card["line"]))
        return
    deletions = list(_DELETION.finditer(question))
    if not deletions:
        result.error(card["line"], "cloze-none", "this 'C:' card has no [bracketed] deletion; bracket the text to hide")
        return
    numbered, position, out = 0, 0, []
    for match in deletions:
        numbered += 1
        out.append(question[position:match.start()])
        out.append("{{c%d::%s}}" % (numbered, match.group(1)))
        position = match.end()
    out.append(question[position:])
    result.drafts.append(Draft("cloze", {"text": "".join(out)}, card["line"]))
