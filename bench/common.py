"""Timing helpers shared by the benchmark modules."""

from __future__ import annotations

import gc
import os
import statistics
import time
from pathlib import Path
from typing import Callable


def median_seconds(function: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        gc.collect()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved_medians(functions: dict[str, Callable[[], object]], repeat: int,
                        setups: dict[str, Callable[[], object]] | None = None,
                        cpu: dict[str, float] | None = None) -> dict[str, float]:
    """Median seconds of each function, run in turn round after round (one warm-up round first).

    On a shared machine a slow spell then slows a figure and its baseline alike, and the
    ratio between them stays honest where back-to-back blocks of runs would skew it.
    ``cpu``, when given, receives each function's median CPU seconds (every thread of the
    process), which a busy machine disturbs less than the wall clock.
    """
    setups = setups or {}
    times: dict[str, list[float]] = {name: [] for name in functions}
    cpu_times: dict[str, list[float]] = {name: [] for name in functions}
    for round_ in range(repeat + 1):
        for name, function in functions.items():
            if name in setups:
                setups[name]()
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            if round_:
                times[name].append(elapsed)
                cpu_times[name].append(elapsed_cpu)
    if cpu is not None:
        cpu.update({name: statistics.median(values) for name, values in cpu_times.items()})
    return {name: statistics.median(values) for name, values in times.items()}


def row(figure: str, studyapp: float, baseline: float | None, unit: str, target: str = "", note: str = "") -> dict:
    ratio = (studyapp / baseline) if baseline else None
    return {"figure": figure, "studyapp": studyapp, "baseline": baseline, "ratio": ratio, "unit": unit,
            "target": target, "note": note}


def command_env(home: Path, pycache: Path) -> dict[str, str]:
    """The environment for timing a ``studyapp`` process as an installed one runs.

    No STUDYAPP_* from the caller, a fresh home, and compiled bytecode kept in ``pycache``:
    with PYTHONDONTWRITEBYTECODE set (as on these machines) every start of a fresh clone
    would compile studyapp from source, which no installed copy does. Run each command
    once before timing it, so that the timed runs find the bytecode written.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["STUDYAPP_HOME"] = str(home)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env



def markdown(rows: list[dict], baseline: str) -> str:
    """A module's rows as a small table, for running one bench module on its own."""
    lines = [f"| figure | studyapp | {baseline} | ratio | note |", "|---|---|---|---|---|"]
    for r in rows:
        def fmt(value):
            return "—" if value is None else f"{value:,.1f} {r['unit']}"
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") is not None else "—"
        lines.append(f"| {r['figure']} | {fmt(r['studyapp'])} | {fmt(r['baseline'])} | {ratio} | {r.get('note', '')} |")
    return "\n".join(lines)
