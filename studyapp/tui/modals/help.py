"""``?``: every key of the screen underneath, as currently mapped (config remaps included)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from .. import keymap
from ..screens.base import AppModal


def screen_keys(screen: Screen) -> list[tuple[str, str, str]]:
    """(binding id, keys, description) of every binding of the screen and the app, as remapped.

    Keys that do not apply at this moment (a choice key on a typed question) are listed too:
    the help is about the screen, not the instant. Textual's binding chain (pinned version)
    is the one place that has the config's remaps applied.
    """
    keys_by_id: dict[str, list[str]] = {}
    for _, bindings in screen._modal_binding_chain:
        for key, binding in bindings:
            if binding.id in keymap.BY_ID:
                display = screen.app.get_key_display(binding.__class__(key, binding.action))
                if display not in keys_by_id.setdefault(binding.id, []):
                    keys_by_id[binding.id].append(display)
    rows = [(spec.id, " / ".join(keys_by_id[spec.id]), spec.help) for spec in keymap.SPECS if spec.id in keys_by_id]
    # App-wide keys last: they are the same everywhere.
    rows.sort(key=lambda row: row[0].startswith("app."))
    return rows


class HelpModal(AppModal):
    BINDINGS = keymap.bindings("help")

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.rows = screen_keys(screen)
        self.screen_name = getattr(screen, "HELP_TITLE", type(screen).__name__.removesuffix("Screen"))

    def compose(self) -> ComposeResult:
        width = max((len(keys) for _, keys, _ in self.rows), default=4) + 2
        lines = [Content.assemble((keys.ljust(width), "bold $accent"), description)
                 for _, keys, description in self.rows]
        with Vertical(classes="dialog -tall"):
            yield Static(f"Keys: {self.screen_name}", classes="dialog-title", markup=False)
            with VerticalScroll(id="help-table"):
                yield Static(Content("\n").join(lines), markup=False)
            yield Static("Remap keys by binding id in config.toml [keys] (docs/app.md) · Ctrl+P: commands · "
                         "Escape closes", classes="dialog-hint", markup=False)

    def action_close(self) -> None:
        self.dismiss()
