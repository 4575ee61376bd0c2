"""The four grade buttons, each with the interval it will set (Anki's answer bar).

Drawn as one line of clickable text rather than four Button widgets: it is redrawn on
every reveal, and fewer widgets make a faster layout.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.content import Content
from textual.markup import escape
from textual.widgets import Static

NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}
COLOURS = {1: "$error", 2: "$warning", 3: "$success", 4: "$primary"}


class GradeBar(Static):
    """Clicking a grade runs the screen's ``grade`` action, as its key does."""

    _shown: tuple | None = None

    def show(self, labels: Mapping[int, str], proposed: int | None, *, would_be: bool = False,
             keys: Mapping[int, str] | None = None) -> None:
        """``labels``: the interval text of each grade; ``proposed``: the grade Space/Enter will give;
        ``keys``: the key that gives each grade now (1 to 4 unless remapped or after a pick)."""
        keys = dict(keys or {rating: str(rating) for rating in NAMES})
        self._shown = (dict(labels), proposed, would_be, keys)
        width = max(4 * 12, self.content_size.width or self.size.width or 96)
        cell = width // 4
        parts = []
        for rating, name in NAMES.items():
            when = labels.get(rating, "")
            key = keys.get(rating, str(rating))
            label = f"{key} {name} · {'~' if would_be else ''}{when}" if when else f"{key} {name}"
            style = f"bold $text on {COLOURS[rating]}"
            if rating == proposed:
                # The grade Space/Enter gives after a checked answer is marked, not only coloured.
                label, style = f"▸ {label} ◂", style + " underline"
            text = escape(label.center(cell - 1))
            parts.append(f"[@click=screen.grade({rating})][{style}]{text}[/][/]")
        self.update(Content.from_markup(" ".join(parts)))

    def on_resize(self) -> None:
        if self._shown is not None:
            labels, proposed, would_be, keys = self._shown
            self.show(labels, proposed, would_be=would_be, keys=keys)
