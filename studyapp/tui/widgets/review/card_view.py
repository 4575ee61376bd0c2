"""The card under review: question, options, answer, the check of a typed or chosen answer,
the explanation and any flag note. It draws what the review screen tells it; the state
(revealed, chosen, checked) belongs to the screen.

Few widgets on purpose: every card redraws them all, and Textual's layout pass costs per
widget. The front (kind, question, options) and the back (answer, check, flag note) are one
Static each; the explanation has its own, for its border.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Rule, Static

from ....core.choices import ShownChoices
from ....core.models import Item
from ..cards import render

if TYPE_CHECKING:  # core.matching is imported when an answer is first typed
    from ....core.matching import MatchResult

KIND_NAMES = {"basic": "basic", "choice": "choice", "truefalse": "true or false"}


@dataclass(frozen=True)
class Face:
    """Everything the view needs to draw one moment of a review."""

    item: Item
    queue: str
    revealed: bool = False
    chosen: int | None = None  # option index picked before the reveal
    typed: str | None = None
    check: MatchResult | None = None
    explanation: bool = False
    flag_note: str | None = None
    # The options in the order shown (the session shuffles a choice card's).
    choices: ShownChoices = ShownChoices((), None)


# The cells before an option's text ("✓ 1. "): its wrapped lines and its feedback start there.
OPTION_INDENT = 5


def front(face: Face, width: int | None = None) -> Content:
    """Kind, question and options; wrapped option text and feedback hang under the option's text
    (``width``: the cells to wrap to, None before the view is laid out)."""
    card, variant = face.item.card, face.item.variant
    kind = {"reverse": f"reverse ({variant})", "cloze": f"cloze {variant}"}.get(card.type, KIND_NAMES.get(card.type, card.type))
    lines = [render.plain(f"{face.item.deck_id} · {kind} · {face.queue}", render.MUTED),
             render.question(card, variant)]
    options = face.choices.options
    if options:
        lines.append(Content(""))
        correct = face.choices.correct
        for i, text in enumerate(options):
            lines.append(render.hanging(render.option_line(i, text, revealed=face.revealed, correct=i == correct,
                                                           chosen=i == face.chosen,
                                                           second=render.second_option(card, text)),
                                        OPTION_INDENT, width))
            why = render.feedback(card, text) if face.revealed and card.type == "choice" and i != correct else None
            if why:
                # Why this option is wrong, where the deck says, right under it.
                lines.append(render.hanging(Content.assemble(" " * OPTION_INDENT, render.plain(why, render.MUTED)),
                                            OPTION_INDENT, width))
                other = render.second_feedback(card, text)
                if other:
                    lines.append(render.hanging(Content.assemble(" " * OPTION_INDENT, render.plain(other, render.MUTED)),
                                                OPTION_INDENT, width))
    return Content("\n").join(lines)


def back(face: Face) -> Content:
    card, variant = face.item.card, face.item.variant
    blocks: list[Content] = []
    if card.type != "choice":  # a choice card's answer is marked among its options
        blocks.append(render.answer(card, variant))
    if face.check is not None:
        check = face.check
        verdict = render.plain("✓ Right" if check.correct else "✗ Not quite", render.RIGHT if check.correct else render.WRONG)
        lines = [Content.assemble(verdict, render.plain(f"  ({check.reason})" if check.reason else "", render.MUTED)),
                 Content.assemble(("You typed:  ", "bold"), render.plain(face.typed or "(nothing)")),
                 render.expected_line(check)]
        if render.has_difference(check.diff):
            lines.append(Content.assemble(("Difference: ", "bold"), render.diff(check.diff)))
        blocks.append(Content("\n").join(lines))
    elif face.chosen is not None:
        right = face.choices.correct == face.chosen
        blocks.append(render.plain("✓ Right" if right else "✗ Not quite", render.RIGHT if right else render.WRONG))
    return Content("\n\n").join(blocks)


class CardView(VerticalScroll):
    _face: Face | None = None
    _width: int | None = None
    _parts: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="card-front", markup=False)
        yield Rule(id="card-answer-rule")
        yield Static(id="card-back", markup=False)
        yield Static(id="card-explanation", markup=False)
        yield Static(id="card-notes", markup=False)

    def _wrap_width(self) -> int | None:
        # The gutter is kept for the scrollbar (app.tcss), so the width is the same with or without it.
        return self.scrollable_content_region.width or None

    def on_resize(self) -> None:
        if self._face is not None and self._wrap_width() != self._width:
            self._width = self._wrap_width()
            self.query_one("#card-front", Static).update(front(self._face, self._width))

    def show(self, face: Face, *, new_card: bool = False) -> None:
        card = face.item.card
        self._face, self._width = face, self._wrap_width()
        if self._parts is None:  # found once: every card draws them
            self._parts = tuple(self.query_one(f"#card-{name}") for name in ("front", "answer-rule", "back",
                                                                          "explanation", "notes"))
        first, rule, answer, explanation, notes = self._parts
        first.update(front(face, self._width))
        rule.display = face.revealed
        answer.display = face.revealed
        if face.revealed:
            answer.update(back(face))
        # A true/false card's explanation is its feedback: it comes with the answer.
        wanted = face.explanation or (face.revealed and card.type == "truefalse")
        explanation.display = wanted and bool(card.explanation)
        if explanation.display:
            explanation.update(render.explanation(card))
        notes.display = face.flag_note is not None
        if face.flag_note is not None:
            notes.update(render.plain(f"⚑ flagged: {face.flag_note or '(no note)'}", render.MUTED))
        if new_card:
            self.scroll_home(animate=False)
        elif face.revealed:
            # Bring the answer into view below a long question.
            self.call_after_refresh(answer.scroll_visible, animate=False)
