"""A cache of loaded decks, so that start-up does not parse YAML that has not changed.

Each entry is keyed by the deck file's path and remembers the size, modification time and
inode of the deck file and of its seed (the quote checks depend on the seed). Any
difference and the file is loaded again. The cache lives in the learner's home folder and
is only ever a copy: a missing, stale, unreadable or unwritable cache changes nothing but
speed.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from .. import __version__
from .models import LoadResult

CACHE_FORMAT = 1


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class DeckCache:
    def __init__(self, file: Path):
        self.file = file
        self.entries: dict[str, tuple] = {}
        self.changed = False
        try:
            with open(file, "rb") as f:
                data = pickle.load(f)
            if data.get("format") == CACHE_FORMAT and data.get("version") == __version__:
                self.entries = data["entries"]
        except Exception:  # a cache that cannot be read is simply rebuilt
            self.entries = {}

    def get(self, path: Path) -> LoadResult | None:
        entry = self.entries.get(str(path))
        if entry is None:
            return None
        deck_stamp, seed_path, seed_stamp, result = entry
        if deck_stamp != _stamp(path):
            return None
        if seed_path is not None and seed_stamp != _stamp(seed_path):
            return None
        return result

    def put(self, path: Path, result: LoadResult) -> None:
        seed_path = result.deck.seed_path if result.deck else None
        self.entries[str(path)] = (_stamp(path), seed_path, _stamp(seed_path) if seed_path else None, result)
        self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
            with open(temporary, "wb") as f:
                pickle.dump({"format": CACHE_FORMAT, "version": __version__, "entries": self.entries}, f,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.file)
            self.changed = False
        except OSError:
            pass  # read-only home, full disk: the cache is only an optimisation
