"""The app in each language: reviews, quizzes and the Settings field; Chinese at 80x24 keeps its layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.quiz import QuizScreen
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.settings import SettingsScreen

from tui_helpers import screen_text, wait_for, walk_to

BILINGUAL = Path(__file__).parent / "data" / "bilingual" / "decks"
SMALL = (80, 24)
WHY_ZH = "在 3FS 中，为什么 client 可以连接任意一个 meta service，而不必总是连接同一个实例？请说明原因。"
WHY_EN = "In 3FS, why can a client connect to any meta service instead of always the same instance? Give the reason."


def app_in(harness, language, screen="study", deck_ids=("ui-bilingual",), **start):
    app = harness.app(screen, deck_ids, decks=[BILINGUAL], **start)
    app.services.language = language  # as launch does from --lang, STUDYAPP_LANG or the setting
    return app


async def card(pilot, key):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                   "a card")
    await walk_to(pilot, key)
    await pilot.pause()


def flat(text: str) -> str:
    """The screen's text without the line breaks and padding wrapping added."""
    return "".join(text.split())


def assert_fits(app, width=SMALL[0]):
    for number, strip in enumerate(app.screen._compositor.render_strips(), 1):
        assert cell_len(strip.text) <= width, f"line {number} is {cell_len(strip.text)} cells: {strip.text!r}"


@pytest.mark.parametrize(("language", "shown", "hidden"), [
    ("zh", WHY_ZH, WHY_EN), ("en", WHY_EN, WHY_ZH), (None, WHY_ZH, WHY_EN),
])
async def test_a_review_shows_the_chosen_language_only(harness, language, shown, hidden):
    app = app_in(harness, language)
    async with app.run_test(size=SMALL) as pilot:
        await card(pilot, "ui-bilingual/stateless-why/main")
        text = flat(screen_text(app))
        assert flat(shown) in text and flat(hidden) not in text
        assert_fits(app)


async def test_both_shows_the_primary_with_the_english_dimmed_under_it(harness):
    app = app_in(harness, "both")
    async with app.run_test(size=SMALL) as pilot:
        await card(pilot, "ui-bilingual/stateless-why/main")
        text = flat(screen_text(app))
        assert text.index(flat(WHY_ZH)) < text.index(flat(WHY_EN))
        front = app.screen.query_one("#card-front").visual
        english = [span for span in front.spans if front.plain[span.start:span.end] == WHY_EN]
        assert english and str(english[0].style) == "dim"
        assert_fits(app)


async def test_an_english_answer_typed_on_a_chinese_card_is_right(harness):
    app = app_in(harness, "zh")
    async with app.run_test(size=SMALL) as pilot:
        await card(pilot, "ui-bilingual/stateless-why/main")
        await pilot.press("i")
        app.screen.query_one("#review-typed").value = "Because the meta service is stateless; metadata is persisted in FoundationDB"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.check is not None, "the check")
        assert app.screen.check.correct and app.screen.check.reason == "in another language"
        assert "✓ Right" in screen_text(app)


async def test_a_choice_card_in_both_languages_marks_options_and_feedback_in_each(harness):
    app = app_in(harness, "both", cram=True)
    async with app.run_test(size=SMALL) as pilot:
        await card(pilot, "ui-bilingual/consistency/main")
        shown = app.screen.shown.item.card
        wrong = shown.choices.index("最终一致") + 1
        await pilot.press(str(wrong))
        await wait_for(pilot, lambda: app.screen.revealed, "the reveal")
        text = screen_text(app)
        for zh, en in (("强一致", "Strong consistency"), ("最终一致", "Eventual consistency")):
            line = next(line for line in text.splitlines() if f". {zh} " in line)
            assert en in line  # an option's English stands beside it
        assert flat("文中写的是“支持数据强一致”，而不是最终一致。") in flat(text)
        assert flat("The text says it supports strong consistency, not eventual.") in flat(text)
        assert_fits(app)


async def test_a_quiz_in_english_asks_and_checks_in_english(harness):
    app = app_in(harness, "en", screen="quiz", quiz_mode="choice", quiz_n=1, quiz_seed=1)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, QuizScreen) and app.screen.session, "quiz")
        question = app.screen.session.current
        assert question.card.front == "Which consistency guarantee does 3FS give its data?"
        assert set(question.options) == {"Eventual consistency", "Causal consistency", "Strong consistency", "Session consistency"}
        # The session exists a moment before its question is drawn: wait for the drawing, not a guess.
        await wait_for(pilot, lambda: flat(question.card.front) in flat(screen_text(app)), "the question drawn")
        assert "强一致" not in screen_text(app)
        await pilot.press(str(question.options.index("Strong consistency") + 1))
        await wait_for(pilot, lambda: app.screen.session.answers, "the answer")
        assert app.screen.session.answers[0].correct
        assert_fits(app)


async def test_the_language_setting_applies_and_is_saved(harness):
    app = app_in(harness, None, screen="home", deck_ids=())
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded, "the decks")
        await wait_for(pilot, lambda: "双语示例" in screen_text(app), "the deck's Chinese title on the home screen")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.loaded, "the settings")
        select = app.screen.query_one("#setting-lang")
        assert select.value == "primary"
        select.value = "en"
        await wait_for(pilot, lambda: app.services.language == "en", "the language applied")
        assert 'lang = "en"' in (harness.home / "config.toml").read_text(encoding="utf-8")
        assert app.services.catalog().decks[0].title == "Bilingual sample"
        select.value = "primary"
        await wait_for(pilot, lambda: app.services.language is None, "back to each deck's own")
        assert 'lang = "primary"' in (harness.home / "config.toml").read_text(encoding="utf-8")
        assert app.services.catalog().decks[0].title == "双语示例"


async def test_progress_is_per_item_whatever_the_language(harness):
    app = app_in(harness, "zh")
    async with app.run_test(size=SMALL) as pilot:
        await card(pilot, "ui-bilingual/stateless-why/main")
        app.screen.action_reveal()
        app.screen.action_grade(3)
        await pilot.pause()
    app = app_in(harness, "en")
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        assert app.screen.shown.key != "ui-bilingual/stateless-why/main"  # answered in zh: not new in en
    assert [key for key, *_ in harness.reviews()] == ["ui-bilingual/stateless-why/main"]


# -- snapshots at 80x24 (look at the report before approving: pytest --snapshot-update) --------------

async def _settled(pilot):
    from textual.widgets import Input

    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def test_snapshot_chinese_answer_revealed_at_80x24(snap_compare, harness):
    async def run_before(pilot):
        await card(pilot, "ui-bilingual/stateless-why/main")
        pilot.app.screen.action_reveal()
        await _settled(pilot)

    assert snap_compare(app_in(harness, "zh"), terminal_size=SMALL, run_before=run_before)


def test_snapshot_both_languages_choice_after_a_wrong_pick_at_80x24(snap_compare, harness):
    async def run_before(pilot):
        await card(pilot, "ui-bilingual/consistency/main")
        await pilot.press(str(pilot.app.screen.shown.item.card.choices.index("最终一致") + 1))
        await wait_for(pilot, lambda: pilot.app.screen.revealed, "the reveal")
        await _settled(pilot)

    assert snap_compare(app_in(harness, "both", cram=True), terminal_size=SMALL, run_before=run_before)


def test_snapshot_english_quiz_after_an_answer_at_80x24(snap_compare, harness):
    async def run_before(pilot):
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuizScreen) and pilot.app.screen.session, "quiz")
        question = pilot.app.screen.session.current
        await pilot.press(str(question.options.index("Eventual consistency") + 1))
        await wait_for(pilot, lambda: pilot.app.screen.session.answers, "the answer")
        await _settled(pilot)

    app = app_in(harness, "en", screen="quiz", quiz_mode="choice", quiz_n=2, quiz_seed=1)
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_both_languages_quiz_question_at_80x24(snap_compare, harness):
    async def run_before(pilot):
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuizScreen) and pilot.app.screen.session, "quiz")
        await _settled(pilot)

    app = app_in(harness, "both", screen="quiz", quiz_mode="choice", quiz_n=2, quiz_seed=1)
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
