"""A session keeps today's gathered queues between picks and patches them after its own answers
(core.queue.Gathered, ReviewSession._patch_gathered). That must give exactly what gathering
afresh at every pick gives: the same item, queue, counts and buttons, answer after answer,
whatever the presets (gather and sort orders, burying, limits, steps that cross days)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from studyapp.core.clock import DAY_MS, HOUR_MS, MINUTE_MS
from studyapp.core.presets import DEFAULT_PRESET, GATHER_ORDERS, Preset, Presets
from studyapp.core.queue import Gathered, intersperse
from studyapp.core.scheduler import AGAIN, EASY, GOOD, HARD
from studyapp.core.session import ReviewSession

from engine_support import SETTINGS, T0, card, deck, store_at


def _decks(rng: random.Random, siblings: bool = True):
    decks = []
    for d in range(3):
        cards = []
        for i in range(14):
            kind = rng.choice(["basic", "basic", "basic", "reverse", "cloze"] if siblings else ["basic"])
            made = card(f"c{i:02d}", kind)
            if siblings and i > 2 and rng.random() < 0.15:  # a sibling by ``related:``
                made = replace(made, related=(f"c{rng.randrange(i):02d}",))
            cards.append(made)
        decks.append(deck(f"d{d}", cards))
    return decks


def _prepare(store, rng: random.Random) -> None:
    """Some items already studied: reviews due today or earlier (or later), learning items due
    within the hour, and one-day steps taken yesterday (interday learning due today)."""
    rows = store.conn.execute("SELECT key FROM items ORDER BY id").fetchall()
    for (key,) in rows:
        roll = rng.random()
        if roll < 0.35:
            due = T0 - rng.randrange(0, 4) * DAY_MS - rng.randrange(HOUR_MS)
            if rng.random() < 0.3:
                due = T0 + rng.randrange(1, 4) * DAY_MS
            store.conn.execute(
                "UPDATE items SET state = 'review', queue = 2, stability = ?, difficulty = ?, due_ms = ?, "
                "last_review_ms = ?, interval = ?, reps = ? WHERE key = ?",
                (rng.uniform(1, 40), rng.uniform(2, 9), due, due - 5 * DAY_MS, 5, rng.randrange(2, 9), key))
        elif roll < 0.42:
            store.conn.execute(
                "UPDATE items SET state = 'learning', queue = 1, step = 0, stability = 2.0, difficulty = 5.0, "
                "due_ms = ?, last_review_ms = ?, interval = -600, reps = 1 WHERE key = ?",
                (T0 + rng.randrange(-20, 40) * MINUTE_MS, T0 - 10 * MINUTE_MS, key))
        elif roll < 0.47:
            store.conn.execute(
                "UPDATE items SET state = 'learning', queue = 1, step = 0, stability = 2.0, difficulty = 5.0, "
                "due_ms = ?, last_review_ms = ?, interval = -86400, reps = 1 WHERE key = ?",
                (T0 - HOUR_MS, T0 - DAY_MS - HOUR_MS, key))
    store.writes += 1


def _run(tmp_path, name: str, keep: bool, seed: int, preset: Preset, siblings: bool = True, **settings) -> list:
    rng = random.Random(seed)
    store, clock = store_at(tmp_path / name)
    decks = _decks(rng, siblings)
    book = Presets({DEFAULT_PRESET: preset}, {})
    session = ReviewSession(store, decks, clock=clock, settings=replace(SETTINGS, **settings), presets=book)
    _prepare(store, rng)
    session._today_cache = None
    session._keep_gathered = keep
    seen = []
    for _ in range(160):
        shown = session.next()
        if shown is None:
            seen.append(None)
            clock.advance(ms=rng.choice([30 * MINUTE_MS, 6 * HOUR_MS, DAY_MS]))
            continue
        seen.append((shown.key, shown.queue, shown.ahead, shown.counts,
                     tuple((r, p.after.due_ms, p.after.state) for r, p in sorted(shown.previews.items()))))
        roll = rng.random()
        if roll < 0.04:
            session.bury()
        elif roll < 0.06:
            session.undo() if session.can_undo() else session.bury()
            session.next()
            session.answer(GOOD)
        else:
            session.answer(rng.choice([AGAIN, HARD, GOOD, GOOD, GOOD, EASY]), duration_ms=4000)
        clock.advance(ms=rng.choice([5_000, 40_000, 3 * MINUTE_MS, 20 * MINUTE_MS]))
    store.close()
    return seen


PRESETS = [
    Preset(),  # interleaved, gathered: studyapp's default
    Preset(new_gather_order="deck", new_sort_order="card-type"),  # Anki's default
    Preset(new_gather_order="deck-random", new_sort_order="random"),
    Preset(new_gather_order="random-notes", new_sort_order="random-note-card-type"),
    Preset(new_gather_order="random-cards", new_sort_order="card-type-random", bury_new=False),
    Preset(new_gather_order="interleaved", new_sort_order="card-type", bury_reviews=False,
           bury_interday_learning=False),
    Preset(new_gather_order="interleaved", new_per_day=3, reviews_per_day=4, learning_steps=(60, 86_400)),
    Preset(new_gather_order="deck", new_per_day=2, reviews_per_day=50, relearning_steps=(),
           learning_steps=(600,)),
]


@pytest.mark.parametrize("index", range(len(PRESETS)))
@pytest.mark.parametrize("seed", [1, 2])
def test_kept_queues_pick_what_a_fresh_gathering_picks(tmp_path, index, seed):
    preset = PRESETS[index]
    assert preset.new_gather_order in GATHER_ORDERS
    kept = _run(tmp_path, "kept", True, seed, preset, new_per_day=8, reviews_per_day=12)
    fresh = _run(tmp_path, "fresh", False, seed, preset, new_per_day=8, reviews_per_day=12)
    assert sum(1 for s in fresh if s is not None) > 100  # the scenario studies, it does not idle
    assert {s[1] for s in fresh if s is not None} >= {"new", "review", "learning"}
    assert kept == fresh


@pytest.mark.parametrize("preset", [Preset(new_sort_order="random"), Preset(new_sort_order="card-type"),
                                    Preset(new_gather_order="random-cards")])
def test_kept_queues_of_items_without_siblings(tmp_path, preset):
    """Every answer here is patched in (no item has a sibling): with a sort after the
    interleaved gathering, the answered item is often not its deck's first, and the items
    gathered before it move back a turn."""
    kept = _run(tmp_path, "kept", True, 3, preset, siblings=False, new_per_day=8, reviews_per_day=12)
    fresh = _run(tmp_path, "fresh", False, 3, preset, siblings=False, new_per_day=8, reviews_per_day=12)
    assert kept == fresh


def test_first_is_the_head_of_the_built_queue():
    """Gathered.first gives what Gathered.at(...).order(1) and its counts give, for every mix of
    list lengths (the first of an interspersed list depends on the lengths alone)."""
    from studyapp.core.scheduler import ItemState
    from studyapp.store.repository import ItemRow

    def rows(prefix: str, n: int, due: int = 0):
        return [ItemRow(i + hash(prefix) % 1000 * 100, f"{prefix}/{i}/main", "d", f"{prefix}{i}", "main", 1, i, True,
                        ItemState(state="learning", due_ms=due + i * 1000)) for i in range(n)]

    for a in range(4):
        for b in range(4):
            for c in range(4):
                for learning in (0, 2):
                    g = Gathered(intraday=rows("l", learning, due=100_000), day_learning=rows("i", a),
                                 reviews=rows("r", b), new=rows("n", c))
                    for now in (0, 100_000, 100_500, 200_000):
                        built = g.at(now, now + 1_500)
                        expected = built.order(1)
                        picked, counts = g.first(now, now + 1_500)
                        assert (picked is None) == (not expected)
                        if expected:
                            assert picked[0].id == expected[0][0].id and picked[1:] == expected[0][1:]
                        assert counts == (built.counts_new, built.counts_learning, built.counts_review)
    assert intersperse([1, 2], [3]) == [1, 3, 2]


def test_an_answer_moves_the_earlier_items_of_its_deck_back_a_turn(tmp_path):
    """Interleaved gathering, sorted by card type: each deck's backward card waits behind every
    forward one, and each answer of a basic card that its deck gathered after it moves that
    deck's later turns back by one, so which deck's backward card comes first depends on the
    answers (the patch puts the new items in that order again)."""
    preset = Preset(new_gather_order="interleaved", new_sort_order="card-type", bury_new=False)
    orders = []
    for keep in (True, False):
        store, clock = store_at(tmp_path / str(keep))
        decks = [deck("a", [card("r", "reverse"), *(card(f"b{i}") for i in range(5))]),
                 deck("b", [card("s", "reverse"), *(card(f"c{i}") for i in range(5))])]
        session = ReviewSession(store, decks, clock=clock, settings=replace(SETTINGS, new_per_day=20),
                                presets=Presets({DEFAULT_PRESET: preset}, {}))
        session._keep_gathered = keep
        shown = []
        for _ in range(14):
            item = session.next()
            if item.queue != "new":
                break
            shown.append(item.key)
            session.answer(GOOD)
            clock.advance(ms=1000)
        orders.append(shown)
        store.close()
    assert len(orders[0]) == 14
    assert orders[0] == orders[1]
