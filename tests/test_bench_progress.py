"""bench_progress runs and reports both figures beside Anki's, in wall and CPU time (a smoke run; no timing
is judged)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_a_quick_run_measures_export_and_import_beside_anki(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_progress

    rows = bench_progress.run(quick=True)
    assert [r["figure"] for r in rows] == ["export with progress, 1,000 cards, 10,000 reviews",
                                           "import from Anki, 1,000 cards, 10,000 reviews",
                                           "export with progress, CPU time, 1,000 cards, 10,000 reviews",
                                           "import from Anki, CPU time, 1,000 cards, 10,000 reviews"]
    for r in rows:
        assert r["unit"] == "ms" and r["studyapp"] > 0 and r["baseline"] > 0
        assert math.isclose(r["ratio"], r["studyapp"] / r["baseline"])
    sys.modules.pop("bench_progress", None)
