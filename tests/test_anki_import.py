"""``studyapp import anki``: reading every kind of package, refusing bad ones, and the command's summary."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tempfile
import zipfile
from pathlib import Path

import pytest
import zstandard

from engine_support import card, deck, location
from progress_support import SETTINGS, at, studied_export

from studyapp.cli import main
from studyapp.core.clock import DAY_MS, MINUTE_MS, FakeClock
from studyapp.core.problems import StudyappError
from studyapp.export.anki import export_anki
from studyapp.export.anki_import import normalized, plan_import, study_day_of_anki_day
from studyapp.export.apkg import LATEST, LEGACY_1, LEGACY_2, AnkiCollection, _protobuf_varint, read_package
from studyapp.export.progress import gather_progress
from studyapp.store import open_store

START = at(2026, 1, 5)


def exported(tmp_path: Path, *, days: int = 12):
    """A studied profile and its export with progress (schema 11 in collection.anki2)."""
    d = deck("imp", [card(f"q{i}") for i in range(6)])
    store, package, now = studied_export(tmp_path, d, START, days, seed=3)
    return d, store, package, now


def collection_bytes(package: Path) -> bytes:
    with zipfile.ZipFile(package) as archive:
        return archive.read("collection.anki2")


def repack(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


# ---------------------------------------------------------------- the three formats


def test_a_package_reads_the_same_in_all_three_formats(tmp_path):
    _, store, package, _ = exported(tmp_path)
    database = collection_bytes(package)
    legacy1 = read_package(package)
    legacy2 = read_package(repack(tmp_path / "b.apkg", {"collection.anki21": database, "media": b"{}"}))
    latest = read_package(repack(tmp_path / "c.apkg", {
        "collection.anki2": b"please update Anki", "collection.anki21b": zstandard.ZstdCompressor().compress(database),
        "meta": bytes([0x08, LATEST])}))
    assert (legacy1.version, legacy2.version, latest.version) == (LEGACY_1, LEGACY_2, LATEST)
    for collection in (legacy2, latest):
        assert collection.cards == legacy1.cards and collection.revlog == legacy1.revlog
        assert collection.notes == legacy1.notes and collection.crt == legacy1.crt
    assert len(legacy1.revlog) == len(store.log()) > 0
    assert legacy1.creation_offset == -120  # genanki's creation time, 2014-09-19, in Berlin summer time (UTC+2)


def test_meta_names_the_version_that_decides(tmp_path):
    _, _, package, _ = exported(tmp_path)
    database = collection_bytes(package)
    # Meta says legacy 2: the anki21 file is read even though an anki2 file is there.
    path = repack(tmp_path / "m.apkg", {"collection.anki2": b"not a database", "collection.anki21": database,
                                        "meta": bytes([0x08, LEGACY_2])})
    assert read_package(path).version == LEGACY_2


def test_protobuf_fields_are_read_past_others():
    assert _protobuf_varint(bytes([0x08, 0x03]), 1) == 3
    assert _protobuf_varint(b"", 1) == 0
    # a length-delimited field 2 before field 1, and a two-byte varint
    assert _protobuf_varint(bytes([0x12, 0x02, 0x41, 0x42, 0x08, 0xAC, 0x02]), 1) == 300


# ---------------------------------------------------------------- bad files


def half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def with_ease(database: bytes, ease) -> bytes:
    """The collection with its first revlog row answered with ``ease``."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "c.anki2"
        path.write_bytes(database)
        db = sqlite3.connect(path)
        db.execute("UPDATE revlog SET ease = ? WHERE id = (SELECT min(id) FROM revlog)", (ease,))
        db.commit()
        db.close()
        return path.read_bytes()


@pytest.mark.parametrize("make, words", [
    (lambda p, db: p.write_bytes(b"hello, I am text"), "not a zip archive"),
    (lambda p, db: repack(p, {"readme.txt": b"x"}), "not an Anki package"),
    (lambda p, db: repack(p, {"meta": bytes([0x08, 9]), "collection.anki21b": b""}), "version this studyapp does not know"),
    (lambda p, db: repack(p, {"meta": bytes([0x08, 3])}), "which it does not contain"),
    (lambda p, db: repack(p, {"meta": bytes([0x08, 3]), "collection.anki21b": db}), "not zstd-compressed"),
    (lambda p, db: repack(p, {"meta": bytes([0x08, 3]), "collection.anki21b": half(zstandard.ZstdCompressor().compress(db))}),
     "cut short"),
    (lambda p, db: repack(p, {"collection.anki21": db[: len(db) // 2]}), "cut short"),
    (lambda p, db: repack(p, {"collection.anki2": b"SQLite format 3\x00" + b"\x00" * 200}), "damaged"),
    (lambda p, db: repack(p, {"collection.anki2": b"plain text, not sqlite"}), "not an SQLite database"),
    (lambda p, db: repack(p, {"collection.anki2": with_ease(db, 7)}), "answered with ease 7, where Anki writes 0 to 4"),
    (lambda p, db: repack(p, {"collection.anki2": with_ease(db, "good")}), "answered with ease 'good'"),
])
def test_a_bad_file_is_a_clear_error_naming_it(tmp_path, make, words):
    _, _, package, _ = exported(tmp_path, days=2)
    bad = tmp_path / "bad.apkg"
    make(bad, collection_bytes(package))
    with pytest.raises(StudyappError) as caught:
        read_package(bad)
    message = caught.value.format()
    assert str(bad) in message and words in message and "nothing was changed" in message


def test_a_truncated_package_is_an_error(tmp_path):
    _, _, package, _ = exported(tmp_path, days=2)
    data = package.read_bytes()
    cut = tmp_path / "cut.apkg"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(StudyappError, match="not a zip archive, or it is truncated"):
        read_package(cut)


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE things (x)")
    db.commit()
    db.close()
    bad = repack(tmp_path / "foreign.apkg", {"collection.anki2": other.read_bytes()})
    with pytest.raises(StudyappError, match="has no cards, col, notes, revlog table"):
        read_package(bad)


# ---------------------------------------------------------------- matching and days


def test_front_text_matching_ignores_markup_case_and_spacing():
    assert normalized("<b>What</b>&nbsp;is  <i>X</i>?<br>") == "what is x?"
    assert normalized("one<br>two<div>three</div>") == "one two three"
    assert normalized("Q&amp;A") == normalized("q&a")


def test_anki_day_numbers_count_from_the_creation_date_in_its_offset():
    from studyapp.core.scheduler import ReviewScheduler

    days = ReviewScheduler(SETTINGS).days
    crt = 1_767_600_000  # 2026-01-05 08:00 UTC
    berlin = AnkiCollection(Path("x"), 3, crt, -60, 4)
    assert study_day_of_anki_day(berlin, days, 0) == days.day_of(START)
    assert study_day_of_anki_day(berlin, days, 10) == days.day_of(START) + 10
    # 23:30 UTC on the 4th is the 5th in Berlin, but the 4th at UTC-5.
    late = AnkiCollection(Path("x"), 3, 1_767_569_400, 300, 4)
    assert study_day_of_anki_day(late, days, 1) == days.day_of(START)


def test_a_dry_run_plans_but_changes_nothing_and_a_real_run_then_adds_nothing(tmp_path):
    d, store, package, now = exported(tmp_path)
    collection = read_package(package)
    fresh = open_store(location(tmp_path, "other"), clock=FakeClock(now))
    fresh.save_settings(SETTINGS)
    fresh.sync([d])
    before = fresh.conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    planner = lambda items, log: plan_import(collection, [d], items, log, SETTINGS, now)  # noqa: E731
    plan = fresh.import_anki(planner, SETTINGS, dry_run=True)
    assert len(plan.reviews) == len(store.log()) and plan.notes_by_guid == 6
    assert fresh.conn.execute("SELECT * FROM items ORDER BY id").fetchall() == before
    assert fresh.log() == []
    applied = fresh.import_anki(planner, SETTINGS)
    assert len(applied.reviews) == len(store.log())
    # Every item now holds exactly the state its own profile has.
    assert {r.key: r.state for r in fresh.all_items()} == {r.key: r.state for r in store.all_items()}
    second = fresh.import_anki(planner, SETTINGS)
    assert (second.reviews, second.states, second.reviews_known) == ([], {}, len(store.log()))
    # The profile that exported it recognises all of its own reviews.
    own = store.import_anki(planner, SETTINGS, dry_run=True)
    assert (own.reviews, own.reviews_known) == ([], len(store.log()))


def test_replaying_the_log_gives_the_state_anki_gave(tmp_path):
    d, store, package, now = exported(tmp_path)
    collection = read_package(package)
    fresh = open_store(location(tmp_path, "other"), clock=FakeClock(now))
    fresh.save_settings(SETTINGS)
    fresh.sync([d])
    fresh.import_anki(lambda items, log: plan_import(collection, [d], items, log, SETTINGS, now), SETTINGS)
    rebuilt = fresh.rebuild_states()
    for row in fresh.all_items():
        if row.id in rebuilt:
            got = rebuilt[row.id]
            assert (got.state, got.stability, got.difficulty, got.due_ms) == (
                row.state.state, row.state.stability, row.state.difficulty, row.state.due_ms)



def _profile_contents(store) -> tuple:
    """Everything an import may change: the schema (the log's indexes), the items, the log."""
    conn = store.conn
    return (conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
            conn.execute("SELECT * FROM items ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM review_log ORDER BY id").fetchall())


@pytest.mark.parametrize("studied_first", [False, True])
def test_an_import_failing_inside_its_transaction_leaves_the_profile_as_it_was(tmp_path, studied_first):
    """The insert fails on its last row: nothing of it stays, nor a dropped index, whichever way the log is written
    (its indexes built after an insert that at least doubles the log, or kept up during a smaller one), and the
    CHECKs the import sets aside are back."""
    d, store, package, now = exported(tmp_path)
    collection = read_package(package)
    target = store if studied_first else open_store(location(tmp_path, "other"), clock=FakeClock(now))
    if not studied_first:
        target.save_settings(SETTINGS)
        target.sync([d])
    before = _profile_contents(target)

    def spoiled(items, log):
        if studied_first:
            # The profile knows all of its own reviews: planned as if it had none, three of them come in
            # under other Anki ids, far fewer rows than its log holds.
            plan = plan_import(collection, [d], {}, [], SETTINGS, now)
            plan.reviews[:] = [r._replace(anki_revlog_id=r.anki_revlog_id + 1) for r in plan.reviews[:3]]
        else:
            plan = plan_import(collection, [d], items, log, SETTINGS, now)
        # One Anki review twice for one item: the log's unique index refuses the second, at the end.
        plan.reviews.append(plan.reviews[-1])
        return plan

    with pytest.raises(StudyappError):
        target.import_anki(spoiled, SETTINGS)
    assert _profile_contents(target) == before
    assert ("index", "review_log_uid") in {row[:2] for row in before[0]}
    assert target.conn.execute("PRAGMA ignore_check_constraints").fetchone()[0] == 0
    if not studied_first:
        # The indexes are whole: the good import goes in, and a second one finds all of it known.
        planner = lambda items, log: plan_import(collection, [d], items, log, SETTINGS, now)  # noqa: E731
        assert len(target.import_anki(planner, SETTINGS).reviews) == len(store.log())
        assert target.import_anki(planner, SETTINGS).reviews_known == len(store.log())
        assert [row[:2] for row in _profile_contents(target)[0]] == [row[:2] for row in before[0]]


# ---------------------------------------------------------------- the command


@pytest.fixture
def cli_home(tmp_path, monkeypatch):
    monkeypatch.delenv("STUDYAPP_DECKS", raising=False)
    monkeypatch.delenv("STUDYAPP_PROFILE", raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    return home


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_command_exports_progress_then_imports_it_into_another_profile(cli_home, tmp_path, capsys):
    deck_id = "pytorch-mega-cache"
    out = tmp_path / "progress.apkg"
    # Fresh profile: everything new, the preset and an empty log still travel.
    assert main(["export", "anki", deck_id, "--with-progress", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "With progress: 0 cards studied, 0 reviews in the log" in printed
    assert main(["import", "anki", str(out), "--profile", "second", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "Would import 0 reviews" in printed and "Dry run: nothing was changed" in printed
    assert not (cli_home / "profiles" / "second.sqlite3").exists()
    assert main(["import", "anki", str(out), "--profile", "second"]) == 0
    printed = capsys.readouterr().out
    assert "0 matched no card" in printed and "matched by studyapp's id" in printed


def test_the_command_refuses_a_bad_file_and_leaves_the_profile_untouched(cli_home, tmp_path, capsys):
    assert main(["export", "anki", "pytorch-mega-cache", "--with-progress", "-o", str(tmp_path / "x.apkg")]) == 0
    database = cli_home / "profiles" / "default.sqlite3"
    assert main(["import", "anki", str(tmp_path / "x.apkg")]) == 0  # makes the profile
    before = _digest(database)
    bad = tmp_path / "notes.apkg"
    bad.write_text("not a package")
    capsys.readouterr()
    assert main(["import", "anki", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}" in err and "not a zip archive" in err and "Traceback" not in err
    assert _digest(database) == before



def _foreign_sqlite(folder: Path) -> bytes:
    other = folder / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE things (x)")
    db.commit()
    db.close()
    return other.read_bytes()


@pytest.mark.parametrize("spoil, words", [
    (lambda good, bad: bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2]),
     "not a zip archive, or it is truncated"),
    (lambda good, bad: repack(bad, {"collection.anki2": _foreign_sqlite(bad.parent)}),
     "has no cards, col, notes, revlog table"),
    (lambda good, bad: repack(bad, {"meta": bytes([0x08, LATEST]), "collection.anki21b": half(
        zstandard.ZstdCompressor().compress(collection_bytes(good)))}), "cut short"),
    (lambda good, bad: repack(bad, {"collection.anki21": half(collection_bytes(good))}), "cut short"),
])
def test_the_command_refuses_a_truncated_or_foreign_file_and_leaves_the_profile_untouched(
        cli_home, tmp_path, capsys, spoil, words):
    good = tmp_path / "x.apkg"
    assert main(["export", "anki", "pytorch-mega-cache", "--with-progress", "-o", str(good)]) == 0
    database = cli_home / "profiles" / "default.sqlite3"
    assert main(["import", "anki", str(good)]) == 0  # makes the profile
    before = _digest(database)
    bad = tmp_path / "bad.apkg"
    spoil(good, bad)
    capsys.readouterr()
    assert main(["import", "anki", str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and words in err and "nothing was changed" in err and "Traceback" not in err
    assert _digest(database) == before


def test_import_needs_a_format_and_a_file(cli_home, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["import"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit) as caught:
        main(["import", "anki"])
    assert caught.value.code == 2


def test_a_schema_3_database_is_backed_up_and_gains_the_review_sources(tmp_path):
    from studyapp.store import schema

    path = location(tmp_path).database
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for statement in schema._statements(schema.SCHEMA_V1):
        conn.execute(statement)
    schema.MIGRATIONS[1](conn)
    schema.MIGRATIONS[2](conn)
    conn.execute("INSERT INTO meta (key, value) VALUES ('created_ms', '1')")
    conn.execute("INSERT INTO schedulers (version, params) VALUES ('fsrs', '{}')")
    conn.execute("INSERT INTO items (key, deck_id, card_id, variant, created_ms) VALUES ('d/c/main', 'd', 'c', 'main', 1)")
    conn.execute("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                 "state_after, interval, last_interval, scheduler_id) VALUES (1, 'review', 3, 5, 5, 0, 'new', "
                 "'learning', -600, 0, 1)")
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    store = open_store(location(tmp_path))
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    (entry,) = store.log()
    assert (entry.source, entry.anki_revlog_id, entry.rating) == ("studyapp", None, 3)
    (backup,) = path.parent.glob(f"{path.name}.schema3-*.bak")
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 3
    assert "source" not in [row[1] for row in old.execute("PRAGMA table_info(review_log)")]
    old.close()
    # The same Anki review cannot be logged twice for one item.
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.executemany(
            "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
            "state_after, interval, last_interval, scheduler_id, source, anki_revlog_id) "
            "VALUES (1, 'review', 3, 9, 9, 0, 'learning', 'review', 1, -600, 1, 'anki', 77)", [(), ()])
    store.close()


def test_a_note_made_in_anki_matches_a_bilingual_card_in_either_language(tmp_path):
    from studyapp.core.models import Card, CardText
    from studyapp.export.anki_import import _front_texts

    bilingual = Card(id="b", type="basic", source=("s",), front="缓存有几层？", back="三层", language="zh",
                     texts={"zh": CardText(front="缓存有几层？", back="三层"),
                            "en": CardText(front="How many layers has the cache?", back="Three")})
    texts = _front_texts(deck("d", [bilingual]), bilingual)
    assert normalized("How many layers has the <b>cache</b>?") in texts
    assert normalized("缓存有几层？") in texts
    assert normalized("Three") not in texts


def test_the_command_carries_a_studied_profile_s_reviews(cli_home, tmp_path, capsys):
    from studyapp.core.catalog import bundled_decks_dir, load_paths
    from studyapp.core.settings import Location
    from progress_support import answer

    bundled = {d.id: d for d in load_paths([bundled_decks_dir()]).decks}["pytorch-mega-cache"]
    store = open_store(Location(cli_home, "default", ()), clock=FakeClock(START))
    store.sync([bundled])
    rows = store.all_items()[:3]
    for index, row in enumerate(rows):
        answer(store, store.load_settings(), row.id, 3, START + index * MINUTE_MS)
    store.close()
    out = tmp_path / "studied.apkg"
    assert main(["export", "anki", "pytorch-mega-cache", "--with-progress", "-o", str(out)]) == 0
    assert "With progress: 3 cards studied, 3 reviews in the log" in capsys.readouterr().out
    collection = read_package(out)
    assert sorted(r.id for r in collection.revlog) == [START, START + MINUTE_MS, START + 2 * MINUTE_MS]
    assert sum(1 for c in collection.cards if c.type == 1) == 3


def test_reviews_older_than_studyapp_s_own_join_the_log_and_leave_its_schedule(tmp_path):
    """Profile A exports; B imports it and studies on; A studies later still, then imports B's export."""
    d, a, package, t1 = exported(tmp_path)
    b = open_store(location(tmp_path, "b"), clock=FakeClock(t1))
    b.save_settings(SETTINGS)
    b.sync([d])
    b.import_anki(lambda items, log: plan_import(read_package(package), [d], items, log, SETTINGS, t1), SETTINGS)
    key = "imp/q0/main"
    from progress_support import answer

    answer(b, SETTINGS, b.item(key).id, 3, t1 + DAY_MS)
    from_b = tmp_path / "b.apkg"
    export_anki([d], from_b, home=None, clock=lambda: (t1 + DAY_MS) / 1000, schedule=gather_progress(b, SETTINGS))
    answer(a, SETTINGS, a.item(key).id, 1, t1 + 2 * DAY_MS)
    mine = a.item(key).state
    plan = a.import_anki(lambda items, log: plan_import(read_package(from_b), [d], items, log, SETTINGS,
                                                        t1 + 2 * DAY_MS), SETTINGS)
    assert [r.item_key for r in plan.reviews] == [key] and plan.kept_newer == [key] and plan.states == {}
    assert a.item(key).state == mine
    assert a.rebuild_states()[a.item(key).id].due_ms == mine.due_ms
    assert [e.source for e in a.history(a.item(key).id)][-2:] == ["studyapp", "anki"]


# ---------------------------------------------------------------- the documentation


def test_the_docs_name_anki_s_import_and_export_options_in_anki_s_own_words(tmp_path):
    """docs/export.md walks both directions through Anki's dialogs: every option it names is the label
    Anki shows (the ``anki`` package's own English strings), and each one is named."""
    from anki.collection import Collection

    # Lines joined: a label may wrap.
    text = " ".join((Path(__file__).resolve().parent.parent / "docs" / "export.md").read_text(encoding="utf-8").split())
    both_ways = text[text.index("## Progress both ways"):]
    to_anki = both_ways[:both_ways.index("### Anki → studyapp")]
    from_anki = both_ways[both_ways.index("### Anki → studyapp"):]
    collection = Collection(str(tmp_path / "labels.anki2"))
    try:
        tr = collection.tr
        importing = [tr.importing_also_import_progress(), tr.importing_with_deck_configs(),
                     tr.importing_merge_notetypes(), tr.importing_update_notes(), tr.importing_update_notetypes(),
                     tr.importing_update_if_newer()]
        exporting = [tr.exporting_anki_deck_package(), tr.exporting_anki_collection_package(),
                     tr.exporting_include_scheduling_information(), tr.exporting_include_deck_configs(),
                     tr.exporting_include_media()]
        older = tr.exporting_support_older_anki_versions()
    finally:
        collection.close()
    for label in importing:
        assert f"*{label}" in to_anki, label  # bold or italic, as the dialog shows it
    for label in exporting:
        assert f"*{label}" in from_anki, label
    # The docs give the label up to Anki's aside in parentheses.
    named = from_anki[from_anki.index("*Support older"):].split("*")[1]
    assert older.startswith(named) and len(named) > len("Support older")
    assert "**File → Import…**" in to_anki and "**File → Export…**" in from_anki
