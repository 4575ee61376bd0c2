"""The Anki card id of an item: one stable number shared by the export and the scheduler.

Anki seeds its fuzz with the card id (plus the review count), so the same number must be
the card's id in an exported package and the seed studyapp's scheduler uses: then a card
studied here and the same card exported to Anki draw the same fuzz.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

# Anki's ids are creation times in milliseconds, and its importer gives a card whose id
# lies in the future a new one (seen with Anki 26.9.3: tests/test_anki_ids.py), which
# would change the card's fuzz. So the ids are past times: 1970-01-12 to 2017-07-14.
# Two items of 100,000 share an id with a chance of 1 in 300; Anki then moves one of them
# by 999 on import (that card alone draws other fuzz numbers after an export).
_LOW, _HIGH = 1_000_000_000, 1_500_000_000_000


@lru_cache(maxsize=1 << 17)
def anki_card_id(item_key: str) -> int:
    """The card id for the item ``deck_id/card_id/variant`` (``models.item_key``)."""
    digest = hashlib.sha256(f"studyapp-card:{item_key}".encode()).digest()
    return _LOW + int.from_bytes(digest[:8], "big") % (_HIGH - _LOW)
