"""Anki's field HTML as a bank's plain text.

Formatting (bold, spans, fonts, links) reads the same without its tags and goes; line structure
(``<br>``, blocks, list items) becomes line breaks; entities become their characters. What has no
plain-text form (an image, a sound, LaTeX, a table) is kept as written and named, so the author can
decide: the text of a card is never silently lost.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_BREAKS = {"br"}
_BLOCKS = {"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "ul", "ol"}
_KEPT = {"img", "audio", "video", "object", "embed", "iframe", "svg", "math", "table", "script", "style"}
_VOID = {"img", "embed", "br", "hr", "source", "input", "meta", "link", "wbr"}
_ANKI_SYNTAX = re.compile(r"\[sound:[^\]]*\]|\[anki:[^\]]*\].*?\[/anki:[^\]]*\]|\[latex\].*?\[/latex\]|"
                          r"\[\$\$?\].*?\[/\$\$?\]", re.DOTALL)
_WORD_JOINER = "\u2060"


class _Plain(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.out: list[str] = []
        self.kept: list[str] = []
        self.depth = 0  # inside a kept element, whose raw text is copied as it stands
        self.kept_start = 0
        self.kept_tag = ""
        self.line_offsets = [0]
        for match in re.finditer("\n", source):
            self.line_offsets.append(match.end())

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_offsets[line - 1] + column

    def handle_starttag(self, tag, attrs):
        if self.depth:
            if tag == self.kept_tag and tag not in _VOID:
                self.depth += 1
            return
        if tag in _KEPT:
            raw = self.get_starttag_text() or f"<{tag}>"
            if tag in _VOID:
                self.out.append(raw)
                self.kept.append(raw)
                return
            self.depth, self.kept_tag, self.kept_start = 1, tag, self._offset()
            return
        if tag in _BREAKS:
            self.out.append("\n")
        elif tag in _BLOCKS:
            self._block_break()

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if self.depth:
            if tag == self.kept_tag:
                self.depth -= 1
                if not self.depth:
                    end = self.source.find(">", self._offset()) + 1
                    raw = self.source[self.kept_start:end]
                    self.out.append(raw)
                    self.kept.append(raw)
            return
        if tag in _BLOCKS:
            self._block_break()

    def _block_break(self) -> None:
        if self.out and not "".join(self.out[-1:]).endswith("\n"):
            self.out.append("\n")

    def handle_data(self, data):
        if not self.depth:
            self.out.append(data)


def html_to_text(field: str) -> tuple[str, list[str]]:
    """(the plain text, the pieces kept as written because they have no plain form)."""
    if "<" not in field and "&" not in field and "[" not in field:
        return field.strip(), []
    parser = _Plain(field)
    parser.feed(field)
    parser.close()
    if parser.depth:  # an element left open: keep the rest as it stands
        raw = field[parser.kept_start:]
        parser.out.append(raw)
        parser.kept.append(raw)
    text = "".join(parser.out).replace("\xa0", " ").replace(_WORD_JOINER, "")
    kept = parser.kept + [m.group(0) for m in _ANKI_SYNTAX.finditer(text)]
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip(), kept


def unescape(text: str) -> str:
    return html.unescape(text)
