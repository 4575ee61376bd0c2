"""Recording a seed's content hash in its deck file, as ``seed_hash: sha256:...``.

The deck file is edited as text, one line, so the author's comments, order and quoting survive;
it is replaced whole (written beside it, then renamed), so an interrupted run leaves either the
old file or the new one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..core.loader import SeedUnreadable, content_hash, load_deck, read_seed_file
from ..core.problems import StudyappError

_HASH_LINE = re.compile(r"^seed_hash:.*$", re.MULTILINE)
_SEED_LINE = re.compile(r"^seed:.*$", re.MULTILINE)


def seed_hash_of(path: Path) -> str:
    try:
        return content_hash(read_seed_file(path))
    except SeedUnreadable as why:
        raise StudyappError(f"cannot read the seed {path}: {why}", path=path) from None


def with_seed_hash(deck_text: str, recorded: str) -> str:
    """The deck file's text with ``seed_hash`` set: its line replaced, or added after ``seed:``."""
    line = f"seed_hash: {recorded}"
    if _HASH_LINE.search(deck_text):
        return _HASH_LINE.sub(line, deck_text, count=1)
    seed = _SEED_LINE.search(deck_text)
    if seed is None:
        raise ValueError("no top-level 'seed:' line")
    return deck_text[:seed.end()] + "\n" + line + deck_text[seed.end():]


def accept_source(deck_path: Path) -> tuple[str, bool]:
    """Record the deck's seed's current hash; (the hash, whether the file changed)."""
    deck_path = Path(deck_path)
    result = load_deck(deck_path)
    if result.deck is None:
        raise StudyappError("the deck does not load; run 'studyapp check' on it and fix its errors first", path=deck_path)
    deck = result.deck
    if deck.seed_path is None:
        raise StudyappError("the deck names no source document ('seed:'), so there is no hash to record", path=deck_path,
                            line=deck.position.line, column=deck.position.column)
    recorded = seed_hash_of(deck.seed_path)
    if deck.seed_hash == recorded:
        return recorded, False
    text = deck_path.read_text(encoding="utf-8")
    try:
        updated = with_seed_hash(text, recorded)
    except ValueError:
        position = deck.key_positions.get("seed", deck.position)
        raise StudyappError("'seed:' is not written on a line of its own at the top level; add "
                            f"'seed_hash: {recorded}' under it by hand", path=deck_path,
                            line=position.line, column=position.column) from None
    write_atomically(deck_path, updated)
    return recorded, True


def write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
