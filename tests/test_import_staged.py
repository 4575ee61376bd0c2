"""An import converts and copies Anki's reviews with SQL (staged in the unpacked collection): the plan and
the profile it leaves are the ones the Python path (a tuple per review) gives, row for row."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import pytest

from engine_support import card, deck, location
from progress_support import SETTINGS, at, studied_export

import studyapp.export.anki_import as anki_import
from studyapp.core.clock import DAY_MS, FakeClock
from studyapp.core.problems import StudyappError
from studyapp.export.anki_import import plan_import
from studyapp.export.apkg import read_package
from studyapp.store import open_store

START = at(2026, 1, 5)
DECK = deck("staged", [card(f"q{i}") for i in range(8)])


def exported(folder: Path, days: int = 14):
    store, package, now = studied_export(folder, DECK, START, days, seed=11)
    store.close()
    return package, now


def with_rows(package: Path, out: Path, rows_for) -> Path:
    """``package`` with the revlog rows ``rows_for(card ids, next id)`` gives added."""
    with zipfile.ZipFile(package) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    database = out.with_suffix(".anki2")
    database.write_bytes(members["collection.anki2"])
    connection = sqlite3.connect(database)
    cards = [cid for (cid,) in connection.execute("SELECT id FROM cards ORDER BY id")]
    start = connection.execute("SELECT max(id) FROM revlog").fetchone()[0] + 60_000
    connection.executemany("INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)", rows_for(cards, start))
    connection.commit()
    connection.close()
    members["collection.anki2"] = database.read_bytes()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def hostile(cards: list[int], start: int) -> list[tuple]:
    """Resets, manual rows, learning after a reset, relearning, cram, filtered answers, factors at and past
    the edges, a negative time: (id, cid, ease, ivl, lastIvl, factor, time, type)."""
    a, b, c = cards[:3]
    t = iter(range(start, start + 10_000_000, 60_000))
    return [
        (next(t), a, 0, 0, 5, 0, 0, 4),           # reset
        (next(t), a, 0, 3, 5, 2500, 0, 4),        # manual, no answer: left out
        (next(t), a, 3, -600, 0, 500, 9000, 0),   # learning after the reset: before is new
        (next(t), a, 3, 1, -600, 100, 8000, 0),   # learning again
        (next(t), a, 1, -600, 1, 1100, 7000, 1),  # review lapsed
        (next(t), a, 3, 2, 1, 99, -5, 2),         # relearning; factor outside FSRS's, negative time
        (next(t), b, 2, 3, 2, 0, 4000, 3),        # cram
        (next(t), b, 3, 0, 3, 2500, 3000, 3),     # filtered answer with a factor
        (next(t), b, 3, 4, 3, 777, 2000, 5),      # rescheduled kind
        (next(t), c, 0, 0, 4, 0, 0, 4),           # reset as the last row: the state is taken from it
    ]


def profile(folder: Path, name: str):
    store = open_store(location(folder, name), clock=FakeClock(START))
    store.save_settings(SETTINGS)
    store.sync([DECK])
    return store


def contents(store) -> tuple:
    log = store.conn.execute("SELECT * FROM review_log ORDER BY id").fetchall()
    columns = [row[1] for row in store.conn.execute("PRAGMA table_info(review_log)")]
    uid = columns.index("uid")
    # The uids share one random prefix per import, then count in plan order.
    # Every column but the new-card rank: ranks are drawn under each profile's own seed.
    item_columns = ", ".join(row[1] for row in store.conn.execute("PRAGMA table_info(items)") if row[1] != "new_rank")
    return (store.conn.execute(f"SELECT {item_columns} FROM items ORDER BY id").fetchall(),
            [(*row[:uid], row[uid][20:], *row[uid + 1:]) for row in log])


def plan_fields(plan) -> tuple:
    return (plan.reviews, plan.states, plan.notes, plan.notes_by_guid, plan.notes_by_text, plan.unmatched,
            plan.cards_matched, plan.reviews_known, plan.reviews_skipped, plan.kept_newer)


def import_both_ways(staged_store, python_store, package: Path, now: int, monkeypatch):
    collection = read_package(package)
    fast = staged_store.import_anki(lambda items, log: plan_import(collection, [DECK], items, log, SETTINGS, now),
                                    SETTINGS)
    assert fast.staged is not None
    with monkeypatch.context() as patched:
        patched.setattr(anki_import, "_read_ahead", lambda *args: (False, None))
        slow = python_store.import_anki(
            lambda items, log: plan_import(read_package(package), [DECK], items, log, SETTINGS, now), SETTINGS)
    assert slow.staged is None
    assert plan_fields(fast) == plan_fields(slow)
    assert contents(staged_store) == contents(python_store)
    return fast


def test_the_staged_import_leaves_the_profile_the_python_path_leaves(tmp_path, monkeypatch):
    package, now = exported(tmp_path / "source")
    spoiled = with_rows(package, tmp_path / "hostile.apkg", hostile)
    staged_store, python_store = profile(tmp_path, "staged"), profile(tmp_path, "python")
    first = import_both_ways(staged_store, python_store, spoiled, now, monkeypatch)
    assert first.review_count > 10 and first.reviews_skipped == 1
    assert {r.kind for r in first.reviews} == {"review", "cram", "reset"}
    assert {r.state_before for r in first.reviews} == {"new", "learning", "review", "relearning"}
    # Again with more rows: those already in the log are known, the new ones come in.
    more = with_rows(spoiled, tmp_path / "more.apkg",
                     lambda cards, start: [(start, cards[3], 3, 5, 2, 700, 3000, 1),
                                           (start + 1, cards[0], 2, 6, 2, 650, 3000, 1)])
    second = import_both_ways(staged_store, python_store, more, now + DAY_MS, monkeypatch)
    assert second.review_count == 2 and second.reviews_known == first.review_count + first.reviews_known
    third = import_both_ways(staged_store, python_store, more, now + DAY_MS, monkeypatch)
    assert (third.review_count, third.states) == (0, {})


def test_a_staged_import_failing_inside_its_transaction_leaves_the_profile_as_it_was(tmp_path):
    package, now = exported(tmp_path / "source")
    collection = read_package(package)
    store = profile(tmp_path, "target")
    store.import_anki(lambda items, log: plan_import(collection, [DECK], items, log, SETTINGS, now), SETTINGS)
    before = (store.conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
              contents(store))
    # Planned as if the profile knew none of them: the log's unique index refuses the copy.
    with pytest.raises(StudyappError):
        store.import_anki(lambda items, log: plan_import(collection, [DECK], {}, [], SETTINGS, now), SETTINGS)
    assert (store.conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
            contents(store)) == before
    assert "studyapp_package" not in [row[1] for row in store.conn.execute("PRAGMA database_list")]
    assert store.conn.execute("PRAGMA ignore_check_constraints").fetchone()[0] == 0
