"""Builders shared by the engine and store tests: decks made in code, a store on a fake clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from studyapp.core.clock import FakeClock
from studyapp.core.models import Card, Deck
from studyapp.core.presets import DEFAULT_PRESET, Preset, Presets
from studyapp.core.scheduler import Settings
from studyapp.core.settings import Location
from studyapp.store import open_store

ZONE = "Europe/Berlin"
# Monday 2 March 2026, 10:00 in Berlin: well away from the 04:00 rollover.
T0 = int(datetime(2026, 3, 2, 10, 0, tzinfo=ZoneInfo(ZONE)).timestamp() * 1000)
SETTINGS = Settings(timezone=ZONE)
# New items in bank order (Anki's "deck" gather order, kept as gathered), for tests about other things.
BANK_ORDER = Presets({DEFAULT_PRESET: Preset(new_gather_order="deck", new_sort_order="gathered")}, {})


def card(card_id: str, kind: str = "basic", *, revision: int = 1, front: str | None = None, clozes: int = 2) -> Card:
    if kind == "cloze":
        text = " ".join(f"{{{{c{n}::part {n}}}}}" for n in range(1, clozes + 1))
        return Card(id=card_id, type="cloze", source=("s",), text=text, revision=revision)
    return Card(id=card_id, type=kind, source=("s",), front=front or f"Q {card_id}", back=f"A {card_id}",
                revision=revision)


def deck(deck_id: str, cards: list[Card] | int = 10, title: str | None = None) -> Deck:
    if isinstance(cards, int):
        cards = [card(f"c{i:03d}") for i in range(cards)]
    return Deck(id=deck_id, title=title or deck_id.title(), path=Path(f"/decks/{deck_id}.yaml"),
                seed_path=Path("/seeds/x.md"), cards=tuple(cards))


def location(tmp_path: Path, profile: str = "default") -> Location:
    return Location(tmp_path / "home", profile, ())


def store_at(tmp_path: Path, start_ms: int = T0):
    clock = FakeClock(start_ms)
    return open_store(location(tmp_path), clock=clock), clock


def dump(store) -> tuple[list, list]:
    """Every item row and every review-log row, for exact before/after comparisons."""
    items = store.conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    log = store.conn.execute("SELECT * FROM review_log ORDER BY id").fetchall()
    return items, log


# What takes a current database back to schema 5 (tests of older databases' upgrades).
SCHEMA_6_UNDONE = ("DROP INDEX items_new_rank", "DROP INDEX items_deck_sync", "ALTER TABLE items DROP COLUMN new_rank",
                   "ALTER TABLE items DROP COLUMN sync_row",
                   "DELETE FROM meta WHERE key = 'seed'")


def use_scheduling_copy(monkeypatch, which: str) -> None:
    """Schedule with one copy of the compiled code (core/_speedups.c): "compiled" asserts it is
    what runs; "python" swaps every compiled function for its Python reference (what an install
    without a C compiler runs). The fuzz numbers' caches are emptied, so each copy draws its own."""
    from studyapp.core import anki_random, load_balancer, review_days, scheduler
    from studyapp.store import repository

    fuzz_users = (anki_random, scheduler, load_balancer)  # modules that call fuzz_factor by its name
    if which == "python":
        monkeypatch.setattr(scheduler, "_review_days", review_days.review_days_python)
        monkeypatch.setattr(scheduler, "_review_numbers", scheduler._review_numbers_python)
        monkeypatch.setattr(scheduler, "_fuzzed_day", review_days.fuzzed_day_python)
        monkeypatch.setattr(anki_random, "_compiled_first_block", None)
        monkeypatch.setattr(repository, "_compiled_item_rows", None)  # the store's rows made in Python
        for module in fuzz_users:
            monkeypatch.setattr(module, "fuzz_factor", anki_random.fuzz_factor_python)
        for module in (anki_random, scheduler):
            monkeypatch.setattr(module, "learning_fuzz_secs", anki_random.learning_fuzz_secs_python)
    else:
        assert review_days.review_days_compiled is not None, "the install did not compile core/_speedups.c"
        assert scheduler._fuzzed_day is review_days.fuzzed_day_compiled
        assert scheduler._review_numbers is scheduler._review_numbers_compiled is not None
        assert anki_random._compiled_first_block is not None
        assert repository._compiled_item_rows is not None
        assert all(module.fuzz_factor is anki_random.fuzz_factor_compiled is not None for module in fuzz_users)
        assert scheduler.learning_fuzz_secs is anki_random.learning_fuzz_secs_compiled is not None
    empty_fuzz_caches()


def empty_fuzz_caches() -> None:
    """Forget every fuzz number drawn so far (the next previews draw them again)."""
    from studyapp.core import anki_random

    anki_random._FIRST_BLOCKS.clear()
    anki_random.fuzz_factor_python.cache_clear()
    anki_random.learning_fuzz_secs_python.cache_clear()
