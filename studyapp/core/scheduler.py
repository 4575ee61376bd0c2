"""Anki's FSRS scheduling: the fsrs-rs crate Anki runs, and what Anki keeps outside it.

Memory states and intervals come from ``fsrs-rs-python`` (the fsrs-rs crate, pinned
exactly in pyproject.toml), the same code Anki 26.9 calls. This module keeps what Anki
keeps in rslib/src/scheduler rather than in the crate, ported rule for rule:

- study days that roll over at a set hour, and Anki's elapsed days: whole 24-hour periods
  from the last review to Anki's next rollover (in the UTC offset in force now);
- the (re)learning steps (core/steps.py), with Anki's short FSRS interval when there are
  no steps, and steps that reach the next rollover becoming day-based;
- the review rules (hard >= 1, good > hard, easy > good, the keep-previous minimum, a
  graduating Easy above Good's fuzzed interval) in Anki's f32 arithmetic (core/fuzz.py);
- Anki's fuzz itself, drawn as Anki draws it from the card id plus the review count
  (core/anki_random.py), the card id being the one the Anki export gives the item
  (core/anki_ids.py), and Anki's load balancer (core/load_balancer.py);
- stability and difficulty stored to 4 and 3 decimals, as Anki stores them.

docs/engine.md describes the public API. Times are integer UTC epoch milliseconds.
"""

from __future__ import annotations

import math
import os
import struct
from collections import abc
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any, Iterable, Mapping

import fsrs_rs_python

from .anki_ids import anki_card_id, known as card_id_known, remember as remember_card_ids
from .anki_random import drawn_on_demand as blocks_drawn_on_demand, fuzz_factor, learning_fuzz_secs
from .anki_random import prime as prime_fuzz, primed as fuzz_primed
from .clock import DAY_MS
from .fuzz import as_u32, f32, round_f32, with_review_fuzz
from .problems import StudyappError
from .review_days import fuzzed_day as _fuzzed_day, review_days as _review_days
from .steps import LearningSteps

# Recorded with every review (the schedulers table): the FSRS implementation and version.
FSRS_VERSION = "rs-0.9.3"

from .grades import AGAIN, EASY, GOOD, HARD, RATING_NAMES, RATINGS

NEW, LEARNING, REVIEW, RELEARNING = "new", "learning", "review", "relearning"
STATES = (NEW, LEARNING, REVIEW, RELEARNING)

STABILITY_MAX = 36500.0  # fsrs-rs clamps stability here
RETENTION_RANGE = (0.70, 0.99)
# FSRS-6's default parameters, as Anki and fsrs-rs list them (decimal, not their f32 values,
# so that stored settings stay readable and equal to these).
DEFAULT_PARAMETERS = (0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
                      1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542)
# The range fsrs-rs's optimizer keeps each parameter in (parameter_clipper.rs, one relearning step).
PARAMETER_BOUNDS = ((0.001, 100.0),) * 4 + (
    (1.0, 10.0), (0.001, 4.0), (0.001, 4.0), (0.001, 0.75), (0.0, 4.5), (0.0, 0.8), (0.001, 3.5), (0.001, 5.0),
    (0.001, 0.25), (0.001, 0.9), (0.0, 4.0), (0.0, 1.0), (1.0, 6.0), (0.0, 2.0), (0.0, 2.0), (0.0, 0.8), (0.1, 0.8))


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
    parameters: tuple[float, ...] = DEFAULT_PARAMETERS
    # Anki's load balancer (on by default in Anki): a fuzzed review interval goes to the
    # least loaded day of its fuzz range, when the session gives the scheduler the workload.
    load_balancer: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def study_days(self) -> "StudyDays":
        """The learner's study days: the one place they are built from the settings."""
        return StudyDays(resolve_zone(self.timezone), self.rollover_hour)

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
        _check_parameters(self.parameters)
        if not isinstance(self.load_balancer, bool):
            raise StudyappError(f"load balancer {self.load_balancer!r} must be true or false", code="usage")
        if not isinstance(self.fuzz, bool):
            raise StudyappError(f"fuzz {self.fuzz!r} must be true or false", code="usage")
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


def _check_parameters(parameters: tuple[float, ...]) -> None:
    if len(parameters) != len(PARAMETER_BOUNDS):
        raise StudyappError(f"FSRS parameters are not valid: expected {len(PARAMETER_BOUNDS)} numbers (FSRS-6), "
                            f"got {len(parameters)}", code="usage")
    wrong = []
    for index, (value, (low, high)) in enumerate(zip(parameters, PARAMETER_BOUNDS)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            wrong.append(f"parameters[{index}] = {value!r} is outside {low} to {high}")
    if wrong:
        raise StudyappError("FSRS parameters are not valid: " + "; ".join(wrong), code="usage")


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
    """Anki's days: the local date of ``t - rollover``; a day starts at the rollover hour.

    Every answer asks for days a dozen times; each answer costs datetime arithmetic in the
    zone. The days asked for are kept (``_windows``): a day's bounds, and whether the zone's
    UTC offset is the same all through it and at its end, in which case a time inside it
    needs no datetime at all (the ``_slow_`` methods are the definitions, and decide
    everything on a day with an offset change).
    """

    zone: tzinfo
    rollover_hour: int = 4
    _windows: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    # [(start, end, day, shift)] of the last day asked for, shift being its UTC offset less the
    # rollover in ms: one tuple, replaced whole (a reader in another thread sees the old window
    # or the new one, never half of each).
    _last: list = field(default_factory=lambda: [(0, 0, 0, 0)], init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A day's window depends on the zone and the rollover alone: every StudyDays of the
        # same two shares them (a session, the next one, the stats screen).
        object.__setattr__(self, "_windows", _SHARED_WINDOWS.setdefault((self.zone, self.rollover_hour), {}))

    def _slow_day_of(self, ms: int) -> int:
        local = datetime.fromtimestamp(ms / 1000, self.zone) - timedelta(hours=self.rollover_hour)
        return local.date().toordinal()

    def _slow_start_ms(self, day: int) -> int:
        d = date.fromordinal(day)
        start = datetime(d.year, d.month, d.day, tzinfo=self.zone) + timedelta(hours=self.rollover_hour)
        return _to_ms(start)

    def _window(self, day: int) -> tuple[int, int, int, timedelta | None]:
        """(day, start, end, the UTC offset when one holds from start to end inclusive, else None)."""
        found = self._windows.get(day)
        if found is None:
            found = self._new_window(day)
            if len(self._windows) > _KEPT_WINDOWS:
                self._windows.clear()
            self._windows[day] = found
        return found

    def _new_window(self, day: int) -> tuple[int, int, int, timedelta | None]:
        # The definitions (_slow_start_ms, _slow_day_of) with their datetime work done once:
        # every day of a review's intervals is a new one the first time (a dozen microseconds
        # each spelt out). ``datetime(y, m, d, tzinfo) + timedelta(hours=h)`` is the wall time
        # h:00 with fold 0, as ``datetime(y, m, d, h, tzinfo)``; with one offset at ``t`` the
        # local date of ``t - rollover`` is plain arithmetic (whole-millisecond offsets).
        start = self._start_of(day)
        return self._window_from(day, start, self._offset_at(start))[0]

    def _start_of(self, day: int) -> int:
        d = date.fromordinal(day)
        return _to_ms(datetime(d.year, d.month, d.day, self.rollover_hour, tzinfo=self.zone))

    def _offset_at(self, ms: int) -> timedelta:
        return datetime.fromtimestamp(ms / 1000, self.zone).utcoffset()

    def _window_from(self, day: int, start: int, offset: timedelta) -> tuple[tuple, int, timedelta]:
        """(the window of ``day``, which starts at ``start`` with ``offset``; the next day's start
        and its offset, for the window after it)."""
        end = self._start_of(day + 1)
        end_offset = self._offset_at(end)
        if end - start != DAY_MS or self._offset_at(end - 1) != offset or end_offset != offset or offset % _ONE_MS:
            return (day, start, end, None), end, end_offset
        shift = offset // _ONE_MS - self.rollover_hour * 3_600_000
        first_day, last_day = ((t + shift) // DAY_MS + _UNIX_EPOCH_ORDINAL for t in (start, end - 1))
        if first_day != day or last_day != day:
            return (day, start, end, None), end, end_offset
        return (day, start, end, offset), end, end_offset

    def keep_days(self, first: int, count: int) -> None:
        """Compute the windows of ``count`` days from ``first`` in one pass, each day's end being
        the next one's start (some 3 us a day, against 5 to 15 one by one as previews ask):
        the days a day's reviews are scheduled to, when its queue is gathered."""
        windows = self._windows
        if len(windows) + count > _KEPT_WINDOWS:
            return
        start = offset = None
        for day in range(first, first + count):
            if day in windows:
                start = None
                continue
            if start is None:
                start = self._start_of(day)
                offset = self._offset_at(start)
            windows[day], start, offset = self._window_from(day, start, offset)

    def day_of(self, ms: int) -> int:
        start, end, day, shift = self._last[0]
        if start <= ms < end:
            return day
        # The day ``ms`` falls on if the offset is still the last one: when that day's window is
        # kept, has one offset throughout and holds ``ms``, it is the day (no datetime needed).
        guess = (ms + shift) // DAY_MS + _UNIX_EPOCH_ORDINAL
        found = self._windows.get(guess)
        if found is not None and found[3] is not None and found[1] <= ms < found[2]:
            return guess
        day = self._slow_day_of(ms)
        _, start, end, offset = self._window(day)
        if offset is not None:
            self._last[0] = (start, end, day, offset // _ONE_MS - self.rollover_hour * 3_600_000)
        return day

    def start_ms(self, day: int) -> int:
        """When study day ``day`` begins, in epoch milliseconds."""
        return self._window(day)[1]

    def end_ms(self, day: int) -> int:
        """The first millisecond of the next study day."""
        return self._window(day + 1)[1]

    def add_days(self, ms: int, days: int) -> int:
        """``ms`` moved by whole local days (wall clock), kept inside study day ``day_of(ms) + days``."""
        day = self.day_of(ms)
        offset = self._window(day)[3]
        # One offset through both days, the same on both: the wall clock moves by 24 h a day.
        if offset is not None and self._window(day + days)[3] == offset:
            return ms + days * DAY_MS
        return self._slow_add_days(ms, days)

    def _slow_add_days(self, ms: int, days: int) -> int:
        target = self._slow_day_of(ms) + days
        moved = _to_ms(datetime.fromtimestamp(ms / 1000, self.zone) + timedelta(days=days))
        if self._slow_day_of(moved) == target:
            return moved
        # A daylight-saving change pushed the wall-clock time across the rollover hour.
        return min(max(moved, self._slow_start_ms(target)), self._slow_start_ms(target + 1) - 1)

    def date_of(self, day: int) -> date:
        return date.fromordinal(day)

    def next_day_at_ms(self, ms: int) -> int:
        """Anki's ``next_day_at`` (timing.rs): today's rollover in the UTC offset in force at
        ``ms``, plus 24 hours once passed. On a daylight-saving day this is an hour off the
        zone's real rollover (``end_ms``); Anki counts elapsed days from it."""
        _, _, end, offset = self._window(self.day_of(ms))
        # With one offset all day (and at its end), that rollover is the day's end.
        if offset is not None:
            return end
        return self._slow_next_day_at_ms(ms)

    def _slow_next_day_at_ms(self, ms: int) -> int:
        local = datetime.fromtimestamp(ms // 1000, self.zone)
        fixed = local.astimezone(timezone(local.utcoffset() or timedelta(0)))
        rollover = fixed.replace(hour=self.rollover_hour, minute=0, second=0, microsecond=0)
        if rollover <= fixed:
            rollover += timedelta(days=1)
        return _to_ms(rollover)


_SHARED_WINDOWS: dict[tuple[tzinfo, int], dict] = {}
_KEPT_WINDOWS = 4096  # per zone and rollover: more and they are all forgotten
_UNIX_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_ONE_MS = timedelta(milliseconds=1)


def _to_ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


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
    # A step that reaches the next rollover is due on a study day, this many days on (Anki's DayLearn).
    step_days: int | None = None

    @property
    def label(self) -> str:
        """Short text for a button: 1m, 10m, 3d, 2.1mo, 1.5y; a step past the rollover in days, as Anki shows it."""
        if self.step_days is not None:
            return format_days(self.step_days)
        if self.interval_secs is not None:
            return format_seconds(self.interval_secs)
        return format_days(self.interval_days or 0)


# The previews build eight of these per pick. A frozen dataclass's __init__ sets each field
# through object.__setattr__ (some 3.5 us for an ItemState); setting the slots directly
# gives the same object (same class, fields, equality and hash) in well under half that.
_new_object = object.__new__
(_set_state, _set_step, _set_stability, _set_difficulty, _set_due, _set_last_review, _set_interval, _set_reps,
 _set_lapses, _set_leech) = (ItemState.__dict__[f.name].__set__ for f in fields(ItemState))
_set_rating, _set_after, _set_preview_due, _set_days, _set_secs, _set_step_days = (
    Preview.__dict__[f.name].__set__ for f in fields(Preview))


def _item_state(state: str, step: int | None, stability: float | None, difficulty: float | None, due_ms: int | None,
                last_review_ms: int | None, interval: int, reps: int, lapses: int, leech: bool) -> ItemState:
    """``ItemState(...)`` with every field given, positionally."""
    out = _new_object(ItemState)
    _set_state(out, state)
    _set_step(out, step)
    _set_stability(out, stability)
    _set_difficulty(out, difficulty)
    _set_due(out, due_ms)
    _set_last_review(out, last_review_ms)
    _set_interval(out, interval)
    _set_reps(out, reps)
    _set_lapses(out, lapses)
    _set_leech(out, leech)
    return out


def _preview(rating: int, after: ItemState, due_ms: int, interval_days: int | None, interval_secs: int | None = None,
             step_days: int | None = None) -> Preview:
    """``Preview(...)``, as ``_item_state`` is ``ItemState(...)``."""
    out = _new_object(Preview)
    _set_rating(out, rating)
    _set_after(out, after)
    _set_preview_due(out, due_ms)
    _set_days(out, interval_days)
    _set_secs(out, interval_secs)
    _set_step_days(out, step_days)
    return out


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
class _Outcome:
    """One button as Anki's state machine leaves it: (re)learning for ``secs``, or review for ``days``."""

    state: str
    step: int | None
    stability: float
    difficulty: float
    secs: int | None = None
    days: int | None = None


class ReviewScheduler:
    """fsrs-rs (the crate Anki runs) with Anki's steps, day counting, fuzz and load balancing.

    ``load_balancer`` (optional): a ``LoadBalancer`` holding the reviews due on each of the
    next days; when given and ``settings.load_balancer`` is on, a fuzzed review interval is
    picked inside the fuzz range by workload, as Anki does (see core/load_balancer.py).
    """

    def __init__(self, settings: Settings | None = None, *, load_balancer: Any = None) -> None:
        self.settings = settings or Settings()
        s = self.settings
        self.days = s.study_days()
        self._fsrs = fsrs_rs_python.FSRS(list(s.parameters))
        # Anki's fsrs_allow_short_term: (re)learning without steps keeps intervals under
        # half a day as (re)learning only when the short-term parameters are in use.
        self._short_term = len(s.parameters) >= 19 and s.parameters[17] > 0 and s.parameters[18] > 0
        self._learn = LearningSteps(s.learning_steps)
        self._relearn = LearningSteps(s.relearning_steps)
        self._maximum = max(s.maximum_interval, 1)
        self._fuzz = s.fuzz
        self._retention = s.desired_retention
        self._relearn_again = self._relearn.again_delay()
        self._leech_lapses = s.leech_lapses
        self.load_balancer = load_balancer if s.load_balancer else None
        decay = -s.parameters[20]
        self._decay = decay
        self._factor = 0.9 ** (1 / decay) - 1

    # -- public

    def previews(self, state: ItemState, key: str, now_ms: int, *, lazy: bool = False) -> Mapping[int, Preview]:
        """The four buttons for ``state`` reviewed at ``now_ms``; commit one with ``Preview.after``.

        A dict; ``lazy``: for a review, a mapping that builds each Preview (and its ItemState) when
        first read, from the intervals and due times computed here (the shown item: its answer
        reads one, a screen its four labels)."""
        seed = (anki_card_id(key) + state.reps) & 0xFFFFFFFFFFFFFFFF if self._fuzz else None
        next_day_ms = self.days.next_day_at_ms(now_ms)
        last = state.last_review_ms
        elapsed = 0 if last is None else max(0, next_day_ms // 1000 - last // 1000) // 86_400
        memory = None
        if state.state != NEW and state.stability is not None and state.difficulty is not None:
            memory = fsrs_rs_python.MemoryState(state.stability, state.difficulty)
        states = self._fsrs.next_states(memory, self._retention, elapsed)
        if state.state == REVIEW:
            return self._review_previews(state, states, seed, key, now_ms, next_day_ms, lazy)
        ctx = _Context(self, seed, now_ms)
        steps = self._relearn if state.state == RELEARNING else self._learn
        outcomes = self._from_learning(state, states, ctx, steps)
        until_rollover = (next_day_ms - now_ms) // 1000
        return {r: self._preview(state, r, outcomes[r], now_ms, until_rollover, seed) for r in RATINGS}

    def prime(self, items: Iterable[tuple[str, ItemState]]) -> None:
        """Work out ahead what the previews of many items need for their fuzz: each one's Anki
        card id, and with the Python copy its fuzz numbers (core.anki_random.prime). A queue's
        next items, when it is built; their previews then find them ready."""
        if not self.settings.fuzz:
            return
        items = list(items)
        remember_card_ids(key for key, _ in items)
        if not blocks_drawn_on_demand():
            prime_fuzz((anki_card_id(key) + state.reps) & 0xFFFFFFFFFFFFFFFF for key, state in items)

    def primed(self, key: str, state: ItemState) -> bool:
        """Whether the previews of ``state`` find what their fuzz needs ready (always, with fuzz off)."""
        if not self.settings.fuzz:
            return True
        if not card_id_known(key):
            return False
        return blocks_drawn_on_demand() or fuzz_primed(anki_card_id(key) + state.reps)

    def apply(self, state: ItemState, key: str, rating: int, now_ms: int) -> Preview:
        if rating not in RATINGS:
            raise StudyappError(f"rating {rating!r} is not a grade; use 1 (again), 2 (hard), 3 (good) or 4 (easy)",
                                code="usage")
        return self.previews(state, key, now_ms)[rating]

    def fuzz_factor(self, key: str, reps: int) -> float:
        """Anki's fuzz number in [0, 1) for this item (its Anki card id) and review count."""
        return fuzz_factor((anki_card_id(key) + reps) & 0xFFFFFFFFFFFFFFFF)

    def elapsed_days(self, last_review_ms: int, now_ms: int) -> int:
        """Days since the last review, counted as Anki counts them: whole 24-hour periods
        from the last review (in whole seconds) to Anki's next rollover, which Anki places
        at the rollover hour in the UTC offset in force now (``StudyDays.next_day_at_ms``).
        A review earlier today gives 0, one yesterday evening gives 1."""
        return max(0, self.days.next_day_at_ms(now_ms) // 1000 - last_review_ms // 1000) // 86_400

    def retrievability(self, state: ItemState, now_ms: int) -> float | None:
        if state.stability is None or state.last_review_ms is None:
            return None
        elapsed = self.elapsed_days(state.last_review_ms, now_ms)
        return (1 + self._factor * elapsed / state.stability) ** self._decay

    # -- Anki's state machine (rslib/src/scheduler/states/{learning,relearning,review}.rs)

    def _from_learning(self, state: ItemState, states: Any, ctx: _Context, steps: LearningSteps) -> dict[int, _Outcome]:
        kind = RELEARNING if state.state == RELEARNING else LEARNING
        step = steps.index(state.step)
        out: dict[int, _Outcome] = {}
        again, hard, good, easy = states.again, states.hard, states.good, states.easy

        delay = steps.again_delay()
        out[AGAIN] = (_Outcome(kind, 0, *_memory(again), secs=delay) if delay is not None
                      else self._without_steps(kind, 0, again, ctx, steps))
        delay = steps.hard_delay(step)
        out[HARD] = (_Outcome(kind, step, *_memory(hard), secs=delay) if delay is not None
                     else self._without_steps(kind, step, hard, ctx, steps))
        delay = steps.good_delay(step)
        out[GOOD] = (_Outcome(kind, step + 1, *_memory(good), secs=delay) if delay is not None
                     else self._without_steps(kind, step, good, ctx, steps))
        # Easy graduates above Good's fuzzed interval, fuzzed from Good's unrounded value.
        good_days = ctx.fuzz(good.interval, 1, self._maximum)
        out[EASY] = _Outcome(REVIEW, None, *_memory(easy),
                             days=ctx.fuzz(_whole_days(easy.interval), good_days + 1, self._maximum))
        return out

    def _without_steps(self, kind: str, step: int, item: Any, ctx: _Context, steps: LearningSteps) -> _Outcome:
        """No step left: Anki's short FSRS interval stays in (re)learning when there are no
        steps at all and it is under half a day; otherwise the card goes to review."""
        if self._short_term and not steps and item.interval < 0.5:
            return _Outcome(kind, step, *_memory(item), secs=as_u32(f32(item.interval * 86_400.0)))
        return _Outcome(REVIEW, None, *_memory(item), days=ctx.fuzz(_whole_days(item.interval), 1, self._maximum))

    def _review_previews(self, state: ItemState, states: Any, seed: int | None, key: str, now_ms: int,
                         next_day_ms: int, lazy: bool = False) -> Mapping[int, Preview]:
        """The four buttons of a review (review.rs): Again to relearning (or review), then Hard,
        Good and Easy each at least a day past the one before, fuzzed (and load balanced).

        The most frequent preview, so written out in one piece, without the intermediate
        outcomes of the (re)learning states; tests/test_parity.py holds it to Anki."""
        factor = None if seed is None else fuzz_factor(seed)
        balancer = self.load_balancer
        counts = None if balancer is None or seed is None else balancer.counts_at(now_ms)
        # The stored (stability, difficulty) of the four buttons, then the days of the last three.
        numbers = _review_numbers(states, state.interval, self._maximum, factor, counts)
        # rating -> its Preview, or (the arguments of _preview, then those of _item_state for its ``after``)
        out: dict[int, Any] = {}
        delay = self._relearn_again
        days = self.days
        reps = state.reps + 1
        lapses = state.lapses
        if delay is not None:
            # The first relearning step: ``_preview`` of that outcome, its objects left to be built
            # when read (every review shows it).
            stability, difficulty = numbers[0], numbers[1]
            leech = state.leech or lapses + 1 >= self._leech_lapses
            due, step_days = self._step_due(delay, now_ms, (next_day_ms - now_ms) // 1000, seed)
            out[AGAIN] = ((AGAIN, due, None, delay, step_days),
                          (RELEARNING, 0, stability, difficulty, due, now_ms, -delay, reps, lapses + 1, leech))
        else:
            again = states.again
            if self._short_term and again.interval < 0.5:
                outcome = _Outcome(RELEARNING, 0, *numbers[:2], secs=as_u32(f32(again.interval * 86_400.0)))
            else:
                # Anki 26.9 does not clamp this one to the maximum interval (review.rs answer_again).
                outcome = _Outcome(REVIEW, None, *numbers[:2], days=max(1, as_u32(round_f32(again.interval))))
            out[AGAIN] = self._preview(state, AGAIN, outcome, now_ms, (next_day_ms - now_ms) // 1000, seed)

        # StudyDays.add_days with today's window looked up once.
        today = days.day_of(now_ms)
        offset = days._window(today)[3]
        window = days._window
        leech = state.leech or lapses >= self._leech_lapses
        for rating, ivl, at in ((HARD, numbers[8], 2), (GOOD, numbers[9], 4), (EASY, numbers[10], 6)):
            if offset is not None and window(today + ivl)[3] == offset:
                due = now_ms + ivl * DAY_MS
            else:
                due = days.add_days(now_ms, ivl)
            out[rating] = ((rating, due, ivl, None, None), (REVIEW, None, numbers[at], numbers[at + 1], due, now_ms,
                                                            ivl, reps, lapses, leech))
        if lazy:
            return _Buttons(out)
        return {rating: _from_spec(spec) for rating, spec in out.items()}

    # -- the preview

    def _preview(self, before: ItemState, rating: int, outcome: _Outcome, now_ms: int, until_rollover: int,
                 seed: int | None) -> Preview:
        lapses = before.lapses + (1 if before.state == REVIEW and rating == AGAIN else 0)
        leech = before.leech or lapses >= self.settings.leech_lapses
        days = outcome.days
        if days is not None:
            due = self.days.add_days(now_ms, days)
            after = _item_state(REVIEW, None, outcome.stability, outcome.difficulty, due, now_ms, days, before.reps + 1,
                                lapses, leech)
            return _preview(rating, after, due, days)
        secs = outcome.secs
        assert secs is not None
        due, step_days = self._step_due(secs, now_ms, until_rollover, seed)
        after = _item_state(outcome.state, outcome.step, outcome.stability, outcome.difficulty, due, now_ms, -secs,
                            before.reps + 1, lapses, leech)
        return _preview(rating, after, due, None, secs, step_days)

    def _step_due(self, secs: int, now_ms: int, until_rollover: int, seed: int | None) -> tuple[int, int | None]:
        """(due time, whole days or None) of a (re)learning step of ``secs`` taken at ``now_ms``."""
        if secs >= until_rollover:
            # A step that reaches the next rollover is day-based in Anki: due at the start of
            # the study day it lands on, not at an exact time (interval_kind.rs maybe_as_days).
            step_days = (secs - until_rollover) // 86_400 + 1
            return self.days.start_ms(self.days.day_of(now_ms) + step_days), step_days
        return now_ms + (secs if seed is None else learning_fuzz_secs(seed, secs)) * 1000, None


def _from_spec(spec: Any) -> Preview:
    """A preview from ``_review_previews``' arguments for it (or the Preview itself)."""
    if isinstance(spec, Preview):
        return spec
    (rating, due, days, secs, step_days), after = spec
    return _preview(rating, _item_state(*after), due, days, secs, step_days)


class _Buttons(abc.Mapping):
    """A review's four previews, each Preview built when first read (then kept): a pick computes
    every interval and due time, and skips the eight objects until something reads them."""

    __slots__ = ("_specs", "_built")

    def __init__(self, specs: dict[int, Any]) -> None:
        self._specs = specs
        self._built: dict[int, Preview] = {}

    def __getitem__(self, rating: int) -> Preview:
        found = self._built.get(rating)
        if found is None:
            found = self._built[rating] = _from_spec(self._specs[rating])
        return found

    def __contains__(self, rating: object) -> bool:
        return rating in self._specs

    def __iter__(self):
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class _Context:
    """The fuzz of one answer: Anki's number for this card and review count, and the load balancer."""

    __slots__ = ("scheduler", "seed", "now_ms", "_factor")

    def __init__(self, scheduler: ReviewScheduler, seed: int | None, now_ms: int) -> None:
        self.scheduler, self.seed, self.now_ms = scheduler, seed, now_ms
        self._factor: float | None = None

    def fuzz(self, interval: float, minimum: int, maximum: int) -> int:
        """Anki's StateContext.with_review_fuzz."""
        if self.seed is None:
            return with_review_fuzz(None, interval, minimum, maximum)
        if self._factor is None:
            self._factor = fuzz_factor(self.seed)
        balancer = self.scheduler.load_balancer
        counts = None if balancer is None else balancer.counts_at(self.now_ms)
        return _fuzzed_day(interval, minimum, maximum, self._factor, counts)


def _memory(item: Any) -> tuple[float, float]:
    """The memory state as Anki stores it: f32 stability to 4 places, difficulty to 3 (storage/card/data.rs).

    Each is ``f32(round_f32(f32(value * scale)) / scale)``; the two go through one f32 pack
    together (four memory states a pick)."""
    memory = item.memory
    stability, difficulty = _unpack_2f32(_pack_2f32(memory.stability * 10_000.0, memory.difficulty * 1_000.0))
    stability = _floor(stability + 0.5) if stability >= 0 else -_floor(-stability + 0.5)
    difficulty = _floor(difficulty + 0.5) if difficulty >= 0 else -_floor(-difficulty + 0.5)
    return _unpack_2f32(_pack_2f32(stability / 10_000.0, difficulty / 1_000.0))


_2F32 = struct.Struct("ff")
_pack_2f32, _unpack_2f32 = _2F32.pack, _2F32.unpack
_8F32 = struct.Struct("8f")
_pack_8f32, _unpack_8f32 = _8F32.pack, _8F32.unpack


def _memories(again: Any, hard: Any, good: Any, easy: Any) -> tuple[float, ...]:
    """``_memory`` of the four buttons' states at once: (stability, difficulty) of each, flat."""
    a, h, g, e = again.memory, hard.memory, good.memory, easy.memory
    scaled = _unpack_8f32(_pack_8f32(a.stability * 10_000.0, a.difficulty * 1_000.0, h.stability * 10_000.0,
                                     h.difficulty * 1_000.0, g.stability * 10_000.0, g.difficulty * 1_000.0,
                                     e.stability * 10_000.0, e.difficulty * 1_000.0))
    s0, d0, s1, d1, s2, d2, s3, d3 = [_floor(v + 0.5) if v >= 0 else -_floor(-v + 0.5) for v in scaled]
    return _unpack_8f32(_pack_8f32(s0 / 10_000.0, d0 / 1_000.0, s1 / 10_000.0, d1 / 1_000.0, s2 / 10_000.0,
                                   d2 / 1_000.0, s3 / 10_000.0, d3 / 1_000.0))


_floor = math.floor


def _review_numbers_python(states: Any, previous: int, maximum: int, factor: float | None,
                           counts: list[int] | None) -> tuple:
    """The reference for the compiled review_numbers (core/_speedups.c): ``_memories`` of the four
    next states, then ``review_days`` of Hard's, Good's and Easy's intervals."""
    again, hard, good, easy = states.again, states.hard, states.good, states.easy
    return (*_memories(again, hard, good, easy),
            *_review_days(hard.interval, good.interval, easy.interval, previous, maximum, factor, counts))


try:
    from ._speedups import review_numbers as _review_numbers_compiled
except ImportError:  # an install that could not compile it
    _review_numbers_compiled = None
_review_numbers = _review_numbers_compiled or _review_numbers_python


def _whole_days(interval: float) -> float:
    """Rust's ``interval.round().max(1.0)`` on an f32."""
    return float(max(round_f32(interval), 1))


__all__ = [
    "AGAIN", "HARD", "GOOD", "EASY", "RATINGS", "RATING_NAMES", "NEW", "LEARNING", "REVIEW", "RELEARNING",
    "DeckLimits", "Settings", "StudyDays", "ItemState", "NEW_STATE", "Preview", "ReviewScheduler",
    "resolve_zone", "zone_name", "format_days", "format_seconds", "FSRS_VERSION", "DAY_MS",
]
