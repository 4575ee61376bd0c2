"""``?``: every key of the screen underneath, as currently mapped (config remaps included)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from .. import keymap
from ..screens.base import AppModal
from ..widgets.cards import render


def screen_keys(screen: Screen) -> list[tuple[str, str, str]]:
    """(binding id, keys, description) of every binding of the screen and the app, as remapped.

    Keys that do not apply at this moment (a choice key on a typed question) are listed too:
    the help is about the screen, not the instant. Textual's binding chain (pinned version)
    is the one place that has the config's remaps applied: its public view,
    ``Screen.active_bindings``, drops every binding whose ``check_action`` hides it now.
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


REPOSITORY_DOCS = "docs/app.md in the studyapp source repository"


class HelpModal(AppModal):
    BINDINGS = keymap.bindings("help")

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.rows = screen_keys(screen)
        self.screen_name = getattr(screen, "HELP_TITLE", type(screen).__name__.removesuffix("Screen"))
        self._drawn_width: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -tall"):
            yield Static(f"Keys: {self.screen_name}", classes="dialog-title", markup=False)
            with VerticalScroll(id="help-table"):
                yield Static(self.table(None), id="help-rows", markup=False)
            yield Static(self.essentials(), id="help-essentials", classes="dialog-hint", markup=False)

    def table(self, width: int | None) -> Content:
        """One line per key: the keys, what they do, and the binding id to remap them by.

        Descriptions wrap under themselves, not under the keys (``width`` cells; None: unwrapped)."""
        key_width = max((len(keys) for _, keys, _ in self.rows), default=4) + 2
        lines = [render.hanging(Content.assemble((keys.ljust(key_width), "bold $accent"), description,
                                                 (f"  {binding_id}", "dim")), key_width, width)
                 for binding_id, keys, description in self.rows]
        return Content("\n").join(lines)

    def essentials(self) -> Content:
        """What a learner needs to remap keys, here rather than in docs that pip does not install."""
        path = str(self.app.config.path)
        return Content.assemble(
            ("Remap keys", "bold"), " by id in ", (path, "bold"), ": ",
            ("[keys] \"review.undo\" = \"z,u\"", "$accent"), "\n",
            "Ctrl+P: commands · Escape closes · more in ", REPOSITORY_DOCS)

    def on_resize(self) -> None:
        rows = self.query_one("#help-rows", Static)
        width = rows.content_region.width or None
        if width and width != self._drawn_width:
            self._drawn_width = width
            rows.update(self.table(width))

    def action_close(self) -> None:
        self.dismiss()
