"""The command palette (Ctrl+P): decks and actions, found by typing part of their name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

if TYPE_CHECKING:
    from .app import StudyApp


def app_commands(app: StudyApp, screen: Screen) -> Iterable[SystemCommand]:
    from .screens.home import HomeScreen

    catalog = app.services.loaded_catalog
    home = next((s for s in app.screen_stack if isinstance(s, HomeScreen)), None)

    def open_home_then(action: str, deck_id: str | None = None):
        def run() -> None:
            target = home
            if target is None:
                app.go_home()
                target = next((s for s in app.screen_stack if isinstance(s, HomeScreen)), None)
            if target is None:
                return
            method = getattr(target, f"action_{action}")
            method(deck_id) if deck_id is not None else method()
        return run

    yield SystemCommand("Study all decks", "A review session over every deck", open_home_then("study_all"))
    yield SystemCommand("Browse cards", "Search by text, tag:, deck:, is:", open_home_then("browse"))
    yield SystemCommand("Statistics", "Forecast, reviews per day, retention, leeches", open_home_then("stats"))
    yield SystemCommand("Settings", "Desired retention, daily limits, rollover hour, theme", open_home_then("settings"))
    yield SystemCommand("Decks", "Back to the deck list", app.go_home)
    if catalog is None:
        return
    for deck in catalog.decks:
        yield SystemCommand(f"Study: {deck.title}", f"Review {deck.id}", open_home_then("study", deck.id))
        yield SystemCommand(f"Quiz: {deck.title}", f"Practice quiz on {deck.id}", open_home_then("quiz", deck.id))
        yield SystemCommand(f"Cram: {deck.title}", f"Cram {deck.id}; the schedule is untouched",
                            open_home_then("cram", deck.id))
