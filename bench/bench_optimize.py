"""Fitting FSRS parameters on 100,000 reviews: studyapp optimize against Anki's compute_fsrs_params.

    python bench/bench_optimize.py [--quick]

One learner's history (tests/optimize_support.py's simulation: 5,000 cards over 320 days,
lapses, same-day repeats, cram answers) cut at 100,000 answers (quick: 10,000) is recorded
in a studyapp store; the same rows go into an Anki collection's revlog (id = answer time,
Anki's review kind, ease factor 0 for cram, as Anki writes them). Then, in turn, round
after round: studyapp's ``optimize_preset`` (reading the log from SQLite, Anki's conversion,
the crate's fit, the evaluation of old and new) and Anki's ``compute_fsrs_params`` on the
whole collection (its revlog read, conversion, fit and evaluation, all in Rust). Both
files live on /dev/shm when it exists, so neither side waits for a disk. The parameters
of the two are compared as well.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from common import interleaved_medians, markdown, row  # noqa: E402

SPEC = {"seed": 7, "cards": 5000, "days": 320, "new_per_day": 22, "tz": "UTC", "rollover": 4,
        "cram": 0.01, "same_day": 0.1, "undo": 0.0, "near_rollover": 0.05}
QUICK_SPEC = dict(SPEC, cards=700, days=120, new_per_day=12)


def _history(quick: bool, reviews: int) -> dict:
    from optimize_support import history

    h = history(QUICK_SPEC if quick else SPEC)
    events, count = [], 0
    for event in h["events"]:
        if event[3] == "review":
            if count == reviews:
                break
            count += 1
        events.append(event)
    if count < reviews:
        raise SystemExit(f"bench_optimize: the simulation gave {count} answers, fewer than {reviews}")
    h["events"], h["reviews"] = events, count
    h["cards"] = max(e[0] for e in events) + 1
    return h


def build_studyapp(folder: Path, h: dict):
    from optimize_support import deck_for, record, settings_for

    from studyapp.core.clock import FakeClock
    from studyapp.core.settings import Location
    from studyapp.store import open_store

    store = open_store(Location(folder, "bench", ()), clock=FakeClock(h["now_ms"]))
    store.save_settings(settings_for(h["spec"]))
    store.sync([deck_for(h)])
    # Building only: on a RAM disk with syncing off the 100,000 answers are written in seconds.
    store.conn.execute("PRAGMA synchronous = OFF")
    record(store, h)
    store.conn.execute("PRAGMA synchronous = FULL")
    return store


def build_anki(folder: Path, store, h: dict):
    from anki.collection import Collection

    from studyapp.core.optimize import KIND_CRAM, kind_of

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "collection.anki2"))
    col.set_config("fsrs", True)
    col.set_config("rollover", h["spec"]["rollover"])
    rows = []
    for item_id, kind, rating, time_ms, before, after, interval, last_interval, _, duration, _ in store.log_for_export():
        revlog_kind = kind_of(kind, before)
        cram = revlog_kind == KIND_CRAM
        rows.append((time_ms, item_id, -1, rating, interval, last_interval, 0 if cram else 2500, duration,
                     3 if cram else revlog_kind))
    col.db.executemany("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return col


def run(quick: bool = False) -> list[dict]:
    from studyapp.core import optimize
    from studyapp.core.scheduler import DEFAULT_PARAMETERS

    reviews = 10_000 if quick else 100_000
    repeat = 2 if quick else 5
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="bench-optimize-", dir=base))
    try:
        started = time.perf_counter()
        h = _history(quick, reviews)
        store = build_studyapp(folder / "studyapp", h)
        col = build_anki(folder / "anki", store, h)
        built = time.perf_counter() - started
        # Both sides count days to the same rollover: Anki reads the wall clock and the process's
        # zone (the history is in UTC for that reason), so studyapp does too.
        results: dict = {}

        def studyapp_fit():
            results["studyapp"] = optimize.optimize_preset(store, now_ms=int(time.time() * 1000), save=False)[0]

        def anki_fit():
            results["anki"] = col._backend.compute_fsrs_params(
                search="", current_params=list(DEFAULT_PARAMETERS), ignore_revlogs_before_ms=0,
                num_of_relearning_steps=1, health_check=False)

        cpu: dict[str, float] = {}
        times = interleaved_medians({"studyapp": studyapp_fit, "anki": anki_fit}, repeat, cpu=cpu)
        fit, anki = results["studyapp"], results["anki"]
        worst = max(abs(a - b) for a, b in zip(fit.parameters, anki.params))
        store.close()
        col.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    size = f"{reviews:,} reviews"
    return [row(f"optimize on {size} (fit + evaluation)", times["studyapp"], times["anki"], "s",
                note=(f"studyapp: optimize_preset (log read, Anki's conversion, fsrs-rs fit, old and new evaluated); "
                      f"Anki: compute_fsrs_params on the same log; CPU {cpu['studyapp']:.2f} s against {cpu['anki']:.2f} s "
                      f"({cpu['studyapp'] / cpu['anki']:.2f}x); {fit.items:,} training items on both sides "
                      f"(Anki {anki.fsrs_items:,}); largest parameter difference {worst:.1e}; "
                      f"data built in {built:.0f} s"))]


if __name__ == "__main__":
    print(markdown(run(quick="--quick" in sys.argv), "Anki"))
