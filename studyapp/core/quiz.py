"""Quizzes and exams: a seeded selection of questions, answers checked, a score.

A quiz never touches the schedule. The same decks, mode, size and seed always give the
same questions in the same order with the same option order, so an exam is reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .choices import shown_choices
from .matching import MatchResult, check_typed
from .models import Card, Deck

MODES = ("choice", "truefalse", "typed", "mixed")
_KIND_OF_TYPE = {"choice": "choice", "truefalse": "truefalse", "basic": "typed"}


@dataclass(frozen=True, slots=True)
class QuizQuestion:
    deck_id: str
    card: Card
    kind: str  # "choice" | "truefalse" | "typed"
    options: tuple[str, ...] = ()  # choice only, in the order shown

    @property
    def key(self) -> str:
        return f"{self.deck_id}/{self.card.id}"

    @property
    def prompt(self) -> str:
        return self.card.question

    @property
    def correct_option(self) -> int | None:
        return self.options.index(self.card.answer) if self.kind == "choice" else None


@dataclass(slots=True)
class QuizAnswer:
    question: QuizQuestion
    given: str
    correct: bool
    match: MatchResult | None = None
    overridden: bool = False

    @property
    def feedback(self) -> str:
        """Why the chosen option is wrong, where the deck says."""
        if self.question.kind == "choice" and not self.correct:
            return self.question.card.feedback.get(self.given, "")
        return ""


@dataclass
class QuizSession:
    questions: list[QuizQuestion]
    seed: int
    answers: list[QuizAnswer] = field(default_factory=list)
    # An exam's score must be the checker's: no "I was right".
    allow_override: bool = True

    @property
    def current(self) -> QuizQuestion | None:
        index = len(self.answers)
        return self.questions[index] if index < len(self.questions) else None

    @property
    def finished(self) -> bool:
        return self.current is None

    def answer(self, response: int | bool | str) -> QuizAnswer:
        """Answer the current question: an option index (choice), a bool (truefalse) or text (typed)."""
        question = self.current
        if question is None:
            raise ValueError("the quiz is finished")
        card = question.card
        if question.kind == "choice":
            if not isinstance(response, int) or isinstance(response, bool) or not 0 <= response < len(question.options):
                raise ValueError(f"choose an option from 1 to {len(question.options)}")
            given = question.options[response]
            result = QuizAnswer(question, given, given == card.answer)
        elif question.kind == "truefalse":
            if not isinstance(response, bool):
                raise ValueError("answer true or false")
            result = QuizAnswer(question, "True" if response else "False", response is card.answer)
        else:
            match = check_typed(str(response), card)
            result = QuizAnswer(question, str(response), match.correct, match)
        self.answers.append(result)
        return result

    def override_correct(self) -> QuizAnswer:
        """"I was right": the learner overrules the checker on the last typed answer."""
        if not self.allow_override:
            raise ValueError("answers cannot be overruled in an exam")
        if not self.answers:
            raise ValueError("nothing has been answered yet")
        last = self.answers[-1]
        if last.question.kind != "typed":
            raise ValueError("only a typed answer can be overruled")
        last.correct = True
        last.overridden = True
        return last

    def score(self) -> tuple[int, int]:
        return sum(1 for a in self.answers if a.correct), len(self.answers)

    def misses(self) -> list[QuizAnswer]:
        return [a for a in self.answers if not a.correct]


def eligible(decks: list[Deck], mode: str) -> list[tuple[str, Card]]:
    out = []
    for deck in decks:
        for card in deck.cards:
            kind = _KIND_OF_TYPE.get(card.type)
            if kind and (mode == "mixed" or mode == kind):
                out.append((deck.id, card))
    return out


def build_quiz(decks: list[Deck], n: int = 10, mode: str = "mixed", seed: int | None = None) -> QuizSession:
    if mode not in MODES:
        raise ValueError(f"unknown quiz mode {mode!r}; use one of {', '.join(MODES)}")
    if n < 1:
        raise ValueError("a quiz needs at least one question")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    pool = eligible(decks, mode)
    picked = rng.sample(pool, min(n, len(pool)))
    questions = []
    for deck_id, card in picked:
        kind = _KIND_OF_TYPE[card.type]
        options: tuple[str, ...] = ()
        if kind == "choice":
            # The same order function as review: the quiz's seed stands in for the review count.
            options = shown_choices(card, f"{deck_id}/{card.id}", seed).options
        questions.append(QuizQuestion(deck_id, card, kind, options))
    return QuizSession(questions, seed)
