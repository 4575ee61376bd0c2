"""Pilot tests of the quiz: choice by number, true/false by t and f, typed answers with a diff
and "I was right", the score screen, and a schedule left alone."""

from __future__ import annotations

import pytest

from studyapp.tui.screens.quiz import QuizScreen
from studyapp.tui.screens.score import ScoreScreen

from tui_helpers import SIZE, screen_text, wait_for, wait_for_text


async def open_quiz(pilot):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuizScreen) and pilot.app.screen.session is not None,
                   "the quiz")
    await pilot.pause()
    return pilot.app.screen


async def test_choice_question_by_number_key(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="choice", quiz_n=5, quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        assert len(screen.session.questions) == 1
        question = screen.session.current
        text = await wait_for_text(pilot, "How many transactions does a review take?")
        for number, option in enumerate(question.options, 1):
            assert f"{number}. {option}" in text
        wrong = next(i for i, o in enumerate(question.options) if o == "Two") + 1
        await pilot.press(str(wrong))
        text = await wait_for_text(pilot, "Not quite")
        assert "the state and the log row share one transaction" in text  # the deck's feedback for "Two"
        assert "✓" in text and "✗" in text
        await pilot.press("space")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        text = await wait_for_text(pilot, "Quiz finished: 0 of 1 right")
        assert "How many transactions does a review take?" in text  # listed to revisit
        assert "You answered: Two" in text and "Answer:       One" in text
    assert harness.reviews() == []  # a practice quiz leaves the schedule alone


async def test_truefalse_by_1_and_2_as_in_review(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="truefalse", quiz_n=5, quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        text = await wait_for_text(pilot, "The widget cache has two layers.")
        assert "1. True" in text and "2. False" in text and "1 True" in text  # the options and the footer
        await pilot.press("2")
        text = await wait_for_text(pilot, "Right")
        assert "The statement is False" in text
        assert "False: it has three layers." in text
        assert screen.session.score() == (1, 1)
        await pilot.press("enter")
        await wait_for_text(pilot, "Quiz finished: 1 of 1 right (100%)")
        assert "No misses." in screen_text(app)


async def test_1_answers_true(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="truefalse", quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        await pilot.press("1")
        await wait_for_text(pilot, "Not quite")
        assert screen.session.answers[0].given == "True" and not screen.session.answers[0].correct


async def test_typed_answers_lenient_with_a_diff_and_i_was_right(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="typed", quiz_n=4, quiz_seed=3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        typed = screen.query_one("#quiz-input")
        answers = {"layer-count": "３", "markup-literal": "[bold]bold[/bold]", "long-card": "To test scrolling!",
                   "chinese-text": "不知道"}
        results = []
        while screen.session.current is not None:
            card = screen.session.current.card
            await wait_for(pilot, lambda: typed.has_focus, "the answer box")
            typed.value = answers[card.id]
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.answered, "the answer checked")
            results.append((card.id, screen.session.answers[-1].correct))
            text = await wait_for_text(pilot, "Expected:")
            if card.id == "layer-count":
                assert screen.session.answers[-1].correct  # full-width digit, "3" in the accept list
            if card.id == "markup-literal":
                assert not screen.session.answers[-1].correct
                assert "Difference:" in text and "[bold]bold[/bold] exactly as typed" in text
                await pilot.press("r")  # "I was right"
                await wait_for_text(pilot, "Right (you overruled the check)")
                assert screen.session.answers[-1].correct
            await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        text = await wait_for_text(pilot, "Quiz finished: 3 of 4 right (75%)")
        assert "不知道" in text  # the miss, listed to revisit
    assert dict(results)["long-card"] is True  # punctuation does not matter
    assert harness.reviews() == []


async def test_leaving_a_quiz_midway_shows_the_score_so_far(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="mixed", quiz_n=3, quiz_seed=5)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        question = screen.session.current
        if question.kind == "typed":
            screen.query_one("#quiz-input").value = "something"
            await pilot.press("enter")
        elif question.kind == "choice":
            await pilot.press("1")
        else:
            await pilot.press("1")
        await wait_for(pilot, lambda: screen.answered, "the first answer")
        from studyapp.tui.modals.confirm import ConfirmModal

        await pilot.press("escape")  # asks first: an accidental Escape must not end the quiz
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), "the question")
        assert "Leave the quiz? 1 of 3 answered" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "back to the quiz")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), "the question again")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        assert "2 not answered" in await wait_for_text(pilot, "Quiz finished")


async def test_keys_that_do_not_fit_the_question_do_nothing(harness):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="truefalse", quiz_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        # t and f no longer answer (f flags in review); 3 is not an option; nothing typed or answered yet.
        await pilot.press("t", "f", "3", "r", "space")
        await pilot.pause()
        assert screen.session.answers == [] and not screen.answered


async def test_a_deck_without_questions_of_the_mode_says_so(harness, tmp_path):
    deck = tmp_path / "decks" / "only-cloze.yaml"
    deck.parent.mkdir()
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("Alpha beta gamma.\n", encoding="utf-8")
    deck.write_text("schema: 1\nid: only-cloze\ntitle: Only cloze\nseed: ../seeds/s.md\ncards:\n"
                    "  - {id: c, type: cloze, text: 'Alpha {{c1::beta}} gamma.', source: 'Alpha beta gamma.'}\n",
                    encoding="utf-8")
    app = harness.app("quiz", ["only-cloze"], decks=[deck.parent], quiz_mode="typed")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_text(pilot, "These decks have no typed questions to quiz on.")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_running, "the app to close (opened by studyapp quiz)")


async def test_exam_is_the_curriculums_cannot_be_overruled_and_is_recorded(harness, tmp_path):
    import shutil

    from tui_helpers import DATA

    folder = tmp_path / "decks"
    shutil.copytree(DATA / "decks", folder)
    (tmp_path / "seeds").mkdir()
    shutil.copy(DATA / "seeds" / "ui-sample.md", tmp_path / "seeds")
    (folder / "curriculum.yaml").write_text(
        "schema: 1\ntitle: Sample onboarding\ntracks:\n  - {id: all, decks: [ui-sample], target: 90%}\n"
        "exam: {questions: 2, pass: 50%, seed: 7, mode: truefalse}\n", encoding="utf-8")
    app = harness.app("quiz", [], decks=[folder], exam=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quiz(pilot)
        assert screen.exam.settings.pass_mark == 0.5 and len(screen.session.questions) == 1  # one true/false card
        assert "Exam · question 1 of 1 · pass mark 50%" in await wait_for_text(pilot, "Exam · question 1 of 1")
        await pilot.press("2")
        await wait_for(pilot, lambda: screen.answered, "the answer")
        assert not screen.check_action("override", ())  # no "I was right" in an exam
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        await wait_for_text(pilot, "Exam passed: 1 of 1 right (100%), pass mark 50%")
        await wait_for(pilot, lambda: app.screen.recorded, "the result recorded")
    with harness.store() as store:
        (result,) = store.exam_results()
        assert (result["questions"], result["correct"], result["seed"]) == (1, 1, 7)
        assert store.log() == []  # the schedule is untouched


def test_the_score_percentage_is_rounded_halves_up():
    from studyapp.tui.screens.score import rounded_percent

    assert [rounded_percent(2, 7), rounded_percent(1, 8), rounded_percent(3, 8), rounded_percent(1, 3),
            rounded_percent(2, 3), rounded_percent(0, 5), rounded_percent(5, 5), rounded_percent(1, 200),
            rounded_percent(1, 201)] == [29, 13, 38, 33, 67, 0, 100, 1, 0]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_two_of_three_right_shows_67_percent(harness, size):
    app = harness.app("quiz", ["ui-sample"], quiz_mode="typed", quiz_n=4, quiz_seed=3)
    async with app.run_test(size=size) as pilot:
        screen = await open_quiz(pilot)
        typed = screen.query_one("#quiz-input")
        for right in (True, False, True):
            await wait_for(pilot, lambda: typed.has_focus, "the answer box")
            typed.value = screen.session.current.card.back if right else "no idea"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.answered, "the answer")
            await pilot.press("enter")
        await pilot.press("escape")
        from studyapp.tui.modals.confirm import ConfirmModal

        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score")
        assert "Quiz finished: 2 of 3 right (67%); 1 not answered" in await wait_for_text(pilot, "Quiz finished")
