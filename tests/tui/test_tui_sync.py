"""The app and the team server: a sync in the background on start (answering never waits for it),
a clear word when the server cannot be reached, and the answers sent up on leaving."""

from __future__ import annotations

import os
import shlex
import sys

import pytest

from studyapp.core.session import ReviewSession
from studyapp.sync.server import init_server

from pg_server import pg  # noqa: F401  (the fixture)
from tmux_driver import Tmux
from tui_helpers import SIZE, wait_for, wait_for_text

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _learner(pg):
    import psycopg

    role = pg.role("ana")
    with psycopg.connect(pg.owner_url()) as owner:
        init_server(owner, [role], [])
    return role


def _server_count(pg) -> int:
    import psycopg

    with psycopg.connect(pg.owner_url()) as owner:
        return owner.execute("SELECT count(*) FROM studyapp.reviews").fetchone()[0]


async def test_the_app_syncs_in_the_background_on_start(harness, pg):
    role = _learner(pg)
    store = harness.store()
    from studyapp.core.catalog import load_paths
    from tui_helpers import SAMPLE_DECKS

    decks = load_paths([SAMPLE_DECKS]).decks
    session = ReviewSession(store, decks, clock=harness.clock)
    for _ in range(2):
        session.next()
        session.answer(3, duration_ms=1000)
    store.close()
    app = harness.app("home")
    app.services.server_url = pg.url(role)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.sync_status is not None, "the background sync")
        assert app.sync_status.startswith(f"Synced {role}: 2 answers up, 0 down")
    assert _server_count(pg) == 2


async def test_an_unreachable_server_is_said_once_and_the_app_works_offline(harness):
    app = harness.app("home")
    app.services.server_url = "postgresql://ana:hunter2@127.0.0.1:1/nowhere"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.sync_status is not None, "the background sync")
        assert app.sync_status.startswith("Working offline: cannot reach the team server")
        assert "hunter2" not in app.sync_status
        screen = await wait_for_text(pilot, "Working offline")
        assert screen.count("Working offline") == 1
        await pilot.press("s")  # studying goes on
        from studyapp.tui.screens.review import ReviewScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None,
                       "a card, offline")


def test_answers_go_up_when_the_app_is_left(tmp_path, pg):
    role = _learner(pg)
    home = tmp_path / "home"
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "STUDYAPP_SERVER": pg.url(role)}
    inner = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    status = tmp_path / "status"
    # The shell stays after the app, so that the terminal it left can be read.
    line = (f"env -i {inner} {shlex.quote(sys.executable)} -m studyapp study pytorch-mega-cache; "
            f"echo $? > {shlex.quote(str(status))}; sleep 120")
    tmux = Tmux()
    try:
        tmux.start(f"sh -c {shlex.quote(line)}", tmp_path)
        tmux.wait(lambda text: "Space: show the answer" in text, "the first card")
        tmux.keys("Space")
        tmux.wait(lambda text: "3 Good ·" in text, "the answer")
        tmux.keys("3")
        tmux.wait(lambda text: "Space: show the answer" in text, "the next card")
        tmux.keys("q")
        tmux.wait(lambda text: "Session finished" in text, "the summary")
        tmux.keys("q")
        tmux.wait(lambda text: status.exists() and status.read_text().strip() != "", "studyapp to exit")
        # The terminal the app left: its one line about the sync stays there.
        after = tmux.wait(lambda text: " up, " in text and "Synced" in text, "the sync's line")
    finally:
        tmux.close()
    assert status.read_text().strip() == "0"
    assert _server_count(pg) == 1
    # The background sync on start may already have taken the answer up; leaving syncs once more either way.
    assert f"studyapp: Synced {role}: " in " ".join(after.split())
