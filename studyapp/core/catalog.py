"""Finding decks: the bundled folder, ``--decks`` folders and ``STUDYAPP_DECKS``.

A deck that fails to load never stops the others: its problems are collected beside
the decks that did load.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .deckcache import DeckCache
from .models import Deck, LoadResult
from .problems import ERROR, Problem, StudyappError

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


def user_deck_dirs(flag_dirs: list[str] | None = None, environ: dict | None = None,
                   cwd: Path | None = None) -> list[Path]:
    """The learner's own deck folders, in order: ``--decks``, then ``STUDYAPP_DECKS``, then a ``decks/``
    folder holding a deck file in ``cwd`` (the way a linter checks the project it is run in).

    A folder the learner named that does not exist is a usage error: a typo must not hide a team's decks.
    """
    environ = os.environ if environ is None else environ
    named = [(Path(d), "--decks") for d in flag_dirs or []]
    named += [(Path(d), "STUDYAPP_DECKS") for d in environ.get("STUDYAPP_DECKS", "").split(os.pathsep) if d]
    for folder, origin in named:
        if not folder.exists():
            raise StudyappError(f"{origin} {folder}: no such folder; name a folder that holds deck files", code="usage")
    dirs = [folder for folder, _ in named]
    if cwd is not None:
        local = cwd / "decks"
        if local.is_dir() and deck_files(local):
            dirs.append(local)
    return _unique(dirs)


def deck_dirs(user_dirs: Iterable[Path] = ()) -> list[Path]:
    """Every folder decks come from: the learner's own first (they shadow bundled decks), the bundled last."""
    return _unique([*map(Path, user_dirs), bundled_decks_dir()])


def _unique(dirs: list[Path]) -> list[Path]:
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
    # (the learner's deck, the bundled deck file it takes the place of), one per shadowed bundled deck
    shadowed: list[tuple[Deck, Path]] = field(default_factory=list)

    def deck(self, deck_id: str) -> Deck | None:
        for deck in self.decks:
            if deck.id == deck_id:
                return deck
        return None

    def select(self, deck_ids: Sequence[str]) -> list[Deck]:
        """The decks named (all when none), each by its id or a unique prefix of one; anything else is a
        usage error with the likely id, so that ``stats qwen3`` just works and a typo says what was meant."""
        if not deck_ids:
            return list(self.decks)
        known = {deck.id: deck for deck in self.decks}
        chosen: list[Deck] = []
        for name in deck_ids:
            deck = known.get(name)
            if deck is None:
                deck = known[self._resolve_unknown(name, sorted(known))]
            if deck not in chosen:
                chosen.append(deck)
        return chosen

    def _resolve_unknown(self, name: str, ids: list[str]) -> str:
        prefixed = [deck_id for deck_id in ids if deck_id.startswith(name)]
        if len(prefixed) == 1:
            return prefixed[0]
        if prefixed:
            raise StudyappError(f"deck id {name!r} is ambiguous: it starts {', '.join(prefixed)}; type more of it",
                                code="usage")
        import difflib

        close = difflib.get_close_matches(name, ids, n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else \
            f"known decks: {', '.join(ids) or '(none)'}"
        broken = sorted(str(r.path) for r in self.broken_files)
        failed = f"; decks that failed to load: {', '.join(broken)}" if broken else ""
        raise StudyappError(f"unknown deck id {name!r}; {hint}{failed}", code="usage")

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def broken_files(self) -> list[LoadResult]:
        return [r for r in self.results if r.deck is None]


def load_paths(paths: list[Path], cache: DeckCache | None = None, *, shadowable: Path | None = None) -> Catalog:
    """Load every deck under ``paths`` (files or folders), checking ids across all of them.

    A deck under ``shadowable`` (the bundled folder) whose id an earlier path already holds gives way
    to it: the learner's edited copy of a bundled deck is the one they mean."""
    catalog = Catalog()
    seeds = None
    first_by_id: dict[str, Deck] = {}
    shadow_root = shadowable.resolve() if shadowable is not None else None
    for root in paths:
        if not root.exists():
            catalog.problems.append(Problem(str(root), 0, 0, ERROR, "missing-path", "no such file or folder"))
            continue
        gives_way = shadow_root is not None and root.resolve() == shadow_root
        for file in deck_files(root):
            result = cache.get(file) if cache else None
            if result is None:
                # Imported here so that a start-up served from the cache never imports YAML.
                from .loader import SeedCache, load_deck

                seeds = seeds or SeedCache()
                result = load_deck(file, seeds)
                if cache:
                    cache.put(file, result)
            deck = result.deck
            if deck is not None and deck.id in first_by_id and gives_way:
                catalog.shadowed.append((first_by_id[deck.id], file))
                continue
            catalog.problems.extend(result.problems)
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


def summary_roots(user_dirs: Iterable[Path] = ()) -> list[Path]:
    """The folders ``discover`` reads, for ``core.decksummary``."""
    return [d for d in deck_dirs(user_dirs) if d.exists()]


def discover(user_dirs: Iterable[Path] = (), cache_file: Path | None = None) -> Catalog:
    """Every deck the learner can study: their own folders, then the bundled decks they do not shadow.
    With ``cache_file``, unchanged files are not parsed again."""
    bundled = bundled_decks_dir()
    cache = DeckCache(cache_file) if cache_file else None
    # The bundled folder may legitimately be absent (a stripped install); the learner's were checked.
    roots = summary_roots(user_dirs)
    catalog = load_paths(roots, cache, shadowable=bundled)
    if cache is not None and cache_file is not None:
        from . import decksummary

        if cache.saved or decksummary.load_key(cache_file, roots) is None:
            decksummary.save(cache_file, roots, cache, catalog)
    # A big bank is millions of objects that live as long as the process. Left to the cycle collector,
    # every full collection walks them all again: at 100,000 cards building a dict of 100,000 keys
    # took seconds, nearly all of it in the collector (F15). Frozen, they are skipped.
    import gc

    gc.freeze()
    return catalog


# Here rather than in core.curriculum, which parses them: whether a deck folder holds one needs no YAML.
CURRICULUM_NAMES = ("curriculum.yaml", "curriculum.yml")


def find_curricula(folders: list[Path]) -> list[Path]:
    found = []
    for folder in folders:
        if folder.is_file() and folder.name in CURRICULUM_NAMES:
            found.append(folder)
        elif folder.is_dir():
            found += [folder / name for name in CURRICULUM_NAMES if (folder / name).is_file()]
    return found
