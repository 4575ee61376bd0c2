"""A profile at scale for the benchmarks: a generated bank of N cards (with the bundled decks beside it)
and M review-log rows, written straight into a real studyapp database.

    python bench/scale_profile.py DIR [--cards 100000] [--reviews 1000000]

DIR gets decks/ (the bank), home/ (the profile) and a marker file; an existing, complete DIR of the
same sizes is reused, since writing a million rows takes a while.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

DAY = 86_400_000
NOW_MS = 1_790_000_000_000  # a fixed "now", so runs compare


def build(folder: Path, cards: int, reviews: int, seed: int = 7) -> dict:
    """Write (or reuse) the bank and the profile; returns {"decks", "home", "now_ms"}."""
    from synth import write_bank

    from studyapp.core.catalog import discover
    from studyapp.core.clock import FakeClock
    from studyapp.core.settings import resolve
    from studyapp.store import open_store

    marker = folder / "profile.json"
    wanted = {"cards": cards, "reviews": reviews, "seed": seed, "now_ms": NOW_MS}
    out = {"decks": str(folder / "decks"), "home": str(folder / "home"), "now_ms": NOW_MS}
    if marker.exists() and json.loads(marker.read_text()) == wanted:
        # A profile kept from an older studyapp is brought to the current schema (as `study` would
        # do): the read-only commands timed here refuse an older one.
        open_store(folder / "home" / "profiles" / "default.sqlite3", clock=FakeClock(NOW_MS)).close()
        return out
    folder.mkdir(parents=True, exist_ok=True)
    write_bank(folder, cards, decks=max(1, cards // 25_000), seed=seed)
    location = resolve(str(folder / "home"), None, [str(folder / "decks")], environ={})
    catalog = discover([folder / "decks"], cache_file=location.home / "cache" / "decks.pickle")
    store = open_store(location, clock=FakeClock(NOW_MS))
    store.sync(catalog.decks)
    rng = random.Random(seed)
    conn = store.conn
    ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id")]
    conn.execute("BEGIN IMMEDIATE")
    scheduler_id = store.scheduler_id(store.load_settings())
    studied, updates = [], []
    for n, item_id in enumerate(ids):
        if n % 10 < 3:  # some never studied
            continue
        interval = rng.randrange(1, 400)
        last = NOW_MS - rng.randrange(0, interval) * DAY - rng.randrange(DAY // 2)
        updates.append((interval * 1.1, rng.uniform(2, 9), last + interval * DAY, last, interval,
                        rng.randrange(2, 30), rng.randrange(0, 4), item_id))
        studied.append(item_id)
    conn.executemany("UPDATE items SET queue = 2, state = 'review', stability = ?, difficulty = ?, due_ms = ?, "
                     "last_review_ms = ?, interval = ?, reps = ?, lapses = ? WHERE id = ?", updates)

    def log():
        for n in range(reviews):
            item_id = studied[n % len(studied)]
            t = NOW_MS - rng.randrange(0, 730 * DAY)
            kind = "cram" if n % 50 == 0 else "review"
            last_interval = rng.choice((0, -600, -86400, 1, 3, 15, 21, 40, 200))
            yield (item_id, kind, rng.choice((1, 3, 3, 3, 2, 4)), t, t, rng.randrange(1000, 20_000), "review",
                   "review", rng.randrange(1, 300), last_interval, 10.0, 5.0, t + 10 * DAY, scheduler_id)

    conn.executemany(
        "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
        "interval, last_interval, stability, difficulty, due_ms, scheduler_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", log())
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    marker.write_text(json.dumps(wanted))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    args = parser.parse_args()
    print(json.dumps(build(Path(args.folder), args.cards, args.reviews)))
