"""The end of a review session: how many, how many Again, how long, what comes next."""

from __future__ import annotations

from datetime import tzinfo

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.session import SessionSummary
from .. import keymap
from ..timefmt import duration, when
from ..widgets.common.footer import AppFooter
from .base import AppScreen


class SummaryScreen(AppScreen):
    BINDINGS = keymap.bindings("summary")
    HELP_TITLE = "Session summary"

    def __init__(self, summary: SessionSummary, *, now_ms: int, zone: tzinfo, cram: bool = False,
                 left_now: int = 0) -> None:
        super().__init__()
        self.left_now = left_now
        self.summary = summary
        self.now_ms = now_ms
        self.zone = zone
        self.cram = cram

    def compose(self) -> ComposeResult:
        s = self.summary
        share = f"{s.again_share:.0%}" if s.again_share is not None else "-"
        by = s.by_rating
        rows = [
            ("Items reviewed", str(s.reviewed)),
            ("Again", f"{s.again} ({share})"),
            ("Grades", f"Again {by.get(1, 0)} · Hard {by.get(2, 0)} · Good {by.get(3, 0)} · Easy {by.get(4, 0)}"),
            ("Time spent", duration(s.time_ms)),
        ]
        if self.cram:
            rows.append(("Schedule", "unchanged (cram)"))
            if self.left_now:
                rows.append(("Left to cram", str(self.left_now)))
        elif self.left_now:
            rows.append(("Next due", f"now: {self.left_now} item{'s' if self.left_now != 1 else ''} left today"))
        else:
            rows.append(("Next due", when(s.next_due_ms, self.now_ms, self.zone)))
        width = max(len(label) for label, _ in rows) + 2
        body = Content("\n").join(Content.assemble((label.ljust(width), "bold"), value) for label, value in rows)
        yield Static("Session finished" if s.reviewed else "Session ended", id="summary-title", markup=False)
        with VerticalScroll(id="summary-body"):
            yield Static(body, id="summary-figures", markup=False)
            yield Static("Enter: back to the decks   q: quit", classes="muted", markup=False)
        yield AppFooter()

    def action_home(self) -> None:
        self.app.go_home()
