"""The card under review: question, options, answer, the check of a typed or chosen answer,
the explanation and any flag note. It draws what the review screen tells it; the state
(revealed, chosen, checked) belongs to the screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Rule, Static

from ....core.matching import MatchResult
from ....core.models import Item
from ..cards import render

QUEUE_NAMES = {"new": "new", "learning": "learning", "review": "review", "cram": "cram"}


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


class CardView(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Static(id="card-kind", classes="muted", markup=False)
        yield Static(id="card-question", markup=False)
        yield Vertical(id="card-options")
        yield Rule(id="card-answer-rule")
        yield Static(id="card-answer", markup=False)
        yield Static(id="card-check", markup=False)
        yield Static(id="card-explanation", markup=False)
        yield Static(id="card-notes", markup=False)

    def show(self, face: Face, *, new_card: bool = False) -> None:
        card, variant = face.item.card, face.item.variant
        self.query_one("#card-kind", Static).update(self._kind_line(face))
        self.query_one("#card-question", Static).update(render.question(card, variant))
        self._show_options(face)
        answer_visible = face.revealed and card.type != "choice"
        self.query_one("#card-answer-rule").display = face.revealed
        answer = self.query_one("#card-answer", Static)
        answer.display = answer_visible
        if answer_visible:
            answer.update(render.answer(card, variant))
        check = self.query_one("#card-check", Static)
        check.display = face.revealed and (face.check is not None or face.chosen is not None)
        if check.display:
            check.update(self._check_text(face))
        explanation = self.query_one("#card-explanation", Static)
        # A true/false card's explanation is its feedback: it comes with the answer.
        wanted = face.explanation or (face.revealed and card.type == "truefalse")
        explanation.display = wanted and bool(card.explanation)
        if explanation.display:
            explanation.update(render.plain(card.explanation))
        notes = self.query_one("#card-notes", Static)
        notes.display = bool(face.flag_note is not None)
        if face.flag_note is not None:
            notes.update(render.plain(f"⚑ flagged: {face.flag_note or '(no note)'}", render.MUTED))
        if new_card:
            self.scroll_home(animate=False)
        elif face.revealed:
            # Bring the answer (or the check of a chosen option) into view below a long question.
            target = answer if answer_visible else self.query_one("#card-options")
            self.call_after_refresh(target.scroll_visible, animate=False, top=False)

    def _kind_line(self, face: Face) -> Content:
        card = face.item.card
        kind = {"basic": "basic", "reverse": f"reverse ({face.item.variant})", "cloze": f"cloze {face.item.variant}",
                "choice": "choice", "truefalse": "true or false"}.get(card.type, card.type)
        return render.plain(f"{face.item.deck_id} · {kind} · {QUEUE_NAMES.get(face.queue, face.queue)}")

    def _show_options(self, face: Face) -> None:
        card = face.item.card
        options = render.options(card)
        box = self.query_one("#card-options", Vertical)
        box.display = bool(options)
        if box.children:
            box.remove_children()
        if not options:
            return
        correct = render.correct_option(card)
        lines = []
        for i, text in enumerate(options):
            lines.append(render.option_line(i, text, revealed=face.revealed, correct=i == correct, chosen=i == face.chosen))
            why = card.feedback.get(text) if face.revealed and card.type == "choice" and i != correct else None
            if why:
                # Why this option is wrong, where the deck says, right under it.
                lines.append(Content.assemble("     ", render.plain(why, render.MUTED)))
        box.mount_all(Static(line, classes="option", markup=False) for line in lines)

    def _check_text(self, face: Face) -> Content:
        card = face.item.card
        if face.check is not None:
            check = face.check
            verdict = render.plain("✓ Right" if check.correct else "✗ Not quite",
                                   render.RIGHT if check.correct else render.WRONG)
            lines = [Content.assemble(verdict, render.plain(f"  ({check.reason})" if check.reason else "", render.MUTED)),
                     Content.assemble(("You typed:  ", "bold"), render.plain(face.typed or "(nothing)")),
                     Content.assemble(("Expected:   ", "bold"), render.plain(check.expected))]
            if check.diff and any(op != "equal" for op, _ in check.diff):
                lines.append(Content.assemble(("Difference: ", "bold"), render.diff(check.diff)))
            return Content("\n").join(lines)
        correct = render.correct_option(card) == face.chosen
        return render.plain("✓ Right" if correct else "✗ Not quite", render.RIGHT if correct else render.WRONG)
