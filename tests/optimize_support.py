"""Deterministic review histories for fitting: one learner studying a deck for months.

``history(spec)`` simulates a learner on studyapp's scheduler (which is Anki's, checked by
tests/test_parity.py) and returns the answers as events ``[card, time_ms, rating, kind]``
(kind: "review", "cram" or "undone"), every time distinct to the second. The same events go
into a real studyapp store (``record``) and into a real Anki collection (tests/anki_driver.py's
``replay`` step), so that both logs hold the same history and the fits can be compared.

The learner forgets faster than FSRS's defaults expect (recall probability R ** 1.6), so a
fit moves away from the defaults.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from studyapp.core.scheduler import NEW, NEW_STATE, REVIEW, ReviewScheduler, Settings

DAY_MS = 86_400_000


def settings_for(spec: dict) -> Settings:
    return Settings(timezone=spec["tz"], rollover_hour=spec["rollover"], fuzz=False, load_balancer=False,
                    new_per_day=9999, reviews_per_day=9999)


def history(spec: dict) -> dict:
    """``spec``: seed, cards, days, tz, rollover, new_per_day, and shares of cram answers, same-day
    repeats, undone answers and sessions within an hour of the rollover."""
    rng = random.Random(spec["seed"])
    settings = settings_for(spec)
    scheduler = ReviewScheduler(settings)
    zone = ZoneInfo(spec["tz"])
    start = datetime(2026, 1, 5, tzinfo=zone)
    states = {card: NEW_STATE for card in range(spec["cards"])}
    events: list[list] = []
    introduced = 0
    used_secs: set[int] = set()

    def moment(ms: int) -> int:
        secs = ms // 1000
        while secs in used_secs:
            secs += 1
        used_secs.add(secs)
        return secs * 1000 + rng.randrange(0, 1000)

    def answer(card: int, now: int) -> None:
        state = states[card]
        if state.state == NEW:
            rating = rng.choices((1, 2, 3, 4), weights=(0.25, 0.15, 0.45, 0.15))[0]
        else:
            recall = scheduler.retrievability(state, now) or 1.0
            if state.state != REVIEW:
                recall = 0.85
            if rng.random() < recall ** 1.6:
                rating = rng.choices((2, 3, 4), weights=(0.15, 0.7, 0.15))[0]
            else:
                rating = 1
        if rng.random() < spec.get("undo", 0.0):
            events.append([card, now, rating, "undone"])
            now += 3000
            now = moment(now)
        events.append([card, now, rating, "review"])
        states[card] = scheduler.apply(state, f"d/c{card:04d}/main", rating, now).after

    for day in range(spec["days"]):
        sessions = [rng.choice((9, 11, 14, 19, 21))]
        if rng.random() < spec.get("near_rollover", 0.0):
            # Within an hour after the rollover (Anki's test mode moves the clock between 02:00 and
            # 04:00, so the rollover hours used keep clear of that).
            sessions = [spec["rollover"]]
        if rng.random() < spec.get("same_day", 0.0):
            sessions.append(sessions[0] + 3)
        for session, hour in enumerate(sessions):
            local = start + timedelta(days=day, hours=hour, minutes=rng.randrange(0, 50))
            now = int(local.timestamp() * 1000)
            answered_today = [c for c in states if states[c].last_review_ms is not None
                              and states[c].last_review_ms >= now - 6 * 3_600_000]
            for round_ in range(3):
                due = [c for c in states if states[c].state != NEW and states[c].due_ms is not None
                       and states[c].due_ms <= now]
                if round_ == 0 and session == 0:
                    fresh = [c for c in states if states[c].state == NEW][:spec["new_per_day"]]
                    due += fresh
                if round_ == 0 and session > 0:
                    # Same-day repeats: cards seen this morning, answered again though not due.
                    due += [c for c in answered_today if c not in due and rng.random() < 0.3]
                for card in due:
                    now = moment(now)
                    if rng.random() < spec.get("cram", 0.0):
                        events.append([card, now, rng.choice((1, 3)), "cram"])
                        now = moment(now + 5000)
                    answer(card, now)
                    now += 15_000
                now += 11 * 60_000
    end = max(e[1] for e in events)
    now_ms = int((datetime.fromtimestamp(end / 1000, zone) + timedelta(hours=5)).timestamp() * 1000)
    return {"spec": spec, "cards": spec["cards"], "events": events, "now_ms": now_ms,
            "reviews": sum(1 for e in events if e[3] == "review")}


def duration_of(card: int, time_ms: int, rating: int) -> int:
    """How long an answer took (ms): from the event alone, so that studyapp's log and Anki's revlog
    (tests/anki_driver.py writes it into the replayed answer's ``time``) hold the same. One in 97
    took no time that counts (0) and one in 89 more than Anki's 20-minute cap."""
    secs = time_ms // 1000
    if secs % 97 == 0:
        return 0
    if secs % 89 == 0:
        return 1_300_000
    return 1000 + (card * 7919 + secs * 104_729 + rating * 3001) % 30_000


def record(store, history_: dict) -> None:
    """The history's answers into ``store`` (a deck ``d`` of cards ``c0000``...; undone answers
    recorded and then taken back, as a session's undo does), each taking ``duration_of`` it."""
    settings = settings_for(history_["spec"])
    scheduler = ReviewScheduler(settings)
    ids = {row.key: row.id for row in store.all_items()}
    for card, time_ms, rating, kind in history_["events"]:
        item_id = ids[f"d/c{card:04d}/main"]
        log_kind = "cram" if kind == "cram" else "review"
        log_id, before, _ = store.record_answer(
            item_id, lambda row: scheduler.apply(row.state, row.key, rating, time_ms), kind=log_kind,
            rating=rating, time_ms=time_ms, sched_ms=time_ms, duration_ms=duration_of(card, time_ms, rating),
            settings=settings)
        if kind == "undone":
            store.restore(before, delete_log_id=log_id)


# Twenty histories of 200 to 2,000 reviews: rollover hours and zones, lapses (every history has
# them: the learner forgets), same-day repeats, cram answers and undone answers.
SPECS = [
    {"seed": 1000 + i, "cards": cards, "days": days, "new_per_day": new, "tz": tz, "rollover": rollover,
     "cram": cram, "same_day": same_day, "undo": undo, "near_rollover": near}
    for i, (cards, days, new, tz, rollover, cram, same_day, undo, near) in enumerate([
        (30, 60, 5, "UTC", 4, 0.0, 0.0, 0.0, 0.0),
        (40, 80, 4, "Europe/Berlin", 4, 0.05, 0.1, 0.02, 0.0),
        (50, 90, 5, "Asia/Shanghai", 6, 0.0, 0.3, 0.0, 0.3),
        (60, 120, 6, "America/Los_Angeles", 5, 0.03, 0.2, 0.02, 0.2),
        (35, 70, 5, "UTC", 0, 0.1, 0.0, 0.0, 0.0),
        (45, 100, 3, "Europe/Berlin", 7, 0.0, 0.4, 0.05, 0.4),
        (80, 150, 8, "Asia/Shanghai", 4, 0.02, 0.1, 0.0, 0.0),
        (70, 120, 7, "UTC", 5, 0.05, 0.2, 0.02, 0.1),
        (100, 160, 10, "America/Los_Angeles", 4, 0.0, 0.1, 0.0, 0.0),
        (60, 200, 4, "Europe/Berlin", 6, 0.05, 0.3, 0.03, 0.2),
        (40, 60, 8, "UTC", 4, 0.0, 0.5, 0.0, 0.0),
        (90, 140, 9, "Asia/Shanghai", 7, 0.04, 0.15, 0.01, 0.3),
        (120, 110, 12, "UTC", 4, 0.02, 0.1, 0.02, 0.0),
        (50, 240, 3, "America/Los_Angeles", 6, 0.03, 0.2, 0.0, 0.2),
        (75, 100, 10, "Europe/Berlin", 4, 0.1, 0.1, 0.05, 0.0),
        (110, 140, 8, "UTC", 5, 0.0, 0.25, 0.0, 0.25),
        (65, 300, 3, "Asia/Shanghai", 4, 0.02, 0.1, 0.02, 0.1),
        (100, 140, 10, "Europe/Berlin", 6, 0.03, 0.2, 0.01, 0.2),
        (110, 120, 15, "America/Los_Angeles", 4, 0.02, 0.1, 0.0, 0.0),
        (90, 130, 10, "UTC", 7, 0.02, 0.2, 0.02, 0.3),
    ])
]


def deck_for(history_: dict):
    from engine_support import card, deck

    return deck("d", [card(f"c{i:04d}") for i in range(history_["cards"])])
