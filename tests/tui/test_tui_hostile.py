"""Hostile decks in the terminal app (issue 15, F2 and F4): escape sequences in card text and deck
titles are shown escaped, never sent to the terminal; the source viewer reads its file in a worker
and refuses a FIFO without holding the UI."""

from __future__ import annotations

import os
from pathlib import Path

from studyapp.tui.screens.review import ReviewScreen

from tui_helpers import SIZE, screen_text, settle, wait_for, wait_for_text

DECK = r'''schema: 1
id: osc
title: "Innocent \e]2;PWNED-TITLE\a deck"
seed: ../seeds/{seed}
cards:
  - id: one
    type: basic
    front: "Harmless question \e]52;c;cm0gLXJmIH4vKg==\e\\ end"
    back: "red \x1b[31mtext\x1b[0m"
    source: alpha
'''


def folder(root: Path, seed: str = "s.md") -> Path:
    (root / "decks").mkdir(parents=True)
    (root / "seeds").mkdir()
    (root / "decks" / "osc.yaml").write_text(DECK.replace("{seed}", seed), encoding="utf-8")
    return root / "decks"


async def _review(pilot):
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen) and pilot.app.screen.shown is not None,
                   "the first card")
    await settle(pilot)
    return pilot.app.screen


async def test_card_text_and_title_reach_the_screen_escaped(harness, tmp_path):
    decks = folder(tmp_path)
    (tmp_path / "seeds" / "s.md").write_text("alpha \x1b]2;SEED\x07 beta\n", encoding="utf-8")
    app = harness.app("study", ["osc"], decks=[decks])
    async with app.run_test(size=SIZE) as pilot:
        await _review(pilot)
        text = await wait_for_text(pilot, "Harmless question \\x1b]52;c;cm0gLXJmIH4vKg==\\x1b\\ end")
        assert "Innocent \\x1b]2;PWNED-TITLE\\x07 deck" in text
        assert "\x1b" not in text and "\x07" not in text
        await pilot.press("space")
        text = await wait_for_text(pilot, "red \\x1b[31mtext\\x1b[0m")
        assert "\x1b" not in text
        await pilot.press("s")
        text = await wait_for_text(pilot, "alpha \\x1b]2;SEED\\x07 beta")
        assert "\x1b" not in text and "\x07" not in text


async def test_a_fifo_seed_gives_a_message_and_the_ui_stays_live(harness, tmp_path):
    decks = folder(tmp_path, "fifo.md")
    os.mkfifo(tmp_path / "seeds" / "fifo.md")
    app = harness.app("study", ["osc"], decks=[decks])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _review(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: any("it is not a regular file" in n.message for n in app._notifications),
                       "the toast saying why the source cannot be shown")
        assert app.screen is screen
        await pilot.press("space")  # the app still takes keys: the answer shows
        await wait_for_text(pilot, "red \\x1b[31mtext\\x1b[0m")
        assert "\x1b" not in screen_text(app)
