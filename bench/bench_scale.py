"""A learner at scale: `studyapp report` (json and md) and the home screen with 100,000 cards and
1,000,000 review-log rows, each against a plain SQLite aggregate over the same rows.

    python bench/bench_scale.py [--quick]

The baseline is a fresh Python process that opens the same database with the sqlite3 module and
sums the same answers per deck (count, passed, time, last answer): the floor for any report over
them. The report runs as the learner runs it, a fresh `studyapp report` process with a warm deck
cache; the home screen is timed in tmux from the process start until its deck table's status line
is drawn. The profile (scale_profile.py) is kept between runs under $STUDYAPP_BENCH_CACHE (default:
the temp folder), since writing a million rows takes minutes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from common import command_env, interleaved_medians, markdown, row  # noqa: E402

AGGREGATE = """
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("SELECT i.deck_id, count(*), sum(r.rating > 1), sum(r.duration_ms), max(r.time_ms) "
                  "FROM review_log r CROSS JOIN items i ON i.id = r.item_id "
                  "WHERE r.kind IN ('review', 'cram') GROUP BY i.deck_id").fetchall()
assert rows
"""
HOME_READY = "Enter studies the highlighted deck"
# The status line once today's counts are in ("12 decks · new 94 · learning 0 · due 827  ·  Enter ..."): the
# table is drawn first from the deck summary, with the counts pending, and they follow.
HOME_COUNTED = "· due "
# The curriculum block's last line: every track is drawn above it.
HOME_TRACKS = "Next: "


def curriculum(deck_ids: list[str]) -> str:
    """Two tracks over the profile's decks (one in --quick, which has a single deck), the second after the first.
    It lies beside the decks only while the tracks are timed, where it comes before the bundled decks' curriculum
    (which the other figures show, over the bundled decks alone), so that the tracks' mastery is the generated
    decks'; deck files' stamps do not include it, so the deck cache and summary stay warm."""
    half = max(1, len(deck_ids) // 2)
    text = ("schema: 1\ntitle: Bench onboarding\ntracks:\n  - id: first\n    title: The first decks\n"
            f"    decks: [{', '.join(deck_ids[:half])}]\n    target: 80%\n    days: 30\n")
    if deck_ids[half:]:
        text += (f"  - id: rest\n    title: The other decks\n    decks: [{', '.join(deck_ids[half:])}]\n"
                 "    target: 60%\n    after: [first]\n")
    return text


def _process(args: list[str], env: dict):
    def run():
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return run


def _peak_mb(args: list[str], env: dict) -> float:
    """Peak resident memory of one run of ``args``, in MB (a fresh child that only runs it)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def run(quick: bool = False) -> list[dict]:
    from scale_profile import build

    cards, reviews = (10_000, 100_000) if quick else (100_000, 1_000_000)
    cache = Path(os.environ.get("STUDYAPP_BENCH_CACHE", tempfile.gettempdir()))
    folder = cache / f"studyapp-bench-scale-{cards}-{reviews}"
    profile = build(folder, cards, reviews)
    database = Path(profile["home"]) / "profiles" / "default.sqlite3"
    repeat = 2 if quick else 3
    size = f"{cards:,} cards, {reviews:,} reviews"
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        env = command_env(Path(profile["home"]), Path(tmp) / "pycache")
        env["STUDYAPP_DECKS"] = profile["decks"]
        studyapp = [sys.executable, "-m", "studyapp"]
        report_json = [*studyapp, "report", "--format", "json"]
        commands = {
            "baseline": _process([sys.executable, "-c", AGGREGATE, str(database)], env),
            "json": _process(report_json, env),
            "md": _process([*studyapp, "report"], env),
        }
        print(f"bench_scale: profile ready ({size}); timing the report", file=sys.stderr, flush=True)
        times = interleaved_medians(commands, repeat)
        peak = _peak_mb(report_json, env)
        base = times["baseline"] * 1000
        rows = [
            row(f"report --format json, {size}", times["json"] * 1000, base, "ms",
                note=f"fresh process, warm deck cache; peak memory {peak:,.0f} MB; "
                     "baseline: python + sqlite3 summing the same answers per deck"),
            row(f"report (Markdown), {size}", times["md"] * 1000, base, "ms", note="the same baseline"),
        ]
        if shutil.which("tmux"):
            from bench_tui import WARM_UP_LINGER_S, _time_to_text, _Tmux

            tmux = _Tmux()
            tmux("new-session", "-d", "-s", "keeper", "-x", "20", "-y", "5", "cat")
            prefix = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in
                                          dict(env, TERM="xterm-256color", LANG="C.UTF-8").items()
                                          if k in ("STUDYAPP_HOME", "STUDYAPP_DECKS", "PYTHONPATH", "PATH", "HOME",
                                                   "TERM", "LANG", "PYTHONPYCACHEPREFIX"))
            home = f"{prefix} {shlex.quote(sys.executable)} -m studyapp"
            baseline = f"{prefix} {shlex.quote(sys.executable)} -c {shlex.quote(AGGREGATE + 'print(' + repr(HOME_READY) + ')')} " \
                       f"{shlex.quote(str(database))}; sleep 5"
            print("bench_scale: timing the home screen", file=sys.stderr, flush=True)
            try:
                _time_to_text(tmux, home, HOME_READY, timeout=180, linger=WARM_UP_LINGER_S)  # warm-up
                ours, counted, theirs = [], [], []
                for _ in range(repeat):
                    ours.append(_time_to_text(tmux, home, HOME_READY, timeout=120))
                    counted.append(_time_to_text(tmux, home, HOME_COUNTED, timeout=180))
                    theirs.append(_time_to_text(tmux, baseline, HOME_READY, timeout=120))
                written = Path(profile["decks"]) / "curriculum.yaml"
                written.write_text(curriculum(sorted(p.stem for p in Path(profile["decks"]).glob("bench-*.yaml"))),
                                   encoding="utf-8")
                try:
                    _time_to_text(tmux, home, HOME_TRACKS, timeout=180, linger=WARM_UP_LINGER_S)  # warm-up (the YAML parser's bytecode)
                    tracked = [_time_to_text(tmux, home, HOME_TRACKS, timeout=180) for _ in range(repeat)]
                finally:
                    written.unlink()
            finally:
                tmux.close()
            rows.append(row(f"TUI: home screen, deck table drawn ({size})", statistics.median(ours) * 1000,
                            statistics.median(theirs) * 1000, "ms",
                            note=f"tmux, process start to the table's status line, median of {repeat}; "
                                 "baseline: the same aggregate, printed in tmux"))
            rows.append(row(f"TUI: home screen, today's counts drawn ({size})", statistics.median(counted) * 1000,
                            statistics.median(theirs) * 1000, "ms",
                            note=f"tmux, process start to new, learning and due in the status line, median of "
                                 f"{repeat}; the table before them says they are being counted; same baseline"))
            rows.append(row(f"TUI: home screen, curriculum tracks drawn ({size})", statistics.median(tracked) * 1000,
                            statistics.median(theirs) * 1000, "ms",
                            note=f"tmux, process start to the tracks' \"Next:\" line, median of {repeat}, with a "
                                 "curriculum of two tracks over the decks added for these runs only; same baseline"))
        else:
            rows.append(row(f"TUI: home screen, deck table drawn ({size})", None, None, "ms",
                            note="not measured: tmux is not installed"))
    return rows


if __name__ == "__main__":
    print(markdown(run("--quick" in sys.argv), baseline="plain SQLite aggregate"))
