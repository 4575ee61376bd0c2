"""Optimize parity with the real Anki: the same histories through both, the same fit.

Each history of tests/optimize_support.py (200 to 2,000 reviews; rollover hours and zones,
lapses, same-day repeats, cram answers in a filtered deck that does not reschedule, answers
undone) is answered in a real studyapp store and in a real Anki collection (the ``anki``
package, under libfaketime, tests/anki_driver.py). Then Anki's ``compute_fsrs_params`` on its
revlog and studyapp's fit on its log must agree on every parameter within 1e-3 (the same
crate on the same items gives equal results, so a difference means the items differ), on the
number of training items, and on the evaluation (Anki's legacy Evaluate: log loss and
RMSE(bins) of the current and the resulting parameters).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

import fsrs_rs_python
import pytest

import anki_driver
from engine_support import location
from optimize_support import SPECS, deck_for, duration_of, history, record, settings_for
from studyapp.core import optimize as o
from studyapp.core import workload as w
from studyapp.core.clock import FakeClock
from studyapp.core.scheduler import DEFAULT_PARAMETERS, NEW_STATE, ReviewScheduler
from studyapp.store import open_store

pytestmark = pytest.mark.skipif(anki_driver.faketime_library() is None,
                                reason="libfaketime is not installed (apt-get install faketime)")

TOLERANCE = 1e-3


@pytest.fixture
def tmp_path(tmp_path_factory):
    """On a RAM file system where there is one: every answer in Anki (and in studyapp) is a
    transaction with an fsync, which on a disk makes a history of 2,000 answers take ten
    seconds of waiting instead of one."""
    import shutil
    import tempfile
    from pathlib import Path

    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="studyapp-optimize-", dir="/dev/shm"))
        yield folder
        shutil.rmtree(folder, ignore_errors=True)
    else:
        yield tmp_path_factory.mktemp("optimize")


def _anki(tmp_path, h) -> dict:
    spec = h["spec"]
    script = {"collection": str(tmp_path / "anki"), "tz": spec["tz"], "rollover": spec["rollover"],
              "steps": [{"op": "replay", "at": h["events"][0][1] - 60_000, "cards": h["cards"], "events": h["events"]},
                        {"op": "optimize", "at": h["now_ms"], "current": list(DEFAULT_PARAMETERS)}]}
    return anki_driver.run(script, tmp_path)["results"][1]


def _studyapp(tmp_path, h):
    store = open_store(location(tmp_path), clock=FakeClock(h["now_ms"]))
    store.save_settings(settings_for(h["spec"]))
    store.sync([deck_for(h)])
    record(store, h)
    return store


@pytest.mark.parametrize("spec", SPECS, ids=[f"seed{s['seed']}" for s in SPECS])
def test_optimize_gives_ankis_parameters(tmp_path, spec):
    h = history(spec)
    assert 200 <= h["reviews"] <= 2000
    store = _studyapp(tmp_path, h)
    fit, _ = o.optimize_preset(store, now_ms=h["now_ms"], save=False)
    store.close()
    anki = _anki(tmp_path, h)
    assert fit.items == anki["fsrs_items"]
    worst = max(abs(a - b) for a, b in zip(fit.parameters, anki["params"]))
    print(f"\nseed {spec['seed']}: {h['reviews']} reviews, {fit.items} items, adopted {fit.adopted}, "
          f"largest parameter difference {worst:.2e}")
    assert list(fit.parameters) == pytest.approx(anki["params"], abs=TOLERANCE)
    current, result = anki["evaluations"]["current"], anki["evaluations"]["result"]
    assert fit.current_eval.log_loss == pytest.approx(current["log_loss"], abs=1e-5)
    assert fit.current_eval.rmse_bins == pytest.approx(current["rmse_bins"], abs=1e-5)
    used = o.evaluate(fit.parameters, o.training_set(
        o.rows_from_log(_reopen(tmp_path).optimizer_log()), o.next_day_at_s(settings_for(spec), h["now_ms"])).items)
    assert used.log_loss == pytest.approx(result["log_loss"], abs=1e-5)
    assert used.rmse_bins == pytest.approx(result["rmse_bins"], abs=1e-5)


def _reopen(tmp_path):
    return open_store(location(tmp_path), readonly=True)


def test_the_cli_under_ankis_clock_gives_ankis_parameters(tmp_path):
    """``studyapp optimize --json`` itself, run at the moment Anki optimized (libfaketime)."""
    h = history(SPECS[3])
    _studyapp(tmp_path, h).close()
    anki = _anki(tmp_path, h)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(STUDYAPP_HOME=str(location(tmp_path).home), LD_PRELOAD=anki_driver.faketime_library(),
               FAKETIME_NO_CACHE="1", FAKETIME=anki_driver._faketime(h["now_ms"], h["spec"]["tz"]),
               TZ=h["spec"]["tz"], PYTHONPATH=str(anki_driver.Path(__file__).resolve().parent.parent))
    done = subprocess.run([sys.executable, "-m", "studyapp", "optimize", "--json"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["items"] == anki["fsrs_items"]
    assert document["parameters"] == pytest.approx(anki["params"], abs=TOLERANCE)


# Anki's review order "Ease descending": its simulator priority is the crate's default (difficulty),
# the only one the Python crate offers (docs/engine.md, Workload and retention).
EASE_DESCENDING = 6


@pytest.mark.parametrize("spec", [SPECS[i] for i in (1, 3, 8, 9, 11, 17)], ids=lambda s: f"seed{s['seed']}")
def test_the_simulation_and_minimum_recommended_retention_are_ankis(tmp_path, spec):
    """Deck Options' simulator and "Compute minimum recommended retention" on Anki's replayed
    collection, and studyapp's on its store of the same history (answer times included), with the
    default parameters and with the ones Anki fitted:

    - the tables Anki extracts from its revlog (grade shares, step transitions, answer costs)
      equal studyapp's to the last f32 bit;
    - Anki's year simulated from the cards as they stand (``simulate_fsrs_review``, seed 42:
      reviews, new cards, seconds and cards remembered, day by day) is one of the sixteen the
      crate runs on studyapp's cards at the first retention its search tries (seeds 42 to 57),
      which checks every card's memory state, due day, last review day and lapses;
    - the minimum recommended retention is Anki's.

    Anki is started again for each session (a gap of an hour), as studyapp counts days: seed
    1003 answers at 05:06 on the morning Los Angeles moved its clocks, where a collection left
    open since the day before counts another day (the test below)."""
    h = history(spec)
    store = _studyapp(tmp_path, h)
    events = [[*event, duration_of(event[0], event[1], event[2])] for event in h["events"]]
    common = {"op": "optimal_retention", "at": h["now_ms"], "new_limit": 9999, "review_limit": 9999,
              "review_order": EASE_DESCENDING, "learning_steps": 2, "relearning_steps": 1}
    script = {"collection": str(tmp_path / "anki"), "tz": spec["tz"], "rollover": spec["rollover"],
              "steps": [{"op": "replay", "at": h["events"][0][1] - 60_000, "cards": h["cards"], "events": events,
                         "reopen_after": 3_600_000},
                        {"op": "optimize", "at": h["now_ms"], "current": list(DEFAULT_PARAMETERS)},
                        dict(common, params=list(DEFAULT_PARAMETERS)), dict(common, params="fitted")]}
    results = anki_driver.run(script, tmp_path)["results"]
    found = []
    for anki in results[2:]:
        if anki["params"] != list(DEFAULT_PARAMETERS):
            store.save_fitted_parameters("Default", anki["params"], reviews=1, items=1, source="test", fit={})
        scheduled, config, cards = w.simulation_inputs(store, store.load_presets(), store.load_settings(),
                                                       {"d": h["cards"]}, h["now_ms"])
        assert list(scheduled.parameters) == pytest.approx(anki["params"], abs=1e-6)
        for name in anki["tables"]:
            values = getattr(config, name)
            assert (sum(values, []) if isinstance(values[0], list) else values) == anki["tables"][name], name
        runs = []

        def keep(result, _parameters):
            runs.append({name: list(getattr(result, name)) for name in anki["simulation"]})
            return sum(result.cost_per_day) / result.memorized_cnt_per_day[-1]

        simulated = fsrs_rs_python.default_simulator_config()
        for name in w._CONFIG_FIELDS:
            setattr(simulated, name, getattr(config, name))
        simulated.deck_size = len(cards)
        fsrs_rs_python.optimal_retention(simulated, list(scheduled.parameters), cards, keep)
        assert anki["simulation"] in runs[:16]
        ours = w.ankis_minimum_recommended_retention(scheduled.parameters, config, cards)
        found.append((ours, anki["optimal_retention"]))
    store.close()
    print(f"\nseed {spec['seed']}: {len(cards)} cards, fit adopted {results[3]['params'] != list(DEFAULT_PARAMETERS)}; "
          "minimum recommended retention, studyapp and Anki: "
          + "; ".join(f"{ours:.6f} {theirs:.6f}" for ours, theirs in found))
    for ours, theirs in found:
        assert ours == theirs


def test_an_answer_after_the_spring_rollover_counts_as_a_freshly_opened_anki_counts(tmp_path):
    """Los Angeles, rollover 05:00: Easy on a new card on 6 March, Good on 7 March, Good at 05:06
    PDT on 8 March, the morning the clocks went forward. An Anki opened that morning places the
    answer on 8 March (next_day_at 05:00 PDT on 9 March): one elapsed day, 18 days. An Anki left
    open since 7 March still holds that day's timing (scheduler/mod.rs ``scheduler_info``) until
    its next_day_at, 7 March 05:00 PST + 24 h = 06:00 PDT, so at 05:06 it is still 7 March: no
    elapsed day, 14 days. studyapp counts as the freshly opened Anki (it keeps no day between
    answers, and a replay of the log must give the same states)."""
    zone = ZoneInfo("America/Los_Angeles")
    at = [int(datetime(2026, 3, day, hour, minute, tzinfo=zone).timestamp() * 1000)
          for day, hour, minute in ((6, 10, 0), (7, 10, 0), (8, 5, 6))]
    events = [[0, at[0], 4, "review"], [0, at[1], 3, "review"], [0, at[2], 3, "review"]]
    anki = {}
    for name, reopen_after in (("open", None), ("reopened", 0)):
        folder = tmp_path / name
        folder.mkdir()
        script = {"collection": str(folder / "anki"), "tz": "America/Los_Angeles", "rollover": 5,
                  "steps": [{"op": "replay", "at": at[0] - 60_000, "cards": 1, "events": events,
                             "reopen_after": reopen_after},
                            {"op": "dump", "at": at[2] + 60_000}]}
        anki[name] = anki_driver.run(script, folder)["results"][1]["cards"][0]
    assert (anki["open"]["ivl"], anki["reopened"]["ivl"]) == (14, 18)
    settings = settings_for({"tz": "America/Los_Angeles", "rollover": 5})
    scheduler = ReviewScheduler(settings)
    state = NEW_STATE
    for _, time_ms, rating, _ in events:
        state = scheduler.apply(state, "d/c0000/main", rating, time_ms).after
    assert scheduler.elapsed_days(at[1], at[2]) == 1
    assert state.interval == anki["reopened"]["ivl"]
    assert [state.stability, state.difficulty] == pytest.approx(anki["reopened"]["memory"], abs=1e-4)
    assert state.stability != pytest.approx(anki["open"]["memory"][0], abs=1)
