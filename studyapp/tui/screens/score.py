"""The end of a quiz: the score, and the questions missed, to revisit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from ...core.quiz import QuizSession
from .. import keymap
from ..widgets.cards import render
from .base import AppScreen


class ScoreScreen(AppScreen):
    BINDINGS = keymap.bindings("score")

    def __init__(self, session: QuizSession, *, standalone: bool = False) -> None:
        super().__init__()
        self.session = session
        self.standalone = standalone

    def compose(self) -> ComposeResult:
        right, answered = self.session.score()
        total = len(self.session.questions)
        share = f" ({right * 100 // answered}%)" if answered else ""
        unanswered = f"; {total - answered} not answered" if answered < total else ""
        yield Static(f"Quiz finished: {right} of {answered} right{share}{unanswered}", id="score-title", markup=False)
        with VerticalScroll(id="score-misses"):
            misses = self.session.misses()
            if not misses:
                yield Static("No misses. Well done." if answered else "No questions answered.", markup=False)
            else:
                yield Static(f"To revisit ({len(misses)}):", classes="heading", markup=False)
            for number, miss in enumerate(misses, 1):
                question = miss.question
                lines = [
                    Content.assemble((f"{number}. ", "bold"), render.plain(question.prompt)),
                    Content.assemble(("   You answered: ", "$text-muted"), render.plain(miss.given or "(nothing)", render.WRONG)),
                    Content.assemble(("   Answer:       ", "$text-muted"), render.plain(question.card.answer_text, render.RIGHT)),
                ]
                if miss.feedback:
                    lines.append(Content.assemble("   ", render.plain(miss.feedback, render.MUTED)))
                lines.append(render.plain(f"   {question.deck_id} / {question.card.id}", render.MUTED))
                yield Static(Content("\n").join(lines), classes="miss", markup=False)
        yield Footer()

    def action_home(self) -> None:
        self.app.go_home()
