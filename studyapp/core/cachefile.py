"""The caches kept in the home folder (decks, their summary, the curriculum, styles, dataclass
code): written whole or not at all, and never an error, since a cache only saves time."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import BinaryIO, Callable


def write_cache(target: Path, write: Callable[[BinaryIO], object],
                failures: tuple[type[BaseException], ...] = ()) -> bool:
    """Write ``target`` through ``write`` into a temporary file beside it, then put it in place
    (readers see the old file or the new one). False, and nothing left behind, when the home is
    read-only, the disk full, or ``write`` raised one of ``failures``."""
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as f:
            write(f)
        os.replace(temporary, target)
        return True
    except (OSError, *failures):
        try:
            temporary.unlink()
        except OSError:
            pass
        return False


# What read_keyed and read_key give for a file that is missing, unreadable or not fresh.
MISSING = object()


def write_keyed(target: Path, key: object, value: object) -> bool:
    """``write_cache`` of ``key`` pickled on its own, then ``value``: a reader checks the key
    (what the value was made from) without reading the rest."""

    def write(f: BinaryIO) -> None:
        pickle.dump(key, f, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)

    return write_cache(target, write)


def read_key(target: Path) -> object:
    """The key ``write_keyed`` put first in ``target``, or MISSING."""
    try:
        with open(target, "rb") as f:
            return pickle.load(f)
    except Exception:  # missing, unreadable, from another version: as if there were none
        return MISSING


def read_keyed(target: Path, fresh: Callable[[object], bool]) -> object:
    """The value ``write_keyed`` put in ``target`` when ``fresh`` accepts its key; else MISSING."""
    try:
        with open(target, "rb") as f:
            if not fresh(pickle.load(f)):
                return MISSING
            return pickle.load(f)
    except Exception:  # missing, unreadable, from another version: as if there were none
        return MISSING
