"""The scheduling engine and progress store at scale, against Anki's own backend.

    python bench/bench_engine.py [--quick] [--profile] [--items N]

Builds a progress database with 100,000 items and 1,000,000 review-log rows (quick: a
tenth of that), then measures, as medians over repeated operations, the two things a
review session does all day: pick the next item (queue, counts and the four button
previews) and record an answer (new state + log row, one transaction, synchronous=FULL).
The baseline does the same with Anki's Rust backend (the ``anki`` package, FSRS on) on a
collection of the same size: ``get_queued_cards`` (which includes its four scheduling
states) and ``answer_card``.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from common import markdown, row  # noqa: E402

DECKS = 10
DAY = 86_400_000


OPENINGS = 5  # each opening figure: the median of this many


def _sizes(quick: bool) -> tuple[int, int, int]:
    """(items, log rows, timed operations per round)."""
    return (10_000, 100_000, 60) if quick else (100_000, 1_000_000, 300)


def _decks(items: int):
    from studyapp.core.models import Card, Deck

    per_deck = items // DECKS
    return [Deck(id=f"bench-{d}", title=f"Bench {d}", path=Path(f"/bench/{d}.yaml"), seed_path=Path("/bench/s.md"),
                 cards=tuple(Card(id=f"c{i:06d}", type="basic", source=("s",), front=f"Q{i}", back=f"A{i}")
                             for i in range(per_deck)))
            for d in range(DECKS)]


def _item_plan(rng: random.Random, index: int, now: int):
    """(state, step, stability, difficulty, due, last_review, interval, reps, lapses) for a synthetic item.

    A learner's collection: 30% never studied, 0.2% in learning, the rest in review with
    about 1.5% due today or overdue (some 1,000 reviews waiting at 100,000 items).
    """
    if index % 10 < 3:
        return ("new", None, None, None, None, None, 0, 0, 0)
    if index % 500 == 42:
        last = now - rng.randrange(60_000, 3_600_000)
        return ("learning", 1, 2.3, 5.0, last + rng.randrange(-1_800_000, 1_800_000), last, -600, 2, 0)
    interval = rng.randrange(1, 400)
    if rng.random() < 0.015:
        elapsed = interval + rng.randrange(0, 6)
    else:
        elapsed = rng.randrange(0, interval)
    last = now - elapsed * DAY - rng.randrange(DAY // 2)
    return ("review", None, interval * 1.1, rng.uniform(2, 9), last + interval * DAY, last, interval,
            rng.randrange(2, 30), rng.randrange(0, 4))


def build_studyapp(folder: Path, items: int, log_rows: int, now: int):
    """A store with ``items`` items in 10 decks and ``log_rows`` review-log rows."""
    from studyapp.core.clock import FakeClock
    from studyapp.core.queue import card_rank, rank
    from studyapp.core.scheduler import Settings
    from studyapp.core.settings import Location
    from studyapp.store import open_store
    from studyapp.store.repository import QUEUE_OF_STATE, VARIANT_SLOTS

    rng = random.Random(7)
    clock = FakeClock(now)
    store = open_store(Location(folder, "bench", ()), clock=clock)
    decks = _decks(items)
    settings = Settings(timezone="UTC", new_per_day=20, reviews_per_day=9999)
    store.save_settings(settings)
    rows, studied = [], []
    # As the store's sync writes them (schema 6): each item's rank in the random new orders by card.
    seed = store.profile_seed()
    for d, deck in enumerate(decks):
        for i, card in enumerate(deck.cards):
            plan = _item_plan(rng, d * len(deck.cards) + i, now)
            rows.append((f"{deck.id}/{card.id}/main", deck.id, card.id, "main", 1, i * VARIANT_SLOTS,
                         card_rank(seed, deck.id, card.id, rank.__wrapped__), QUEUE_OF_STATE[plan[0]], *plan, now - 800 * DAY))
            if plan[0] != "new":
                studied.append(len(rows))
    conn = store.conn
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO items (key, deck_id, card_id, variant, revision, position, new_rank, queue, state, step, "
        "stability, difficulty, due_ms, last_review_ms, interval, reps, lapses, created_ms) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    scheduler_id = store.scheduler_id(settings)

    def log():
        for n in range(log_rows):
            item_id = studied[n % len(studied)]
            t = now - rng.randrange(1, 730) * DAY
            yield (item_id, "review", rng.choice((1, 3, 3, 3, 2, 4)), t, t, rng.randrange(1000, 20_000), "review",
                   "review", rng.randrange(1, 300), rng.randrange(1, 300), 10.0, 5.0, t + 10 * DAY, scheduler_id)

    conn.executemany(
        "INSERT INTO review_log (item_id, kind, rating, time_ms, sched_ms, duration_ms, state_before, state_after, "
        "interval, last_interval, stability, difficulty, due_ms, scheduler_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", log())
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    return store, clock, decks, settings


def time_studyapp(store, clock, decks, settings, operations: int, rounds: int, session=None):
    """(the session, (pick times, answer times)): ``operations`` picks and answers per round,
    in one session (``session``, to carry on with one, or a new one)."""
    from studyapp.core.scheduler import GOOD, AGAIN
    from studyapp.core.session import ReviewSession

    if session is None:
        session = ReviewSession(store, decks, clock=clock, settings=settings)
    picks, answers = [], []
    for _ in range(rounds):
        gc.collect()
        for n in range(operations):
            start = time.perf_counter()
            shown = session.next()
            middle = time.perf_counter()
            if shown is None:
                clock.advance(ms=DAY)
                continue
            session.answer(AGAIN if n % 7 == 0 else GOOD, duration_ms=5000)
            end = time.perf_counter()
            picks.append(middle - start)
            answers.append(end - middle)
            clock.advance(ms=8000)
    return session, (picks, answers)


def build_anki(folder: Path, items: int, log_rows: int):
    """An Anki collection of the same size: 10 decks, FSRS on, cards and revlog inserted in bulk."""
    from anki.collection import Collection

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "collection.anki2"))
    col.set_config("fsrs", True)
    rng = random.Random(7)
    model = col.models.by_name("Basic")
    parent = col.decks.id("Bench")
    deck_ids = [col.decks.id(f"Bench::{d}") for d in range(DECKS)]
    conf = col.decks.config_dict_for_deck_id(parent)
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    col.decks.update_config(conf)
    today = col.sched.today
    now_s = int(time.time())
    per_deck = items // DECKS
    notes, cards, studied = [], [], []
    base = int(time.time() * 1000) - 10 * 365 * DAY
    for d, deck_id in enumerate(deck_ids):
        for i in range(per_deck):
            n = d * per_deck + i
            nid = cid = base + n
            notes.append((nid, f"g{n}", model["id"], now_s, -1, "", f"Q{n}\x1fA{n}", f"Q{n}", 0, 0, ""))
            plan = _item_plan(rng, n, now_s * 1000)
            state = plan[0]
            if state == "new":
                cards.append((cid, nid, deck_id, 0, now_s, -1, 0, 0, i, 0, 0, 0, 0, 0, 0, 0, 0, "{}"))
                continue
            studied.append(cid)
            data = json.dumps({"s": plan[2], "d": plan[3], "dr": 0.9, "lrt": plan[5] // 1000})
            if state == "learning":
                cards.append((cid, nid, deck_id, 0, now_s, -1, 1, 1, plan[4] // 1000, 0, 0, plan[7], 0, 1001, 0, 0, 0,
                              data))
            else:
                due_day = today + (plan[4] - now_s * 1000) // DAY
                cards.append((cid, nid, deck_id, 0, now_s, -1, 2, 2, due_day, plan[6], 2500, plan[7], plan[8], 0, 0, 0,
                              0, data))
    # Bulk rows go straight into the SQLite file while Anki has it closed: through
    # col.db each row is a round trip to the backend (a million of them take many minutes).
    path = col.path
    col.close()
    import sqlite3

    first = int(time.time() * 1000) - 730 * DAY
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO notes (id, guid, mid, mod, usn, tags, flds, sfld, csum, flags, data) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", notes)
    conn.executemany("INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, "
                     "left, odue, odid, flags, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     cards)
    conn.executemany(
        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((first + n * 37, studied[n % len(studied)], -1, rng.choice((1, 3, 3, 3, 2, 4)), rng.randrange(1, 300),
          rng.randrange(1, 300), 2500, rng.randrange(1000, 20_000), 1) for n in range(log_rows)))
    conn.commit()
    conn.close()
    col = Collection(path)
    col.decks.select(parent)
    return col


def time_anki(col, operations: int, rounds: int) -> tuple[list[float], list[float]]:
    from anki.scheduler_pb2 import CardAnswer

    picks, answers = [], []
    for _ in range(rounds):
        gc.collect()
        for n in range(operations):
            start = time.perf_counter()
            queued = col.sched.get_queued_cards(fetch_limit=1)
            middle = time.perf_counter()
            if not queued.cards:
                break
            top = queued.cards[0]
            card = col.get_card(top.card.id)
            card.start_timer()
            rating = CardAnswer.AGAIN if n % 7 == 0 else CardAnswer.GOOD
            col.sched.answer_card(col.sched.build_answer(card=card, states=top.states, rating=rating))
            end = time.perf_counter()
            picks.append(middle - start)
            answers.append(end - middle)
    return picks, answers


def time_previews(store, settings, count: int) -> tuple[list[float], list[float]]:
    """The four button previews alone, for stored items each seen for the first time (so
    nothing is cached: Anki's fuzz generator runs once per item), against the fsrs-rs call
    they make (what Anki's backend computes for the same answer, before its own rules)."""
    import fsrs_rs_python

    from studyapp.core.scheduler import REVIEW, ReviewScheduler

    rows = [row for row in store.all_items() if row.state.state == REVIEW][:count]
    scheduler = ReviewScheduler(settings)
    fsrs = fsrs_rs_python.FSRS(list(settings.parameters))
    ours, crate = [], []
    now = store.clock.now_ms()
    for row in rows:
        start = time.perf_counter()
        scheduler.previews(row.state, row.key, now)
        middle = time.perf_counter()
        fsrs.next_states(fsrs_rs_python.MemoryState(row.state.stability, row.state.difficulty), 0.9, 3)
        end = time.perf_counter()
        ours.append(middle - start)
        crate.append(end - middle)
    return ours, crate


def time_compiled(store, settings, decks, count: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """The compiled copies (core/_speedups.c) against their Python references, alternating: a
    review's four previews, each item's first (every cache emptied before each), and every
    deck's sync rows. What an install without a C compiler would run instead."""
    from studyapp.core import anki_ids, anki_random, models, scheduler as scheduler_module
    from studyapp.core.scheduler import REVIEW, ReviewScheduler

    if scheduler_module._review_numbers_compiled is None:
        raise SystemExit("bench: core/_speedups.c is not compiled here (pip install -e . with a C compiler)")
    items = [item for item in store.all_items() if item.state.state == REVIEW][:count]
    scheduler = ReviewScheduler(settings)
    now = store.clock.now_ms()
    compiled_block = anki_random._compiled_first_block
    sides = {True: (scheduler_module._review_numbers_compiled, compiled_block, anki_random.fuzz_factor_compiled,
                    anki_random.learning_fuzz_secs_compiled),
             False: (scheduler_module._review_numbers_python, None, anki_random.fuzz_factor_python,
                     anki_random.learning_fuzz_secs_python)}

    def use(side):
        (scheduler_module._review_numbers, anki_random._compiled_first_block, scheduler_module.fuzz_factor,
         scheduler_module.learning_fuzz_secs) = side
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for n, item in enumerate(items):
            for compiled in ((True, False) if n % 2 else (False, True)):
                use(sides[compiled])
                anki_random._FIRST_BLOCKS.clear()
                anki_random.fuzz_factor_python.cache_clear()
                anki_random.learning_fuzz_secs_python.cache_clear()
                anki_ids.forget()
                start = time.perf_counter()
                scheduler.previews(item.state, item.key, now)
                times[compiled].append(time.perf_counter() - start)
    finally:
        use(sides[True])
    deck_times: dict[bool, list[float]] = {True: [], False: []}
    for round_ in range(6):
        for compiled in ((True, False) if round_ % 2 else (False, True)):
            start = time.perf_counter()
            for deck in decks:
                if compiled:
                    models._compiled_rows(deck.cards, f"{deck.id}/", models.MAIN, models.MULTI_VARIANT_TYPES,
                                          models.VARIANT_SLOTS)
                else:
                    models._deck_rows_python(deck.cards, f"{deck.id}/")
            deck_times[compiled].append(time.perf_counter() - start)
    return times[True], times[False], deck_times[True], deck_times[False]


def profile_picks(store, clock, decks, settings, operations: int) -> str:
    """cProfile of picks and answers: where the time of a pick goes (``--profile``)."""
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    time_studyapp(store, clock, decks, settings, operations, 1)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    return out.getvalue()


def _us(samples: list[float]) -> float | None:
    return statistics.median(samples) * 1e6 if samples else None


def _mean(samples: list[float]) -> str:
    return f"{statistics.fmean(samples) * 1e6:,.0f} us" if samples else "-"


def run(quick: bool = False, profile: bool = False, items: int | None = None) -> list[dict]:
    """The figures; ``items``: another size than the usual (ten log rows an item), for the growth table."""
    items, log_rows, operations = _sizes(quick) if items is None else (items, 10 * items, 300)
    rounds = 3
    size = f"{items:,} items, {log_rows:,} log rows"
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        folder = Path(tmp)
        now = int(time.time() * 1000)
        started = time.perf_counter()
        store, clock, decks, settings = build_studyapp(folder / "studyapp", items, log_rows, now)
        built = time.perf_counter() - started
        # The first session build (sync of every item) is its own figure, then the steady state.
        # Each opening is repeated (OPENINGS times, alternating with Anki's) and the median kept: one
        # sample on this shared machine moved by half from run to run. The first of each also pays
        # what a process does once (the study days of the first gathering, cold caches).
        from studyapp.core.session import ReviewSession

        col, note = None, ""
        try:
            col = build_anki(folder / "anki", items, log_rows)
        except ImportError as error:  # the anki package is a test extra
            note = f"; no baseline: {error}"
        first_openings: list[float] = []
        openings: list[float] = []
        anki_openings: list[float] = []
        for repeat in range(OPENINGS):
            if repeat:  # as after the decks changed: other deck objects, no fingerprint kept
                store.conn.execute("DELETE FROM meta WHERE key LIKE 'sync:%'")
                decks = _decks(items)
            gc.collect()
            start = time.perf_counter()
            ReviewSession(store, decks, clock=clock, settings=settings).next()
            first_openings.append(time.perf_counter() - start)  # every item compared with the database
            start = time.perf_counter()
            ReviewSession(store, decks, clock=clock, settings=settings).next()
            openings.append(time.perf_counter() - start)  # decks unchanged since: one fingerprint per deck
            if col is not None:
                if repeat:  # a collection opened afresh: its first queue built again
                    path = col.path
                    col.close()
                    from anki.collection import Collection

                    col = Collection(path)
                gc.collect()
                start = time.perf_counter()
                col.sched.get_queued_cards(fetch_limit=1)
                anki_openings.append(time.perf_counter() - start)
        first_opening, opening = statistics.median(first_openings), statistics.median(openings)
        anki_open = statistics.median(anki_openings) if anki_openings else None
        anki_picks: list[float] = []
        anki_answers: list[float] = []
        # Round about: a busy spell on the shared machine then weighs on both sides alike.
        picks: list[float] = []
        answers: list[float] = []
        session = None
        for _ in range(rounds):
            session, (p, a) = time_studyapp(store, clock, decks, settings, operations, 1, session=session)
            picks += p
            answers += a
            if col is not None:
                p, a = time_anki(col, operations, 1)
                anki_picks += p
                anki_answers += a
        if col is not None:
            col.close()
        previews, crate = time_previews(store, settings, 2000)
        compiled_previews, python_previews, compiled_rows, python_rows = time_compiled(store, settings, decks, 1000)
        if profile:
            print(profile_picks(store, clock, decks, settings, operations), file=sys.stderr)
        size_mb = sum(p.stat().st_size for p in (folder / "studyapp").rglob("*.sqlite3*")) / 1e6
        # For reference: the same answers with synchronous=NORMAL (not what studyapp uses).
        store.conn.execute("PRAGMA synchronous = NORMAL")
        _, (_, answers_normal) = time_studyapp(store, clock, decks, settings, operations, 1)
        store.close()

    return [
        row(f"pick the next item ({size})", _us(picks), _us(anki_picks), "us",
            note="queue + counts + four button previews; Anki: get_queued_cards (queue + scheduling states); "
                 f"means {_mean(picks)} and {_mean(anki_picks)}" + note),
        row("four button previews, an item seen for the first time", _us(previews), _us(crate), "us",
            note="ReviewScheduler.previews (fuzz on); baseline: the fsrs-rs next_states call inside it"),
        row("the same previews, compiled copies against the Python ones", _us(compiled_previews), _us(python_previews),
            "us", note="core/_speedups.c; baseline: the Python references (an install without a C compiler); "
                       "every cache emptied before each"),
        row(f"every deck's sync rows ({items:,} cards), compiled against Python", statistics.median(compiled_rows) * 1000,
            statistics.median(python_rows) * 1000, "ms",
            note="core/_speedups.c deck_rows; baseline: models._deck_rows_python; 6 rounds alternating"),
        row(f"record an answer ({size})", _us(answers), _us(anki_answers), "us",
            note="state + log row in one transaction, WAL, synchronous=FULL; Anki: answer_card; "
                 f"means {_mean(answers)} and {_mean(anki_answers)}" + note),
        row("record an answer, synchronous=NORMAL (reference)", _us(answers_normal), _us(anki_answers), "us",
            note="not used: NORMAL can lose the last answers on power loss"),
        row(f"open a session on {items:,} items and pick the first item", opening * 1000,
            anki_open * 1000 if anki_open is not None else None, "ms",
            note=f"decks unchanged since the last session; Anki: first get_queued_cards on the collection opened; "
                 f"medians of {OPENINGS}; "
                 f"database {size_mb:.0f} MB, built in {built:.0f} s"),
        row("the same, first session after the decks changed", first_opening * 1000,
            anki_open * 1000 if anki_open is not None else None, "ms",
            note=f"every item compared with the database (sync); median of {OPENINGS}, each with other deck objects "
                 "and no fingerprint kept"),
    ]


if __name__ == "__main__":
    # --items N: the same figures at N items and 10 N log rows (docs/engine.md's growth table).
    size = int(sys.argv[sys.argv.index("--items") + 1]) if "--items" in sys.argv else None
    print(markdown(run("--quick" in sys.argv, profile="--profile" in sys.argv, items=size), baseline="Anki"))
