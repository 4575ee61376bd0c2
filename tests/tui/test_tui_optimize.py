"""Optimize from Settings (z) and the workload chart in Stats (w), on real stores."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from optimize_support import SPECS, deck_for, history, record  # noqa: E402
from studyapp.tui.screens.settings import SettingsScreen  # noqa: E402
from studyapp.tui.screens.stats import StatsScreen  # noqa: E402
from studyapp.core.workload import RETENTIONS  # noqa: E402

from test_tui_browse_stats_settings import open_from_home  # noqa: E402
from tui_helpers import SIZE, wait_for, wait_for_text  # noqa: E402


def _studied(harness):
    """A month of one learner's answers on a deck beside the sample (tests/optimize_support.py)."""
    h = history(SPECS[6])
    with harness.store() as store:
        store.sync([deck_for(h)])
        record(store, h)
    harness.clock.set(h["now_ms"])
    return h


async def test_optimize_with_too_few_reviews_says_how_many_and_keeps_the_parameters(harness):
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        await pilot.press("z")
        text = " ".join((await wait_for_text(pilot, "too few reviews")).split())
        assert "0 reviews in the log" in text and "at least 64" in text
    with harness.store() as store:
        assert store.fitted_parameters() == {}


async def test_optimize_in_settings_fits_and_stores_the_parameters(harness):
    h = _studied(harness)
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "o", SettingsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the settings")
        await pilot.press("z")
        text = " ".join((await wait_for_text(pilot, "Optimized on")).split())
        assert f"Optimized on {h['reviews']} reviews" in text and "new parameters in use" in text
    with harness.store() as store:
        fitted = store.fitted_parameters()["Default"]
        assert fitted["reviews"] == h["reviews"] and len(fitted["parameters"]) == 21


async def test_stats_workload_chart_marks_the_minimum_recommended_retention(harness):
    _studied(harness)
    app = harness.app("home")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_home(pilot, "t", StatsScreen)
        await wait_for(pilot, lambda: screen.loaded, "the figures")
        chart = screen.query_one("#chart-workload")
        assert chart.values == ()  # simulated only when asked
        await pilot.press("w")
        await wait_for(pilot, lambda: len(chart.values) == len(RETENTIONS), "the workload")
        line = screen.query_one("#stats-workload")
        await wait_for(pilot, lambda: "Minimum recommended retention" in str(line.render()), "the minimum")
        text = str(line.render())
        assert chart.highlight is not None and chart.values[-1] > chart.values[0]
        minimum = float(text.split("Minimum recommended retention ")[1][:4])
        assert 0.70 <= minimum <= 0.95 and abs(RETENTIONS[chart.highlight] - minimum) <= 0.005
