"""The Anki card id of an item: one stable number shared by the export and the scheduler.

Anki seeds its fuzz with the card id (plus the review count), so the same number must be
the card's id in an exported package and the seed studyapp's scheduler uses: then a card
studied here and the same card exported to Anki draw the same fuzz.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

# Anki's ids are creation times in milliseconds, and its importer gives a card whose id
# lies in the future a new one (seen with Anki 26.9.3: tests/test_anki_ids.py), which
# would change the card's fuzz. So the ids are past times: 1970-01-12 to 2017-07-14.
# Two items of 100,000 share an id with a chance of 1 in 300; Anki then moves one of them
# by 999 on import (that card alone draws other fuzz numbers after an export).
_LOW, _HIGH = 1_000_000_000, 1_500_000_000_000


# item key -> card id. A pick needs the id of the item it shows (its fuzz seed), and a sha256
# first computed there took some 8 us, on caches the answer before it had just cooled; a
# queue's next items get theirs when it is gathered (``remember``), a microsecond each.
_KNOWN: dict[str, int] = {}
_KNOWN_MAX = 1 << 17


def anki_card_id(item_key: str) -> int:
    """The card id for the item ``deck_id/card_id/variant`` (``models.item_key``)."""
    found = _KNOWN.get(item_key)
    if found is None:
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.clear()
        found = _KNOWN[item_key] = _card_id(item_key)
    return found


def _card_id(item_key: str) -> int:
    digest = hashlib.sha256(f"studyapp-card:{item_key}".encode()).digest()
    return _LOW + int.from_bytes(digest[:8], "big") % (_HIGH - _LOW)


def remember(item_keys: Iterable[str]) -> None:
    """Work out the card ids of these items now (the next items of a queue)."""
    for key in item_keys:
        anki_card_id(key)


def known(item_key: str) -> bool:
    """Whether the card id of this item is worked out already."""
    return item_key in _KNOWN


def forget() -> None:
    """Drop every card id worked out so far (for measurements of a first pick)."""
    _KNOWN.clear()
