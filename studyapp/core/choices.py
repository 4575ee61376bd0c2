"""The order a choice card's options are shown in (``check``'s choice-position-bias lint, in
core.lints, is what keeps the file's order honest for Anki and readers of the file).

A deck author tends to write the right answer first. Shown in file order, pressing ``1``
would nearly always be right, so every screen that shows a choice card (review, cram, quiz,
exam) shows its options in the order ``choice_order`` gives. The order is drawn from a hash
of the item and a salt (the item's review count in review and cram, the quiz's seed in a
quiz), never from a global generator: an undo or a restart shows the same order, so the
number keys stay put, and the next review of the item shows a new one.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from .models import Card

def choice_order(count: int, key: str, salt: int | str) -> tuple[int, ...]:
    """A permutation of ``range(count)``: index ``i`` of the result is the file index shown at ``i``."""
    digest = hashlib.blake2b(f"{key}\x00{salt}".encode(), digest_size=8).digest()
    order = list(range(count))
    random.Random(int.from_bytes(digest, "big")).shuffle(order)
    return tuple(order)


@dataclass(frozen=True, slots=True)
class ShownChoices:
    """A choice card's options as shown, and where the right one is."""

    options: tuple[str, ...]
    correct: int | None


def shown_choices(card: Card, key: str, salt: int | str) -> ShownChoices:
    """Options of a choice card (shuffled) or a true/false card (True, False: never shuffled)."""
    if card.type == "truefalse":
        return ShownChoices(("True", "False"), 0 if card.answer else 1)
    if card.type != "choice":
        return ShownChoices((), None)
    options = tuple(card.choices[i] for i in choice_order(len(card.choices), key, salt))
    return ShownChoices(options, options.index(card.answer) if card.answer in options else None)


__all__ = ["choice_order", "shown_choices", "ShownChoices"]
