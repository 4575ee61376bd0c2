"""A learner's report, read from their database without changing it."""

from __future__ import annotations

import sys


def collect_report(location, catalog, clock=None) -> dict:
    """Read the learner's database (without changing it) and build the report."""
    from ..core.clock import SystemClock
    from ..core.curriculum import first_curriculum
    from ..core.catalog import deck_dirs
    from ..core.scheduler import Settings
    from ..store import open_store
    from .report import Answer, ExamResult, Flag, ItemFacts, build_report

    clock = clock or SystemClock()
    curriculum, broken = first_curriculum(deck_dirs(location.deck_dirs), {deck.id for deck in catalog.decks})
    for path, problems in broken:
        first = next((p for p in problems if p.is_error), None)
        print(f"{first.format() if first else path}\nstudyapp: warning: curriculum {path} ignored; "
              f"run 'studyapp check {path.parent}'", file=sys.stderr)
    items: list[ItemFacts] = []
    answers: list[Answer] = []
    exams: list[ExamResult] = []
    flags: list[Flag] = []
    settings = Settings()
    store = open_store(location, clock=clock, readonly=True)
    if store is not None:
        with store:
            settings = store.load_settings()
            rows = store.all_items()
            by_id = {row.id: row for row in rows}
            items = [ItemFacts(r.key, r.deck_id, r.card_id, r.state.state, r.state.stability) for r in rows if r.present]
            for entry in store.log():
                row = by_id.get(entry.item_id)
                if row is not None and entry.kind in ("review", "cram"):
                    answers.append(Answer(row.key, row.deck_id, row.card_id, entry.kind, entry.rating,
                                          entry.time_ms, entry.duration_ms, entry.last_interval))
            exams = [ExamResult(**e) for e in store.exam_results()]
            flags = [Flag(r.key, r.deck_id, r.card_id, r.flag_note, r.flagged_ms) for r in rows
                     if r.flag_note is not None]
    days = settings.study_days()
    return build_report(profile=location.profile, decks=catalog.decks, items=items, answers=answers, exams=exams,
                        curriculum=curriculum, now_ms=clock.now_ms(), day_of=days.day_of, date_of=days.date_of,
                        flags=flags)


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
