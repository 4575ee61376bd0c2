"""The four grade buttons, each with the interval it will set (Anki's answer bar)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}
VARIANTS = {1: "error", 2: "warning", 3: "success", 4: "primary"}


class GradeBar(Horizontal):
    class Graded(Message):
        """A button was clicked."""

        def __init__(self, rating: int) -> None:
            super().__init__()
            self.rating = rating

    def compose(self) -> ComposeResult:
        for rating, name in NAMES.items():
            button = Button(f"{rating} {name}", id=f"grade-{rating}", variant=VARIANTS[rating], compact=True)
            # Keys, not focus, drive the review: a focused button would swallow Space and Enter.
            button.can_focus = False
            yield button

    def show(self, labels: Mapping[int, str], proposed: int | None, *, keys: Mapping[int, str] | None = None,
             would_be: bool = False) -> None:
        """``labels``: the interval text of each grade; ``proposed``: the grade Space/Enter will give."""
        for rating, name in NAMES.items():
            button = self.query_one(f"#grade-{rating}", Button)
            key = (keys or {}).get(rating, str(rating))
            when = labels.get(rating, "")
            prefix = "~" if would_be else ""
            label = f"{key} {name} · {prefix}{when}" if when else f"{key} {name}"
            # The grade Space/Enter gives after a checked answer is marked, not only coloured.
            button.label = f"▸ {label} ◂" if rating == proposed else label
            button.set_class(rating == proposed, "-proposed")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        rating = int((event.button.id or "grade-3").removeprefix("grade-"))
        self.post_message(self.Graded(rating))
