"""Studying in studyapp on a fake clock, and comparing its items with the cards a real Anki holds."""

from __future__ import annotations

import random
from datetime import datetime
from zoneinfo import ZoneInfo

from engine_support import location
from studyapp.core.clock import DAY_MS, MINUTE_MS, FakeClock
from studyapp.core.scheduler import NEW, REVIEW, RATINGS, ReviewScheduler, Settings
from studyapp.export.anki import export_anki
from studyapp.export.ids import anki_card_id
from studyapp.export.progress import gather_progress
from studyapp.store import open_store

ZONE = "Europe/Berlin"
# Settings both sides share: Anki's fuzz is off in its test mode, so studyapp's is too.
SETTINGS = Settings(timezone=ZONE, fuzz=False, new_per_day=9999, reviews_per_day=9999)
RATING_WEIGHTS = (0.15, 0.12, 0.58, 0.15)


def at(year: int, month: int, day: int, hour: int = 10, minute: int = 0) -> int:
    return int(datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(ZONE)).timestamp() * 1000)


def answer(store, settings: Settings, item_id: int, rating: int, time_ms: int) -> None:
    scheduler = ReviewScheduler(settings)
    store.record_answer(item_id, lambda row: scheduler.apply(row.state, row.key, rating, time_ms), kind="review",
                        rating=rating, time_ms=time_ms, sched_ms=time_ms, duration_ms=3500, settings=settings)


def study(store, settings: Settings, start_ms: int, days: int, rng: random.Random, *, new_share: float = 0.5,
          max_new: int | None = None) -> int:
    """A learner studying every day from ``start_ms``: due items, some new ones, learning steps in the day.

    Returns how many answers were given. Times stay between 10:00 and 13:00 local."""
    answers = 0
    introduced = 0
    for day in range(days):
        now = start_ms + day * DAY_MS + rng.randrange(0, 60) * MINUTE_MS
        for round_ in range(4):
            for row in store.all_items():
                if row.suspended:
                    continue
                state = row.state
                due = (state.state == NEW and round_ == 0 and rng.random() < new_share
                       and (max_new is None or introduced < max_new))
                introduced += due
                due = due or (state.state != NEW and state.due_ms is not None and state.due_ms <= now)
                if not due:
                    continue
                rating = rng.choices(RATINGS, weights=RATING_WEIGHTS)[0]
                answer(store, settings, row.id, rating, now)
                answers += 1
                now += 20_000
            now += 11 * MINUTE_MS
    return answers


def studied_export(folder, deck, start_ms: int, days: int, seed: int):
    """(store, package, now): a profile in ``folder`` that studied ``deck`` for ``days`` from
    ``start_ms``, and its Anki export with progress ("p.apkg" beside it) at the end of them."""
    store = open_store(location(folder), clock=FakeClock(start_ms))
    store.save_settings(SETTINGS)
    store.sync([deck])
    study(store, SETTINGS, start_ms, days, random.Random(seed))
    now = start_ms + days * DAY_MS
    package = folder / "p.apkg"
    export_anki([deck], package, home=None, clock=lambda: now / 1000, schedule=gather_progress(store, SETTINGS))
    return store, package, now


def interval_of(preview) -> int:
    return preview.interval_days if preview.interval_days is not None else -preview.interval_secs


def compare(store, settings: Settings, cards: list[dict], now_ms: int, card_ids: dict[str, int] | None = None) -> list[str]:
    """Every difference between the studyapp items and the Anki cards with their ids, as sentences.

    ``card_ids`` names the Anki card of each item to compare (default: every item, by ``anki_card_id``)."""
    scheduler = ReviewScheduler(settings)
    today = scheduler.days.day_of(now_ms)
    by_id = {card["id"]: card for card in cards}
    counts = {}
    for entry in store.log():
        counts[entry.item_id] = counts.get(entry.item_id, 0) + 1
    problems = []
    for row in store.all_items():
        if card_ids is not None and row.key not in card_ids:
            continue
        card = by_id.get(card_ids[row.key] if card_ids is not None else anki_card_id(row.key))
        if card is None:
            problems.append(f"{row.key}: no Anki card {anki_card_id(row.key)}")
            continue
        state = row.state
        mine = {"reps": state.reps, "lapses": state.lapses, "revlog": counts.get(row.id, 0)}
        theirs = {"reps": card["reps"], "lapses": card["lapses"], "revlog": len(card["revlog"])}
        if state.state != NEW and not row.suspended:
            previews = scheduler.previews(state, row.key, now_ms)
            mine["intervals"] = [interval_of(previews[r]) for r in RATINGS]
            theirs["intervals"] = card["intervals"]
        if state.state == REVIEW:
            mine["due_in_days"] = scheduler.days.day_of(state.due_ms) - today
            theirs["due_in_days"] = card["due_in_days"]
        elif state.state != NEW:
            mine["due_secs"] = state.due_ms // 1000
            theirs["due_secs"] = card["due"]
        mine["type"] = {"new": 0, "learning": 1, "review": 2, "relearning": 3}[state.state]
        theirs["type"] = card["type"]
        mine["suspended"] = row.suspended
        theirs["suspended"] = card["queue"] == -1
        mine["buried"] = row.buried_day >= today
        theirs["buried"] = card["queue"] in (-2, -3)
        for name in mine:
            if mine[name] != theirs[name]:
                problems.append(f"{row.key}: {name} studyapp {mine[name]} anki {theirs[name]}")
        if state.stability is not None:
            memory = card["memory"]
            if memory is None or abs(memory[0] - state.stability) > 1e-3 or abs(memory[1] - state.difficulty) > 1e-3:
                problems.append(f"{row.key}: memory studyapp {(state.stability, state.difficulty)} anki {memory}")
        elif card["memory"] is not None:
            problems.append(f"{row.key}: memory studyapp none anki {card['memory']}")
    return problems
