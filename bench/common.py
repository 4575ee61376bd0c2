"""Timing helpers shared by the benchmark modules."""

from __future__ import annotations

import gc
import statistics
import time
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


def row(figure: str, studyapp: float, baseline: float | None, unit: str, target: str = "", note: str = "") -> dict:
    ratio = (studyapp / baseline) if baseline else None
    return {"figure": figure, "studyapp": studyapp, "baseline": baseline, "ratio": ratio, "unit": unit,
            "target": target, "note": note}
