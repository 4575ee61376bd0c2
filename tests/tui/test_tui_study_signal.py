"""Issue 13 through the app: the limit that stops a session and custom study, learn-ahead on the card,
and the deck option presets in Settings."""

from __future__ import annotations

from studyapp.core.presets import DEFAULT_PRESET, Preset
from studyapp.tui.screens.presets import PresetsScreen, format_steps, parse_steps
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.settings import SettingsScreen

from tui_helpers import SIZE, screen_text, settle, wait_for, wait_for_text


def stored_preset(harness, **changes) -> None:
    with harness.store() as store:
        store.save_preset(Preset(new_gather_order="deck", new_sort_order="gathered", **changes))


async def review(pilot) -> ReviewScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.session is not None,
                   "the review")
    await settle(pilot)
    return pilot.app.screen


async def test_a_limit_that_stops_the_session_is_named_and_more_new_cards_can_be_studied(harness):
    stored_preset(harness, new_per_day=2)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        for _ in range(2):  # Easy: graduated, nothing left in learning
            await pilot.press("space")
            await wait_for(pilot, lambda: screen.revealed, "the answer")
            await pilot.press("4")
            await settle(pilot)
        # The summary comes after answers; end it and open the deck again to see the empty state.
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the summary")
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        assert screen.shown is None
        text = await wait_for_text(pilot, "Today's new-card limit of UI sample (2, preset Default) holds back")
        assert "n  10 more new cards today" in text and "a  review ahead" in text and "g  review forgotten" in text
        await pilot.press("n")
        await wait_for(pilot, lambda: screen.shown is not None, "a new card")
        assert screen.shown.queue == "new" and screen.shown.counts.new == 6  # ten more, eight left today (siblings)
    with harness.store() as store:
        assert store.load_presets().presets[DEFAULT_PRESET].new_per_day == 2  # the limit stays as set


async def test_review_ahead_from_the_empty_screen(harness):
    stored_preset(harness, new_per_day=1)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        first = screen.shown.key
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.revealed, "the answer")
        await pilot.press("4")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the summary")
    harness.clock.advance(days=2)  # Easy gave about a week: now due within review ahead's 7 days
    stored_preset(harness, new_per_day=0)  # and no new cards today: nothing is left to study
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        await wait_for_text(pilot, "Custom study")
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.shown is not None, "the card due in days")
        assert screen.shown.key == first and screen.shown.queue == "review"
        assert screen.session.custom.kind == "ahead"


async def test_review_forgotten_cards_from_the_empty_screen_leaves_the_schedule_alone(harness):
    stored_preset(harness, new_per_day=1)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        first = screen.shown.key
        for grade in ("1", "4"):  # forgotten (Again), then Easy: out of today's queues
            await wait_for(pilot, lambda: screen.shown is not None and screen.shown.key == first, "the card")
            await pilot.press("space")
            await wait_for(pilot, lambda: screen.revealed, "the answer")
            await pilot.press(grade)
            await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the summary")
    with harness.store() as store:
        before = store.item(first).state
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        await wait_for_text(pilot, "review forgotten")
        await pilot.press("g")
        await wait_for(pilot, lambda: screen.shown is not None, "the forgotten card")
        assert screen.shown.key == first and screen.shown.queue == "cram"
        assert screen.session.custom.kind == "forgotten"
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.revealed, "the answer")
        await pilot.press("3")
        await settle(pilot)
    with harness.store() as store:
        assert store.item(first).state == before  # custom study's forgotten cards do not reschedule
        assert store.load_presets().presets[DEFAULT_PRESET].new_per_day == 1


async def test_a_learning_card_shown_early_says_so(harness):
    stored_preset(harness, new_per_day=1)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.revealed, "the answer")
        await pilot.press("3")  # Good: the 10-minute step; nothing else is left today
        await wait_for(pilot, lambda: screen.shown is not None and screen.shown.ahead, "the card again, early")
        text = await wait_for_text(pilot, "early: due in 10m (learn-ahead)")
        assert "learning · early" in text


def test_steps_are_read_and_written_as_anki_writes_them():
    assert parse_steps("1m 10m") == (60, 600)
    assert parse_steps("1 10") == (60, 600)  # bare numbers are minutes
    assert parse_steps("30s, 1h 2d") == (30, 3600, 172800)
    assert parse_steps("none") == ()
    assert format_steps((60, 600, 86400, 45)) == "1m 10m 1d 45s"
    assert format_steps(()) == "none"


async def test_presets_in_settings_edit_validate_and_assign(harness):
    app = harness.app("home")
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "loaded", False), "home")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.loaded, "settings")
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PresetsScreen) and app.screen.loaded, "presets")
        screen = app.screen
        assert screen.deck_id == "ui-sample" and screen.preset.name == DEFAULT_PRESET
        screen.query_one("#preset-new_per_day").value = "3"
        screen.query_one("#preset-learning_steps").value = "none"
        screen.query_one("#preset-learn_ahead_minutes").value = "5"  # the learn-ahead limit is an option too
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.book.presets[DEFAULT_PRESET].new_per_day == 3, "saved")
        screen.query_one("#preset-desired_retention").value = "1.5"
        await pilot.press("ctrl+s")
        text = await wait_for_text(pilot, "Not saved: preset 'Default': desired retention 1.5 is out of range")
        screen.query_one("#preset-desired_retention").value = ""
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen.preset.name == "Preset 2", "a new preset for the deck")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), "back to settings")
    with harness.store() as store:
        book = store.load_presets()
    assert book.presets[DEFAULT_PRESET].new_per_day == 3 and book.presets[DEFAULT_PRESET].learning_steps == ()
    assert book.presets[DEFAULT_PRESET].learn_ahead_minutes == 5
    assert book.presets[DEFAULT_PRESET].desired_retention is None  # the bad value was never stored
    assert book.for_deck("ui-sample").name == "Preset 2" and book.for_deck("ui-sample").new_per_day == 3


async def test_the_default_order_takes_turns_between_decks_and_keeps_it_after_a_restart(harness, tmp_path):
    from test_tui_home import two_decks

    with harness.store() as store:
        store.save_preset(Preset())  # the default: interleaved across decks, random within each
    folder = two_decks(tmp_path)
    app = harness.app("study", [], decks=[folder])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        order = [key for key, _ in screen.session.upcoming()]
        decks = [key.split("/")[0] for key in order]
        assert {decks[0], decks[1]} == {"ui-sample", "second"}  # one from each deck in turn
        assert decks.count("second") == 1
        bank = ["ui-sample/layer-count/main", "ui-sample/markup-literal/main"]
        assert [k for k in order if k.startswith("ui-sample/")][:2] != bank  # not the file's order
        first = screen.shown.key
        assert first == order[0]
    app = harness.app("study", [], decks=[folder])
    async with app.run_test(size=SIZE) as pilot:
        screen = await review(pilot)
        assert screen.shown.key == first  # the same order after a restart


async def test_mastery_counts_facts_on_home_and_in_the_report(harness, tmp_path):
    """Mastery in the app and the report from the same stored states: the reverse card's two
    sides are one fact, a cloze with one weak deletion is not mastered, and two cards that name
    each other as related are one fact, mastered only when both are."""
    from studyapp.core.catalog import Catalog, load_paths
    from studyapp.core.session import ReviewSession
    from studyapp.onboarding.collect import collect_report
    from studyapp.onboarding.report import MASTERY_RULE, to_markdown

    from test_tui_curriculum import deck_folder

    folder = deck_folder(tmp_path)
    bank = folder / "ui-sample.yaml"
    text = bank.read_text(encoding="utf-8")
    # markup-literal tests the same fact as layer-count, the deck now says.
    bank.write_text(text.replace("  - id: markup-literal\n", "  - id: markup-literal\n    related: [layer-count]\n"),
                    encoding="utf-8")
    decks = load_paths([folder]).decks
    mastered = ["ui-sample/top-layer/forward", "ui-sample/top-layer/backward", "ui-sample/speed-cloze/c1",
                "ui-sample/layer-count/main"]  # markup-literal and speed-cloze/c2 stay weak
    with harness.store() as store:
        ReviewSession(store, decks, clock=harness.clock)  # the items, stored
        for key in mastered:
            store.conn.execute("UPDATE items SET state = 'review', queue = 2, stability = 40.0, difficulty = 5.0, "
                               "due_ms = ?, last_review_ms = ?, interval = 40, reps = 4 WHERE key = ?",
                               (harness.clock.now_ms() + 30 * 86_400_000, harness.clock.now_ms(), key))
        store.conn.commit()
    report = collect_report(harness.location, Catalog(decks=decks, problems=[]), clock=harness.clock)
    (row,) = report["decks"]
    cards = len(decks[0].cards)
    # Facts: every card, less one for the related pair; mastered: only the reverse card.
    assert (row["items"], row["mastered"], row["facts"], row["mastered_facts"]) == (10, 4, cards - 1, 1)
    markdown = to_markdown(report)
    assert f"Mastery: 1 of {cards - 1} facts" in markdown and MASTERY_RULE in markdown
    assert "names as related" in MASTERY_RULE and "however many items it has" in MASTERY_RULE
    app = harness.app("home", decks=[folder])
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.tracks, "tracks loaded")
        (track,) = app.screen.tracks
        assert (track["facts"], track["mastered_facts"]) == (cards - 1, 1)
        # The tracks are set before the screen draws them.
        await wait_for(pilot, lambda: f"{1 / (cards - 1):4.0%} of 50% mastered" in screen_text(app),
                       "the track's mastery drawn")
