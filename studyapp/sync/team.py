"""``studyapp report --team``: every learner's report, read from the team server.

The same reports ``studyapp report --format json`` writes on each learner's machine, built
from the server's copy of their log and of their items' states (which each device uploads
after it replays), so that ``report --merge``'s team table comes out of one query per table.
A lead's role reads everyone; a learner's role reads only their own rows (row-level security).

The log is summed on the server (per learner and card, and per learner and quarter hour, as
``onboarding.report.summary_from_aggregates`` reads it): 200 learners' million answers come back
as a few tens of thousands of sums, not as a million rows to turn into Python objects.
"""

from __future__ import annotations

import json
from collections import defaultdict

TEAM_WORK_MEM = "128MB"
ANSWERS = ("FROM studyapp.reviews r WHERE r.kind IN ('review', 'cram') "
           "AND NOT EXISTS (SELECT 1 FROM studyapp.undone u WHERE u.uid = r.uid)")


def team_reports(conn, decks, curriculum, now_ms: int, day_of, date_of) -> list[dict]:
    from ..core.retention import BUCKET_MS, sql_counts
    from ..onboarding.report import (MASTERY_STABILITY_DAYS, Bank, ExamResult, LogSummary, report_from_summary,
                                     summary_from_aggregates)

    bank = Bank(decks)
    deck_ids = sorted(bank.deck_ids)
    # The per-card and per-quarter-hour sums are hash aggregates over the whole log: with the
    # server's default 4 MB they spill to disk (EXPLAIN ANALYZE: "Disk Usage"), in memory they don't.
    conn.execute(f"SET work_mem = '{TEAM_WORK_MEM}'")
    learners: set[str] = {learner for (learner,) in conn.execute(
        "SELECT DISTINCT learner FROM studyapp.item_states")}
    mastered: dict[str, set[str]] = defaultdict(set)
    for learner, key in conn.execute("SELECT learner, item_key FROM studyapp.item_states "
                                     "WHERE state = 'review' AND stability >= %s", (MASTERY_STABILITY_DAYS,)):
        mastered[learner].add(key)
    counts = sql_counts("r.kind", "r.rating", "r.last_interval")
    deck = "split_part(r.item_key, '/', 1)"
    # Every deck here, the report's decks picked out below: a learner who answered only in decks this
    # catalog lacks still gets a (blank) report, as one does from `report` on their machine.
    bucket_query = f"SELECT r.learner, r.time_ms / {BUCKET_MS}, {counts} {ANSWERS} AND {deck} = ANY(%s) GROUP BY 1, 2"
    # The two scans of the log run on the server side by side: the per-quarter-hour sums on a
    # second connection of the same role (in a thread), the per-card sums on this one.
    bucket_rows = _in_parallel(conn, bucket_query, (deck_ids,))
    cards: dict[str, list] = defaultdict(list)
    for learner, deck_id, *rest in conn.execute(
            f"SELECT r.learner, {deck}, split_part(r.item_key, '/', 2), sum((r.kind = 'review')::int), "
            f"sum((r.kind = 'review' AND r.rating = 1)::int), sum(r.duration_ms)::bigint, min(r.time_ms), max(r.time_ms), "
            f"{counts} {ANSWERS} GROUP BY 1, 2, 3"):
        learners.add(learner)
        if deck_id in bank.deck_ids:
            cards[learner].append((deck_id, *rest))
    buckets: dict[str, list] = defaultdict(list)
    for learner, *rest in bucket_rows():
        buckets[learner].append(rest)
    exams: dict[str, list] = defaultdict(list)
    for learner, time_ms, result in conn.execute(
            "SELECT learner, time_ms, result FROM studyapp.exams ORDER BY time_ms"):
        result = result if isinstance(result, dict) else json.loads(result)
        exams[learner].append(ExamResult(time_ms=time_ms, deck_ids=tuple(result["deck_ids"]), seed=result["seed"],
                                         mode=result["mode"], questions=result["questions"],
                                         correct=result["correct"], pass_mark=result["pass_mark"]))
    learners |= set(exams)

    def answers_in(learner: str):
        def read(split: list[int]) -> list[tuple]:
            return conn.execute(
                f"SELECT r.time_ms, r.kind, r.rating, r.last_interval {ANSWERS} AND r.learner = %s "
                f"AND {deck} = ANY(%s) AND r.time_ms / {BUCKET_MS} = ANY(%s)", (learner, deck_ids, split)).fetchall()
        return read

    reports = []
    for learner in sorted(learners):
        log = (summary_from_aggregates(cards[learner], buckets[learner], answers_in(learner), day_of)
               if learner in cards or learner in buckets else LogSummary())
        reports.append(report_from_summary(profile=learner, bank=bank, mastered_keys=mastered[learner], log=log,
                                           exams=exams[learner], curriculum=curriculum, now_ms=now_ms,
                                           day_of=day_of, date_of=date_of))
    return reports


def _in_parallel(conn, query: str, params: tuple):
    """Start ``query`` on a second connection like ``conn`` (same server, role and libpq
    settings: the password comes from where libpq found it) in a thread; the returned function
    gives its rows. Where a second connection cannot be had, the query runs on ``conn`` when asked."""
    import threading

    import psycopg

    result: dict[str, object] = {}

    def work() -> None:
        try:
            with psycopg.connect(conn.info.dsn, password=conn.info.password or None) as other:
                other.execute(f"SET work_mem = '{TEAM_WORK_MEM}'")
                result["rows"] = other.execute(query, params).fetchall()
        except Exception as error:  # noqa: BLE001 - the main connection answers instead
            result["error"] = error

    thread = threading.Thread(target=work, name="team-report-buckets", daemon=True)
    thread.start()

    def rows() -> list:
        thread.join()
        if "rows" in result:
            return result["rows"]  # type: ignore[return-value]
        return conn.execute(query, params).fetchall()

    return rows
