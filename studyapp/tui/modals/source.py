"""``s``: the card's source document, scrolled to the quoted passage, which is highlighted."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from .. import keymap
from ..screens.base import AppModal

HIGHLIGHT = "reverse $accent"


def highlight_quotes(text: str, quotes: tuple[str, ...]) -> tuple[Content, list[int]]:
    """The document with every occurrence of each quote highlighted, and the line of each first occurrence."""
    spans: list[tuple[int, int]] = []
    lines: list[int] = []
    for quote in quotes:
        if not quote:
            continue
        start = text.find(quote)
        if start < 0:
            continue
        lines.append(text.count("\n", 0, start))
        while start >= 0:
            spans.append((start, start + len(quote)))
            start = text.find(quote, start + len(quote))
    content = Content(text)
    for start, end in spans:
        content = content.stylize(HIGHLIGHT, start, end)
    return content, lines


class SourceModal(AppModal):
    BINDINGS = keymap.bindings("source")

    def __init__(self, title: str, text: str, quotes: tuple[str, ...]) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.quotes = quotes
        self.quote_index = 0
        self.content, self.quote_lines = highlight_quotes(text, quotes)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -tall"):
            yield Static(f"Source: {self.title_text}", classes="dialog-title", markup=False)
            with VerticalScroll(id="source-scroll"):
                yield Static(self.content, id="source-text", markup=False)
            found = len(self.quote_lines)
            more = "; n jumps to the next quoted passage" if found > 1 else ""
            missing = "" if found == len(self.quotes) else " (a quoted passage was not found in the document)"
            yield Static(f"{found} passage{'s' if found != 1 else ''} highlighted{missing}{more}. "
                         "Arrows and PgUp/PgDn scroll; Escape closes.", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        # After the first layout, so the scroll range is known.
        self.call_after_refresh(self._scroll_to_quote)

    def _scroll_to_quote(self) -> None:
        if not self.quote_lines:
            return
        scroll = self.query_one("#source-scroll", VerticalScroll)
        target = self.query_one("#source-text", Static)
        line = self._wrapped_line(target, self.quote_lines[self.quote_index])
        # One line of context above the passage, when the window has room for it.
        scroll.scroll_to(y=max(0, line - (1 if scroll.size.height > 4 else 0)), animate=False)

    def _wrapped_line(self, target: Static, source_line: int) -> int:
        """The row on screen where a line of the document starts, counting wrapped rows above it."""
        width = max(1, target.content_region.width or target.size.width or 1)
        rows = 0
        for line in self.text.split("\n")[:source_line]:
            rows += max(1, len(Content(line).wrap(width)))
        return rows

    def action_next_quote(self) -> None:
        if self.quote_lines:
            self.quote_index = (self.quote_index + 1) % len(self.quote_lines)
            self._scroll_to_quote()

    def action_close(self) -> None:
        self.dismiss()
