"""The JSON report's schema (version 1), checked field by field before a report is merged.

A report is a file a learner sends: whatever is in it reaches the lead's table, the JSON
another tool reads and the figures summed across the team. So every field ``build_report``
writes is checked for its type and range (a count is a whole number, a share is a finite
number from 0 to 1, a time is epoch milliseconds a calendar can show, an id is a slug),
and a file with a wrong one is rejected with the field's JSON path and its line, so that
one bad file never sinks the other learners' rows.

Fields a report of version 1 may lack (older ones lack ``flags``, ``retention_answers``)
are allowed to be missing; a field this studyapp does not know is ignored, as a later
studyapp may add fields within version 1.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from ..core.loader import SLUG_RE
from ..core.settings import PROFILE_RE

# JSON numbers other tools read exactly (JavaScript's safe integers).
MAX_COUNT = 2**53 - 1
# 9999-12-31T23:59:59.999Z, the last instant a date can be shown for.
MAX_MS = 253_402_300_799_999
# A report is 4 levels deep (totals.retention_by_span.day.answers); far more is no report.
MAX_DEPTH = 64
TRACK_STATUSES = ("done", "behind", "not started", "on track")
# deck/card (cards) or deck/card/variant (flags): slugs, the variant a word or a cloze number.
CARD_KEY_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$")
ITEM_KEY_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+$")


class Spec:
    nullable = False

    def expected(self) -> str:
        raise NotImplementedError

    def wrong(self, value) -> bool:
        """True when ``value`` (not null) does not fit, before any look inside it."""
        raise NotImplementedError


@dataclass(frozen=True)
class Integer(Spec):
    low: int = 0
    high: int = MAX_COUNT
    nullable: bool = False
    what: str = "a whole number"

    def expected(self) -> str:
        if self.high == MAX_COUNT:
            return f"{self.what}, 0 or more" if self.low == 0 else self.what
        return f"{self.what} ({self.low} to {self.high})"

    def wrong(self, value) -> bool:
        return type(value) is not int or not self.low <= value <= self.high


@dataclass(frozen=True)
class Number(Spec):
    low: float = 0.0
    high: float = 1.0
    nullable: bool = False

    def expected(self) -> str:
        return f"a finite number from {self.low:g} to {self.high:g}"

    def wrong(self, value) -> bool:
        # bool is an int to Python, not a number to a report; NaN and Infinity fail the range test.
        return (type(value) not in (int, float) or not math.isfinite(value)
                or not self.low <= value <= self.high)


@dataclass(frozen=True)
class Text(Spec):
    pattern: re.Pattern | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False
    what: str = "text"

    def expected(self) -> str:
        if self.choices:
            return "one of " + ", ".join(json.dumps(c) for c in self.choices)
        return self.what

    def wrong(self, value) -> bool:
        if type(value) is not str:
            return True
        if self.choices:
            return value not in self.choices
        return self.pattern is not None and not self.pattern.match(value)


@dataclass(frozen=True)
class Boolean(Spec):
    nullable: bool = False

    def expected(self) -> str:
        return "true or false"

    def wrong(self, value) -> bool:
        return type(value) is not bool


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    nullable: bool = False

    def expected(self) -> str:
        return "a list"

    def wrong(self, value) -> bool:
        return type(value) is not list


@dataclass(frozen=True)
class Record(Spec):
    fields: dict
    nullable: bool = False

    def expected(self) -> str:
        return "an object"

    def wrong(self, value) -> bool:
        return type(value) is not dict


@dataclass(frozen=True)
class MapOf(Spec):
    value: Spec
    nullable: bool = False

    def expected(self) -> str:
        return "an object"

    def wrong(self, value) -> bool:
        return type(value) is not dict


COUNT = Integer()
SHARE = Number()
SHARE_OR_NULL = Number(nullable=True)
TIME_MS = Integer(0, MAX_MS, what="a time in epoch milliseconds, before the year 10000")
TIME_MS_OR_NULL = Integer(0, MAX_MS, nullable=True, what="a time in epoch milliseconds, before the year 10000")
DURATION_MS = Integer(what="a duration in milliseconds")
TEXT = Text()
TEXT_OR_NULL = Text(nullable=True)
SLUG = Text(SLUG_RE, what="a deck id (lower-case letters, digits and hyphens)")
NAME = Text(re.compile(r"\S"), what="a non-empty text")

RETENTION = Record({"retention": SHARE_OR_NULL, "young": SHARE_OR_NULL, "mature": SHARE_OR_NULL,
                    "answers": COUNT, "young_answers": COUNT, "mature_answers": COUNT})

REPORT = Record({
    "studyapp": TEXT,
    "profile": Text(PROFILE_RE, what="a profile name (letters, digits, '.', '_' and '-', as --profile takes)"),
    "generated_ms": TIME_MS,
    "generated": TEXT_OR_NULL,
    "mastery_rule": TEXT,
    "retention_rule": TEXT,
    "curriculum": TEXT_OR_NULL,
    "totals": Record({
        "items": COUNT, "mastered": COUNT, "facts": COUNT, "mastered_facts": COUNT, "mastery": SHARE,
        "reviews": COUNT, "retention": SHARE_OR_NULL, "retention_young": SHARE_OR_NULL,
        "retention_mature": SHARE_OR_NULL, "retention_answers": COUNT, "retention_by_span": MapOf(RETENTION),
        "time_ms": DURATION_MS, "streak_days": COUNT, "started_ms": TIME_MS_OR_NULL,
        "last_studied_ms": TIME_MS_OR_NULL,
    }),
    "decks": ListOf(Record({
        "id": SLUG, "title": TEXT, "items": COUNT, "mastered": COUNT, "facts": COUNT, "mastered_facts": COUNT,
        "mastery": SHARE, "reviews": COUNT, "retention": SHARE_OR_NULL, "retention_young": SHARE_OR_NULL,
        "retention_mature": SHARE_OR_NULL, "retention_answers": COUNT, "time_ms": DURATION_MS,
        "last_studied_ms": TIME_MS_OR_NULL,
    })),
    "tracks": ListOf(Record({
        "id": NAME, "title": TEXT, "decks": ListOf(SLUG), "target": SHARE, "facts": COUNT,
        "mastered_facts": COUNT, "mastery": SHARE, "status": Text(choices=TRACK_STATUSES),
        "days": Integer(nullable=True), "deadline": TEXT_OR_NULL, "after": ListOf(NAME),
    })),
    "next": Record({"track": Text(nullable=True), "deck": SLUG, "title": TEXT}, nullable=True),
    "exams": ListOf(Record({
        "time_ms": TIME_MS, "date": TEXT_OR_NULL, "decks": ListOf(SLUG), "seed": Integer(-MAX_COUNT, MAX_COUNT),
        "mode": TEXT, "questions": COUNT, "correct": COUNT, "score": SHARE, "pass_mark": SHARE,
        "passed": Boolean(),
    })),
    "cards": ListOf(Record({"key": Text(CARD_KEY_RE, what="a card key (deck id/card id)"), "reviews": COUNT,
                            "again": COUNT})),
})


# A flag is a note beside the figures: a flag that does not fit is left out with a warning, and
# the report still merges (reports before flags existed have none).
FLAG = Record({
    "key": Text(ITEM_KEY_RE, what="an item key (deck id/card id/variant)"), "deck": SLUG, "card": SLUG,
    "note": TEXT, "time_ms": TIME_MS_OR_NULL, "date": TEXT_OR_NULL,
})


@dataclass(frozen=True)
class FieldProblem:
    path: tuple  # keys and list indexes from the top of the document
    expected: str
    found: str

    @property
    def json_path(self) -> str:
        return json_path(self.path)


def json_path(parts: tuple) -> str:
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def describe(value) -> str:
    """A value as the message shows it: short, and never the whole of a long text."""
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if type(value) in (int, float):
        text = repr(value)
        return text if len(text) <= 24 else f"a {len(text)}-digit number"
    if type(value) is str:
        shown = json.dumps(value[:40], ensure_ascii=True) + ("..." if len(value) > 40 else "")
        return f"the text {shown}"
    if type(value) is list:
        return f"a list of {len(value)}"
    return "an object"


def check(document, spec: Spec = REPORT, limit: int = 20, at: tuple = ()) -> list[FieldProblem]:
    """Every field of ``document`` (found at ``at``) that does not fit ``spec``, up to ``limit`` of them."""
    if _fits(spec)(document):
        return []
    problems: list[FieldProblem] = []
    # A stack, not recursion: the schema is shallow, but a document need not be.
    stack = [(document, spec, at)]
    while stack and len(problems) < limit:
        value, current, path = stack.pop()
        if value is None and current.nullable:
            continue
        if value is None or current.wrong(value):
            problems.append(FieldProblem(path, current.expected() + (" or null" if current.nullable else ""),
                                         describe(value)))
            continue
        if isinstance(current, Record):
            for name in reversed(list(current.fields)):
                if name in value:
                    stack.append((value[name], current.fields[name], path + (name,)))
        elif isinstance(current, ListOf):
            # Only the entries that fail: a million fitting cards need no paths.
            item_fits = _fits(current.item)
            stack += [(item, current.item, path + (index,)) for index, item in reversed(list(enumerate(value)))
                      if not item_fits(item)]
        elif isinstance(current, MapOf):
            stack += [(item, current.value, path + (key,)) for key, item in reversed(list(value.items()))]
    return problems


_FITS: dict[int, tuple] = {}


def _fits(spec: Spec):
    """A predicate for the whole value, inside included: the fast test every report gets (a report may
    hold a million cards, and a walk that keeps paths costs four times the parse). Written out as
    Python source per schema, once; only a report that fails it is walked to find which field."""
    if id(spec) not in _FITS:
        namespace: dict = {"_MISSING": object()}
        lines: list[str] = []
        name = _compile(spec, namespace, lines)
        exec("\n".join(lines), namespace)  # source built here from the schema above, no input
        _FITS[id(spec)] = (spec, namespace[name])
    return _FITS[id(spec)][1]


def _compile(spec: Spec, namespace: dict, lines: list[str]) -> str:
    """The name of a function (defined by ``lines``) that is true when a value fits ``spec``."""
    name = f"_fit{len(namespace)}"
    namespace[name] = None
    if isinstance(spec, Record):
        body = [f"def {name}(v):", "    if type(v) is not dict:", f"        return {spec.nullable!r} and v is None"]
        for index, (field_name, field_spec) in enumerate(spec.fields.items()):
            body += [f"    x = v.get({field_name!r}, _MISSING)",
                     f"    if x is not _MISSING and not ({_expression(field_spec, 'x', namespace, lines)}):",
                     "        return False"]
        lines += body + ["    return True"]
    else:
        lines += [f"def {name}(v):", f"    return {_expression(spec, 'v', namespace, lines)}"]
    return name


def _expression(spec: Spec, var: str, namespace: dict, lines: list[str]) -> str:
    def constant(value) -> str:
        key = f"_c{len(namespace)}"
        namespace[key] = value
        return key

    if isinstance(spec, Integer):
        test = f"type({var}) is int and {spec.low} <= {var} <= {spec.high}"
    elif isinstance(spec, Number):
        # NaN and the infinities fail the range comparison; bool is an int but no number to a report.
        test = f"(type({var}) is float or type({var}) is int) and {spec.low!r} <= {var} <= {spec.high!r}"
    elif isinstance(spec, Text):
        test = f"type({var}) is str"
        if spec.choices:
            test += f" and {var} in {constant(frozenset(spec.choices))}"
        elif spec.pattern is not None:
            test += f" and {constant(spec.pattern.match)}({var}) is not None"
    elif isinstance(spec, Boolean):
        test = f"type({var}) is bool"
    elif isinstance(spec, ListOf):
        test = f"type({var}) is list and all(map({_compile(spec.item, namespace, lines)}, {var}))"
    elif isinstance(spec, MapOf):
        test = f"type({var}) is dict and all(map({_compile(spec.value, namespace, lines)}, {var}.values()))"
    else:
        return f"{_compile(spec, namespace, lines)}({var})"
    return f"({var} is None or ({test}))" if spec.nullable else f"({test})"


# -- where a field is in the file ------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def locate(text: str, path: tuple) -> tuple[int, int]:
    """(line, column) where the value at ``path`` starts in ``text``; (1, 1) when it cannot be told.

    Only run for a file being rejected, so it may parse the siblings it skips again."""
    position = 0
    try:
        for part in path:
            position = _WHITESPACE.match(text, position).end()
            if isinstance(part, int):
                position = _array_item(text, position, part)
            else:
                position = _object_member(text, position, part)
        position = _WHITESPACE.match(text, position).end()
    except (ValueError, IndexError, RecursionError):
        return 1, 1
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


def _array_item(text: str, position: int, index: int) -> int:
    if text[position] != "[":
        raise ValueError
    position += 1
    for _ in range(index):
        position = _WHITESPACE.match(text, position).end()
        _, position = _DECODER.raw_decode(text, position)
        position = _WHITESPACE.match(text, position).end()
        if text[position] != ",":
            raise ValueError
        position += 1
    return position


def _object_member(text: str, position: int, name: str) -> int:
    """The start of member ``name``'s value; of its last occurrence, as json.loads keeps the last."""
    if text[position] != "{":
        raise ValueError
    position += 1
    found = None
    while True:
        position = _WHITESPACE.match(text, position).end()
        if text[position] == "}":
            break
        key, position = json.decoder.scanstring(text, position + 1)
        position = _WHITESPACE.match(text, position).end()
        if text[position] != ":":
            raise ValueError
        position = _WHITESPACE.match(text, position + 1).end()
        if key == name:
            found = position
        _, position = _DECODER.raw_decode(text, position)
        position = _WHITESPACE.match(text, position).end()
        if text[position] == "}":
            break
        if text[position] != ",":
            raise ValueError
        position += 1
    if found is None:
        raise ValueError
    return found


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def too_deep(text: str, limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """(line, column) of the bracket that opens level ``limit + 1``, or None when none does."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                start = match.start()
                return text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1
        elif token in "]}":
            depth -= 1
    return None
