"""What every command is given: where progress lives, whose it is, which decks, in which language.

cli.py builds one Context from the parsed options and hands it to the command; nothing below
the command line imports cli. The catalog is loaded on first use, once, so that commands that
need no decks (``report --merge``) never parse one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .core.settings import Location

if TYPE_CHECKING:
    from .core.catalog import Catalog
    from .core.decksummary import CatalogSummary
    from .core.models import Deck

@dataclass
class Context:
    location: Location
    lang: str | None = None  # zh | en | both; None: each deck's primary language
    server: str | None = None  # --server; the environment and config.toml are read where it is used
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    _catalog: Catalog | None = field(default=None, repr=False)

    @property
    def home(self) -> Path:
        return self.location.home

    @property
    def profile(self) -> str:
        return self.location.profile

    @property
    def deck_dirs(self) -> tuple[Path, ...]:
        """The learner's own deck folders (the bundled one comes after them)."""
        return self.location.deck_dirs

    @property
    def cache_file(self) -> Path:
        return self.home / "cache" / "decks.pickle"

    def catalog(self) -> Catalog:
        """Every deck, loaded once; a file that failed is named on stderr with what to run."""
        if self._catalog is None:
            from .core.catalog import discover

            self._catalog = discover(self.deck_dirs, cache_file=self.cache_file)
            for result in self._catalog.broken_files:
                self._warn_unloaded(result.path, [p for p in result.problems if p.is_error])
        return self._catalog

    def catalog_summary(self) -> CatalogSummary:
        """What the report needs of every deck (ids, titles, each fact's item keys), from the summary
        kept beside the deck cache while no deck file changed; from the catalog otherwise. A file
        that failed is named on stderr as ``catalog`` names it."""
        from .core import decksummary
        from .core.catalog import summary_roots

        if self._catalog is None:
            summary = decksummary.load(self.cache_file, summary_roots(self.deck_dirs))
            if summary is not None:
                for path, errors in summary.broken:
                    self._warn_unloaded(path, errors)
                return summary
        return decksummary.summarize(self.catalog())

    def _warn_unloaded(self, path: Path, errors) -> None:
        first = errors[0].format() if errors else str(path)
        self.warn(f"{first}\nstudyapp: warning: deck {path} was not loaded; run 'studyapp check {path}'")

    def select_decks(self, deck_ids) -> list[Deck]:
        """The decks named (all when none), by id or unique prefix; a usage error otherwise."""
        return self.catalog().select(list(deck_ids or ()))

    def warn(self, message: str) -> None:
        print(message, file=self.stderr)
