"""A learner's report, read from their database without changing it."""

from __future__ import annotations

import sys

# More than the longest span (a year): the days the report reads of the log.
DAYS_READ = 400


def collect_report(location, catalog, clock=None) -> dict:
    """Read the learner's database (without changing it) and build the report of ``catalog``'s decks
    (a Catalog, or the CatalogSummary of one).

    The log is summed in SQLite (``store.summary.report_log``): a report over a million answers
    reads sums, not rows. ``onboarding.report.build_report`` over the same rows gives the same figures."""
    from ..core.clock import SystemClock
    from ..core.curriculum import first_curriculum
    from ..core.catalog import deck_dirs
    from ..core.scheduler import Settings
    from ..store import open_store
    from ..store.summary import report_log, start_report_log
    from .report import (MASTERY_STABILITY_DAYS, Bank, ExamResult, Flag, LogSummary, report_from_summary, streak,
                         summary_from_aggregates)

    clock = clock or SystemClock()
    curriculum, broken = first_curriculum(deck_dirs(location.deck_dirs), {deck.id for deck in catalog.decks})
    for path, problems in broken:
        first = next((p for p in problems if p.is_error), None)
        print(f"{first.format() if first else path}\nstudyapp: warning: curriculum {path} ignored; "
              f"run 'studyapp check {path.parent}'", file=sys.stderr)
    deck_ids = sorted({deck.id for deck in catalog.decks})
    mastered: set[str] = set()
    log = LogSummary()
    exams: list[ExamResult] = []
    flags: list[Flag] = []
    settings = Settings()
    bank = None
    store = open_store(location, clock=clock, readonly=True)
    if store is not None:
        with store:
            settings = store.load_settings()
            days = settings.study_days()
            # Study days only as far back as the spans and the streak look: the year, and further
            # only for a streak that reaches past it.
            today = days.day_of(clock.now_ms())
            since_ms = days.start_ms(today - DAYS_READ + 1)
            # The log's scans run on connections of their own while the rest is read and worked out.
            scanned = start_report_log(store, deck_ids, since_ms)
            bank = _bank(catalog)
            with store.guarded():
                mastered = {key for (key,) in store.conn.execute(
                    "SELECT key FROM items WHERE present = 1 AND state = 'review' AND stability >= ?",
                    (MASTERY_STABILITY_DAYS,))}
                flags = [Flag(*row) for row in store.conn.execute(
                    "SELECT key, deck_id, card_id, flag_note, flagged_ms FROM items WHERE flag_note IS NOT NULL "
                    "ORDER BY id")]
            exams = [ExamResult(**e) for e in store.exam_results()]
            log = summary_from_aggregates(*scanned(), days.day_of)
            if streak(set(log.days), today) >= DAYS_READ - 1:
                log = summary_from_aggregates(*report_log(store, deck_ids), days.day_of)
    bank = bank or _bank(catalog)
    days = settings.study_days()
    return report_from_summary(profile=location.profile, bank=bank, mastered_keys=mastered, log=log, exams=exams,
                               curriculum=curriculum, now_ms=clock.now_ms(), day_of=days.day_of,
                               date_of=days.date_of, flags=flags)


def _bank(catalog):
    from .report import Bank

    # A core.decksummary.CatalogSummary has no cards, but the facts Bank works out from them.
    return catalog.bank() if hasattr(catalog, "bank") else Bank(catalog.decks)


def collect_series(location, catalog, clock=None):
    """What the HTML report draws for one learner: reviews per day, mastery over time, what is due."""
    from ..core.clock import SystemClock
    from ..core.scheduler import Settings
    from ..store import open_store
    from .html import learner_series

    clock = clock or SystemClock()
    keys = {item.key for deck in catalog.decks for item in deck.items()}
    settings, log, due = Settings(), [], []
    store = open_store(location, clock=clock, readonly=True)
    if store is not None:
        with store:
            settings = store.load_settings()
            rows = {row.id: row for row in store.all_items() if row.key in keys}
            log = [(e.item_id, e.kind, e.rating, e.time_ms, e.state_after, e.stability) for e in store.log()
                   if e.item_id in rows]
            due = [row.state.due_ms for row in rows.values() if row.state.state == "review" and row.state.due_ms]
    days = settings.study_days()
    today = days.day_of(clock.now_ms())
    return learner_series(log, len(keys), due, today, days.day_of, days.date_of)


def mastered_keys(store) -> set[str]:
    """The keys of the present items that count as mastered (``onboarding.report.is_mastered``), picked out
    in SQL: the home screen's tracks once built a row object for every item, then one for each mastered
    one (at 100,000 cards, most of a second)."""
    from .report import MASTERY_STABILITY_DAYS

    with store.guarded():
        return {key for (key,) in store.conn.execute(
            "SELECT key FROM items WHERE present = 1 AND state = 'review' AND stability >= ?",
            (MASTERY_STABILITY_DAYS,))}
