"""Fixtures for the terminal app's tests: a fresh home, a fixed clock, the sample deck.

Nothing here sleeps: ``wait_for`` gives the app bounded turns of its event loop until a
condition holds, and the clock only moves when a test moves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from studyapp.core.clock import FakeClock
from studyapp.core.scheduler import Settings
from studyapp.core.settings import resolve
from studyapp.core.presets import Preset
from studyapp.store import open_store

DATA = Path(__file__).parent / "data"
SAMPLE_DECKS = DATA / "decks"
# 2026-05-28 08:26:40 UTC: a fixed moment, away from the 04:00 rollover.
START_MS = 1_779_956_800_000
SIZE = (100, 30)


class Harness:
    """Builds apps on one fresh home folder and a fake clock; closes what it opened."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.clock = FakeClock(START_MS)
        self.location = resolve(str(home), None, None)
        self._services = []
        # Dates in the app are the learner's: pin the zone so runs on any machine look the same.
        store = open_store(self.location, clock=self.clock)
        store.save_settings(Settings(timezone="UTC"))
        # New cards in bank order, so that tests can walk the sample deck card by card; the
        # default order (interleaved, random within a deck) has tests of its own.
        store.save_preset(Preset(new_gather_order="deck", new_sort_order="gathered"))
        store.close()

    def app(self, screen: str = "home", deck_ids=(), *, decks: list[Path] | None = None, config: str | None = None,
            **start):
        from studyapp.tui.app import Start, StudyApp
        from studyapp.tui.config import load_config
        from studyapp.tui.services import Services

        if config is not None:
            (self.home / "config.toml").write_text(config, encoding="utf-8")
        services = Services(self.location, clock=self.clock,
                            deck_paths=decks if decks is not None else [SAMPLE_DECKS])
        self._services.append(services)
        return StudyApp(services, load_config(self.home), Start(screen, tuple(deck_ids), **start))

    def store(self):
        return open_store(self.location, clock=self.clock)

    def reviews(self) -> list[tuple[str, int, str]]:
        """(item key, rating, kind) of every logged answer, oldest first."""
        with self.store() as store:
            rows = store.conn.execute(
                "SELECT items.key, review_log.rating, review_log.kind FROM review_log "
                "JOIN items ON items.id = review_log.item_id ORDER BY review_log.id").fetchall()
        return [tuple(r) for r in rows]

    def close(self) -> None:
        for services in self._services:
            services.close()


async def wait_for(pilot, condition: Callable[[], bool], what: str, turns: int = 400) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` if it never does.

    At least ``turns`` turns of the event loop, and on a busy machine (thread workers waiting for
    a core) as many more as fit in a minute: a bound on how long to wait, never a time asserted."""
    deadline = time.monotonic() + 60
    turn = 0
    while turn < turns or time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:  # the widget it looks at may not be mounted yet
            pass
        await pilot.pause(0.01 if turn >= turns else None)
        turn += 1
    raise AssertionError(f"timed out waiting for: {what}")


def screen_text(app) -> str:
    """What the terminal shows now, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def wait_for_text(pilot, text: str, turns: int = 400) -> str:
    await wait_for(pilot, lambda: text in screen_text(pilot.app), f"{text!r} on screen", turns)
    return screen_text(pilot.app)


async def settle(pilot) -> None:
    """Wait for workers and animations to finish, then for the screen to draw."""
    await pilot.app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def walk_to(pilot, key: str, grade: int = 3) -> None:
    """Answer cards through the screen's own actions (faster than key presses) until ``key`` is shown.

    For setting a scene; the keys themselves are tested where they are the subject.
    """
    screen = pilot.app.screen
    for _ in range(100):
        if screen.shown is not None and screen.shown.key == key:
            await pilot.pause()
            return
        if not screen.revealed:
            screen.action_reveal()
        screen.action_grade(grade)
    raise AssertionError(f"{key} never came up")


def answer(harness, ratings: dict[str, list[int]], *, days: int = 0) -> None:
    """Give answers through the engine, as earlier sessions would have."""
    from studyapp.core.catalog import load_paths
    from studyapp.core.session import ReviewSession

    decks = load_paths([SAMPLE_DECKS]).decks
    with harness.store() as store:
        session = ReviewSession(store, decks, clock=harness.clock)
        for _ in range(40):
            shown = session.next()
            if shown is None:
                break
            wanted = ratings.get(shown.key)
            if not wanted:
                session.bury()
                continue
            harness.clock.advance(seconds=5)
            session.answer(wanted.pop(0), duration_ms=5000)
        # The items skipped on the way were buried only to reach the wanted ones.
        store.conn.execute("UPDATE items SET buried_day = 0")
    harness.clock.advance(days=days)


def services_with_the_catalog_held_back(harness, location):
    """Services whose catalog load waits until ``release`` is set, so a test can check what the home
    screen draws from the deck summary alone before the catalog's redraw."""
    import threading

    from studyapp.tui.services import Services

    services = Services(location, clock=harness.clock)
    harness._services.append(services)
    release = threading.Event()
    load_warnings = services.load_warnings

    def held_back() -> list[str]:
        release.wait(60)
        return load_warnings()

    services.load_warnings = held_back
    return services, release
