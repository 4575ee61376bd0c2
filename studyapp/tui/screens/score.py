"""The end of a quiz: the score, and the questions missed, to revisit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.quiz import QuizSession
from .. import keymap
from ..widgets.cards import render
from ..widgets.common.footer import AppFooter
from .base import AppScreen


def rounded_percent(part: int, whole: int) -> int:
    """``part / whole`` as a whole percentage, halves rounded up (2 of 7 is 29%, 1 of 8 is 13%).

    Integer arithmetic: no float lands a hair below a half, and no banker's rounding.
    """
    return (200 * part + whole) // (2 * whole)


class ScoreScreen(AppScreen):
    BINDINGS = keymap.bindings("score")

    def __init__(self, session: QuizSession, *, standalone: bool = False, exam=None) -> None:
        super().__init__()
        self.session = session
        self.standalone = standalone
        self.exam = exam  # onboarding.exams.Exam: recorded with the profile when the score shows
        self.recorded = False

    def compose(self) -> ComposeResult:
        right, answered = self.session.score()
        total = len(self.session.questions)
        share = f" ({rounded_percent(right, answered)}%)" if answered else ""
        unanswered = f"; {total - answered} not answered" if answered < total else ""
        if self.exam is not None and not self.session.finished:
            yield Static(f"Exam left unfinished ({answered} of {total} answered): not recorded", id="score-title",
                         markup=False)
        elif self.exam is not None:
            _, _, passed = self.exam.result()
            yield Static(f"Exam {'passed' if passed else 'not passed'}: {right} of {total} right{share}, pass mark "
                         f"{self.exam.settings.pass_mark:.0%}; recorded with your profile", id="score-title",
                         markup=False)
        else:
            yield Static(f"Quiz finished: {right} of {answered} right{share}{unanswered}", id="score-title",
                         markup=False)
        with VerticalScroll(id="score-misses"):
            misses = self.session.misses()
            if not misses:
                yield Static("No misses. Well done." if answered else "No questions answered.", markup=False)
            else:
                yield Static(f"To revisit ({len(misses)}):", classes="heading", markup=False)
            for number, miss in enumerate(misses, 1):
                question = miss.question
                yield Static(Content.assemble((f"{number}. ", "bold"), render.plain(question.prompt)),
                             classes="miss", markup=False)
                # Its own widget with a left padding, so wrapped lines keep the indent.
                lines = [
                    Content.assemble(("You answered: ", "dim"), render.plain(miss.given or "(nothing)", render.WRONG)),
                    Content.assemble(("Answer:       ", "dim"), render.plain(question.card.answer_text, render.RIGHT)),
                ]
                if miss.feedback:
                    lines.append(render.plain(miss.feedback, render.MUTED))
                lines.append(render.plain(f"{question.deck_id} / {question.card.id}", render.MUTED))
                yield Static(Content("\n").join(lines), classes="miss-detail", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        # Only a finished exam counts: a partial one would score only the questions answered.
        if self.exam is not None and self.session.finished:
            self.run_worker(self._record, thread=True, name="exam-record", exit_on_error=False)

    def _record(self) -> None:
        from ...core.problems import StudyappError

        try:
            self.app.services.record_exam(self.exam)
        except StudyappError as error:
            self.app.call_from_thread(self.notify, f"The exam result was not saved: {error.message}",
                                      severity="error", markup=False)
            return
        self.recorded = True

    def action_home(self) -> None:
        self.app.go_home()
