"""Issue 13 through the session API: sibling burying (Anki's three options, related cards), new-card
order, deck option presets (stored, validated, per deck), counts, limits and custom study."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest

from studyapp.core.clock import DAY_MS, HOUR_MS, MINUTE_MS
from studyapp.core.models import Card
from studyapp.core.presets import DEFAULT_PRESET, Preset, Presets
from studyapp.core.problems import StudyappError
from studyapp.core.queue import CustomStudy, LimitReached, group_keys, intersperse, sibling_buried_by_answer
from studyapp.core.scheduler import AGAIN, EASY, GOOD
from studyapp.core.session import LEARNING_QUEUE, NEW_QUEUE, REVIEW_QUEUE, ReviewSession
from studyapp.store import open_store
from studyapp.store import schema

from engine_support import SETTINGS, T0, card, deck, location, store_at


def presets(**options) -> Presets:
    return Presets({DEFAULT_PRESET: Preset(**{"new_gather_order": "deck", "new_sort_order": "gathered", **options})}, {})


def session(store, clock, decks, preset_book=None, **settings):
    return ReviewSession(store, decks, clock=clock, settings=replace(SETTINGS, **settings),
                         presets=preset_book or presets())


def keys(s) -> list[str]:
    return [k for k, _ in s.upcoming()]


def make_state(store, key, state, *, due_ms, last_review_ms, step=None):
    """Put an item straight into a state (as if studied before), to set up a day's queue."""
    queue = 2 if state == "review" else 1
    store.conn.execute(
        "UPDATE items SET state = ?, queue = ?, step = ?, stability = 5.0, difficulty = 5.0, due_ms = ?, "
        "last_review_ms = ?, interval = ?, reps = 3 WHERE key = ?",
        (state, queue, step, due_ms, last_review_ms, 5 if state == "review" else -86400, key))
    store.writes += 1


# ---------------------------------------------------------------- siblings


@pytest.mark.parametrize("bury_new, expected", [(True, ["a/r/forward", "a/z/c1", "a/p/main"]),
                                                (False, ["a/r/forward", "a/r/backward", "a/z/c1", "a/z/c2",
                                                         "a/p/main"])])
def test_new_siblings_are_buried_unless_the_option_is_off(tmp_path, bury_new, expected):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r", "reverse"), card("z", "cloze", clozes=2), card("p")])]
    s = session(store, clock, decks, presets(bury_new=bury_new))
    assert keys(s) == expected
    assert s.counts().new == len(expected)  # Anki counts what it gathered: buried siblings are not counted


@pytest.mark.parametrize("bury_reviews, expected", [(True, 1), (False, 2)])
def test_review_siblings_are_buried_unless_the_option_is_off(tmp_path, bury_reviews, expected):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r", "reverse")])]
    s = session(store, clock, decks, presets(bury_reviews=bury_reviews))
    for key in ("a/r/forward", "a/r/backward"):
        make_state(store, key, "review", due_ms=T0 - DAY_MS, last_review_ms=T0 - 6 * DAY_MS)
    s._today_cache = None
    assert [q for _, q in s.upcoming()] == [REVIEW_QUEUE] * expected
    assert s.counts().review == expected


@pytest.mark.parametrize("bury_interday, expected", [(True, 1), (False, 2)])
def test_interday_learning_siblings_are_buried_unless_the_option_is_off(tmp_path, bury_interday, expected):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r", "reverse")])]
    s = session(store, clock, decks, presets(bury_interday_learning=bury_interday))
    for key in ("a/r/forward", "a/r/backward"):  # a one-day step taken yesterday: due today
        make_state(store, key, "learning", due_ms=T0 - HOUR_MS, last_review_ms=T0 - DAY_MS - HOUR_MS, step=0)
    s._today_cache = None
    assert len(s.upcoming()) == expected
    assert s.counts().learning == expected


def test_intraday_learning_is_never_buried_but_buries_its_new_sibling(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r", "reverse")])]
    s = session(store, clock, decks)
    make_state(store, "a/r/forward", "learning", due_ms=T0 - MINUTE_MS, last_review_ms=T0 - 11 * MINUTE_MS, step=1)
    s._today_cache = None
    assert s.upcoming() == [("a/r/forward", LEARNING_QUEUE)]
    assert (s.counts().learning, s.counts().new) == (1, 0)


def test_answering_buries_the_siblings_for_the_rest_of_the_day(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r", "reverse"), card("p")])]
    s = session(store, clock, decks)
    assert s.next().key == "a/r/forward"
    s.answer(EASY)  # out of learning at once: nothing of the card is seen any more today
    assert keys(s) == ["a/p/main"]
    s.next()
    s.answer(EASY)
    assert s.next() is None
    # A fresh session the same day (a restart) still holds the sibling back.
    assert keys(session(store, clock, decks)) == []
    clock.advance(days=1)
    assert "a/r/backward" in keys(session(store, clock, decks))


def test_what_an_answer_buries_depends_on_the_queue_it_came_from():
    from studyapp.core.queue import BuryMode

    everything = BuryMode(True, True, True)
    assert sibling_buried_by_answer(NEW_QUEUE, "new", everything)
    assert not sibling_buried_by_answer(REVIEW_QUEUE, "new", everything)  # reviews were gathered before new
    assert not sibling_buried_by_answer("interday", "new", everything)
    assert sibling_buried_by_answer(REVIEW_QUEUE, "review", everything)
    assert not sibling_buried_by_answer("interday", "review", everything)
    assert sibling_buried_by_answer("interday", "learning", everything)
    assert sibling_buried_by_answer("interday", "relearning", everything)
    assert not sibling_buried_by_answer(NEW_QUEUE, "review", BuryMode(False, True, True))


def test_related_cards_are_siblings(tmp_path):
    cards = [card("a"), replace(card("b"), related=("a",)), card("c"), replace(card("d"), related=("c", "nope")),
             replace(card("e"), related=("d",))]
    groups = group_keys([deck("x", cards)])
    assert groups[("x", "a")] == groups[("x", "b")] == "x/a"
    assert groups[("x", "c")] == groups[("x", "d")] == groups[("x", "e")] == "x/c"  # transitive
    store, clock = store_at(tmp_path)
    s = session(store, clock, [deck("x", cards)])
    assert keys(s) == ["x/a/main", "x/c/main"]
    s.next()
    s.answer(EASY)
    assert keys(s) == ["x/c/main"]  # b stays buried today: it tests the same fact as a
    clock.advance(days=1)
    assert "x/b/main" in keys(session(store, clock, [deck("x", cards)]))


# ---------------------------------------------------------------- new-card order


def test_default_order_interleaves_decks_random_within_each_stable_across_restarts(tmp_path):
    decks = [deck("x", 6), deck("y", 6)]
    store, clock = store_at(tmp_path)
    s = ReviewSession(store, decks, clock=clock, settings=SETTINGS)  # the stored Default preset
    order = keys(s)
    assert [k.split("/")[0] for k in order] == ["x", "y"] * 6
    within_x = [k for k in order if k.startswith("x/")]
    assert sorted(within_x) == [f"x/c{i:03d}/main" for i in range(6)]
    assert within_x != sorted(within_x)  # random within the deck (for this profile's seed)
    # Answering keeps taking turns (the queue is rebuilt after each answer).
    shown = []
    for _ in range(4):
        item = s.next()
        shown.append(item.key)
        s.answer(EASY)
    assert shown == order[:4]
    store.close()
    store, clock = store_at(tmp_path)
    assert keys(ReviewSession(store, decks, clock=clock, settings=SETTINGS)) == order[4:]


def test_random_order_is_seeded_per_profile(tmp_path):
    decks = [deck("x", 30)]
    orders = []
    for profile in ("ann", "bob"):
        store = open_store(location(tmp_path, profile), clock=store_at(tmp_path / profile)[1])
        orders.append(keys(ReviewSession(store, decks, clock=store.clock, settings=replace(SETTINGS, new_per_day=100),
                                         presets=presets(
            new_gather_order="random-cards"))))
        store.close()
    assert sorted(orders[0]) == sorted(orders[1])
    assert orders[0] != orders[1]


def test_anki_default_order_gathers_by_deck_then_sorts_by_card_type(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", [card("r1", "reverse"), card("z", "cloze", clozes=2), card("r2", "reverse")])]
    s = session(store, clock, decks, presets(new_gather_order="deck", new_sort_order="card-type", bury_new=False))
    assert keys(s) == ["a/r1/forward", "a/z/c1", "a/r2/forward", "a/r1/backward", "a/z/c2", "a/r2/backward"]


@pytest.mark.parametrize("gather", ["deck-random", "random-notes", "random-cards"])
def test_random_gather_orders_keep_the_limit_and_every_item(tmp_path, gather):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 10), deck("b", 10)]
    s = session(store, clock, decks, presets(new_gather_order=gather), new_per_day=100)
    order = keys(s)
    assert sorted(order) == sorted(f"{d}/c{i:03d}/main" for d in "ab" for i in range(10))
    assert order != sorted(order)
    if gather == "deck-random":
        assert [k[0] for k in order] == ["a"] * 10 + ["b"] * 10
    limited = session(store, clock, decks, presets(new_gather_order=gather), new_per_day=7)
    assert len(keys(limited)) == 7 and keys(limited) == [k for k in order if k in keys(limited)]


def test_intersperse_spreads_evenly_as_anki():
    assert intersperse([1, 2, 3], ["a", "b", "c", "d"]) == ["a", 1, "b", 2, "c", 3, "d"]
    assert intersperse([1, 2, 3, 4, 5], ["a"]) == [1, 2, 3, "a", 4, 5]
    assert intersperse([], ["a"]) == ["a"]


@pytest.mark.parametrize("where", ["preset", "settings"])
def test_the_learn_ahead_limit_is_an_option(tmp_path, where):
    """A learning item whose step ends within the learn-ahead limit is shown early, marked so,
    when nothing else is left (and counted as learning, as Anki counts it); past the limit it
    waits. The limit is the deck's preset's, else the profile's setting."""
    for minutes, early in ((20, True), (5, False)):
        store, clock = store_at(tmp_path / f"{where}{minutes}")
        options = {"preset": ({"learn_ahead_minutes": minutes}, {}), "settings": ({}, {"learn_ahead_minutes": minutes})}
        book, settings = options[where]
        s = session(store, clock, [deck("a", 1)], presets(**book), fuzz=False, **settings)
        s.next()
        assert s.answer(GOOD).after.due_ms == T0 + 10 * MINUTE_MS  # Good from new: the 10-minute step
        clock.advance(minutes=1)
        shown = s.next()
        if early:
            assert shown.key == "a/c000/main" and shown.ahead and shown.queue == LEARNING_QUEUE
            assert s.counts().learning == 1
        else:
            assert shown is None and s.counts().learning == 0
            assert s.next_due_time() == T0 + 10 * MINUTE_MS
            clock.advance(minutes=5)  # four minutes before the step ends: within five
            assert s.next().ahead and s.counts().learning == 1
        clock.advance(minutes=10)
        s._current = None
        assert s.next().ahead is False  # due now: not early any more
        store.close()


# ---------------------------------------------------------------- presets


@pytest.mark.parametrize("options, words", [
    ({"new_per_day": -1}, "new per day -1"),
    ({"reviews_per_day": 1_000_001}, "reviews per day"),
    ({"learning_steps": (0,)}, "learning steps [0]"),
    ({"relearning_steps": (60, 365 * 86400 + 1)}, "relearning steps"),
    ({"leech_lapses": 0}, "leech threshold 0"),
    ({"leech_lapses": 100}, "leech threshold 100"),
    ({"leech_action": "delete"}, "leech action 'delete'"),
    ({"maximum_interval": 0}, "maximum interval 0"),
    ({"maximum_interval": 36501}, "maximum interval 36501"),
    ({"desired_retention": 0.69}, "desired retention 0.69"),
    ({"desired_retention": 1.0}, "desired retention 1.0"),
    ({"bury_new": "yes"}, "bury new must be true or false"),
    ({"new_gather_order": "shuffle"}, "gather order 'shuffle'"),
    ({"new_sort_order": "alpha"}, "sort order 'alpha'"),
    ({"learn_ahead_minutes": -5}, "learn ahead minutes -5"),
    ({"name": ""}, "preset name ''"),
    ({"name": " padded"}, "preset name ' padded'"),
])
def test_every_out_of_range_option_is_a_clear_error(options, words):
    with pytest.raises(StudyappError) as error:
        Preset(**{"name": "Mine", **options})
    assert words in error.value.message


def test_boundary_values_are_accepted():
    Preset(new_per_day=0, reviews_per_day=1_000_000, leech_lapses=1, maximum_interval=1, desired_retention=0.70,
           learn_ahead_minutes=0, relearning_steps=(1, 365 * 86400))
    Preset(leech_lapses=99, maximum_interval=36500, desired_retention=0.99)


def test_empty_learning_steps_are_accepted_and_studied(tmp_path):
    store, clock = store_at(tmp_path)
    book = presets(learning_steps=())
    s = session(store, clock, [deck("a", 2)], book)
    s.next()
    applied = s.answer(GOOD)
    assert applied.after.state == "review"  # no steps: Good graduates at once


def test_presets_are_stored_assigned_renamed_and_deleted(tmp_path):
    store, clock = store_at(tmp_path)
    book = store.load_presets()
    assert list(book.presets) == [DEFAULT_PRESET] and book.for_deck("a") == Preset()
    store.save_preset(Preset(name="Slow", new_per_day=3, desired_retention=0.85, bury_reviews=False))
    store.assign_preset("a", "Slow")
    book = store.load_presets()
    assert book.for_deck("a").new_per_day == 3 and book.for_deck("b").name == DEFAULT_PRESET
    store.save_preset(replace(book.presets["Slow"], name="Gentle"), rename_from="Slow")
    assert store.load_presets().for_deck("a").name == "Gentle"  # the deck follows the rename
    with pytest.raises(StudyappError, match="no preset named 'Nope'"):
        store.assign_preset("a", "Nope")
    with pytest.raises(StudyappError, match="cannot be deleted"):
        store.delete_preset(DEFAULT_PRESET)
    store.delete_preset("Gentle")
    assert store.load_presets().for_deck("a").name == DEFAULT_PRESET


def test_a_deck_studies_with_its_own_preset(tmp_path):
    store, clock = store_at(tmp_path)
    store.save_preset(Preset(name="Slow", new_per_day=1, desired_retention=0.80, new_gather_order="deck"))
    store.assign_preset("a", "Slow")
    store.save_preset(Preset(new_gather_order="deck", new_sort_order="gathered"))
    decks = [deck("a", 5), deck("b", 5)]
    s = ReviewSession(store, decks, clock=clock, settings=SETTINGS)
    assert [k[0] for k in keys(s)] == ["a"] + ["b"] * 5
    assert s.settings_for("a").desired_retention == 0.80 and s.settings_for("b").desired_retention == 0.9
    # The same history graduates to a shorter interval at a lower desired retention.
    a_easy = s.next().previews[EASY].interval_days
    b = ReviewSession(store, [deck("b", 5)], clock=clock, settings=SETTINGS).next()
    assert b.previews[EASY].interval_days < a_easy  # recalling less of it is accepted: longer intervals


def test_leech_action_suspend(tmp_path):
    store, clock = store_at(tmp_path)
    s = session(store, clock, [deck("a", 1)], presets(leech_lapses=1, leech_action="suspend", relearning_steps=()))
    s.next()
    s.answer(EASY)
    clock.advance(days=40)
    s = session(store, clock, [deck("a", 1)], presets(leech_lapses=1, leech_action="suspend", relearning_steps=()))
    s.next()
    s.answer(AGAIN)
    row = store.item("a/c000/main")
    assert row.state.leech and row.suspended
    s.undo()
    assert not store.item("a/c000/main").suspended


def test_a_schema_1_database_is_backed_up_and_migrated_with_a_default_preset(tmp_path):
    path = location(tmp_path).database
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for statement in schema._statements(schema.SCHEMA_V1):
        conn.execute(statement)
    conn.execute("INSERT INTO meta (key, value) VALUES ('created_ms', '1')")
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = open_store(location(tmp_path))
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert store.load_presets().presets[DEFAULT_PRESET] == Preset()
    (backup,) = path.parent.glob(f"{path.name}.schema1-*.bak")
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    old.close()
    store.close()


# ---------------------------------------------------------------- limits and custom study


def test_a_limit_that_stops_the_session_is_named_and_custom_study_goes_past_it(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 10)]
    s = session(store, clock, decks, presets(new_per_day=3), new_per_day=20)
    assert s.counts().new == 3
    assert s.limits_reached() == []
    for _ in range(3):
        s.next()
        s.answer(EASY)
    assert s.next() is None
    assert s.limits_reached() == [LimitReached("new", "a", 3, 7)]
    s.study_more_new(2)
    assert s.counts().new == 2
    assert store.load_presets().for_deck("a").new_per_day is None  # the presets are untouched
    for _ in range(2):
        s.next()
        s.answer(EASY)
    assert s.next() is None
    clock.advance(days=1)  # the extension was for that day only
    assert session(store, clock, decks, presets(new_per_day=3)).counts().new == 3


def test_the_overall_limit_is_named_when_it_is_the_one(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 5), deck("b", 5)]
    s = session(store, clock, decks, presets(new_per_day=5), new_per_day=2)
    for _ in range(2):
        s.next()
        s.answer(EASY)
    assert s.next() is None
    assert s.limits_reached() == [LimitReached("new", None, 2, 8)]


def test_review_ahead_and_forgotten_cards(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 3)]
    s = session(store, clock, decks)
    for rating in (EASY, EASY, AGAIN):
        s.next()
        s.answer(rating)
    # Nothing is due now but the two graduated items; review ahead over the next 30 days shows them.
    ahead = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=presets(),
                          custom=CustomStudy("ahead", 30))
    assert sorted(k for k, q in ahead.upcoming() if q == REVIEW_QUEUE) == ["a/c000/main", "a/c001/main"]
    shown = ahead.next()
    assert shown.queue == REVIEW_QUEUE
    ahead.answer(GOOD)
    assert store.item(shown.key).state.reps == 2  # rescheduled by the answer, as Anki's filtered deck
    forgotten = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=presets(),
                              custom=CustomStudy("forgotten", 1))
    assert forgotten.upcoming() == [("a/c002/main", "cram")]
    before = store.item("a/c002/main").state
    forgotten.next()
    forgotten.answer(GOOD)
    assert store.item("a/c002/main").state == before  # the schedule is left alone
    with pytest.raises(StudyappError, match="custom study days 0"):
        CustomStudy("ahead", 0)


def test_reviews_come_by_due_day_then_at_random_within_a_day_as_anki(tmp_path):
    from studyapp.core.queue import rank

    store, clock = store_at(tmp_path)
    decks = [deck("a", 6)]
    s = session(store, clock, decks, presets(new_per_day=0))
    days_ago = {"a/c000/main": (2, 0), "a/c001/main": (1, 9), "a/c002/main": (1, 2), "a/c003/main": (1, 5),
                "a/c004/main": (1, 1), "a/c005/main": (3, 8)}
    for key, (days, hours) in days_ago.items():
        make_state(store, key, "review", due_ms=T0 - days * DAY_MS + hours * HOUR_MS // 10,
                   last_review_ms=T0 - 9 * DAY_MS)
    s._today_cache = None
    order = keys(s)
    assert order[:2] == ["a/c005/main", "a/c000/main"]  # three days overdue, then two
    yesterday = sorted(order[2:], key=lambda k: rank(s.seed, k))
    assert order[2:] == yesterday  # within a day: Anki's random order, not the due time
    assert order[2:] != sorted(order[2:], key=lambda k: days_ago[k][1])


def test_new_items_are_mixed_into_the_reviews_once_a_day_as_anki_builds_its_queue(tmp_path):
    """Anki spreads the day's new cards through its reviews when it builds the queue, and each
    answer only takes the head off: answering two new items does not re-spread the three left."""
    store, clock = store_at(tmp_path)
    decks = [deck("a", 5)]
    book = presets(new_per_day=4)
    s = session(store, clock, decks, book)
    make_state(store, "a/c000/main", "review", due_ms=T0 - DAY_MS, last_review_ms=T0 - 6 * DAY_MS)
    s._today_cache = None
    day = [q for _, q in s.upcoming()]
    assert day == [NEW_QUEUE, NEW_QUEUE, REVIEW_QUEUE, NEW_QUEUE, NEW_QUEUE]  # one review among four new
    for _ in range(2):
        assert s.next().queue == NEW_QUEUE
        s.answer(EASY)  # graduated: out of today's queues
    assert [q for _, q in s.upcoming()] == day[2:]  # the review is next, as in Anki
    # A fresh session (Anki after a restart) builds afresh: one review among two new.
    assert [q for _, q in session(store, clock, decks, book).upcoming()] == [NEW_QUEUE, REVIEW_QUEUE, NEW_QUEUE]
    assert (s.counts().new, s.counts().review) == (2, 1)


def test_the_sort_orders_after_gathering(tmp_path):
    from studyapp.core.queue import rank

    store, clock = store_at(tmp_path)
    cards = [card(f"r{i}", "reverse") for i in range(6)]
    decks = [deck("a", cards)]

    def order(sort):
        return keys(session(store, clock, decks, presets(new_sort_order=sort, bury_new=False)))

    seed = session(store, clock, decks).seed
    by_type = order("card-type-random")
    assert [k.endswith("/forward") for k in by_type] == [True] * 6 + [False] * 6
    assert by_type[:6] == sorted(by_type[:6], key=lambda k: rank(seed, k)) != sorted(by_type[:6])
    by_note = order("random-note-card-type")
    notes = [k.split("/")[1] for k in by_note]
    assert notes[0::2] == notes[1::2]  # each card's two sides together, forward first
    assert all(k.endswith("/forward") for k in by_note[0::2])
    assert notes[0::2] == sorted(notes[0::2], key=lambda n: rank(seed, f"a/{n}")) != sorted(notes[0::2])
    at_random = order("random")
    assert at_random == sorted(at_random, key=lambda k: rank(seed, k))
    assert sorted(at_random) == sorted(by_type) and at_random not in (by_type, by_note)


def test_the_review_limit_is_named_and_custom_study_adds_reviews(tmp_path):
    store, clock = store_at(tmp_path)
    decks = [deck("a", 3)]
    book = presets(new_per_day=0, reviews_per_day=1)
    s = session(store, clock, decks, book)
    for key in ("a/c000/main", "a/c001/main", "a/c002/main"):
        make_state(store, key, "review", due_ms=T0 - DAY_MS, last_review_ms=T0 - 6 * DAY_MS)
    s._today_cache = None
    assert s.counts().review == 1
    s.next()
    s.answer(GOOD)
    assert s.next() is None
    assert s.limits_reached() == [LimitReached("review", "a", 1, 2)]
    s.study_more_reviews(1)
    assert s.counts().review == 1 and s.next().queue == REVIEW_QUEUE
    with pytest.raises(StudyappError, match="deck 'zzz' is not in this session"):
        s.study_more_new(1, deck_id="zzz")
