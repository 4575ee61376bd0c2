"""Loading and validating one deck file (``schema: 1``).

Every problem of a file is reported in one pass. A problem in one card leaves that card
out and keeps the rest of the deck; only a file that cannot be read as a deck at all
(syntax, wrong top level, no usable id) yields no deck.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from .models import CARD_TYPES, CLOZE_RE, Card, Deck, LoadResult, Position
from .problems import ERROR, WARNING, DeckLoadError, Problem
from .yamlsafe import LocatedDict, LocatedList, parse, read_text

SCHEMA_VERSION = 1
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_CHOICES = 6

DECK_KEYS = {"schema", "id", "title", "seed", "description", "tags", "cards"}
DECK_REQUIRED = ("schema", "id", "title", "seed", "cards")
COMMON_CARD_KEYS = {"id", "type", "source", "explanation", "tags", "revision"}
CARD_KEYS = {
    "basic": COMMON_CARD_KEYS | {"front", "back", "accept"},
    "reverse": COMMON_CARD_KEYS | {"front", "back", "accept"},
    "cloze": COMMON_CARD_KEYS | {"text"},
    "choice": COMMON_CARD_KEYS | {"front", "choices", "answer", "feedback"},
    "truefalse": COMMON_CARD_KEYS | {"statement", "answer"},
}
CARD_REQUIRED = {
    "basic": ("front", "back"),
    "reverse": ("front", "back"),
    "cloze": ("text",),
    "choice": ("front", "choices", "answer"),
    "truefalse": ("statement", "answer"),
}
ALL_CARD_KEYS = set().union(*CARD_KEYS.values())


# A source document is prose (the bundled ones are under 100 KB); anything bigger is not a seed.
MAX_SEED_BYTES = 8 * 1024 * 1024


class SeedUnreadable(Exception):
    """Why a seed file cannot be read, in words for a message."""


def read_seed_file(path: Path, max_bytes: int = MAX_SEED_BYTES) -> str:
    """The whole text of a seed file: only a regular file, at most ``max_bytes``, UTF-8.

    Opened without blocking and judged on the open descriptor, so a FIFO cannot hang the
    caller, a device (/dev/zero) cannot feed it without end, and a file swapped between a
    check and the read is still judged by what was opened."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise SeedUnreadable(error.strerror or str(error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SeedUnreadable("it is not a regular file (a FIFO, a device or a folder)")
        if info.st_size > max_bytes:
            raise SeedUnreadable(f"it is {info.st_size} bytes, more than the {max_bytes} a source document may be")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise SeedUnreadable(f"it grew past the {max_bytes} bytes a source document may be")
    except OSError as error:
        raise SeedUnreadable(error.strerror or str(error)) from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise SeedUnreadable("it is not UTF-8 text") from None


class SeedCache:
    """Seed texts by resolved path, so a folder of decks reads each seed once."""

    def __init__(self) -> None:
        self._texts: dict[Path, str | SeedUnreadable] = {}

    def read(self, path: Path) -> str:
        """The seed's body (front matter removed); SeedUnreadable says why not."""
        if path not in self._texts:
            try:
                self._texts[path] = seed_body(read_seed_file(path))
            except SeedUnreadable as why:
                self._texts[path] = why
        found = self._texts[path]
        if isinstance(found, SeedUnreadable):
            raise found
        return found

    def text(self, path: Path) -> str | None:
        try:
            return self.read(path)
        except SeedUnreadable:
            return None


def seed_body(text: str) -> str:
    """The seed's document text, without its front matter."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            return text[end + 5:]
    return text


def load_deck(path: Path, seeds: SeedCache | None = None) -> LoadResult:
    """Load and validate one deck file. Never raises for bad input."""
    path = Path(path)
    problems: list[Problem] = []
    try:
        data = parse(read_text(path), path, problems)
    except DeckLoadError as error:
        problems.append(Problem(str(path), error.line, error.column, ERROR, error.code, error.message))
        return LoadResult(path, None, problems)
    deck = _DeckBuilder(path, problems, seeds or SeedCache()).build(data)
    return LoadResult(path, deck, problems)


def normalise_question(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


class _DeckBuilder:
    def __init__(self, path: Path, problems: list[Problem], seeds: SeedCache):
        self.path = path
        self.where = str(path)
        self.problems = problems
        self.seeds = seeds
        # Problems the YAML layer already found (duplicate keys) count as errors too.
        self.errors = sum(1 for p in problems if p.is_error)

    def report(self, position: Position, code: str, message: str, severity: str = ERROR) -> None:
        self.problems.append(Problem(self.where, position.line, position.column, severity, code, message))
        self.errors += severity == ERROR

    def build(self, data) -> Deck | None:
        if not isinstance(data, LocatedDict):
            position = getattr(data, "position", Position(1, 1))
            kind = "a list" if isinstance(data, list) else "a single value"
            self.report(position, "not-a-mapping", f"the top level of a deck must be a mapping (schema:, id:, cards: ...), not {kind}")
            return None
        top = data.position
        self._unknown_keys(data, DECK_KEYS, "deck")
        for key in DECK_REQUIRED:
            if key not in data:
                self.report(top, "missing-field", f"the deck has no '{key}'; add it")
        schema = data.get("schema")
        if "schema" in data and schema != SCHEMA_VERSION:
            self.report(data.value_positions["schema"], "schema-version",
                        f"schema {schema!r} is not one this version reads; use 'schema: {SCHEMA_VERSION}'")
            return None
        deck_id = self._text(data, "id")
        if deck_id is None:
            return None
        if not SLUG_RE.match(deck_id):
            self.report(data.value_positions["id"], "bad-slug",
                        f"deck id {deck_id!r} is not a slug: use lowercase letters, digits and single hyphens")
            return None
        title = self._text(data, "title") or deck_id
        description = self._text(data, "description") or ""
        tags = self._tags(data)
        seed_path, seed_text = self._seed(data)
        if seed_path is None:
            # A seed outside the deck's tree is refused outright: the source viewer must never show
            # /etc/passwd or read /dev/zero because a deck said so (F4).
            return None
        cards = self._cards(data, seed_text)
        return Deck(deck_id, title, self.path, seed_path, tuple(cards), description, tags, data.value_positions["id"])

    # -- helpers for fields -------------------------------------------------

    def _unknown_keys(self, mapping: LocatedDict, allowed: set[str], what: str, everything: set[str] | None = None) -> None:
        for key in mapping:
            if key in allowed:
                continue
            position = mapping.key_positions[key]
            if everything and key in everything:
                self.report(position, "field-not-for-type", f"'{key}' does not belong on {what}; remove it")
                continue
            hint = _close_matches(str(key), sorted(everything or allowed))
            suggestion = f"; did you mean '{hint[0]}'?" if hint else f"; allowed: {', '.join(sorted(allowed))}"
            self.report(position, "unknown-key", f"unknown key '{key}' in {what}{suggestion}")

    def _text(self, mapping: LocatedDict, key: str) -> str | None:
        if key not in mapping:
            return None
        value = mapping[key]
        position = mapping.value_positions[key]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.report(position, "wrong-type", f"'{key}' must be text, not {_kind(value)}")
            return None
        if not isinstance(value, str):
            value = str(value)
        if not value.strip():
            self.report(position, "empty", f"'{key}' is empty; write the text")
            return None
        return value

    def _text_list(self, mapping: LocatedDict, key: str) -> tuple[str, ...] | None:
        value = mapping[key]
        position = mapping.value_positions[key]
        values = value if isinstance(value, list) else [value]
        positions = value.item_positions if isinstance(value, LocatedList) else [position]
        out = []
        for item, item_position in zip(values, positions):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                self.report(item_position, "wrong-type", f"'{key}' must hold text, not {_kind(item)}")
                return None
            item = str(item)
            if not item.strip():
                self.report(item_position, "empty", f"'{key}' holds an empty entry; remove it or write the text")
                return None
            out.append(item)
        return tuple(out)

    def _tags(self, mapping: LocatedDict) -> tuple[str, ...]:
        if "tags" not in mapping:
            return ()
        tags = self._text_list(mapping, "tags") or ()
        for tag in tags:
            if any(ch.isspace() for ch in tag):
                self.report(mapping.value_positions["tags"], "bad-tag", f"tag {tag!r} contains a space; use hyphens")
        return tags

    def _seed(self, data: LocatedDict) -> tuple[Path | None, str | None]:
        """The seed's resolved path and text; no path at all when it lies outside the deck's tree."""
        seed = self._text(data, "seed")
        if seed is None:
            return self.path, None
        position = data.value_positions["seed"]
        relative = Path(seed)
        if relative.is_absolute():
            self.report(position, "seed-outside", f"seed path {seed!r} is absolute; give it relative to this deck "
                        "file; the deck was not loaded")
            return None, None
        deck_dir = self.path.parent.resolve()
        root = deck_dir.parent
        # resolve() follows symbolic links, so a link inside the tree that points outside it is outside.
        resolved = (deck_dir / relative).resolve()
        if not resolved.is_relative_to(root):
            self.report(position, "seed-outside",
                        f"seed path {seed!r} leads to {resolved}, outside {root}; seeds must lie within the folder "
                        "that holds the deck's folder; the deck was not loaded")
            return None, None
        if not resolved.exists():
            self.report(position, "missing-seed", f"seed file {seed!r} does not exist (looked for {resolved})")
            return resolved, None
        try:
            text = self.seeds.read(resolved)
        except SeedUnreadable as why:
            self.report(position, "missing-seed", f"seed file {seed!r} cannot be read: {why}")
            return resolved, None
        return resolved, text

    # -- cards ----------------------------------------------------------------

    def _cards(self, data: LocatedDict, seed_text: str | None) -> list[Card]:
        if "cards" not in data:
            return []
        cards_value = data["cards"]
        if not isinstance(cards_value, LocatedList):
            self.report(data.value_positions["cards"], "wrong-type", f"'cards' must be a list of cards, not {_kind(cards_value)}")
            return []
        if not cards_value:
            self.report(data.value_positions["cards"], "no-cards", "the deck has no cards; add at least one")
        cards: list[Card] = []
        first_by_id: dict[str, Position] = {}
        first_by_question: dict[str, tuple[str, Position]] = {}
        for raw, position in zip(cards_value, cards_value.item_positions):
            card = self._card(raw, position, seed_text)
            if card is None:
                continue
            if card.id in first_by_id:
                self.report(card.position_of("id"), "duplicate-card-id",
                            f"card id '{card.id}' is already used at line {first_by_id[card.id].line}; card ids must be unique in a deck")
                continue
            first_by_id[card.id] = card.position
            question = normalise_question(card.question)
            if card.type != "cloze" and question in first_by_question:
                other_id, other = first_by_question[question]
                self.report(card.position_of("front" if card.type != "truefalse" else "statement"), "duplicate-question",
                            f"card '{card.id}' asks the same question as card '{other_id}' (line {other.line}); reword or remove one")
            first_by_question.setdefault(question, (card.id, card.position))
            cards.append(card)
        return cards

    def _card(self, raw, position: Position, seed_text: str | None) -> Card | None:
        if not isinstance(raw, LocatedDict):
            self.report(getattr(raw, "position", position), "wrong-type", f"a card must be a mapping (id:, type:, ...), not {_kind(raw)}")
            return None
        errors_before = self.errors
        card_id = self._text(raw, "id")
        if card_id is None and "id" not in raw:
            self.report(position, "missing-field", "the card has no 'id'; add a slug such as 'cache-layers'")
        elif card_id is not None and not SLUG_RE.match(card_id):
            self.report(raw.value_positions["id"], "bad-slug", f"card id {card_id!r} is not a slug: use lowercase letters, digits and single hyphens")
        card_type = raw.get("type")
        if "type" not in raw:
            self.report(position, "missing-field", f"the card has no 'type'; use one of {', '.join(CARD_TYPES)}")
            return None
        if card_type not in CARD_TYPES:
            hint = _close_matches(str(card_type), CARD_TYPES)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            self.report(raw.value_positions["type"], "unknown-type",
                        f"unknown card type {card_type!r}{suggestion} (one of {', '.join(CARD_TYPES)})")
            return None
        label = f"a {card_type} card"
        self._unknown_keys(raw, CARD_KEYS[card_type], label, ALL_CARD_KEYS)
        for key in CARD_REQUIRED[card_type]:
            if key not in raw:
                self.report(position, "missing-field", f"{label} needs '{key}'; add it")
        if "source" not in raw:
            self.report(position, "missing-field", "the card has no 'source'; quote the passage of the seed it tests")
        fields: dict = {}
        for key in ("front", "back", "text", "statement", "explanation"):
            if key in raw and key in CARD_KEYS[card_type]:
                value = self._text(raw, key)
                if value is not None:
                    fields[key] = value
        source = self._text_list(raw, "source") if "source" in raw else None
        accept = self._text_list(raw, "accept") if "accept" in raw and "accept" in CARD_KEYS[card_type] else ()
        tags = self._tags(raw)
        revision = 1
        if "revision" in raw:
            revision = raw["revision"]
            if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
                self.report(raw.value_positions["revision"], "wrong-type", f"'revision' must be a whole number from 1 up, not {revision!r}")
                revision = 1
        choices: tuple[str, ...] = ()
        answer = None
        feedback: dict[str, str] = {}
        if card_type == "choice":
            choices, answer, feedback = self._choice(raw)
        elif card_type == "truefalse" and "answer" in raw:
            answer = raw["answer"]
            if not isinstance(answer, bool):
                self.report(raw.value_positions["answer"], "wrong-type",
                            f"a truefalse answer must be true or false (a YAML boolean), not {answer!r}")
                answer = None
        if card_type == "cloze" and "text" in fields:
            self._cloze(fields["text"], raw.value_positions["text"])
        if source is not None and seed_text is not None:
            self._sources(source, raw, seed_text)
        if self.errors > errors_before or card_id is None:
            return None
        card = Card(
            id=card_id, type=card_type, source=source or (), position=position,
            front=fields.get("front", ""), back=fields.get("back", ""), text=fields.get("text", ""),
            statement=fields.get("statement", ""), choices=choices, answer=answer, feedback=feedback,
            accept=accept or (), explanation=fields.get("explanation", ""), tags=tags, revision=revision,
            field_positions={**{k: raw.value_positions[k] for k in raw if isinstance(k, str)}, "id": raw.value_positions.get("id", position)},
        )
        self._leaks(card)
        return card

    def _choice(self, raw: LocatedDict) -> tuple[tuple[str, ...], str | None, dict[str, str]]:
        choices: tuple[str, ...] = ()
        if "choices" in raw:
            value = raw["choices"]
            position = raw.value_positions["choices"]
            if not isinstance(value, list):
                self.report(position, "wrong-type", f"'choices' must be a list of options, not {_kind(value)}")
            else:
                choices = self._text_list(raw, "choices") or ()
                if choices and not 2 <= len(choices) <= MAX_CHOICES:
                    self.report(position, "choice-count", f"a choice card needs 2 to {MAX_CHOICES} options, this one has {len(choices)}")
                seen: set[str] = set()
                for choice, choice_position in zip(choices, value.item_positions):
                    if choice in seen:
                        self.report(choice_position, "duplicate-choice", f"option {choice!r} is listed twice")
                    seen.add(choice)
        answer = None
        if "answer" in raw:
            value = raw["answer"]
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.report(raw.value_positions["answer"], "wrong-type", f"a choice answer must be the text of one option, not {_kind(value)}")
            else:
                answer = str(value)
                if choices and answer not in choices:
                    self.report(raw.value_positions["answer"], "answer-not-in-choices",
                                f"answer {answer!r} is not one of the choices; copy the option's text exactly")
        feedback: dict[str, str] = {}
        if "feedback" in raw:
            value = raw["feedback"]
            if not isinstance(value, LocatedDict):
                self.report(raw.value_positions["feedback"], "wrong-type", "'feedback' must map options to why they are wrong")
            else:
                for option, why in value.items():
                    option_text = str(option)
                    if choices and option_text not in choices:
                        self.report(value.key_positions[option], "feedback-unknown-choice",
                                    f"feedback for {option_text!r}, which is not one of the choices")
                    elif not isinstance(why, str) or not why.strip():
                        self.report(value.value_positions[option], "wrong-type", f"feedback for {option_text!r} must be text")
                    else:
                        feedback[option_text] = why
        return choices, answer, feedback

    def _cloze(self, text: str, position: Position) -> None:
        depth = 0
        i = 0
        while i < len(text):
            if text.startswith("{{", i):
                if text.startswith("{{c", i) and depth:
                    self.report(position, "cloze-nested", "a cloze deletion is nested inside another; Anki cannot show nested deletions")
                    return
                depth += 1
                i += 2
            elif text.startswith("}}", i):
                depth -= 1
                if depth < 0:
                    self.report(position, "cloze-unbalanced", "'}}' closes a deletion that was never opened")
                    return
                i += 2
            else:
                i += 1
        if depth:
            self.report(position, "cloze-unbalanced", "a '{{' is never closed with '}}'")
            return
        matches = list(CLOZE_RE.finditer(text))
        if not matches:
            self.report(position, "cloze-none", "the cloze text has no deletion; mark one as {{c1::answer}}")
            return
        for match in matches:
            if not match.group(2).strip():
                self.report(position, "cloze-empty", f"deletion c{match.group(1)} is empty; put the hidden answer inside it")
            if int(match.group(1)) < 1:
                self.report(position, "cloze-number", "cloze numbers start at c1")
        stray = CLOZE_RE.sub("", text)
        if "{{" in stray or "}}" in stray:
            self.report(position, "cloze-unbalanced", "braces that are not a {{cN::...}} deletion; write deletions as {{c1::answer}}")

    def _sources(self, source: tuple[str, ...], raw: LocatedDict, seed_text: str) -> None:
        position = raw.value_positions["source"]
        for quote in source:
            if quote in seed_text:
                continue
            closest = _closest_passage(quote, seed_text)
            self.report(position, "source-not-in-seed",
                        f"source quote {quote!r} is not verbatim in the seed; the closest passage is {closest!r}; copy it character for character")

    def _leaks(self, card: Card) -> None:
        pairs: list[tuple[str, str, str]] = []
        if card.type in ("basic", "reverse"):
            pairs.append((card.back, card.front, "front"))
            if card.type == "reverse":
                pairs.append((card.front, card.back, "back"))
        elif card.type == "choice" and card.answer:
            pairs.append((str(card.answer), card.front, "front"))
        for answer, question, where in pairs:
            if _contains_phrase(question, answer):
                self.report(card.position_of(where), "answer-leak",
                            f"card '{card.id}': the answer {answer!r} appears in its own question; reword the question",
                            severity=WARNING)


def _contains_phrase(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as whole words, ignoring case and punctuation."""
    needle_n = normalise_question(needle)
    if len(needle_n) < 2:
        return False
    haystack_n = normalise_question(haystack)
    start = haystack_n.find(needle_n)
    while start >= 0:
        end = start + len(needle_n)
        before_ok = start == 0 or not _is_word_char(haystack_n[start - 1])
        after_ok = end == len(haystack_n) or not _is_word_char(haystack_n[end])
        if before_ok and after_ok:
            return True
        start = haystack_n.find(needle_n, start + 1)
    return False


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _close_matches(word: str, candidates) -> list[str]:
    import difflib  # only on the error path: it costs start-up time

    return difflib.get_close_matches(word, candidates, n=1)


def _closest_passage(quote: str, seed: str) -> str:
    if not seed:
        return ""
    import difflib

    matcher = difflib.SequenceMatcher(None, seed, quote, autojunk=False)
    match = matcher.find_longest_match(0, len(seed), 0, len(quote))
    start = max(0, match.a - match.b)
    return seed[start:start + len(quote) + 4]


def _kind(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
