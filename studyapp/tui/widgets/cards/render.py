"""Card text as Textual ``Content``: never parsed as markup, so "[bold]" shows as typed.

Styles use theme variables ($accent, $success, $error) so every theme colours them. When
the learner chose both languages, each text is followed by its second-language wording,
dimmed, on the next line (options: on the same line), unless the two are the same.
"""

from __future__ import annotations

from textual.content import Content

from ....core.models import BACKWARD, CLOZE_RE, Card

HIDDEN = "$accent bold"
SHOWN = "$success bold"
RIGHT = "$success bold"
WRONG = "$error bold"
MUTED = "dim"  # not "$text-muted": inside Content spans that variable draws white


def plain(text: str, style: str = "") -> Content:
    """User text, shown literally."""
    content = Content(text)
    return content.stylize(style) if style else content


def with_second(card: Card, main: Content, render_one) -> Content:
    """``main`` (``render_one(card)``), and under it, dimmed, the same for the card's second language."""
    second = card.second
    if second is None:
        return main
    other = render_one(second)
    if other.plain == main.plain:
        return main
    return Content("\n").join([main, other.stylize(MUTED)])


def question(card: Card, variant: str) -> Content:
    """The side that asks."""
    return with_second(card, _question(card, variant), lambda c: _question(c, variant))


def _question(card: Card, variant: str) -> Content:
    if card.type == "cloze":
        return cloze(card, variant, revealed=False)
    if card.type == "reverse" and variant == BACKWARD:
        return plain(card.back)
    return plain(card.question)


def answer(card: Card, variant: str) -> Content:
    """The side that answers, as the learner should remember it."""
    return with_second(card, _answer(card, variant), lambda c: _answer(c, variant))


def _answer(card: Card, variant: str) -> Content:
    if card.type == "cloze":
        return cloze(card, variant, revealed=True)
    if card.type == "reverse" and variant == BACKWARD:
        return plain(card.front)
    if card.type == "truefalse":
        return plain("True" if card.answer else "False", RIGHT)
    return plain(card.answer_text)


def explanation(card: Card) -> Content:
    return with_second(card, plain(card.explanation), lambda c: plain(c.explanation))


def feedback(card: Card, option: str) -> str:
    """Why ``option`` (in the card's shown language) is wrong, where the deck says; "" otherwise."""
    return card.feedback.get(option, "")


def second_feedback(card: Card, option: str) -> str:
    """The same feedback in the card's second language, when shown and different."""
    second = card.second
    if second is None or option not in card.choices:
        return ""
    text = second.feedback.get(second.choices[card.choices.index(option)], "")
    return "" if text == card.feedback.get(option, "") else text


def second_option(card: Card, option: str) -> str:
    """An option's text in the card's second language ("" when not shown, not a choice, or the same)."""
    second = card.second
    if second is None or card.type != "choice" or option not in card.choices:
        return ""
    text = second.choices[card.choices.index(option)]
    return "" if text == option else text


def cloze(card: Card, variant: str, *, revealed: bool) -> Content:
    """The cloze text with this variant's deletion hidden (or highlighted), the others filled in."""
    number = int(variant[1:]) if variant.startswith("c") and variant[1:].isdigit() else 1
    parts: list[str | tuple[str, str]] = []
    last = 0
    for match in CLOZE_RE.finditer(card.text):
        parts.append(card.text[last:match.start()])
        text, hint = match.group(2), match.group(3)
        if int(match.group(1)) != number:
            parts.append(text)
        elif revealed:
            parts.append((text, SHOWN))
        else:
            parts.append((f"[{hint}]" if hint else "[...]", HIDDEN))
        last = match.end()
    parts.append(card.text[last:])
    return Content.assemble(*parts)


def option_line(index: int, text: str, *, revealed: bool, correct: bool, chosen: bool, second: str = "") -> Content:
    mark = "  "
    style = ""
    if revealed and correct:
        mark, style = "✓ ", RIGHT
    elif revealed and chosen:
        mark, style = "✗ ", WRONG
    elif chosen:
        mark = "› "
    line = Content.assemble(mark, (f"{index + 1}. ", "bold"), (text, style) if style else text)
    if second:
        line = Content.assemble(line, "  ", (second, MUTED))
    return line


def diff(ops: list[tuple[str, str]]) -> Content:
    """A typed answer against the expected one: extra text struck through, missing text highlighted."""
    parts: list[str | tuple[str, str]] = []
    for op, text in ops:
        if op == "equal":
            parts.append(text)
        elif op == "delete":
            parts.append((text, "$error strike"))
        else:
            parts.append((text, "$success underline"))
    return Content.assemble(*parts)


def hanging(content: Content, indent: int, width: int | None) -> Content:
    """``content`` wrapped to ``width`` cells, every line after the first indented by ``indent``.

    A widget wraps to its own left edge; a feedback line under an option, or a description
    beside its key, should wrap under its own start instead. Without a usable width (not laid
    out yet) the content is returned as it is, for the widget to wrap.
    """
    if width is None or width <= indent + 8 or content.cell_length <= width:
        return content
    first = content.wrap(width)[0]
    # The first line is a prefix of the text (wrapping only drops the spaces at a break).
    taken = len(first.plain.rstrip())
    rest = content[taken:]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip()):]
    pad = " " * indent
    lines = [first.rstrip()] + [Content.assemble(pad, line.rstrip()) for line in rest.wrap(width - indent)]
    return Content("\n").join(lines)


def expected_line(check) -> Content:
    """"Expected:" with the answer the difference is computed against; an accepted alternative
    says so and names the card's own answer, so the two lines never disagree."""
    line = Content.assemble(("Expected:   ", "bold"), plain(check.shown_expected))
    if check.shown_expected != check.expected:
        line = Content.assemble(line, plain(f"  (also accepted; the card's answer: {check.expected})", MUTED))
    return line


def has_difference(ops: list[tuple[str, str]]) -> bool:
    """Whether a diff is worth a line: spaces typed around an answer are no difference to show."""
    return any(op != "equal" and text.strip() for op, text in ops)
