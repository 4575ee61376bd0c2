"""Stats: the due forecast for 30 days, reviews per day, retention against the target,
per-deck progress and leeches. Charts where a chart reads better than a table.

The workload chart (key ``w``) simulates a year at each desired retention, which takes
seconds, so it runs when asked rather than each time the screen opens."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from ...core.problems import StudyappError
from .. import keymap
from ..widgets.cards import render
from ..widgets.stats.bar_chart import BarChart
from ..widgets.common.footer import AppFooter
from .base import AppScreen
from .home import cut, progress_bar


# (label, width in cells) of the deck table's number columns, full and below WIDE_COLUMNS;
# the deck title takes what they leave, so the table never needs a horizontal scrollbar.
WIDE_COLUMNS = 100
COLUMNS = (("Items", 5), ("New", 3), ("Learning", 8), ("Review", 6), ("Due", 3), ("Reviews", 7),
           ("Retention", 9), ("Progress", 15))
NARROW_COLUMNS = (("Items", 5), ("New", 3), ("Learn", 5), ("Rev", 3), ("Due", 3), ("Answ", 4), ("Ret", 4),
                  ("Seen", 4))
PROGRESS_BAR = 10  # with " 100%": the Progress column's 15 cells
BODY_PADDING = 4  # #stats-body's padding, both sides
SCROLLBAR = 2
CELL_PADDING = 2


def deck_columns(width: int, longest_title: int) -> tuple[int, tuple[tuple[str, int], ...]]:
    """(deck title cells, the other columns) for a terminal ``width`` cells wide."""
    columns = COLUMNS if width >= WIDE_COLUMNS else NARROW_COLUMNS
    fixed = sum(cells for _, cells in columns) + (len(columns) + 1) * CELL_PADDING
    title = width - BODY_PADDING - SCROLLBAR - fixed
    return max(10, min(longest_title, title)), columns


class StatsScreen(AppScreen):
    BINDINGS = keymap.bindings("stats")
    HELP_TITLE = "Stats"

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static("Statistics", id="stats-title", markup=False)
        with VerticalScroll(id="stats-body"):
            yield Static("Counting…", id="stats-retention", markup=False)
            yield BarChart("Due in the next 30 days", id="chart-forecast", classes="chart", bar_style="$accent")
            yield BarChart("Reviews per day, last 30 days", id="chart-reviews", classes="chart",
                           bar_style="$primary")
            yield Static("Decks", classes="heading", markup=False)
            yield DataTable(id="stats-decks", cursor_type="row", show_cursor=False)
            yield Static("Leeches", classes="heading", markup=False)
            yield Static(id="stats-leeches", markup=False)
            # Last, and the chart hidden until asked for: the figures above stay where they were.
            yield Static("Workload: press w to simulate the next year at desired retentions 0.70 to 0.97 "
                         "with your parameters, deck sizes and answer times", id="stats-workload", markup=False)
            chart = BarChart("Minutes per day over the next year, by desired retention", id="chart-workload",
                             classes="chart", bar_style="$secondary")
            chart.display = False
            yield chart
        yield AppFooter()

    def on_mount(self) -> None:
        self._decks: list = []
        self._layout = None
        self.run_worker(self._load, thread=True, name="stats-load", exit_on_error=False)

    def on_resize(self) -> None:
        if self.loaded:
            self._fill_decks()

    def _load(self) -> None:
        services = self.app.services
        try:
            overview = services.overview()
            with services.lock:
                figures = {
                    "forecast": overview.forecast(30),
                    "reviews": overview.reviews_per_day(30),
                    "retention": overview.retention(30),
                    "spans": overview.retention_spans(),
                    "decks": overview.deck_progress(),
                    "leeches": overview.leeches(),
                }
        except StudyappError as error:
            self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
            return
        self.app.call_from_thread(self._loaded, figures)

    def _loaded(self, figures: dict) -> None:
        forecast, reviews = figures["forecast"], figures["reviews"]
        actual, desired = figures["retention"]
        self.query_one("#chart-forecast", BarChart).set_data(
            [d.count for d in forecast], ("today", "+15d", "+29d"))
        self.query_one("#chart-reviews", BarChart).set_data(
            [d.count for d in reviews], (reviews[0].day.strftime("%m-%d"), "", "today") if reviews else ("", "", ""))
        answered = sum(d.count for d in reviews)
        again = sum(d.again for d in reviews)
        spans = figures["spans"]
        month = spans["month"]
        tally = f" · {answered} answers, {again} Again"
        if actual is None:
            retention = Content.assemble(("True retention ", "bold"),
                                         f"- in 30 days: no reviews at intervals of a day or more "
                                         f"(target {desired:.0%})", tally)
        else:
            style = "$success" if actual >= desired else "$warning"
            gap = actual - desired
            retention = Content.assemble(("True retention ", "bold"), (f"{actual:.1%}", f"bold {style}"),
                                         f" in 30 days (target {desired:.0%}, {gap:+.1%}; young {_pct(month.young)}, "
                                         f"mature {_pct(month.mature)})", tally)
        # Two lines in all at 120 columns: the deck table below must open in full on a 35-row screen.
        summary = Content.assemble(retention, "\n", span_line(spans))
        self.query_one("#stats-retention", Static).update(summary)
        self._decks = figures["decks"]
        self._fill_decks()
        leeches = figures["leeches"]
        if not leeches:
            text = render.plain("No leeches: no item has lapsed often enough to be one.", render.MUTED)
        else:
            lines = []
            for info in leeches:
                question = render.question(info.item.card, info.item.variant).plain if info.item else info.key
                lines.append(Content.assemble((f"{info.row.state.lapses:>3} lapses  ", "$error"),
                                              render.plain(question.replace("\n", " ")[:90]),
                                              (f"  {info.key}", "dim")))
            text = Content("\n").join(lines)
        self.query_one("#stats-leeches", Static).update(text)
        self.loaded = True

    def _fill_decks(self) -> None:
        rows = self._decks
        title_cells, columns = deck_columns(self.app.size.width, max((cell_len(r.title) for r in rows), default=4))
        table = self.query_one("#stats-decks", DataTable)
        if (title_cells, columns) != self._layout:
            self._layout = (title_cells, columns)
            table.clear(columns=True)
            table.add_column("Deck", key="deck", width=title_cells)
            for label, cells in columns:
                table.add_column(label, key=label.lower(), width=cells)
        else:
            table.clear()
        wide = columns is COLUMNS
        for row in rows:
            seen = row.items - row.unseen
            progress = progress_bar(seen, row.items, PROGRESS_BAR) if wide else \
                Text(f"{seen / row.items if row.items else 0:.0%}")
            table.add_row(cut(row.title, title_cells), str(row.items), str(row.new), str(row.learning),
                          str(row.review), str(row.due), str(row.reviews),
                          "-" if row.retention is None else f"{row.retention:.0%}", progress, key=row.deck_id)
        # Every deck in view: the table is as tall as its rows, and the page scrolls instead.
        table.styles.height = len(rows) + 1

    def action_workload(self) -> None:
        if not self.loaded:
            return
        self.query_one("#stats-workload", Static).update("Workload: simulating a year at each retention…")
        self.run_worker(self._simulate, thread=True, name="stats-workload", exit_on_error=False, exclusive=True)

    def _simulate(self) -> None:
        sizes = {row.deck_id: row.items for row in self._decks}
        try:
            points, minimum, _ = self.app.services.workload(sizes)
        except StudyappError as error:
            self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
            return
        self.app.call_from_thread(self._simulated, points, minimum)

    def _simulated(self, points, minimum: float) -> None:
        best = min(range(len(points)), key=lambda i: abs(points[i].retention - minimum))
        middle = points[len(points) // 2]
        self.query_one("#chart-workload", BarChart).set_data(
            [round(p.minutes_per_day, 2) for p in points],
            (f"{points[0].retention:.2f}", f"{middle.retention:.2f}", f"{points[-1].retention:.2f}"),
            caption=f"most {max(p.minutes_per_day for p in points):.1f} min/day", highlight=best)
        chart = self.query_one("#chart-workload", BarChart)
        chart.display = True
        chart.scroll_visible(animate=False)
        chosen = points[best]
        self.query_one("#stats-workload", Static).update(Content.assemble(
            ("Minimum recommended retention ", "bold"), (f"{minimum:.2f}", "bold $warning"),
            f" (least work per item remembered; the marked bar): {chosen.reviews_per_day:.1f} reviews and "
            f"{chosen.minutes_per_day:.1f} minutes a day; at {points[-1].retention:.2f}: "
            f"{points[-1].reviews_per_day:.1f} reviews, {points[-1].minutes_per_day:.1f} minutes"))

    def action_leave(self) -> None:
        self.app.pop_screen()


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


SPAN_LABELS = (("day", "today"), ("week", "7d"), ("month", "30d"), ("year", "365d"))


def span_line(spans) -> Content:
    """True Retention over each span, all answers, young and mature (the same figures as
    ``stats --json``'s and the report's ``retention_by_span``), in one line at 120 columns."""

    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value * 100:.0f}"

    parts = [f"{label} {figure(spans[name].rate)}/{figure(spans[name].young)}/{figure(spans[name].mature)}"
             for name, label in SPAN_LABELS]
    return Content.assemble(("By span", "bold"), ", % all/young/mature: ", " · ".join(parts))
