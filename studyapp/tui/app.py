"""The Textual app: a thin shell that holds the services and shows the first screen.

Screens own their state and talk to the domain through ``StudyApp.services``; they tell
the app about navigation with messages (or by pushing screens), and the app calls down.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, SystemCommand
from textual.screen import Screen

from ..core.problems import StudyappError
from . import keymap
from .config import UIConfig
from .services import Services

# The latest the cycle collector paused for the start-up comes back, for a first screen that
# never says it is ready (it failed to open, or waits on something slow).
GC_RESUME_AFTER_S = 2.0
# How long after the first screen's frame the cycle collector comes back (first_screen_ready).
AFTER_FIRST_SCREEN_S = 0.05
# `studyapp study`: how long the session may take to open before the review screen is shown
# without its card, saying it is opening (see _open_review_first).
REVIEW_OPENING_SHOWN_AFTER_S = 0.2


@dataclass(frozen=True)
class Start:
    """Which screen the app opens on, with what it needs."""

    screen: str = "home"  # home | study | quiz
    deck_ids: tuple[str, ...] = ()
    cram: bool = False
    quiz_n: int = 10
    quiz_mode: str = "mixed"
    quiz_seed: int | None = None
    exam: bool = False  # quiz --exam: the curriculum's seeded exam, recorded with the profile
    notice: str | None = None  # what the command line adjusted (a quiz shorter than asked), shown on arrival


class StudyApp(App[int]):
    # Absolute, so that subclasses in other folders (tests, benchmarks) find it too.
    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "studyapp"
    BINDINGS = keymap.bindings("app")
    # The command palette finds decks and actions (see commands.py).
    COMMANDS = App.COMMANDS
    # Set by the command that runs the app (commands/tui.py) when it turned the cycle collector
    # off for the start-up: first_screen_ready turns it back on.
    resume_gc_when_ready = False

    def __init__(self, services: Services, config: UIConfig, start: Start = Start()) -> None:
        super().__init__()
        self.services = services
        self.config = config
        self.start = start
        self.sync_status: str | None = None  # what the last background sync with the team server said
        # Set before exiting on a problem the learner must fix; commands/tui.py prints it after the UI is gone.
        self.error_message: str | None = None
        # Printed to stderr once the UI is gone (Ctrl+C says what was kept).
        self.exit_message: str | None = None
        # Review and cram answers given in this run, each committed when given (undos subtract).
        self.answers_saved = 0
        # Asked to quit while an answer waited for a busy database: quit once it is saved (F10).
        self.quit_when_saved = False
        self._quit_code = 0
        # Called once, when the first screen shows what it opened for (see first_screen_ready).
        self.when_first_screen_ready: list[Callable[[], None]] = []
        self._first_screen_pending = False  # the study command's first screen waits for its session
        self._first_screen_was_ready = False
        # Before the first screen is built: changing them later restyles and rebinds everything.
        self.set_keymap(config.keys)
        if config.theme in self.available_themes:
            self.theme = config.theme
        else:
            config.warnings.append(f"{config.path}: warning: unknown theme {config.theme!r}; "
                                   f"themes: {', '.join(sorted(self.available_themes))}")

    def on_mount(self) -> None:
        # Pushed over Textual's default screen: the screens that follow replace it with
        # switch_screen, which needs a screen underneath.
        if self.start.screen == "study":
            self._open_review_first()
        else:
            self.push_screen(self._first_screen())
        for warning in self.config.warnings:
            self.notify(warning, severity="warning", markup=False, timeout=8)
        if self.start.notice:
            self.notify(self.start.notice, markup=False, timeout=8)
        if self.resume_gc_when_ready:
            self.set_timer(GC_RESUME_AFTER_S, self.first_screen_ready)
        if self.services.server_url:
            self.run_worker(self._sync_in_background, thread=True, name="sync", group="sync", exclusive=True,
                            exit_on_error=False)

    def first_screen_ready(self) -> None:
        """The first screen shows what it opened for (a card, a question, the deck table):
        ``when_first_screen_ready`` is called, and the cycle collector, off for the start-up, comes
        back on a moment later (``_resume_gc``)."""
        if self._first_screen_was_ready:
            return
        self._first_screen_was_ready = True
        callbacks, self.when_first_screen_ready = self.when_first_screen_ready, []
        for callback in callbacks:
            callback()
        if self.resume_gc_when_ready:
            self.set_timer(AFTER_FIRST_SCREEN_S, self._resume_gc)

    def _resume_gc(self) -> None:
        """Once the first screen's frame is on the terminal: the collector's first pass, over what
        the start-up left, takes 15 to 20 ms without letting go of the interpreter lock, and run
        right after the frame it kept Textual's output thread from writing that frame as long."""
        if self.resume_gc_when_ready:
            self.resume_gc_when_ready = False
            gc.enable()

    def _sync_in_background(self) -> None:
        """On start, when a team server is configured; a review never waits for it."""
        try:
            result = self.services.sync_with_server()
        except StudyappError as error:
            self.sync_status = f"Working offline: {error.message}"
            self.call_from_thread(self.notify, self.sync_status, severity="warning", markup=False, timeout=8)
            return
        self.sync_status = result.summary()
        if result.pulled or result.undone:
            self.call_from_thread(self.notify, self.sync_status, markup=False, timeout=5)

    def _open_review_first(self) -> None:
        """`studyapp study`: the session opens before the review screen is built, which then comes
        up with its first card in one frame. Built first, the screen took the interpreter lock
        from the opening for its empty frame, and drew twice: 14 ms more to the first card (of
        some 200). An opening slower than REVIEW_OPENING_SHOWN_AFTER_S shows the screen without
        its card meanwhile, which takes the session when it comes."""
        from .screens.review import ReviewScreen

        start = self.start
        shown_early: list[ReviewScreen] = []
        settled: list[bool] = []  # the session came, or could not be opened

        def open_in_thread() -> None:
            try:
                opened = ReviewScreen.open_session(self.services, start.deck_ids, start.cram)
            except StudyappError as error:
                self.call_from_thread(failed, error)
                return
            self.call_from_thread(arrived, opened)

        def failed(error: StudyappError) -> None:
            settled.append(True)
            self._first_screen_pending = False
            self.fail_with(error)

        def arrived(opened: tuple) -> None:
            settled.append(True)
            if shown_early:
                shown_early[0].take_opened(*opened)
            else:
                self._first_screen_pending = False
                self.push_screen(ReviewScreen(start.deck_ids, cram=start.cram, standalone=True, opened=opened))

        def still_opening() -> None:
            if not settled:
                self._first_screen_pending = False
                shown_early.append(ReviewScreen(start.deck_ids, cram=start.cram, standalone=True,
                                                opening_elsewhere=True))
                self.push_screen(shown_early[0])

        self._first_screen_pending = True
        self.run_worker(open_in_thread, thread=True, name="review-open", exit_on_error=False)
        self.set_timer(REVIEW_OPENING_SHOWN_AFTER_S, still_opening)

    def _first_screen(self) -> Screen:
        """The quiz's or the home screen (the study command's opens in ``_open_review_first``)."""
        start = self.start
        if start.screen == "quiz":
            from .screens.quiz import QuizScreen

            return QuizScreen(start.deck_ids, n=start.quiz_n, mode=start.quiz_mode, seed=start.quiz_seed,
                              standalone=True, exam=start.exam)
        from .screens.home import HomeScreen

        return HomeScreen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Until the first screen is there (the study command's session opening), a help or palette
        # screen would open over the blank one, and the review screen then come up over it.
        if self._first_screen_pending and action in ("help", "command_palette"):
            return False
        return super().check_action(action, parameters)

    def action_help(self) -> None:
        from .modals.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(self.screen))

    def _pending_review(self):
        from .screens.review import ReviewScreen

        return next((s for s in self.screen_stack if isinstance(s, ReviewScreen) and s.pending is not None), None)

    async def action_quit(self) -> None:
        """Quit; an answer still waiting for a busy database is saved first (a second Ctrl+Q quits at once)."""
        if self._wait_for_answer(0):
            return
        await super().action_quit()

    def _wait_for_answer(self, code: int) -> bool:
        """True when quitting must wait for an answer's save (then quit_now follows it)."""
        review = self._pending_review()
        if review is None:
            return False
        if self.quit_when_saved:  # asked twice: go, and say the answer was not saved
            review._stop_waiting.set()
            self.exit_message = "studyapp: left before the last answer could be saved (the progress file was busy)"
            self.exit(return_code=code or 1)
            return True
        self.quit_when_saved, self._quit_code = True, code
        self.notify("Saving your last answer before quitting (the progress file is busy); "
                    "press again to quit without it.", timeout=10, markup=False)
        return True

    def quit_now(self) -> None:
        if self._quit_code == 130:
            self._interrupt_now()
        else:
            self.exit(return_code=self._quit_code)

    def action_interrupt(self) -> None:
        """Ctrl+C: leave at once, as an interrupted command does (status 130), saying what was kept;
        an answer still waiting for a busy database is saved first."""
        if self._wait_for_answer(130):
            return
        self._interrupt_now()

    def _interrupt_now(self) -> None:
        count = self.answers_saved
        self.exit_message = (f"studyapp: interrupted; {count} answer{'' if count == 1 else 's'} saved "
                             "(each answer is saved when it is given)")
        self.exit(return_code=130)

    def go_home(self) -> None:
        """Back to the deck list: pop to it, or open it when the app started elsewhere."""
        from .screens.home import HomeScreen

        for index, screen in enumerate(self.screen_stack):
            if isinstance(screen, HomeScreen):
                # Popping resumes the home screen, which reloads its counts.
                while len(self.screen_stack) > index + 1:
                    self.pop_screen()
                return
        self.switch_screen(HomeScreen())

    def fail(self, message: str, *, code: int = 1) -> None:
        """A problem the learner must fix outside the app (a locked database, an unknown deck id).

        The message is shown in the app until a key is pressed, then printed again on exit,
        so it stays in the terminal after the screen is gone.
        """
        from ..core.terminal_text import visible
        from .modals.problem import ProblemModal

        message = visible(message)
        self.error_message = message

        def leave(_: object) -> None:
            self.exit(return_code=code)

        self.push_screen(ProblemModal(message), leave)

    def fail_with(self, error: StudyappError) -> None:
        """``fail`` with the error's message, exiting as the command line would: 2 for a usage error."""
        self.fail(error.message, code=2 if error.code == "usage" else 1)

    def notify(self, message: str, *args, **kwargs) -> None:
        """Every toast: messages quote paths and deck text, whose control characters are shown escaped."""
        from ..core.terminal_text import visible

        super().notify(visible(message), *args, **kwargs)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        from .commands import app_commands

        yield from app_commands(self, screen)
