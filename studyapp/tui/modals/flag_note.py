"""``f`` in a review: flag the card with a note for whoever maintains the deck."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from .. import keymap
from ..screens.base import AppModal


class FlagNoteModal(AppModal[str | None]):
    """Dismisses with the note (possibly empty), or None when cancelled."""

    BINDINGS = keymap.bindings("flag")

    def __init__(self, card_label: str, note: str = "") -> None:
        super().__init__()
        self.card_label = card_label
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Flag {self.card_label}", classes="dialog-title", markup=False)
            yield Input(self.note, placeholder="What is wrong or unclear? (optional)", id="flag-note")
            yield Static("Enter saves the flag; Escape cancels.", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#flag-note", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
