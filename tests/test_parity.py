"""Parity with Anki: the fixture's histories, replayed through studyapp, give Anki's buttons.

tests/fixtures/anki_parity.json comes from tools/anki_parity.py, which ran the same
histories through the real Anki scheduler (FSRS on, fuzz off). At least 99% of the button
intervals must be equal and none may differ by more than one day.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from studyapp.core.scheduler import NEW_STATE, RATINGS, ReviewScheduler, Settings

FIXTURE = Path(__file__).parent / "fixtures" / "anki_parity.json"


def _interval(preview) -> int:
    return preview.interval_days if preview.interval_days is not None else -preview.interval_secs


def replay(document: dict) -> tuple[int, int, Counter, list]:
    """(intervals compared, intervals equal, differences by size, examples of differences)."""
    compared = equal = 0
    sizes: Counter = Counter()
    examples = []
    schedulers = {}
    for number, history in enumerate(document["histories"]):
        retention = history["retention"]
        scheduler = schedulers.get(retention)
        if scheduler is None:
            scheduler = schedulers[retention] = ReviewScheduler(Settings(
                desired_retention=retention, timezone=document["timezone"], rollover_hour=document["rollover_hour"],
                learning_steps=tuple(document["learning_steps"]), relearning_steps=tuple(document["relearning_steps"]),
                maximum_interval=document["maximum_interval"], parameters=tuple(document["parameters"]), fuzz=False))
        state = NEW_STATE
        for index, (time_ms, rating, anki) in enumerate(history["reviews"]):
            previews = scheduler.previews(state, f"parity/{number}/main", time_ms)
            ours = [_interval(previews[r]) for r in RATINGS]
            for mine, theirs in zip(ours, anki):
                compared += 1
                if mine == theirs:
                    equal += 1
                    continue
                if mine > 0 and theirs > 0:
                    sizes[abs(mine - theirs)] += 1
                else:
                    sizes["kind"] += 1
                if len(examples) < 20:
                    examples.append((number, index, ours, anki))
            state = previews[rating].after
    return compared, equal, sizes, examples


def test_fixture_is_big_enough():
    document = json.loads(FIXTURE.read_text())
    histories = document["histories"]
    assert len(histories) >= 200
    assert document["anki_version"].startswith("26.")
    longest = max(h["reviews"][-1][0] - h["reviews"][0][0] for h in histories)
    assert longest > 365 * 86_400_000
    ratings = Counter(r for h in histories for _, r, _ in h["reviews"])
    assert all(ratings[r] > 100 for r in RATINGS)


def test_intervals_match_anki():
    document = json.loads(FIXTURE.read_text())
    compared, equal, sizes, examples = replay(document)
    share = equal / compared
    print(f"parity: {equal}/{compared} button intervals equal ({share:.4%}); differences: {dict(sizes)}")
    assert share >= 0.99, examples
    assert set(sizes) <= {1}, (sizes, examples)


if __name__ == "__main__":  # python tests/test_parity.py: print the figure
    c, e, s, ex = replay(json.loads(FIXTURE.read_text()))
    print(f"{e}/{c} equal ({e / c:.4%}); differences by size: {dict(s)}")
    for example in ex:
        print(example)
