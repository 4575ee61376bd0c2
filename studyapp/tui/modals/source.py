"""``s``: the card's source document, scrolled to the quoted passage, which is highlighted.

A Markdown source is shown rendered (headings, lists, code, tables), with each quoted passage
highlighted inside the blocks where it reads, whether the quote was written as the text reads or
with its Markdown markup. A plain-text source is shown as it stands. The caller reads the file
(bounded, regular files only) in a worker and hands the text over.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from ...core.sourcetext import markdown_blocks, render_inline
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


def reading_forms(quotes: tuple[str, ...]) -> list[str]:
    """Each quote as it reads once rendered (a quote written with **markup** reads without it)."""
    forms: list[str] = []
    for quote in quotes:
        for form in (quote, render_inline(quote)):
            if form.strip() and form not in forms:
                forms.append(form)
    return forms


def markdown_quote_lines(text: str, quotes: tuple[str, ...]) -> list[int]:
    """The 0-based line where each quote's first occurrence starts, found in the raw text or as it reads."""
    blocks = None
    lines = []
    for quote in quotes:
        if not quote:
            continue
        start = text.find(quote)
        if start >= 0:
            lines.append(text.count("\n", 0, start))
            continue
        blocks = blocks if blocks is not None else markdown_blocks(text)
        reads = render_inline(quote)
        block = next((b for b in blocks if quote in b.text or reads in b.text), None)
        if block is not None:
            lines.append(block.line_at(block.text.find(reads if reads in block.text else quote)) - 1)
    return lines


class QuotedMarkdown(Markdown):
    """Textual's Markdown widget, with the quoted passages highlighted in the blocks that hold them."""

    def __init__(self, markdown: str, quotes: tuple[str, ...], **kwargs) -> None:
        super().__init__(markdown, **kwargs)
        self.forms = reading_forms(quotes)
        self.highlighted: list[str] = []  # the passages highlighted, as they read
        self.quoted_blocks: list[MarkdownBlock] = []
        self._quoted_classes: dict[type, type] = {}

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        base = super().get_block_class(block_name)
        if base not in self._quoted_classes:
            markdown = self

            def set_content(block, content: Content, _base=base) -> None:
                _base.set_content(block, markdown.marked(block, content))

            self._quoted_classes[base] = type(f"Quoted{base.__name__}", (base,), {"set_content": set_content})
        return self._quoted_classes[base]

    def marked(self, block: MarkdownBlock, content: Content) -> Content:
        plain = content.plain
        found = False
        for form in self.forms:
            start = plain.find(form)
            while start >= 0:
                content = content.stylize(HIGHLIGHT, start, start + len(form))
                self.highlighted.append(form)
                found = True
                start = plain.find(form, start + len(form))
        if found and block not in self.quoted_blocks:
            self.quoted_blocks.append(block)
        return content


class SourceModal(AppModal):
    BINDINGS = keymap.bindings("source")

    def __init__(self, title: str, text: str, quotes: tuple[str, ...], markdown: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.quotes = quotes
        self.quote_index = 0
        self.markdown = markdown
        if markdown:
            self.content = Content(text)
            self.quote_lines = markdown_quote_lines(text, quotes)
        else:
            self.content, self.quote_lines = highlight_quotes(text, quotes)
        self.rendered = not markdown  # a Markdown document is ready once its blocks are mounted

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -tall"):
            yield Static(f"Source: {self.title_text}", classes="dialog-title", markup=False)
            with VerticalScroll(id="source-scroll"):
                if self.markdown:
                    yield QuotedMarkdown(self.text, self.quotes, id="source-markdown", open_links=False)
                else:
                    yield Static(self.content, id="source-text", markup=False)
            found = len(self.quote_lines)
            more = "; n jumps to the next quoted passage" if found > 1 else ""
            missing = "" if found == len(self.quotes) else " (a quoted passage was not found in the document)"
            yield Static(f"{found} passage{'s' if found != 1 else ''} highlighted{missing}{more}. "
                         "Arrows and PgUp/PgDn scroll; Escape closes.", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        # After the first layout, so the scroll range is known.
        if not self.markdown:
            self.call_after_refresh(self._scroll_to_quote)

    def on_markdown_table_of_contents_updated(self, event: Markdown.TableOfContentsUpdated) -> None:
        event.stop()

        def ready() -> None:
            self.rendered = True
            self._scroll_to_quote()

        self.call_after_refresh(ready)

    def _scroll_to_quote(self) -> None:
        if not self.quote_lines:
            return
        scroll = self.query_one("#source-scroll", VerticalScroll)
        if self.markdown:
            block = self._block_at(self.quote_lines[self.quote_index])
            if block is not None:
                top = block.virtual_region.y + self._row_in(block)
                parent = block.parent
                while parent is not None and parent is not scroll:  # offsets add up to the scrolled container
                    top += parent.virtual_region.y
                    parent = parent.parent
                scroll.scroll_to(y=max(0, top - 1), animate=False)
            return
        target = self.query_one("#source-text", Static)
        line = self._wrapped_line(target, self.quote_lines[self.quote_index])
        # One line of context above the passage, when the window has room for it.
        scroll.scroll_to(y=max(0, line - (1 if scroll.size.height > 4 else 0)), animate=False)

    def _row_in(self, block: MarkdownBlock) -> int:
        """The wrapped row of the block where its first highlighted passage starts."""
        plain = block._content.plain
        forms = self.query_one(QuotedMarkdown).forms
        start = min((plain.find(f) for f in forms if f in plain), default=0)
        width = max(1, block.content_region.width or 1)
        return max(0, len(Content(plain[:start] + "x").wrap(width)) - 1)

    def _block_at(self, line: int) -> MarkdownBlock | None:
        """The innermost highlighted block whose source lines hold ``line``, else any holding it."""
        document = self.query_one(QuotedMarkdown)
        holding = [b for b in document.quoted_blocks if b.source_range[0] <= line < max(b.source_range[1], b.source_range[0] + 1)]
        if not holding:
            holding = [b for b in document.query(MarkdownBlock) if b.source_range[0] <= line < b.source_range[1]]
        return min(holding, key=lambda b: b.source_range[1] - b.source_range[0]) if holding else None

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
