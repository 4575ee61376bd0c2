"""The home screen shows the active profile, the curriculum's tracks in order and what to study next."""

import shutil

from studyapp.core.session import ReviewSession
from tui_helpers import SAMPLE_DECKS, screen_text, wait_for, wait_for_text

CURRICULUM = """\
schema: 1
title: Sample onboarding
tracks:
  - id: basics
    title: Sample basics
    decks: [ui-sample]
    target: 50%
    days: 7
"""


def deck_folder(tmp_path, curriculum=CURRICULUM):
    folder = tmp_path / "decks"
    shutil.copytree(SAMPLE_DECKS, folder)
    shutil.copytree(SAMPLE_DECKS.parent / "seeds", tmp_path / "seeds")
    if curriculum:
        (folder / "curriculum.yaml").write_text(curriculum, encoding="utf-8")
    return folder


async def test_home_shows_profile_tracks_and_next_step(harness, tmp_path):
    app = harness.app("home", decks=[deck_folder(tmp_path)])
    async with app.run_test(size=(110, 30)) as pilot:
        text = await wait_for_text(pilot, "Sample basics")
        assert "profile default" in text
        assert "0% of 50% mastered · not started" in text
        assert "Next: " in text.split("Sample basics")[1]
        assert app.screen.tracks[0]["status"] == "not started"


async def test_tracks_move_to_behind_after_their_days(harness, tmp_path):
    folder = deck_folder(tmp_path)
    from studyapp.core.catalog import load_paths

    with harness.store() as store:
        session = ReviewSession(store, load_paths([folder]).decks, clock=harness.clock)
        session.next()
        session.answer(3, 2_000)
    harness.clock.advance(days=3)
    app = harness.app("home", decks=[folder])
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.tracks, "tracks loaded")
        assert app.screen.tracks[0]["status"] == "on track"
        await wait_for_text(pilot, "on track")  # drawn a frame after the tracks are set
    harness.clock.advance(days=6)  # nine days after the first answer: past the seven allowed
    app = harness.app("home", decks=[folder])
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.tracks, "tracks loaded")
        assert app.screen.tracks[0]["status"] == "behind"
        await wait_for_text(pilot, "behind · by")


async def test_no_curriculum_no_tracks_panel(harness, tmp_path):
    app = harness.app("home", decks=[deck_folder(tmp_path, curriculum=None)])
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.loaded, "decks loaded")
        assert app.screen.tracks == []
        assert "Curriculum" not in screen_text(app)
