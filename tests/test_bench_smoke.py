"""The benchmark command runs and writes well-formed results (a smoke run; no timing is judged)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = {"figure", "studyapp", "baseline", "ratio", "unit", "target", "note"}


def test_a_quick_run_of_load_and_cli_writes_every_row_with_its_baseline(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env["STUDYAPP_HOME"] = str(tmp_path / "home")
    results, rows_file = tmp_path / "RESULTS.md", tmp_path / "rows.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only", "load,cli",
                           "--out", str(results), "--json", str(rows_file)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]

    document = json.loads(rows_file.read_text(encoding="utf-8"))
    assert document["failures"] == []
    rows = document["rows"]
    figures = [r["figure"] for r in rows]
    assert figures == ["load and check 1,000 cards", "1,000 cards from the deck cache (files unchanged)",
                       "studyapp --version", "studyapp list", "studyapp list, first run (no deck cache)"]
    for r in rows:
        assert set(r) == KEYS, r
        assert r["unit"] == "ms"
        assert isinstance(r["studyapp"], float) and r["studyapp"] > 0 and math.isfinite(r["studyapp"]), r
        assert isinstance(r["baseline"], float) and r["baseline"] > 0 and math.isfinite(r["baseline"]), r
        assert math.isclose(r["ratio"], r["studyapp"] / r["baseline"]), r
    assert [r["target"] for r in rows if r["target"]] == ["<= baseline + 150 ms", "<= baseline + 150 ms"]

    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark results\n")
    assert "- Machine: " in text and "- Python " in text and "Mode: quick (smoke)" in text
    assert "| figure | studyapp | baseline | ratio | target | note |" in text
    table = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert [line.split(" | ")[0].removeprefix("| ") for line in table] == figures
