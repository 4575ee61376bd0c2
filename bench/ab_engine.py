"""A/B timing of picks and answers (bench_engine's loop) between two copies of the code.

    python bench/ab_engine.py build DIR [--items N]        # the store, once (~18 s at 100,000)
    python bench/ab_engine.py ab DIR OLD NEW [--rounds R] [--ops N]
    python bench/ab_engine.py profile DIR CODE [--ops N]

``OLD`` and ``NEW`` are folders holding a ``studyapp`` package (a ``git archive`` of a commit,
or the work tree). Each round runs one child process per side, alternating, on a fresh copy
of the built store: it opens a session, warms up with a few picks and answers, then times
``--ops`` picks and answers (thread CPU time and wall time), then the two openings as
bench_engine times them ("first": after the decks changed, "unchanged"; wall time, median of
bench_engine.OPENINGS). Medians per side are printed with the load average.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build(folder: Path, items: int) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    import bench_engine

    now = int(time.time() * 1000)
    folder.mkdir(parents=True, exist_ok=True)
    store, clock, decks, settings = bench_engine.build_studyapp(folder / "db", items, 10 * items, now)
    from studyapp.core.session import ReviewSession

    ReviewSession(store, decks, clock=clock, settings=settings)  # the first sync, once
    store.close()
    (folder / "meta.json").write_text(json.dumps({"now": now, "items": items}))


def child(code: str, folder: str, ops: int, mode: str) -> None:
    sys.path.insert(0, code)
    sys.path.insert(1, str(HERE))
    import gc

    import studyapp
    assert studyapp.__file__.startswith(code), studyapp.__file__
    import bench_engine
    from studyapp.core.clock import FakeClock
    from studyapp.core.scheduler import AGAIN, GOOD
    from studyapp.core.session import ReviewSession
    from studyapp.core.settings import Location
    from studyapp.store import open_store

    meta = json.loads((Path(folder) / "meta.json").read_text())
    with tempfile.TemporaryDirectory(prefix="ab-engine-") as tmp:
        shutil.copytree(Path(folder) / "db", Path(tmp) / "db")
        clock = FakeClock(meta["now"])
        store = open_store(Location(Path(tmp) / "db", "bench", ()), clock=clock)
        decks = bench_engine._decks(meta["items"])
        settings = store.load_settings()
        session = ReviewSession(store, decks, clock=clock, settings=settings)
        tt, pc = time.thread_time, time.perf_counter
        picks, answers, wpicks, wanswers = [], [], [], []
        first: list[float] = []  # openings, wall time
        unchanged: list[float] = []

        def loop(count: int, record: bool) -> None:
            for n in range(count):
                a, wa = tt(), pc()
                shown = session.next()
                b, wb = tt(), pc()
                if shown is None:
                    clock.advance(ms=86_400_000)
                    continue
                session.answer(AGAIN if n % 7 == 0 else GOOD, duration_ms=5000)
                c, wc = tt(), pc()
                if record:
                    picks.append(b - a)
                    answers.append(c - b)
                    wpicks.append(wb - wa)
                    wanswers.append(wc - wb)
                clock.advance(ms=8000)

        loop(30, False)
        gc.collect()
        if os.environ.get("AB_NO_GC"):  # an experiment: what the cyclic collector's passes cost
            gc.disable()
        if mode == "profile":
            import cProfile
            import pstats

            profiler = cProfile.Profile(time.thread_time)
            profiler.enable()
            loop(ops, False)
            profiler.disable()
            order, lines = os.environ.get("SORT", "tottime"), int(os.environ.get("LINES", "45"))
            pstats.Stats(profiler).sort_stats(order).print_stats(lines)
        else:
            loop(ops, True)
            # The openings, as bench_engine times them: after the decks changed (other deck objects,
            # no fingerprint kept), then on the same decks unchanged.
            for _ in range(bench_engine.OPENINGS):
                store.conn.execute("DELETE FROM meta WHERE key LIKE 'sync:%'")
                decks = bench_engine._decks(meta["items"])
                gc.collect()
                start = pc()
                ReviewSession(store, decks, clock=clock, settings=settings).next()
                first.append(pc() - start)
                start = pc()
                ReviewSession(store, decks, clock=clock, settings=settings).next()
                unchanged.append(pc() - start)
        store.close()
    if mode != "profile":
        print(json.dumps({"pick": statistics.median(picks), "answer": statistics.median(answers),
                          "wpick": statistics.median(wpicks), "wanswer": statistics.median(wanswers),
                          "first": statistics.median(first), "unchanged": statistics.median(unchanged)}))


def ab(folder: Path, old: str, new: str, rounds: int, ops: int) -> None:
    results: dict[str, list[dict]] = {"old": [], "new": []}
    load_start = os.getloadavg()
    for r in range(rounds):
        order = (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old))
        for name, code in order:
            out = subprocess.run([sys.executable, __file__, "child", code, str(folder), str(ops), "time"],
                                 check=True, capture_output=True, text=True).stdout
            results[name].append(json.loads(out.strip().splitlines()[-1]))
            print(name, {k: f"{v * 1e6:.1f}" for k, v in results[name][-1].items()}, flush=True)
    load_end = os.getloadavg()
    for figure in ("pick", "answer", "wpick", "wanswer", "first", "unchanged"):
        o = statistics.median(x[figure] for x in results["old"]) * 1e6
        n = statistics.median(x[figure] for x in results["new"]) * 1e6
        print(f"{figure:9s} old {o:8.1f} us  new {n:8.1f} us  new/old {n / o:.2f}")
    print(f"load average (1, 5, 15 min) at start {load_start}, at end {load_end}")


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


if __name__ == "__main__":
    verb = sys.argv[1]
    if verb == "build":
        build(Path(sys.argv[2]), _option("--items", 100_000))
    elif verb == "child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif verb == "ab":
        ab(Path(sys.argv[2]), sys.argv[3], sys.argv[4], _option("--rounds", 6), _option("--ops", 300))
    elif verb == "profile":
        child(sys.argv[3], sys.argv[2], _option("--ops", 300), "profile")
