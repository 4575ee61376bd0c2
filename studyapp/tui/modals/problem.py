"""A problem the learner has to fix outside the app (the database is locked, a deck id is unknown)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from .. import keymap
from ..screens.base import AppModal


class ProblemModal(AppModal):
    # Any of these keys closes it, which ends the app: there is nothing else to do here.
    BINDINGS = keymap.bindings("problem")

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("studyapp cannot go on", classes="dialog-title", markup=False)
            yield Static(self.message, id="problem-text", markup=False)
            yield Static("Press Enter to quit.", classes="dialog-hint", markup=False)

    def action_close(self) -> None:
        self.dismiss()
