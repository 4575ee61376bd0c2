"""Progress both ways: studyapp's export with progress and its import, against Anki doing the same.

    python bench/bench_progress.py                      # 10,000 cards, 100,000 reviews, five rounds
    python bench/bench_progress.py --quick              # 1,000 cards, three rounds
    python bench/bench_progress.py --out bench/PROGRESS.md   # also write the figures and the load averages

One profile of 10,000 items (basic cards in four decks) with 100,000 review-log rows
(ten reviews each, written straight into SQLite: their values do not change the work).

- export: studyapp's clock covers ``gather_progress`` (reading every item and log row
  from the profile) and all of ``export_anki`` with the schedules, revlog and preset
  written into the package. Anki's clock covers ``export_anki_package`` of the same
  cards with scheduling (after importing studyapp's package into its collection,
  untimed), the current format (zstd collection.anki21b).
- import: studyapp's clock covers ``read_package`` (unzip, unzstd, reading every note,
  card and revlog row), matching and planning, and the one transaction that appends
  100,000 reviews and takes 10,000 states, into a profile that already has its items.
  Anki's clock covers ``import_anki_package`` of the same Anki-made package with
  scheduling into a fresh collection.
Runs alternate (Anki, studyapp, round after round).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import interleaved_medians, row  # noqa: E402

from studyapp.core.clock import DAY_MS, FakeClock  # noqa: E402
from studyapp.core.models import Card, Deck  # noqa: E402
from studyapp.core.scheduler import Settings  # noqa: E402
from studyapp.core.settings import Location  # noqa: E402
from studyapp.export.anki import export_anki  # noqa: E402
from studyapp.export.anki_import import plan_import  # noqa: E402
from studyapp.export.apkg import read_package  # noqa: E402
from studyapp.export.progress import gather_progress  # noqa: E402
from studyapp.store import open_store  # noqa: E402

START_MS = 1_767_600_000_000  # 2026-01-05 08:00 UTC
REVIEWS_PER_ITEM = 10
SETTINGS = Settings(timezone="UTC")


def decks_of(count: int, folder: Path, decks: int = 4) -> list[Deck]:
    per_deck = -(-count // decks)
    cards = [Card(id=f"card-{i}", type="basic", source=("s",), front=f"Question {i}?", back=f"Answer {i}")
             for i in range(count)]
    return [Deck(f"bench-{d}", f"Bench deck {d}", folder / f"bench-{d}.yaml", folder / "no-seed.md",
                 tuple(cards[d * per_deck:(d + 1) * per_deck])) for d in range(decks)]


def studied_profile(location: Location, decks: list[Deck], now_ms: int):
    """Every item reviewed ten times, a day or more apart, now in review."""
    store = open_store(location, clock=FakeClock(START_MS))
    store.save_settings(SETTINGS)
    store.sync(decks)
    conn = store.conn
    conn.execute("BEGIN")
    scheduler = conn.execute("INSERT INTO schedulers (version, params) VALUES ('bench', '{}')").lastrowid
    rows, updates = [], []
    for item_id, in conn.execute("SELECT id FROM items ORDER BY id").fetchall():
        time_ms = START_MS + (item_id % 977) * 60_000
        interval = 0
        for review in range(REVIEWS_PER_ITEM):
            before = "new" if review == 0 else "review"
            new_interval = review + 1
            rows.append((item_id, "review", 3, time_ms, time_ms, 4000, before, "review", new_interval, interval,
                         1.0 + review, 5.0, time_ms + new_interval * DAY_MS, scheduler))
            interval = new_interval
            time_ms += new_interval * DAY_MS
        updates.append(("review", 1.0 + REVIEWS_PER_ITEM, 5.0, time_ms, time_ms - interval * DAY_MS, interval,
                        REVIEWS_PER_ITEM, item_id))
    conn.executemany("INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, "
                     "state_after, interval, last_interval, stability, difficulty, due_ms, scheduler_id) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("UPDATE items SET queue = 2, state = ?, stability = ?, difficulty = ?, due_ms = ?, "
                     "last_review_ms = ?, interval = ?, reps = ? WHERE id = ?", updates)
    conn.execute("COMMIT")
    return store


def run(quick: bool = False) -> list[dict]:
    from anki.collection import Collection, ExportAnkiPackageOptions
    from anki.import_export_pb2 import (
        IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
        ImportAnkiPackageOptions,
        ImportAnkiPackageRequest,
    )

    size = 1_000 if quick else 10_000
    repeat = 3 if quick else 5
    with tempfile.TemporaryDirectory(prefix="bench-progress-") as scratch:
        tmp = Path(scratch)
        decks = decks_of(size, tmp)
        # Anki reads the wall clock: "now" is the real one, after every review (they end in March 2026).
        now_ms = max(START_MS + 60 * DAY_MS, int(time.time() * 1000))
        store = studied_profile(Location(tmp / "home", "bench", ()), decks, now_ms)
        ours = tmp / "ours.apkg"

        def studyapp_export():
            schedule = gather_progress(store, SETTINGS)
            export_anki(decks, ours, home=None, clock=lambda: now_ms / 1000, schedule=schedule)

        studyapp_export()
        options = dict(merge_notetypes=False, update_notes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
                       update_notetypes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, with_scheduling=True,
                       with_deck_configs=True)
        (tmp / "source").mkdir()
        source = Collection(str(tmp / "source" / "collection.anki2"))
        source.import_anki_package(ImportAnkiPackageRequest(package_path=str(ours),
                                                            options=ImportAnkiPackageOptions(**options)))
        theirs = tmp / "theirs.apkg"

        def anki_export():
            source.export_anki_package(out_path=str(theirs), options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=True, with_media=False, legacy=False), limit=None)

        anki_export()
        exports_cpu: dict[str, float] = {}
        exports = interleaved_medians({"anki": anki_export, "studyapp": studyapp_export}, repeat, cpu=exports_cpu)
        reviews = len(read_package(theirs).revlog)

        targets: dict[str, object] = {}
        counter = iter(range(10_000))

        def fresh_anki():
            number = next(counter)
            folder = tmp / f"target-{number}"
            folder.mkdir()
            targets["anki"] = Collection(str(folder / "collection.anki2"))

        def anki_import():
            targets["anki"].import_anki_package(ImportAnkiPackageRequest(
                package_path=str(theirs), options=ImportAnkiPackageOptions(**options)))
            targets["anki"].close()

        def fresh_profile():
            number = next(counter)
            profile = open_store(Location(tmp / "home", f"import-{number}", ()), clock=FakeClock(now_ms))
            profile.save_settings(SETTINGS)
            profile.sync(decks)
            targets["studyapp"] = profile

        def studyapp_import():
            profile = targets["studyapp"]
            collection = read_package(theirs)
            plan = profile.import_anki(lambda items, log: plan_import(collection, decks, items, log, SETTINGS, now_ms),
                                       SETTINGS)
            assert plan.review_count == reviews, (plan.review_count, reviews)
            profile.close()

        imports_cpu: dict[str, float] = {}
        imports = interleaved_medians({"anki": anki_import, "studyapp": studyapp_import}, repeat,
                                      setups={"anki": fresh_anki, "studyapp": fresh_profile}, cpu=imports_cpu)
        source.close()
        store.close()
        shutil.rmtree(tmp / "home", ignore_errors=True)
    label = f"{size:,} cards, {reviews:,} reviews"
    return [
        row(f"export with progress, {label}", exports["studyapp"] * 1000, exports["anki"] * 1000, "ms",
            note="studyapp: reading the profile + export_anki with schedules, revlog, preset; "
                 "Anki: export_anki_package with scheduling of the same cards"),
        row(f"import from Anki, {label}", imports["studyapp"] * 1000, imports["anki"] * 1000, "ms",
            note="studyapp: read_package + match + one transaction into a profile; "
                 "Anki: import_anki_package with scheduling into a fresh collection"),
        # The same runs in CPU seconds (all threads): on a busy machine the wall clock favours
        # Anki's threads, which the scheduler serves one by one; the CPU time is the work done.
        row(f"export with progress, CPU time, {label}", exports_cpu["studyapp"] * 1000, exports_cpu["anki"] * 1000,
            "ms", note="the export's runs above, CPU seconds of the process"),
        row(f"import from Anki, CPU time, {label}", imports_cpu["studyapp"] * 1000, imports_cpu["anki"] * 1000,
            "ms", note="the import's runs above, CPU seconds of the process"),
    ]


def main(argv: list[str] | None = None) -> int:
    import argparse
    import datetime
    import os
    import platform

    from common import markdown

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 cards and three rounds: a smoke run")
    parser.add_argument("--out", default="", help="write the figures as markdown, with the load averages, here")
    args = parser.parse_args(argv)
    # Both sides of each ratio share the machine, but a busy one slows them unevenly: say how busy it was.
    load_before = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc)
    rows = run(args.quick)
    load_after = os.getloadavg()
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "-"
        print(f"{r['figure']}: {r['studyapp']:.1f} {r['unit']} vs {r['baseline']:.1f} {r['unit']} ({ratio})")
    loads = (f"load average (1, 5, 15 min) {', '.join(f'{x:.2f}' for x in load_before)} at the start, "
             f"{', '.join(f'{x:.2f}' for x in load_after)} at the end, on {os.cpu_count()} cores")
    print(loads)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent).stdout.strip()
        Path(args.out).write_text(
            f"# Progress both ways: `python bench/bench_progress.py{' --quick' if args.quick else ''}`\n\n"
            f"- Run {started:%Y-%m-%d %H:%M} UTC at commit {commit or 'unknown'}, Python {platform.python_version()}\n"
            f"- {loads[0].upper()}{loads[1:]}\n- Medians of alternating rounds (Anki, studyapp); the ratio is "
            "studyapp's time over Anki's, target at most 1.5x\n\n" + markdown(rows, "Anki") + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
