"""The report's fast path (the log summed in SQL, in SQLite for `report` and in PostgreSQL for
`report --team`) against the straightforward one (every answer read into Python and counted one at a
time by build_report), on generated logs: every figure must be the same.

The zones and rollover hours are the ones where day boundaries are easy to get wrong: a daylight-saving
zone with a rollover next to the change, a half-hour offset, and an offset of minutes and seconds
(Liberia kept -0:44:30 until 1972), whose study days start inside the SQL's quarter-hour buckets.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from studyapp.core.catalog import Catalog
from studyapp.core.clock import FakeClock
from studyapp.core.curriculum import Curriculum, Track
from studyapp.core.scheduler import Settings, StudyDays, resolve_zone
from studyapp.onboarding.collect import collect_report
from studyapp.onboarding.report import Answer, ExamResult, ItemFacts, build_report
from studyapp.store import open_store
from studyapp.store.schema import NEW_UID_SQL, write

from engine_support import card, deck, location
from pg_server import pg  # noqa: F401  (the fixture)

DAY = 86_400_000
# (zone, rollover hour, when the generated history ends)
CASES = [
    ("America/New_York", 2, datetime(2026, 11, 20, 12, tzinfo=ZoneInfo("UTC"))),  # spans the November change
    ("Asia/Kolkata", 4, datetime(2026, 6, 1, 9, tzinfo=ZoneInfo("UTC"))),
    ("Africa/Monrovia", 0, datetime(1971, 9, 1, 12, tzinfo=ZoneInfo("UTC"))),
]
LAST_INTERVALS = (0, -600, -86399, -86400, -172800, 1, 3, 20, 21, 40, 400)


def generated(rng: random.Random, count: int, end_ms: int, days: StudyDays) -> list[tuple]:
    """(kind, rating, time, duration, last interval): a long history, dense in its last weeks,
    with answers bunched within minutes of the study days' starts, and some at the same millisecond."""
    rows = []
    today = days.day_of(end_ms)
    for n in range(count):
        if n % 3 == 0:
            t = end_ms - rng.randrange(400 * DAY)
        else:
            near = rng.choice((60_000, 20 * 60_000))
            t = min(end_ms, days.start_ms(today - rng.randrange(40)) + rng.randrange(-near, near))
        if n % 17 == 0 and rows:
            t = rows[-1][2]
        kind = rng.choice(("review", "review", "review", "cram"))
        rows.append((kind, rng.choice((1, 1, 2, 3, 3, 4)), t, rng.randrange(500, 30_000), rng.choice(LAST_INTERVALS)))
    return rows


def _write_log(store, rows: list[tuple], item_ids: list[int], rng: random.Random) -> None:
    with store.guarded(), write(store.conn):
        store.conn.execute("INSERT INTO schedulers (version, params) VALUES ('fsrs test', '{}')")
        scheduler = store.conn.execute("SELECT max(id) FROM schedulers").fetchone()[0]
        store.conn.executemany(
            "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
            f"interval, last_interval, stability, difficulty, due_ms, scheduler_id, uid) VALUES "
            f"(?, ?, ?, ?, ?, ?, 'review', 'review', 3, ?, 10.0, 5.0, NULL, ?, {NEW_UID_SQL})",
            [(rng.choice(item_ids), kind, rating, t, t, duration, last, scheduler)
             for kind, rating, t, duration, last in rows])
        # Some items mastered, some nearly, one flagged.
        for n, item_id in enumerate(item_ids):
            store.conn.execute("UPDATE items SET state = ?, stability = ? WHERE id = ?",
                               (("review", "learning", "review")[n % 3], (30.0, 21.0, 20.9, None)[n % 4], item_id))
        store.conn.execute("UPDATE items SET flag_note = 'unclear', flagged_ms = ? WHERE id = ?", (rows[0][2], item_ids[0]))


def _straightforward(store, catalog, location_, now_ms: int) -> dict:
    """The report as it was built before the fast path: every row of the log into Python."""
    from studyapp.onboarding.report import Flag

    settings = store.load_settings()
    rows = store.all_items()
    by_id = {row.id: row for row in rows}
    items = [ItemFacts(r.key, r.deck_id, r.card_id, r.state.state, r.state.stability) for r in rows if r.present]
    answers = [Answer(by_id[e.item_id].key, by_id[e.item_id].deck_id, by_id[e.item_id].card_id, e.kind, e.rating,
                      e.time_ms, e.duration_ms, e.last_interval) for e in store.log() if e.kind in ("review", "cram")]
    flags = [Flag(r.key, r.deck_id, r.card_id, r.flag_note, r.flagged_ms) for r in rows if r.flag_note is not None]
    exams = [ExamResult(**e) for e in store.exam_results()]
    days = StudyDays(resolve_zone(settings.timezone), settings.rollover_hour)
    return build_report(profile=location_.profile, decks=catalog.decks, items=items, answers=answers, exams=exams,
                        curriculum=None, now_ms=now_ms, day_of=days.day_of, date_of=days.date_of, flags=flags)


@pytest.mark.parametrize("zone, rollover, end", CASES, ids=[c[0] for c in CASES])
def test_report_from_sqlite_sums_equals_the_report_from_every_row(tmp_path, zone, rollover, end):
    rng = random.Random(zone)
    end_ms = int(end.timestamp() * 1000)
    decks = [deck("alpha", [card("a1"), card("a2", "reverse"), card("a3", "cloze")]), deck("beta", 5), deck("gone", 3)]
    loc = location(tmp_path)
    store = open_store(loc, clock=FakeClock(end_ms))
    store.save_settings(replace(Settings(), timezone=zone, rollover_hour=rollover))
    store.sync(decks)
    item_ids = [row[0] for row in store.conn.execute("SELECT id FROM items ORDER BY id")]
    _write_log(store, generated(rng, 3000, end_ms, StudyDays(ZoneInfo(zone), rollover)), item_ids, rng)
    # A deck the catalog no longer has: its answers are in the log but in neither report.
    catalog = Catalog(decks=decks[:2], problems=[])
    expected = _straightforward(store, catalog, loc, end_ms)
    store.close()
    fast = collect_report(loc, catalog, clock=FakeClock(end_ms))
    assert fast == expected
    # The comparison has teeth: the history reaches every span, both ages, and a streak.
    totals = fast["totals"]
    assert totals["retention_by_span"]["day"]["answers"] > 0 and totals["retention_young"] is not None
    assert totals["retention_mature"] is not None and totals["streak_days"] > 1 and fast["flags"]
    assert 0 < totals["mastered"] < totals["items"]


def _two_deck_profile(tmp_path, case, seed, answers, before_log=lambda store: None):
    """A profile of two small decks with a generated log in the case's zone; the report worked out
    row by row from it, for the faster paths to equal."""
    zone, rollover, end = case
    rng = random.Random(seed)
    end_ms = int(end.timestamp() * 1000)
    decks = [deck("alpha", [card("a1"), card("a2", "reverse"), card("a3", "cloze")]), deck("beta", 5)]
    loc = location(tmp_path)
    store = open_store(loc, clock=FakeClock(end_ms))
    store.save_settings(replace(Settings(), timezone=zone, rollover_hour=rollover))
    store.sync(decks)
    before_log(store)
    item_ids = [row[0] for row in store.conn.execute("SELECT id FROM items ORDER BY id")]
    _write_log(store, generated(rng, answers, end_ms, StudyDays(ZoneInfo(zone), rollover)), item_ids, rng)
    catalog = Catalog(decks=decks, problems=[])
    expected = _straightforward(store, catalog, loc, end_ms)
    store.close()
    return loc, catalog, end_ms, expected


@pytest.mark.parametrize("bits", [2, 1])
def test_groups_too_big_to_pack_are_summed_the_plain_way(tmp_path, monkeypatch, bits):
    """The four counts are packed PACK_BITS bits each; with the fields made tiny, groups overflow them
    (bits=2: some cards and buckets fit, some do not; bits=1: none fit) and the plain sums must
    take over with the same report."""
    import studyapp.core.retention as retention

    loc, catalog, end_ms, expected = _two_deck_profile(tmp_path, CASES[1], "packed", 600)
    monkeypatch.setattr(retention, "PACK_BITS", bits)
    monkeypatch.setattr(retention, "PACKED_MAX", 1 << bits)
    assert collect_report(loc, catalog, clock=FakeClock(end_ms)) == expected
    assert expected["totals"]["retention_answers"] > 1 << bits


def test_the_quarter_hour_buckets_of_an_odd_offset_are_counted_answer_by_answer():
    """Liberia's -0:44:30 puts a day boundary inside a bucket: those answers are read one by one."""
    from studyapp.core.retention import BUCKET_MS, bucket_days

    days = StudyDays(ZoneInfo("Africa/Monrovia"), 0)
    start = int(datetime(1971, 3, 1, 0, 30, tzinfo=ZoneInfo("UTC")).timestamp() * 1000) // BUCKET_MS
    mapped, split = bucket_days(range(start, start + 8), days.day_of)
    assert len(split) == 1 and len(mapped) == 7  # 00:44:30 UTC lies in the bucket from 00:30 to 00:45
    modern = StudyDays(ZoneInfo("Asia/Kolkata"), 4)
    assert bucket_days(range(start, start + 4 * 96), modern.day_of)[1] == set()


@pytest.mark.parametrize("zone, rollover, end", CASES, ids=[c[0] for c in CASES])
def test_report_team_from_postgres_sums_equals_the_reports_from_every_row(pg, zone, rollover, end):
    """Monrovia's -0:44:30 puts study-day boundaries inside quarter hours: those are read answer by answer."""
    import psycopg

    from studyapp.sync.server import init_server
    from studyapp.sync.team import team_reports

    end_ms = int(end.timestamp() * 1000)
    days = StudyDays(ZoneInfo(zone), rollover)
    decks = [deck("alpha", [card("a1"), card("a2", "reverse"), card("a3", "cloze")]), deck("beta", 5)]
    keys = [item.key for d in decks for item in d.items()] + ["gone/x/0"]
    learners = [pg.role(f"l{n}") for n in range(4)]
    rng = random.Random(20)
    with psycopg.connect(pg.owner_url(), autocommit=True) as owner:
        init_server(owner, learners, [])
        undone, reviews = [], []
        with owner.cursor() as cursor:
            for n, learner in enumerate(learners[:3]):  # the fourth has states only
                for i, (kind, rating, t, duration, last) in enumerate(generated(rng, 800, end_ms, days)):
                    uid = f"{learner}-{i}"
                    reviews.append((uid, learner, rng.choice(keys), kind, rating, t, t, duration, last))
                    if i % 40 == 0:
                        undone.append((uid, learner, t))
            cursor.executemany(
                "INSERT INTO studyapp.reviews (uid, learner, item_key, revision, kind, rating, time_ms, "
                "sched_ms, duration_ms, state_before, state_after, interval, last_interval, scheduler_version, "
                "scheduler_params) VALUES (%s, %s, %s, 1, %s, %s, %s, %s, %s, 'review', 'review', 3, %s, "
                "'fsrs test', '{}')", reviews)
            cursor.executemany("INSERT INTO studyapp.undone (uid, learner, time_ms) VALUES (%s, %s, %s)", undone)
            cursor.executemany("INSERT INTO studyapp.item_states (learner, item_key, state, stability, reps, "
                               "last_review_ms) VALUES (%s, %s, %s, %s, 3, %s)",
                               [(learner, key, ("review", "learning")[(n + k) % 2], (30.0, 21.0, 5.0)[k % 3], end_ms)
                                for n, learner in enumerate(learners) for k, key in enumerate(keys)])
        # a curriculum with a deadline: its dates come from date_of
        curriculum = Curriculum(path=None, title="Onboarding", tracks=[Track("first", "First", ("alpha",), 0.5, 30)])
        fast = team_reports(owner, decks, curriculum, end_ms, days.day_of, days.date_of)
        expected = _team_straightforward(owner, decks, end_ms, days, curriculum)
    assert [r["profile"] for r in fast] == sorted(learners)
    assert fast == expected
    assert all(r["totals"]["retention_answers"] > 0 for r in fast[:3]) and fast[3]["totals"]["reviews"] == 0
    assert all(r["totals"]["mastered"] > 0 for r in fast) and fast[0]["tracks"][0]["deadline"] is not None


def _team_straightforward(conn, decks, now_ms: int, days, curriculum=None) -> list[dict]:
    """team_reports as it was: every answer of every learner into Python, one report each."""
    from collections import defaultdict

    items, answers = defaultdict(list), defaultdict(list)
    for learner, key, state, stability in conn.execute(
            "SELECT learner, item_key, state, stability FROM studyapp.item_states"):
        deck_id, card_id, _ = key.split("/", 2)
        items[learner].append(ItemFacts(key, deck_id, card_id, state, stability))
    for learner, key, kind, rating, time_ms, duration_ms, last_interval in conn.execute(
            "SELECT learner, item_key, kind, rating, time_ms, duration_ms, last_interval FROM studyapp.reviews r "
            "WHERE kind IN ('review', 'cram') AND NOT EXISTS (SELECT 1 FROM studyapp.undone u WHERE u.uid = r.uid) "
            "ORDER BY time_ms"):
        deck_id, card_id, _ = key.split("/", 2)
        answers[learner].append(Answer(key, deck_id, card_id, kind, rating, time_ms, duration_ms, last_interval))
    return [build_report(profile=learner, decks=decks, items=items[learner], answers=answers[learner], exams=[],
                         curriculum=curriculum, now_ms=now_ms, day_of=days.day_of, date_of=days.date_of)
            for learner in sorted(set(items) | set(answers))]


@pytest.mark.parametrize("zone, rollover, end", CASES, ids=[c[0] for c in CASES])
def test_the_sessions_spans_from_sql_sums_equal_the_spans_from_every_row(tmp_path, zone, rollover, end):
    """What the home screen, Stats and `stats` show: retention_spans_by_deck against by_span over the rows."""
    from studyapp.core.retention import SPANS, by_span
    from studyapp.core.session import ReviewSession

    rng = random.Random(zone + "spans")
    end_ms = int(end.timestamp() * 1000)
    days = StudyDays(ZoneInfo(zone), rollover)
    decks = [deck("alpha", 4), deck("beta", 5)]
    store = open_store(location(tmp_path), clock=FakeClock(end_ms))
    settings = replace(Settings(), timezone=zone, rollover_hour=rollover)
    store.save_settings(settings)
    store.sync(decks)
    _write_log(store, generated(rng, 3000, end_ms, days), [r[0] for r in store.conn.execute("SELECT id FROM items")], rng)
    session = ReviewSession(store, decks, clock=FakeClock(end_ms), settings=settings)
    today = days.day_of(end_ms)
    rows = store.retention_answers(["alpha", "beta"], days.start_ms(today - SPANS["year"] + 1), days.end_ms(today))
    expected = {d: by_span([(t, k, r, li) for deck_id, t, k, r, li in rows if deck_id == d], days.day_of, today)
                for d in ("alpha", "beta")}
    assert session.retention_spans_by_deck() == expected
    assert session.retention_spans() == by_span([(t, k, r, li) for _, t, k, r, li in rows], days.day_of, today)
    assert expected["alpha"]["day"].total > 0 and expected["beta"]["year"].total > expected["beta"]["month"].total
    store.close()


def test_an_older_databases_narrow_log_indexes_are_widened_and_the_report_stays_the_same(tmp_path):
    """Databases made before the review log's indexes carried the report's columns keep working as they
    are when read (a read changes nothing), and get the wide indexes on their next writable open; the
    report is the same either way, and the scans then read the indexes alone."""
    import sqlite3

    from studyapp.store.schema import LOG_INDEXES, has_wide_log_indexes

    def narrow_indexes(store) -> None:
        with store.guarded(), write(store.conn):
            store.conn.execute("DROP INDEX review_log_item")
            store.conn.execute("DROP INDEX review_log_time")
            store.conn.execute("CREATE INDEX review_log_item ON review_log (item_id, id)")
            store.conn.execute("CREATE INDEX review_log_time ON review_log (time_ms)")

    loc, catalog, end_ms, expected = _two_deck_profile(tmp_path, CASES[0], "narrow", 1500, before_log=narrow_indexes)

    def indexes() -> dict:
        with sqlite3.connect(loc.database) as conn:
            return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN "
                                     "('review_log_item', 'review_log_time')"))

    narrow = indexes()
    assert collect_report(loc, catalog, clock=FakeClock(end_ms)) == expected
    assert indexes() == narrow != LOG_INDEXES  # the read-only report left them as they were
    open_store(loc, clock=FakeClock(end_ms)).close()
    assert indexes() == LOG_INDEXES
    assert collect_report(loc, catalog, clock=FakeClock(end_ms)) == expected
    with open_store(loc, clock=FakeClock(end_ms), readonly=True) as store:
        assert has_wide_log_indexes(store.conn)
        plans = [" ".join(str(part) for part in row) for sql in (
            "SELECT item_id, count(*), sum(duration_ms), max(time_ms), sum(last_interval) FROM review_log "
            "WHERE kind IN ('review', 'cram') GROUP BY item_id",
            "SELECT time_ms / 900000, count(*), sum(rating = 1 AND last_interval > 0) FROM review_log "
            "WHERE kind IN ('review', 'cram') AND time_ms >= 0 GROUP BY 1")
            for row in store.conn.execute("EXPLAIN QUERY PLAN " + sql)]
    assert any("COVERING INDEX review_log_item" in p for p in plans), plans
    assert any("COVERING INDEX review_log_time" in p for p in plans), plans
