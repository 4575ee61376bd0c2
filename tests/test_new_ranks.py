"""Schema 6: each item's rank in the random new orders by card, stored with it, and the seed kept.

The stored ranks must give exactly the order the ranking in Python gives (it is still the path for
an item without a rank and for another seed), keep a learner's order across the upgrade and a
renamed file, and be written by every path that makes an item present.
"""

from __future__ import annotations

import random
import shutil
import sqlite3

import pytest

from engine_support import SCHEMA_6_UNDONE, SETTINGS, card, deck, location, store_at
from studyapp.core.clock import FakeClock
from studyapp.core.queue import rank
from studyapp.core.session import ReviewSession
from studyapp.core.settings import Location
from studyapp.store import open_store, schema

TODAY = 10


def _keys(rows):
    return [row.key for row in rows]


def _stored_and_python(store, deck_id, limit, offset):
    """``new_items`` in the "note" order from the stored ranks, then from the ranking in Python
    (forced by one new item of the deck left without a rank), the rank put back after."""
    seed = store.profile_seed()
    stored = store.new_items(deck_id, TODAY, limit, offset, order="note", seed=seed)
    (item_id, kept), = store.conn.execute(
        "SELECT id, new_rank FROM items WHERE deck_id = ? AND queue = 0 ORDER BY id DESC LIMIT 1", (deck_id,))
    store.conn.execute("UPDATE items SET new_rank = NULL WHERE id = ?", (item_id,))
    try:
        python = store.new_items(deck_id, TODAY, limit, offset, order="note", seed=seed)
    finally:
        store.conn.execute("UPDATE items SET new_rank = ? WHERE id = ?", (kept, item_id))
    return stored, python


@pytest.mark.parametrize("trial", range(6))
def test_stored_ranks_give_the_order_ranking_in_python_gives(tmp_path, trial):
    rng = random.Random(trial)
    kinds = ["basic", "basic", "reverse", "cloze"]
    cards = [card(f"k{i:03d}", rng.choice(kinds), clozes=rng.randint(1, 3)) for i in range(rng.randint(5, 60))]
    store, clock = store_at(tmp_path)
    ReviewSession(store, [deck("a", cards), deck("b", 7)], clock=clock, settings=SETTINGS)
    ids = [i for (i,) in store.conn.execute("SELECT id FROM items WHERE deck_id = 'a'")]
    # Suspended, buried today, buried on an earlier day, gone, studied: what the read must skip or keep.
    for item_id in rng.sample(ids, len(ids) // 3):
        change = rng.choice(["suspended = 1", f"buried_day = {TODAY}", f"buried_day = {TODAY - 1}", "present = 0",
                             "queue = 2"])
        store.conn.execute(f"UPDATE items SET {change} WHERE id = ?", (item_id,))
    for limit, offset in [(1, 0), (5, 0), (5, 3), (100, 0), (3, len(ids))]:
        stored, python = _stored_and_python(store, "a", limit, offset)
        assert _keys(stored) == _keys(python)
        assert stored == python
    assert store.new_items("a", TODAY, 100, order="note", seed=store.profile_seed())  # the case is not empty


def test_every_item_sync_writes_gets_its_rank_under_the_kept_seed(tmp_path):
    store, clock = store_at(tmp_path)
    ReviewSession(store, [deck("a", [card("q1"), card("q2", "reverse"), card("q3", "cloze", clozes=3)])],
                  clock=clock, settings=SETTINGS)
    seed = store.profile_seed()
    created = store.conn.execute("SELECT value FROM meta WHERE key = 'created_ms'").fetchone()[0]
    assert seed == schema.profile_seed_of(created, location(tmp_path).database.name)
    assert store.conn.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0] == str(seed)
    rows = store.conn.execute("SELECT deck_id, card_id, new_rank FROM items").fetchall()
    assert len(rows) == 6
    assert all(stored == rank(seed, f"{deck_id}/{card_id}") for deck_id, card_id, stored in rows)
    # An item another device's log brought in has no rank, and none of its own position: it gets
    # both when its card is in the deck.
    store.conn.execute("INSERT INTO items (key, deck_id, card_id, variant, present, created_ms) "
                       "VALUES ('a/q9/main', 'a', 'q9', 'main', 0, 1)")
    ReviewSession(store, [deck("a", [card("q1"), card("q9")])], clock=clock, settings=SETTINGS)
    assert store.conn.execute("SELECT new_rank, present FROM items WHERE key = 'a/q9/main'").fetchone() == (
        rank(seed, "a/q9"), 1)


def test_a_renamed_profile_keeps_its_new_card_order(tmp_path):
    store, clock = store_at(tmp_path)
    ReviewSession(store, [deck("a", 40)], clock=clock, settings=SETTINGS)
    before = _keys(store.new_items("a", TODAY, 40, order="note", seed=store.profile_seed()))
    seed = store.profile_seed()
    store.close()
    source = location(tmp_path).database
    shutil.copy(source, source.with_name("renamed.sqlite3"))
    renamed = open_store(Location(location(tmp_path).home, "renamed", ()), clock=FakeClock(clock.now_ms()))
    assert renamed.profile_seed() == seed
    assert _keys(renamed.new_items("a", TODAY, 40, order="note", seed=seed)) == before
    renamed.close()


def test_a_schema_5_database_gains_the_ranks_and_keeps_its_order(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card(f"q{i}", "reverse" if i % 5 == 0 else "basic") for i in range(30)]), deck("b", 12)]
    ReviewSession(store, decks, clock=clock, settings=SETTINGS)
    store.close()
    path = location(tmp_path).database
    conn = sqlite3.connect(path)
    for statement in SCHEMA_6_UNDONE:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    upgraded = open_store(location(tmp_path), clock=FakeClock(clock.now_ms()))
    assert upgraded.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 6
    (backup,) = path.parent.glob(f"{path.name}.schema5-*.bak")
    created = upgraded.conn.execute("SELECT value FROM meta WHERE key = 'created_ms'").fetchone()[0]
    # The seed is the one schema 5 made from the file's name: the learner's new cards keep their order.
    seed = upgraded.profile_seed()
    assert seed == schema.profile_seed_of(created, path.name)
    rows = upgraded.conn.execute("SELECT deck_id, card_id, new_rank FROM items").fetchall()
    assert len(rows) == 48 and all(r == rank(seed, f"{d}/{c}") for d, c, r in rows)
    for deck_id in ("a", "b"):
        stored, python = _stored_and_python(upgraded, deck_id, 50, 0)
        assert stored == python and len(stored) == {"a": 36, "b": 12}[deck_id]
    upgraded.close()
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 5
    old.close()


def test_another_seed_than_the_kept_one_is_ranked_in_python(tmp_path):
    store, clock = store_at(tmp_path)
    ReviewSession(store, [deck("a", 30)], clock=clock, settings=SETTINGS)
    other = store.profile_seed() + 1
    rows = store.new_items("a", TODAY, 30, order="note", seed=other)
    assert _keys(rows) == sorted(_keys(rows), key=lambda key: rank(other, key.rsplit("/", 1)[0]))
    assert _keys(rows) != _keys(store.new_items("a", TODAY, 30, order="note", seed=store.profile_seed()))
