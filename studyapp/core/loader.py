"""Loading and validating one deck file (``schema: 1`` or the bilingual ``schema: 2``).

Every problem of a file is reported in one pass. A problem in one card leaves that card
out and keeps the rest of the deck; only a file that cannot be read as a deck at all
(syntax, wrong top level, no usable id) yields no deck.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from pathlib import Path

from .models import CARD_TYPES, CLOZE_RE, HAN_RE, LATIN_WORD_RE, Card, CardText, Deck, LoadResult, Position, phrase_words
from .problems import ERROR, WARNING, DeckLoadError, Problem
from .sourcetext import is_markdown
from .yamlsafe import LocatedDict, LocatedList, parse, read_text

SCHEMA_VERSION = 1
BILINGUAL_SCHEMA = 2
SCHEMA_VERSIONS = (SCHEMA_VERSION, BILINGUAL_SCHEMA)
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LANGUAGE_RE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$")
MAX_CHOICES = 6

DECK_KEYS = {"schema", "id", "title", "seed", "seed_hash", "min_coverage", "description", "tags", "cards"}
# No 'seed': a bank brought in from elsewhere may have no source document (its quotes go unverified).
DECK_REQUIRED = ("schema", "id", "title", "cards")
HASH_PREFIX = "sha256:"
DECK_KEYS_2 = DECK_KEYS | {"languages"}
DECK_REQUIRED_2 = (*DECK_REQUIRED[:3], "languages", *DECK_REQUIRED[3:])
# A quote no longer verbatim in a changed seed "moved" when a passage this similar is still there
# (reworded, re-punctuated, reflowed); below it the quoted statement "vanished".
MOVED_SIMILARITY = 0.8
COMMON_CARD_KEYS = {"id", "type", "source", "explanation", "tags", "revision", "related"}
# Schema 1 texts have no language; this stands for it inside the loader only.
NO_LANGUAGE = ""
# Languages written in Han characters: a plain text of Han characters shown to a learner of any
# other language is untranslated, and so is a sentence without Han characters shown to these.
HAN_LANGUAGES = {"zh", "ja"}
# A plain text with more Latin words than this reads as a sentence, not a term kept in English.
MAX_TERM_WORDS = 4
# A reverse card's sides are terms: more words than this (two Han characters count as one) is a sentence.
MAX_REVERSE_WORDS = 6
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


_OUTSIDE = Path("/")  # stands for a seed path refused for leaving the deck's tree


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
        self._hashes: dict[Path, str] = {}

    def read(self, path: Path) -> str:
        """The seed's body (front matter removed); SeedUnreadable says why not."""
        if path not in self._texts:
            try:
                whole = read_seed_file(path)
                self._hashes[path] = content_hash(whole)
                self._texts[path] = seed_body(whole)
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

    def hash(self, path: Path) -> str | None:
        """The whole file's content hash (front matter included), once it has been read."""
        return self._hashes.get(path)


def content_hash(text: str) -> str:
    """What a deck records in ``seed_hash``: the SHA-256 of the file's bytes, as ``sha256sum`` prints it."""
    import hashlib

    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


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
    builder = _DeckBuilder(path, problems, seeds or SeedCache())
    deck = builder.build(data)
    if deck is not None:
        from .lints import deck_lints

        problems.extend(deck_lints(deck))
    return LoadResult(path, deck, problems, card_entries=builder.card_entries)


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
        self.card_entries = 0  # every entry under cards:, loaded or left out for its errors
        self.schema = SCHEMA_VERSION
        self.languages: tuple[str, ...] = (NO_LANGUAGE,)
        self.seed_markdown = False
        self.has_seed = True
        # (where seed_hash is written, the recorded hash, the seed's own) when they differ
        self.stale: tuple[Position, str, str] | None = None
        self.stale_cards: list[str] = []

    def report(self, position: Position, code: str, message: str, severity: str = ERROR) -> None:
        self.problems.append(Problem(self.where, position.line, position.column, severity, code, message))
        self.errors += severity == ERROR

    @property
    def bilingual(self) -> bool:
        return self.schema == BILINGUAL_SCHEMA

    @property
    def primary(self) -> str:
        return self.languages[0]

    def build(self, data) -> Deck | None:
        if not isinstance(data, LocatedDict):
            position = getattr(data, "position", Position(1, 1))
            kind = "a list" if isinstance(data, list) else "a single value"
            self.report(position, "not-a-mapping", f"the top level of a deck must be a mapping (schema:, id:, cards: ...), not {kind}")
            return None
        top = data.position
        schema = data.get("schema")
        if "schema" in data and schema not in SCHEMA_VERSIONS:
            self.report(data.value_positions["schema"], "schema-version",
                        f"schema {schema!r} is not one this version reads; use 'schema: {SCHEMA_VERSION}' "
                        f"or, for a deck in several languages, 'schema: {BILINGUAL_SCHEMA}'")
            return None
        self.schema = schema if schema in SCHEMA_VERSIONS else SCHEMA_VERSION
        self._unknown_keys(data, DECK_KEYS_2 if self.bilingual else DECK_KEYS, "deck")
        for key in DECK_REQUIRED_2 if self.bilingual else DECK_REQUIRED:
            if key not in data:
                hint = " such as 'languages: [zh, en]' (the first is the primary)" if key == "languages" else ""
                self.report(top, "missing-field", f"the deck has no '{key}'; add it{hint}")
        if self.bilingual:
            languages = self._languages(data)
            if languages is None:
                return None
            self.languages = languages
        deck_id = self._text(data, "id")
        if deck_id is None:
            return None
        if not SLUG_RE.match(deck_id):
            self.report(data.value_positions["id"], "bad-slug",
                        f"deck id {deck_id!r} is not a slug: use lowercase letters, digits and single hyphens")
            return None
        titles = self._localized(data, "title") or {language: deck_id for language in self.languages}
        descriptions = self._localized(data, "description") or {language: "" for language in self.languages}
        tags = self._tags(data)
        seed_path, seed_text = self._seed(data)
        if seed_path is _OUTSIDE:
            # A seed outside the deck's tree is refused outright: the source viewer must never show
            # /etc/passwd or read /dev/zero because a deck said so (F4).
            return None
        seed_hash = self._seed_hash(data, seed_path, seed_text)
        min_coverage = self._min_coverage(data)
        self.seed_markdown = seed_path is not None and is_markdown(seed_path)
        self.has_seed = "seed" in data
        cards = self._cards(data, seed_text)
        if seed_path is None and "seed" not in data:
            self.report(data.value_positions["id"], "no-source",
                        "the deck names no source document ('seed:'), so there are no quotes to verify; "
                        "add 'seed: ../seeds/FILE.md' and quote it in each card's 'source' to have them checked",
                        severity=WARNING)
        self._report_stale(data)
        keys = {key: data.value_positions[key] for key in ("seed", "seed_hash", "min_coverage") if key in data}
        extra = dict(seed_hash=seed_hash, min_coverage=min_coverage, key_positions=keys)
        if not self.bilingual:
            return Deck(deck_id, titles[NO_LANGUAGE], self.path, seed_path, tuple(cards), descriptions[NO_LANGUAGE], tags,
                        data.value_positions["id"], **extra)
        return Deck(deck_id, titles[self.primary], self.path, seed_path, tuple(cards), descriptions[self.primary], tags,
                    data.value_positions["id"], languages=self.languages, language=self.primary,
                    titles=titles, descriptions=descriptions, **extra)

    def _seed_hash(self, data: LocatedDict, seed_path: Path | None, seed_text: str | None) -> str:
        """The recorded hash; when the seed no longer has it, the cards' quotes are judged as stale."""
        if "seed_hash" not in data:
            return ""
        recorded = self._text(data, "seed_hash")
        position = data.value_positions["seed_hash"]
        if recorded is None:
            return ""
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", recorded):
            self.report(position, "bad-seed-hash", f"seed_hash {recorded!r} is not 'sha256:' and 64 hex digits; "
                        "run 'studyapp check --accept-source DECK' to record the seed's hash")
            return ""
        if seed_path is None or seed_text is None:
            return recorded
        actual = self.seeds.hash(seed_path)
        if actual is not None and actual != recorded:
            self.stale = (position, recorded, actual)
        return recorded

    def _min_coverage(self, data: LocatedDict) -> float | None:
        if "min_coverage" not in data:
            return None
        from .curriculum import parse_share

        share = parse_share(data["min_coverage"])
        if share is None:
            self.report(data.value_positions["min_coverage"], "bad-share",
                        f"min_coverage {data['min_coverage']!r} is not a share: write it as 80% or 0.8 (above 0, at most 100%)")
        return share

    def _report_stale(self, data: LocatedDict) -> None:
        if self.stale is None:
            return
        position, recorded, actual = self.stale
        affected = len(self.stale_cards)
        if affected == 1:
            listed = "1 card quotes a passage that moved or vanished (listed)"
        elif affected:
            listed = f"{affected} cards quote passages that moved or vanished (listed)"
        else:
            listed = "every card's quotes are still verbatim in it"
        self.report(position, "source-changed",
                    f"the seed changed since its hash was recorded ({recorded[:15]}..., now {actual[:15]}...); {listed}; "
                    f"once you have looked, run 'studyapp check --accept-source {data.get('id')}' to record the new hash")

    def _languages(self, data: LocatedDict) -> tuple[str, ...] | None:
        if "languages" not in data:
            return None
        value = data["languages"]
        position = data.value_positions["languages"]
        if not isinstance(value, LocatedList) or not value:
            self.report(position, "wrong-type", "'languages' must be a list of language codes such as [zh, en], the primary first")
            return None
        languages: list[str] = []
        for code, code_position in zip(value, value.item_positions):
            if not isinstance(code, str) or not LANGUAGE_RE.match(code):
                self.report(code_position, "bad-language", f"{code!r} is not a language code; use a code such as zh or en")
                return None
            if code in languages:
                self.report(code_position, "duplicate-language", f"language '{code}' is listed twice in 'languages'")
                return None
            languages.append(code)
        return tuple(languages)

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
        return self._plain(mapping[key], mapping.value_positions[key], key)

    def _plain(self, value, position: Position, key: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.report(position, "wrong-type", f"'{key}' must be text, not {_kind(value)}")
            return None
        if not isinstance(value, str):
            value = str(value)
        if not value.strip():
            self.report(position, "empty", f"'{key}' is empty; write the text")
            return None
        return value

    def _localized(self, mapping: LocatedDict, key: str) -> dict[str, str] | None:
        """A text a learner reads, by language: in schema 2 a plain string or a mapping of the deck's languages."""
        if key not in mapping:
            return None
        return self._localized_value(mapping[key], mapping.value_positions[key], key)

    def _localized_value(self, value, position: Position, key: str, lint: bool = True) -> dict[str, str] | None:
        if not self.bilingual:
            text = self._plain(value, position, key)
            return None if text is None else {NO_LANGUAGE: text}
        if isinstance(value, LocatedDict):
            if not self._language_keys(value, key):
                return None
            out: dict[str, str] = {}
            for language in self.languages:
                text = self._plain(value[language], value.value_positions[language], f"{key}.{language}")
                if text is None:
                    return None
                out[language] = text
            return out
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.report(position, "wrong-type",
                        f"'{key}' must be text or a mapping of the deck's languages ({_example(self.languages)}), not {_kind(value)}")
            return None
        text = self._plain(value, position, key)
        if text is None:
            return None
        if lint:
            self._untranslated(text, position, key)
        return {language: text for language in self.languages}

    def _language_keys(self, mapping: LocatedDict, key: str) -> bool:
        ok = True
        for language in mapping:
            if language not in self.languages:
                self.report(mapping.key_positions[language], "unknown-language",
                            f"'{key}' has a text in {str(language)!r}, which the deck does not declare "
                            f"(languages: {', '.join(self.languages)}); remove it or add it to 'languages'")
                ok = False
        for language in self.languages:
            if language not in mapping:
                self.report(mapping.position, "missing-language",
                            f"'{key}' has no '{language}' text; add {language}: \"...\" to the mapping "
                            f"(or write one plain string if the text is the same in every language)")
                ok = False
        return ok

    def _untranslated(self, text: str, position: Position, key: str) -> None:
        """Warn of a plain string that one of the deck's languages would show untranslated."""
        if len(self.languages) < 2:
            return
        if HAN_RE.search(text):
            others = [language for language in self.languages if language not in HAN_LANGUAGES]
            if others:
                self.report(position, "untranslated-text",
                            f"'{key}' is one plain string in Chinese, shown as is to {'/'.join(others)} learners; "
                            f"write it as {_example(self.languages)}", severity=WARNING)
        elif len(LATIN_WORD_RE.findall(text)) > MAX_TERM_WORDS:
            hans = [language for language in self.languages if language in HAN_LANGUAGES]
            if hans:
                self.report(position, "untranslated-text",
                            f"'{key}' is one plain string of {len(LATIN_WORD_RE.findall(text))} words, shown untranslated to "
                            f"{'/'.join(hans)} learners (a plain string suits a term of up to {MAX_TERM_WORDS} words); "
                            f"write it as {_example(self.languages)}", severity=WARNING)

    def _text_list(self, mapping: LocatedDict, key: str) -> tuple[str, ...] | None:
        return self._plain_list(mapping[key], mapping.value_positions[key], key)

    def _plain_list(self, value, position: Position, key: str) -> tuple[str, ...] | None:
        values = value if isinstance(value, list) else [value]
        positions = value.item_positions if isinstance(value, LocatedList) else [position]
        out = []
        for item, item_position in zip(values, positions):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                hint = ("; source quotes stay verbatim in the seed's own language, never a mapping of languages"
                        if key == "source" and isinstance(item, dict) else "")
                self.report(item_position, "wrong-type", f"'{key}' must hold text, not {_kind(item)}{hint}")
                return None
            item = str(item)
            if not item.strip():
                self.report(item_position, "empty", f"'{key}' holds an empty entry; remove it or write the text")
                return None
            out.append(item)
        return tuple(out)

    def _accept(self, raw: LocatedDict) -> dict[str, tuple[str, ...]] | None:
        """Other right answers: a list in any language, or (schema 2) lists by language."""
        value = raw["accept"]
        position = raw.value_positions["accept"]
        if self.bilingual and isinstance(value, LocatedDict):
            if not self._language_keys(value, "accept"):
                return None
            out: dict[str, tuple[str, ...]] = {}
            for language in self.languages:
                entries = self._plain_list(value[language], value.value_positions[language], f"accept.{language}")
                if entries is None:
                    return None
                out[language] = entries
            return out
        entries = self._plain_list(value, position, "accept")
        return None if entries is None else {language: entries for language in self.languages}

    def _tags(self, mapping: LocatedDict) -> tuple[str, ...]:
        if "tags" not in mapping:
            return ()
        tags = self._text_list(mapping, "tags") or ()
        for tag in tags:
            if any(ch.isspace() for ch in tag):
                self.report(mapping.value_positions["tags"], "bad-tag", f"tag {tag!r} contains a space; use hyphens")
        return tags

    def _seed(self, data: LocatedDict) -> tuple[Path | None, str | None]:
        """The seed's resolved path and text; no path for a deck without one, _OUTSIDE when it lies
        outside the deck's tree."""
        seed = self._text(data, "seed")
        if seed is None:
            return None, None
        position = data.value_positions["seed"]
        relative = Path(seed)
        if relative.is_absolute():
            self.report(position, "seed-outside", f"seed path {seed!r} is absolute; give it relative to this deck "
                        "file; the deck was not loaded")
            return _OUTSIDE, None
        deck_dir = self.path.parent.resolve()
        root = deck_dir.parent
        # resolve() follows symbolic links, so a link inside the tree that points outside it is outside.
        resolved = (deck_dir / relative).resolve()
        if not resolved.is_relative_to(root):
            self.report(position, "seed-outside",
                        f"seed path {seed!r} leads to {resolved}, outside {root}; seeds must lie within the folder "
                        "that holds the deck's folder; the deck was not loaded")
            return _OUTSIDE, None
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
            # A warning: a bank just scaffolded by 'studyapp new' has none yet, and nothing is wrong with it.
            self.report(data.value_positions["cards"], "no-cards",
                        "the deck has no cards yet; add one (or uncomment an example)", severity=WARNING)
        self.card_entries = len(cards_value)
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
        written_ids = {raw["id"] for raw in cards_value if isinstance(raw, LocatedDict) and isinstance(raw.get("id"), str)}
        return self._relate(cards, written_ids)

    def _relate(self, cards: list[Card], written_ids: set) -> list[Card]:
        """Check each card's ``related`` ids and make the relation symmetric."""
        loaded = {card.id for card in cards}
        related: dict[str, list[str]] = {card.id: [] for card in cards}
        for card in cards:
            position = card.position_of("related")
            for other in card.related:
                if other == card.id:
                    self.report(position, "related-self", f"card '{card.id}' names itself in 'related'; remove it")
                elif other not in written_ids:
                    hint = _close_matches(other, sorted(loaded))
                    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                    self.report(position, "related-unknown",
                                f"card '{card.id}' is related to '{other}', which is no card of this deck{suggestion}")
                elif other in loaded:
                    for a, b in ((card.id, other), (other, card.id)):
                        if b not in related[a]:
                            related[a].append(b)
        return [card if tuple(related[card.id]) == card.related else replace(card, related=tuple(related[card.id]))
                for card in cards]

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
        if "source" not in raw and self.has_seed:
            self.report(position, "missing-field", "the card has no 'source'; quote the passage of the seed it tests")
        texts: dict[str, dict[str, str]] = {}
        for key in ("front", "back", "text", "statement", "explanation"):
            if key in raw and key in CARD_KEYS[card_type]:
                value = self._localized(raw, key)
                if value is not None:
                    texts[key] = value
        source = self._text_list(raw, "source") if "source" in raw else None
        accept = self._accept(raw) if "accept" in raw and "accept" in CARD_KEYS[card_type] else None
        related = self._text_list(raw, "related") if "related" in raw else ()
        tags = self._tags(raw)
        revision = 1
        if "revision" in raw:
            revision = raw["revision"]
            if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
                self.report(raw.value_positions["revision"], "wrong-type", f"'revision' must be a whole number from 1 up, not {revision!r}")
                revision = 1
        choices: dict[str, tuple[str, ...]] = {}
        answers: dict[str, str | bool | None] = {language: None for language in self.languages}
        feedback: dict[str, dict[str, str]] = {language: {} for language in self.languages}
        if card_type == "choice":
            choices, answers, feedback = self._choice(raw)
        elif card_type == "truefalse" and "answer" in raw:
            answer = raw["answer"]
            if not isinstance(answer, bool):
                self.report(raw.value_positions["answer"], "wrong-type",
                            f"a truefalse answer must be true or false (a YAML boolean), not {answer!r}")
                answer = None
            answers = {language: answer for language in self.languages}
        if card_type == "cloze" and "text" in texts:
            self._clozes(texts["text"], raw.value_positions["text"])
        if source is not None and seed_text is not None:
            self._sources(source, raw, seed_text, card_id)
        if self.errors > errors_before or card_id is None:
            return None
        if not self.bilingual:
            card = Card(
                id=card_id, type=card_type, source=source or (), position=position,
                front=texts.get("front", {}).get(NO_LANGUAGE, ""), back=texts.get("back", {}).get(NO_LANGUAGE, ""),
                text=texts.get("text", {}).get(NO_LANGUAGE, ""), statement=texts.get("statement", {}).get(NO_LANGUAGE, ""),
                choices=choices.get(NO_LANGUAGE, ()), answer=answers[NO_LANGUAGE], feedback=feedback[NO_LANGUAGE],
                accept=accept[NO_LANGUAGE] if accept else (), explanation=texts.get("explanation", {}).get(NO_LANGUAGE, ""),
                tags=tags, revision=revision, related=related or (),
                field_positions={**{k: raw.value_positions[k] for k in raw if isinstance(k, str)}, "id": raw.value_positions.get("id", position)},
            )
            return self._checked(card)
        wordings = {
            language: CardText(
                front=texts.get("front", {}).get(language, ""), back=texts.get("back", {}).get(language, ""),
                text=texts.get("text", {}).get(language, ""), statement=texts.get("statement", {}).get(language, ""),
                choices=choices.get(language, ()), answer=answers[language], feedback=feedback[language],
                accept=accept[language] if accept else (), explanation=texts.get("explanation", {}).get(language, ""),
            )
            for language in self.languages
        }
        shown = wordings[self.primary]
        card = Card(
            id=card_id, type=card_type, source=source or (), position=position,
            front=shown.front, back=shown.back, text=shown.text, statement=shown.statement, choices=shown.choices,
            answer=shown.answer, feedback=shown.feedback, accept=shown.accept, explanation=shown.explanation,
            tags=tags, revision=revision, related=related or (),
            language=self.primary, texts=wordings,
            field_positions={**{k: raw.value_positions[k] for k in raw if isinstance(k, str)}, "id": raw.value_positions.get("id", position)},
        )
        return self._checked(card)

    def _checked(self, card: Card) -> Card:
        self._leaks(card)
        if card.type == "reverse":
            self._reverse_sides(card)
        return card

    def _choice(self, raw: LocatedDict) -> tuple[dict[str, tuple[str, ...]], dict[str, str | None], dict[str, dict[str, str]]]:
        languages = self.languages
        choices: dict[str, tuple[str, ...]] = {}
        if "choices" in raw:
            value = raw["choices"]
            position = raw.value_positions["choices"]
            if not isinstance(value, list):
                self.report(position, "wrong-type", f"'choices' must be a list of options, not {_kind(value)}")
            else:
                options = [self._localized_value(option, option_position, "choices")
                           for option, option_position in zip(value, value.item_positions)]
                if all(option is not None for option in options):
                    choices = {language: tuple(option[language] for option in options) for language in languages}
                    if not 2 <= len(options) <= MAX_CHOICES:
                        self.report(position, "choice-count", f"a choice card needs 2 to {MAX_CHOICES} options, this one has {len(options)}")
                    reported: set[int] = set()
                    for language in languages:
                        seen: set[str] = set()
                        for index, (choice, choice_position) in enumerate(zip(choices[language], value.item_positions)):
                            if choice in seen and index not in reported:
                                reported.add(index)
                                where = f" in {language}" if self.bilingual else ""
                                self.report(choice_position, "duplicate-choice", f"option {choice!r} is listed twice{where}")
                            seen.add(choice)
        primary_choices = choices.get(self.primary, ())
        answers: dict[str, str | None] = {language: None for language in languages}
        if "answer" in raw:
            value = raw["answer"]
            position = raw.value_positions["answer"]
            in_primary = f" in the primary language ({self.primary})" if self.bilingual else ""
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.report(position, "wrong-type", f"a choice answer must be the text of one option{in_primary}, not {_kind(value)}")
            else:
                answer = str(value)
                if primary_choices and answer not in primary_choices:
                    other = next((language for language in languages[1:] if answer in choices[language]), None)
                    if other:
                        self.report(position, "answer-not-in-choices",
                                    f"answer {answer!r} is the {other} text of an option; write its {self.primary} text, "
                                    f"{primary_choices[choices[other].index(answer)]!r}")
                    else:
                        self.report(position, "answer-not-in-choices",
                                    f"answer {answer!r} is not one of the choices; copy the option's text{in_primary} exactly")
                elif primary_choices:
                    index = primary_choices.index(answer)
                    answers = {language: choices[language][index] for language in languages}
                else:
                    answers = {language: answer for language in languages}
        feedback: dict[str, dict[str, str]] = {language: {} for language in languages}
        if "feedback" in raw:
            value = raw["feedback"]
            if not isinstance(value, LocatedDict):
                self.report(raw.value_positions["feedback"], "wrong-type", "'feedback' must map options to why they are wrong")
            else:
                for option, why in value.items():
                    option_text = str(option)
                    if primary_choices and option_text not in primary_choices:
                        keyed = f" (key feedback by the option's {self.primary} text)" if self.bilingual else ""
                        self.report(value.key_positions[option], "feedback-unknown-choice",
                                    f"feedback for {option_text!r}, which is not one of the choices{keyed}")
                        continue
                    if not self.bilingual and (not isinstance(why, str) or not why.strip()):
                        self.report(value.value_positions[option], "wrong-type", f"feedback for {option_text!r} must be text")
                        continue
                    whys = self._localized_value(why, value.value_positions[option], "feedback")
                    if whys is None:
                        continue
                    index = primary_choices.index(option_text) if primary_choices else None
                    for language in languages:
                        key = choices[language][index] if index is not None else option_text
                        feedback[language][key] = whys[language]
        return choices, answers, feedback

    def _clozes(self, texts: dict[str, str], position: Position) -> None:
        numbers: dict[str, list[int]] = {}
        for language, text in texts.items():
            errors_before = self.errors
            if text in (texts[other] for other in list(texts)[:list(texts).index(language)]):
                continue  # the same plain text in each language: checked once
            self._cloze(text, position)
            if self.errors == errors_before:
                numbers[language] = sorted({int(m.group(1)) for m in CLOZE_RE.finditer(text)})
        distinct = {tuple(n) for n in numbers.values()}
        if len(distinct) > 1:
            listed = "; ".join(f"{language}: {', '.join(f'c{n}' for n in found)}" for language, found in numbers.items())
            self.report(position, "cloze-languages-differ",
                        f"the languages' texts hide different deletions ({listed}); each language must have the same cloze numbers")

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

    def _sources(self, source: tuple[str, ...], raw: LocatedDict, seed_text: str, card_id: str | None) -> None:
        position = raw.value_positions["source"]
        for quote in source:
            if quote in seed_text or self.seed_markdown and _in_rendered(quote, seed_text):
                continue
            closest = _closest_passage(quote, seed_text)
            if self.stale is None:
                self.report(position, "source-not-in-seed",
                            f"source quote {quote!r} is not verbatim in the seed; the closest passage is {closest!r}; "
                            "copy it character for character")
                continue
            import difflib

            # the id as read (a number is a valid id, read as text); "?" for a card without a usable one
            card = "?" if card_id is None else card_id
            if card not in self.stale_cards:
                self.stale_cards.append(card)
            if difflib.SequenceMatcher(None, quote, closest, autojunk=False).ratio() >= MOVED_SIMILARITY:
                self.report(position, "quote-moved",
                            f"card '{card}': the seed changed and its quote {quote!r} is no longer verbatim; the closest "
                            f"new passage is {closest!r}; quote that (or reword the card) if it still says the same")
            else:
                self.report(position, "quote-vanished",
                            f"card '{card}': the seed changed and its quote {quote!r} is gone; the closest new passage is "
                            f"{closest!r}; if the statement was removed, remove or rewrite the card")

    def _leaks(self, card: Card) -> None:
        seen: set[tuple[str, str, str]] = set()
        for wording in card.wordings():
            pairs: list[tuple[str, str, str]] = []
            if card.type in ("basic", "reverse"):
                pairs.append((wording.back, wording.front, "front"))
                if card.type == "reverse":
                    pairs.append((wording.front, wording.back, "back"))
            elif card.type == "choice" and wording.answer:
                pairs.append((str(wording.answer), wording.front, "front"))
            for pair in pairs:
                answer, question, where = pair
                if pair in seen:
                    continue
                seen.add(pair)
                if _contains_phrase(question, answer):
                    self.report(card.position_of(where), "answer-leak",
                                f"card '{card.id}': the answer {answer!r} appears in its own question; reword the question",
                                severity=WARNING)

    def _reverse_sides(self, card: Card) -> None:
        for side in ("front", "back"):
            for wording in card.wordings():
                text = getattr(wording, side)
                words = phrase_words(text)
                if words > MAX_REVERSE_WORDS:
                    self.report(card.position_of(side), "reverse-long-side",
                                f"card '{card.id}': the reverse card's {side} {text!r} is {words} words long, more than "
                                f"a short phrase ({MAX_REVERSE_WORDS} words, two Chinese characters counting as one); "
                                f"a reverse card pairs two terms: make it a basic card", severity=WARNING)
                    break


def _in_rendered(quote: str, body: str) -> bool:
    """Whether a quote matches the Markdown body as it reads, written either as it reads or with its markup."""
    from .sourcetext import render_inline, rendered

    text = rendered(body)
    return quote in text or render_inline(quote) in text


def _example(languages: tuple[str, ...]) -> str:
    return "{" + ", ".join(f'{language}: "..."' for language in languages) + "}"


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
