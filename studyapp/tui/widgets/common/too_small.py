"""What every screen shows instead of itself when the terminal is too small to draw it."""

from __future__ import annotations

from textual.widgets import Static

MIN_WIDTH = 60
MIN_HEIGHT = 16


class TooSmall(Static):
    """Covers the screen (CSS layer "notice") while the terminal is smaller than the app needs."""

    def show_size(self, width: int, height: int) -> None:
        self.update(f"The terminal is {width}×{height}; studyapp needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\n"
                    "Make the window larger (nothing is lost), or press Ctrl+Q to quit.")
