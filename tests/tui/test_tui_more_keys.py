"""The keys not exercised elsewhere: options 5 and 6, the next quoted passage, Ctrl+S in
settings, leaving stats, the summary's and score's keys, Ctrl+Q."""

from __future__ import annotations

import pytest

from studyapp.tui.modals.source import SourceModal
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.score import ScoreScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.screens.stats import StatsScreen
from studyapp.tui.screens.summary import SummaryScreen

from tui_helpers import SIZE, screen_text, wait_for, wait_for_text

SEED = ("Alpha comes first. Beta comes second. Gamma comes third. Delta comes fourth. "
        "Epsilon comes fifth. Zeta comes sixth.\n\n" + "A paragraph in between.\n\n" * 12
        + "Much later, the document says: Omega comes last.\n")


def wide_deck(tmp_path):
    """A choice card with six options and a card quoting two passages."""
    folder = tmp_path / "decks"
    folder.mkdir()
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "letters.md").write_text(SEED, encoding="utf-8")
    (folder / "letters.yaml").write_text(
        "schema: 1\nid: letters\ntitle: Letters\nseed: ../seeds/letters.md\ncards:\n"
        "  - id: sixth\n    type: choice\n    front: Which letter comes sixth?\n"
        "    choices: [Alpha, Beta, Gamma, Delta, Epsilon, Zeta]\n    answer: Zeta\n"
        "    source: Zeta comes sixth.\n"
        "  - id: ends\n    type: basic\n    front: Which letters open and close the document?\n"
        "    back: Alpha and Omega\n    source: [Alpha comes first., Omega comes last.]\n", encoding="utf-8")
    return folder


async def first_card(pilot) -> ReviewScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                   "a card")
    await pilot.pause()
    return pilot.app.screen


@pytest.mark.parametrize("key", ["6", "5"])
async def test_options_five_and_six(harness, tmp_path, key):
    app = harness.app("study", ["letters"], decks=[wide_deck(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_card(pilot)
        assert screen.shown.key == "letters/sixth/main"
        options = screen.shown.choices.options  # shuffled: the key picks what is shown at that number
        assert sorted(options) == ["Alpha", "Beta", "Delta", "Epsilon", "Gamma", "Zeta"]
        await pilot.press(key)
        await wait_for(pilot, lambda: screen.revealed, "the pick checked")
        right = options[int(key) - 1] == "Zeta"
        assert screen.chosen == int(key) - 1 and screen.proposed == (3 if right else 1)


async def test_n_jumps_to_the_next_quoted_passage(harness, tmp_path):
    app = harness.app("study", ["letters"], decks=[wide_deck(tmp_path)])
    async with app.run_test(size=(100, 16)) as pilot:  # low, so that the passages do not fit at once
        screen = await first_card(pilot)
        screen.action_reveal()
        screen.action_grade(3)
        await wait_for(pilot, lambda: screen.shown.key == "letters/ends/main", "the two-quote card")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SourceModal), "the source")
        modal = app.screen
        assert modal.quote_lines == [0, 26] and modal.quote_index == 0
        await wait_for_text(pilot, "2 passages highlighted")
        await pilot.press("n")
        await wait_for(pilot, lambda: modal.quote_index == 1, "the second passage")
        await wait_for_text(pilot, "Omega comes last.")
        assert "Alpha comes first." not in screen_text(app)  # scrolled away from the first passage
        await pilot.press("n")
        await wait_for(pilot, lambda: modal.quote_index == 0, "back to the first")


async def test_ctrl_s_saves_the_settings(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded, "the decks")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.loaded, "settings")
        app.screen.query_one("#setting-rollover_hour").value = "6"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.current.rollover_hour == 6, "saved")
        with harness.store() as store:
            assert store.load_settings().rollover_hour == 6


@pytest.mark.parametrize("key", ["escape", "q"])
async def test_leaving_stats(harness, key):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded, "the decks")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.loaded, "stats")
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")


@pytest.mark.parametrize("key, home", [("q", False), ("escape", True), ("h", True)])
async def test_summary_keys(harness, key, home):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_card(pilot)
        answered = screen.shown.key
        await pilot.press("space", "3", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        await pilot.press(key)
        if home:
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        else:
            await wait_for(pilot, lambda: not app.is_running, "the app to exit")
            assert app.return_code == 0
    # Leaving the summary either way keeps the answer given.
    assert [(key, rating) for key, rating, _ in harness.reviews()] == [(answered, 3)]


@pytest.mark.parametrize("key, home", [("q", False), ("enter", True)])
async def test_score_keys(harness, key, home):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="truefalse", quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_text(pilot, "The widget cache has two layers.")
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        await pilot.press(key)
        if home:
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        else:
            await wait_for(pilot, lambda: not app.is_running, "the app to exit")
            assert app.return_code == 0
    assert harness.reviews() == []  # a quiz leaves the schedule alone, however it is left


async def test_ctrl_q_quits(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await first_card(pilot)
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: harness.reviews(), "the answer saved")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0
    assert len(harness.reviews()) == 1
