"""What each desired retention costs: the crate's simulator with the learner's own figures.

Anki's Deck Options show the workload of a desired retention (``simulate_workload``) and
"compute minimum recommended retention" (rslib/src/scheduler/fsrs/retention.rs: fsrs-rs's
``optimal_retention``, clamped to 0.70-0.95). Both run the fsrs-rs simulator with what
``simulate_request_to_config`` (rslib/src/scheduler/fsrs/simulator.rs) builds: a
``SimulatorConfig`` whose grade shares, step transitions and answer costs fsrs-rs's
``extract_simulator_config`` takes from the revlog, and the cards as they stand. Both are
ported here (``simulator_tables``, ``simulator_cards``), and tests/test_optimize_parity.py
holds them equal to Anki's: the tables to the last f32 bit, and a year simulated day by day.
"""

from __future__ import annotations

import math
import struct
from collections import defaultdict
from dataclasses import dataclass
from operator import itemgetter
from typing import Iterable, Mapping, Sequence

import fsrs_rs_python

from .optimize import DAY_SECS
from .scheduler import LEARNING, NEW, REVIEW

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


_F32 = struct.Struct("<f")
F32_MAX = 3.4028234663852886e38  # Rust's f32::MAX: Anki's max_cost_perday, no daily time cap


def _f32(value: float) -> float:
    """``value`` rounded to the nearest f32. One +, -, * or / done in float64 and then rounded is
    the f32 operation's own result (53 >= 2 * 24 + 2 bits), so each step below is Rust's f32 step."""
    return _F32.unpack(_F32.pack(value))[0]


def _lerp(v0: float, v1: float, t: float) -> float:
    # fsrs-rs: t * v0 + (1 - t) * v1, in f32 (Rust fuses nothing without mul_add).
    return _f32(_f32(t * v0) + _f32(_f32(1.0 - t) * v1))


def _weight(count: float) -> float:
    return _f32(count / _f32(50.0 + count))


def _round_2(value: float) -> float:
    """fsrs-rs ``to_2_decimal``: (x * 100).round() / 100 in f32, halves away from zero."""
    scaled = _f32(value * 100.0)
    return _f32(math.copysign(math.floor(abs(scaled) + 0.5), scaled) / 100.0)


def _transitions(sequences: Iterable[Sequence[int]]) -> tuple[list[list[float]], list[list[float]]]:
    """fsrs-rs ``calculate_transitions(sequences, 4, 1.0)``: grade-to-next-grade shares within a
    day, Laplace-smoothed by one; (the first three rows, their counts)."""
    counts = [[1.0] * 4 for _ in range(4)]
    for sequence in sequences:
        for current, following in zip(sequence, sequence[1:]):
            counts[current - 1][following - 1] += 1.0
    matrix = [[_f32(c / sum(row)) for c in row] for row in counts]
    return matrix[:3], counts[:3]


def simulator_tables(rows: Iterable[tuple], next_day_at_s: int) -> dict[str, list]:
    """fsrs-rs ``extract_simulator_config(revlog, next_day_at, smooth = true)``, which Anki's
    ``get_optimal_retention_parameters`` runs on the searched cards' revlog, from the log rows
    (card, time_ms, rating, Anki's kind, duration_ms) in card order, each card's in time order.

    Of the answers that took 0 < time < 20 minutes: the mean time (whole ms, then seconds) of
    each grade in learning, review and relearning; per card and day (days counted from the
    rollover, truncated toward zero) the first answer's kind and grade, whose shares give the
    first-grade probabilities of new cards and of reviews, and the day's grades in turn, whose
    transitions give the learning- and relearning-step tables. Each figure is then blended with
    the crate's default by count / (50 + count), and the costs rounded to 0.01 s. All in f32."""
    default = fsrs_rs_python.default_simulator_config()
    durations: dict[tuple[int, int], list[int]] = defaultdict(list)
    days: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for card, time_ms, rating, kind, taken in rows:
        if not 0 < taken < MAX_ANSWER_MS:
            continue
        if kind < 3 and 1 <= rating <= 4:
            durations[(kind, rating - 1)].append(taken)
        if rating < 1:
            # A row with no grade but a time (Anki writes none): the crate would index grade -1.
            continue
        since = time_ms // 1000 - next_day_at_s
        day = since // DAY_SECS if since >= 0 else -(-since // DAY_SECS)  # Rust truncates toward zero
        days.setdefault((card, day), []).append((kind + 1, rating))
    costs = [[0.0] * 4 for _ in range(3)]
    counts = [[0] * 4 for _ in range(3)]
    for (state, rating), values in durations.items():
        # Rust's u32 sum (wrapping, as a release build does) and integer mean, then seconds in f32.
        costs[state][rating] = _f32(((sum(values) % 2 ** 32) // len(values)) / 1000.0)
        counts[state][rating] = len(values)
    usage: dict[tuple[int, int], int] = defaultdict(int)
    learning_days, relearning_days = [], []
    for answers in days.values():
        first_state, first_rating = answers[0]
        usage[(first_state, first_rating)] += 1
        if first_state == 1:
            learning_days.append([rating for _, rating in answers])
        elif first_state == 2 and first_rating == 1:
            relearning_days.append([rating for _, rating in answers])
    learn = [usage[(1, grade)] for grade in range(1, 5)]
    if not any(learn):
        learn = [1, 1, 1, 1]
    review = [usage[(2, grade)] for grade in range(1, 5)]
    if not any(review[1:]):
        review = [review[0], 1, 1, 1]
    first = [_f32(n / sum(learn)) for n in learn]
    after = [_f32(n / sum(review[1:])) for n in review[1:]]
    learning, learning_counts = _transitions(learning_days)
    relearning, relearning_counts = _transitions(relearning_days)
    weight = _weight(sum(learn))
    first = [_lerp(p, d, weight) for p, d in zip(first, default.first_rating_prob)]
    weight = _weight(sum(review[1:]))
    after = [_lerp(p, d, weight) for p, d in zip(after, default.review_rating_prob)]
    for table, table_counts, defaults in ((learning, learning_counts, default.learning_step_transitions),
                                          (relearning, relearning_counts, default.relearning_step_transitions)):
        for row, row_counts, default_row in zip(table, table_counts, defaults):
            weight = _weight(sum(row_counts))
            row[:] = [_lerp(p, d, weight) for p, d in zip(row, default_row)]
    costs = [[_round_2(_lerp(cost, d, _weight(n))) for cost, d, n in zip(row, default_row, row_counts)]
             for row, default_row, row_counts in zip(costs, default.state_rating_costs, counts)]
    return {"first_rating_prob": first, "review_rating_prob": after, "learning_step_transitions": learning,
            "relearning_step_transitions": relearning, "state_rating_costs": costs}


def simulator_config(rows: Iterable[tuple], *, deck_size: int, new_per_day: int, reviews_per_day: int,
                     maximum_interval: int, next_day_at_s: int, learning_steps: int = 2,
                     relearning_steps: int = 1, new_cards_ignore_review_limit: bool = False):
    """A ``SimulatorConfig`` as Anki's ``simulate_request_to_config`` builds it: the tables of
    ``simulator_tables`` from the log rows (card, time_ms, rating, Anki's kind, duration_ms), the
    learner's limits, no daily time cap, a year simulated."""
    rows = sorted(rows, key=itemgetter(0, 1))
    config = fsrs_rs_python.default_simulator_config()
    for name, value in simulator_tables(rows, next_day_at_s).items():
        setattr(config, name, value)
    config.deck_size = max(1, deck_size)
    config.learn_limit = new_per_day
    config.review_limit = reviews_per_day
    config.max_ivl = float(maximum_interval)
    config.max_cost_perday = F32_MAX
    config.new_cards_ignore_review_limit = new_cards_ignore_review_limit
    config.learn_span = DAYS
    config.learning_step_count = learning_steps
    config.relearning_step_count = relearning_steps
    return config


def simulator_cards(items: Iterable, *, days, now_ms: int, parameters: Sequence[float], desired_retention: float,
                    new_cards: int, new_per_day: int, introduced_today: int,
                    review_intervals: Mapping[int, int]) -> list:
    """The cards Anki's ``compute_optimal_retention`` simulates (``simulate_request_to_config`` and
    ``Card::convert``): every item studied and not suspended, in item order, with its memory
    state, the day it is due counted from today and the day of its last review (both relative),
    its interval and lapses; then ``new_cards`` new ones, due in turn as the daily new limit lets
    them in (after those introduced today)."""
    filled = fsrs_rs_python.check_and_fill_parameters(list(parameters))
    today = days.day_of(now_ms)
    cards = []
    for item in items:
        state = item.state
        if item.suspended or state.state == NEW or state.stability is None or state.difficulty is None:
            continue
        if state.state == REVIEW:
            interval = max(state.interval, 1)
        else:
            interval = 0 if state.state == LEARNING else max(1, review_intervals.get(item.id, 0))
        due_ms = state.due_ms if state.due_ms is not None else state.last_review_ms
        interday = state.state == REVIEW or (state.last_review_ms is not None
                                              and days.day_of(due_ms) > days.day_of(state.last_review_ms))
        card = fsrs_rs_python.Card()
        card.id, card.stability, card.difficulty = item.id, state.stability, state.difficulty
        if interday and not item.buried_day >= today:
            relative_due = days.day_of(due_ms) - today
            card.due, card.last_date = float(relative_due), float(min(relative_due - interval, 0))
        else:  # learning within the day, or buried today: Anki simulates it as due now
            card.due, card.last_date = 0.0, 0.0
        card.interval, card.lapses = float(interval), state.lapses
        card.desired_retention, card.parameters = desired_retention, filled
        cards.append(card)
    if new_per_day > 0:
        for index in range(new_cards):
            card = fsrs_rs_python.Card()
            card.id, card.difficulty, card.stability = -index, -math.inf, 1e-8
            card.last_date, card.interval, card.lapses = -math.inf, -math.inf, 0
            card.due = float((introduced_today + index) // new_per_day)
            card.desired_retention, card.parameters = desired_retention, filled
            cards.append(card)
    return cards


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


def minimum_recommended_retention(parameters: Sequence[float], config, cards: Sequence | None = None) -> float:
    """The crate's optimal retention (the one with the least work per item remembered after the
    simulated year, Anki's "compute minimum recommended retention"), clamped to 0.70-0.95 as Anki
    clamps it; ``cards``: the cards to start from (default: none learnt)."""
    value = float(fsrs_rs_python.optimal_retention(config, list(parameters), list(cards) if cards else None))
    return min(max(value, 0.70), 0.95)


def simulation_inputs(store, presets, settings, deck_sizes: dict[str, int], now_ms: int, *,
                      preset: str | None = None, with_cards: bool = True):
    """Anki's ``simulate_request_to_config`` for the decks of ``deck_sizes``: (the settings the
    preset gives, the ``SimulatorConfig``, the cards as they stand, or None without
    ``with_cards``). The given preset's (default: Default's) parameters, limits and steps; the
    log's answers, suspended items' left out (Anki searches ``-is:suspended``); the config's deck
    size is every card of the decks."""
    from .optimize import next_day_at_s, relearning_steps_within_a_day
    from .presets import DEFAULT_PRESET

    chosen = presets.presets.get(preset or DEFAULT_PRESET) or presets.default
    scheduled = chosen.scheduling(settings)
    decks = sorted(deck_sizes)
    rollover = next_day_at_s(scheduled, now_ms)
    items = [item for item in store.all_items() if item.deck_id in deck_sizes and item.present]
    suspended = {item.id for item in items if item.suspended}
    rows = [row for row in store.optimizer_rows(decks, durations=True) if row[0] not in suspended]
    config = simulator_config(
        rows, deck_size=sum(deck_sizes.values()), new_per_day=scheduled.new_per_day,
        reviews_per_day=scheduled.reviews_per_day, maximum_interval=scheduled.maximum_interval,
        next_day_at_s=rollover, learning_steps=len(scheduled.learning_steps),
        relearning_steps=relearning_steps_within_a_day(scheduled.relearning_steps))
    if not with_cards:
        return scheduled, config, None
    intervals, introduced = store.simulator_log_figures(decks, (rollover - DAY_SECS) * 1000)
    studied = sum(1 for item in items if item.state.state != NEW or item.suspended)
    cards = simulator_cards(items, days=scheduled.study_days(), now_ms=now_ms, parameters=scheduled.parameters,
                            desired_retention=scheduled.desired_retention,
                            new_cards=max(0, sum(deck_sizes.values()) - studied), new_per_day=scheduled.new_per_day,
                            introduced_today=min(introduced, scheduled.new_per_day), review_intervals=intervals)
    return scheduled, config, cards


def ankis_minimum_recommended_retention(parameters: Sequence[float], config, cards: Sequence) -> float:
    """Anki 26.9's "compute minimum recommended retention" exactly: the crate's optimal retention
    over every card as it stands, new ones included, clamped to 0.70-0.95. Each of those cards
    carries the preset's desired retention, and the crate (6.6.1) schedules a card it is handed
    by its own, so the retention tried changes nothing simulated: the search meets a flat target
    and ends where its steps end (0.9367 whatever the collection; docs/engine.md)."""
    simulated = fsrs_rs_python.default_simulator_config()
    for name in _CONFIG_FIELDS:
        setattr(simulated, name, getattr(config, name))
    simulated.deck_size = max(1, len(cards))
    return minimum_recommended_retention(parameters, simulated, cards)


_CONFIG_FIELDS = ("learn_span", "max_cost_perday", "max_ivl", "first_rating_prob", "review_rating_prob",
                  "learn_limit", "review_limit", "new_cards_ignore_review_limit", "learning_step_transitions",
                  "relearning_step_transitions", "state_rating_costs", "learning_step_count",
                  "relearning_step_count", "suspend_after_lapses")


def for_profile(store, presets, settings, deck_sizes: dict[str, int], now_ms: int, *,
                retentions: Sequence[float] = RETENTIONS, preset: str | None = None):
    """(workload points, minimum recommended retention, parameters used) for the decks of
    ``deck_sizes`` (``simulation_inputs``). Both start from no card learnt: the workload because
    the crate's ``simulate`` takes no cards, and the minimum because from the cards as they stand
    Anki 26.9's search finds nothing (``ankis_minimum_recommended_retention``), whereas from
    scratch each retention tried is the one every card is scheduled with."""
    scheduled, config, _ = simulation_inputs(store, presets, settings, deck_sizes, now_ms, preset=preset,
                                             with_cards=False)
    points = workload(scheduled.parameters, config, retentions)
    return points, minimum_recommended_retention(scheduled.parameters, config), scheduled.parameters


__all__ = ["for_profile", "RETENTIONS", "WorkloadPoint", "simulator_config", "simulator_tables", "simulator_cards",
           "simulation_inputs", "workload", "minimum_recommended_retention", "ankis_minimum_recommended_retention"]
