"""Text from decks, reports and file names made safe to show on a terminal.

A terminal obeys control characters wherever they come from: ``ESC ] 52 ; c ; ...`` in a
card's text sets the clipboard, ``ESC ] 2 ;`` the window title, ``ESC [ 2K`` erases a line;
C1 characters (U+0080 to U+009F) do the same on terminals that take 8-bit controls, and the
bidirectional overrides reorder what a reader sees (a "Trojan source"). Every text that
studyapp did not write itself goes through :func:`visible` before it reaches a terminal: each
such character is shown as an escape a reader can see (``\\x1b``, ``\\u009b``), never sent.

The escapes are also valid inside a JSON string (``\\u009b``) or already escaped by
``json.dumps`` (C0), so a JSON document on stdout keeps its meaning.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, the C1 block, and the bidirectional embedding,
# override and isolate characters.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
UNSAFE_IN_LINE_RE = re.compile(f"[{_UNSAFE}\t\n]")


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\t":
        return "\\t"
    if char == "\n":
        return "\\n"
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character but tab and newline shown as an escape."""
    if not UNSAFE_RE.search(text):
        return text
    return UNSAFE_RE.sub(lambda m: _escape(m.group()), text)


def visible_line(text: str) -> str:
    """As :func:`visible`, for a one-line cell: tab and newline are shown escaped too."""
    if not UNSAFE_IN_LINE_RE.search(text):
        return text
    return UNSAFE_IN_LINE_RE.sub(lambda m: _escape(m.group()), text)


def control_characters(text: str) -> list[str]:
    """The distinct unsafe characters in ``text``, as their visible escapes, in order of first use."""
    return list(dict.fromkeys(_escape(m.group()) for m in UNSAFE_RE.finditer(text)))


class VisibleWriter:
    """A text stream that passes everything through :func:`visible` to the stream it wraps.

    The command line writes all its output (tables, messages, JSON) through one of these, so no
    command can forget: the single point where user text reaches the terminal."""

    def __init__(self, stream) -> None:
        self._stream = stream
        # For text studyapp writes itself with a control character on purpose (a progress line's \r).
        self.trusted = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _visible_card(card):
    from dataclasses import replace

    def texts(values):
        return tuple(visible(v) for v in values)

    def wording(w):
        answer = visible(w.answer) if isinstance(w.answer, str) else w.answer
        return dict(front=visible(w.front), back=visible(w.back), text=visible(w.text),
                    statement=visible(w.statement), choices=texts(w.choices), answer=answer,
                    feedback={visible(k): visible(v) for k, v in w.feedback.items()}, accept=texts(w.accept),
                    explanation=visible(w.explanation))

    # A bilingual card's other languages (shown when the learner picks them, or both) are texts too.
    other_languages = {language: replace(w, **wording(w)) for language, w in card.texts.items()}
    return replace(card, **wording(card), source=texts(card.source), tags=texts(card.tags), texts=other_languages)


def _card_is_safe(card) -> bool:
    fields = [*card.source, *card.tags]
    for w in (card, *card.texts.values()):
        fields += [w.front, w.back, w.text, w.statement, w.explanation, *w.choices, *w.accept,
                   *w.feedback.keys(), *w.feedback.values()]
        if isinstance(w.answer, str):
            fields.append(w.answer)
    # One search over the fields joined by a line break (which UNSAFE_RE allows): at 100,000 cards a
    # search per field was seconds of the home screen's start (F15).
    return UNSAFE_RE.search("\n".join(fields)) is None


def visible_deck(deck):
    """The deck as a terminal may show it: every text through :func:`visible` (the same object when
    nothing needed escaping, which is every deck but a hostile one). Ids are slugs already."""
    from dataclasses import replace

    cards = tuple(card if _card_is_safe(card) else _visible_card(card) for card in deck.cards)
    header_safe = not any(UNSAFE_RE.search(t) for t in (deck.title, deck.description, *deck.tags))
    if header_safe and all(a is b for a, b in zip(cards, deck.cards)):
        return deck
    return replace(deck, title=visible(deck.title), description=visible(deck.description),
                   tags=tuple(visible(t) for t in deck.tags), cards=cards)
