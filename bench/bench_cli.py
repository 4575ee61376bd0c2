"""Start-up of the commands that open no UI, against `python -c pass`, in fresh processes."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import command_env, interleaved_medians, row  # noqa: E402


def _command(args: list[str], env: dict) -> callable:
    def run():
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return run


def run(quick: bool = False) -> list[dict]:
    repeat = 5 if quick else 21
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = command_env(home, Path(tmp) / "pycache")
        studyapp = [sys.executable, "-m", "studyapp"]
        cache = home / "cache" / "decks.pickle"
        # Round after round, in this order: the cold run leaves the deck cache that the next
        # round's warm `list` finds. interleaved_medians' untimed first round writes the bytecode.
        times = interleaved_medians({
            "baseline": _command([sys.executable, "-c", "pass"], env),
            "version": _command([*studyapp, "--version"], env),
            "list": _command([*studyapp, "list"], env),
            "cold": _command([*studyapp, "list"], env),
        }, repeat, setups={"cold": lambda: cache.unlink(missing_ok=True)})
    baseline = times["baseline"]

    def over(name: str) -> str:
        return f"{(times[name] - baseline) * 1000:+.0f} ms over `python -c pass`"

    return [
        row("studyapp --version", times["version"] * 1000, baseline * 1000, "ms", target="<= baseline + 150 ms",
            note=over("version")),
        row("studyapp list", times["list"] * 1000, baseline * 1000, "ms", target="<= baseline + 150 ms",
            note=over("list") + "; deck cache warm (the usual case)"),
        row("studyapp list, first run (no deck cache)", times["cold"] * 1000, baseline * 1000, "ms",
            note=over("cold") + "; parses all 8 bundled decks"),
    ]


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(r)
