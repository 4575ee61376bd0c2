"""Writing the caches kept in the home folder (decks, their summary, the curriculum, styles,
dataclass code): whole or not at all, and never an error, since a cache only saves time."""

from __future__ import annotations

import os
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
