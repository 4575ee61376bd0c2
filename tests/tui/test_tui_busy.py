"""F10: another process holds the progress database's write lock while the learner grades.

The grade must neither freeze the screen nor be dropped: it is saved by a worker that tries again
until the lock is free, the screen says so, other keys keep working, and leaving or quitting waits
for it. The lock is a real one: a separate Python process holding BEGIN IMMEDIATE on the same file.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from studyapp.tui.modals.help import HelpModal
from studyapp.tui.screens.review import ReviewScreen
from studyapp.tui.screens.summary import SummaryScreen

from tui_helpers import SIZE, screen_text, settle, wait_for, wait_for_text

HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()  # until the test lets go
conn.execute("ROLLBACK")
"""


class WriteLock:
    """Another process holding the database's write lock until released."""

    def __init__(self, path) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.write("go\n")
            self.process.stdin.flush()
            self.process.wait(timeout=30)


def logged(harness) -> list[tuple]:
    """The review log read with a plain connection (reading needs no lock in WAL mode)."""
    conn = sqlite3.connect(f"file:{harness.location.database}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT i.key, r.rating FROM review_log r JOIN items i ON i.id = r.item_id "
                            "ORDER BY r.id").fetchall()
    except sqlite3.Error as e:
        raise AssertionError(getattr(e, "sqlite_errorname", "?")) from e
    finally:
        conn.close()


async def open_revealed(pilot) -> ReviewScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                   "the first card")
    await settle(pilot)
    screen = pilot.app.screen
    await pilot.press("space")
    await wait_for(pilot, lambda: screen.revealed, "the answer shown")
    return screen


async def test_a_grade_while_another_process_writes_is_saved_later_and_the_screen_stays_live(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_revealed(pilot)
        first = screen.shown.key
        lock = WriteLock(harness.location.database)
        try:
            await pilot.press("3")
            await wait_for(pilot, lambda: screen.pending is not None, "the answer handed to the worker")
            await wait_for_text(pilot, "the progress file is busy")
            # The screen answers other keys meanwhile: help opens and closes.
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpModal), "the help over the review")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, "back on the review")
            # A second grade is refused while the first waits (it would grade the same card twice).
            await pilot.press("3")
            assert logged(harness) == [] and screen.shown.key == first and screen.pending is not None
        finally:
            lock.release()
        await wait_for(pilot, lambda: screen.pending is None and screen.shown.key != first, "the next card")
        assert logged(harness) == [(first, 3)]
        assert app.answers_saved == 1 and "busy" not in screen_text(app)


async def test_leaving_while_an_answer_waits_leaves_once_it_is_saved(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_revealed(pilot)
        first = screen.shown.key
        lock = WriteLock(harness.location.database)
        try:
            await pilot.press("1")
            await wait_for(pilot, lambda: screen.pending is not None, "the answer handed to the worker")
            await pilot.press("escape")
            await wait_for_text(pilot, "Leaving once your answer is saved")
            assert app.screen is screen
        finally:
            lock.release()
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary after the save")
        assert logged(harness) == [(first, 1)]


async def test_quitting_while_an_answer_waits_quits_once_it_is_saved(harness):
    app = harness.app("study", ["ui-sample"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_revealed(pilot)
        first = screen.shown.key
        lock = WriteLock(harness.location.database)
        try:
            await pilot.press("4")
            await wait_for(pilot, lambda: screen.pending is not None, "the answer handed to the worker")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.quit_when_saved, "the quit put off")
            assert app.is_running and logged(harness) == []
        finally:
            lock.release()
        await wait_for(pilot, lambda: not app.is_running, "the app gone after the save")
    assert logged(harness) == [(first, 4)] and app.return_code == 0
