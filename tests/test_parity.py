"""Parity with Anki: the fixture's histories, replayed through studyapp, give Anki's buttons.

tests/fixtures/anki_parity.json comes from tools/anki_parity.py, which ran the same
histories through the real Anki scheduler (FSRS on, fuzz off). Every button interval must be
equal: the engine runs the crate Anki runs (fsrs-rs) with Anki's f32 rounding, so there is no
float32 case left on this fixture to list (25,848 of 25,848 equal).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from engine_support import use_scheduling_copy

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


@pytest.fixture(params=["compiled", "python"])
def review_days_copy(request, monkeypatch):
    """Each parity test runs on both copies of the scheduling code: compiled (core/_speedups.c) and Python."""
    use_scheduling_copy(monkeypatch, request.param)
    return request.param


def test_intervals_match_anki(review_days_copy):
    document = json.loads(FIXTURE.read_text())
    compared, equal, sizes, examples = replay(document)
    share = equal / compared
    print(f"parity: {equal}/{compared} button intervals equal ({share:.4%}); differences: {dict(sizes)}")
    assert equal == compared, (sizes, examples)


if __name__ == "__main__":  # python tests/test_parity.py: print the figure
    c, e, s, ex = replay(json.loads(FIXTURE.read_text()))
    print(f"{e}/{c} equal ({e / c:.4%}); differences by size: {dict(s)}")
    for example in ex:
        print(example)


# ---------------------------------------------------------------- the review's families

FAMILIES = Path(os.environ.get("STUDYAPP_FAMILIES", Path(__file__).parent / "fixtures" / "anki_families.json"))
STATE_CODES = {"learning": "l", "relearning": "r", "review": "v"}


def family_scheduler(history: dict, workload: dict | None = None):
    from studyapp.core.load_balancer import LoadBalancer

    settings = Settings(desired_retention=history["retention"], timezone=history["tz"],
                        rollover_hour=history["rollover"], learning_steps=tuple(history["learn"]),
                        relearning_steps=tuple(history["relearn"]), maximum_interval=history["maximum"],
                        fuzz=history["fuzz"], load_balancer=history["load_balancer"])
    balancer = None if workload is None else LoadBalancer({int(k): v for k, v in workload.items()})
    return ReviewScheduler(settings, load_balancer=balancer)


def _workload(history: dict, step: list) -> dict:
    """What Anki's load balancer saw before this answer: the other reviews, by day from today."""
    today, own = step[6]
    counts = {int(day) - today: n for day, n in history["workload"].items() if 0 <= int(day) - today < 99}
    for day, n in own.items():
        counts[int(day)] = counts.get(int(day), 0) + n
    return counts


def replay_families(document: dict, *, balance: bool = True) -> dict[str, Counter]:
    """Per family: buttons compared/equal, applied dues, memory states, rollover instants, and
    histories equal end to end; each history replayed on studyapp's own chain of states."""
    results: dict[str, Counter] = {}
    for history in document["histories"]:
        tally = results.setdefault(history["family"], Counter())
        scheduler = family_scheduler(history)
        state, whole = NEW_STATE, True
        for step in history["steps"]:
            when, rating, buttons, due, memory, next_day = step[:6]
            if history["load_balancer"] and balance:
                scheduler = family_scheduler(history, _workload(history, step))
            now = when * 1000
            previews = scheduler.previews(state, history["key"], now)
            ours = [f"{STATE_CODES[p.after.state]}{_interval(p)}" for p in previews.values()]
            for mine, theirs in zip(ours, buttons.split()):
                tally["buttons"] += 1
                tally["buttons equal"] += mine == theirs
            applied = previews[rating].after
            days = scheduler.days
            if due[0] == "s":
                ours_due = f"s{(applied.due_ms - now) // 1000}" if applied.in_learning else "d?"
            else:
                ours_due = f"d{days.day_of(applied.due_ms) - days.day_of(now)}"
            tally["dues"] += 1
            tally["dues equal"] += ours_due == due
            tally["memory"] += 1
            tally["memory equal"] += [round(applied.stability, 4), round(applied.difficulty, 3)] == memory
            tally["rollovers"] += 1
            tally["rollovers equal"] += days.next_day_at_ms(now) // 1000 - when == next_day
            whole = whole and ours == buttons.split() and ours_due == due
            state = applied
        tally["histories"] += 1
        tally["histories equal"] += whole
    return results


def _family_document() -> dict:
    return json.loads(FAMILIES.read_text())


def test_families_cover_the_review():
    document = _family_document()
    assert document["anki_version"] == "26.9.3"
    histories = document["histories"]
    families = Counter(h["family"] for h in histories)
    assert set(families) >= {"configurations, fuzz off", "configurations, fuzz on", "within an hour of the rollover",
                             "America/Los_Angeles daylight saving", "lapses without relearning steps",
                             "load balancer", "Asia/Shanghai"}
    grid = {(tuple(h["learn"]), tuple(h["relearn"]), h["retention"], h["maximum"])
            for h in histories if h["family"] == "configurations, fuzz on"}
    assert len(grid) == 7 * 5 * 3 * 2
    assert {h["tz"] for h in histories} == {"UTC", "Asia/Shanghai", "America/Los_Angeles"}
    # Answers within an hour of the rollover, on both sides of it.
    to_rollover = [s[5] for h in histories if h["family"] == "within an hour of the rollover" for s in h["steps"]]
    assert sum(1 for left in to_rollover if left <= 3600) > 50  # up to an hour before it
    assert sum(1 for left in to_rollover if 86400 - 3600 <= left) > 50  # up to an hour after it
    assert any(left == 86400 for left in to_rollover) and any(left == 1 for left in to_rollover)
    # The load-balancer family has other reviews due, and Anki's choice differs from the plain fuzz's.
    assert all(len(h["workload"]) > 50 for h in histories if h["load_balancer"])
    # The daylight-saving family straddles both changes.
    dst = [s[0] for h in histories if h["family"] == "America/Los_Angeles daylight saving" for s in h["steps"]]
    assert min(dst) < 1772964000 < max(dst) and min(dst) < 1793523600 < max(dst)


def test_every_family_matches_anki(review_days_copy):
    results = replay_families(_family_document())
    report = []
    for family, tally in sorted(results.items()):
        share = tally["buttons equal"] / tally["buttons"]
        report.append(f"{family}: buttons {tally['buttons equal']}/{tally['buttons']} ({share:.3%}), "
                      f"dues {tally['dues equal']}/{tally['dues']}, memory {tally['memory equal']}/{tally['memory']}, "
                      f"rollover {tally['rollovers equal']}/{tally['rollovers']}, "
                      f"histories {tally['histories equal']}/{tally['histories']}")
    print("\n".join(report))
    # Exact in every family, fuzz and load balancer included: no float32 case is left to excuse.
    for family, tally in results.items():
        for what in ("buttons", "dues", "memory", "rollovers", "histories"):
            assert tally[f"{what} equal"] == tally[what], (family, what, report)


def test_the_load_balancer_family_needs_the_load_balancer():
    document = _family_document()
    only = {"histories": [h for h in document["histories"] if h["load_balancer"]]}
    without = replay_families(only, balance=False)["load balancer"]
    # Without the workload, the plain fuzz picks other days for a good share of the buttons.
    assert without["buttons equal"] / without["buttons"] < 0.95
