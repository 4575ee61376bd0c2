"""A source document as a reader sees it: its blocks of text, Markdown rendered to plain text.

A card's quote is checked against the seed's raw text first; for a Markdown seed it may also
match the text as rendered, so a sentence holding **bold** or a [link](...) can be quoted as it
reads. The same blocks feed coverage (studyapp.authoring.coverage), which needs each block's kind
(headings are no statements) and the source line of every character.

markdown-it-py parses the Markdown: it is the parser Textual's Markdown widget uses (so the viewer
and the checks read one document the same way) and it imports neither Textual nor Rich.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PARAGRAPH, ITEM, ROW, HEADER_ROW, HEADING, CODE = "paragraph", "item", "row", "header-row", "heading", "code"
MARKDOWN_SUFFIXES = (".md", ".markdown")
_ITEM_MARKERS = ("- ", "* ", "+ ", "• ", "· ")


@dataclass(frozen=True, slots=True)
class Block:
    """One block of a document as read: a paragraph, a list item, a table row, a heading or code."""

    kind: str
    text: str
    line: int  # 1-based line of the body where the block starts
    # Offsets in ``text`` where a new source line begins (soft line breaks read as spaces).
    breaks: tuple[int, ...] = ()
    marked: bool = False  # it held inline markup (emphasis, a link, code), which readers space around

    def line_at(self, offset: int) -> int:
        return self.line + bisect.bisect_right(self.breaks, offset)


def is_markdown(path: Path | str | None) -> bool:
    return path is not None and Path(path).suffix.lower() in MARKDOWN_SUFFIXES


def blocks(body: str, markdown: bool) -> list[Block]:
    return markdown_blocks(body) if markdown else plain_blocks(body)


def rendered(body: str) -> str:
    """A Markdown body as it reads: the blocks' texts, one per line."""
    return _rendered(body)


@lru_cache(maxsize=16)
def _rendered(body: str) -> str:
    return "\n".join(block.text for block in markdown_blocks(body))


def render_inline(markdown: str) -> str:
    """A Markdown fragment (a quote written with its **markup**) as it reads."""
    parser = _parser()
    tokens = parser.parseInline(markdown)
    return "".join(_inline_text(token.children or [])[0] for token in tokens)


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _inline_text(children) -> tuple[str, tuple[int, ...]]:
    return _inline(children)[:2]


def _inline(children) -> tuple[str, tuple[int, ...], bool]:
    marked = False
    parts: list[str] = []
    breaks: list[int] = []
    length = 0
    for child in children:
        kind = child.type
        if kind in ("text", "code_inline"):
            piece = child.content
        elif kind == "softbreak":
            piece = " "
        elif kind == "hardbreak":
            piece = "\n"
        elif kind == "image":
            piece = child.content or "".join(c.content for c in child.children or [])
        else:  # emphasis, links and inline HTML: their markup does not read
            marked = True
            continue
        if kind == "code_inline":
            marked = True
        if kind in ("softbreak", "hardbreak"):
            breaks.append(length + len(piece))
        parts.append(piece)
        length += len(piece)
    return "".join(parts), tuple(breaks), marked


def markdown_blocks(body: str) -> list[Block]:
    tokens = _parser().parse(body)
    out: list[Block] = []
    in_item = 0
    row: list[str] | None = None
    row_line = 0
    row_header = False
    in_head = False
    heading = False
    for token in tokens:
        kind = token.type
        if kind == "list_item_open":
            in_item += 1
        elif kind == "list_item_close":
            in_item -= 1
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "heading_open":
            heading = True
        elif kind == "heading_close":
            heading = False
        elif kind == "tr_open":
            row, row_line, row_header = [], token.map[0] + 1 if token.map else 1, in_head
        elif kind == "tr_close" and row is not None:
            text = " | ".join(cell for cell in row if cell)
            if text:
                out.append(Block(HEADER_ROW if row_header else ROW, text, row_line))
            row = None
        elif kind == "inline":
            text, breaks, marked = _inline(token.children or [])
            if row is not None:
                row.append(text.strip())
                continue
            line = token.map[0] + 1 if token.map else 1
            block_kind = HEADING if heading else ITEM if in_item else PARAGRAPH
            if text.strip():
                out.append(Block(block_kind, text, line, breaks, marked))
        elif kind in ("fence", "code_block"):
            line = token.map[0] + 1 + (kind == "fence") if token.map else 1
            text = token.content.rstrip("\n")
            if text.strip():
                out.append(Block(CODE, text, line, tuple(i + 1 for i, ch in enumerate(text) if ch == "\n")))
    return out


def plain_blocks(body: str) -> list[Block]:
    """A plain-text body: paragraphs split at blank lines, a line that starts with a list marker an item."""
    out: list[Block] = []
    lines = body.split("\n")
    paragraph: list[str] = []
    start = 0

    def flush() -> None:
        if paragraph:
            text = "\n".join(paragraph)
            breaks = tuple(i + 1 for i, ch in enumerate(text) if ch == "\n")
            out.append(Block(PARAGRAPH, text, start, breaks))
            paragraph.clear()

    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        marker = _item_marker(stripped)
        if marker:
            flush()
            out.append(Block(ITEM, stripped[marker:], number))
            continue
        if not paragraph:
            start = number
        paragraph.append(line)
    flush()
    return out


def _item_marker(line: str) -> int:
    """The length of a list marker that starts ``line`` (``- ``, ``1. ``, ``2) ``), else 0."""
    if line.startswith(_ITEM_MARKERS):
        return 2
    digits = 0
    while digits < len(line) and line[digits].isdigit():
        digits += 1
    if 0 < digits <= 3 and line[digits:digits + 2] in (". ", ") "):
        return digits + 2
    return 0
