"""The app as a whole: help on every screen, remapped keys, the config file, a terminal that is
too small, resizing, a database that is locked or not ours, Ctrl+C anywhere, import hygiene."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from studyapp.tui import keymap
from studyapp.tui.modals.help import HelpModal
from studyapp.tui.modals.problem import ProblemModal
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.review import ReviewScreen

from tui_helpers import SIZE, screen_text, wait_for, wait_for_text


async def wait_home(pilot):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded, "the decks")


# -- help ------------------------------------------------------------------------------------

SCREENS = {"home": "b", "browse": "b", "stats": "t", "settings": "o"}


@pytest.mark.parametrize("start, prefix", [("home", "home"), ("study", "review"), ("quiz", "quiz")])
async def test_question_mark_lists_every_key_of_the_screen(harness, start, prefix):
    app = harness.app(start, ["ui-sample"] if start != "home" else [], quiz_mode="choice", quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        underneath = app.screen
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        listed = {binding_id for binding_id, _, _ in app.screen.rows}
        expected = {spec.id for spec in keymap.SPECS if spec.id.startswith(prefix + ".")}
        assert expected <= listed, expected - listed
        assert "app.help" in listed
        # The list scrolls when it is longer than the dialog: read all of it.
        text = app.screen.query_one("#help-rows").render().plain
        spec = keymap.BY_ID[f"{prefix}.leave" if prefix != "home" else "home.study"]
        assert spec.help in " ".join(text.split()) and spec.id in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is underneath, "the help closed")


@pytest.mark.parametrize("key, prefix", [("b", "browse"), ("t", "stats"), ("o", "settings")])
async def test_help_on_the_other_screens(harness, key, prefix):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await wait_home(pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: not isinstance(app.screen, HomeScreen), "the screen")
        await app.workers.wait_for_complete()
        app.screen.set_focus(None)  # out of any text field, where ? would be typed
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        listed = {binding_id for binding_id, _, _ in app.screen.rows}
        assert {spec.id for spec in keymap.SPECS if spec.id.startswith(prefix + ".")} <= listed


def test_every_binding_has_a_unique_id_and_help_text():
    ids = [spec.id for spec in keymap.SPECS]
    assert len(ids) == len(set(ids))
    for spec in keymap.SPECS:
        assert spec.id.count(".") == 1 and spec.help and spec.label


def test_every_screen_and_modal_binding_comes_from_the_keymap():
    """Each BINDINGS of the app is built from the table, so every binding has an id."""
    import importlib
    import pkgutil

    import studyapp.tui.modals as modals
    import studyapp.tui.screens as screens
    from studyapp.tui.app import StudyApp

    classes = [StudyApp]
    for package in (screens, modals):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            classes += [obj for obj in vars(module).values() if isinstance(obj, type)
                        and obj.__module__ == module.__name__ and "BINDINGS" in vars(obj)]
    used = set()
    for cls in classes:
        for binding in cls.BINDINGS:
            assert binding.id in keymap.BY_ID, f"{cls.__name__}: {binding}"
            used.add(binding.id)
    # And the other way: every id in the table is bound somewhere (no stale row in the help).
    assert used == set(keymap.BY_ID), sorted(set(keymap.BY_ID) - used)


# -- remapping -------------------------------------------------------------------------------

async def test_config_remaps_keys_by_binding_id(harness):
    config = '[keys]\n"review.reveal" = "x"\n"review.grade-good" = "j"\n'
    app = harness.app("study", ["ui-sample"], config=config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        screen = app.screen
        await pilot.press("space")
        await pilot.pause()
        assert not screen.revealed  # space is no longer bound
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.revealed, "x reveals")
        from studyapp.tui.widgets.review.grade_bar import GradeBar
        bar = str(screen.query_one(GradeBar).render())
        assert "j Good" in bar and "3 Good" not in bar and "1 Again" in bar  # the bar names the remapped key
        await pilot.press("j")
        await wait_for(pilot, lambda: screen.shown.key == "ui-sample/markup-literal/main", "j grades Good")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        rows = {binding_id: keys for binding_id, keys, _ in app.screen.rows}
        assert rows["review.reveal"] == "x" and rows["review.grade-good"] == "j"
    assert harness.reviews() == [("ui-sample/layer-count/main", 3, "review")]


def test_config_file_problems_are_warnings_naming_the_file(tmp_path):
    from studyapp.tui.config import load_config

    (tmp_path / "config.toml").write_text('theme = 3\n[keys]\n"review.revael" = "x"\n"review.undo" = ""\n',
                                          encoding="utf-8")
    config = load_config(tmp_path)
    assert config.keys == {}
    text = "\n".join(config.warnings)
    assert str(tmp_path / "config.toml") in text
    assert "did you mean 'review.reveal'?" in text
    assert "theme must be a name" in text and "'review.undo' must be a key" in text
    (tmp_path / "config.toml").write_text("theme = \n", encoding="utf-8")
    assert "not valid TOML" in load_config(tmp_path).warnings[0]


def test_saving_the_theme_keeps_the_rest_of_the_file(tmp_path):
    from studyapp.tui.config import load_config, save_theme

    (tmp_path / "config.toml").write_text('# mine\n[keys]\n"review.undo" = "z"\n', encoding="utf-8")
    config = load_config(tmp_path)
    save_theme(config, "nord")
    again = load_config(tmp_path)
    assert again.theme == "nord" and again.keys == {"review.undo": "z"} and not again.warnings
    assert (tmp_path / "config.toml").read_text(encoding="utf-8").startswith("# mine\ntheme = \"nord\"\n[keys]")


# -- terminal size ---------------------------------------------------------------------------

async def test_a_terminal_too_small_says_so_and_recovers_on_resize(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        screen = app.screen
        await pilot.resize_terminal(40, 10)
        text = await wait_for_text(pilot, "The terminal is 40×10")
        assert "How many layers" not in text  # the notice covers the card
        await pilot.press("space", "3")  # keys do nothing while the card cannot be seen
        await pilot.pause()
        assert not screen.revealed and harness.reviews() == []
        await pilot.resize_terminal(*SIZE)
        await wait_for(pilot, lambda: "The terminal is" not in screen_text(app), "the card back")
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.revealed, "keys work again")


async def test_starting_in_a_tiny_terminal_does_not_crash(harness):
    app = harness.app("home")
    async with app.run_test(size=(20, 5)) as pilot:
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: app.screen.too_small, "the too-small notice")
        await pilot.resize_terminal(*SIZE)
        await wait_home(pilot)
        assert not app.screen.too_small


async def test_resizing_keeps_the_card_and_rewraps_it(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        for width, height in ((60, 16), (140, 40), (72, 20)):
            await pilot.resize_terminal(width, height)
            text = await wait_for_text(pilot, "How many layers")
            assert all(len(line) <= width for line in text.splitlines())


# -- the database ----------------------------------------------------------------------------

async def test_a_database_locked_by_another_copy_gives_a_clear_message(harness, monkeypatch):
    from studyapp.store import schema

    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 200)  # the real wait is 10 s
    other = sqlite3.connect(harness.location.database, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        app = harness.app("study", ["ui-sample"])
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ProblemModal), "the problem", turns=2000)
            text = await wait_for_text(pilot, "studyapp cannot go on")
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.is_running, "the app to exit")
        assert app.return_code == 1
        # What the learner reads, on the screen and after it: which file, why, and what to do.
        assert app.error_message.endswith(
            f"the progress database {harness.location.database} stayed busy for 0 s (another studyapp is "
            "writing to it); close the other one and try again")
        dialog = " ".join(text.translate(str.maketrans("", "", "█▀▄")).split())  # the box's border out of the words
        assert "another studyapp is writing to it" in dialog
    finally:
        other.rollback()
        other.close()


async def test_a_file_that_is_not_a_studyapp_database_gives_a_clear_message(harness):
    harness.location.database.unlink()
    harness.location.database.write_bytes(b"this is not a database at all" * 10)
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ProblemModal), "the problem")
        await wait_for_text(pilot, "is not a studyapp progress database")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 1


async def test_an_unknown_deck_id_is_a_usage_error(harness):
    app = harness.app("study", ["no-such-deck"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ProblemModal), "the problem")
        await wait_for_text(pilot, "unknown deck id 'no-such-deck'; known decks: ui-sample")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 2


# -- Ctrl+C ----------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["home", "help", "quiz-typing", "flag-dialog"])
async def test_ctrl_c_quits_from_anywhere(harness, where):
    start = {"home": "home", "help": "home", "quiz-typing": "quiz", "flag-dialog": "study"}[where]
    app = harness.app(start, ["ui-sample"] if start != "home" else [], quiz_mode="typed", quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if where == "help":
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        elif where == "quiz-typing":
            await wait_for(pilot, lambda: app.screen.query_one("#quiz-input").has_focus, "the answer box")
            await pilot.press("a", "b")
        elif where == "flag-dialog":
            await wait_for(pilot, lambda: app.screen.shown is not None, "a card")
            await pilot.press("f")
            await wait_for(pilot, lambda: app.screen.query_one("#flag-note").has_focus, "the flag note box")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 130
    assert app.exit_message == "studyapp: interrupted; 0 answers saved (each answer is saved when it is given)"


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_ctrl_c_mid_session_counts_the_saved_answers_less_the_undone_ones(harness, size):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.screen.shown is not None, "a card")
        screen = app.screen
        for rating in ("3", "1", "4"):
            before = screen.shown.key
            await pilot.press("space", rating)
            await wait_for(pilot, lambda: screen.shown is not None and screen.shown.key != before, "the next card")
        await pilot.press("u")
        await wait_for(pilot, lambda: any(n.message.startswith("Undone") for n in app._notifications), "the undo")
        assert [n.message for n in app._notifications if n.message.startswith("Undone")] == [
            "Undone: Easy on ui-sample / top-layer."]
        await pilot.press("minus", "u")
        await wait_for(pilot, lambda: "Undone: bury of ui-sample / top-layer." in
                       [n.message for n in app._notifications], "the bury undone")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 130
    assert app.exit_message == "studyapp: interrupted; 2 answers saved (each answer is saved when it is given)"
    assert [rating for _, rating, _ in harness.reviews()] == [3, 1]


# -- import hygiene --------------------------------------------------------------------------

def test_launch_module_does_not_import_textual_until_the_app_runs():
    code = ("import sys\nimport studyapp.commands.tui\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_study_command_turns_the_cycle_collector_back_on_however_it_ends():
    import gc

    from studyapp.commands import tui
    from studyapp.core.gcpause import collector_paused

    # The terminal app's commands are paused as this one is.
    assert all(hasattr(run, "__wrapped__") for run in (tui.run_study, tui.run_quiz, tui.run_home))
    seen = []

    @collector_paused()
    def failing(context, args):
        seen.append(gc.isenabled())
        raise RuntimeError("the app went wrong")

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        failing(None, None)
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("start", ["study", "quiz", "home"])
async def test_the_first_screen_turns_the_paused_cycle_collector_back_on(harness, start, monkeypatch):
    import gc

    import studyapp.tui.app

    # Only the screen itself can turn it on within the test: the fallback timer is an hour away.
    monkeypatch.setattr(studyapp.tui.app, "GC_RESUME_AFTER_S", 3600)
    app = harness.app(start, ["ui-sample"] if start != "home" else [], quiz_mode="choice", quiz_seed=1)
    app.resume_gc_when_ready = True  # as commands/tui.py sets it, having turned the collector off
    gc.disable()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, gc.isenabled, "the collector back on")
            assert not app.resume_gc_when_ready
            if start == "study":
                assert app.screen.shown is not None  # on when the first card is up, not before
    finally:
        gc.enable()


def test_docs_list_every_binding_id_with_its_default_keys():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "app.md").read_text(encoding="utf-8")
    for spec in keymap.SPECS:
        line = next((l for l in docs.splitlines() if f"`{spec.id}`" in l), None)
        assert line is not None, f"docs/app.md does not list {spec.id}"
        assert spec.help in line, f"docs/app.md describes {spec.id} differently from the keymap"


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_help_names_this_homes_config_file_and_the_repository_docs(harness, size):
    app = harness.app("home")
    async with app.run_test(size=size) as pilot:
        await wait_home(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        essentials = app.screen.query_one("#help-essentials").render().plain
        assert f"Remap keys by id in {harness.home / 'config.toml'}: [keys] \"review.undo\" = \"z,u\"" in essentials
        assert "docs/app.md in the studyapp source repository" in essentials
        # Each key's binding id is beside it, to remap it by.
        rows = app.screen.query_one("#help-rows").render().plain
        assert "Browse and search the cards  home.browse" in rows


def test_help_rows_wrap_under_their_description_not_under_the_keys():
    from textual.content import Content

    from studyapp.tui.widgets.cards.render import hanging

    line = Content("space / ⏎  Show the answer; after that, Good (or the grade a checked answer proposed)")
    assert hanging(line, 11, 40).plain.split("\n") == [
        "space / ⏎  Show the answer; after that,",
        "           Good (or the grade a checked",
        "           answer proposed)"]
    assert hanging(line, 11, None) is line and hanging(Content("short"), 11, 40).plain == "short"
    # Exactly the width: not wrapped; one cell wider: wrapped.
    assert hanging(Content("x" * 30), 4, 30).plain == "x" * 30
    assert hanging(Content("abc " * 8), 4, 30).plain.split("\n") == ["abc abc abc abc abc abc abc", "    abc"]


async def test_footer_keys_are_styled_compact_once_not_again_when_mounted(harness, monkeypatch):
    from textual.app import App
    from textual.widgets._footer import FooterKey

    restyled = []
    original = App.update_styles

    def update_styles(self, node, animate=True):
        if isinstance(node, FooterKey):
            restyled.append(node)
        return original(self, node, animate)

    monkeypatch.setattr(App, "update_styles", update_styles)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        await pilot.pause()
        keys = list(app.screen.query(FooterKey))
        assert keys and all(key.has_class("-compact") for key in keys)
    assert restyled == []
