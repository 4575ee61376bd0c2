"""FSRS behind a small adapter that schedules the way Anki does.

The ``fsrs`` package (pinned exactly in pyproject.toml) computes memory states; this
module adds what Anki adds on top, so that the same history gives the same buttons:

- study days: calendar days in the learner's time zone that roll over at a set hour
  (4 by default). py-fsrs counts whole 24-hour periods since the last review; Anki counts
  whole 24-hour periods from the last review to the end of today. Before each call the
  card's ``last_review`` is moved to exactly ``now - Anki's elapsed days``;
- Anki's ordering of the four intervals (on review: hard >= 1 day, good >= hard + 1,
  easy >= good + 1; a graduating Easy >= the graduating Good + 1) and its stability cap;
- Anki's fuzz ranges, but drawn from a number derived from the item key and its review
  count instead of a global random generator: the interval shown on a button is exactly
  the one applied, and replaying the log gives the same intervals again.

Times are integer UTC epoch milliseconds everywhere; timezone-aware UTC datetimes exist
only inside the calls to fsrs.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any, Mapping

import fsrs
from fsrs.scheduler import DEFAULT_PARAMETERS

from .clock import DAY_MS
from .problems import StudyappError

FSRS_VERSION = "6.3.2"

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATINGS = (AGAIN, HARD, GOOD, EASY)
RATING_NAMES = {AGAIN: "again", HARD: "hard", GOOD: "good", EASY: "easy"}

NEW, LEARNING, REVIEW, RELEARNING = "new", "learning", "review", "relearning"
STATES = (NEW, LEARNING, REVIEW, RELEARNING)

# Anki never lets stability grow past a hundred years; py-fsrs has no cap.
STABILITY_MAX = 36500.0
RETENTION_RANGE = (0.70, 0.99)
FUZZ_RANGES = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))


# ---------------------------------------------------------------- settings


@dataclass(frozen=True)
class DeckLimits:
    """Per-deck daily limits; None means only the overall limit applies."""

    new_per_day: int | None = None
    reviews_per_day: int | None = None


@dataclass(frozen=True)
class Settings:
    """A learner's scheduling settings, persisted by the store (see ``to_dict``)."""

    desired_retention: float = 0.9
    new_per_day: int = 20
    reviews_per_day: int = 200
    rollover_hour: int = 4
    # An IANA zone name ("Europe/Berlin"); None means the machine's local zone.
    timezone: str | None = None
    deck_limits: Mapping[str, DeckLimits] = field(default_factory=dict)
    # Like Anki: when nothing else is left, learning items due within this many minutes are shown.
    learn_ahead_minutes: int = 20
    leech_lapses: int = 8
    fuzz: bool = True
    learning_steps: tuple[int, ...] = (60, 600)  # seconds
    relearning_steps: tuple[int, ...] = (600,)
    maximum_interval: int = 36500  # days
    parameters: tuple[float, ...] = tuple(DEFAULT_PARAMETERS)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise StudyappError naming the setting and the accepted values."""
        low, high = RETENTION_RANGE
        retention = self.desired_retention
        if isinstance(retention, bool) or not isinstance(retention, (int, float)) or not low <= retention <= high:
            raise StudyappError(
                f"desired retention {retention!r} is out of range; use a number from {low:.2f} to {high:.2f} "
                "(0.90 is the default)", code="usage")
        for name in ("new_per_day", "reviews_per_day", "learn_ahead_minutes"):
            _check_count(name, getattr(self, name))
        if isinstance(self.rollover_hour, bool) or not isinstance(self.rollover_hour, int) or not 0 <= self.rollover_hour <= 23:
            raise StudyappError(f"rollover hour {self.rollover_hour!r} is out of range; use a whole hour from 0 to 23 "
                                "(4 is the default)", code="usage")
        if self.timezone is not None:
            resolve_zone(self.timezone)
        if isinstance(self.leech_lapses, bool) or not isinstance(self.leech_lapses, int) or self.leech_lapses < 1:
            raise StudyappError(f"leech threshold {self.leech_lapses!r} must be a whole number of lapses, at least 1",
                                code="usage")
        for name in ("learning_steps", "relearning_steps"):
            steps = getattr(self, name)
            if any(isinstance(s, bool) or not isinstance(s, int) or s <= 0 for s in steps):
                raise StudyappError(f"{name.replace('_', ' ')} {list(steps)!r} must be positive whole seconds",
                                    code="usage")
        if isinstance(self.maximum_interval, bool) or not isinstance(self.maximum_interval, int) \
                or not 1 <= self.maximum_interval <= 36500:
            raise StudyappError(f"maximum interval {self.maximum_interval!r} must be from 1 to 36500 days",
                                code="usage")
        try:
            fsrs.Scheduler(parameters=self.parameters)
        except (ValueError, TypeError) as error:
            raise StudyappError(f"FSRS parameters are not valid: {error}", code="usage") from None
        for deck_id, limits in self.deck_limits.items():
            if not isinstance(limits, DeckLimits):
                raise StudyappError(f"limits for deck {deck_id!r} must be DeckLimits", code="usage")
            for name in ("new_per_day", "reviews_per_day"):
                value = getattr(limits, name)
                if value is not None:
                    _check_count(f"{name} of deck {deck_id!r}", value)

    def limits_for(self, deck_id: str) -> DeckLimits:
        return self.deck_limits.get(deck_id, DeckLimits())

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "deck_limits":
                value = {k: {"new_per_day": v.new_per_day, "reviews_per_day": v.reviews_per_day}
                         for k, v in sorted(value.items())}
            elif isinstance(value, tuple):
                value = list(value)
            data[f.name] = value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "settings") -> Settings:
        """Build from stored or user-given values; unknown names are an error, missing ones take defaults."""
        if not isinstance(data, Mapping):
            raise StudyappError(f"{source}: expected a mapping of setting names to values", code="usage")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise StudyappError(f"{source}: unknown setting {', '.join(map(repr, unknown))}; "
                                f"known settings: {', '.join(sorted(known))}", code="usage")
        values = dict(data)
        if "deck_limits" in values:
            limits = values["deck_limits"]
            if not isinstance(limits, Mapping):
                raise StudyappError(f"{source}: deck_limits must map deck ids to limits", code="usage")
            try:
                values["deck_limits"] = {str(k): v if isinstance(v, DeckLimits) else DeckLimits(**v)
                                         for k, v in limits.items()}
            except TypeError as error:
                raise StudyappError(f"{source}: deck_limits: {error}", code="usage") from None
        for name in ("learning_steps", "relearning_steps", "parameters"):
            if name in values:
                values[name] = tuple(values[name])
        return cls(**values)

    def scheduler_params(self) -> dict[str, Any]:
        """What the scheduler's output depends on: recorded with every review."""
        data = self.to_dict()
        for name in ("new_per_day", "reviews_per_day", "deck_limits", "learn_ahead_minutes"):
            data.pop(name)
        data["timezone"] = zone_name(resolve_zone(self.timezone))
        return data


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
        raise StudyappError(f"{name.replace('_', ' ')} {value!r} must be a whole number from 0 to 1000000",
                            code="usage")


# ---------------------------------------------------------------- time zones and study days


@lru_cache(maxsize=32)
def resolve_zone(name: str | None) -> tzinfo:
    """An IANA zone by name; None gives the machine's zone (``TZ``, then /etc/localtime, then its offset)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if name is not None:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise StudyappError(f"unknown time zone {name!r}; use an IANA name such as 'Europe/Berlin' or 'UTC'",
                                code="usage") from None
    env = os.environ.get("TZ", "").lstrip(":")
    if env:
        try:
            return ZoneInfo(env)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    try:
        with open("/etc/localtime", "rb") as handle:
            return ZoneInfo.from_file(handle, key="localtime")
    except (OSError, ValueError):
        return datetime.now().astimezone().tzinfo or timezone.utc


def zone_name(zone: tzinfo) -> str:
    return str(getattr(zone, "key", None) or zone)


@dataclass(frozen=True)
class StudyDays:
    """Anki's days: the local date of ``t - rollover``; a day starts at the rollover hour."""

    zone: tzinfo
    rollover_hour: int = 4

    def day_of(self, ms: int) -> int:
        local = datetime.fromtimestamp(ms / 1000, self.zone) - timedelta(hours=self.rollover_hour)
        return local.date().toordinal()

    def start_ms(self, day: int) -> int:
        """When study day ``day`` begins, in epoch milliseconds."""
        d = date.fromordinal(day)
        start = datetime(d.year, d.month, d.day, tzinfo=self.zone) + timedelta(hours=self.rollover_hour)
        return _to_ms(start)

    def end_ms(self, day: int) -> int:
        """The first millisecond of the next study day."""
        return self.start_ms(day + 1)

    def add_days(self, ms: int, days: int) -> int:
        """``ms`` moved by whole local days (wall clock), kept inside study day ``day_of(ms) + days``."""
        target = self.day_of(ms) + days
        moved = _to_ms(datetime.fromtimestamp(ms / 1000, self.zone) + timedelta(days=days))
        if self.day_of(moved) == target:
            return moved
        # A daylight-saving change pushed the wall-clock time across the rollover hour.
        return min(max(moved, self.start_ms(target)), self.end_ms(target) - 1)

    def date_of(self, day: int) -> date:
        return date.fromordinal(day)


def _to_ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def _utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)


# ---------------------------------------------------------------- states and previews


@dataclass(frozen=True, slots=True)
class ItemState:
    """The scheduling state of one item; what the review log rebuilds.

    ``interval`` follows Anki's review log: days when positive, seconds when negative
    (a learning step), 0 for a new item.
    """

    state: str = NEW
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due_ms: int | None = None
    last_review_ms: int | None = None
    interval: int = 0
    reps: int = 0
    lapses: int = 0
    leech: bool = False

    @property
    def is_new(self) -> bool:
        return self.state == NEW

    @property
    def in_learning(self) -> bool:
        return self.state in (LEARNING, RELEARNING)


NEW_STATE = ItemState()


@dataclass(frozen=True, slots=True)
class Preview:
    """What one grade button does: the state it leads to and when the item comes back."""

    rating: int
    after: ItemState
    due_ms: int
    interval_days: int | None = None  # set when the item goes to (or stays in) review
    interval_secs: int | None = None  # set for a learning or relearning step

    @property
    def label(self) -> str:
        """Short text for a button: 1m, 10m, 3d, 2.1mo, 1.5y."""
        if self.interval_secs is not None:
            return format_seconds(self.interval_secs)
        return format_days(self.interval_days or 0)


def format_seconds(secs: int) -> str:
    if secs < 60:
        return f"{secs}s"
    if secs < 3600:
        return f"{round(secs / 60)}m"
    if secs < 86400:
        return f"{secs / 3600:.1f}h".replace(".0h", "h")
    return format_days(round(secs / 86400))


def format_days(days: int) -> str:
    if days < 30:
        return f"{days}d"
    if days < 365:
        return f"{days / 30:.1f}mo".replace(".0mo", "mo")
    return f"{days / 365:.1f}y".replace(".0y", "y")


# ---------------------------------------------------------------- the adapter


@dataclass(slots=True)
class _Reviewed:
    """One rating's outcome from FSRS: the state, step, memory state and (for a step) the delay."""

    state: str
    step: int | None
    stability: float | None
    difficulty: float | None
    delay: timedelta | None  # None when the item goes to review (intervals are ours, see previews)


_FSRS_RATINGS = {r: fsrs.Rating(r) for r in RATINGS}


class ReviewScheduler:
    """FSRS with Anki's day counting, interval rules and a deterministic fuzz."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        s = self.settings
        self.days = StudyDays(resolve_zone(s.timezone), s.rollover_hour)
        # Fuzz is applied here, not by fsrs (whose fuzz reads the global random generator).
        self._fsrs = fsrs.Scheduler(
            parameters=s.parameters,
            desired_retention=s.desired_retention,
            learning_steps=[timedelta(seconds=x) for x in s.learning_steps],
            relearning_steps=[timedelta(seconds=x) for x in s.relearning_steps],
            maximum_interval=s.maximum_interval,
            enable_fuzzing=False,
        )
        decay = -s.parameters[20]
        self._decay = decay
        self._factor = 0.9 ** (1 / decay) - 1

    # -- public

    def previews(self, state: ItemState, key: str, now_ms: int) -> dict[int, Preview]:
        """The four buttons for ``state`` reviewed at ``now_ms``; commit one with ``Preview.after``."""
        results = self._review_all(state, now_ms)
        for result in results.values():
            if result.stability is not None and result.stability > STABILITY_MAX:
                result.stability = STABILITY_MAX
        fuzz = self.fuzz_factor(key, state.reps) if self.settings.fuzz else None

        days: dict[int, int] = {}
        if state.state == REVIEW:
            # Each passing button beats the one before it, and (Anki 26.9) a button whose
            # interval did not grow past the previous one keeps at least that interval when
            # it lies within the fuzz range.
            previous = state.interval
            floor = 1
            for rating in (HARD, GOOD, EASY):
                raw = self._raw_interval(results[rating])
                minimum = max(self._keep_previous(raw, previous), floor)
                days[rating] = self._constrain(raw, minimum, fuzz)
                floor = days[rating] + 1
            if results[AGAIN].state == REVIEW:  # no relearning steps
                days[AGAIN] = self._constrain(self._raw_interval(results[AGAIN]), 1, None)
        else:
            # Graduating: Anki rounds first, then fuzzes. A graduating Easy must beat the
            # interval Good would graduate with, even when Good only moves to the next step.
            good_graduating = self._constrain(float(max(1, _round_half_up(self._raw_interval(results[GOOD])))), 1, fuzz)
            for rating in (AGAIN, HARD, GOOD, EASY):
                if results[rating].state != REVIEW:
                    continue
                if rating == GOOD:
                    days[rating] = good_graduating
                    continue
                raw = float(max(1, _round_half_up(self._raw_interval(results[rating]))))
                days[rating] = self._constrain(raw, good_graduating + 1 if rating == EASY else 1, fuzz)

        return {r: self._preview(state, r, results[r], days.get(r), now_ms) for r in RATINGS}

    def apply(self, state: ItemState, key: str, rating: int, now_ms: int) -> Preview:
        if rating not in RATINGS:
            raise StudyappError(f"rating {rating!r} is not a grade; use 1 (again), 2 (hard), 3 (good) or 4 (easy)",
                                code="usage")
        return self.previews(state, key, now_ms)[rating]

    def fuzz_factor(self, key: str, reps: int) -> float:
        """A number in [0, 1) fixed by the item and how many times it was reviewed (Anki seeds by card id + reps)."""
        digest = hashlib.blake2b(f"{key}\x00{reps}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2.0 ** 64

    def elapsed_days(self, last_review_ms: int, now_ms: int) -> int:
        """Days since the last review, counted as Anki counts them.

        Anki takes whole 24-hour periods from the last review to the end of today (the next
        rollover): a review earlier today gives 0, one yesterday evening gives 1. This is the
        difference of study days, except across a daylight-saving change, where Anki's count
        can differ by one for reviews within an hour of the rollover; we follow Anki.
        """
        end_of_today = self.days.end_ms(self.days.day_of(now_ms))
        return max(0, (end_of_today - last_review_ms) // DAY_MS)

    def retrievability(self, state: ItemState, now_ms: int) -> float | None:
        if state.stability is None or state.last_review_ms is None:
            return None
        elapsed = self.elapsed_days(state.last_review_ms, now_ms)
        return (1 + self._factor * elapsed / state.stability) ** self._decay

    # -- internals

    def _review_all(self, state: ItemState, now_ms: int) -> dict[int, _Reviewed]:
        """What ``fsrs.Scheduler.review_card`` gives for each rating, without its Card copies
        and datetimes: the same branches calling the same fsrs functions in the same order,
        so every float is identical (tests/test_scheduler.py compares the two on random states).
        """
        f = self._fsrs
        if state.state == NEW:
            kind, step, stability, difficulty, elapsed = LEARNING, 0, None, None, None
        else:
            kind = state.state
            elapsed = 0 if state.last_review_ms is None else self.elapsed_days(state.last_review_ms, now_ms)
            step = None if kind == REVIEW else (0 if state.step is None else state.step)
            stability, difficulty = state.stability, state.difficulty
        retrievability: list[float] = []

        def recall() -> float:  # fsrs's get_card_retrievability, on the card as it was before
            if not retrievability:
                retrievability.append(0 if elapsed is None or stability is None else
                                      (1 + f._FACTOR * max(0, elapsed) / stability) ** f._DECAY)
            return retrievability[0]

        out: dict[int, _Reviewed] = {}
        for r in RATINGS:
            rating = _FSRS_RATINGS[r]
            s, d, new_step = stability, difficulty, step
            delay: timedelta | None = None
            if kind == REVIEW:
                assert s is not None and d is not None
                if elapsed is not None and elapsed < 1:
                    s = f._short_term_stability(stability=s, rating=rating)
                else:
                    s = f._next_stability(difficulty=d, stability=s, retrievability=recall(), rating=rating)
                d = f._next_difficulty(difficulty=d, rating=rating)
                after = REVIEW
                if r == AGAIN and f.relearning_steps:
                    after, new_step, delay = RELEARNING, 0, f.relearning_steps[0]
            else:
                if kind == LEARNING and (s is None or d is None):
                    s = f._initial_stability(rating=rating)
                    d = f._initial_difficulty(rating=rating, clamp=True)
                else:
                    assert s is not None and d is not None and new_step is not None
                    if elapsed is not None and elapsed < 1:
                        s = f._short_term_stability(stability=s, rating=rating)
                    else:
                        s = f._next_stability(difficulty=d, stability=s, retrievability=recall(), rating=rating)
                    d = f._next_difficulty(difficulty=d, rating=rating)
                steps = f.learning_steps if kind == LEARNING else f.relearning_steps
                assert new_step is not None
                after = kind
                if not steps or (new_step >= len(steps) and r != AGAIN):
                    after, new_step = REVIEW, None
                elif r == AGAIN:
                    new_step, delay = 0, steps[0]
                elif r == HARD:
                    if new_step == 0 and len(steps) == 1:
                        delay = steps[0] * 1.5
                    elif new_step == 0 and len(steps) >= 2:
                        delay = (steps[0] + steps[1]) / 2.0
                    else:
                        delay = steps[new_step]
                elif r == GOOD:
                    if new_step + 1 == len(steps):
                        after, new_step = REVIEW, None
                    else:
                        new_step += 1
                        delay = steps[new_step]
                else:
                    after, new_step = REVIEW, None
            if after == REVIEW:
                new_step = None
            out[r] = _Reviewed(after, new_step, s, d, delay)
        return out

    def _fsrs_review_all(self, state: ItemState, now_ms: int) -> dict[int, _Reviewed]:
        """The same through ``fsrs.Scheduler.review_card`` itself (the reference the tests compare with)."""
        card = self._to_card(state, now_ms)
        now = _utc(now_ms)
        out = {}
        for r in RATINGS:
            result = self._fsrs.review_card(card, fsrs.Rating(r), now)[0]
            after = {fsrs.State.Learning: LEARNING, fsrs.State.Review: REVIEW,
                     fsrs.State.Relearning: RELEARNING}[result.state]
            out[r] = _Reviewed(after, result.step, result.stability, result.difficulty,
                               None if after == REVIEW else result.due - now)
        return out

    def _to_card(self, state: ItemState, now_ms: int) -> fsrs.Card:
        now = _utc(now_ms)
        if state.state == NEW:
            return fsrs.Card(card_id=1, state=fsrs.State.Learning, step=0, due=now)
        elapsed = 0 if state.last_review_ms is None else self.elapsed_days(state.last_review_ms, now_ms)
        fsrs_state = {LEARNING: fsrs.State.Learning, REVIEW: fsrs.State.Review,
                      RELEARNING: fsrs.State.Relearning}[state.state]
        step = state.step if state.state != REVIEW else None
        if state.state != REVIEW and step is None:
            step = 0
        return fsrs.Card(card_id=1, state=fsrs_state, step=step, stability=state.stability,
                         difficulty=state.difficulty, due=now, last_review=now - timedelta(days=elapsed))

    def _raw_interval(self, card: fsrs.Card) -> float:
        stability = card.stability or 0.0
        return stability / self._factor * (self.settings.desired_retention ** (1 / self._decay) - 1)

    def _constrain(self, interval: float, minimum: int, fuzz: float | None) -> int:
        """Anki's constrain_passing_interval + with_review_fuzz: a whole number of days in
        [minimum, maximum_interval], fuzzed when ``fuzz`` is given."""
        maximum = max(self.settings.maximum_interval, 1)
        minimum = min(max(minimum, 1), maximum)
        if fuzz is None:
            return min(max(_round_half_up(interval), minimum), maximum)
        lower, upper = self._fuzz_bounds(interval, minimum, maximum)
        return min(math.floor(lower + fuzz * (1 + upper - lower)), upper)

    @staticmethod
    def _fuzz_bounds(interval: float, minimum: int, maximum: int) -> tuple[int, int]:
        """Anki's constrained_fuzz_bounds."""
        minimum = min(minimum, maximum)
        interval = min(max(interval, float(minimum)), float(maximum))
        delta = _fuzz_delta(interval)
        lower = min(max(_round_half_up(interval - delta), minimum), maximum)
        upper = min(max(_round_half_up(interval + delta), minimum), maximum)
        if upper == lower and 2 < upper < maximum:
            upper = lower + 1
        return lower, upper

    def _keep_previous(self, interval: float, previous: int) -> int:
        """Anki's minimum_review_fuzz_interval: the least a passing review may schedule."""
        if _round_half_up(interval) > previous:
            return previous + 1
        _, upper = self._fuzz_bounds(interval, 1, max(self.settings.maximum_interval, 1))
        return previous if previous <= upper else 0

    def _preview(self, before: ItemState, rating: int, card: _Reviewed, days: int | None, now_ms: int) -> Preview:
        lapses = before.lapses + (1 if before.state == REVIEW and rating == AGAIN else 0)
        leech = before.leech or lapses >= self.settings.leech_lapses
        # Anki stores stability to 4 decimal places and difficulty to 3; the next review
        # starts from the stored values, so we keep the same precision.
        common = dict(stability=_round_places(card.stability, 4), difficulty=_round_places(card.difficulty, 3),
                      last_review_ms=now_ms,
                      reps=before.reps + 1, lapses=lapses, leech=leech)
        if days is not None:
            due = self.days.add_days(now_ms, days)
            after = ItemState(state=REVIEW, step=None, due_ms=due, interval=days, **common)
            return Preview(rating, after, due, interval_days=days)
        assert card.delay is not None
        secs = round(card.delay.total_seconds())
        state = card.state
        due = now_ms + secs * 1000
        after = ItemState(state=state, step=card.step, due_ms=due, interval=-secs, **common)
        return Preview(rating, after, due, interval_secs=secs)


def _round_half_up(x: float) -> int:
    # Anki rounds in Rust (half away from zero); Python's round() is half to even.
    return math.floor(x + 0.5)


def _round_places(value: float | None, places: int) -> float | None:
    if value is None:
        return None
    scale = 10 ** places
    return math.floor(value * scale + 0.5) / scale


def _fuzz_delta(interval: float) -> float:
    if interval < 2.5:
        return 0.0
    delta = 1.0
    for start, end, factor in FUZZ_RANGES:
        delta += factor * max(min(interval, end) - start, 0.0)
    return delta


def replace_state(state: ItemState, **changes: Any) -> ItemState:
    return replace(state, **changes)


__all__ = [
    "AGAIN", "HARD", "GOOD", "EASY", "RATINGS", "RATING_NAMES", "NEW", "LEARNING", "REVIEW", "RELEARNING",
    "DeckLimits", "Settings", "StudyDays", "ItemState", "NEW_STATE", "Preview", "ReviewScheduler",
    "resolve_zone", "zone_name", "format_days", "format_seconds", "FSRS_VERSION", "DAY_MS",
]
