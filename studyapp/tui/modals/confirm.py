"""A yes/no question; dismisses with True or False."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from .. import keymap
from ..screens.base import AppModal


class ConfirmModal(AppModal[bool]):
    BINDINGS = keymap.bindings("confirm")

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-title", markup=False)
            yield Static("y  yes      n  no", classes="dialog-hint", markup=False)

    def action_answer(self, value: bool) -> None:
        self.dismiss(bool(value))

    def action_cancel(self) -> None:
        self.dismiss(False)
