"""One quiz question and, once answered, whether it was right and why."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ....core.quiz import QuizAnswer, QuizQuestion
from ..cards import render


class QuestionView(VerticalScroll):
    """Shows what the quiz screen tells it to; keeps no quiz state of its own."""

    def compose(self) -> ComposeResult:
        yield Static(id="quiz-prompt", markup=False)
        yield Vertical(id="quiz-options")
        yield Static(id="quiz-feedback", markup=False)

    def show_question(self, question: QuizQuestion) -> None:
        card = question.card
        self.query_one("#quiz-prompt", Static).update(render.with_second(card, render.plain(question.prompt),
                                                                         lambda c: render.plain(c.question)))
        self._show_options(question, None)
        feedback = self.query_one("#quiz-feedback", Static)
        feedback.update("")
        feedback.display = False
        self.scroll_home(animate=False)

    def show_answer(self, answer: QuizAnswer, *, can_override: bool = True) -> None:
        question = answer.question
        self._show_options(question, answer)
        card = question.card
        lines: list[Content] = []
        if answer.correct:
            verdict = "Right (you overruled the check)" if answer.overridden else "Right"
            lines.append(render.plain(verdict, render.RIGHT))
        else:
            lines.append(render.plain("Not quite", render.WRONG))
        if question.kind == "typed" and answer.match is not None:
            match = answer.match
            lines.append(Content.assemble(("You typed:  ", "bold"), render.plain(answer.given or "(nothing)")))
            lines.append(render.expected_line(match))
            if render.has_difference(match.diff):
                lines.append(Content.assemble(("Difference: ", "bold"), render.diff(match.diff)))
            if match.reason:
                lines.append(render.plain(f"({match.reason})", render.MUTED))
            if not answer.correct and not answer.overridden and can_override:
                lines.append(render.plain("Press r if you were right after all.", render.MUTED))
        elif question.kind == "truefalse":
            lines.append(Content.assemble(("The statement is ", "bold"), render.answer(card, "main")))
        if answer.feedback:
            lines.append(render.plain(answer.feedback))
            other = render.second_feedback(card, answer.given)
            if other:
                lines.append(render.plain(other, render.MUTED))
        if card.explanation:
            lines.append(render.explanation(card))
        feedback = self.query_one("#quiz-feedback", Static)
        feedback.update(Content("\n").join(lines))
        feedback.display = True
        feedback.set_class(answer.correct, "-right")
        feedback.set_class(not answer.correct, "-wrong")
        # A long question pushes the verdict below the fold: bring it into view.
        self.call_after_refresh(feedback.scroll_visible, animate=False)

    def _show_options(self, question: QuizQuestion, answer: QuizAnswer | None) -> None:
        box = self.query_one("#quiz-options", Vertical)
        box.remove_children()
        if question.kind == "choice":
            correct = question.correct_option
            chosen = question.options.index(answer.given) if answer and answer.given in question.options else None
            lines = [render.option_line(i, text, revealed=answer is not None, correct=i == correct, chosen=i == chosen,
                                        second=render.second_option(question.card, text))
                     for i, text in enumerate(question.options)]
        elif question.kind == "truefalse":
            # The same keys as a true/false card in review: 1 True, 2 False.
            lines = [render.option_line(i, text, revealed=answer is not None, correct=(i == 0) == bool(question.card.answer),
                                        chosen=answer is not None and answer.given == text)
                     for i, text in enumerate(("True", "False"))]
        else:
            lines = []
        box.mount_all(Static(line, classes="option", markup=False) for line in lines)
        box.display = bool(lines)
