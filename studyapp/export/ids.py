"""Stable numbers that name a studyapp item inside Anki.

``anki_card_id`` (defined in core/anki_ids.py) is the one function that gives an item its Anki card id. Anki seeds its
fuzz with the card id plus the card's review count, so the scheduler can reproduce Anki's
fuzz from the same number (engine: call ``anki_card_id(item key)``); an export with
progress writes it as the card's id, so the card keeps that id in every collection that
imports the package, and an import from Anki recognises it.

Anki refuses a package whose card or note ids lie more than a day in the future
(rslib ``ExchangeData::check_ids``), and reads ids as creation times in milliseconds:
the ids fall between 2001-09-09 and 2017-07-14, always in the past, and never near
the ids Anki gives cards created today.
"""

from __future__ import annotations

from ..core.anki_ids import _HIGH, _LOW, anki_card_id  # noqa: F401  (the one definition: the engine's fuzz seed)

# Where anki_card_id puts its ids (core/anki_ids.py says why: past times Anki's importer keeps).
CARD_ID_BASE = _LOW
CARD_ID_SPAN = _HIGH - _LOW


def is_studyapp_card_id(card_id: int) -> bool:
    """Whether ``card_id`` lies where ``anki_card_id`` puts its ids (a hint, never proof)."""
    return CARD_ID_BASE <= card_id < CARD_ID_BASE + CARD_ID_SPAN


def revlog_ids(entries) -> list[int]:
    """The Anki revlog id of each review-log row, given in log order as (time_ms, anki revlog id or None).

    A row that came from Anki keeps its id; a studyapp row travels under its answer time
    in milliseconds (what Anki uses), one more for each earlier row that already took it.
    Rows only ever append, so a row's id never changes between exports, and an import
    recognises a review it exported earlier by this id.
    """
    entries = list(entries)
    numbers = [int(time_ms) if anki_id is None else int(anki_id) for time_ms, anki_id in entries]
    if len(set(numbers)) == len(numbers):
        # No two rows want one number (nearly always): no row moves, and none need be looked at again.
        return numbers
    # Two rows want one number: from the first of them on, each row takes the next number free.
    taken: set[int] = set()
    add = taken.add
    for index, (time_ms, anki_id) in enumerate(entries):
        number = numbers[index]
        if anki_id is None:
            while number in taken:
                number += 1
            numbers[index] = number
        add(number)
    return numbers
