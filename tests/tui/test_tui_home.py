"""Pilot tests of the home screen: counts, every key, the command palette, no decks, a broken deck."""

from __future__ import annotations

import pytest

from studyapp.tui.screens.browse import BrowseScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.quiz import QuizScreen
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.screens.stats import StatsScreen

from tui_helpers import services_with_the_catalog_held_back, DATA, SAMPLE_DECKS, SIZE, screen_text, wait_for, wait_for_text


def two_decks(tmp_path):
    """The sample deck and a second small one, in one folder."""
    folder = tmp_path / "decks"
    folder.mkdir()
    # A seed must lie inside the folder that holds the deck's folder: a copy beside it, as in a deck repository.
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "ui-sample.md").write_bytes((DATA / "seeds" / "ui-sample.md").read_bytes())
    (folder / "ui-sample.yaml").write_text((SAMPLE_DECKS / "ui-sample.yaml").read_text(encoding="utf-8"),
                                           encoding="utf-8")
    (folder / "second.yaml").write_text(
        "schema: 1\nid: second\ntitle: Second deck\nseed: ../seeds/ui-sample.md\ncards:\n"
        "  - {id: one, type: basic, front: What is fast?, back: The scheduler, "
        "source: 'The scheduler answers in under a millisecond.'}\n", encoding="utf-8")
    return folder


async def open_home(pilot) -> HomeScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded, "the decks")
    await pilot.pause()
    return pilot.app.screen


async def test_home_lists_decks_with_counts_and_updates_after_a_review(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        home = await open_home(pilot)
        # New as Anki counts it: ten items, but the second side of a reverse card and the second
        # deletion of a cloze wait for another day (buried siblings): eight can be studied today.
        assert [(r.deck_id, r.new, r.learning, r.due, r.unseen) for r in home.rows] == [("ui-sample", 8, 0, 0, 10)]
        text = await wait_for_text(pilot, "UI sample")  # the table is drawn a frame after the rows load
        assert "0%" in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None,
                       "the review")
        await pilot.press("space", "1")  # Again: the item goes to learning
        await wait_for(pilot, lambda: app.screen.shown.key == "ui-sample/markup-literal/main", "the next card")
        await pilot.press("q")
        await pilot.press("enter")  # from the summary back home
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        await wait_for(pilot, lambda: [(r.new, r.learning) for r in app.screen.rows] == [(7, 1)], "updated counts")
        assert "10%" in await wait_for_text(pilot, "10%")


@pytest.mark.parametrize("key, screen_type, check", [
    ("s", ReviewScreen, lambda s: s.deck_ids == ("second",) and not s.cram),
    ("a", ReviewScreen, lambda s: s.deck_ids == () and not s.cram),
    ("c", ReviewScreen, lambda s: s.deck_ids == ("second",) and s.cram),
    ("p", QuizScreen, lambda s: s.deck_ids == ("second",)),
    # Browse, Stats and Settings are about every deck, whichever is highlighted.
    ("b", BrowseScreen, lambda s: {key.split("/")[0] for key in s.shown_keys} == {"second", "ui-sample"}),
    ("t", StatsScreen, lambda s: s.loaded and s.query_one("#stats-decks").row_count == 2),
    ("o", SettingsScreen, lambda s: s.loaded and s.current is not None
     and s.query_one("#setting-rollover_hour").value == str(s.current.rollover_hour)),
])
async def test_home_keys_open_their_screens(harness, tmp_path, key, screen_type, check):
    app = harness.app("home", decks=[two_decks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        home = await open_home(pilot)
        assert [r.deck_id for r in home.rows] == ["second", "ui-sample"]
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, screen_type), screen_type.__name__)
        await wait_for(pilot, lambda: check(app.screen), f"{screen_type.__name__} filled")
        await app.workers.wait_for_complete()


async def test_down_then_enter_studies_the_second_deck(harness, tmp_path):
    app = harness.app("home", decks=[two_decks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await open_home(pilot)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        assert app.screen.deck_ids == ("ui-sample",)
        await app.workers.wait_for_complete()


async def test_q_quits_from_home(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await open_home(pilot)
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")


async def test_command_palette_finds_a_deck_and_studies_it(harness, tmp_path):
    from textual.command import CommandPalette

    app = harness.app("home", decks=[two_decks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await open_home(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await pilot.press(*"quiz: ui")
        await wait_for_text(pilot, "Practice quiz on ui-sample")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, QuizScreen), "the quiz")
        assert app.screen.deck_ids == ("ui-sample",)
        await app.workers.wait_for_complete()


async def test_command_palette_offers_actions(harness):
    from textual.command import CommandPalette

    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await open_home(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await pilot.press(*"statis")
        await wait_for_text(pilot, "Forecast, reviews per day")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen), "the stats")
        await app.workers.wait_for_complete()


async def test_no_decks_says_what_to_do(harness, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    app = harness.app("home", decks=[empty])
    async with app.run_test(size=SIZE) as pilot:
        home = await open_home(pilot)
        text = await wait_for_text(pilot, "No decks found.")
        assert "--decks DIR" in text
        # Nothing to study: the keys that need a deck do nothing.
        await pilot.press("s", "p", "c")
        await pilot.pause()
        assert app.screen is home


async def test_a_deck_that_failed_to_load_is_a_warning_and_the_others_work(harness, tmp_path):
    folder = two_decks(tmp_path)
    (folder / "broken.yaml").write_text("schema: 1\nid: broken\ncards: [\n", encoding="utf-8")
    app = harness.app("home", decks=[folder])
    async with app.run_test(size=SIZE) as pilot:
        home = await open_home(pilot)
        await wait_for_text(pilot, "⚠ broken.yaml was not loaded (line 4: YAML syntax error")
        assert [r.deck_id for r in home.rows] == ["second", "ui-sample"]
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None,
                       "a review of a deck that loaded")


# -- layout at the common sizes ----------------------------------------------------------------

def test_the_deck_table_fits_the_terminal():
    from studyapp.tui.screens.home import deck_table_layout

    # 80 columns: 2 for the scrollbar, 6 columns of 2 padding cells, 32 for the numbers and a short bar.
    assert deck_table_layout(80, 53) == (34, 8)
    assert deck_table_layout(99, 53) == (53, 8)
    assert deck_table_layout(99, 60) == (53, 8)
    assert deck_table_layout(100, 60) == (50, 12)  # the long bar from 100 columns
    assert deck_table_layout(120, 53) == (53, 12)  # never wider than the longest title
    assert deck_table_layout(40, 53) == (12, 8)


def test_a_curriculum_line_is_cut_to_the_width_never_wrapped():
    from studyapp.tui.screens.home import track_line

    track = {"title": "Training recipes and memory", "mastered_facts": 3, "facts": 10, "target": 0.85,
             "status": "on track", "deadline": "2026-12-17"}
    narrow = track_line(2, track, 78)
    # 78 cells: 4 for the number, 48 for bar, share, target, status and deadline, 26 for the title.
    assert narrow.plain == " 2. Training recipes and memo… ██░░░░░░  30% of 85% · on track · by 2026-12-17"
    assert narrow.cell_len == 78
    wide = track_line(2, track, 118)
    assert wide.plain == (" 2. Training recipes and memory      ████░░░░░░░░  30% of 85% mastered · on track"
                          " · by 2026-12-17")


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_home_shows_every_column_and_the_keys_hint_with_the_bundled_decks(harness, size):
    from studyapp.core.catalog import bundled_decks_dir

    app = harness.app("home", decks=[bundled_decks_dir()])
    async with app.run_test(size=size) as pilot:
        await open_home(pilot)
        await wait_for_text(pilot, "Curriculum")
        text = screen_text(app)
        lines = text.split("\n")
        header = next(line for line in lines if line.startswith(" Deck "))
        for column in ("New", "Learning", "Due", "Progress", "Items"):
            assert f" {column} " in header + " ", column
        assert lines[-1].startswith("? Keys") and "q Quit" in lines[-1]
        # Each track on its own line, none wrapped to column 1.
        tracks = [line for line in lines if line.startswith("  1. ") or line.startswith("  2. ")
                  or line.startswith("  3. ")]
        assert len(tracks) == 3 and all("% of " in line and "not started" in line for line in tracks)
        assert not any(line.startswith(" started") or line.startswith(" track") for line in lines)
        start = lines.index(header) + 1
        assert len([line for line in lines[start:start + 9] if line.strip()]) == 8  # every deck, one line each
        assert "3FS" in lines[start + 7]  # the eighth


async def test_the_table_comes_first_from_the_deck_summary_then_the_counts(harness, tmp_path):
    """With the summary kept beside the deck cache (core/decksummary.py), titles, items and progress are
    drawn before the catalog loads; the status line says the counts are coming, Enter already studies,
    and the rows the counts replace them with agree on everything the first ones showed."""
    from studyapp.core.catalog import discover
    from studyapp.core.settings import resolve
    from studyapp.tui.app import Start, StudyApp
    from studyapp.tui.config import load_config

    folder = two_decks(tmp_path)
    location = resolve(str(harness.home), None, [str(folder)], environ={})
    discover(location.deck_dirs, cache_file=location.home / "cache" / "decks.pickle")  # writes the summary
    # the counts wait (they start by loading the catalog) until the first table is checked
    services, release = services_with_the_catalog_held_back(harness, location)
    app = StudyApp(services, load_config(harness.home), Start("home"))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.drawn, "the first table")
            home = app.screen
            text = await wait_for_text(pilot, "counting new, learning and due cards")
            assert "Enter studies the highlighted deck" in text and "UI sample" in text and "…" in text
            assert not home.loaded and services.loaded_catalog is None
            first = {r.deck_id: (r.title, r.items, r.unseen, r.new) for r in home.rows}
            assert home.check_action("study", ()) and not home.check_action("browse", ())
            release.set()
            await wait_for(pilot, lambda: home.loaded, "the counts")
            text = await wait_for_text(pilot, " · due ")
            assert "counting" not in text
            last = {r.deck_id: (r.title, r.items, r.unseen) for r in home.rows}
            assert {k: v[:3] for k, v in first.items()} == last and all(v[3] is None for v in first.values())
            assert last["ui-sample"][1:] == (10, 10) and "second" in last
    finally:
        release.set()


async def test_the_counts_come_before_the_catalog_when_the_store_is_in_step(harness, tmp_path):
    """Once a session has synced the decks the summary describes, today's counts are worked out from the
    store alone and drawn before the catalog loads (core/decksummary.py, Services.counted_rows); the
    counts the catalog gives afterwards are the same, deck by deck."""
    from studyapp.core.catalog import discover
    from studyapp.core.session import ReviewSession
    from studyapp.core.settings import resolve
    from studyapp.store import open_store
    from studyapp.tui.app import Start, StudyApp
    from studyapp.tui.config import load_config

    folder = two_decks(tmp_path)
    location = resolve(str(harness.home), None, [str(folder)], environ={})
    catalog = discover(location.deck_dirs, cache_file=location.home / "cache" / "decks.pickle")
    store = open_store(location, clock=harness.clock)
    session = ReviewSession(store, catalog.decks, clock=harness.clock)  # syncs the decks
    for rating in (3, 1, 3):  # one new item answered, one in learning
        assert session.next() is not None
        session.answer(rating, 1000)
    store.close()
    services, release = services_with_the_catalog_held_back(harness, location)
    app = StudyApp(services, load_config(harness.home), Start("home"))
    try:
        async with app.run_test(size=SIZE) as pilot:
            text = await wait_for_text(pilot, " · due ")
            home = app.screen
            assert isinstance(home, HomeScreen) and not home.loaded and services.loaded_catalog is None
            assert "counting" not in text
            first = {r.deck_id: (r.title, r.items, r.unseen, r.new, r.learning, r.due) for r in home.rows}
            status = str(app.screen.query_one("#home-status").render())
            release.set()
            await wait_for(pilot, lambda: home.loaded, "the counts from the catalog")
            await pilot.pause()
            last = {r.deck_id: (r.title, r.items, r.unseen, r.new, r.learning, r.due) for r in home.rows}
            assert first == last and str(app.screen.query_one("#home-status").render()) == status
            assert last["ui-sample"][3:5] != (0, 0) and {"ui-sample", "second"} <= set(last)
            assert sum(v[4] for v in last.values()) >= 1  # the item in learning is counted
    finally:
        release.set()
