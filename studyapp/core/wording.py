"""Small pieces of English that every command's output shares."""

from __future__ import annotations


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """``1 deck``, ``2 decks``, ``0 decks``."""
    return f"{count} {noun if count == 1 else (plural_noun or noun + 's')}"
