"""The home screen shows the active profile, the curriculum's tracks in order and what to study next."""

import shutil

from studyapp.core.session import ReviewSession
from tui_helpers import services_with_the_catalog_held_back, SAMPLE_DECKS, screen_text, wait_for, wait_for_text

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


TWO_TRACKS = """\
schema: 1
title: Two tracks
tracks:
  - id: basics
    title: Sample basics
    decks: [ui-sample]
    target: 90%
    days: 7
  - id: more
    title: The second deck
    decks: [second]
    target: 50%
    after: [basics]
"""


async def test_the_tracks_come_before_the_catalog_when_the_store_is_in_step(harness, tmp_path):
    """Once a session has synced the decks the summary describes, the curriculum's tracks and what to
    study next are worked out from the summary and the store (Services.summary_tracks) and drawn before
    the catalog loads; the catalog's tracks drawn afterwards are the same, to the character."""
    from studyapp.core.catalog import discover
    from studyapp.core.settings import resolve
    from studyapp.onboarding.report import MASTERY_STABILITY_DAYS
    from studyapp.store import open_store
    from studyapp.tui.app import Start, StudyApp
    from studyapp.tui.config import load_config

    folder = deck_folder(tmp_path, TWO_TRACKS)
    (folder / "second.yaml").write_text(
        "schema: 1\nid: second\ntitle: Second deck\nseed: ../seeds/ui-sample.md\ncards:\n"
        "  - {id: one, type: basic, front: What is fast?, back: The scheduler, "
        "source: 'The scheduler answers in under a millisecond.'}\n", encoding="utf-8")
    location = resolve(str(harness.home), None, [str(folder)], environ={})
    catalog = discover(location.deck_dirs, cache_file=location.home / "cache" / "decks.pickle")
    store = open_store(location, clock=harness.clock)
    ReviewSession(store, catalog.decks, clock=harness.clock)  # syncs the decks
    session = ReviewSession(store, [d for d in catalog.decks if d.id == "ui-sample"], clock=harness.clock)
    for rating in (3, 3, 1):  # the second deck never reviewed: its track is not started
        assert session.next() is not None
        session.answer(rating, 1000)
    # Two items of the sample deck mastered (as the store's scheduler would leave them after weeks).
    with store.conn:
        store.conn.execute("UPDATE items SET state = 'review', stability = ? WHERE id IN "
                           "(SELECT id FROM items WHERE deck_id = 'ui-sample' ORDER BY id LIMIT 2)",
                           (MASTERY_STABILITY_DAYS + 1,))
    store.close()
    services, release = services_with_the_catalog_held_back(harness, location)
    app = StudyApp(services, load_config(harness.home), Start("home"))
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await wait_for_text(pilot, "Next: ")
            home = app.screen
            assert not home.loaded and services.loaded_catalog is None
            first = ([dict(t) for t in home.tracks], home._next_step)
            drawn = str(home.query_one("#home-tracks").render())
            release.set()
            await wait_for(pilot, lambda: home.loaded, "the tracks from the catalog")
            await pilot.pause()
            assert ([dict(t) for t in home.tracks], home._next_step) == first
            assert str(home.query_one("#home-tracks").render()) == drawn
            basics, more = first[0]
            assert basics["mastered_facts"] >= 1 and basics["status"] == "on track"
            assert more["status"] == "not started" and first[1]["deck"] == "ui-sample"
            assert "Sample basics" in drawn and "Next: " in drawn
    finally:
        release.set()


def test_the_tracks_from_the_summary_wait_for_a_store_in_step(harness, tmp_path):
    """Services.summary_tracks gives nothing while the store has not synced the summarised decks (its
    items could be another deck's), then the very tracks the catalog's path gives."""
    from studyapp.core.catalog import discover
    from studyapp.core.settings import resolve
    from studyapp.tui.services import Services

    folder = deck_folder(tmp_path, TWO_TRACKS)
    (folder / "second.yaml").write_text(
        "schema: 1\nid: second\ntitle: Second deck\ncards:\n  - {id: one, type: basic, front: A?, back: B}\n",
        encoding="utf-8")
    location = resolve(str(harness.home), None, [str(folder)], environ={})
    discover(location.deck_dirs, cache_file=location.home / "cache" / "decks.pickle")  # writes the summary
    services = Services(location, clock=harness.clock)
    harness._services.append(services)
    summary = services.deck_summary()
    assert summary is not None and {d.id for d in summary.decks} >= {"ui-sample", "second"}
    assert services.summary_tracks(summary) is None  # the store never synced them
    rows = services.overview().deck_progress(spans=False)  # syncs every deck
    tracks, next_step = services.tracks(rows)
    assert [t["id"] for t in tracks] == ["basics", "more"] and next_step is not None
    assert services.summary_tracks(summary) == (tracks, next_step)
