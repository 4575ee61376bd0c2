"""Anki-style browse searches: words, "quoted phrases", tag:NAME, deck:ID, is:STATE, type:TYPE, -negation."""

from __future__ import annotations

import shlex
import unicodedata
from dataclasses import dataclass, field

from ..core.models import Item

STATES = ("new", "learning", "review", "relearning", "due", "suspended", "buried", "leech", "flagged")


@dataclass(frozen=True)
class Query:
    words: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    decks: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    negated: tuple[tuple[str, str], ...] = ()  # (field, value): "-is:suspended" is ("is", "suspended")
    problems: tuple[str, ...] = field(default=())


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def parse(text: str) -> Query:
    try:
        parts = shlex.split(text)
    except ValueError:  # an unclosed quote: search the words as typed
        parts = text.split()
    words, tags, decks, states, types, negated, problems = [], [], [], [], [], [], []
    for part in parts:
        negate = part.startswith("-") and len(part) > 1
        body = part[1:] if negate else part
        name, sep, value = body.partition(":")
        if sep and name in ("tag", "deck", "is", "type") and value:
            value = fold(value)
            if name == "is" and value not in STATES:
                problems.append(f"is:{value} is not a state; use one of {', '.join(STATES)}")
                continue
            if negate:
                negated.append((name, value))
            else:
                {"tag": tags, "deck": decks, "is": states, "type": types}[name].append(value)
        elif negate:
            negated.append(("word", fold(body)))
        else:
            words.append(fold(part))
    return Query(tuple(words), tuple(tags), tuple(decks), tuple(states), tuple(types), tuple(negated), tuple(problems))


def item_text(item: Item) -> str:
    card = item.card
    return fold(" ".join((card.front, card.back, card.text, card.statement, " ".join(card.choices),
                          card.explanation, " ".join(card.accept))))


def item_states(row, today: int, end_of_today_ms: int) -> set[str]:
    """The is: words that describe a stored item right now."""
    state = row.state
    found = {state.state}
    if state.state == "relearning":
        found.add("learning")
    if row.suspended:
        found.add("suspended")
    if row.buried_day >= today:
        found.add("buried")
    if state.leech:
        found.add("leech")
    if row.flag_note is not None:
        found.add("flagged")
    if state.state != "new" and state.due_ms is not None and state.due_ms < end_of_today_ms and not row.suspended:
        found.add("due")
    return found


def matches(query: Query, item: Item, text: str, states: set[str]) -> bool:
    card = item.card
    tags = {fold(t) for t in card.tags}
    if any(word not in text for word in query.words):
        return False
    if any(tag not in tags for tag in query.tags):
        return False
    if query.decks and not any(deck in fold(item.deck_id) for deck in query.decks):
        return False
    if any(state not in states for state in query.states):
        return False
    if query.types and card.type not in query.types:
        return False
    for name, value in query.negated:
        if name == "word" and value in text or name == "tag" and value in tags \
                or name == "deck" and value in fold(item.deck_id) or name == "is" and value in states \
                or name == "type" and card.type == value:
            return False
    return True
