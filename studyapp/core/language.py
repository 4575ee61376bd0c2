"""The learner's language: ``--lang``, then ``STUDYAPP_LANG``, then the Settings choice.

``zh`` or ``en`` shows every text in that language; ``both`` shows each deck's primary
language with the next one dimmed under it. A language a deck lacks falls back to the
deck's primary, and schema 1 decks (no languages) show as written. Only texts change:
items, their keys and their progress never depend on the language.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace

from .models import Deck
from .problems import StudyappError

BOTH = "both"
LANGUAGE_CHOICES = ("zh", "en", BOTH)
ENVIRONMENT_VARIABLE = "STUDYAPP_LANG"
# In the settings file: no choice, each deck in its own primary language.
PRIMARY = "primary"


def chosen_language(flag: str | None = None, environ: dict | None = None, setting: str | None = None) -> str | None:
    """The learner's choice, or None for each deck's primary; a bad flag or variable is a usage error."""
    environ = os.environ if environ is None else environ
    for value, where in ((flag, "--lang"), (environ.get(ENVIRONMENT_VARIABLE), ENVIRONMENT_VARIABLE)):
        if value:
            choice = value.strip().lower()
            if choice not in LANGUAGE_CHOICES:
                raise StudyappError(f"{where} {value!r} is not a language choice; use one of {', '.join(LANGUAGE_CHOICES)}",
                                    code="usage")
            return choice
    if setting in LANGUAGE_CHOICES:
        return setting
    return None


def shown_languages(deck: Deck, choice: str | None) -> tuple[str, ...]:
    """The deck's languages to show, the main one first (two for ``both``); () for a deck without languages."""
    if not deck.languages:
        return ()
    primary = deck.languages[0]
    if choice == BOTH:
        return deck.languages[:2]
    if choice in deck.languages:
        return (choice,)
    return (primary,)


def localize(deck: Deck, choice: str | None) -> Deck:
    """The deck with its texts in the chosen language (and, for ``both``, the second one on each card)."""
    languages = shown_languages(deck, choice)
    if not languages:
        return deck
    shown = deck.in_language(languages[0])
    if len(languages) == 2:
        shown = replace(shown, cards=tuple(replace(card, second_language=languages[1]) for card in shown.cards))
    return shown


def localize_all(decks: Iterable[Deck], choice: str | None) -> list[Deck]:
    return [localize(deck, choice) for deck in decks]
