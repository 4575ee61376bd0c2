"""Sibling burying and the counts against the real Anki: the same deck (reverse and cloze cards, a
new-card limit), Anki's default new-card order, the same answers, day after day on a moved clock
(two weeks, then after a month away, when siblings are due reviews together).

tests/anki_queue_oracle.py drives Anki under libfaketime; here studyapp's session runs the same
days on a fake clock, each answer at the same second as Anki's. Every day the counts at 10:00
(new, learning, review, as ``get_queued_cards`` gives them) must be the same, and so must every
card shown, in order: the queue it came from, the counts shown with it and, for new and
intraday learning cards, which card it is. Reviews and interday learning due the same day are
compared as a set: Anki's "due date, then random" draws that order from its own card ids and
modification times (with the clock left running between answers, two runs of the oracle gave
two orders), and studyapp's random order is its own, seeded per profile.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import anki_queue_oracle as oracle
from studyapp.core.clock import FakeClock
from studyapp.core.presets import DEFAULT_PRESET, Preset, Presets
from studyapp.core.scheduler import Settings
from studyapp.core.session import ReviewSession
from studyapp.core.settings import Location
from studyapp.store import open_store

pytestmark = pytest.mark.skipif(oracle.faketime_library() is None,
                                reason="needs libfaketime to move the real Anki's clock (apt-get install faketime)")


@pytest.fixture(scope="module")
def anki_days(tmp_path_factory):
    folder = tmp_path_factory.mktemp("anki-oracle")
    out = folder / "anki.json"
    result = subprocess.run([sys.executable, str(Path(oracle.__file__)), str(out)], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text(encoding="utf-8"))["days"]


def studyapp_days(tmp_path) -> list[dict]:
    zone = ZoneInfo(oracle.TZ)
    clock = FakeClock(int(oracle.START.replace(tzinfo=zone).timestamp() * 1000))
    store = open_store(Location(tmp_path / "home", "default", ()), clock=clock)
    settings = Settings(timezone=oracle.TZ, fuzz=False, new_per_day=9999, reviews_per_day=9999, learning_steps=(60, 600, 86400))
    # Anki's default new-card order and the three bury options on, as the oracle sets Anki.
    presets = Presets({DEFAULT_PRESET: Preset(new_per_day=oracle.NEW_PER_DAY, new_gather_order="deck",
                                              new_sort_order="card-type")}, {})
    deck = oracle.oracle_deck()
    days = []
    try:
        for day in range(oracle.DAYS):
            clock.set(int(oracle.day_start_local(day).replace(tzinfo=zone).timestamp() * 1000))
            session = ReviewSession(store, [deck], clock=clock, settings=settings, presets=presets)
            counts = session.counts()
            shown = []
            for n in range(500):
                clock.set(int(oracle.answer_time(day, n).replace(tzinfo=zone).timestamp() * 1000))
                item = session.next()
                if item is None:
                    break
                rating = oracle.rating_for(item.key, item.state.reps)
                c = item.counts
                days_of = session.scheduler.days.day_of
                interday = item.queue == "learning" and days_of(item.state.due_ms) > days_of(item.state.last_review_ms)
                shown.append([item.key, rating, [c.new, c.learning, c.review], "interday" if interday else item.queue])
                session.answer(rating)
            days.append({"day": day, "counts": [counts.new, counts.learning, counts.review], "shown": shown})
    finally:
        store.close()
    return days


def in_order(shown: list) -> list[tuple]:
    """What must match position by position: queue, counts, and the card unless a review or an
    interday learning card (Anki draws their order within a day at random)."""
    return [(queue, tuple(counts), None if queue in ("review", "interday") else key) for key, _, counts, queue in shown]


def test_the_same_cards_and_counts_as_anki_every_day(anki_days, tmp_path):
    ours = studyapp_days(tmp_path)
    assert len(ours) == len(anki_days) == oracle.DAYS
    for mine, theirs in zip(ours, anki_days):
        day = mine["day"]
        assert mine["counts"] == theirs["counts"], f"day {day}: counts at the start"
        # The same cards, each as often (a learning card comes back the same day), graded alike.
        assert Counter((k, r) for k, r, *_ in mine["shown"]) == Counter((k, r) for k, r, *_ in theirs["shown"]), \
            f"day {day}: cards"
        assert in_order(mine["shown"]) == in_order(theirs["shown"]), f"day {day}: order, queues and counts"


def test_the_oracle_exercises_burying_and_the_limit(anki_days):
    """What the comparison is worth: the limit stops new cards on some days, siblings wait for
    later days, and reviews come back."""
    deck = oracle.oracle_deck()
    first_new_day: dict[str, int] = {}
    for day in anki_days:
        seen = {key for key, *_ in day["shown"]}
        for key in seen:
            first_new_day.setdefault(key, day["day"])
        assert len({key.rsplit("/", 1)[0] for key in seen if first_new_day[key] == day["day"]}) <= oracle.NEW_PER_DAY
    assert anki_days[0]["counts"][0] == oracle.NEW_PER_DAY  # the limit, not the 26 new items
    # Siblings: no card introduces two of its items on one day.
    for day in anki_days:
        introduced = [key for key, *_ in day["shown"] if first_new_day[key] == day["day"]]
        cards = Counter(key.rsplit("/", 1)[0] for key in dict.fromkeys(introduced))
        assert max(cards.values(), default=0) <= 1, day
    assert sum(1 for d in anki_days if d["counts"][2]) >= 5  # reviews on many days
    assert len(first_new_day) == sum(len(c.variants()) for c in deck.cards)  # every item was studied
    # The order is worth comparing: on some day a review comes between new cards (Anki mixes the
    # day's new cards into its reviews once, when it builds the queue), and on some day several
    # learning cards come back early, in the order their steps end.
    # Review siblings: on some day both sides of a card (or two deletions) are due, and one
    # waits; the comparison above holds studyapp to the same choice.
    held = []
    for day in anki_days:
        due = Counter(key.rsplit("/", 1)[0] for key in day["reviews_due"])
        reviewed = Counter(key.rsplit("/", 1)[0] for key, _, _, queue in day["shown"] if queue == "review")
        held += [(day["day"], card) for card, n in due.items() if n > 1 and reviewed[card] == 1]
    assert held, [day["reviews_due"] for day in anki_days]
    queues = ["".join(q[0] for *_, q in day["shown"]) for day in anki_days]
    assert any("nrn" in q for q in queues), queues
    assert max(q.count("l") for q in queues) >= 3, queues
