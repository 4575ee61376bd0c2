"""What the report and the home screen need of the decks, kept beside the deck cache.

Loading a 100,000-card catalog from the deck cache takes seconds (every card, position and
text becomes an object), while ``report`` and the home screen's table need of each deck only
its id, title, languages and the item keys of each fact. Those are written to a small file
next to the cache whenever a catalog is loaded through it, keyed by the very stamps the cache
keeps (size, modification time and inode of every deck file and its seed) and by the folders
searched. The summary is used only while every stamp still matches, that is exactly when the
deck cache itself would give back the same decks; anything else, and the caller loads the
catalog as before (which writes a fresh summary). Like the cache, it only ever changes speed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import __version__
from .cachefile import MISSING, read_key, read_keyed, write_keyed
from .deckcache import file_stamp
from .gcpause import collector_paused
from .models import SYNC_VERSION
from .problems import Problem

if TYPE_CHECKING:
    from .catalog import Catalog
    from .deckcache import DeckCache

SUMMARY_FORMAT = 2


@dataclass(frozen=True)
class DeckSummary:
    id: str
    title: str
    path: Path
    language: str = ""
    languages: tuple[str, ...] = ()
    titles: dict[str, str] = field(default_factory=dict)
    # The item keys of each fact (a card with the cards it names as related), cards without items left out:
    # what ``onboarding.report.Bank`` works out from the cards.
    facts: tuple[tuple[str, ...], ...] = ()
    # What the store's sync keeps for the deck (core.models.sync_fingerprint): when the store holds the
    # same, its items are in step with the deck and today's counts need no cards (see ``groups``).
    fingerprint: str = ""
    # (card id, sibling group) of every card, for a deck where ``related:`` joins cards (``queue.group_keys``);
    # () elsewhere, where each card is its own group.
    groups: tuple[tuple[str, str], ...] = ()

    @property
    def items(self) -> int:
        return sum(len(keys) for keys in self.facts)

    def shown_title(self, choice: str | None) -> str:
        """The title ``core.language.localize`` gives the deck for the learner's choice."""
        from .language import BOTH

        if not self.languages:
            return self.title
        language = self.languages[0] if choice == BOTH or choice not in self.languages else choice
        if language == self.language:
            return self.title
        return self.titles.get(language, self.title)


@dataclass(frozen=True)
class CatalogSummary:
    decks: tuple[DeckSummary, ...]
    # Deck files that did not load, each with its error problems (what the warnings name).
    broken: tuple[tuple[Path, tuple[Problem, ...]], ...] = ()

    def sibling_groups(self) -> dict[tuple[str, str], str]:
        """(deck id, card id) -> sibling group for the linked decks, as ``ReviewSession`` works them out."""
        return {(deck.id, card_id): group for deck in self.decks for card_id, group in deck.groups}

    def bank(self):
        from ..onboarding.report import Bank

        return Bank.from_facts(self.decks, {deck.id: deck.facts for deck in self.decks})


def summarize(catalog: Catalog) -> CatalogSummary:
    from .models import has_links, item_key, sync_fingerprint
    from .queue import group_keys

    groups = group_keys(catalog.decks)
    decks = []
    for deck in catalog.decks:
        facts: dict[str, list[str]] = {}
        for card in deck.cards:
            variants = card.variants()
            if variants:
                keys = facts.setdefault(groups[(deck.id, card.id)], [])
                keys.extend(item_key(deck.id, card.id, variant) for variant in variants)
        linked = has_links(deck)
        decks.append(DeckSummary(deck.id, deck.title, deck.path, deck.language, tuple(deck.languages),
                                 dict(deck.titles), tuple(tuple(keys) for keys in facts.values()),
                                 sync_fingerprint(deck),
                                 tuple((card.id, groups[(deck.id, card.id)]) for card in deck.cards) if linked else ()))
    broken = tuple((result.path, tuple(p for p in result.problems if p.is_error)) for result in catalog.broken_files)
    return CatalogSummary(tuple(decks), broken)


def summary_file(cache_file: Path) -> Path:
    return cache_file.with_name(cache_file.stem + ".summary" + cache_file.suffix)


def _sources(roots: Sequence[Path]) -> list[tuple[str, list[str]]]:
    from .catalog import deck_files

    return [(str(root), [str(file) for file in deck_files(root)]) for root in roots]


def save(cache_file: Path, roots: Sequence[Path], cache: DeckCache, catalog: Catalog) -> None:
    """Write the summary of ``catalog``, loaded from the files under ``roots`` through ``cache``,
    keyed by the stamps the cache holds for them (nothing is written if it lacks one)."""
    sources = _sources(roots)
    stamps = {}
    for _, files in sources:
        for file in files:
            entry = cache.entries.get(file)
            if entry is None:
                return
            deck_stamp, seed_path, seed_stamp, _ = entry
            stamps[file] = (deck_stamp, None if seed_path is None else str(seed_path), seed_stamp)
    # The sync fingerprints it holds are compared with the store's: a new way of making them
    # (models.SYNC_VERSION) must not leave summaries that never match again.
    key = {"format": SUMMARY_FORMAT, "version": __version__, "sync": SYNC_VERSION, "sources": sources,
           "stamps": stamps}
    write_keyed(summary_file(cache_file), key, summarize(catalog))


def _fresh(key, roots: Sequence[Path]) -> bool:
    if not isinstance(key, dict) or key.get("format") != SUMMARY_FORMAT or key.get("version") != __version__:
        return False
    if key.get("sync") != SYNC_VERSION:
        return False
    if key["sources"] != _sources(roots):
        return False
    for file, (deck_stamp, seed_path, seed_stamp) in key["stamps"].items():
        if file_stamp(file) != deck_stamp or (seed_path is not None and file_stamp(seed_path) != seed_stamp):
            return False
    return True


def load_key(cache_file: Path, roots: Sequence[Path]) -> dict | None:
    """The stored summary's key if it is fresh for ``roots`` (the summary itself is not read)."""
    key = read_key(summary_file(cache_file))
    return key if key is not MISSING and _fresh(key, roots) else None


def load(cache_file: Path, roots: Sequence[Path]) -> CatalogSummary | None:
    """The summary kept for the decks under ``roots``, or None when there is none or a file changed."""
    # A hundred thousand small strings and tuples, no cycles. Missing, unreadable or from another
    # version: the catalog is loaded instead.
    with collector_paused():
        summary = read_keyed(summary_file(cache_file), lambda key: _fresh(key, roots))
    return summary if isinstance(summary, CatalogSummary) else None
