"""``v`` in Browse: a deck's source, statement by statement, the ones its cards quote marked."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...authoring.coverage import Coverage
from ...core.terminal_text import visible
from .. import keymap
from ..screens.base import AppModal

QUOTED = "reverse $success"
QUOTED_MARK, UNQUOTED_MARK = "✓", "·"


def coverage_lines(coverage: Coverage, only_unquoted: bool = False) -> Content:
    """One row per statement: its line in the source, a mark, and the text (quoted ones highlighted)."""
    width = len(str(max((s.line for s in coverage.statements), default=1)))
    rows: list[Content] = []
    for statement, quoted in coverage.marked():
        if only_unquoted and quoted:
            continue
        text = Content(visible(statement.text).replace("\n", " "))
        head = Content(f"{statement.line:>{width}} {QUOTED_MARK if quoted else UNQUOTED_MARK} ")
        rows.append(head + (text.stylize(QUOTED) if quoted else text))
    return Content("\n").join(rows) if rows else Content("Every statement is quoted by a card.")


class CoverageModal(AppModal):
    BINDINGS = keymap.bindings("coverage")

    def __init__(self, title: str, coverage: Coverage) -> None:
        super().__init__()
        self.title_text = title
        self.coverage = coverage
        self.only_unquoted = False

    def summary(self) -> str:
        coverage = self.coverage
        minimum = coverage.deck.min_coverage
        floor = f", min_coverage {round(minimum * 100, 2):g}%" if minimum is not None else ""
        return (f"Coverage: {self.title_text}: {len(coverage.covered)} of {len(coverage.statements)} statements "
                f"quoted ({coverage.percent}%){floor}")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -tall"):
            yield Static(self.summary(), classes="dialog-title", markup=False)
            with VerticalScroll(id="coverage-scroll"):
                yield Static(coverage_lines(self.coverage), id="coverage-text", markup=False)
            yield Static(f"{QUOTED_MARK} quoted by a card, {UNQUOTED_MARK} not yet. u shows only the unquoted; "
                         "Escape closes.", classes="dialog-hint", markup=False)

    def action_toggle_unquoted(self) -> None:
        self.only_unquoted = not self.only_unquoted
        self.query_one("#coverage-text", Static).update(coverage_lines(self.coverage, self.only_unquoted))

    def action_close(self) -> None:
        self.dismiss()
