"""Safe YAML reading that keeps positions and refuses what a deck never needs.

PyYAML's ``compose`` (C-backed where available) builds a node tree with marks; we
turn it into plain Python values ourselves so that we can keep the line and column of
every key, report duplicate keys (PyYAML silently keeps the last one), refuse
anchors/aliases (the "billion laughs" bomb) and any tag beyond the core schema
(``!!python/object`` and friends), and bound the nesting depth. Every failure is a
:class:`DeckLoadError`, never anything else.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .gcpause import collector_paused
from .models import Position
from .problems import ERROR, WARNING, DeckLoadError, Problem
from .terminal_text import UNSAFE_RE, control_characters

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
# YAML values (scalars, lists, mappings) a file may hold. A 16 MB file of real cards holds about
# 1.1 million (22 per card); a file of 8 million one-letter scalars fits under the byte cap but
# costs 30 s and 4 GB to build as a tree, so it is refused while only its events are counted.
MAX_NODES = 2_000_000
# Characters that can introduce a YAML node: every value but the root follows one of them, at
# most two values start after the same one (a block mapping and its first key, as in "- a: 1").
_NODE_INDICATORS = ",:-[{?\n\r"

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
}
_constructor = yaml.constructor.SafeConstructor()


class LocatedDict(dict):
    """A mapping that remembers where it and each of its keys start."""

    __slots__ = ("position", "key_positions", "value_positions")


class LocatedList(list):
    __slots__ = ("position", "item_positions")


def _position(mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


def read_text(path: Path) -> str:
    """Read a deck file as UTF-8, refusing what cannot be a deck before parsing it."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise DeckLoadError(f"cannot read the file: {error.strerror}", path=path, line=1, column=1, code="unreadable") from None
    if size > MAX_FILE_BYTES:
        raise DeckLoadError(
            f"file is {size / 1024 / 1024:.1f} MB, larger than the {MAX_FILE_BYTES // 1024 // 1024} MB a deck may be; split it into several decks",
            path=path, line=1, column=1, code="too-large",
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DeckLoadError(f"cannot read the file: {error.strerror}", path=path, line=1, column=1, code="unreadable") from None
    return decode(data, path)


def decode(data: bytes, path: Path | str) -> str:
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DeckLoadError("this is a binary file, not a YAML deck", path=path, line=line, column=1, code="binary")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise DeckLoadError(
            f"byte 0x{data[error.start]:02x} is not valid UTF-8; save the file as UTF-8",
            path=path, line=line, column=column, code="encoding",
        ) from None
    return text.removeprefix("\ufeff")


def parse(text: str, path: Path | str, problems: list[Problem]):
    """Parse one YAML document into located Python values; duplicate keys go to ``problems``."""
    if not text.strip():
        raise DeckLoadError("the file is empty; a deck needs at least schema, id, title, seed and cards",
                            path=path, line=1, column=1, code="empty-file")
    # The collector is most of the cost of building a large node tree and finds no cycles here.
    _refuse_too_many_nodes(text, path)
    with collector_paused():
        try:
            loader = _Loader(text)
            try:
                root = loader.get_single_node()
            finally:
                loader.dispose()
        except yaml.MarkedYAMLError as error:
            raise _syntax_error(error, path, text) from None
        except yaml.reader.ReaderError as error:
            raise _reader_error(error, path, text) from None
        except yaml.YAMLError as error:
            raise DeckLoadError(f"invalid YAML: {error}", path=path, line=1, column=1, code="yaml-syntax") from None
        except RecursionError:
            raise DeckLoadError("the document is nested too deeply", path=path, line=1, column=1, code="too-deep") from None
        if root is None:
            raise DeckLoadError("the file holds no YAML document", path=path, line=1, column=1, code="empty-file")
        return _Builder(path, problems).build(root)


def _refuse_too_many_nodes(text: str, path, limit: int | None = None) -> None:
    """Refuse a file with more than ``limit`` values before a tree is built for it.

    Counting indicator characters bounds the values from above for free; only a file over that
    bound has its parser events counted, and the count stops at the limit."""
    limit = MAX_NODES if limit is None else limit
    if 2 * (1 + sum(text.count(char) for char in _NODE_INDICATORS)) <= limit:
        return
    loader = _Loader(text)
    try:
        nodes = 0
        while True:
            try:
                event = loader.get_event()
            except yaml.YAMLError:
                return  # the parse proper reports the syntax error, with its position
            if event is None:
                return
            if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)):
                nodes += 1
                if nodes > limit:
                    position = _position(event.start_mark)
                    raise DeckLoadError(
                        f"the file holds more than {limit:,} YAML values (the limit was passed here); no deck needs "
                        "that many: split it into several decks, or remove the overlong list",
                        path=path, line=position.line, column=position.column, code="too-many-values")
    finally:
        loader.dispose()


def _syntax_error(error: yaml.MarkedYAMLError, path, text: str) -> DeckLoadError:
    mark = error.problem_mark or error.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = error.problem or "invalid YAML"
    message = f"YAML syntax error: {problem}"
    if error.context:
        message += f" ({error.context})"
    # libyaml names the tab in some messages ("found a tab character that violates indentation") and
    # not in others ("found character that cannot start any token"); its mark is at the tab in each.
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        message += "; indent with spaces, not tabs"
    if "maximum nesting depth" in problem:
        return DeckLoadError("the document is nested too deeply", path=path, line=line, column=column, code="too-deep")
    return DeckLoadError(message, path=path, line=line, column=column, code="yaml-syntax")


def _reader_error(error: yaml.reader.ReaderError, path, text: str) -> DeckLoadError:
    """A character YAML refuses (a control character), at its line and column: libyaml gives only
    its offset, in UTF-8 bytes."""
    data = text.encode("utf-8")
    offset = min(error.position, len(data))
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return DeckLoadError(f"invalid YAML: {str(error).splitlines()[0]}", path=path, line=line, column=column,
                         code="yaml-syntax")


class _Builder:
    def __init__(self, path, problems: list[Problem]):
        self.path = str(path)
        self.problems = problems
        self.seen: set[int] = set()

    def build(self, node, depth: int = 0):
        if depth > MAX_DEPTH:
            raise self._error(node, "too-deep", f"the document is nested more than {MAX_DEPTH} levels deep")
        node_id = id(node)
        if node_id in self.seen:
            raise self._error(node, "alias", "anchors and aliases (&name, *name) are not allowed in decks; write the value out")
        self.seen.add(node_id)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                raise self._error(node, "unsafe-tag", f"tag {_short(node.tag)} is not allowed in decks")
            out = LocatedList()
            out.position = _position(node.start_mark)
            out.item_positions = []
            for child in node.value:
                out.append(self.build(child, depth + 1))
                out.item_positions.append(_position(child.start_mark))
            return out
        if isinstance(node, yaml.MappingNode):
            if node.tag != _MAP:
                raise self._error(node, "unsafe-tag", f"tag {_short(node.tag)} is not allowed in decks")
            out = LocatedDict()
            out.position = _position(node.start_mark)
            out.key_positions = {}
            out.value_positions = {}
            for key_node, value_node in node.value:
                key = self.build(key_node, depth + 1)
                if isinstance(key, (list, dict)):
                    raise self._error(key_node, "bad-key", "a mapping key must be a plain value")
                value = self.build(value_node, depth + 1)
                key_position = _position(key_node.start_mark)
                if key in out:
                    first = out.key_positions[key]
                    self.problems.append(Problem(
                        self.path, key_position.line, key_position.column, ERROR, "duplicate-key",
                        f"key '{key}' appears twice in one mapping (first at line {first.line}); YAML would silently keep only the last; remove one",
                    ))
                out[key] = value
                out.key_positions[key] = key_position
                out.value_positions[key] = _position(value_node.start_mark)
            return out
        raise self._error(node, "yaml-syntax", "unexpected YAML node")  # pragma: no cover

    def _scalar(self, node):
        tag = node.tag
        if tag == _STR:
            if UNSAFE_RE.search(node.value):
                self._control_characters(node)
            return node.value
        if tag not in _SCALAR_TAGS:
            raise self._error(node, "unsafe-tag", f"tag {_short(tag)} is not allowed in decks; only plain text, numbers and booleans are")
        try:
            # Called directly rather than via construct_object, which caches every node it sees.
            return _constructor.yaml_constructors[tag](_constructor, node)
        except (yaml.YAMLError, ValueError, OverflowError) as error:
            raise self._error(node, "yaml-syntax", f"cannot read the value {node.value!r}: {error}") from None

    def _control_characters(self, node) -> None:
        position = _position(node.start_mark)
        shown = ", ".join(control_characters(node.value))
        self.problems.append(Problem(
            self.path, position.line, position.column, WARNING, "control-character",
            f"the text holds control characters ({shown}); a terminal obeys them (an escape sequence can set the "
            "clipboard or the window title), so studyapp shows them escaped; remove them from the deck"))

    def _error(self, node, code: str, message: str) -> DeckLoadError:
        position = _position(node.start_mark)
        return DeckLoadError(message, path=self.path, line=position.line, column=position.column, code=code)


def _short(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")
