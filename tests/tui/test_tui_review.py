"""Pilot tests of the review screen: every key, every card type, the summary."""

from __future__ import annotations

import pytest

from studyapp.tui import app as app_module
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.summary import SummaryScreen

from tui_helpers import SIZE, screen_text, settle, wait_for, wait_for_text, walk_to


async def open_review(pilot):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                   "the first card")
    await settle(pilot)
    return pilot.app.screen


def key_of(screen) -> str:
    return screen.shown.key if screen.shown is not None else ""


async def test_reveal_grade_and_space_after_reveal_means_good(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert key_of(screen) == "ui-sample/layer-count/main"
        assert "Three layers" not in screen_text(app)
        await pilot.press("space")
        text = await wait_for_text(pilot, "Three layers")
        # Every grade button shows the interval it will set.
        for name in ("1 Again · 1m", "2 Hard · 6m", "3 Good · 10m", "4 Easy"):
            assert name in text
        await pilot.press("space")  # after the reveal: Good
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")
        await pilot.press("enter", "1")  # Enter reveals too; 1 is Again
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/top-layer/forward", "the third card")
        await pilot.press("space", "2")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/speed-cloze/c1", "the fourth card")
        await pilot.press("space", "4")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/transaction-choice/main", "the fifth card")
    assert harness.reviews() == [("ui-sample/layer-count/main", 3, "review"),
                                 ("ui-sample/markup-literal/main", 1, "review"),
                                 ("ui-sample/top-layer/forward", 2, "review"),
                                 ("ui-sample/speed-cloze/c1", 4, "review")]


async def test_the_study_days_ahead_are_worked_out_once_the_first_card_is_out(harness, monkeypatch):
    """The first card does not wait for the 1,024 study days its session keeps (a few ms of the
    start-up); they are worked out in the background once it is on screen."""
    from studyapp.core import scheduler as scheduler_module
    from studyapp.core.session import _KEPT_DAYS

    monkeypatch.setattr(scheduler_module, "_SHARED_WINDOWS", {})  # as in a new process
    app = harness.app("study", ["ui-sample"])

    def days_kept() -> int:
        days = app.screen.session.scheduler.days
        today = days.day_of(app.services.clock.now_ms())
        return sum(day in days._windows for day in range(today, today + _KEPT_DAYS))

    kept_when_shown = []
    app.when_first_screen_ready.insert(0, lambda: kept_when_shown.append(days_kept()))
    async with app.run_test(size=SIZE) as pilot:
        await open_review(pilot)
        await wait_for(pilot, lambda: days_kept() == _KEPT_DAYS, "the study days ahead")
    assert len(kept_when_shown) == 1 and kept_when_shown[0] < _KEPT_DAYS // 4


async def test_study_opens_the_session_before_the_review_screen_which_comes_up_with_its_card(harness, monkeypatch):
    """`studyapp study`: the review screen is built once the session is open, so its first frame
    has the card (it took the interpreter lock from the opening, and drew twice); it is never
    shown saying it is opening, and the session opens once."""
    opened = []
    open_session = ReviewScreen.open_session

    def counted(services, deck_ids, cram):
        opened.append(tuple(deck_ids))
        return open_session(services, deck_ids, cram)

    monkeypatch.setattr(ReviewScreen, "open_session", staticmethod(counted))
    titles_at_mount = []
    on_mount = ReviewScreen.on_mount

    def recorded(self):
        on_mount(self)
        titles_at_mount.append((str(self.query_one("#review-title").render()), self.shown is not None))

    monkeypatch.setattr(ReviewScreen, "on_mount", recorded)
    # However busy the machine, this opening is never "slow" (that case has a test of its own).
    monkeypatch.setattr(app_module, "REVIEW_OPENING_SHOWN_AFTER_S", 600)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert key_of(screen) == "ui-sample/layer-count/main"
        await pilot.pause(0.3)
        assert [s for s in app.screen_stack if isinstance(s, ReviewScreen)] == [screen]
    assert opened == [("ui-sample",)]
    assert len(titles_at_mount) == 1 and titles_at_mount[0][1]  # the card, at once
    assert "Opening your progress" not in titles_at_mount[0][0]


def hold_the_opening(monkeypatch):
    """The study command's session opening waits until the event returned is set."""
    import threading

    release = threading.Event()
    open_session = ReviewScreen.open_session

    def held(services, deck_ids, cram):
        assert release.wait(10)
        return open_session(services, deck_ids, cram)

    monkeypatch.setattr(ReviewScreen, "open_session", staticmethod(held))
    return release


async def test_a_slow_opening_shows_the_review_screen_meanwhile_and_its_card_when_it_comes(harness, monkeypatch):
    release = hold_the_opening(monkeypatch)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_text(pilot, "Opening your progress")
        waiting = app.screen
        assert isinstance(waiting, ReviewScreen) and waiting.shown is None
        release.set()
        screen = await open_review(pilot)
        assert screen is waiting and key_of(screen) == "ui-sample/layer-count/main"
        assert [s for s in app.screen_stack if isinstance(s, ReviewScreen)] == [screen]
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")
    assert harness.reviews() == [("ui-sample/layer-count/main", 3, "review")]


async def test_a_session_that_comes_as_the_slow_openings_screen_is_pushed_shows_its_card(harness, monkeypatch):
    """The screen shown for a slow opening is pushed, and the session arrives before that screen has
    mounted (mounting hides the card's parts): the card is shown all the same."""
    import threading

    pushed = threading.Event()
    push_screen = app_module.StudyApp.push_screen

    def push(self, screen, *args, **kwargs):
        result = push_screen(self, screen, *args, **kwargs)
        if isinstance(screen, ReviewScreen):
            pushed.set()
        return result

    open_session = ReviewScreen.open_session

    def arrives_as_pushed(services, deck_ids, cram):
        opened = open_session(services, deck_ids, cram)
        assert pushed.wait(10)
        return opened

    monkeypatch.setattr(app_module.StudyApp, "push_screen", push)
    monkeypatch.setattr(ReviewScreen, "open_session", staticmethod(arrives_as_pushed))
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.pause(0.1)
        assert key_of(screen) == "ui-sample/layer-count/main"
        assert screen.query_one("#card-view").display
        assert "Opening your progress" not in screen_text(app)
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")


async def test_keys_pressed_while_the_session_opens_open_nothing_over_the_blank_screen(harness, monkeypatch):
    """Before the first screen is there, the help and the command palette do not open (they would
    come up over the blank screen, and the review screen over them); once it is, they do."""
    from studyapp.tui.modals.help import HelpModal

    release = hold_the_opening(monkeypatch)
    monkeypatch.setattr(app_module, "REVIEW_OPENING_SHOWN_AFTER_S", 600)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark", "ctrl+p")
        await pilot.pause(0.05)
        assert len(app.screen_stack) == 1  # Textual's blank screen alone
        release.set()
        screen = await open_review(pilot)
        assert app.screen_stack[1:] == [screen]
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the keys")


async def test_a_session_that_cannot_open_says_why_and_no_review_screen_follows(harness, monkeypatch):
    from studyapp.core.problems import StudyappError
    from studyapp.tui.modals.problem import ProblemModal

    def locked(services, deck_ids, cram):
        raise StudyappError("the progress file is locked by another program; close it and try again")

    monkeypatch.setattr(ReviewScreen, "open_session", staticmethod(locked))
    monkeypatch.setattr(app_module, "REVIEW_OPENING_SHOWN_AFTER_S", 600)  # the failure is never "slow"
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ProblemModal), "the problem")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ProblemModal)
        assert not any(isinstance(s, ReviewScreen) for s in app.screen_stack)
        assert "locked by another program" in screen_text(app)
    assert app.error_message and "locked" in app.error_message


async def test_grade_keys_do_nothing_before_the_reveal_on_a_basic_card(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("3", "4")
        await pilot.pause()
        assert not screen.revealed
        assert key_of(screen) == "ui-sample/layer-count/main"
    assert harness.reviews() == []


async def test_undo_goes_back_several_levels(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        for _ in range(3):
            before = key_of(screen)
            await pilot.press("space", "3")
            await wait_for(pilot, lambda: key_of(screen) != before, "the next card")
        assert len(harness.reviews()) == 3
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/top-layer/forward", "the third card again")
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card again")
        assert not screen.revealed
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/layer-count/main", "the first card again")
        assert harness.reviews() == []
        assert not screen.session.can_undo()  # back at the start of the session


async def test_bury_and_suspend_take_the_card_away_and_undo_brings_it_back(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("minus")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the card after a bury")
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/top-layer/forward", "the card after a suspend")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").buried_day > 0
            assert store.item("ui-sample/markup-literal/main").suspended
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the suspended card back")
        with harness.store() as store:
            assert not store.item("ui-sample/markup-literal/main").suspended
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/layer-count/main", "the buried card back")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").buried_day == 0


async def test_flag_with_a_note(harness):
    from studyapp.tui.modals.flag_note import FlagNoteModal

    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog")
        await pilot.press(*"typo in the answer", "enter")
        await wait_for(pilot, lambda: app.screen is screen, "back to the review")
        await wait_for_text(pilot, "flagged: typo in the answer")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").flag_note == "typo in the answer"
        # Escape cancels without changing the flag.
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the review")
        with harness.store() as store:
            assert store.item("ui-sample/layer-count/main").flag_note == "typo in the answer"


async def test_source_opens_the_document_with_the_quote_highlighted(harness):
    from studyapp.tui.modals.source import QuotedMarkdown, SourceModal

    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await open_review(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SourceModal), "the source viewer")
        modal = app.screen
        assert modal.quote_lines == [0]  # the first line of the document body (front matter removed)
        # The seed is Markdown: it is shown rendered, the passage highlighted in the block that holds it.
        await wait_for(pilot, lambda: modal.rendered, "the document rendered")
        document = modal.query_one(QuotedMarkdown)
        assert document.highlighted == ["The widget cache has three layers."]
        assert [b.source_range[0] for b in document.quoted_blocks] == [0]
        await wait_for_text(pilot, "1 passage highlighted")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "back to the review")


async def test_explanation_shows_on_e(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert "The document says" not in screen_text(app)
        await pilot.press("e")
        await wait_for_text(pilot, "The document says the widget cache has three layers.")
        assert screen.revealed  # the explanation gives the answer away, so the answer shows too
        await pilot.press("e")
        await wait_for(pilot, lambda: "The document says" not in screen_text(app), "the explanation hidden")


async def test_rich_markup_in_card_text_is_shown_literally(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the markup card")
        await pilot.press("space")
        text = await wait_for_text(pilot, "[bold]bold[/bold] exactly as typed")
        assert "What does [bold]bold[/bold] with [link=https://example.com]a link[/link] show?" in text


async def test_cloze_hides_only_its_own_deletion_and_shows_the_hint(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        # Cram shows every item, siblings included, in bank order.
        for _ in range(3):
            before = key_of(screen)
            await pilot.press("space", "3")
            await wait_for(pilot, lambda: key_of(screen) != before, "the next card")
        assert key_of(screen) == "ui-sample/top-layer/backward"
        text = screen_text(app)
        assert "keeps compiled graphs" in text and "The top layer of the widget cache" not in text
        await pilot.press("space")
        await wait_for_text(pilot, "The top layer of the widget cache")
        await pilot.press("3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/speed-cloze/c1", "the first cloze")
        assert "The [...] answers in under a millisecond." in screen_text(app)
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/speed-cloze/c2", "the second cloze")
        assert "The scheduler answers in under a [unit of time]." in screen_text(app)
        await pilot.press("space")
        await wait_for_text(pilot, "The scheduler answers in under a millisecond.")
    # Cram answers are logged as cram and leave the schedule alone.
    assert {kind for _, _, kind in harness.reviews()} == {"cram"}
    with harness.store() as store:
        assert store.item("ui-sample/layer-count/main").state.state == "new"


async def test_choice_card_number_keys_pick_an_option_and_propose_a_grade(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/transaction-choice/main")
        text = screen_text(app)
        options = screen.shown.choices.options
        # Shown shuffled, and exactly in the order the session gives (the number keys follow it).
        assert sorted(options) == ["None", "One", "Three", "Two"]
        for number, option in enumerate(options, 1):
            assert f"{number}. {option}" in text
        right, wrong = options.index("One") + 1, options.index("Two") + 1
        await pilot.press(str(wrong))
        text = await wait_for_text(pilot, "Not quite")
        assert f"✓ {right}. One" in text and f"✗ {wrong}. Two" in text
        assert "the state and the log row share one transaction" in text  # the deck's feedback
        assert screen.proposed == 1
        await pilot.press("space")  # accepts the proposed Again
        await wait_for(pilot, lambda: key_of(screen) != "ui-sample/transaction-choice/main", "the next card")
    assert harness.reviews()[-1] == ("ui-sample/transaction-choice/main", 1, "cram")


async def test_truefalse_card(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/layers-truefalse/main")
        assert "1. True" in screen_text(app) and "2. False" in screen_text(app)
        await pilot.press("2")  # False: right
        text = await wait_for_text(pilot, "✓ Right")
        assert "False: it has three layers." in text  # the explanation is the feedback
        assert screen.proposed == 3
        assert "z Again" in text and "c Good" in text  # after a pick the bar has its own keys
        await pilot.press("z")  # the learner may still change the grade
        await wait_for(pilot, lambda: key_of(screen) != "ui-sample/layers-truefalse/main", "the next card")
    assert harness.reviews()[-1] == ("ui-sample/layers-truefalse/main", 1, "cram")


async def test_f_on_a_truefalse_card_flags_it_as_in_every_screen_1_and_2_answer(harness):
    from studyapp.tui.modals.flag_note import FlagNoteModal

    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/layers-truefalse/main")
        assert "or 1 True, 2 False" in screen_text(app)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagNoteModal), "the flag dialog")
        assert not screen.revealed


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_wrong_pick_then_the_same_number_does_not_grade(harness, size):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=size) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/transaction-choice/main")
        before = len(harness.reviews())
        wrong = screen.shown.choices.options.index("None") + 1  # shown shuffled: "None" is wrong
        await pilot.press(str(wrong))
        text = await wait_for_text(pilot, "Not quite")
        await pilot.press("3", "1", "2", "4")  # reflexes: none of them grades
        await pilot.pause()
        assert key_of(screen) == "ui-sample/transaction-choice/main" and len(harness.reviews()) == before
        text = screen_text(app)
        for label in ("z Again", "x Hard", "c Good", "v Easy"):
            assert label in text, label
        assert "▸ z Again" in text  # the proposed grade, for Space
        await pilot.press("x")
        await wait_for(pilot, lambda: key_of(screen) != "ui-sample/transaction-choice/main", "the next card")
    assert harness.reviews()[-1] == ("ui-sample/transaction-choice/main", 2, "cram")


async def test_without_a_pick_the_number_keys_grade_and_the_bar_shows_them(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/transaction-choice/main")
        await pilot.press("space")
        text = await wait_for_text(pilot, "1 Again")
        assert "z Again" not in text
        await pilot.press("z")  # the pick keys do nothing without a pick
        await pilot.pause()
        assert key_of(screen) == "ui-sample/transaction-choice/main"
        await pilot.press("4")
        await wait_for(pilot, lambda: key_of(screen) != "ui-sample/transaction-choice/main", "the next card")
    assert harness.reviews()[-1] == ("ui-sample/transaction-choice/main", 4, "cram")


async def test_typed_answer_is_checked_leniently_and_proposes_a_grade(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press(*"  THREE  ", "enter")  # case and spacing do not matter; "three" is accepted
        text = await wait_for_text(pilot, "✓ Right")
        assert "Expected:   three  (also accepted; the card's answer: Three layers)" in text
        assert "Difference:" not in text  # the spaces around it are no difference
        assert screen.proposed == 3
        await pilot.press("enter")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press(*"italic", "enter")
        text = await wait_for_text(pilot, "✗ Not quite")
        assert "Difference:" in text
        assert screen.proposed == 1
        await pilot.press("2")  # overrule the proposal
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/top-layer/forward", "the third card")
    assert [r[1] for r in harness.reviews()] == [3, 2]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_typed_difference_is_against_the_expected_line_by_letter_ignoring_case(harness, size):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=size) as pilot:
        screen = await open_review(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press(*"THRE layers", "enter")
        text = await wait_for_text(pilot, "✓ Right")
        assert "Expected:   Three layers" in text and "(accepted with 1 typo)" in text
        # One letter missing is one letter inserted; the capitals are no difference.
        assert screen.check.diff == [("equal", "THRE"), ("insert", "e"), ("equal", " layers")]
        assert "Difference: THREe layers" in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/layer-count/main", "the first card again")
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press("3", "enter")  # an accepted alternative: shown as what was expected
        text = await wait_for_text(pilot, "✓ Right")
        assert "Expected:   3  (also accepted; the card's answer: Three layers)" in text
        assert "Difference:" not in text


async def test_escape_while_typing_closes_the_box_not_the_session(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press("q", "escape")  # q is typed into the box, escape closes it
        await wait_for(pilot, lambda: not screen.query_one("#review-typed").display, "the box closed")
        assert app.screen is screen and not screen.revealed


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_while_typing_the_footer_offers_closing_the_box_and_the_old_hint_goes(harness, size):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=size) as pilot:
        screen = await open_review(pilot)
        text = await wait_for_text(pilot, "Space: show the answer")
        assert "q End" in text and "i: type the answer" in text
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        text = await wait_for_text(pilot, "esc Close box")
        assert "End" not in text
        assert "Space: show the answer" not in text and "i: type the answer" not in text
        await pilot.press("escape")
        text = await wait_for_text(pilot, "q End")
        assert "Space: show the answer" in text and "Close box" not in text


async def test_enter_on_an_empty_answer_box_is_not_a_miss(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: screen.query_one("#review-typed").has_focus, "the answer box")
        await pilot.press("space", "space", "enter")
        text = await wait_for_text(pilot, "Type an answer first")
        assert not screen.revealed and screen.check is None and "Not quite" not in text
        assert screen.query_one("#review-typed").has_focus  # still typing
        await pilot.press(*"three", "enter")
        await wait_for_text(pilot, "✓ Right")
        assert "Type an answer first" not in screen_text(app)
    assert harness.reviews() == []


async def test_i_type_is_offered_only_on_cards_that_can_be_typed(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_review(pilot)
        assert "i Type" in await wait_for_text(pilot, "i Type")  # a basic card
        await walk_to(pilot, "ui-sample/transaction-choice/main")
        await wait_for(pilot, lambda: "i Type" not in screen_text(app), "i Type gone on a choice card")
        await pilot.press("i")
        await pilot.pause()
        assert not screen.query_one("#review-typed").display
        await walk_to(pilot, "ui-sample/layers-truefalse/main")
        assert "i Type" not in screen_text(app)
        await walk_to(pilot, "ui-sample/chinese-text/main")
        await wait_for_text(pilot, "i Type")


async def test_session_summary_after_leaving(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        for rating in ("1", "3"):
            before = key_of(screen)
            harness.clock.advance(seconds=12)  # time spent on the card
            await pilot.press("space", rating)
            await wait_for(pilot, lambda: key_of(screen) != before, "the next card")
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        text = await wait_for_text(pilot, "Items reviewed")
        assert "Items reviewed  2" in text
        assert "Again           1 (50%)" in text
        assert "Time spent      24 s" in text
        assert "Next due        now: " in text and "items left today" in text  # left early
        await pilot.press("enter")
        from studyapp.tui.screens.home import HomeScreen

        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")


async def test_nothing_due_says_so_and_when_the_next_item_is(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        while isinstance(app.screen, ReviewScreen) and screen.shown is not None:
            screen.action_reveal()
            screen.action_grade(4)  # Easy: out of learning at once
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary at the end of the queue")
    # A new session the same day: the siblings wait for tomorrow.
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.session is not None,
                       "the session")
        text = await wait_for_text(pilot, "Nothing is due in UI sample now.")
        assert "The next item is due in 20 hours (tomorrow 04:00)" in text


async def test_leaving_with_q_or_escape_and_nothing_answered_closes_the_session(harness):
    for key in ("q", "escape"):
        app = harness.app("home")
        async with app.run_test(size=SIZE) as pilot:
            from studyapp.tui.screens.home import HomeScreen

            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded, "the decks")
            await pilot.press("s")
            await open_review(pilot)
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), f"home after {key}")


async def test_ctrl_c_quits_and_keeps_every_answer(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("space", "3")
        await wait_for(pilot, lambda: key_of(screen) == "ui-sample/markup-literal/main", "the second card")
        await pilot.press("space")  # revealed, not graded
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert harness.reviews() == [("ui-sample/layer-count/main", 3, "review")]


async def test_long_card_scrolls(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/long-card/main")
        view = screen.query_one("#card-view")
        await wait_for(pilot, lambda: view.max_scroll_y > 0, "a card taller than the screen")
        assert "Line 30: the end" not in screen_text(app)
        view.focus()
        await pilot.press("end")
        await wait_for_text(pilot, "Line 30: the end of the question.")


async def test_chinese_text_wraps_without_loss(harness):
    app = harness.app("study", ["ui-sample"], cram=True)
    async with app.run_test(size=(60, 24)) as pilot:
        screen = await open_review(pilot)
        await walk_to(pilot, "ui-sample/chinese-text/main")
        await pilot.press("space")
        await settle(pilot)
        text = screen_text(app)
        joined = "".join(line.strip() for line in text.splitlines())
        card = screen.shown.item.card
        assert card.front in joined and card.back in joined
        for line in text.splitlines():
            from rich.cells import cell_len

            assert cell_len(line) <= 60


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_the_title_shows_the_sessions_progress(harness, size):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=size) as pilot:
        screen = await open_review(pilot)
        title = screen.query_one("#review-title")
        # Eight new items today (two siblings wait for tomorrow), none answered: the first of eight.
        assert str(title.render()) == "Review · UI sample · 1 of 8 · new 8 · learning 0 · due 0"
        for rating in ("4", "4"):  # Easy: out of the session at once
            before = key_of(screen)
            await pilot.press("space", rating)
            await wait_for(pilot, lambda: key_of(screen) != before, "the next card")
        assert str(title.render()) == "Review · UI sample · 3 of 8 · new 6 · learning 0 · due 0"
        before = key_of(screen)
        await pilot.press("space", "1")  # Again: the card stays in today's session, so the total grows
        await wait_for(pilot, lambda: key_of(screen) != before, "the next card")
        assert str(title.render()) == "Review · UI sample · 4 of 9 · new 5 · learning 1 · due 0"
        await pilot.press("u")
        await wait_for(pilot, lambda: key_of(screen) == before, "the card back")
        assert str(title.render()) == "Review · UI sample · 3 of 8 · new 6 · learning 0 · due 0"


async def test_each_answer_is_fsynced_once_the_next_card_is_drawn(harness, monkeypatch):
    from studyapp.store.repository import Store

    synced = []
    original = Store.sync_wal

    def sync_wal(store):
        synced.append(store.conn.execute("PRAGMA synchronous").fetchone()[0])
        original(store)

    monkeypatch.setattr(Store, "sync_wal", sync_wal)
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        for number in range(2):
            await pilot.press("space", "3")
            await wait_for(pilot, lambda n=number: len(synced) == n + 1, f"the fsync of answer {number + 1}")
        store = app.services.store()
        # The answer's transaction alone ran without its own fsync: the connection is back to FULL (2).
        assert synced == [2, 2]
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2
        assert screen.answered == 2
    assert [key for key, *_ in harness.reviews()] == ["ui-sample/layer-count/main", "ui-sample/markup-literal/main"]
