"""The session API: queue order, daily limits, siblings, the actions, undo, cram, and figures."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studyapp.core.anki_ids import anki_card_id
from studyapp.core.anki_random import learning_fuzz_secs
from studyapp.core.clock import HOUR_MS, MINUTE_MS
from studyapp.core.presets import DEFAULT_PRESET, Preset, Presets
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import AGAIN, EASY, GOOD, HARD, DeckLimits
from studyapp.core.session import CRAM_QUEUE, LEARNING_QUEUE, NEW_QUEUE, REVIEW_QUEUE, ReviewSession

from engine_support import BANK_ORDER, SETTINGS, T0, card, deck, dump, store_at, use_scheduling_copy


def session_for(tmp_path, decks, presets=None, **settings):
    store, clock = store_at(tmp_path)
    return (ReviewSession(store, decks, clock=clock, settings=replace(SETTINGS, **settings), presets=presets),
            store, clock)


def next_morning(session, clock, hour: int = 9):
    """Move the clock to ``hour`` on the next study day."""
    days = session.scheduler.days
    clock.set(days.start_ms(days.day_of(clock.now_ms()) + 1) + (hour - 4) * HOUR_MS)


def answer_all(session, clock, rating=GOOD, limit=500) -> list[str]:
    keys = []
    for _ in range(limit):
        shown = session.next()
        if shown is None:
            return keys
        keys.append(shown.key)
        session.answer(rating, duration_ms=1000)
        clock.advance(seconds=30)
    raise AssertionError("the queue did not end")


# ---------------------------------------------------------------- the queue


def test_new_items_come_in_bank_order(tmp_path):
    decks = [deck("b", [card("z1"), card("a2"), card("m3")]), deck("a", [card("q1")])]
    session, _, _ = session_for(tmp_path, decks, BANK_ORDER)
    assert [k for k, _ in session.upcoming()] == ["b/z1/main", "b/a2/main", "b/m3/main", "a/q1/main"]
    assert {q for _, q in session.upcoming()} == {NEW_QUEUE}


def test_learning_due_now_first_then_reviews_mixed_with_new(tmp_path):
    session, store, clock = session_for(tmp_path, [deck("a", 12)], new_per_day=4)
    for _ in range(4):  # four items graduate on Easy and come back as reviews
        session.next()
        session.answer(EASY)
    next_morning(session, clock)
    clock.advance(days=30)
    fresh = ReviewSession(store, [deck("a", 12)], clock=clock, settings=replace(SETTINGS, new_per_day=4))
    first = fresh.next()
    assert first.queue == REVIEW_QUEUE
    fresh.answer(AGAIN)  # now relearning, due in 10 minutes plus Anki's learning fuzz (at most 2.5)
    clock.advance(minutes=13)
    queues = [q for _, q in fresh.upcoming()]
    assert queues[0] == LEARNING_QUEUE
    # Anki's default "mix with reviews": four new spread evenly through three reviews.
    assert queues[1:] == [NEW_QUEUE, REVIEW_QUEUE, NEW_QUEUE, REVIEW_QUEUE, NEW_QUEUE, REVIEW_QUEUE, NEW_QUEUE]
    assert fresh.counts().review == 3 and fresh.counts().learning == 1 and fresh.counts().new == 4


def test_learning_items_are_shown_early_only_when_nothing_else_is_left(tmp_path):
    session, _, clock = session_for(tmp_path, [deck("a", 2)], BANK_ORDER)
    keys = [session.next().key]
    session.answer(GOOD)  # due in 10 minutes
    keys.append(session.next().key)
    assert keys == ["a/c000/main", "a/c001/main"]
    session.answer(GOOD)
    clock.advance(minutes=1)
    early = session.next()
    assert early.key == "a/c000/main" and early.queue == LEARNING_QUEUE
    assert early.ahead  # shown before its step is over: the screen says so


def test_daily_new_limit_overall_and_per_deck(tmp_path):
    decks = [deck("a", 10), deck("b", 10)]
    session, store, clock = session_for(tmp_path, decks, BANK_ORDER, new_per_day=5,
                                        deck_limits={"a": DeckLimits(new_per_day=2)})
    introduced = [k for k in answer_all(session, clock, rating=EASY)]
    assert [k.split("/")[0] for k in introduced] == ["a", "a", "b", "b", "b"]
    next_morning(session, clock)
    more = answer_all(session, clock, rating=EASY)
    assert [k.split("/")[0] for k in more if k not in introduced] == ["a", "a", "b", "b", "b"]


def test_daily_review_limit_overall_and_per_deck(tmp_path):
    decks = [deck("a", 6), deck("b", 6)]
    session, store, clock = session_for(tmp_path, decks, new_per_day=100, reviews_per_day=4,
                                        deck_limits={"b": DeckLimits(reviews_per_day=1)})
    answer_all(session, clock, rating=EASY)
    clock.advance(days=60)
    session = ReviewSession(store, decks, clock=clock, settings=session.settings)
    reviewed = answer_all(session, clock, rating=GOOD)
    by_deck = [k.split("/")[0] for k in reviewed]
    assert by_deck.count("b") == 1 and len(by_deck) == 4


def test_siblings_wait_for_the_next_day(tmp_path):
    decks = [deck("a", [card("r", "reverse"), card("z", "cloze", clozes=3), card("p")])]
    session, store, clock = session_for(tmp_path, decks, BANK_ORDER)
    upcoming = [k for k, _ in session.upcoming()]
    assert upcoming == ["a/r/forward", "a/z/c1", "a/p/main"]
    first_day = answer_all(session, clock, rating=EASY)
    assert sorted(first_day) == sorted(upcoming)
    next_morning(session, clock)
    second_day = answer_all(session, clock, rating=EASY)
    assert "a/r/backward" in second_day and "a/z/c2" in second_day and "a/z/c3" not in second_day


def test_the_four_previews_are_computed_once_and_committed(tmp_path):
    session, store, clock = session_for(tmp_path, [deck("a", 3)])
    shown = session.next()
    clock.advance(minutes=7)  # the learner thinks for a while
    assert session.next() is shown
    applied = session.answer(GOOD, duration_ms=420_000)
    assert applied == shown.previews[GOOD]
    assert store.item(shown.key).state == shown.previews[GOOD].after
    # The 10-minute step plus Anki's learning fuzz for this card id and review count.
    fuzzed = learning_fuzz_secs(anki_card_id(shown.key) + 0, 600)
    assert 600 <= fuzzed < 750
    assert store.item(shown.key).state.due_ms == T0 + fuzzed * 1000


def test_a_review_shows_exactly_the_interval_it_applies(tmp_path):
    session, store, clock = session_for(tmp_path, [deck("a", 8)])
    answer_all(session, clock, rating=EASY)
    for day in range(40):
        next_morning(session, clock)
        while (shown := session.next()) is not None:
            rating = (AGAIN, HARD, GOOD, EASY)[(day + shown.state.reps) % 4]
            labels = {r: p.label for r, p in shown.previews.items()}
            applied = session.answer(rating)
            assert applied.label == labels[rating]
            assert store.item(shown.key).state == applied.after
            clock.advance(minutes=11)


# ---------------------------------------------------------------- actions


def test_bury_hides_until_the_rollover(tmp_path):
    session, _, clock = session_for(tmp_path, [deck("a", 2)])
    buried = session.next().key
    session.bury()
    assert buried not in [k for k, _ in session.upcoming()]
    days = session.scheduler.days
    clock.set(days.end_ms(days.day_of(clock.now_ms())) - MINUTE_MS)  # 03:59 the next night
    assert buried not in [k for k, _ in session.upcoming()]
    clock.advance(minutes=2)
    assert buried in [k for k, _ in session.upcoming()]


def test_suspend_and_unsuspend(tmp_path):
    session, store, _ = session_for(tmp_path, [deck("a", 2)])
    key = session.next().key
    session.suspend()
    assert store.item(key).suspended
    assert key not in [k for k, _ in session.upcoming()]
    session.unsuspend(key)
    assert key in [k for k, _ in session.upcoming()]


def test_flag_with_a_note(tmp_path):
    session, store, _ = session_for(tmp_path, [deck("a", 2)])
    shown = session.next()
    session.flag("  answer looks wrong  ")
    assert session.next().flag_note == "answer looks wrong"
    assert [info.key for info in session.flagged()] == [shown.key]
    assert store.item(shown.key).flag_note == "answer looks wrong"
    session.flag("", key=shown.key)
    assert session.flagged() == []


def test_eight_lapses_make_a_leech_that_is_listed(tmp_path):
    session, store, clock = session_for(tmp_path, [deck("a", 1)])
    session.next()
    session.answer(EASY)
    for lapse in range(8):
        next_morning(session, clock)
        clock.advance(days=40)
        shown = session.next()
        assert shown.queue == REVIEW_QUEUE
        session.answer(AGAIN)
        clock.advance(minutes=10)
        session.next()
        session.answer(GOOD)
    leeches = session.leeches()
    assert [info.key for info in leeches] == ["a/c000/main"]
    assert leeches[0].row.state.lapses == 8 and leeches[0].row.state.leech


def test_undo_goes_back_to_the_start_exactly(tmp_path):
    decks = [deck("a", [card("r", "reverse"), card("p"), card("q"), card("s")])]
    session, store, clock = session_for(tmp_path, decks)
    start = dump(store)
    with pytest.raises(StudyappError, match="nothing to undo"):
        session.undo()
    states = []
    shown = session.next()
    states.append((dump(store), shown.key))
    session.answer(GOOD, duration_ms=3000)
    clock.advance(minutes=1)
    shown = session.next()
    states.append((dump(store), shown.key))
    session.bury()
    shown = session.next()
    states.append((dump(store), shown.key))
    session.flag("check this")
    states.append((dump(store), shown.key))
    session.suspend()
    shown = session.next()
    states.append((dump(store), shown.key))
    session.answer(AGAIN, duration_ms=500)
    clock.advance(minutes=5)
    while states:
        expected, key = states.pop()
        again = session.undo()
        assert dump(store) == expected
        if again is not None:
            assert again.key == key
    assert dump(store) == start
    assert not session.can_undo()
    assert session.summary().reviewed == 0


def test_undo_shows_the_item_again_with_its_state(tmp_path):
    session, store, clock = session_for(tmp_path, [deck("a", 3)])
    first = session.next()
    session.answer(EASY)
    again = session.undo()
    assert again.key == first.key and again.state == first.state
    assert session.next() is again
    assert store.history(first.item_id) == []


# ---------------------------------------------------------------- cram


def test_cram_studies_ahead_without_changing_the_schedule(tmp_path):
    decks = [deck("a", 4)]
    session, store, clock = session_for(tmp_path, decks)
    answer_all(session, clock, rating=EASY)  # all four now due in days
    assert session.next() is None
    items_before = dump(store)[0]
    cram = ReviewSession(store, decks, clock=clock, settings=session.settings, cram=True)
    seen = []
    while (shown := cram.next()) is not None:
        assert shown.queue == CRAM_QUEUE
        seen.append(shown.key)
        assert cram.answer(AGAIN if len(seen) == 1 else GOOD) is None
    assert len(seen) == 5 and seen.count(seen[0]) == 2  # the failed one came back once
    assert dump(store)[0] == items_before
    kinds = [row[2] for row in dump(store)[1]]
    assert kinds.count("cram") == 5
    assert store.rebuild_states() == {k: v for k, v in store.stored_states().items() if v.reps}
    cram.undo()
    assert [row[2] for row in dump(store)[1]].count("cram") == 4


# ---------------------------------------------------------------- when next, summaries, figures


def test_next_due_time(tmp_path):
    session, _, clock = session_for(tmp_path, [deck("a", 1)])
    session.next()
    session.answer(GOOD)
    clock.advance(minutes=30)
    shown = session.next()
    session.answer(GOOD)  # graduates: due in days
    assert session.next() is None
    due = session.next_due_time()
    days = session.scheduler.days
    assert days.day_of(due) > days.day_of(clock.now_ms())
    assert due == days.start_ms(days.day_of(due))  # available from the rollover on that day
    # The time is the graduated item's own due day, not some other day.
    assert days.day_of(due) == days.day_of(session.store.item(shown.key).state.due_ms)


def test_next_due_time_is_tomorrow_when_only_new_items_wait(tmp_path):
    session, _, clock = session_for(tmp_path, [deck("a", 5)], new_per_day=1)
    session.next()
    session.answer(EASY)
    assert session.next() is None
    days = session.scheduler.days
    assert session.next_due_time() == days.start_ms(days.day_of(clock.now_ms()) + 1)


def test_summary_counts_this_session(tmp_path):
    session, _, clock = session_for(tmp_path, [deck("a", 4)])
    for rating in (AGAIN, GOOD, GOOD, HARD):
        session.next()
        session.answer(rating, duration_ms=2000)
    summary = session.summary()
    assert summary.reviewed == 4 and summary.again == 1 and summary.again_share == 0.25
    assert summary.time_ms == 8000 and summary.by_rating[GOOD] == 2
    assert summary.next_due_ms is not None


def test_figures_for_the_stats_screen(tmp_path):
    decks = [deck("a", 6), deck("b", 3)]
    session, store, clock = session_for(tmp_path, decks)
    answer_all(session, clock, rating=EASY)
    forecast = session.forecast(30)
    assert len(forecast) == 30 and sum(d.count for d in forecast) == 9
    assert forecast[0].count == 0
    per_day = session.reviews_per_day(7)
    assert len(per_day) == 7 and per_day[-1].count == 9 and per_day[-1].again == 0
    clock.advance(days=20)
    session = ReviewSession(store, decks, clock=clock, settings=session.settings)
    lapsed = session.next().key
    session.answer(AGAIN)
    actual, target = session.retention(30)
    assert actual == 0.0 and target == 0.9
    progress = {p.deck_id: p for p in session.deck_progress()}
    deck_id = lapsed.split("/")[0]
    sizes = {"a": 6, "b": 3}
    for p in progress.values():
        assert p.items == sizes[p.deck_id] and p.new == 0
        assert p.learning == (1 if p.deck_id == deck_id else 0)
        assert p.review == sizes[p.deck_id] - p.learning
        assert p.reviews == sizes[p.deck_id] + (1 if p.deck_id == deck_id else 0)
    info = session.item_info("a/c000/main")
    assert [e.rating for e in info.history][0] == EASY and info.retrievability is not None
    # Without the retention spans (the home screen): every count the same, no retention.
    from dataclasses import replace

    without = {p.deck_id: p for p in session.deck_progress(spans=False)}
    assert progress[deck_id].true_retention and progress[deck_id].true_retention["year"].total > 0
    assert without == {d: replace(p, retention=None, true_retention={}) for d, p in progress.items()}


def test_unknown_deck_ids_are_a_usage_error(tmp_path):
    store, clock = store_at(tmp_path)
    with pytest.raises(StudyappError) as caught:
        ReviewSession(store, [deck("a", 1)], clock=clock, deck_ids=["nope"])
    assert caught.value.code == "usage" and "known decks: a" in caught.value.message


def test_answering_with_nothing_shown_is_refused(tmp_path):
    session, _, _ = session_for(tmp_path, [deck("a", 1)])
    with pytest.raises(StudyappError, match="call next"):
        session.answer(GOOD)
    session.next()
    with pytest.raises(StudyappError, match="not a grade"):
        session.answer(0)


def test_two_sessions_on_one_store_see_each_others_answers(tmp_path):
    decks = [deck("a", 10)]
    home, store, clock = session_for(tmp_path, decks, new_per_day=3)
    other = ReviewSession(store, decks, clock=clock, settings=home.settings)
    assert home.counts().new == 3 and other.counts().new == 3
    for _ in range(2):
        home.next()
        home.answer(EASY)
    assert other.counts().new == 1
    assert len([k for k, q in other.upcoming() if q == NEW_QUEUE]) == 1
    other.next()
    other.answer(EASY)
    assert home.next() is None and home.counts().new == 0


def test_an_item_left_on_screen_for_days_keeps_its_buttons_and_the_counts_stay_right(tmp_path):
    decks = [deck("a", 4)]
    session, store, clock = session_for(tmp_path, decks)
    shown = session.next()
    clock.advance(days=11)  # the learner went away with the card on screen (Easy: 8.3 days, fuzzed 7 to 10)
    applied = session.answer(EASY)
    assert applied == shown.previews[EASY]
    assert store.item(shown.key).state.due_ms <= clock.now_ms()  # already due again
    fresh = ReviewSession(store, decks, clock=clock, settings=session.settings)
    assert session.counts() == fresh.counts() and session.counts().review == 1
    assert session.upcoming() == fresh.upcoming()


def _with_reviews_due(store, clock, seed: int, share: float = 0.8) -> None:
    """Most items of the store made reviews due over the last month, a few due later today."""
    import random

    rng = random.Random(seed)
    now = clock.now_ms()
    with store.guarded():
        for (item_id,) in store.conn.execute("SELECT id FROM items ORDER BY id").fetchall():
            if rng.random() > share:
                continue
            due = now - rng.randrange(0, 30) * 86_400_000 + rng.randrange(-3, 2) * HOUR_MS
            store.conn.execute("UPDATE items SET queue = 2, state = 'review', stability = ?, difficulty = 5, "
                               "due_ms = ?, last_review_ms = ?, interval = ?, reps = 3 WHERE id = ?",
                               (rng.uniform(2, 40), due, due - 10 * 86_400_000, 10, item_id))


@pytest.mark.parametrize("reviews_per_day", [9999, 7])
def test_the_days_first_gathering_reads_the_due_reviews_it_will_walk_in_one_read(tmp_path, monkeypatch,
                                                                                 reviews_per_day):
    """The walk of the day's reviews goes on to the overall limit: the first read takes as many as the
    day's count says are due (up to the limit and a margin), so that it is not read a second time from
    the start, and a read of every one of them takes the full rows at once. The queue is the one a
    session reading them a few at a time builds."""
    from studyapp.core import session as session_module

    decks = [deck("a", 60), deck("b", 50)]
    _, store, clock = session_for(tmp_path, decks)
    _with_reviews_due(store, clock, seed=4)
    settings = replace(SETTINGS, reviews_per_day=reviews_per_day, new_per_day=0)
    monkeypatch.setattr(session_module, "_FIRST_REVIEW_ROWS", 16)  # fewer than are due
    reads: list[tuple[int, bool]] = []

    def count_reads(of_store) -> None:
        reviews_due = of_store.reviews_due

        def counted(deck_ids, before_ms, today, limit, *args, **kwargs):
            reads.append((limit, kwargs.get("whole", False)))
            return reviews_due(deck_ids, before_ms, today, limit, *args, **kwargs)

        monkeypatch.setattr(of_store, "reviews_due", counted)

    count_reads(store)
    session = ReviewSession(store, decks, clock=clock, settings=settings)
    first = session.next()
    due = sum(session._today(session._today_cache.day_start).review_due.values())
    assert due > 60
    if reviews_per_day > due:
        assert reads == [(due + 1, True)]
    else:  # the limit and the margin: not all of them, and not in full rows
        assert reads == [(reviews_per_day + 16 + 1, False)]
    shown = answer_all(session, clock)
    assert shown[0] == first.key

    # The same day, the reviews read 16 at a time (each read from the start, twice as many again).
    reads.clear()
    _, store_b, clock_b = session_for(tmp_path / "b", decks)
    _with_reviews_due(store_b, clock_b, seed=4)
    count_reads(store_b)
    def a_few_at_a_time(self, cached):
        if cached.reviews is None:
            cached.reviews = self._reviews_of(cached, self.deck_ids, 16)
        return cached.reviews

    monkeypatch.setattr(ReviewSession, "_reviews", a_few_at_a_time)
    step_by_step = ReviewSession(store_b, decks, clock=clock_b, settings=settings)
    assert answer_all(step_by_step, clock_b) == shown
    assert not any(whole for _, whole in reads)
    assert len(reads) > 2 if reviews_per_day > due else len(reads) == 1  # the walk read past its first rows
    assert len(shown) == min(due, reviews_per_day)


def test_each_decks_count_reads_its_own_reviews_and_counts_as_the_queue_of_every_deck_would(tmp_path, monkeypatch):
    """The deck list's counts (deck_progress) read each deck's own due reviews: the same rows in the same
    order as that deck's in the queue of every deck, which they used to walk. Counted both ways, with a big
    deck whose due reviews outnumber the first read, small decks with a few, and again after answers."""
    import random

    from studyapp.core import session as session_module

    decks = [deck("big", 400), deck("small", 6), deck("tiny", 3), deck("none", 4)]
    session, store, clock = session_for(tmp_path, decks)
    rng = random.Random(15)
    now = clock.now_ms()
    with store.guarded():
        rows = store.conn.execute("SELECT id, deck_id FROM items ORDER BY id").fetchall()
        for item_id, deck_id in rows:
            if deck_id == "none" or rng.random() < 0.15:
                continue
            due = now - rng.randrange(0, 30) * 86_400_000 + rng.randrange(-3, 2) * HOUR_MS
            store.conn.execute("UPDATE items SET queue = 2, state = 'review', stability = ?, difficulty = 5, "
                               "due_ms = ?, last_review_ms = ?, interval = ?, reps = 3 WHERE id = ?",
                               (rng.uniform(2, 40), due, due - 10 * 86_400_000, 10, item_id))
    monkeypatch.setattr(session_module, "_FIRST_REVIEW_ROWS", 16)  # the big deck's reviews take several reads
    session = ReviewSession(store, decks, clock=clock, settings=session.settings)
    reads: list[tuple[str, ...]] = []
    reviews_due = store.reviews_due

    def counted(deck_ids, *args, **kwargs):
        reads.append(tuple(deck_ids))
        return reviews_due(deck_ids, *args, **kwargs)

    monkeypatch.setattr(store, "reviews_due", counted)

    def through_every_decks_queue(self, cached, deck_id):
        return (row for row in self._reviews(cached) if row.deck_id == deck_id)

    def both() -> tuple[list, list]:
        fast = session.deck_progress(spans=False)
        session._today_cache = None
        with monkeypatch.context() as patch:
            patch.setattr(ReviewSession, "_deck_reviews", through_every_decks_queue)
            walked = session.deck_progress(spans=False)
        session._today_cache = None
        return fast, walked

    fast, walked = both()
    assert fast == walked
    assert [(p.deck_id, p.due > 0) for p in fast] == [("big", True), ("small", True), ("tiny", True), ("none", False)]
    assert ("small",) in reads and ("tiny",) in reads
    assert all(len(p) == 1 for p in reads[:len(decks)])  # the counts read each deck on its own
    for _ in range(5):  # answers patch today's queues in memory: the counts must follow them
        session.next()
        session.answer(GOOD, duration_ms=1000)
        clock.advance(seconds=20)
        assert session.deck_progress(spans=False) == both()[1]


def test_the_shown_item_is_the_dataclass_its_fields_say(tmp_path):
    """A pick builds ShownItem without its __init__ (a few microseconds a pick): it must still be
    exactly the object the constructor gives, every field set, equal and replaceable as one."""
    from dataclasses import fields

    from studyapp.core.session import ShownItem

    session, _, _ = session_for(tmp_path, [deck("a", 3)])
    shown = session.next()
    assert set(vars(shown)) == {f.name for f in fields(ShownItem)}
    assert shown == ShownItem(**{f.name: getattr(shown, f.name) for f in fields(ShownItem)})
    assert replace(shown, flag_note="x").flag_note == "x" and shown.flag_note is None
    with pytest.raises(AttributeError):
        shown.key = "other"


def test_every_shown_item_finds_its_fuzz_numbers_drawn_with_others(tmp_path, monkeypatch):
    """The day's queues draw the fuzz numbers of their first items when gathered, and of the next
    ones together whenever a pick reaches an item without them (learning items answered today
    among them): no shown item draws its own (some 45 us each, against a few in a batch).
    The Python copy's concern: the compiled one (core/_speedups.c) draws each when asked."""
    from studyapp.core import anki_random

    use_scheduling_copy(monkeypatch, "python")  # every fuzz number from the Python blocks

    store, clock = store_at(tmp_path)
    plenty = replace(SETTINGS, new_per_day=900, reviews_per_day=9999)
    session = ReviewSession(store, [deck("a", 900)], clock=clock, settings=plenty)
    anki_random._FIRST_BLOCKS.clear()
    alone = []
    block = anki_random.chacha_block
    monkeypatch.setattr(anki_random, "chacha_block", lambda *args, **kw: alone.append(args) or block(*args, **kw))
    shown = 0
    for n in range(700):
        item = session.next()
        if item is None:
            clock.advance(minutes=10)
            continue
        assert len(item.previews) == 4
        session.answer(AGAIN if n % 5 == 0 else GOOD, duration_ms=3000)
        shown += 1
        clock.advance(seconds=20)
    assert shown > 600 and alone == []


def test_a_queue_knows_its_next_items_card_ids_once_gathered(tmp_path):
    """A pick seeds the fuzz of its item with the item's Anki card id; the gathering works out
    the ids of each queue's next items, and a pick past them works out the following ones."""
    from studyapp.core import anki_ids, session as session_module

    anki_ids.forget()
    session, _, clock = session_for(tmp_path, [deck("a", 300)], BANK_ORDER, new_per_day=300)
    first = session.next()
    upcoming = [key for key, _ in session.upcoming()]
    primed = session_module._PRIMED_FIRST
    assert all(anki_ids.known(key) for key in upcoming[:primed])
    assert not any(anki_ids.known(key) for key in upcoming[primed + 1:])  # no more than the next ones
    assert session.scheduler.primed(first.key, first.state)
    assert not session.scheduler.primed(upcoming[primed + 1], first.state)
    for _ in range(primed + 2):  # past the ids worked out first: the pick works out the next batch
        session.answer(GOOD)
        clock.advance(seconds=5)
        session.next()
    assert all(anki_ids.known(key) for key in upcoming[primed:primed + 100])


def test_with_fuzz_off_no_card_id_is_worked_out(tmp_path):
    from studyapp.core import anki_ids

    anki_ids.forget()
    session, _, _ = session_for(tmp_path, [deck("a", 30)], BANK_ORDER, fuzz=False)
    shown = session.next()
    session.answer(GOOD)
    assert not anki_ids.known(shown.key)
    assert session.scheduler.primed("a/c029/main", shown.state)  # nothing to wait for


def test_study_days_left_for_later_are_kept_when_asked_and_the_session_shows_the_same(tmp_path, monkeypatch):
    """The terminal app's first pick leaves the 1,024 study days ahead to keep_study_days, called once
    its card is out: the pick works out only the days its own previews need, shows what a session
    that kept them shows, and the days are all kept once asked for; another day's first gathering
    keeps its own again."""
    from studyapp.core import scheduler as scheduler_module
    from studyapp.core.session import _KEPT_DAYS

    decks = [deck("a", 8)]
    session, store, clock = session_for(tmp_path, decks, fuzz=True)
    answer_all(session, clock, rating=GOOD)
    next_morning(session, clock)
    next_morning(session, clock)

    def first_pick(**options):
        monkeypatch.setattr(scheduler_module, "_SHARED_WINDOWS", {})  # as in a new process
        opened = ReviewSession(store, decks, clock=clock, settings=session.settings, **options)
        return opened, opened.next()

    kept, shown = first_pick()
    later, shown_later = first_pick(study_days_later=True)
    assert shown_later.key == shown.key and shown_later.previews == shown.previews
    days = later.scheduler.days
    today = days.day_of(clock.now_ms())
    ahead = range(today, today + _KEPT_DAYS)
    assert all(day in kept.scheduler.days._windows for day in ahead)
    assert 0 < sum(day in days._windows for day in ahead) < _KEPT_DAYS // 4
    later.keep_study_days()
    assert all(day in days._windows for day in ahead)
    later.answer(GOOD)
    next_morning(later, clock)
    monkeypatch.setattr(scheduler_module, "_SHARED_WINDOWS", {})
    later.scheduler.days._windows.clear()  # the session's StudyDays holds the dict it was made with
    assert later.next() is not None
    assert all(day in days._windows for day in range(today + 1, today + 1 + _KEPT_DAYS))
    store.close()
