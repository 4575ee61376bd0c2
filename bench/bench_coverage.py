"""`studyapp check --coverage` against `studyapp check` on the same banks, in this process.

The issue's figure is the 10,000-card benchmark bank (bench/synth.py); its seed is a few
sentences, so a second figure runs the bundled banks, whose eight seeds are real documents.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import interleaved_medians, row  # noqa: E402
from synth import write_bank  # noqa: E402

from studyapp.cli import main  # noqa: E402
from studyapp.core.catalog import bundled_decks_dir  # noqa: E402


def _check(*argv: str):
    def run() -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", *argv])
        assert code == 0, err.getvalue()[-2000:]
    return run


def run(quick: bool = False) -> list[dict]:
    rows = []
    size = 1_000 if quick else 10_000
    repeat = 3 if quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        write_bank(Path(tmp), size, decks=max(1, size // 2_500))
        decks = str(Path(tmp) / "decks")
        times = interleaved_medians({"check": _check(decks), "coverage": _check("--coverage", decks)}, repeat)
        rows.append(row(f"check --coverage on {size:,} cards", times["coverage"] * 1000, times["check"] * 1000, "ms",
                        target="<= 1.5x" if size == 10_000 else "",
                        note="baseline: `studyapp check` on the same bank (bench/synth.py), in this process"))
    bundled = str(bundled_decks_dir())
    times = interleaved_medians({"check": _check(bundled), "coverage": _check("--coverage", bundled)}, repeat)
    rows.append(row("check --coverage on the bundled banks (8 real seeds)", times["coverage"] * 1000,
                    times["check"] * 1000, "ms", note="baseline: `studyapp check` on the bundled banks"))
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(r)
