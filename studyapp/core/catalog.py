"""Finding decks: the bundled folder, ``--decks`` folders and ``STUDYAPP_DECKS``.

A deck that fails to load never stops the others: its problems are collected beside
the decks that did load.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .deckcache import DeckCache
from .models import Deck, LoadResult
from .problems import ERROR, Problem

DECK_SUFFIXES = (".yaml", ".yml")
# Files in a deck folder that are not decks (the onboarding curriculum).
NOT_DECKS = {"curriculum.yaml", "curriculum.yml"}


def bundled_decks_dir() -> Path:
    """Decks shipped in the wheel, or the checkout's decks/ when run from source."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "_data" / "decks"
    if installed.is_dir():
        return installed
    return package.parent / "decks"


def deck_dirs(extra: list[str] | None = None, environ: dict | None = None) -> list[Path]:
    environ = os.environ if environ is None else environ
    dirs = [bundled_decks_dir()]
    dirs += [Path(d) for d in extra or []]
    dirs += [Path(d) for d in environ.get("STUDYAPP_DECKS", "").split(os.pathsep) if d]
    unique: list[Path] = []
    seen: set[Path] = set()
    for d in dirs:
        key = d.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


def deck_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.suffix in DECK_SUFFIXES and p.name not in NOT_DECKS and p.is_file())


@dataclass
class Catalog:
    decks: list[Deck] = field(default_factory=list)
    results: list[LoadResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def deck(self, deck_id: str) -> Deck | None:
        for deck in self.decks:
            if deck.id == deck_id:
                return deck
        return None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def broken_files(self) -> list[LoadResult]:
        return [r for r in self.results if r.deck is None]


def load_paths(paths: list[Path], cache: DeckCache | None = None) -> Catalog:
    """Load every deck under ``paths`` (files or folders), checking ids across all of them."""
    catalog = Catalog()
    seeds = None
    first_by_id: dict[str, Deck] = {}
    for root in paths:
        if not root.exists():
            catalog.problems.append(Problem(str(root), 0, 0, ERROR, "missing-path", "no such file or folder"))
            continue
        for file in deck_files(root):
            result = cache.get(file) if cache else None
            if result is None:
                # Imported here so that a start-up served from the cache never imports YAML.
                from .loader import SeedCache, load_deck

                seeds = seeds or SeedCache()
                result = load_deck(file, seeds)
                if cache:
                    cache.put(file, result)
            catalog.problems.extend(result.problems)
            deck = result.deck
            if deck is not None and deck.id in first_by_id:
                other = first_by_id[deck.id]
                problem = Problem(
                    str(file), deck.position.line, deck.position.column, ERROR, "duplicate-deck-id",
                    f"deck id '{deck.id}' is already used by {other.path}; deck ids must be unique across all folders",
                )
                catalog.problems.append(problem)
                result = LoadResult(result.path, None, [*result.problems, problem])
            elif deck is not None:
                first_by_id[deck.id] = deck
                catalog.decks.append(deck)
            catalog.results.append(result)
    if cache:
        cache.save()
    return catalog


def discover(extra_dirs: list[str] | None = None, environ: dict | None = None, cache_file: Path | None = None) -> Catalog:
    """Every deck the learner can study. With ``cache_file``, unchanged files are not parsed again."""
    dirs = deck_dirs(extra_dirs, environ)
    cache = DeckCache(cache_file) if cache_file else None
    # The bundled folder may legitimately be absent (a stripped install); others were asked for.
    return load_paths([d for i, d in enumerate(dirs) if i > 0 or d.exists()], cache)
