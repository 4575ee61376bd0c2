"""A practice quiz: choice (number keys), true/false (1 True, 2 False, as in review) and typed answers;
never touches the schedule."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.widgets import Input, Static

from ...core.problems import StudyappError
from ...core.quiz import QuizSession, build_quiz
from .. import keymap
from ..widgets.quiz.question_view import QuestionView
from ..widgets.common.footer import AppFooter
from .base import AppScreen


class QuizScreen(AppScreen):
    BINDINGS = keymap.bindings("quiz")

    def __init__(self, deck_ids: Sequence[str] = (), *, n: int = 10, mode: str = "mixed", seed: int | None = None,
                 standalone: bool = False, exam: bool = False) -> None:
        super().__init__()
        self.deck_ids = tuple(deck_ids)
        self.n, self.mode, self.seed = n, mode, seed
        self.standalone = standalone
        self.exam_mode = exam
        self.exam = None  # onboarding.exams.Exam when exam_mode
        self.session: QuizSession | None = None
        self.answered = False  # the current question has been answered and is showing its result

    def compose(self) -> ComposeResult:
        yield Static("Loading the decks…", id="quiz-title", markup=False)
        yield QuestionView(id="quiz-view")
        yield Input(placeholder="Type your answer, then Enter", id="quiz-input")
        yield AppFooter()

    def on_mount(self) -> None:
        self.query_one("#quiz-input", Input).display = False
        self.query_one("#quiz-view").display = False
        self.run_worker(self._build, thread=True, name="quiz-build", exit_on_error=False)

    def _build(self) -> None:
        try:
            decks = self.app.services.decks(self.deck_ids)
            if self.exam_mode:
                from ...onboarding.exams import build_exam

                self.exam = build_exam(decks, self.app.services.exam_settings(self.seed))
                session = self.exam.quiz
            else:
                session = build_quiz(decks, self.n, self.mode, self.seed)
        except (StudyappError, ValueError) as error:
            message = error.message if isinstance(error, StudyappError) else str(error)
            self.app.call_from_thread(self._failed, message)
            return
        self.app.call_from_thread(self._started, session)

    def _failed(self, message: str) -> None:
        self.query_one("#quiz-title", Static).update(f"No quiz: {message}")

    def _started(self, session: QuizSession) -> None:
        self.session = session
        self.call_after_refresh(self.app.first_screen_ready)
        if not session.questions:
            kind = "" if self.mode == "mixed" else f" {self.mode}"
            self.query_one("#quiz-title", Static).update(
                f"These decks have no{kind} questions to quiz on. Press Escape to go back.")
            return
        self.query_one("#quiz-view").display = True
        self._show_current()

    # ------------------------------------------------------------ drawing

    def _title(self) -> str:
        assert self.session is not None
        right, answered = self.session.score()
        number = min(len(self.session.answers) + (0 if self.answered else 1), len(self.session.questions))
        if self.exam is not None:
            # No running score in an exam: it would change how the rest is answered.
            return f"Exam · question {number} of {len(self.session.questions)} · pass mark {self.exam.settings.pass_mark:.0%}"
        return f"Quiz · question {number} of {len(self.session.questions)} · {right} right so far"

    def _show_current(self) -> None:
        assert self.session is not None
        question = self.session.current
        if question is None:
            self._finish()
            return
        self.answered = False
        self.query_one("#quiz-title", Static).update(self._title())
        self.query_one(QuestionView).show_question(question)
        typed = self.query_one("#quiz-input", Input)
        typed.value = ""
        typed.display = question.kind == "typed"
        typed.disabled = question.kind != "typed"
        if question.kind == "typed":
            typed.focus()
        self.sync_bindings()

    def _show_result(self) -> None:
        assert self.session is not None
        self.answered = True
        last = self.session.answers[-1]
        self.query_one("#quiz-title", Static).update(self._title())
        self.query_one(QuestionView).show_answer(last, can_override=self.session.allow_override)
        typed = self.query_one("#quiz-input", Input)
        typed.disabled = True
        self.set_focus(None)
        self.sync_bindings()

    def _finish(self) -> None:
        from .score import ScoreScreen

        assert self.session is not None
        self.app.switch_screen(ScoreScreen(self.session, standalone=self.standalone, exam=self.exam))

    # ------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):
            return False
        question = self.session.current if self.session else None
        if action == "choose":
            return question is not None and not self.answered and question.kind == "choice" \
                and int(parameters[0]) <= len(question.options)
        if action == "truefalse":
            return question is not None and not self.answered and question.kind == "truefalse"
        if action == "next":
            return self.answered
        if action == "override":
            return self.session is not None and self.session.allow_override and self.answered and bool(self.session.answers) and self.session.answers[-1].question.kind == "typed" \
                and not self.session.answers[-1].correct
        return True

    def action_choose(self, number: int) -> None:
        assert self.session is not None
        self.session.answer(int(number) - 1)
        self._show_result()

    def action_truefalse(self, value: bool) -> None:
        assert self.session is not None
        self.session.answer(bool(value))
        self._show_result()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.session is None or self.answered or self.session.current is None:
            return
        self.session.answer(event.value)
        self._show_result()

    def action_next(self) -> None:
        self._show_current()

    def action_override(self) -> None:
        assert self.session is not None
        self.session.override_correct()
        self._show_result()

    def action_leave(self) -> None:
        if self.session is not None and self.session.answers and not self.session.finished:
            from ..modals.confirm import ConfirmModal

            right, answered = self.session.score()
            question = f"Leave the quiz? {answered} of {len(self.session.questions)} answered, {right} right."

            def leave(yes: bool | None) -> None:
                if yes:
                    self._finish()

            self.app.push_screen(ConfirmModal(question), leave)
        elif self.session is not None and self.session.answers:
            self._finish()
        elif self.standalone:
            self.app.exit(0)
        else:
            self.app.pop_screen()
