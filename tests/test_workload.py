"""What each desired retention costs (core/workload.py): the crate's simulator fed the learner's figures."""

from __future__ import annotations

import fsrs_rs_python
import pytest

from engine_support import location
from optimize_support import SPECS, deck_for, history, record, settings_for
from studyapp.core import workload as w
from studyapp.core.clock import FakeClock
from studyapp.core.optimize import KIND_CRAM, KIND_LEARNING, KIND_REVIEW
from studyapp.core.scheduler import DEFAULT_PARAMETERS
from studyapp.store import open_store

NDA = 2_000_000_000  # a rollover, in seconds


def test_the_config_takes_the_learners_answer_times_and_first_grades():
    day = 86_400_000
    start = (NDA - 10 * 86_400 + 3600) * 1000  # an hour into a study day
    rows = [
        (1, start, 3, KIND_LEARNING, 6000), (1, start + 60_000, 3, KIND_LEARNING, 2000),  # same day: one first
        (1, start + 2 * day, 3, KIND_REVIEW, 5000), (2, start, 1, KIND_LEARNING, 9000),
        (2, start + 2 * day, 1, KIND_REVIEW, 7000), (2, start + 3 * day, 4, KIND_REVIEW, 3000),
        (3, start, 2, KIND_CRAM, 1000),  # cram: no cost of its own, no grade share
        (3, start, 3, KIND_LEARNING, 0),  # no time recorded: left out, as Anki does
    ]
    config = w.simulator_config(rows, deck_size=3, new_per_day=5, reviews_per_day=50, maximum_interval=100,
                                next_day_at_s=NDA)
    default = fsrs_rs_python.default_simulator_config()
    costs = config.state_rating_costs
    # Each figure blended with the crate's default by n / (50 + n), as fsrs-rs's
    # extract_simulator_config(smooth = true) does for Anki, and the costs rounded to 0.01 s:
    # learning Good took 6 s and 2 s (mean 4 s, n = 2): 2/52 * 4 + 50/52 * 13.78 = 13.40.
    assert costs[0][2] == pytest.approx(13.40, abs=1e-5) and costs[0][0] == pytest.approx(19.37, abs=1e-5)
    assert costs[1][2] == pytest.approx(12.24, abs=1e-5) and costs[1][3] == pytest.approx(8.82, abs=1e-5)
    assert costs[1][0] == pytest.approx(19.14, abs=1e-5)
    assert costs[1][1] == pytest.approx(default.state_rating_costs[1][1])  # never pressed: the default
    # First answers of a day: learning Good (card 1) and Again (card 2); the cram row's day and the
    # untimed row count for nothing. Shares [0.5, 0, 0.5, 0] blended by 2/52 with the defaults.
    assert config.first_rating_prob == pytest.approx(
        [2 / 52 * 0.5 + 50 / 52 * 0.24, 50 / 52 * 0.094, 2 / 52 * 0.5 + 50 / 52 * 0.495, 50 / 52 * 0.171], abs=1e-6)
    # Reviews: Again (not a share), Good and Easy: [0, 0.5, 0.5] of Hard/Good/Easy, blended alike.
    assert config.review_rating_prob == pytest.approx(
        [50 / 52 * 0.224, 2 / 52 * 0.5 + 50 / 52 * 0.631, 2 / 52 * 0.5 + 50 / 52 * 0.145], abs=1e-6)
    # Card 1's learning day went Good then Good: from Good, counts [1, 1, 2, 1] after Laplace's one,
    # shares [0.2, 0.2, 0.4, 0.2], blended by 5/55 with the default row.
    assert config.learning_step_transitions[2][2] == pytest.approx(5 / 55 * 0.4 + 50 / 55 * 0.8462, abs=1e-6)
    # No relearning day: Laplace's ones alone, a uniform 0.25, blended by 4/54.
    assert config.relearning_step_transitions[0][0] == pytest.approx(4 / 54 * 0.25 + 50 / 54 * 0.2157, abs=1e-6)
    assert (config.deck_size, config.learn_limit, config.review_limit, config.max_ivl) == (3, 5, 50, 100.0)
    # Anki hands the simulator no daily time cap and its own new-cards-ignore-review-limit (off).
    assert config.max_cost_perday == w.F32_MAX and config.new_cards_ignore_review_limit is False


def test_more_retention_costs_more_reviews_and_the_minimum_is_in_ankis_range(tmp_path):
    h = history(SPECS[6])
    store = open_store(location(tmp_path), clock=FakeClock(h["now_ms"]))
    store.save_settings(settings_for(SPECS[6]))
    store.sync([deck_for(h)])
    record(store, h)
    points, minimum, parameters = w.for_profile(store, store.load_presets(), store.load_settings(),
                                                {"d": h["cards"]}, h["now_ms"])
    assert [p.retention for p in points] == list(w.RETENTIONS) and w.RETENTIONS[0] == 0.70 and w.RETENTIONS[-1] == 0.97
    assert points[-1].reviews_per_day > 1.5 * points[0].reviews_per_day
    assert points[-1].minutes_per_day > points[0].minutes_per_day
    assert 0.70 <= minimum <= 0.95 and parameters == DEFAULT_PARAMETERS
    # Seeded: the same figures every time (a chart that changed on its own would mislead).
    again, _, _ = w.for_profile(store, store.load_presets(), store.load_settings(), {"d": h["cards"]}, h["now_ms"],
                                retentions=(0.70, 0.97))
    assert again[0] == points[0] and again[1] == points[-1]
    store.close()
