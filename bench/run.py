"""Run every benchmark and write bench/RESULTS.md: each figure beside its baseline, as a ratio.

    python bench/run.py            # the full run (under 15 minutes on 2 cores)
    python bench/run.py --quick    # a smoke run of a few seconds per module
    python bench/run.py --only load,cli
    python bench/run.py --quick --only load --out /tmp/r.md --json /tmp/r.json

Each bench_*.py module exposes run(quick) -> rows; a module that fails is tried once more,
then reported in the results with its error rather than stopping the others. Each row is
judged against the issue's target for it (TARGETS below): met or missed.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

MODULES = ["load", "cli", "engine", "export", "progress", "tui", "coverage", "sync", "optimize", "scale"]


def machine(commit: str) -> list[str]:
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
        f"- Commit {commit}, run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]


def _git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        return "unknown"
    return commit or "unknown"


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def _fmt(value, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("ms", "us") and value < 10:
        return f"{value:.2f} {unit}"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"


# The targets: (module, pattern matched at the start of the figure, target). A row
# that names its own target keeps it. Patterns name the full sizes, so a quick run's
# smaller figures are shown without a verdict.
TARGETS = [
    ("load", r"load and check 10,000 cards$", "<= 1.5x"),
    ("coverage", r"check --coverage on 10,000 cards$", "<= 1.5x"),
    ("engine", r"pick the next item \(100,000 items", "<= 1.0x"),
    ("engine", r"record an answer \(100,000 items", "<= 1.0x"),
    ("engine", r"the same, first session after the decks changed$", "<= 2x"),
    ("optimize", r"optimize on 100,000 reviews", "<= 1.2x"),
    ("export", r"export 10,000 generated notes, ", "<= 1.3x"),
    ("progress", r"export with progress, 10,000 cards, 100,000 reviews", "<= 1.5x"),
    ("progress", r"import from Anki, 10,000 cards, 100,000 reviews", "<= 1.5x"),
    ("cli", r"studyapp --version$", "<= baseline + 150 ms"),
    ("cli", r"studyapp list$", "<= baseline + 150 ms"),
    ("tui", r"TUI: process start to first card drawn \(tmux", "<= 1.3x"),
    ("tui", r"TUI: grade key to next card drawn \(100,000 items", "<= 16 ms"),
    ("tui", r"TUI: peak memory.*100,000 items", "<= baseline + 200 MB"),
    ("sync", r"report --team, 200 learners with 5,000 reviews each", "<= 2000 ms"),
    ("sync", r"sync of 10,000 new reviews", "<= 3000 ms"),
    ("scale", r"report --format json, 100,000 cards, 1,000,000 reviews", "<= 2000 ms"),
    ("scale", r"report \(Markdown\), 100,000 cards, 1,000,000 reviews", "<= 2000 ms"),
    ("scale", r"TUI: home screen, deck table drawn \(100,000 cards, 1,000,000 reviews", "<= 2000 ms"),
    ("scale", r"TUI: home screen, today's counts drawn \(100,000 cards, 1,000,000 reviews", "<= 2000 ms"),
    ("scale", r"TUI: home screen, curriculum tracks drawn \(100,000 cards, 1,000,000 reviews", "<= 2000 ms"),
]


def apply_targets(rows: list[dict], modules: list[str], quick: bool) -> list[str]:
    """Fill in the issue's targets and each row's verdict; return the targets no figure matched."""
    unmatched = []
    for module, pattern, target in TARGETS:
        matched = [r for r in rows if re.match(pattern, r["figure"])]
        for r in matched:
            r["target"] = r.get("target") or target
        if not matched and module in modules and not quick:
            unmatched.append(f"{target} for `{pattern}` ({module})")
    for r in rows:
        r["verdict"] = verdict(r)
    return unmatched


def verdict(r: dict) -> str:
    """"met" or "missed" against the row's target; "" when it has none that can be read, or no figure."""
    target, ours, theirs = r.get("target") or "", r.get("studyapp"), r.get("baseline")
    if not target:
        return ""
    if ours is None:
        return "not measured"
    if m := re.fullmatch(r"<= ([\d.]+)x", target):
        ok = theirs is not None and ours <= float(m[1]) * theirs
    elif m := re.fullmatch(r"<= baseline \+ ([\d.]+) (\w+)", target):
        ok = theirs is not None and m[2] == r["unit"] and ours - theirs <= float(m[1])
    elif m := re.fullmatch(r"<= ([\d.]+) (\w+)", target):
        ok = m[2] == r["unit"] and ours <= float(m[1])
    elif target.startswith("faster than"):
        ok = theirs is not None and ours < theirs
    else:
        return ""
    return "met" if ok else "**missed**"


def table(rows: list[dict]) -> list[str]:
    lines = ["| figure | studyapp | baseline | ratio | target | verdict | note |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") is not None else "—"
        lines.append(f"| {r['figure']} | {_fmt(r['studyapp'], r['unit'])} | {_fmt(r.get('baseline'), r['unit'])} | "
                     f"{ratio} | {r.get('target', '')} | {r.get('verdict', '')} | {r.get('note', '')} |")
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
    commit = _git_commit()  # the code measured: read before others can commit during the run
    load_before = _load()
    retried: list[str] = []
    for name in chosen:
        module_rows = None
        for attempt in (1, 2):
            print(f"== bench_{name}" + (" (again)" if attempt == 2 else ""), file=sys.stderr, flush=True)
            try:
                module = importlib.import_module(f"bench_{name}")
                module_rows = module.run(args.quick)
                break
            except Exception:  # one failing module must not lose the others' figures
                error = f"bench_{name}: {traceback.format_exc(limit=3).strip().splitlines()[-1]}"
                print(traceback.format_exc(), file=sys.stderr)
                # A shared machine can stall a child process past a timeout: one more try, and say so.
                (retried if attempt == 1 else failures).append(error)
        if module_rows is None:
            continue
        for r in module_rows:
            print(f"   {r['figure']}: {_fmt(r['studyapp'], r['unit'])} vs {_fmt(r.get('baseline'), r['unit'])}", file=sys.stderr)
        rows.extend(module_rows)
    elapsed = time.perf_counter() - started
    unmatched = apply_targets(rows, chosen, args.quick)
    judged = [r for r in rows if r["verdict"] in ("met", "**missed**")]
    met = sum(r["verdict"] == "met" for r in judged)
    out = ["# Benchmark results", "", *machine(commit),
           f"- Mode: {'quick (smoke)' if args.quick else 'full'}, {elapsed:.0f} s in all; medians over repeated runs, "
           "each figure measured beside its baseline in the same run",
           f"- Load average (1 min) at the start and the end: {load_before} and {_load()} "
           "(other work on the machine slows both sides of a ratio, and inflates the '+ N ms' figures)",
           f"- Targets: {met} of {len(judged)} met", "", *table(rows), ""]
    if failures:
        out += ["## Modules that failed", "", *[f"- {f}" for f in failures], ""]
    if retried:
        out += ["## Modules run twice (the first attempt failed)", "", *[f"- {r}" for r in retried], ""]
    if unmatched:
        out += ["## Targets that no figure matched (a renamed figure?)", "", *[f"- {u}" for u in unmatched], ""]
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
