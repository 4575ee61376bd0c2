"""The benchmark command runs and writes well-formed results (a smoke run; no timing is judged)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = {"figure", "studyapp", "baseline", "ratio", "unit", "target", "verdict", "note"}


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
    assert {r["verdict"] for r in rows if r["target"]} <= {"met", "**missed**"}
    assert all(r["verdict"] == "" for r in rows if not r["target"])

    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark results\n")
    assert "- Machine: " in text and "- Python " in text and "Mode: quick (smoke)" in text
    assert "| figure | studyapp | baseline | ratio | target | verdict | note |" in text
    assert "- Targets: " in text
    table = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert [line.split(" | ")[0].removeprefix("| ") for line in table] == figures


def test_targets_are_read_and_judged():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import run
    finally:
        sys.path.remove(str(ROOT / "bench"))

    def judged(figure, ours, theirs, unit="ms", target=""):
        rows = [{"figure": figure, "studyapp": ours, "baseline": theirs, "unit": unit, "target": target}]
        run.apply_targets(rows, [], quick=False)
        return rows[0]["target"], rows[0]["verdict"]

    assert judged("load and check 10,000 cards", 150.0, 100.0) == ("<= 1.5x", "met")
    assert judged("load and check 10,000 cards", 151.0, 100.0) == ("<= 1.5x", "**missed**")
    assert judged("load and check 1,000 cards", 500.0, 100.0) == ("", "")  # a quick run's size: no verdict
    assert judged("studyapp list", 180.0, 30.0, target="<= baseline + 150 ms") == ("<= baseline + 150 ms", "met")
    assert judged("studyapp list", 181.0, 30.0, target="<= baseline + 150 ms")[1] == "**missed**"
    assert judged("pick the next item (100,000 items, 1,000,000 log rows)", 10.0, 10.0, "us") == (
        "<= 1.0x", "met")
    assert judged("pick the next item (100,000 items, 1,000,000 log rows)", 10.1, 10.0, "us")[1] == "**missed**"
    assert judged("the same, first session after the decks changed", 201.0, 100.0) == ("<= 2x", "**missed**")
    assert judged("pick the next item (100,000 items, 1,000,000 log rows)", None, 10.0, "us")[1] == "not measured"
    assert judged("TUI: grade key to next card drawn (100,000 items, 1,000,000 log rows)", 16.5, 2.0)[1] == "**missed**"
    assert judged("TUI: peak memory, review session open (100,000 items, 1,000,000 log rows)", 250.0, 60.0,
                  "MB") == ("<= baseline + 200 MB", "met")
    # A target in another unit than the figure's is never taken as met.
    assert judged("x", 1.0, 1.0, "ms", target="<= baseline + 200 MB")[1] == "**missed**"
