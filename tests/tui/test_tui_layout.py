"""The layout at the two sizes a newcomer meets most, 80x24 and 120x35: every column readable,
no horizontal scrollbar, wrapped lines under their own start, toasts clear of the grade buttons."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from studyapp.core.catalog import bundled_decks_dir
from studyapp.tui.screens.browse import BrowseScreen, break_id, list_layout
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.score import ScoreScreen
from studyapp.tui.screens.stats import StatsScreen, deck_columns

from tui_helpers import DATA, screen_text, wait_for, wait_for_text, walk_to

from tui_helpers import answer

SIZES = [(80, 24), (120, 35)]
LONG_FEEDBACK = ("No: the FX graph cache caches optimized computation graphs and skips graph optimization and "
                 "code generation; forward and backward graph construction is avoided by another cache.")


def fits(table: DataTable) -> bool:
    """No horizontal scrollbar: the columns are no wider than the table's room for them."""
    return table.virtual_size.width <= table.scrollable_content_region.width


async def wait_home(pilot) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded, "the decks")


# -- browse ----------------------------------------------------------------------------------------

def test_browse_columns_take_what_the_list_has():
    # 48 cells of list: 2 scrollbar, 8 padding, deck 10, state 9, short date 5: 14 for the question.
    assert list_layout(80, 48) == {"question": 14, "deck": 10, "state": 9, "due": 5}
    assert list_layout(99, 64) == {"question": 30, "deck": 10, "state": 9, "due": 5}
    assert list_layout(100, 65) == {"question": 24, "deck": 12, "state": 9, "due": 10}
    assert list_layout(120, 78) == {"question": 37, "deck": 12, "state": 9, "due": 10}
    assert list_layout(60, 30)["question"] == 12  # never below the minimum


def test_an_item_id_breaks_only_after_a_slash():
    key = "pytorch-mega-cache/framework-kind/main"
    assert break_id(key, len(key)) == key
    assert break_id(key, len(key) - 1) == "pytorch-mega-cache/framework-kind/\nmain"
    assert break_id(key, 28) == "pytorch-mega-cache/\nframework-kind/main"
    assert break_id(key, 10) == "pytorch-mega-cache/\nframework-kind/\nmain"  # a long part is never split
    assert break_id("solo", 2) == "solo"


@pytest.mark.parametrize("size", SIZES)
async def test_browse_keeps_state_and_due_readable_and_the_id_whole(harness, size):
    answer(harness, {"ui-sample/transaction-choice/main": [3], "ui-sample/layer-count/main": [3]})
    app = harness.app("home")
    async with app.run_test(size=size) as pilot:
        await wait_home(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.loaded, "browse")
        screen = app.screen
        table = screen.query_one("#browse-table", DataTable)
        await wait_for(pilot, lambda: table.row_count and fits(table) and screen._layout["question"] ==
                       list_layout(size[0], table.size.width)["question"], "the columns fitted")
        text = screen_text(app)
        assert "Question" in text and " State " in text and " Due " in text
        row = next(line for line in text.split("\n") if "│" in line and " learning " in line)
        # The state in full, and the due date (month and day at 80 columns, with the year from 100).
        assert ("2026-05-28" if size[0] >= 100 else "05-28") in row
        table.move_cursor(row=screen.shown_keys.index("ui-sample/transaction-choice/main"))
        card = screen.query_one("#browse-card")
        await wait_for(pilot, lambda: "transaction-choice" in card.render().plain, "its detail")
        detail = card.render().plain.split("\n")
        id_lines = [line for line in detail if line.startswith("ui-sample/") or line in ("main", "transaction-choice/main")]
        assert "".join(id_lines) == "ui-sample/transaction-choice/main"
        assert all(line.endswith("/") for line in id_lines[:-1])


# -- stats -----------------------------------------------------------------------------------------

def test_stats_deck_columns_fit_the_width():
    title, columns = deck_columns(120, 53)
    assert title == 40 and [label for label, _ in columns][-1] == "Progress"
    # 80 cells: 4 of padding, 2 of scrollbar, 31 for the short columns, 18 for nine cells' padding.
    title, columns = deck_columns(80, 53)
    assert title == 25 and [label for label, _ in columns] == ["Items", "New", "Learn", "Rev", "Due", "Answ", "Ret",
                                                                "Seen"]
    assert deck_columns(99, 53)[1][2][0] == "Learn" and deck_columns(100, 53)[1][2][0] == "Learning"
    assert deck_columns(120, 20)[0] == 20


@pytest.mark.parametrize("size", SIZES)
async def test_stats_shows_all_eight_decks_without_a_horizontal_scrollbar(harness, size):
    app = harness.app("home", decks=[bundled_decks_dir()])
    async with app.run_test(size=size) as pilot:
        await wait_home(pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.loaded, "stats")
        table = app.screen.query_one("#stats-decks", DataTable)
        await wait_for(pilot, lambda: table.row_count == 8 and not table._require_update_dimensions, "the table")
        assert fits(table) and table.size.height == 9  # the header and all eight rows
        if size == (120, 35):
            # The whole table on screen as it opens, Progress column and the eighth deck included.
            text = screen_text(app)
            assert "Retention  Progress" in text and "3FS" in text


# -- wrapped lines ---------------------------------------------------------------------------------

def long_feedback_deck(tmp_path):
    import shutil

    folder = tmp_path / "decks"
    folder.mkdir()
    (tmp_path / "seeds").mkdir()
    shutil.copy(DATA / "seeds" / "ui-sample.md", tmp_path / "seeds")  # a seed is named relative to its deck
    (folder / "wrap.yaml").write_text(
        "schema: 1\nid: wrap\ntitle: Wrapping\nseed: ../seeds/ui-sample.md\ncards:\n"
        "  - id: cache-choice\n    type: choice\n    front: Which cache skips graph optimization?\n"
        "    choices: [AOTAutograd cache, FX graph cache]\n    answer: AOTAutograd cache\n"
        f"    feedback: {{FX graph cache: \"{LONG_FEEDBACK}\"}}\n"
        "    source: \"The widget cache has three layers.\"\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("size", SIZES)
async def test_wrapped_choice_feedback_keeps_its_hanging_indent(harness, tmp_path, size):
    app = harness.app("study", ["wrap"], decks=[long_feedback_deck(tmp_path)])
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "card")
        await pilot.press("2")
        text = await wait_for_text(pilot, "Not quite")
        lines = text.split("\n")
        start = next(i for i, line in enumerate(lines) if "No: the FX graph cache" in line)
        feedback = []
        for line in lines[start:]:
            if not line.startswith(" " * 7) or not line.strip():
                break
            feedback.append(line)
        # Two cells of the view's padding, five of the option's: every line starts under the first.
        assert len(feedback) >= 2 and all(line.startswith(" " * 7) and line[7] != " " for line in feedback)
        assert " ".join(line.strip() for line in feedback) == LONG_FEEDBACK


@pytest.mark.parametrize("size", SIZES)
async def test_wrapped_quiz_score_lines_keep_their_indent(harness, tmp_path, size):
    app = harness.app("quiz", ["wrap"], decks=[long_feedback_deck(tmp_path)], quiz_mode="choice", quiz_seed=1)
    async with app.run_test(size=size) as pilot:
        from studyapp.tui.screens.quiz import QuizScreen

        await wait_for(pilot, lambda: isinstance(app.screen, QuizScreen) and app.screen.session, "the quiz")
        question = app.screen.session.current
        await pilot.press(str(question.options.index("FX graph cache") + 1))
        await wait_for(pilot, lambda: app.screen.answered, "the answer")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        text = await wait_for_text(pilot, "To revisit")
        lines = text.split("\n")
        start = next(i for i, line in enumerate(lines) if "No: the FX graph cache" in line)
        end = next(i for i, line in enumerate(lines) if "wrap / cache-choice" in line)
        feedback = lines[start:end]
        # The screen's two cells and the detail's three.
        assert len(feedback) >= 2 and all(line.startswith(" " * 5) and line[5] != " " for line in feedback)
        assert " ".join(line.strip() for line in feedback) == LONG_FEEDBACK


# -- toasts ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
async def test_a_toast_never_covers_the_grade_buttons_or_the_hint_line(harness, size):
    from textual.widgets._toast import Toast

    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "card")
        screen = app.screen
        await pilot.press("u")  # nothing to undo yet: a toast over the question and its hint line
        await wait_for(pilot, lambda: screen.query(Toast), "the toast")
        hint = screen.query_one("#reveal-hint")
        for toast in screen.query(Toast):
            assert not toast.region.overlaps(hint.region)
        await walk_to(pilot, "ui-sample/speed-cloze/c1")
        await pilot.press("space", "e")  # "This card has no explanation." over the grade buttons
        await wait_for(pilot, lambda: any("no explanation" in str(t.render()) for t in screen.query(Toast)),
                       "the second toast")
        bar = screen.query_one("#grade-bar")
        assert bar.display
        for toast in screen.query(Toast):
            assert not toast.region.overlaps(bar.region) and not toast.region.overlaps(hint.region)
