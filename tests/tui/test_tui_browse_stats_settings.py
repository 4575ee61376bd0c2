"""Pilot tests of browse (search, detail, history, suspend, source), stats and settings."""

from __future__ import annotations

from studyapp.tui.modals.source import SourceModal
from studyapp.tui.screens.browse import BrowseScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.screens.stats import StatsScreen

from tui_helpers import SAMPLE_DECKS, SIZE, answer, screen_text, wait_for, wait_for_text


async def open_from_home(pilot, key: str, screen_type):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded, "the decks")
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_type), screen_type.__name__)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen


# -- browse ----------------------------------------------------------------------------------

async def search(pilot, screen, text: str) -> None:
    await pilot.press("slash")
    field = screen.query_one("#browse-search")
    await wait_for(pilot, lambda: field.has_focus, "the search box")
    field.value = text
    await pilot.press("enter")
    await pilot.pause()


async def test_browse_searches_by_text_tag_deck_and_state(harness):
    answer(harness, {"ui-sample/layer-count/main": [3]})
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "b", BrowseScreen)
        assert len(screen.shown_keys) == 10
        await search(pilot, screen, "widget cache")
        assert screen.shown_keys == ["ui-sample/layer-count/main", "ui-sample/top-layer/forward",
                                     "ui-sample/top-layer/backward", "ui-sample/layers-truefalse/main"]
        await search(pilot, screen, "tag:markup")
        assert screen.shown_keys == ["ui-sample/markup-literal/main"]
        await search(pilot, screen, "is:learning")
        assert screen.shown_keys == ["ui-sample/layer-count/main"]
        await search(pilot, screen, "deck:ui-sample type:cloze")
        assert screen.shown_keys == ["ui-sample/speed-cloze/c1", "ui-sample/speed-cloze/c2"]
        await search(pilot, screen, "-is:new")
        assert screen.shown_keys == ["ui-sample/layer-count/main"]
        await search(pilot, screen, "is:sleepy")
        assert "is:sleepy is not a state" in await wait_for_text(pilot, "is not a state")
        await search(pilot, screen, "nothing-matches-this")
        await wait_for_text(pilot, "No card matches the search.")


async def test_browse_detail_shows_the_card_and_its_review_history(harness):
    answer(harness, {"ui-sample/layer-count/main": [1, 3]})
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "b", BrowseScreen)
        await wait_for_text(pilot, "History")
        # The detail pane wraps each value under itself: compare the words.
        assert "How many layers does the widget cache have?" in " ".join(str(screen.query_one("#browse-card").render()).split())
        history = str(screen.query_one("#browse-history").render())
        assert "Again  new → learning  next 1m" in history
        assert "Good   learning → learning  next 10m" in history
        await pilot.press("down")
        await wait_for(pilot, lambda: "not reviewed yet" in str(screen.query_one("#browse-history").render()),
                       "the second card's empty history")


async def test_browse_suspends_and_unsuspends(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "b", BrowseScreen)
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: "suspended" in str(screen.query_one("#browse-card").render()), "suspended")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").suspended
        await search(pilot, screen, "is:suspended")
        assert screen.shown_keys == ["ui-sample/layer-count/main"]
        screen.query_one("#browse-table").focus()
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: "suspended" not in str(screen.query_one("#browse-card").render()), "back")
        with harness.store() as store:
            assert not store.item("ui-sample/layer-count/main").suspended


async def test_browse_jumps_to_the_source(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "b", BrowseScreen)
        await search(pilot, screen, "long card")
        screen.query_one("#browse-table").focus()
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SourceModal), "the source")
        assert app.screen.quotes == ("The long card exists to test scrolling.",)
        await wait_for_text(pilot, "The long card exists to test scrolling.")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to browse")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")


# -- stats -----------------------------------------------------------------------------------

async def test_stats_show_forecast_reviews_retention_decks_and_leeches(harness):
    # Two days of answers: the first learns three cards (Easy), the second, 12 days on, reviews them.
    answer(harness, {"ui-sample/layer-count/main": [4], "ui-sample/markup-literal/main": [4],
                     "ui-sample/speed-cloze/c1": [4]}, days=12)
    answer(harness, {"ui-sample/layer-count/main": [3], "ui-sample/markup-literal/main": [1],
                     "ui-sample/speed-cloze/c1": [3]})
    with harness.store() as store:  # make one a leech, as eight lapses would
        store.conn.execute("UPDATE items SET leech = 1, lapses = 8 WHERE key = 'ui-sample/layer-count/main'")
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "t", StatsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the figures")
        forecast = screen.query_one("#chart-forecast")
        reviews = screen.query_one("#chart-reviews")
        assert sum(reviews.values) == 6 and reviews.values[-1] == 3 and reviews.values[-13] == 3
        assert forecast.values[0] == 1  # the card answered Again is due again today
        text = screen_text(app)
        # True Retention: the three day-old reviews count, the first answers do not; the deck
        # table shows the same figure for the same 30 days.
        assert "True retention 66.7% in 30 days (target 90%" in text and "young 67%, mature -" in text
        # Each span, all answers, young and mature (the three reviews are today's and young).
        assert "By span, % all/young/mature: today 67/67/- · 7d 67/67/- · 30d 67/67/- · 365d 67/67/-" in text
        table = screen.query_one("#stats-decks")
        assert table.get_row("ui-sample")[7] == "67%"
        assert "mature -) · 6 answers, 1 Again" in text  # the last 30 days' answers, on the same line
        screen.query_one("#stats-body").scroll_end(animate=False)
        text = await wait_for_text(pilot, "8 lapses")
        assert "How many layers does the widget cache have?" in text


# -- settings --------------------------------------------------------------------------------

async def test_settings_are_saved_and_take_effect_at_once(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        field = screen.query_one("#setting-new_per_day")
        field.value = "3"
        field.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.current.new_per_day == 3, "saved")
        with harness.store() as store:
            assert store.load_settings().new_per_day == 3
        retention = screen.query_one("#setting-desired_retention")
        retention.value = "1.5"
        retention.focus()
        await pilot.press("enter")
        await wait_for_text(pilot, "desired retention 1.5 is out of range")
        with harness.store() as store:
            assert store.load_settings().desired_retention == 0.9
        assert app.screen is screen  # Enter saves and stays
        retention.value = "0.85"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        # The new limit applies at once: a review now offers three new cards.
        await wait_for(pilot, lambda: app.screen.loaded, "the decks")
        await pilot.press("s")
        from studyapp.tui.screens.review import ReviewScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None,
                       "the review")
        assert app.screen.shown.counts.new == 3
        assert app.screen.session.settings.desired_retention == 0.85


async def test_question_mark_in_a_settings_field_opens_the_help_and_leaves_the_value_alone(harness):
    from studyapp.tui.modals.help import HelpModal

    app = harness.app("home")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        retention = screen.query_one("#setting-desired_retention")
        assert retention.has_focus and retention.value == "0.9"
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        assert "Keys: Settings" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back on the settings")
        assert retention.value == "0.9"
        # Digits and the point are still typed into the field.
        retention.value = ""
        await pilot.press("0", "full_stop", "8")
        assert retention.value == "0.8"


async def test_escape_leaves_settings_with_an_invalid_value_keeping_the_stored_one_and_saying_so(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        screen.query_one("#setting-desired_retention").value = "?o"
        screen.query_one("#setting-new_per_day").value = "5"
        screen.query_one("#setting-reviews_per_day").value = "9999999"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home after one Escape")
        messages = [n.message for n in app._notifications]
        assert "Desired retention: '?o' is not a number such as 0.9; it stays 0.9" in messages[-1]
        assert "Reviews per day" in messages[-1] and "it stays 200" in messages[-1]
        assert "Settings saved; they apply from now on." in messages
        with harness.store() as store:
            stored = store.load_settings()
        # The valid change is kept, the invalid ones are dropped.
        assert (stored.new_per_day, stored.desired_retention, stored.reviews_per_day) == (5, 0.9, 200)


async def test_the_settings_screen_says_what_enter_ctrl_s_and_escape_do_as_the_docs_do(harness):
    from pathlib import Path

    from studyapp.tui.screens.settings import SAVE_HINT

    app = harness.app("home")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        assert str(screen.query_one("#settings-hint").render()) == SAVE_HINT
        assert len(SAVE_HINT) <= 78 and SAVE_HINT in screen_text(app)  # one line at 80 columns
    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "app.md").read_text(encoding="utf-8").split())
    assert ("Enter in a field or Ctrl+S saves every valid value and stays; Escape saves every valid value and goes "
            "back.") in docs
    assert "Escape drops it (the stored value stays), says so in a message, and still goes back" in docs


async def test_escape_leaves_settings_untouched_when_nothing_changed(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        assert [n.message for n in app._notifications] == []


async def test_ctrl_s_saves_the_valid_values_names_the_invalid_one_and_stays(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        screen.query_one("#setting-rollover_hour").value = "24"
        screen.query_one("#setting-new_per_day").value = "7"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.current.new_per_day == 7, "the valid value saved")
        assert app.screen is screen
        error = str(screen.query_one("#settings-error").render())
        assert error.startswith("Day starts at hour: ") and error.endswith("; it stays 4")
        with harness.store() as store:
            assert (store.load_settings().new_per_day, store.load_settings().rollover_hour) == (7, 4)


async def test_theme_is_applied_and_saved_in_the_config_file(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        select = screen.query_one("#setting-theme")
        select.value = "nord"
        await wait_for(pilot, lambda: app.theme == "nord", "the theme applied")
        assert 'theme = "nord"' in (harness.home / "config.toml").read_text(encoding="utf-8")
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.theme == "nord", "the theme kept")


# -- flags -------------------------------------------------------------------------------------------

async def test_a_flag_from_review_reaches_the_report_and_browse_unflags_it(harness):
    from studyapp.core.catalog import load_paths
    from studyapp.onboarding.collect import collect_report
    from studyapp.tui.modals.flag_note import FlagNoteModal
    from studyapp.tui.screens.review import ReviewScreen

    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog")
        await pilot.press(*"two answers fit", "enter")
        await wait_for_text(pilot, "⚑ flagged: two answers fit")
    catalog = load_paths([SAMPLE_DECKS])
    report = collect_report(harness.location, catalog, clock=harness.clock)
    assert report["flags"] == [{"key": "ui-sample/layer-count/main", "deck": "ui-sample", "card": "layer-count",
                                "note": "two answers fit", "time_ms": harness.clock.now_ms(),
                                "date": "2026-05-28T08:26:40Z"}]

    app = harness.app("home")
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        screen = await open_from_home(pilot, "b", BrowseScreen)
        await wait_for(pilot, lambda: screen.loaded, "the items")
        await search(pilot, screen, "is:flagged")
        text = await wait_for_text(pilot, "1 of 10 items match")
        detail = screen.query_one("#browse-card").render().plain
        assert "Flag two answers fit (f unflags)" in " ".join(detail.split()), detail
        assert "Flag      two answers fit" in detail
        assert "f Flag/Unflag" in text
        await pilot.press("f")
        await wait_for_text(pilot, "0 of 10 items match")
        assert "Unflagged ui-sample/layer-count/main." in [n.message for n in app._notifications]
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").flag_note is None
        # f on an unflagged card asks for a note; Escape flags nothing, Enter with a note flags it.
        await search(pilot, screen, "deck:ui-sample")
        await wait_for_text(pilot, "10 of 10 items match")
        await pilot.press("f")
        from studyapp.tui.modals.flag_note import FlagNoteModal

        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back in browse")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").flag_note is None
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog again")
        await pilot.press(*"unclear", "enter")
        await wait_for_text(pilot, "Flag      unclear")
    with harness.store() as store:
        assert store.item("ui-sample/layer-count/main").flag_note == "unclear"
    assert [f["note"] for f in collect_report(harness.location, catalog, clock=harness.clock)["flags"]] == ["unclear"]
