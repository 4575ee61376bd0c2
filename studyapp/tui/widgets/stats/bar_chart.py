"""A vertical bar chart drawn with block characters: one bar per day, scaled to the tallest."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"


class BarChart(Widget):
    """``values`` over ``labels`` (shown under the first, middle and last bars)."""

    DEFAULT_CSS = """
    BarChart {
        height: auto;
        width: 1fr;
    }
    """
    values: reactive[tuple[int, ...]] = reactive(tuple, layout=True)

    def __init__(self, title: str, *, rows: int = 6, bar_style: str = "$primary", id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.title = title
        self.rows = rows
        self.bar_style = bar_style
        self.labels: tuple[str, str, str] = ("", "", "")
        self.caption: str | None = None  # in place of "total N, most M"
        self.highlight: int | None = None  # one bar drawn in the highlight style
        self.highlight_style = "$warning"

    def set_data(self, values: Sequence[float], labels: tuple[str, str, str], *, caption: str | None = None,
                 highlight: int | None = None) -> None:
        self.labels = labels
        self.caption = caption
        self.highlight = highlight
        self.values = tuple(values)
        self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:
        return self.rows + 3  # title, bars, axis, labels

    def render(self) -> Content:
        values = self.values or (0,)
        peak = max(values)
        axis_width = max(len(_number(peak)), 1) + 1
        room = max(1, self.content_size.width - axis_width - 1)
        bar_width = max(1, min(3, room // len(values)))
        summary = self.caption if self.caption is not None else f"total {sum(values)}, most {peak}"
        lines = [Content.assemble((self.title, "bold"), (f"   {summary}", "dim"))]
        for row in range(self.rows, 0, -1):
            label = _number(peak) if row == self.rows else ("0" if row == 1 and peak == 0 else "")
            parts: list[str | tuple[str, str]] = [label.rjust(axis_width - 1) + "│"]
            for index, value in enumerate(values):
                eighths = round(value / peak * self.rows * 8) if peak else 0
                level = min(8, max(0, eighths - (row - 1) * 8))
                if value and row == 1 and level == 0:
                    level = 1  # any non-zero day shows a sliver
                cell = BLOCKS[level] * max(1, bar_width - 1) + (" " if bar_width > 1 else "")
                parts.append((cell, self.highlight_style if index == self.highlight else self.bar_style))
            lines.append(Content.assemble(*parts))
        span = bar_width * len(values)
        lines.append(Content(" " * (axis_width - 1) + "└" + "─" * span))
        first, middle, last = self.labels
        under = [" "] * span
        for text, at in ((first, 0), (middle, span // 2 - len(middle) // 2), (last, span - len(last))):
            at = max(0, min(at, span - len(text)))
            under[at:at + len(text)] = list(text)
        lines.append(Content(" " * axis_width + "".join(under)[:span], ))
        return Content("\n").join(lines)


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.3g}"
