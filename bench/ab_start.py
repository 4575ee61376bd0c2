"""A/B of the terminal app's start-up between two copies of the code, in a real terminal.

    python bench/ab_start.py OLD NEW [--runs N] [--deck ID]

``OLD`` and ``NEW`` are folders holding a ``studyapp`` package with its ``decks`` (a ``git archive``
of a commit with the compiled ``studyapp/core/_speedups*.so`` copied in, or the work tree: the two
start alike).
tmux starts ``studyapp study DECK`` from each in turn, then the bare Textual app, round after
round, as bench_tui.py times one start (process start to the card's hint on the screen), so that
a busy spell weighs on all three alike. Each side has a home of its own, warmed by one start
first. Prints the medians and each side's ratio to the bare app. Starts in tmux spread by about
5% between runs of the same code on the shared machine: compare sides of one run, and give a
change of a few milliseconds 20 rounds or more.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_tui import BARE_APP, BARE_TEXT, DECK, READY_TEXT, WARM_UP_LINGER_S, _time_to_text, _Tmux  # noqa: E402


def _command(code: Path, home: Path, work: Path, deck: str) -> str:
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "STUDYAPP_HOME": str(home), "PYTHONPATH": str(code),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work)}
    # From a folder of neither copy: `python -m` puts the working folder ahead of PYTHONPATH.
    return (f"cd {shlex.quote(str(work))} && env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            + f" {shlex.quote(sys.executable)} -m studyapp study {shlex.quote(deck)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--deck", default=DECK)
    args = parser.parse_args()
    for code in (args.old, args.new):
        if not (code / "studyapp" / "__init__.py").exists():
            parser.error(f"{code} holds no studyapp package")
    with tempfile.TemporaryDirectory(prefix="ab-start-") as tmp:
        work = Path(tmp)
        bare = work / "bare_app.py"
        bare.write_text(BARE_APP, encoding="utf-8")
        sides = {"old": _command(args.old.resolve(), work / "home-old", work, args.deck),
                 "new": _command(args.new.resolve(), work / "home-new", work, args.deck),
                 "bare": f"cd {shlex.quote(str(work))} && {shlex.quote(sys.executable)} {shlex.quote(str(bare))}"}
        texts = {"old": READY_TEXT, "new": READY_TEXT, "bare": BARE_TEXT}
        tmux = _Tmux()
        # A session that outlives the measured ones (see bench_tui.startup).
        tmux("new-session", "-d", "-s", "keeper", "-x", "20", "-y", "5", "cat")
        times: dict[str, list[float]] = {side: [] for side in sides}
        try:
            for side, command in sides.items():  # the databases and caches made, as a second start finds them
                _time_to_text(tmux, command, texts[side], timeout=120, linger=WARM_UP_LINGER_S)
            for _ in range(args.runs):
                for side, command in sides.items():
                    times[side].append(_time_to_text(tmux, command, texts[side]))
        finally:
            tmux.close()
    medians = {side: statistics.median(values) * 1000 for side, values in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.runs} rounds, load {load:.2f} at the end")
    for side in ("old", "new"):
        print(f"{side:4s} {medians[side]:7.1f} ms  {medians[side] / medians['bare']:.3f}x the bare app")
    print(f"bare {medians['bare']:7.1f} ms   new/old {medians['new'] / medians['old']:.3f}")


if __name__ == "__main__":
    main()
