"""Progress both ways between studyapp and a real Anki (the ``anki`` package under libfaketime)."""

from __future__ import annotations

import json
import random
import sqlite3
import zipfile
from collections import Counter
from pathlib import Path

import pytest

import anki_driver
from engine_support import card, deck, location
from progress_support import SETTINGS, ZONE, answer, at, compare, study

from studyapp.core.clock import DAY_MS, MINUTE_MS, FakeClock
from studyapp.core.scheduler import AGAIN, GOOD
from studyapp.export.anki import export_anki
from studyapp.export.ids import CARD_ID_BASE, CARD_ID_SPAN, anki_card_id, revlog_ids
from studyapp.export.progress import PRESET_NAME, gather_progress
from studyapp.store import open_store

pytestmark = pytest.mark.skipif(anki_driver.faketime_library() is None,
                                reason="libfaketime is needed to move Anki's clock (apt-get install faketime)")

START = at(2026, 1, 5)
CARDS = [card(f"b{i}") for i in range(8)] + [card("r1", "reverse"), card("z1", "cloze", clozes=2)]
DECK = deck("progress-deck", CARDS)


def studied_store(folder: Path, days: int = 40, seed: int = 7):
    clock = FakeClock(START)
    store = open_store(location(folder), clock=clock)
    store.save_settings(SETTINGS)
    store.sync([DECK])
    study(store, SETTINGS, START, days, random.Random(seed), new_share=0.4, max_new=9)
    return store, clock


def every_kind_of_state(store, now: int) -> None:
    """A lapse (relearning), a first answer (learning), a suspended and a buried item, new ones left."""
    rows = {row.key: row for row in store.all_items()}
    reviews = [r for r in rows.values() if r.state.state == "review"]
    new = [r for r in rows.values() if r.state.state == "new"]
    assert len(reviews) >= 3 and len(new) >= 2, Counter(r.state.state for r in rows.values())
    answer(store, SETTINGS, reviews[0].id, AGAIN, now)
    answer(store, SETTINGS, new[0].id, GOOD, now)
    store.set_status(reviews[1].id, suspended=True)
    store.set_status(reviews[2].id, buried_day=SETTINGS_DAYS.day_of(now))


from studyapp.core.scheduler import ReviewScheduler  # noqa: E402

SETTINGS_DAYS = ReviewScheduler(SETTINGS).days


def export_with_progress(store, path: Path, now: int) -> None:
    export_anki([DECK], path, home=None, clock=lambda: now / 1000, schedule=gather_progress(store, SETTINGS))


def test_card_ids_are_stable_numbers_in_the_past_and_apart():
    key = "progress-deck/b1/main"
    assert anki_card_id(key) == anki_card_id(key)
    assert anki_card_id(key) != anki_card_id("progress-deck/b1/backward")
    ids = {anki_card_id(f"deck/card{i}/main") for i in range(10_000)}
    assert len(ids) == 10_000
    assert min(ids) >= CARD_ID_BASE and max(ids) < CARD_ID_BASE + CARD_ID_SPAN
    # Milliseconds before 2017-07-15: Anki refuses ids more than a day in the future.
    assert CARD_ID_BASE + CARD_ID_SPAN <= 1_500_000_000_000


def test_revlog_ids_are_answer_times_made_unique_in_log_order():
    assert revlog_ids([(5, None), (5, None), (6, None), (9, 7), (7, None)]) == [5, 6, 7, 7, 8]
    assert revlog_ids([(10, None), (11, None)]) == [10, 11]
    # A row from Anki keeps its id even when a studyapp row took that time before.
    assert revlog_ids([(3, None), (3, 3)]) == [3, 3]


def test_anki_imports_every_card_with_its_schedule_memory_and_reviews(tmp_path):
    store, _ = studied_store(tmp_path)
    now = START + 40 * DAY_MS + 45 * MINUTE_MS
    every_kind_of_state(store, now)
    now += MINUTE_MS
    package = tmp_path / "progress.apkg"
    export_with_progress(store, package, now)

    result = anki_driver.run({"collection": str(tmp_path / "anki"), "tz": ZONE, "rollover": 4, "steps": [
        {"at": now, "op": "import", "package": str(package)}, {"at": now, "op": "dump"},
        {"at": now, "op": "config"}]}, tmp_path)["results"]
    cards = result[1]["cards"]
    assert result[0]["new"] == len(CARDS)
    assert len(cards) == len(store.all_items()) == 12
    assert compare(store, SETTINGS, cards, now) == []
    kinds = Counter((c["type"], c["queue"]) for c in cards)
    assert kinds[(1, 1)] == 1 and kinds[(3, 1)] == 1 and kinds[(2, -1)] == 1 and kinds[(2, -3)] == 1
    assert kinds[(0, 0)] >= 1 and kinds[(2, 2)] >= 1
    assert sum(len(c["revlog"]) for c in cards) == len(store.log())

    presets = {p["name"]: p for p in result[2]["presets"]}
    ours = presets[PRESET_NAME]
    assert ours["desiredRetention"] == pytest.approx(SETTINGS.desired_retention)
    assert ours["fsrsParams6"] == pytest.approx(list(SETTINGS.parameters), abs=1e-4)
    assert ours["new"] == [1.0, 10.0] and ours["lapse"] == [10.0]
    assert (ours["newPerDay"], ours["revPerDay"], ours["maxIvl"]) == (9999, 9999, 36500)
    deck_names = [name for name, conf in result[2]["decks"].items() if name.startswith("studyapp::")]
    assert deck_names and all(result[2]["decks"][name] != 1 for name in deck_names)


def test_the_package_has_the_review_log_rows_anki_writes(tmp_path):
    store, _ = studied_store(tmp_path, days=10)
    now = START + 10 * DAY_MS + 45 * MINUTE_MS
    package = tmp_path / "progress.apkg"
    export_with_progress(store, package, now)
    with zipfile.ZipFile(package) as archive:
        (tmp_path / "col.anki2").write_bytes(archive.read("collection.anki2"))
    db = sqlite3.connect(tmp_path / "col.anki2")
    rows = db.execute("SELECT id, cid, ease, ivl, lastIvl, factor, time, type FROM revlog ORDER BY id").fetchall()
    log = store.log()
    keys = {row.id: row.key for row in store.all_items()}
    assert len(rows) == len(log)
    first = log[0]
    assert rows[0][:5] == (first.time_ms, anki_card_id(keys[first.item_id]), first.rating, first.interval,
                           first.last_interval)
    assert rows[0][6:] == (3500, 0)  # duration, learning
    assert {r[7] for r in rows} <= {0, 1, 2}
    conf = json.loads(db.execute("SELECT conf FROM col").fetchone()[0])
    assert conf["schedVer"] == 2 and conf["rollover"] == 4 and conf["fsrs"] is True


# ---------------------------------------------------------------- both ways


def import_into_studyapp(store, package: Path, now: int, *, dry_run: bool = False):
    from studyapp.export.anki_import import plan_import
    from studyapp.export.apkg import read_package

    collection = read_package(package)
    store.sync([DECK])
    return store.import_anki(lambda items, log: plan_import(collection, [DECK], items, log, SETTINGS, now),
                             SETTINGS, dry_run=dry_run)


def anki(tmp_path: Path, name: str, steps: list[dict]) -> list[dict]:
    return anki_driver.run({"collection": str(tmp_path / name), "tz": ZONE, "rollover": 4, "steps": steps},
                           tmp_path)["results"]


def no_duplicates(store) -> None:
    rows = store.conn.execute("SELECT item_id, anki_revlog_id, count(*) FROM review_log "
                              "WHERE anki_revlog_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1").fetchall()
    assert rows == []
    times = store.conn.execute("SELECT item_id, time_ms, count(*) FROM review_log WHERE kind = 'review' "
                               "GROUP BY 1, 2 HAVING count(*) > 1").fetchall()
    assert times == []


def test_progress_goes_round_twice_without_drift_or_duplicated_reviews(tmp_path):
    store, _ = studied_store(tmp_path)
    t1 = START + 40 * DAY_MS + 45 * MINUTE_MS
    every_kind_of_state(store, t1)
    store.set_status(store.item("progress-deck/b2/main").id, suspended=False)
    first = tmp_path / "first.apkg"
    export_with_progress(store, first, t1 + MINUTE_MS)

    # Anki: import, study three days later, export with scheduling (the current format).
    t2 = t1 + 6 * DAY_MS
    back = tmp_path / "from-anki.apkg"
    result = anki(tmp_path, "anki-1", [
        {"at": t1 + MINUTE_MS, "op": "import", "package": str(first)},
        {"at": t2, "op": "study", "seed": 11, "tail": [1, 3]},
        {"at": t2 + 40 * MINUTE_MS, "op": "dump"},
        {"at": t2 + 40 * MINUTE_MS, "op": "export", "package": str(back)}])
    answered_in_anki = result[1]["answered"]
    assert len(answered_in_anki) >= 5
    kinds = Counter((c["type"], c["left"]) for c in result[2]["cards"] if c["type"] == 1)
    assert kinds[(1, 2)] >= 1 and kinds[(1, 1)] >= 1  # learning cards at the first and at the second step
    with zipfile.ZipFile(back) as archive:
        assert "collection.anki21b" in archive.namelist() and "meta" in archive.namelist()

    log_before = len(store.log())
    plan = import_into_studyapp(store, back, t2 + 40 * MINUTE_MS)
    assert len(plan.reviews) == len(answered_in_anki)
    assert plan.notes_by_guid == len(CARDS) and plan.unmatched == []
    assert len(store.log()) == log_before + len(answered_in_anki)
    assert {e.source for e in store.log()[log_before:]} == {"anki"}
    assert compare(store, SETTINGS, result[2]["cards"], t2 + 40 * MINUTE_MS) == []
    no_duplicates(store)

    # The same file again adds nothing and changes nothing.
    snapshot = (store.conn.execute("SELECT * FROM items ORDER BY id").fetchall(), len(store.log()))
    again = import_into_studyapp(store, back, t2 + 50 * MINUTE_MS)
    assert again.reviews == [] and again.states == {}
    assert again.reviews_known == sum(len(c["revlog"]) for c in result[2]["cards"])
    assert (store.conn.execute("SELECT * FROM items ORDER BY id").fetchall(), len(store.log())) == snapshot

    # Round two: study here, export again, into Anki; study there, back as an old-format .colpkg.
    t3 = t2 + 2 * DAY_MS
    study(store, SETTINGS, t3, 2, random.Random(5), new_share=0.3)
    t4 = t3 + 2 * DAY_MS
    second = tmp_path / "second.apkg"
    export_with_progress(store, second, t4)
    colpkg = tmp_path / "whole.colpkg"
    result = anki(tmp_path, "anki-2", [
        {"at": t4, "op": "import", "package": str(second)},
        {"at": t4, "op": "dump"},
        {"at": t4 + DAY_MS, "op": "study", "seed": 12, "new": 1},
        {"at": t4 + DAY_MS + 40 * MINUTE_MS, "op": "dump"},
        {"at": t4 + DAY_MS + 40 * MINUTE_MS, "op": "export", "package": str(colpkg), "legacy": True}])
    assert compare(store, SETTINGS, result[1]["cards"], t4) == []
    with zipfile.ZipFile(colpkg) as archive:
        assert "collection.anki2" in archive.namelist() or "collection.anki21" in archive.namelist()
    plan = import_into_studyapp(store, colpkg, t4 + DAY_MS + 40 * MINUTE_MS)
    assert len(plan.reviews) == len(result[2]["answered"])
    assert compare(store, SETTINGS, result[3]["cards"], t4 + DAY_MS + 40 * MINUTE_MS) == []
    no_duplicates(store)
    assert len(store.log()) == sum(len(c["revlog"]) for c in result[3]["cards"])



def test_every_package_anki_exports_brings_the_same_progress(tmp_path):
    """Anki's .apkg and .colpkg, each current (zstd collection.anki21b) and for older versions (collection.anki21)."""
    from studyapp.export.apkg import LATEST, LEGACY_2, read_package

    store, _ = studied_store(tmp_path)
    t1 = START + 40 * DAY_MS + 45 * MINUTE_MS
    first = tmp_path / "first.apkg"
    export_with_progress(store, first, t1)
    t2 = t1 + 6 * DAY_MS
    files = {(kind, legacy): tmp_path / f"back-{'older' if legacy else 'current'}.{kind}"
             for kind in ("apkg", "colpkg") for legacy in (False, True)}
    result = anki(tmp_path, "anki-formats", [
        {"at": t1, "op": "import", "package": str(first)},
        {"at": t2, "op": "study", "seed": 4, "new": 2, "tail": [1, 3]},
        {"at": t2 + 40 * MINUTE_MS, "op": "dump"},
        *({"at": t2 + 40 * MINUTE_MS, "op": "export", "package": str(path), "legacy": legacy}
          for (_, legacy), path in files.items())])
    answered, cards = result[1]["answered"], result[2]["cards"]
    assert len(answered) >= 5

    collections = {}
    for (kind, legacy), path in files.items():
        with zipfile.ZipFile(path) as archive:
            assert ("collection.anki21" if legacy else "collection.anki21b") in archive.namelist(), path
        collections[kind, legacy] = collection = read_package(path)
        assert collection.version == (LEGACY_2 if legacy else LATEST)
    reference = collections["apkg", False]
    assert len(reference.revlog) == sum(len(c["revlog"]) for c in cards)
    for collection in collections.values():
        assert sorted(collection.cards) == sorted(reference.cards)
        assert collection.revlog == reference.revlog and collection.notes == reference.notes

    # The current .apkg brings Anki's answers; each of the other three then adds and changes nothing.
    plan = import_into_studyapp(store, files["apkg", False], t2 + 40 * MINUTE_MS)
    assert len(plan.reviews) == len(answered)
    assert compare(store, SETTINGS, cards, t2 + 40 * MINUTE_MS) == []
    snapshot = (store.conn.execute("SELECT * FROM items ORDER BY id").fetchall(), store.log())
    for key in [("apkg", True), ("colpkg", False), ("colpkg", True)]:
        again = import_into_studyapp(store, files[key], t2 + 50 * MINUTE_MS)
        assert (again.reviews, again.states, again.reviews_known) == ([], {}, len(reference.revlog)), key
        assert (store.conn.execute("SELECT * FROM items ORDER BY id").fetchall(), store.log()) == snapshot
    no_duplicates(store)


def test_notes_made_in_anki_match_by_note_type_and_front_text(tmp_path):
    clock = FakeClock(START)
    store = open_store(location(tmp_path), clock=clock)
    store.save_settings(SETTINGS)
    store.sync([DECK])
    t = START + DAY_MS
    package = tmp_path / "mine.apkg"
    result = anki(tmp_path, "anki-own", [
        {"at": t, "op": "add_note", "notetype": "Basic", "fields": ["<b>Q</b>&nbsp;b5", "A b5"]},
        {"at": t, "op": "add_note", "notetype": "Cloze", "fields": ["{{c1::part 1}} {{c2::part 2}}", ""]},
        # Notes whose front text no card has: neither matches.
        {"at": t, "op": "add_note", "notetype": "Cloze", "fields": ["Q b6 {{c1::x}}", ""]},
        {"at": t, "op": "add_note", "notetype": "Basic", "fields": ["Something else", "x"]},
        {"at": t, "op": "study", "seed": 3, "rounds": 1, "tail": [3, 3, 3, 3, 1]},
        {"at": t + 30 * MINUTE_MS, "op": "dump"},
        {"at": t + 30 * MINUTE_MS, "op": "export", "package": str(package)}])
    plan = import_into_studyapp(store, package, t + 30 * MINUTE_MS)
    assert (plan.notes, plan.notes_by_guid, plan.notes_by_text) == (4, 0, 2)
    assert sorted(plan.unmatched) == ["Q b6 {{c1::x}}", "Something else"]
    basic_card, cloze_cards = result[0]["cards"], result[1]["cards"]
    mapping = {"progress-deck/b5/main": basic_card[0], "progress-deck/z1/c1": cloze_cards[0],
               "progress-deck/z1/c2": cloze_cards[1]}
    assert compare(store, SETTINGS, result[5]["cards"], t + 30 * MINUTE_MS, card_ids=mapping) == []
    assert sum(1 for e in store.log() if e.source == "anki") == 3
    assert store.item("progress-deck/b5/main").state.state == "learning"


def test_anki_keeps_a_card_it_has_so_a_re_export_goes_in_after_its_notes_are_deleted(tmp_path):
    """Anki's importer adds cards, never updates one (rslib apkg/import/cards.rs): docs/export.md says what to do."""
    store, _ = studied_store(tmp_path)
    t1 = START + 40 * DAY_MS + 45 * MINUTE_MS
    first = tmp_path / "first.apkg"
    export_with_progress(store, first, t1)
    study(store, SETTINGS, t1 + DAY_MS, 3, random.Random(3))
    t2 = t1 + 4 * DAY_MS
    second = tmp_path / "second.apkg"
    export_with_progress(store, second, t2)
    result = anki(tmp_path, "anki", [
        {"at": t1, "op": "import", "package": str(first)},
        {"at": t2, "op": "import", "package": str(second)}, {"at": t2, "op": "dump"},
        {"at": t2, "op": "delete_notes", "search": "deck:studyapp*"},
        {"at": t2, "op": "import", "package": str(second)}, {"at": t2, "op": "dump"}])
    assert result[1]["updated"] == len(CARDS) and compare(store, SETTINGS, result[2]["cards"], t2) != []
    assert result[4]["new"] == len(CARDS)
    # Anki keeps the revlog of deleted cards; the import adds only the reviews it lacks.
    assert compare(store, SETTINGS, result[5]["cards"], t2) == []


def test_a_deck_s_own_preset_travels_as_its_own_anki_preset(tmp_path):
    from studyapp.core.presets import Preset

    clock = FakeClock(START)
    store = open_store(location(tmp_path), clock=clock)
    store.save_settings(SETTINGS)
    fast = Preset(name="Fast", desired_retention=0.85, learning_steps=(120,), relearning_steps=(300, 1200),
                  new_per_day=7, maximum_interval=400)
    store.save_preset(fast)
    store.assign_preset(DECK.id, "Fast")
    store.sync([DECK])
    scheduling = fast.scheduling(SETTINGS)
    study(store, scheduling, START, 30, random.Random(9), new_share=0.4, max_new=9)
    now = START + 30 * DAY_MS + 45 * MINUTE_MS
    every_kind_of_state_with(store, scheduling, now)
    package = tmp_path / "fast.apkg"
    export_with_progress(store, package, now + MINUTE_MS)
    result = anki(tmp_path, "anki-fast", [{"at": now + MINUTE_MS, "op": "import", "package": str(package)},
                                          {"at": now + MINUTE_MS, "op": "dump"}, {"at": now, "op": "config"}])
    assert compare(store, scheduling, result[1]["cards"], now + MINUTE_MS) == []
    presets = {p["name"]: p for p in result[2]["presets"]}
    ours = presets[f"{PRESET_NAME} Fast"]
    assert ours["desiredRetention"] == pytest.approx(0.85)
    assert (ours["new"], ours["lapse"], ours["newPerDay"], ours["maxIvl"]) == ([2.0], [5.0, 20.0], 7, 400)
    assert PRESET_NAME not in presets  # no deck used Default


def every_kind_of_state_with(store, settings, now: int) -> None:
    rows = store.all_items()
    review = next(r for r in rows if r.state.state == "review")
    new = next(r for r in rows if r.state.state == "new")
    answer(store, settings, review.id, AGAIN, now)
    answer(store, settings, new.id, GOOD, now)
