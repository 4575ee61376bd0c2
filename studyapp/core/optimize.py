"""Fitting FSRS parameters to a learner's own review log, as Anki's Deck Options > Optimize does.

The fitting is the fsrs-rs crate's own (``fsrs-rs-python``, the crate Anki runs); what is
ported here is what Anki's rslib does around it, rule for rule, from
rslib/src/scheduler/fsrs/params.rs (``fsrs_items_for_training``, ``reviews_for_fsrs``,
``compute_params``) and rslib/src/revlog/mod.rs (``is_cramming``, ``is_reset``,
``has_rating_and_affects_scheduling``). docs/engine.md names each rule.

Nothing here reads the store: the caller hands over the log as ``LogRow`` values (the store
has them, and so has an exported log), so the same code fits one profile or a team's pooled
logs.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from itertools import compress, groupby, repeat
from operator import gt, itemgetter, sub
from typing import Any, Iterable, Mapping, NamedTuple, Protocol, Sequence

import fsrs_rs_python

from .gcpause import collector_paused
from .problems import StudyappError
from .presets import DEFAULT_PRESET, Presets
from .scheduler import DEFAULT_PARAMETERS, LEARNING, NEW, RELEARNING, REVIEW, Settings

# Anki's RevlogReviewKind, the only thing of a log row (besides its rating and time) the
# conversion looks at. Cram is Anki's Filtered with ease factor 0 (``is_cramming``), reset is
# its Manual with ease factor 0 (``is_reset``).
KIND_LEARNING, KIND_REVIEW, KIND_RELEARNING, KIND_CRAM, KIND_RESET = 0, 1, 2, 3, 4

# fsrs-rs fits all 21 parameters only from this many training items (training.rs: fewer than
# 8 give the defaults back, fewer than 64 only the four initial stabilities); below it studyapp
# says so rather than adopt a partial fit.
MINIMUM_ITEMS = 64
# Anki's TrainingConfig for Optimize (params.rs): 8 epochs, the crate's defaults otherwise.
EPOCHS = 8
DAY_SECS = 86_400


class LogRow(NamedTuple):
    """One review-log row as the conversion needs it: which card, when (ms), the grade (0 for
    a reset) and Anki's review kind (``KIND_*``). Any 4-tuple in this order will do (the store
    hands over plain tuples: building 100,000 of these would cost more than the fit)."""

    card: int
    time_ms: int
    rating: int
    kind: int


def kind_of(log_kind: str, state_before: str) -> int:
    """Anki's review kind of a studyapp log row: cram and reset by the row's kind, an answer by
    the state it was given in (Anki logs a new card's first answer as Learning too)."""
    if log_kind == "cram":
        return KIND_CRAM
    if log_kind == "reset":
        return KIND_RESET
    if state_before in (NEW, LEARNING):
        return KIND_LEARNING
    if state_before == RELEARNING:
        return KIND_RELEARNING
    if state_before == REVIEW:
        return KIND_REVIEW
    raise StudyappError(f"review log row of kind {log_kind!r} has an unknown state {state_before!r}")


@dataclass(slots=True)
class TrainingSet:
    """Anki's ``fsrs_items_for_training`` output: items sorted by the time of their last review,
    the card of each, and how many log rows the kept cards contribute (Anki's review count)."""

    items: list = field(default_factory=list)
    card_ids: list[int] = field(default_factory=list)
    reviews: int = 0
    cards: int = 0
    rows: int = 0  # every row handed in, for the too-few message
    times: list[int] = field(default_factory=list)  # each item's last answer (ms), its sort key

    @property
    def size(self) -> int:
        return len(self.items)


def days_elapsed(next_day_at_s: int, time_ms: int) -> int:
    """Anki's ``RevlogEntry::days_elapsed``: whole days from the row (whole seconds) to today's
    rollover (``next_day_at``), truncated as Rust's integer division, never below 0."""
    secs = next_day_at_s - time_ms // 1000
    return secs // DAY_SECS if secs > 0 else 0


_TIME, _RATING, _KIND = itemgetter(1), itemgetter(2), itemgetter(3)


def _first_learn(rows: Sequence[tuple], kinds: list[int], ratings: list[int]) -> int | None:
    """Where the card's training history starts (params.rs ``reviews_for_fsrs``), or None.

    Working backwards from the latest row: the items start at the first answer of the card's
    last run of learning answers (cram rows skipped); a reset before that run ends the
    history, and a reset with no learning answer after it leaves none."""
    if KIND_RESET not in kinds and KIND_CRAM not in kinds and 0 not in ratings:
        # The usual card (every row an answer): the last learning answer, then back over its run.
        if KIND_LEARNING not in kinds:
            return None
        index = len(kinds) - 1 - kinds[::-1].index(KIND_LEARNING)
        while index and kinds[index - 1] == KIND_LEARNING:
            index -= 1
        return index
    first_learn = None
    for index in range(len(rows) - 1, -1, -1):
        rating, kind = ratings[index], kinds[index]
        if kind == KIND_CRAM:
            continue
        if rating > 0 and kind == KIND_LEARNING:
            first_learn = index
        elif kind == KIND_RESET:
            if first_learn is not None:
                break
            # Graded since the reset but never learnt again, or not graded at all: no history.
            return None
        elif first_learn is not None:
            break
    return first_learn


def _card_history(times: Sequence[int], ratings: Sequence[int], kinds: Sequence[int], days: Sequence[int],
                  ignore_before_ms: int):
    """One card's columns in time order -> (its kept answers' times, ratings and delta_t), or None
    when it gives no item (params.rs ``reviews_for_fsrs``, training)."""
    first_learn = _first_learn(times, kinds, ratings)
    # Training ignores a card with no learning answer (its history started mid-way, e.g. an
    # import of reviews without their learning steps) and one first learnt before the cutoff.
    if first_learn is None or times[first_learn] < ignore_before_ms:
        return None
    if KIND_CRAM in kinds or 0 in ratings:
        keep = [r > 0 and k != KIND_CRAM for r, k in zip(ratings[first_learn:], kinds[first_learn:])]
        times = list(compress(times[first_learn:], keep))
        ratings = list(compress(ratings[first_learn:], keep))
        days = list(compress(days[first_learn:], keep))
    elif first_learn:
        times, ratings, days = times[first_learn:], ratings[first_learn:], days[first_learn:]
    if len(times) < 2:
        return None
    # delta_t: study days since the previous kept answer (0 for the first and on the same day).
    return times, ratings, [0, *map(sub, days, days[1:])]


def _days(next_day_at_s: int, times: Sequence[int]) -> list[int]:
    """Anki's RevlogEntry::days_elapsed of each time (ms), as ``days_elapsed``."""
    if not times or max(times) // 1000 < next_day_at_s:
        return [(next_day_at_s - t // 1000) // DAY_SECS for t in times]
    return [days_elapsed(next_day_at_s, t) for t in times]  # answers after today's rollover (a clock put back)


def card_reviews(rows: Sequence[tuple], next_day_at_s: int, ignore_before_ms: int = 0):
    """Anki's ``reviews_for_fsrs`` with ``training = true`` for one card's rows (``LogRow`` order:
    card, time_ms, rating, kind) in time order: (the times of the answers kept, their (rating,
    delta_t) reviews, [(time_ms, length)] one per item: the item is the first ``length`` reviews),
    or None when the card gives no item."""
    times, ratings, kinds = list(map(_TIME, rows)), list(map(_RATING, rows)), list(map(_KIND, rows))
    found = _card_history(times, ratings, kinds, _days(next_day_at_s, times), ignore_before_ms)
    if found is None:
        return None
    times, ratings, deltas = found
    # One item per answer on a later day than the one before it, holding every answer so far;
    # same-day answers stay in the history of the next item but make none of their own.
    items = list(zip(compress(times, deltas), compress(range(1, len(times) + 1), deltas)))
    if not items:
        return None
    return times, list(zip(ratings, deltas)), items


class _Reviews(dict):
    """Shared FSRSReview objects by (rating, delta_t): the crate copies each review into its item,
    so a thousand distinct pairs stand for the million references of a large log."""

    def __missing__(self, key):
        value = self[key] = fsrs_rs_python.FSRSReview(*key)
        return value


def training_set(rows: Iterable[tuple], next_day_at_s: int, *, ignore_before_ms: int = 0) -> TrainingSet:
    """Anki's ``fsrs_items_for_training``. ``rows`` (``LogRow`` order) grouped by card; within a
    card they are put in time order (Anki reads its revlog by card, then id = time)."""
    rows = rows if isinstance(rows, list) else list(rows)
    if not rows:
        return TrainingSet()
    cards, times, ratings, kinds = list(zip(*rows))[:4]
    return training_set_from_columns((cards, times, ratings, kinds, _days(next_day_at_s, times)), next_day_at_s,
                                     ignore_before_ms=ignore_before_ms)


def training_set_from_columns(columns: Sequence[Sequence[int]], next_day_at_s: int, *,
                              ignore_before_ms: int = 0) -> TrainingSet:
    """``training_set`` of rows given as columns: cards, times (ms), ratings, kinds and each row's
    ``days_elapsed`` to ``next_day_at_s`` (``Store.optimizer_columns``)."""
    cards, times, ratings, kinds, days = columns
    out = TrainingSet(rows=len(cards))
    reviews, item_type = _Reviews().__getitem__, fsrs_rs_python.FSRSItem
    items: list = []
    item_cards: list[int] = []
    item_times: list[int] = []
    start = 0
    for card, group in groupby(cards):
        end = start + len(list(group))
        card_times = times[start:end]
        if any(map(gt, card_times, card_times[1:])):
            # Rows come in the order they were written; one merged from another device can be older.
            order = sorted(range(start, end), key=times.__getitem__)
            found = _card_history([times[i] for i in order], [ratings[i] for i in order],
                                  [kinds[i] for i in order], [days[i] for i in order], ignore_before_ms)
        else:
            found = _card_history(card_times, ratings[start:end], kinds[start:end], days[start:end],
                                  ignore_before_ms)
        start = end
        if found is None:
            continue
        kept_times, kept_ratings, deltas = found
        # One item per answer on a later day than the one before it, holding every answer so far;
        # same-day answers stay in the history of the next item but make none of their own.
        ends = list(compress(range(1, len(deltas) + 1), deltas))
        if not ends:
            continue
        objects = list(map(reviews, zip(kept_ratings, deltas)))
        items += map(item_type, map(objects.__getitem__, map(slice, ends)))
        item_times += compress(kept_times, deltas)
        item_cards += repeat(card, len(ends))
        out.reviews += len(deltas)
        out.cards += 1
    # Sorted by the time of the item's last review (Anki: by revlog id); ties keep card order.
    order = sorted(range(len(item_times)), key=item_times.__getitem__)
    out.items = list(map(items.__getitem__, order))
    out.card_ids = list(map(item_cards.__getitem__, order))
    out.times = list(map(item_times.__getitem__, order))
    return out


def relearning_steps_within_a_day(relearning_steps: Sequence[int]) -> int:
    """Anki's ``numOfRelearningStepsInDay`` (FsrsOptions.svelte): the relearning steps (seconds
    here, minutes there) before their running total reaches a day."""
    count = total = 0
    for step in relearning_steps:
        total += step
        if total >= DAY_SECS:
            break
        count += 1
    return count


@dataclass(frozen=True)
class Evaluation:
    log_loss: float
    rmse_bins: float

    def to_dict(self) -> dict:
        return {"log_loss": self.log_loss, "rmse_bins": self.rmse_bins}


@dataclass(frozen=True)
class Fit:
    """What Optimize found: the parameters to use from now on, and why."""

    parameters: tuple[float, ...]       # what to use: ``fitted`` when adopted, else ``current``
    fitted: tuple[float, ...]           # the crate's result
    current: tuple[float, ...]
    adopted: bool
    items: int
    reviews: int
    cards: int
    current_eval: Evaluation
    fitted_eval: Evaluation
    reason: str

    def to_dict(self) -> dict:
        return {"adopted": self.adopted, "parameters": list(self.parameters), "fitted": list(self.fitted),
                "current": list(self.current), "items": self.items, "reviews": self.reviews, "cards": self.cards,
                "current_evaluation": self.current_eval.to_dict(), "fitted_evaluation": self.fitted_eval.to_dict(),
                "reason": self.reason}


def too_few(data: TrainingSet, what: str) -> StudyappError:
    return StudyappError(
        f"too few reviews to fit FSRS parameters for {what}: {data.rows} reviews in the log, of which "
        f"{data.reviews} count (cram and reset rows, and cards whose history does not start with a learning "
        f"step, are left out), giving {data.size} training items (an answer on a later day than the card's "
        f"previous one); at least {MINIMUM_ITEMS} training items are needed. Keep studying and try again; "
        "until then the current parameters stay in use")


def fit(data: TrainingSet, current: Sequence[float] = DEFAULT_PARAMETERS, *, relearning_steps: int = 1,
        what: str = "this profile") -> Fit:
    """Fit with the crate, evaluate old and new on the same items, keep the better (Anki's rule)."""
    if data.size < MINIMUM_ITEMS:
        raise too_few(data, what)
    current = tuple(current)
    config = fsrs_rs_python.TrainingConfig(num_epochs=EPOCHS)
    model = fsrs_rs_python.FSRS(list(current))
    fitted = tuple(_f32_decimal(v) for v in model.compute_parameters(
        data.items, card_ids=data.card_ids, enable_short_term=True, num_relearning_steps=relearning_steps,
        training_config=config))
    current_eval = evaluate(current, data.items)
    fitted_eval = evaluate(fitted, data.items)
    adopted, reason = _adopt(current, current_eval, fitted_eval, relearning_steps)
    return Fit(parameters=fitted if adopted else current, fitted=fitted, current=current, adopted=adopted,
               items=data.size, reviews=data.reviews, cards=data.cards, current_eval=current_eval,
               fitted_eval=fitted_eval, reason=reason)


def evaluate(parameters: Sequence[float], items: list) -> Evaluation:
    """The crate's evaluation of ``parameters`` on ``items`` (Anki's Evaluate: log loss, RMSE(bins))."""
    result = fsrs_rs_python.FSRS(list(parameters)).evaluate(items)
    return Evaluation(float(result.log_loss), float(result.rmse_bins))


def _adopt(current: tuple[float, ...], current_eval: Evaluation, fitted_eval: Evaluation,
           relearning_steps: int) -> tuple[bool, str]:
    """params.rs ``compute_params``: the fit replaces the current parameters unless their log loss
    is no worse; with two or more relearning steps within a day Anki keeps the fit even then,
    unless the current parameters make stability fall over those steps."""
    if current_eval.log_loss > fitted_eval.log_loss:
        return True, "the fitted parameters predict these reviews better (lower log loss)"
    if relearning_steps <= 1:
        return False, "the current parameters predict these reviews as well or better (log loss); kept"
    model = fsrs_rs_python.FSRS(list(current))
    start = fsrs_rs_python.MemoryState(1.0, 1.0)
    memory = model.next_states(start, 0.9, 2).again.memory
    for _ in range(relearning_steps):
        memory = model.next_states(memory, 0.9, 0).good.memory
    if memory.stability < start.stability:
        return False, ("the current parameters predict these reviews as well or better (log loss); kept")
    return True, ("the current parameters' log loss is no worse, but with several relearning steps Anki "
                  "takes the fit (the current ones do not lower stability over those steps)")


def _f32_decimal(value: float) -> float:
    """The shortest decimal that is the same f32: what Anki shows and stores for a parameter."""
    target = struct.pack("<f", value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if struct.pack("<f", candidate) == target:
            return candidate
    return value


# ---------------------------------------------------------------- a profile's presets


class OptimizerStore(Protocol):
    """What fitting needs of a progress store (store.Store implements it)."""

    def load_settings(self) -> Settings: ...
    def load_presets(self) -> Presets: ...
    def stored_decks(self) -> list[str]: ...
    def optimizer_rows(self, deck_ids: Sequence[str] | None = None) -> list[tuple]: ...
    def optimizer_columns(self, next_day_at_s: int, deck_ids: Sequence[str] | None = None) -> list[list[int]]: ...
    def save_fitted_parameters(self, preset: str, parameters, *, reviews: int, items: int, source: str,
                               fit: dict, fitted_ms: int | None = None) -> None: ...


def next_day_at_s(settings: Settings, now_ms: int) -> int:
    """Anki's ``timing_today().next_day_at``: today's rollover in the UTC offset in force now."""
    return settings.study_days().next_day_at_ms(now_ms) // 1000


def rows_from_log(log: Iterable[tuple], cards: dict[Any, int] | None = None, namespace: Any = None) -> list[LogRow]:
    """``LogRow``s from ``Store.optimizer_log`` rows (key, kind, rating, time_ms, state before, ...),
    numbering the cards in first-seen order (``cards`` carries the numbering across pooled logs)."""
    cards = {} if cards is None else cards
    out = []
    for key, log_kind, rating, time_ms, state_before, *_ in log:
        card = cards.setdefault((namespace, key), len(cards) + 1)
        out.append(LogRow(card, int(time_ms), int(rating), kind_of(log_kind, state_before)))
    return out


def preset_decks(presets: Presets, deck_ids: Iterable[str], name: str) -> list[str]:
    """The decks that use preset ``name`` (Anki's search ``preset:NAME``)."""
    return sorted(d for d in set(deck_ids) if presets.for_deck(d).name == name)


def optimize_preset(store: OptimizerStore, preset: str = DEFAULT_PRESET, *, now_ms: int,
                    save: bool = True) -> tuple[Fit, dict]:
    """Fit preset ``preset`` to the reviews of its decks and store the parameters it should use.

    Returns the fit and what it was made from (``{"preset", "decks", "relearning_steps"}``)."""
    presets = store.load_presets()
    if preset not in presets.presets:
        known = ", ".join(sorted(presets.presets))
        raise StudyappError(f"no preset named {preset!r}; presets: {known}", code="usage")
    settings = presets.presets[preset].scheduling(store.load_settings())
    stored = store.stored_decks()
    decks = preset_decks(presets, stored, preset)
    if not decks:
        raise StudyappError(f"no deck uses preset {preset!r}, so it has no reviews to fit; assign decks to it "
                            "(Settings > Presets) or name another preset")
    # The conversion makes a list per training item (a million references at 100,000 reviews)
    # and no cycle: the collector would only walk them, again and again.
    with collector_paused():
        rollover = next_day_at_s(settings, now_ms)
        columns = store.optimizer_columns(rollover, None if set(decks) == set(stored) else decks)
        data = training_set_from_columns(columns, rollover)
        del columns
    steps = relearning_steps_within_a_day(settings.relearning_steps)
    result = fit(data, settings.parameters, relearning_steps=steps, what=f"preset {preset!r}")
    if save and result.adopted:
        store.save_fitted_parameters(preset, result.parameters, reviews=result.reviews, items=result.items,
                                     source="profile", fit=result.to_dict(), fitted_ms=now_ms)
    return result, {"preset": preset, "decks": decks, "relearning_steps": steps}


def pooled_fit(logs: Sequence[Mapping[str, Any]], *, now_ms: int, relearning_steps: int = 1,
               current: Sequence[float] = DEFAULT_PARAMETERS) -> Fit:
    """One fit over several learners' exported logs (``studyapp export log``), each learner's days
    counted with their own rollover hour and zone; every learner's item is a card of its own."""
    cards: dict[Any, int] = {}
    data = TrainingSet()
    gathered = []
    for index, document in enumerate(logs):
        settings = Settings(rollover_hour=document["rollover_hour"], timezone=document["timezone"])
        rows = rows_from_log(((r["item"], r["kind"], r["rating"], r["time_ms"], r["state_before"])
                              for r in sorted(document["reviews"], key=lambda r: (r["item"], r["time_ms"]))),
                             cards, index)
        part = training_set(rows, next_day_at_s(settings, now_ms))
        data.rows += part.rows
        data.reviews += part.reviews
        data.cards += part.cards
        gathered.extend(zip(part.items, part.card_ids, _item_times(part)))
    gathered.sort(key=lambda entry: entry[2])
    data.items = [item for item, _, _ in gathered]
    data.card_ids = [card for _, card, _ in gathered]
    return fit(data, current, relearning_steps=relearning_steps, what=f"{len(logs)} pooled logs")


def _item_times(part: TrainingSet) -> list[int]:
    return part.times


__all__ = ["LogRow", "TrainingSet", "Fit", "Evaluation", "kind_of", "training_set", "card_reviews", "fit",
           "evaluate", "days_elapsed", "relearning_steps_within_a_day", "MINIMUM_ITEMS", "KIND_LEARNING",
           "KIND_REVIEW", "KIND_RELEARNING", "KIND_CRAM", "KIND_RESET"]
