"""Start-up of the commands that open no UI, against `python -c pass`, in fresh processes."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import command_env, median_seconds, row  # noqa: E402


def _command(args: list[str], env: dict) -> callable:
    def run():
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return run


def run(quick: bool = False) -> list[dict]:
    repeat = 5 if quick else 21
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = command_env(home, Path(tmp) / "pycache")
        baseline = median_seconds(_command([sys.executable, "-c", "pass"], env), repeat)
        rows = []
        for label, args in (("studyapp --version", ["--version"]), ("studyapp list", ["list"])):
            _command([sys.executable, "-m", "studyapp", *args], env)()  # bytecode and deck cache written
            ours = median_seconds(_command([sys.executable, "-m", "studyapp", *args], env), repeat)
            note = f"{(ours - baseline) * 1000:+.0f} ms over `python -c pass`"
            if args == ["list"]:
                note += "; deck cache warm (the usual case)"
            rows.append(row(label, ours * 1000, baseline * 1000, "ms", target="<= baseline + 150 ms", note=note))
        cache = home / "cache" / "decks.pickle"
        cold = median_seconds(_command([sys.executable, "-m", "studyapp", "list"], env), repeat,
                              setup=lambda: cache.unlink(missing_ok=True))
        rows.append(row("studyapp list, first run (no deck cache)", cold * 1000, baseline * 1000, "ms",
                        note=f"{(cold - baseline) * 1000:+.0f} ms over `python -c pass`; parses all 8 bundled decks"))
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(r)
