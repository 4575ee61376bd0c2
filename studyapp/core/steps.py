"""Learning and relearning steps as Anki applies them (rslib/src/scheduler/states/steps.rs).

Steps are whole seconds here (Anki keeps minutes as f32 and truncates ``minutes * 60``).
A card's position is its step index; Anki keeps the number of steps remaining instead,
which is the same thing while the steps are unchanged, and clamps an index past the end
to the last step.
"""

from __future__ import annotations

DAY_SECS = 86_400


class LearningSteps:
    __slots__ = ("steps",)

    def __init__(self, steps: tuple[int, ...]) -> None:
        self.steps = tuple(steps)

    def __bool__(self) -> bool:
        return bool(self.steps)

    def index(self, step: int | None) -> int:
        return max(0, min(step or 0, len(self.steps) - 1))

    def again_delay(self) -> int | None:
        return self.steps[0] if self.steps else None

    def hard_delay(self, step: int | None) -> int | None:
        """The current step again; on the first step, between it and the next (or half as long
        again, at most a day more, with a single step); over a day, whole days."""
        if not self.steps:
            return None
        index = self.index(step)
        current = self.steps[index]
        if index != 0:
            return current
        if len(self.steps) > 1:
            return _maybe_round_in_days((current + self.steps[1]) // 2)
        return _maybe_round_in_days(min(current * 3 // 2, current + DAY_SECS))

    def good_delay(self, step: int | None) -> int | None:
        """The next step's delay, or None when Good graduates."""
        index = self.index(step) + 1
        return self.steps[index] if index < len(self.steps) else None

    def next_index(self, step: int | None) -> int:
        return self.index(step) + 1


def _maybe_round_in_days(secs: int) -> int:
    if secs > DAY_SECS:
        # Rust: (secs as f32 / 86400.0).round() as u32 * 86400; halves away from zero.
        from .fuzz import f32, round_f32

        return round_f32(f32(f32(secs) / DAY_SECS)) * DAY_SECS
    return secs
