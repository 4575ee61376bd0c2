"""What each desired retention costs: the crate's simulator with the learner's own figures.

Anki's Deck Options show the workload of a desired retention (``simulate_workload``) and
"compute minimum recommended retention" (rslib/src/scheduler/fsrs/retention.rs: fsrs-rs's
``optimal_retention``, clamped to 0.70-0.95). Both run the fsrs-rs simulator with a
``SimulatorConfig`` that Anki fills from the learner's revlog (fsrs-rs
``extract_simulator_config``). Of that, studyapp fills in the learner's own: parameters,
deck size, daily limits, the seconds each answer takes per state and grade, and how often
each grade is pressed on a card's first answer of the day (learning and review). The
learning- and relearning-step transition matrices stay the crate's defaults (Anki's
smoothing of them is not ported).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

import fsrs_rs_python

from .optimize import KIND_LEARNING, KIND_RELEARNING, KIND_REVIEW

RETENTIONS = tuple(round(0.70 + 0.01 * i, 2) for i in range(28))  # 0.70 ... 0.97
DAYS = 365
SEED = 42
# extract_simulator_config counts an answer's time only between these (ms).
MAX_ANSWER_MS = 1_200_000


@dataclass(frozen=True)
class WorkloadPoint:
    retention: float
    reviews_per_day: float
    minutes_per_day: float
    remembered: float  # items remembered at the end of the year (the simulator's memorized count)

    @property
    def minutes_per_item(self) -> float:
        return self.minutes_per_day * DAYS / self.remembered if self.remembered else float("inf")

    def to_dict(self) -> dict:
        return {"retention": self.retention, "reviews_per_day": self.reviews_per_day,
                "minutes_per_day": self.minutes_per_day, "remembered": self.remembered}


def simulator_config(rows: Iterable[tuple], *, deck_size: int, new_per_day: int, reviews_per_day: int,
                     maximum_interval: int, next_day_at_s: int, learning_steps: int = 2,
                     relearning_steps: int = 1):
    """A ``SimulatorConfig`` from the log rows (card, time_ms, rating, Anki's kind, duration_ms),
    as fsrs-rs's ``extract_simulator_config`` fills costs and first-answer grade shares."""
    config = fsrs_rs_python.default_simulator_config()
    durations: dict[tuple[int, int], list[int]] = defaultdict(list)
    first_of_day: dict[tuple[int, int], tuple[int, int]] = {}
    for card, time_ms, rating, kind, duration in rows:
        if not 0 < duration < MAX_ANSWER_MS or not 1 <= rating <= 4:
            continue
        if kind in (KIND_LEARNING, KIND_REVIEW, KIND_RELEARNING):
            durations[(kind, rating - 1)].append(duration)
        since = time_ms // 1000 - next_day_at_s
        day = since // 86_400 if since >= 0 else -(-since // 86_400)  # Rust truncates toward zero
        first_of_day.setdefault((card, day), (kind, rating))
    costs = [list(row) for row in config.state_rating_costs]
    for (state, rating), values in durations.items():
        # Rust's integer mean of whole milliseconds, then seconds.
        costs[state][rating] = (sum(values) // len(values)) / 1000
    config.state_rating_costs = costs
    learn = [sum(1 for k, r in first_of_day.values() if k == KIND_LEARNING and r == g) for g in range(1, 5)]
    review = [sum(1 for k, r in first_of_day.values() if k == KIND_REVIEW and r == g) for g in range(1, 5)]
    if any(learn):
        config.first_rating_prob = [n / sum(learn) for n in learn]
    if any(review[1:]):
        config.review_rating_prob = [n / sum(review[1:]) for n in review[1:]]
    config.deck_size = max(1, deck_size)
    config.learn_limit = new_per_day
    config.review_limit = reviews_per_day
    config.max_ivl = float(maximum_interval)
    config.learn_span = DAYS
    config.learning_step_count = learning_steps
    config.relearning_step_count = relearning_steps
    return config


def workload(parameters: Sequence[float], config, retentions: Sequence[float] = RETENTIONS) -> list[WorkloadPoint]:
    """Reviews and minutes per day over the next year at each desired retention (seeded, so repeatable)."""
    out = []
    for retention in retentions:
        result = fsrs_rs_python.simulate(list(parameters), retention, config, SEED)
        days = len(result.review_cnt_per_day) or 1
        out.append(WorkloadPoint(retention, sum(result.review_cnt_per_day) / days,
                                 sum(result.cost_per_day) / days / 60,
                                 float(result.memorized_cnt_per_day[-1]) if result.memorized_cnt_per_day else 0.0))
    return out


def minimum_recommended_retention(parameters: Sequence[float], config) -> float:
    """Anki's "compute minimum recommended retention": the crate's optimal retention, 0.70-0.95."""
    value = float(fsrs_rs_python.optimal_retention(config, list(parameters)))
    return min(max(value, 0.70), 0.95)


def for_profile(store, presets, settings, deck_sizes: dict[str, int], now_ms: int, *,
                retentions: Sequence[float] = RETENTIONS, preset: str | None = None):
    """(workload points, minimum recommended retention, parameters used) for a profile's decks:
    the given preset's (default: Default's) parameters, limits and steps, the log's answer times."""
    from .optimize import next_day_at_s, relearning_steps_within_a_day
    from .presets import DEFAULT_PRESET

    chosen = presets.presets.get(preset or DEFAULT_PRESET) or presets.default
    scheduled = chosen.scheduling(settings)
    config = simulator_config(
        store.optimizer_rows(durations=True), deck_size=sum(deck_sizes.values()),
        new_per_day=scheduled.new_per_day, reviews_per_day=scheduled.reviews_per_day,
        maximum_interval=scheduled.maximum_interval, next_day_at_s=next_day_at_s(scheduled, now_ms),
        learning_steps=len(scheduled.learning_steps),
        relearning_steps=relearning_steps_within_a_day(scheduled.relearning_steps))
    points = workload(scheduled.parameters, config, retentions)
    return points, minimum_recommended_retention(scheduled.parameters, config), scheduled.parameters


__all__ = ["for_profile", "RETENTIONS", "WorkloadPoint", "simulator_config", "workload", "minimum_recommended_retention"]
