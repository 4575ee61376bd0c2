"""The Anki card id of an item: one stable number shared by the export and the scheduler.

Anki seeds its fuzz with the card id (plus the review count), so the same number must be
the card's id in an exported package and the seed studyapp's scheduler uses: then a card
studied here and the same card exported to Anki draw the same fuzz.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

# Above every millisecond timestamp Anki has made (2**40 ms is in 2004: ids from 2004 on
# overlap, which does no harm, as ids only need to be unique among the package's cards),
# below 2**53 so that JavaScript and JSON readers keep it exact.
_LOW, _HIGH = 1 << 40, 1 << 53


@lru_cache(maxsize=1 << 17)
def anki_card_id(item_key: str) -> int:
    """The card id for the item ``deck_id/card_id/variant`` (``models.item_key``)."""
    digest = hashlib.sha256(f"studyapp-card:{item_key}".encode()).digest()
    return _LOW + int.from_bytes(digest[:8], "big") % (_HIGH - _LOW)
