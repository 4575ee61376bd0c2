"""The export with progress copies the review log with SQL: the package it writes is the one the
Python path (every row read into a LoggedReview and written back) writes, to the byte."""

from __future__ import annotations

import json
import math
import random
import sqlite3
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_support import card, deck, location

from studyapp.core.clock import DAY_MS, FakeClock
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import ItemState, Settings
from studyapp.export.anki import export_anki
from studyapp.export.ids import revlog_ids
from studyapp.export.progress import _card_data, _card_data_json, _gather_in_memory, gather_progress
from studyapp.store import open_store

START = 1_767_600_000_000
SETTINGS = Settings(timezone="UTC")
EXPORTED = deck("copied", [card(f"c{i}") for i in range(6)] + [card("r", "reverse")])
OTHER = deck("left-out", [card("o1"), card("o2")])


def tie_difficulties() -> list[float]:
    """Difficulties whose factor before rounding is exactly k + 0.5 (Python rounds those to even)."""
    found = []
    for k in range(100, 1100, 7):
        target = k + 0.5
        d = ((target / 1000) - 0.1) * 9 + 1
        for _ in range(8):
            d = math.nextafter(d, -math.inf)
        for _ in range(16):
            if ((d - 1.0) / 9.0 + 0.1) * 1000 == target:
                found.append(d)
            d = math.nextafter(d, math.inf)
    assert len({int(round(((d - 1.0) / 9.0 + 0.1) * 1000)) % 2 for d in found}) == 1  # all rounded to even
    return found


def logged_store(folder: Path, rows: list[tuple]):
    store = open_store(location(folder), clock=FakeClock(START))
    store.save_settings(SETTINGS)
    store.sync([EXPORTED, OTHER])
    conn = store.conn
    conn.execute("BEGIN")
    scheduler = conn.execute("INSERT INTO schedulers (version, params) VALUES ('test', '{}')").lastrowid
    conn.executemany(
        "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
        "interval, last_interval, stability, difficulty, due_ms, scheduler_id, source, anki_revlog_id) "
        f"VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9, 3.0, ?10, NULL, {scheduler}, ?11, ?12)", rows)
    conn.execute("COMMIT")
    return store


def hostile_log(store_items: dict[str, int], rng: random.Random, *, cascade: bool) -> list[tuple]:
    """Rows of every kind and state, answers sharing milliseconds, rows from Anki, difficulties on ties."""
    ids = list(store_items.values())
    ties = tie_difficulties()
    rows = []
    for n in range(600):
        item = rng.choice(ids)
        kind = rng.choice(["review"] * 6 + ["cram", "reset"])
        before = rng.choice(["new", "learning", "review", "relearning"])
        # Ten answer times for 600 rows: most rows share their millisecond with others.
        time_ms = START + rng.randrange(10) * 60_000
        difficulty = rng.choice([None, rng.uniform(1, 10), rng.choice(ties), 5.0, 1.0, 10.0])
        anki = None
        if rng.random() < 0.1:
            anki = START + DAY_MS + n  # an Anki row: its own id, free
        rows.append((item, kind, 0 if kind == "reset" else rng.randint(1, 4), time_ms, rng.randrange(60_000),
                     before, rng.choice(["learning", "review", "relearning"]), rng.randint(-600, 40),
                     rng.randint(-600, 40), difficulty, "anki" if anki else "studyapp", anki))
    if cascade:
        # A row pushed onto a millisecond that a later row was answered at: only revlog_ids' order says
        # which number each takes.
        rows.append((ids[0], "review", 3, START + 2 * DAY_MS, 0, "review", "review", 3, 1, 5.0, "studyapp", None))
        rows.append((ids[1], "review", 3, START + 2 * DAY_MS, 0, "review", "review", 3, 1, 5.0, "studyapp", None))
        rows.append((ids[2], "review", 3, START + 2 * DAY_MS + 1, 0, "review", "review", 3, 1, 5.0, "studyapp", None))
    return rows


def collection_bytes(package: Path) -> bytes:
    with zipfile.ZipFile(package) as archive:
        return archive.read("collection.anki2")


def revlog_of(package: Path, folder: Path) -> list[tuple]:
    database = folder / "unzipped.anki2"
    database.write_bytes(collection_bytes(package))
    connection = sqlite3.connect(database)
    try:
        return connection.execute("SELECT * FROM revlog ORDER BY id").fetchall()
    finally:
        connection.close()


@pytest.mark.parametrize("everything", [False, True])
@pytest.mark.parametrize("cascade", [False, True])
def test_the_sql_copy_writes_the_package_the_python_path_writes(tmp_path, cascade, everything):
    # Every deck exported: the numbers come from SQL, or from revlog_ids after a collision; one
    # deck left out: from revlog_ids, which numbers the rows of the items left out too.
    exported_decks = [EXPORTED, OTHER] if everything else [EXPORTED]
    store = open_store(location(tmp_path / "probe"), clock=FakeClock(START))
    store.sync([EXPORTED, OTHER])
    items = {row.key: row.id for row in store.all_items()}
    store.close()
    rows = hostile_log(items, random.Random(5 if cascade else 4), cascade=cascade)
    store = logged_store(tmp_path / "home", rows)
    logged = store.conn.execute("SELECT time_ms, anki_revlog_id FROM review_log ORDER BY id").fetchall()
    ranked = [time_ms if anki is None else anki for time_ms, anki in logged]
    # The cascade is the case the SQL numbering cannot settle and hands to revlog_ids.
    assert (revlog_ids(logged) != [n + sum(1 for m in ranked[:i] if m == n) if logged[i][1] is None else n
                                   for i, n in enumerate(ranked)]) == cascade

    fast, slow = tmp_path / "fast.apkg", tmp_path / "slow.apkg"
    progress = gather_progress(store, SETTINGS)
    assert progress.source is not None and progress.log == [] and progress.review_count == len(rows)
    export_anki(exported_decks, fast, home=None, clock=lambda: (START + 3 * DAY_MS) / 1000, schedule=progress)
    in_memory = _gather_in_memory(store, SETTINGS)
    assert in_memory.source is None and in_memory.review_count == len(rows)
    assert in_memory.items == progress.items
    export_anki(exported_decks, slow, home=None, clock=lambda: (START + 3 * DAY_MS) / 1000, schedule=in_memory)

    copied = revlog_of(fast, tmp_path)
    assert copied == revlog_of(slow, tmp_path)
    # Every row of the exported deck's items is there, those of the deck left out are not.
    exported = {items[key] for key in items if everything or key.startswith("copied/")}
    assert len(copied) == sum(1 for row in rows if row[0] in exported) > 0
    assert {row[8] for row in copied} == {0, 1, 2, 3, 4}  # every revlog kind
    assert collection_bytes(fast) == collection_bytes(slow)
    store.close()


def test_answers_given_after_the_items_were_read_wait_for_the_next_export(tmp_path):
    store = open_store(location(tmp_path / "probe"), clock=FakeClock(START))
    store.sync([EXPORTED, OTHER])
    items = {row.key: row.id for row in store.all_items()}
    store.close()
    store = logged_store(tmp_path / "home", hostile_log(items, random.Random(1), cascade=False))
    progress = gather_progress(store, SETTINGS)
    before = revlog_of_export(store, progress, tmp_path / "before.apkg", tmp_path)
    later = store.conn.execute("SELECT item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                               "state_after, interval, last_interval, scheduler_id FROM review_log "
                               "ORDER BY id DESC LIMIT 1").fetchone()
    store.conn.execute("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, "
                       "state_before, state_after, interval, last_interval, scheduler_id) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (items["copied/c0/main"], *later[1:]))
    assert revlog_of_export(store, progress, tmp_path / "again.apkg", tmp_path) == before
    assert len(revlog_of_export(store, gather_progress(store, SETTINGS), tmp_path / "next.apkg", tmp_path)) \
        == len(before) + 1
    store.close()


def revlog_of_export(store, progress, package: Path, folder: Path) -> list[tuple]:
    export_anki([EXPORTED], package, home=None, clock=lambda: (START + 3 * DAY_MS) / 1000, schedule=progress)
    return revlog_of(package, folder)


def test_a_profile_gone_before_the_export_reads_its_log_is_named_and_no_package_is_left(tmp_path):
    store = logged_store(tmp_path / "home", [])
    progress = gather_progress(store, SETTINGS)
    store.close()
    progress.source.database.rename(tmp_path / "elsewhere.sqlite3")
    package = tmp_path / "out.apkg"
    with pytest.raises(StudyappError, match="cannot read the review log in .*nothing was written"):
        export_anki([EXPORTED], package, home=None, clock=lambda: START / 1000, schedule=progress)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.sqlite3", "home"]


@given(stability=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**6)),
       difficulty=st.one_of(st.none(), st.floats(0, 11), st.just(float("nan"))),
       last_review=st.one_of(st.none(), st.integers(0, 2**53)),
       retention=st.floats(0.7, 0.99), decay=st.floats(0.1, 0.8))
@settings(max_examples=300, deadline=None)
def test_a_card_s_data_is_written_as_json_writes_it(stability, difficulty, last_review, retention, decay):
    state = ItemState(state="review", stability=stability, difficulty=difficulty, last_review_ms=last_review)
    options = replace(SETTINGS, desired_retention=retention, parameters=(*SETTINGS.parameters[:20], decay))
    assert _card_data_json(state, options) == json.dumps(_card_data(state, options), separators=(",", ":"))
