"""Run every benchmark and write bench/RESULTS.md: each figure beside its baseline, as a ratio.

    python bench/run.py            # the full run (under 15 minutes on 2 cores)
    python bench/run.py --quick    # a smoke run of a few seconds per module
    python bench/run.py --only load,cli
    python bench/run.py --quick --only load --out /tmp/r.md --json /tmp/r.json

Each bench_*.py module exposes run(quick) -> rows; a module that fails is reported in the
results with its error rather than stopping the others.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

MODULES = ["load", "cli", "engine", "export", "tui"]


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        memory = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    versions = []
    for name in ("textual", "fsrs", "genanki", "PyYAML", "anki"):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return [
        f"- Machine: {platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, {memory}",
        f"- Python {platform.python_version()}; {', '.join(versions)}",
        f"- Commit {_git_commit()}, run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def _fmt(value, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("ms", "us") and value < 10:
        return f"{value:.2f} {unit}"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"


def table(rows: list[dict]) -> list[str]:
    lines = ["| figure | studyapp | baseline | ratio | target | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") is not None else "—"
        lines.append(f"| {r['figure']} | {_fmt(r['studyapp'], r['unit'])} | {_fmt(r.get('baseline'), r['unit'])} | "
                     f"{ratio} | {r.get('target', '')} | {r.get('note', '')} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: small sizes, few repeats")
    parser.add_argument("--only", default="", help="comma-separated modules: " + ",".join(MODULES))
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"))
    parser.add_argument("--json", default="", help="also write the rows and failures as JSON to this file")
    args = parser.parse_args(argv)
    chosen = [m for m in MODULES if not args.only or m in args.only.split(",")]
    rows: list[dict] = []
    failures: list[str] = []
    started = time.perf_counter()
    for name in chosen:
        print(f"== bench_{name}", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(f"bench_{name}")
            module_rows = module.run(args.quick)
        except Exception:  # one failing module must not lose the others' figures
            failures.append(f"bench_{name}: {traceback.format_exc(limit=3).strip().splitlines()[-1]}")
            print(traceback.format_exc(), file=sys.stderr)
            continue
        for r in module_rows:
            print(f"   {r['figure']}: {_fmt(r['studyapp'], r['unit'])} vs {_fmt(r.get('baseline'), r['unit'])}", file=sys.stderr)
        rows.extend(module_rows)
    elapsed = time.perf_counter() - started
    out = ["# Benchmark results", "", *machine(),
           f"- Mode: {'quick (smoke)' if args.quick else 'full'}, {elapsed:.0f} s in all; medians over repeated runs, "
           "each figure measured beside its baseline in the same run", "", *table(rows), ""]
    if failures:
        out += ["## Modules that failed", "", *[f"- {f}" for f in failures], ""]
    notes = HERE / "NOTES.md"
    if notes.exists():
        out += [notes.read_text(encoding="utf-8").strip(), ""]
    Path(args.out).write_text("\n".join(out), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "failures": failures, "seconds": elapsed}, indent=1),
                                   encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
