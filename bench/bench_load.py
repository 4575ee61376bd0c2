"""Loading and checking 10,000 cards against parsing the same files with yaml.CSafeLoader alone."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import interleaved_medians, row  # noqa: E402
from synth import write_bank  # noqa: E402

from studyapp.core.catalog import load_paths  # noqa: E402
from studyapp.core.deckcache import DeckCache  # noqa: E402


def run(quick: bool = False) -> list[dict]:
    rows = []
    sizes = [1_000] if quick else [1_000, 10_000]
    repeat = 3 if quick else 7
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            paths = write_bank(Path(tmp), size, decks=max(1, size // 2_500))

            def baseline():
                for path in paths:
                    with open(path, encoding="utf-8") as f:
                        yaml.load(f, Loader=yaml.CSafeLoader)

            def studyapp():
                catalog = load_paths([Path(tmp) / "decks"])
                assert sum(len(d.cards) for d in catalog.decks) == size, catalog.problems[:3]

            cache_file = Path(tmp) / "home" / "decks.pickle"

            def cached():
                catalog = load_paths([Path(tmp) / "decks"], DeckCache(cache_file))
                assert sum(len(d.cards) for d in catalog.decks) == size, catalog.problems[:3]

            cached()  # writes the cache that the timed runs read
            times = interleaved_medians({"baseline": baseline, "studyapp": studyapp, "cached": cached}, repeat)
            base, ours = times["baseline"], times["studyapp"]
            rows.append(row(f"load and check {size:,} cards", ours * 1000, base * 1000, "ms",
                            target="<= 1.5x" if size == 10_000 else "",
                            note="baseline: yaml.load with CSafeLoader, no checks"))
            rows.append(row(f"{size:,} cards from the deck cache (files unchanged)", times["cached"] * 1000,
                            base * 1000, "ms",
                            note="what `studyapp list` and the app do when no deck changed; same baseline"))
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(r)
