"""Snapshots of the main screens at 100x30 with a fixed clock, a fresh home and the sample deck.

Run ``pytest tests/tui/test_tui_snapshots.py --snapshot-update`` after a deliberate change to the
look, and look at the report before committing the new SVGs in __snapshots__/.
"""

from __future__ import annotations

from pathlib import Path

from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.review import ReviewScreen

from tui_helpers import SIZE, screen_text, wait_for, walk_to

from tui_helpers import answer


FIXED_CONFIG = Path("/home/learner/.local/share/studyapp/config.toml")


async def _ready(pilot) -> None:
    from textual.widgets import Input

    # A blinking cursor would make the picture depend on the moment it is taken.
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()
    # A DataTable sizes its columns when the app is next idle; on a busy machine that can come
    # after the picture. Wait for it (Textual's own flag, in the pinned version).
    from textual.widgets import DataTable

    await wait_for(pilot, lambda: not any(t._require_update_dimensions for t in pilot.app.screen.query(DataTable)),
                   "the tables laid out")
    await pilot.pause()


def _home_ready(pilot):
    return wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded, "the decks")


def _card_ready(pilot):
    return wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                    "a card")


async def _to_card(pilot, key: str) -> None:
    await walk_to(pilot, key)


def test_home(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [3], "ui-sample/markup-literal/main": [4]})

    async def run_before(pilot):
        await _home_ready(pilot)
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SIZE, run_before=run_before)


def test_review_question(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_review_answer_with_intervals(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await pilot.press("e")  # the answer and the explanation
        await wait_for(pilot, lambda: "The document says" in screen_text(pilot.app), "the explanation")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_review_markup_card_shown_literally(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _to_card(pilot, "ui-sample/markup-literal/main")
        await pilot.press("space")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_review_choice_card_after_a_wrong_pick(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _to_card(pilot, "ui-sample/transaction-choice/main")
        await pilot.press("2")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"], cram=True), terminal_size=SIZE, run_before=run_before)


def test_review_cloze_and_typed_answer(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _to_card(pilot, "ui-sample/speed-cloze/c2")
        await pilot.press("i")
        pilot.app.screen.query_one("#review-typed").value = "milisecond"
        await pilot.press("enter")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"], cram=True), terminal_size=SIZE, run_before=run_before)


def test_review_chinese_card(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _to_card(pilot, "ui-sample/chinese-text/main")
        await pilot.press("space")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"], cram=True), terminal_size=SIZE, run_before=run_before)


def test_session_summary(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        screen = pilot.app.screen
        for rating in ("1", "3", "4"):
            before = screen.shown.key
            harness.clock.advance(seconds=20)
            await pilot.press("space", rating)
            await wait_for(pilot, lambda: screen.shown.key != before, "the next card")
        await pilot.press("q")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_nothing_due(snap_compare, harness):
    answer(harness, {key: [4] for key in ("ui-sample/layer-count/main", "ui-sample/markup-literal/main",
                                          "ui-sample/top-layer/forward", "ui-sample/speed-cloze/c1",
                                          "ui-sample/transaction-choice/main", "ui-sample/layers-truefalse/main",
                                          "ui-sample/chinese-text/main", "ui-sample/long-card/main")})

    async def run_before(pilot):
        await wait_for(pilot, lambda: "Nothing is due" in screen_text(pilot.app), "the message")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_quiz_typed_answer_with_diff(snap_compare, harness):
    async def run_before(pilot):
        from studyapp.tui.screens.quiz import QuizScreen

        await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuizScreen) and pilot.app.screen.session, "quiz")
        screen = pilot.app.screen
        while screen.session.current.card.id != "layer-count":
            screen.query_one("#quiz-input").value = "x"
            await pilot.press("enter", "enter")
        screen.query_one("#quiz-input").value = "Thre layer"
        await pilot.press("enter")
        await _ready(pilot)

    app = harness.app("quiz", ["ui-sample"], quiz_mode="typed", quiz_n=4, quiz_seed=3)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_quiz_score(snap_compare, harness):
    async def run_before(pilot):
        from studyapp.tui.screens.quiz import QuizScreen
        from studyapp.tui.screens.score import ScoreScreen

        await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuizScreen) and pilot.app.screen.session, "quiz")
        screen = pilot.app.screen
        for key in ("1", "enter"):
            await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ScoreScreen), "the score")
        await _ready(pilot)

    app = harness.app("quiz", ["ui-sample"], quiz_mode="truefalse", quiz_seed=1)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_browse(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [1, 3]})

    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: "History" in screen_text(pilot.app), "the detail")
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SIZE, run_before=run_before)


def test_stats(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [4], "ui-sample/markup-literal/main": [3],
                     "ui-sample/speed-cloze/c1": [4]}, days=1)
    answer(harness, {"ui-sample/markup-literal/main": [1, 3], "ui-sample/top-layer/backward": [3]})

    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False) and "Retention" in
                       screen_text(pilot.app) and pilot.app.screen.query_one("#chart-reviews").values, "the stats")
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SIZE, run_before=run_before)


def test_settings(snap_compare, harness):
    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False), "the settings")
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SIZE, run_before=run_before)


def test_help_on_review(snap_compare, harness):
    async def run_before(pilot):
        from studyapp.tui.modals.help import HelpModal

        await _card_ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpModal), "the help")
        await _ready(pilot)

    app = harness.app("study", ["ui-sample"])
    # The help names the config file of the home folder: a fixed one, not the test's temporary folder.
    app.config.path = FIXED_CONFIG
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_source_viewer(snap_compare, harness):
    async def run_before(pilot):
        from studyapp.tui.modals.source import SourceModal

        await _card_ready(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SourceModal), "the source")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"]), terminal_size=SIZE, run_before=run_before)


def test_terminal_too_small(snap_compare, harness):
    async def run_before(pilot):
        await _home_ready(pilot)
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=(50, 12), run_before=run_before)


# -- 80x24, the most common terminal size ----------------------------------------------------------

SMALL = (80, 24)


def test_home_80x24(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [3], "ui-sample/markup-literal/main": [4]})

    async def run_before(pilot):
        await _home_ready(pilot)
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SMALL, run_before=run_before)


def test_review_choice_card_after_a_wrong_pick_80x24(snap_compare, harness):
    async def run_before(pilot):
        await _card_ready(pilot)
        await _to_card(pilot, "ui-sample/transaction-choice/main")
        await pilot.press("2")
        await _ready(pilot)

    assert snap_compare(harness.app("study", ["ui-sample"], cram=True), terminal_size=SMALL, run_before=run_before)


def test_browse_80x24(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [1, 3]})

    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("b")
        # The history is below the fold of the detail pane at this height.
        await wait_for(pilot, lambda: "Again" in str(pilot.app.screen.query_one("#browse-history").render()),
                       "the detail")
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SMALL, run_before=run_before)


def test_stats_80x24(snap_compare, harness):
    answer(harness, {"ui-sample/layer-count/main": [4], "ui-sample/markup-literal/main": [3]}, days=1)

    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False) and
                       pilot.app.screen.query_one("#chart-reviews").values, "the stats")
        # The deck table is below the charts at this height: show it.
        pilot.app.screen.query_one("#stats-body").scroll_end(animate=False)
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SMALL, run_before=run_before)


def test_settings_80x24(snap_compare, harness):
    async def run_before(pilot):
        await _home_ready(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False), "the settings")
        await _ready(pilot)

    assert snap_compare(harness.app("home"), terminal_size=SMALL, run_before=run_before)
