"""Exams: a fixed, seeded selection of quiz questions with a pass mark, recorded with the profile.

An exam is a quiz (``core.quiz``) whose seed, size and mode come from the curriculum's
``exam:`` section (or the command line), so that every learner who takes the exam of a
release on the same decks gets the same questions in the same order. Exams never change
the schedule; their results go to the ``exam_results`` table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.curriculum import ExamSettings
from ..core.models import Deck
from ..core.quiz import QuizSession, build_quiz


@dataclass(frozen=True)
class Exam:
    deck_ids: tuple[str, ...]
    settings: ExamSettings
    quiz: QuizSession

    @property
    def finished(self) -> bool:
        return self.quiz.finished

    def result(self) -> tuple[int, int, bool]:
        correct, total = self.quiz.score()
        return correct, total, bool(total) and correct / total >= self.settings.pass_mark


def exam_settings(base: ExamSettings | None, questions: int | None = None, seed: int | None = None) -> ExamSettings:
    """The curriculum's exam settings (or the defaults), with command-line overrides."""
    base = base or ExamSettings()
    return ExamSettings(questions or base.questions, base.pass_mark, base.seed if seed is None else seed, base.mode)


def build_exam(decks: list[Deck], settings: ExamSettings) -> Exam:
    # Sorted so that the same decks named in another order still give the same exam.
    ordered = sorted(decks, key=lambda deck: deck.id)
    quiz = build_quiz(ordered, n=settings.questions, mode=settings.mode, seed=settings.seed)
    quiz.allow_override = False
    return Exam(tuple(deck.id for deck in ordered), settings, quiz)


def record_exam(store, exam: Exam) -> None:
    correct, total, _ = exam.result()
    answers = [{"key": a.question.key, "kind": a.question.kind, "given": a.given, "correct": a.correct,
                "overridden": a.overridden} for a in exam.quiz.answers]
    store.record_exam(deck_ids=exam.deck_ids, seed=exam.settings.seed, mode=exam.settings.mode, questions=total,
                      correct=correct, pass_mark=exam.settings.pass_mark, answers=answers)
