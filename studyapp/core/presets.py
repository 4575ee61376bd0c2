"""Deck option presets, as Anki's: named sets of daily limits, steps and queue options, one per deck.

A preset names what it sets; a value left as None is taken from the profile's settings
(``Settings``), so a profile without presets studies exactly as before. Every deck uses
the preset it is assigned, or ``Default``. What FSRS does not read is left out: Anki
ignores the graduating and easy intervals when FSRS is on (rslib/src/scheduler/states/
learning.rs takes FSRS's intervals whenever ``fsrs_next_states`` is set), and so does this.

New-card order follows Anki's two options (rslib/src/scheduler/queue/builder/gathering.rs
and sorting.rs): the *gather* order picks which new items today's limit lets in, the
*sort* order arranges those. Random orders hash the item with a seed kept per profile, so
they are stable across restarts; Anki salts with the day number instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from .problems import StudyappError
from .scheduler import RETENTION_RANGE, Settings, _check_parameters

DEFAULT_PRESET = "Default"
PRESET_NAME_RE = re.compile(r"^[^\x00-\x1f]{1,40}$")

# Gather: "deck" (Anki's default: decks in session order, bank order within each),
# "deck-random" (decks in order, random within each: Anki's "Deck, then random notes"),
# "interleaved" (studyapp's default: one from each deck in turn, random within each),
# "random-notes" and "random-cards" (all decks together, Anki's two random orders).
GATHER_ORDERS = ("interleaved", "deck", "deck-random", "random-notes", "random-cards")
# Sort: "gathered" (keep the gather order), "card-type" (Anki's default: by card type, i.e.
# forward before backward and c1 before c2, then the gather order), "card-type-random",
# "random-note-card-type", "random".
SORT_ORDERS = ("gathered", "card-type", "card-type-random", "random-note-card-type", "random")
LEECH_ACTIONS = ("tag", "suspend")

# Anki's defaults for the queue options (the profile settings hold the rest).
ANKI_GATHER, ANKI_SORT = "deck", "card-type"


@dataclass(frozen=True)
class Preset:
    name: str = DEFAULT_PRESET
    new_per_day: int | None = None
    reviews_per_day: int | None = None
    learning_steps: tuple[int, ...] | None = None  # seconds; () is allowed (Anki: no learning steps)
    relearning_steps: tuple[int, ...] | None = None
    leech_lapses: int | None = None
    leech_action: str = "tag"
    maximum_interval: int | None = None
    desired_retention: float | None = None
    learn_ahead_minutes: int | None = None
    bury_new: bool = True
    bury_reviews: bool = True
    bury_interday_learning: bool = True
    new_gather_order: str = "interleaved"
    new_sort_order: str = "gathered"
    # FSRS parameters fitted for this preset (``studyapp optimize``); the store keeps them in
    # their own table with when and from what they were fitted, never in the preset's JSON.
    parameters: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise StudyappError naming the preset, the option and the values it accepts."""
        where = f"preset {self.name!r}"
        if not isinstance(self.name, str) or not PRESET_NAME_RE.match(self.name) or self.name != self.name.strip():
            raise StudyappError(f"preset name {self.name!r} must be 1 to 40 characters, no control characters and "
                                "no leading or trailing spaces", code="usage")
        for name in ("new_per_day", "reviews_per_day", "learn_ahead_minutes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 0 <= value <= 1_000_000):
                raise StudyappError(f"{where}: {_label(name)} {value!r} must be a whole number from 0 to 1000000",
                                    code="usage")
        for name in ("learning_steps", "relearning_steps"):
            steps = getattr(self, name)
            if steps is None:
                continue
            if not isinstance(steps, tuple) or any(isinstance(s, bool) or not isinstance(s, int)
                                                   or not 1 <= s <= 365 * 86400 for s in steps):
                raise StudyappError(f"{where}: {_label(name)} {list(steps) if isinstance(steps, tuple) else steps!r} "
                                    "must be whole seconds from 1 to 31536000 each (or none at all)", code="usage")
        if self.leech_lapses is not None and (isinstance(self.leech_lapses, bool)
                                              or not isinstance(self.leech_lapses, int)
                                              or not 1 <= self.leech_lapses <= 99):
            raise StudyappError(f"{where}: leech threshold {self.leech_lapses!r} must be a whole number of lapses "
                                "from 1 to 99 (Anki's range; 8 is the default)", code="usage")
        if self.leech_action not in LEECH_ACTIONS:
            raise StudyappError(f"{where}: leech action {self.leech_action!r} must be one of "
                                f"{', '.join(LEECH_ACTIONS)}", code="usage")
        if self.maximum_interval is not None and (isinstance(self.maximum_interval, bool)
                                                  or not isinstance(self.maximum_interval, int)
                                                  or not 1 <= self.maximum_interval <= 36500):
            raise StudyappError(f"{where}: maximum interval {self.maximum_interval!r} must be from 1 to 36500 days",
                                code="usage")
        low, high = RETENTION_RANGE
        retention = self.desired_retention
        if retention is not None and (isinstance(retention, bool) or not isinstance(retention, (int, float))
                                      or not low <= retention <= high):
            raise StudyappError(f"{where}: desired retention {retention!r} is out of range; use a number from "
                                f"{low:.2f} to {high:.2f}", code="usage")
        for name in ("bury_new", "bury_reviews", "bury_interday_learning"):
            if not isinstance(getattr(self, name), bool):
                raise StudyappError(f"{where}: {_label(name)} must be true or false, not {getattr(self, name)!r}",
                                    code="usage")
        if self.parameters is not None:
            if not isinstance(self.parameters, tuple):
                raise StudyappError(f"{where}: parameters must be a list of 21 numbers", code="usage")
            try:
                _check_parameters(self.parameters)
            except StudyappError as error:
                raise StudyappError(f"{where}: {error.message}", code="usage") from None
        if self.new_gather_order not in GATHER_ORDERS:
            raise StudyappError(f"{where}: new card gather order {self.new_gather_order!r} must be one of "
                                f"{', '.join(GATHER_ORDERS)}", code="usage")
        if self.new_sort_order not in SORT_ORDERS:
            raise StudyappError(f"{where}: new card sort order {self.new_sort_order!r} must be one of "
                                f"{', '.join(SORT_ORDERS)}", code="usage")

    def scheduling(self, settings: Settings) -> Settings:
        """The profile's settings with this preset's values in place of theirs."""
        changes = {name: getattr(self, name) for name in
                   ("new_per_day", "reviews_per_day", "learning_steps", "relearning_steps", "leech_lapses",
                    "maximum_interval", "desired_retention", "learn_ahead_minutes", "parameters")
                   if getattr(self, name) is not None}
        return replace(settings, **changes) if changes else settings

    def to_dict(self) -> dict[str, Any]:
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "preset") -> Preset:
        if not isinstance(data, Mapping):
            raise StudyappError(f"{source}: expected a mapping of option names to values", code="usage")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise StudyappError(f"{source}: unknown option {', '.join(map(repr, unknown))}; "
                                f"known options: {', '.join(sorted(known))}", code="usage")
        values = dict(data)
        for name in ("learning_steps", "relearning_steps", "parameters"):
            if isinstance(values.get(name), list):
                values[name] = tuple(values[name])
        return cls(**values)


@dataclass(frozen=True)
class Presets:
    """Every preset of a profile and which deck uses which (unassigned decks use Default)."""

    presets: Mapping[str, Preset]
    assignments: Mapping[str, str]
    # Deck id -> the preset it is scheduled with instead (a curriculum's team parameters:
    # core.curriculum.scheduling_presets); never stored.
    overrides: Mapping[str, Preset] = field(default_factory=dict)

    def for_deck(self, deck_id: str) -> Preset:
        if deck_id in self.overrides:
            return self.overrides[deck_id]
        return self.presets.get(self.assignments.get(deck_id, DEFAULT_PRESET)) or self.default

    @property
    def default(self) -> Preset:
        return self.presets.get(DEFAULT_PRESET) or Preset()


NO_PRESETS = Presets({DEFAULT_PRESET: Preset()}, {})


def _label(name: str) -> str:
    return name.replace("_", " ")


__all__ = ["Preset", "Presets", "NO_PRESETS", "DEFAULT_PRESET", "GATHER_ORDERS", "SORT_ORDERS", "LEECH_ACTIONS",
           "ANKI_GATHER", "ANKI_SORT"]
