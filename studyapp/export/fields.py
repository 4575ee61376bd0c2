"""Cards to Anki field values: all card text is plain text, never markup.

Anki fields hold HTML, and Anki also reads its own syntax out of that HTML: sound and
TTS tags (``[sound:x]``, ``[anki:tts]``), LaTeX (``[latex]``, ``[$]``), cloze deletions
(``{{c1::x}}``) and MathJax (``\\(x\\)``). A deck author writing any of these means the
characters, so each is neutralised here; the only markup in a field is the structure
this module wraps around escaped text (option lists, line breaks).
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

import yaml
from genanki.util import BASE91_TABLE

from ..core.models import CLOZE_RE, Card, Deck
from ..core.problems import StudyappError
from .notetypes import FIELDS

# Entities Anki shows as the character but does not parse as its own syntax.
_BRACKET = "&#91;"
# A word joiner: invisible, but breaks MathJax's \( \) \[ \] delimiters, which MathJax
# finds in the page's text after entities are decoded.
_WORD_JOINER = "\u2060"
_MATHJAX_RE = re.compile(r"\\([()\[\]])")
_SPECIAL_RE = re.compile(r"[&<>\"'\[{}\\\x00-\x1f\x7f]")
# Control characters show nothing, and \x1f is Anki's field separator: drop them
# (tab and line breaks stay).
_CONTROLS = {c: None for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]}
_BASE91 = "".join(BASE91_TABLE)
_PAIR_BASE = 91 * 91
_BASE91_PAIRS = [high + low for high in _BASE91 for low in _BASE91]
LETTERS = "ABCDEFGHIJ"
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def plain(text: str) -> str:
    """HTML that shows ``text`` exactly as written, and nothing else."""
    if not _SPECIAL_RE.search(text):  # most text: nothing to do, and this is the hot path
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)
    text = _MATHJAX_RE.sub(lambda m: "\\" + _WORD_JOINER + m.group(1), text)
    out = html.escape(text, quote=True)
    out = out.replace("[", _BRACKET)
    out = out.replace("{", "&#123;").replace("}", "&#125;")
    return out.replace("\n", "<br>")


def cloze_part(text: str) -> str:
    """A cloze answer or hint: plain text in which ``::`` and ``}}`` cannot end it early."""
    return plain(text).replace(":", "&#58;")


def cloze_field(text: str) -> str:
    """The cloze text with its deletions kept as Anki syntax and everything else escaped.

    Deletions are found with the same pattern the deck loader and the study app use, so
    Anki makes exactly one card per cloze number the app schedules.
    """
    out: list[str] = []
    position = 0
    for match in CLOZE_RE.finditer(text):
        out.append(plain(text[position:match.start()]))
        deletion = f"{{{{c{int(match.group(1))}::{cloze_part(match.group(2))}"
        if match.group(3) is not None:
            deletion += f"::{cloze_part(match.group(3))}"
        out.append(deletion + "}}")
        position = match.end()
    out.append(plain(text[position:]))
    return "".join(out)


def note_guid(deck_id: str, card_id: str) -> str:
    """Anki's note identity: from the ids only, so that rewording a card updates its note.

    The same value as ``genanki.guid_for("studyapp", deck_id, card_id)`` (a test holds
    them equal), computed in a fraction of the time: it runs once per note. Two base-91
    digits per division halve the loop; the last, most significant part has one digit
    when it is below 91, so there is no leading zero digit, as in genanki.
    """
    digest = hashlib.sha256(f"studyapp__{deck_id}__{card_id}".encode("utf-8")).digest()
    number = int.from_bytes(digest[:8], "big")
    pairs = []
    while number >= _PAIR_BASE:
        number, pair = divmod(number, _PAIR_BASE)
        pairs.append(_BASE91_PAIRS[pair])
    head = _BASE91_PAIRS[number] if number >= 91 else (_BASE91[number] if number else "")
    pairs.append(head)
    return "".join(reversed(pairs))


# fields_for builds the list positionally: fail at import, not in Anki, if FIELDS ever moves.
if FIELDS != ("Question", "Answer", "Explanation", "Source", "Document", "Id", "Spare"):
    raise RuntimeError(f"fields_for needs updating for the note fields {FIELDS}")


def fields_for(card: Card, deck_id: str, document_html: str) -> list[str]:
    """The note's field values, in the order of ``notetypes.FIELDS``; ``document_html`` is the
    document title already escaped (once per deck: this is the export's per-note hot path).

    A card whose learner chose both languages carries its second-language wording too, in a
    ``second`` block under each text (choice options: beside each option).
    """
    second = card.second
    if second is None:
        question, answer = _question_answer(card)
        explanation = plain(card.explanation)
    elif card.type == "choice":
        question, answer = _choice(card, second)
        explanation = _with_second(plain(card.explanation), plain(second.explanation))
    else:
        question, answer = _question_answer(card)
        other_question, other_answer = _question_answer(second)
        question, answer = _with_second(question, other_question), _with_second(answer, other_answer)
        explanation = _with_second(plain(card.explanation), plain(second.explanation))
    source = card.source
    return [
        question,
        answer,
        explanation,
        plain(source[0]) if len(source) == 1 else "<br>".join([plain(quote) for quote in source]),
        document_html,
        plain(f"{deck_id}/{card.id}"),
        "",
    ]


def _question_answer(card: Card) -> tuple[str, str]:
    if card.type == "cloze":
        # The deletions are the answer; the field stays empty rather than repeat them.
        return cloze_field(card.text), ""
    if card.type == "truefalse":
        return plain(card.statement), plain("True" if card.answer else "False")
    if card.type == "choice":
        return _choice(card)
    return plain(card.front), plain(card.back)


def _with_second(main: str, other: str) -> str:
    """``main``, and under it the second language's wording when there is one that differs."""
    if not other or other == main:
        return main
    return f'{main}<div class="second">{other}</div>'


def _beside(main: str, other: str) -> str:
    return main if not other or other == main else f'{main} <span class="second">{other}</span>'


def _choice(card: Card, second: Card | None = None) -> tuple[str, str]:
    # The second language's options are in the same order as the shown ones (one list, two wordings).
    seconds = second.choices if second is not None else ("",) * len(card.choices)
    options = "".join(f"<li>{_beside(plain(choice), plain(other))}</li>" for choice, other in zip(card.choices, seconds))
    front = _with_second(plain(card.front), plain(second.front)) if second is not None else plain(card.front)
    question = f'{front}<ol class="choices" type="A">{options}</ol>'
    letter = {choice: LETTERS[i] for i, choice in enumerate(card.choices)}
    other_of = dict(zip(card.choices, seconds))
    correct = str(card.answer)
    answer = f'<div class="correct">{letter.get(correct, "")}. {_beside(plain(correct), plain(other_of.get(correct, "")))}</div>'
    other_feedback = second.feedback if second is not None else {}
    feedback = [
        f'<li><span class="option">{letter[choice]}. {plain(choice)}</span>: '
        f'{_with_second(plain(card.feedback[choice]), plain(other_feedback.get(other_of[choice], "")))}</li>'
        for choice in card.choices if choice in card.feedback and choice != correct
    ]
    if feedback:
        answer += f'<ul class="feedback">{"".join(feedback)}</ul>'
    return question, answer


def note_tags(card: Card, deck: Deck) -> list[str]:
    """The deck's tags, the card's, then where it comes from and its type (Anki ignores case).

    Escaped as a field's text is: Anki puts a note's tags into any template with ``{{Tags}}`` as
    they are, so a tag ``<img/src=x/onerror=...>`` would run there, and ``[sound:...]`` would play."""
    tags = [*deck.tags, *card.tags, f"studyapp::deck::{deck.id}", f"studyapp::type::{card.type}"]
    seen: set[str] = set()
    unique = []
    for tag in tags:
        if tag.casefold() not in seen:
            seen.add(tag.casefold())
            unique.append(plain(tag))
    return unique


class DeckTags:
    """``note_tags`` for the cards of one deck, worked out once per distinct (card tags, type).

    Most cards of a deck share their tags, so an export of thousands of notes builds a
    handful of tag lists; each call still returns a list of its own.
    """

    def __init__(self, deck: Deck):
        self.deck = deck
        self.known: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}

    def __call__(self, card: Card) -> list[str]:
        key = (tuple(card.tags), card.type)
        tags = self.known.get(key)
        if tags is None:
            tags = tuple(note_tags(card, self.deck))
            for tag in tags:
                if any(ch.isspace() for ch in tag):
                    # Anki splits tags at spaces: "a b" would come back as two tags.
                    raise StudyappError(
                        f"tag {tag!r} of card '{card.id}' contains a space, which Anki would split; use hyphens",
                        path=self.deck.path, line=card.position.line, column=card.position.column, code="export")
            self.known[key] = tags
        return list(tags)


def document_title(deck: Deck) -> str:
    """The source document's title from the seed's front matter, else the deck's title."""
    from ..core.loader import SeedUnreadable, read_seed_file

    if deck.seed_path is None:
        return deck.title
    try:
        text = read_seed_file(Path(deck.seed_path))
    except SeedUnreadable:
        return deck.title
    end = text.find("\n---\n", 3)  # from the newline ending the opening ---: empty front matter closes at once
    if not text.startswith("---\n") or end < 0:
        return deck.title
    try:
        front = yaml.load(text[4:end], Loader=_SafeLoader)
    except yaml.YAMLError:
        return deck.title
    title = front.get("title") if isinstance(front, dict) else None
    return str(title).strip() if isinstance(title, (str, int, float)) and str(title).strip() else deck.title
