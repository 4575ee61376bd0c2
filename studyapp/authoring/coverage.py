"""What of a source document no card tests.

The document is split into statements: the sentences of its paragraphs and list items (cut at
Chinese and Western sentence punctuation), its table rows (a header row is layout, not a
statement) and its code blocks; headings are left out. A statement is covered when a card's quote
overlaps it. Each quote counts once, at its first occurrence in the document, so that a short quote
of a term used everywhere ("KV Cache") does not cover every sentence that names it; a statement
written word for word twice counts as covered where either copy is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.loader import SeedUnreadable, read_seed_file, seed_body
from ..core.models import Deck
from ..core.sourcetext import CODE, HEADER_ROW, HEADING, ROW, Block, blocks, is_markdown, render_inline

# A sentence ends at one of these (a Western full stop only before a space or the end, so that 3.14
# and torch.compile stay whole); closing quotes and brackets after it belong to the sentence.
_ENDS = set("。！？；!?;…")
_CLOSERS = set("”’\"')）」』】》]")


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    line: int  # 1-based line in the seed file (front matter counted)
    start: int  # offset in the document's plain text
    end: int


@dataclass
class Coverage:
    deck: Deck
    statements: list[Statement] = field(default_factory=list)
    covered: set[int] = field(default_factory=set)  # indexes into statements
    unfound: list[str] = field(default_factory=list)  # quotes not in the document at all

    @property
    def share(self) -> float:
        """Covered statements over all of them; a document with none is fully covered."""
        return len(self.covered) / len(self.statements) if self.statements else 1.0

    @property
    def percent(self) -> int:
        """The share as a whole percentage, rounded down, so 79.9% never reads as meeting 80%."""
        return len(self.covered) * 100 // len(self.statements) if self.statements else 100

    def uncovered(self) -> list[Statement]:
        """Statements no card quotes, longest first (then in document order)."""
        left = [s for i, s in enumerate(self.statements) if i not in self.covered]
        return sorted(left, key=lambda s: (-len(s.text), s.start))

    def marked(self) -> list[tuple[Statement, bool]]:
        return [(s, i in self.covered) for i, s in enumerate(self.statements)]

    def to_json(self) -> dict:
        return {
            "id": self.deck.id, "path": str(self.deck.path),
            "seed": str(self.deck.seed_path) if self.deck.seed_path else None,
            "statements": len(self.statements), "covered": len(self.covered), "coverage": round(self.share, 4),
            "min_coverage": self.deck.min_coverage,
            "uncovered": [{"line": s.line, "text": s.text} for s in self.uncovered()],
        }


def _han(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def split_sentences(text: str, flattened: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a block's text, surrounding space trimmed, empty ones left out.

    In a ``flattened`` block, a space between two Chinese characters, or after a closing bracket, is
    a line break the text lost (an excerpt run into one line, as the bundled seeds are): Chinese
    writes no spaces between words. It ends a statement there."""
    spans: list[tuple[int, int]] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if flattened and ch.isspace() and i > start and (_han(text[i - 1]) or text[i - 1] in "）」』】》") and i + 1 < n:
            j = i
            while j < n and text[j].isspace():
                j += 1
            if j < n and _han(text[j]):
                spans.append((start, i))
                start = i = j
                continue
        cut = ch in _ENDS or (ch == "." and (i + 1 == n or text[i + 1].isspace()))
        if cut:
            i += 1
            while i < n and (text[i] in _ENDS or text[i] in _CLOSERS or text[i] == "."):
                i += 1
            spans.append((start, i))
            start = i
            continue
        i += 1
    spans.append((start, n))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b and any(c.isalnum() for c in text[a:b]):
            out.append((a, b))
    return out


def document(body: str, markdown: bool, line_offset: int = 0) -> tuple[str, list[Statement]]:
    """The body's plain text (blocks one per line) and its statements."""
    parts: list[str] = []
    statements: list[Statement] = []
    offset = 0
    for block in blocks(body, markdown):
        parts.append(block.text)
        statements.extend(_block_statements(block, offset, line_offset))
        offset += len(block.text) + 1
    return "\n".join(parts), statements


def _block_statements(block: Block, offset: int, line_offset: int) -> list[Statement]:
    if block.kind in (HEADING, HEADER_ROW):
        return []
    if block.kind in (ROW, CODE):
        text = block.text.strip()
        if not any(c.isalnum() for c in text):
            return []
        lead = block.text.index(text[0])
        return [Statement(text, block.line + line_offset, offset + lead, offset + lead + len(text))]
    # Where the block held inline markup, a space beside it is the author's (around **粗体**, say).
    flattened = not block.marked
    return [Statement(block.text[a:b], block.line_at(a) + line_offset, offset + a, offset + b)
            for a, b in split_sentences(block.text, flattened)]


def front_matter_lines(whole: str) -> int:
    """Lines before the body (the front matter and its fences), which seed_body removes."""
    body = seed_body(whole)
    return whole[:len(whole) - len(body)].count("\n") if body is not whole else 0


def deck_coverage(deck: Deck, text: str | None = None) -> Coverage:
    """The deck's coverage of its seed; ``text`` is the seed file's whole text when already read."""
    coverage = Coverage(deck)
    if deck.seed_path is None:
        return coverage
    if text is None:
        text = read_seed_file(Path(deck.seed_path))
    body = seed_body(text)
    markdown = is_markdown(deck.seed_path)
    plain, statements = document(body, markdown, front_matter_lines(text))
    coverage.statements = statements
    marks = bytearray(len(plain) + 1)
    seen: set[str] = set()
    for card in deck.cards:
        for quote in card.source:
            if quote in seen:
                continue
            seen.add(quote)
            start = plain.find(quote)
            if start < 0 and markdown:
                quote_read = render_inline(quote)
                start = plain.find(quote_read)
                quote = quote_read
            if start < 0:
                # Written across two blocks, or raw syntax (a table's pipes): its lines still count.
                start, quote = _raw_span(quote, body, plain, statements, front_matter_lines(text))
            if start < 0:
                coverage.unfound.append(quote)
                continue
            marks[start:start + len(quote)] = b"\x01" * len(quote)
    covered_texts: set[str] = set()
    for index, statement in enumerate(statements):
        if marks.find(1, statement.start, statement.end) >= 0:
            coverage.covered.add(index)
            covered_texts.add(statement.text)
    for index, statement in enumerate(statements):
        if statement.text in covered_texts:
            coverage.covered.add(index)
    return coverage


def _raw_span(quote: str, body: str, plain: str, statements: list[Statement], line_offset: int) -> tuple[int, str]:
    """A quote found only in the raw body: the plain-text span of the statements on its lines."""
    at = body.find(quote)
    if at < 0 or not statements:
        return -1, quote
    first = body.count("\n", 0, at) + 1 + line_offset
    last = first + quote.count("\n")
    on_lines = [s for s in statements if first <= s.line <= last]
    if not on_lines:
        return -1, quote
    start, end = on_lines[0].start, on_lines[-1].end
    return start, plain[start:end]


def coverage_of(decks: list[Deck]) -> list[Coverage]:
    """Each deck's coverage; a seed read once however many decks quote it."""
    texts: dict[Path, str | None] = {}
    out = []
    for deck in decks:
        if deck.seed_path is not None and deck.seed_path not in texts:
            try:
                texts[deck.seed_path] = read_seed_file(Path(deck.seed_path))
            except SeedUnreadable:
                texts[deck.seed_path] = None
        text = texts.get(deck.seed_path) if deck.seed_path is not None else None
        if deck.seed_path is not None and text is None:
            out.append(Coverage(deck))
            continue
        out.append(deck_coverage(deck, text))
    return out
