"""The team server under load: report --team over 200 learners with 5,000 reviews each, and a sync of
10,000 new reviews, each beside psql doing the same aggregate query or the same inserts.

Needs a PostgreSQL server where the caller may create a database and roles (STUDYAPP_TEST_POSTGRES,
default postgresql://127.0.0.1:5432/test, as on CI); a throwaway database is made and dropped.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from common import row  # noqa: E402

ADMIN_URL = "postgresql://127.0.0.1:5432/test"


def _seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _median(function, repeat: int) -> float:
    import statistics

    return statistics.median(_seconds(function) for _ in range(repeat))


def run(quick: bool = False) -> list[dict]:
    import os

    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    from studyapp.core.catalog import bundled_decks_dir, load_paths
    from studyapp.core.clock import FakeClock
    from studyapp.core.scheduler import StudyDays
    from studyapp.core.settings import resolve
    from studyapp.onboarding.merge import MergeResult, team_summary
    from studyapp.store import open_store
    from studyapp.store.schema import NEW_UID_SQL, write
    from studyapp.sync.client import sync
    from studyapp.sync.server import init_server
    from studyapp.sync.team import team_reports

    learners, per_learner, new_reviews = (20, 500, 1000) if quick else (200, 5000, 10_000)
    admin_url = os.environ.get("STUDYAPP_TEST_POSTGRES", ADMIN_URL)
    tag = uuid.uuid4().hex[:8]
    database = f"studyapp_bench_{tag}"
    admin = psycopg.connect(admin_url, autocommit=True)
    admin.execute(f'CREATE DATABASE "{database}"')
    parts = {k: v for k, v in conninfo_to_dict(admin_url).items() if v is not None}
    owner_url = make_conninfo(**dict(parts, dbname=database))
    roles = [f"b{i:03d}_{tag}" for i in range(learners)]
    lead, writer = f"lead_{tag}", f"writer_{tag}"
    decks = load_paths([bundled_decks_dir()]).decks
    keys = [item.key for deck in decks for item in deck.items()]
    try:
        with psycopg.connect(owner_url, autocommit=True) as owner:
            init_server(owner, [*roles, writer], [lead])
            # Everyone's history, written as the owner (row-level security binds the learners' roles only).
            buffer = io.StringIO()
            t0 = 1_780_000_000_000
            for r_index, role in enumerate(roles):
                for i in range(per_learner):
                    key = keys[(r_index + i) % len(keys)]
                    buffer.write(f"{uuid.uuid4().hex}\t{role}\t{key}\t1\treview\t{1 if i % 7 == 0 else 3}\t"
                                 f"{t0 + i * 60_000}\t{t0 + i * 60_000}\t3000\treview\treview\t3\t2\t10.0\t5.0\t"
                                 f"{t0 + i * 60_000 + 86_400_000}\tfsrs bench\t{{}}\n")
            buffer.seek(0)
            with owner.cursor() as cursor, cursor.copy(
                    "COPY studyapp.reviews (uid, learner, item_key, revision, kind, rating, time_ms, sched_ms, "
                    "duration_ms, state_before, state_after, interval, last_interval, stability, difficulty, due_ms, "
                    "scheduler_version, scheduler_params) FROM STDIN") as copy:
                copy.write(buffer.read())
            states = io.StringIO()
            for role in roles:
                for key in keys:
                    states.write(f"{role}\t{key}\treview\t25.0\t4\t{t0}\n")
            states.seek(0)
            with owner.cursor() as cursor, cursor.copy(
                    "COPY studyapp.item_states (learner, item_key, state, stability, reps, last_review_ms) "
                    "FROM STDIN") as copy:
                copy.write(states.read())
            owner.execute("ANALYZE")
        lead_url = make_conninfo(**dict(parts, dbname=database, user=lead))
        days = StudyDays(None, 4)

        def report_team():
            with psycopg.connect(lead_url) as conn:
                reports = team_reports(conn, decks, None, t0 + per_learner * 60_000, days.day_of, days.date_of)
            assert len(reports) == learners
            team_summary(MergeResult(learners=reports))

        aggregate = ("SELECT learner, count(*), sum((rating > 1)::int), sum(duration_ms), max(time_ms) "
                     "FROM studyapp.reviews GROUP BY learner")
        psql = ["psql", "-X", "-q", "-o", "/dev/null", "-d", lead_url, "-c", aggregate]
        repeat = 3
        team_time = _median(report_team, repeat)
        psql_team = _median(lambda: subprocess.run(psql, check=True), repeat)

        # A sync of new reviews: a device with `new_reviews` answers the server has not seen.
        with tempfile.TemporaryDirectory() as tmp:
            store = open_store(resolve(tmp, "bench", [], environ={}), clock=FakeClock(t0))
            store.sync(decks)
            with store.guarded():
                item_ids = [r[0] for r in store.conn.execute("SELECT id FROM items")]
                store.conn.execute("INSERT INTO schedulers (version, params) VALUES ('fsrs bench', '{}')")
                scheduler = store.conn.execute("SELECT id FROM schedulers").fetchone()[0]
                with write(store.conn):
                    store.conn.executemany(
                        "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                        "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id, uid) "
                        f"VALUES (?, 'cram', 3, ?, ?, 3000, 'new', 'new', 0, 0, NULL, NULL, NULL, ?, {NEW_UID_SQL})",
                        [(item_ids[i % len(item_ids)], t0 + i, t0 + i, scheduler) for i in range(new_reviews)])
            writer_url = make_conninfo(**dict(parts, dbname=database, user=writer))
            sync_time = _seconds(lambda: sync(store, writer_url))
            store.close()
        inserts = Path(tempfile.mkstemp(suffix=".sql")[1])
        with inserts.open("w") as handle:
            handle.write("BEGIN;\n")
            for i in range(new_reviews):
                handle.write(f"INSERT INTO studyapp.reviews (uid, item_key, revision, kind, rating, time_ms, sched_ms, "
                             f"duration_ms, state_before, state_after, interval, last_interval, scheduler_version, "
                             f"scheduler_params) VALUES ('{uuid.uuid4().hex}', '{keys[i % len(keys)]}', 1, 'cram', 3, "
                             f"{t0 + i}, {t0 + i}, 3000, 'new', 'new', 0, 0, 'fsrs bench', '{{}}');\n")
            handle.write("COMMIT;\n")
        psql_sync = _seconds(lambda: subprocess.run(["psql", "-X", "-q", "-o", "/dev/null", "-d", writer_url, "-f",
                                                     str(inserts)], check=True))
        inserts.unlink()
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        for role in [*roles, lead, writer]:
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        admin.close()
    size = f"{learners} learners with {per_learner:,} reviews each"
    return [
        row(f"report --team, {size}", team_time * 1000, psql_team * 1000, "ms",
            note="psql: the same rows aggregated by learner in one query"),
        row(f"sync of {new_reviews:,} new reviews", sync_time * 1000, psql_sync * 1000, "ms",
            note="psql: the same inserts in one transaction"),
    ]


if __name__ == "__main__":
    from common import markdown

    print(markdown(run("--quick" in sys.argv), baseline="psql"))
