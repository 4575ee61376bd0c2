"""Home: every deck with its new / learning / due counts and progress; study, quiz or cram from here."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ...core.problems import StudyappError
from .. import keymap
from ..widgets.common.footer import AppFooter
from .base import AppScreen

BAR_WIDTH = 12
NARROW_BAR_WIDTH = 8
# Below this many columns the bars shorten and the curriculum lines drop a word, so that every
# column and the footer's ? Keys fit an 80-column terminal.
WIDE_COLUMNS = 100
# (key, label, width in cells) of the deck table's number columns; the deck title takes the rest.
NUMBER_COLUMNS = (("new", "New", 3), ("learning", "Learning", 8), ("due", "Due", 3))
ITEMS_COLUMN = ("items", "Items", 5)
CELL_PADDING = 2  # a DataTable cell's padding, both sides together
SCROLLBAR = 2
TRACK_TITLE_CELLS = 32
TRACK_STYLES = {"done": "green", "behind": "red", "on track": "blue", "not started": "dim"}


COLUMNS = (("Deck", "deck"), ("New", "new"), ("Learning", "learning"), ("Due", "due"), ("Progress", "progress"),
           ("Items", "items"))


def progress_bar(seen: int, total: int, width: int = BAR_WIDTH) -> Text:
    share = seen / total if total else 0.0
    filled = round(share * width)
    bar = Text("█" * filled, style="green") + Text("░" * (width - filled), style="dim")
    return bar + Text(f" {share:4.0%}")


def cut(text: str, cells: int) -> Text:
    """``text`` in at most ``cells`` terminal cells, an ellipsis marking a cut (wide characters count two)."""
    out = Text(text)
    out.truncate(max(1, cells), overflow="ellipsis")
    return out


def count_cell(count: int | None, style: str) -> Text:
    """A count in its colour (dim when zero); "…" while it is still being counted."""
    if count is None:
        return Text("…", style="dim")
    return Text(str(count), style=style if count else "dim")


def deck_table_layout(width: int, longest_title: int) -> tuple[int, int]:
    """(deck title cells, progress bar cells) for a terminal ``width`` cells wide: every column fits."""
    bar = BAR_WIDTH if width >= WIDE_COLUMNS else NARROW_BAR_WIDTH
    progress = bar + 5  # the bar and " 100%"
    fixed = sum(cells for *_, cells in NUMBER_COLUMNS) + progress + ITEMS_COLUMN[2]
    columns = len(NUMBER_COLUMNS) + 3
    # Room is kept for the table's scrollbar, which comes when the rows outgrow the screen.
    title = width - SCROLLBAR - columns * CELL_PADDING - fixed
    return max(12, min(longest_title, title)), bar


def track_line(number: int, track: dict, width: int) -> Text:
    """One curriculum track on one line of ``width`` cells (the title is cut to fit, never wrapped)."""
    wide = width >= WIDE_COLUMNS - 2
    bar = BAR_WIDTH if wide else NARROW_BAR_WIDTH
    target = f" of {track['target']:.0%} mastered · " if wide else f" of {track['target']:.0%} · "
    status = track["status"]
    deadline = f" · by {track['deadline']}" if track["deadline"] and status != "done" else ""
    rest = 1 + bar + 5 + len(target) + len(status) + len(deadline)
    title_cells = max(8, min(TRACK_TITLE_CELLS, width - len(f" {number}. ") - rest))
    title = cut(track["title"], title_cells)
    title.pad_right(title_cells - title.cell_len)
    text = Text(f" {number}. ") + title + Text(" ") + progress_bar(track["mastered_facts"], track["facts"], bar)
    text += Text(target)
    text += Text(status, style=TRACK_STYLES.get(status, ""))
    if deadline:
        text += Text(deadline, style="dim")
    return text


class HomeScreen(AppScreen):
    BINDINGS = keymap.bindings("home")
    HELP_TITLE = "Decks"

    def __init__(self) -> None:
        super().__init__()
        self.rows: list = []
        self.tracks: list[dict] = []
        self.loaded = False
        # The table is drawn from the deck summary before today's counts are in (``loaded`` then
        # becomes true): Enter already studies the highlighted deck.
        self.drawn = False

    def compose(self) -> ComposeResult:
        yield Static(f"studyapp · decks · profile {self.app.services.location.profile}", id="home-title",
                     markup=False)
        yield Static(id="home-warnings", markup=False)
        yield Static(id="home-tracks", markup=False)
        yield Static(id="home-empty", markup=False)
        table: DataTable = DataTable(id="deck-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("Loading decks…", id="home-status", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self._layout: tuple[int, int] | None = None
        self._next_step: dict | None = None
        self.refresh_decks()

    def on_resize(self) -> None:
        if self.loaded or self.drawn:
            self._fill_table()
            self._show_tracks(self.tracks, self._next_step)

    def refresh_decks(self) -> None:
        self.run_worker(self._load, thread=True, name="home-load", group="home-load", exclusive=True,
                        exit_on_error=False)

    def _load(self) -> None:
        services = self.app.services
        try:
            # At start-up the table comes first, from the summary kept with the deck cache (a glance
            # at 100,000 cards would otherwise wait seconds for the catalog and every deck's queue).
            summary = None if self.loaded or self.drawn else services.deck_summary()
            if summary is not None and summary.decks:
                rows, warnings = services.first_rows(summary)
                self.app.call_from_thread(self._drawn_first, rows, warnings)
                # Today's counts from the store alone when it is in step with the decks; the catalog
                # (for the tracks and every other screen) loads after them.
                counted = services.counted_rows(summary, rows)
                if counted is not None:
                    self.app.call_from_thread(self._drawn_first, counted, warnings)
                    # The curriculum's tracks too, from the summary's facts and the store's mastered keys.
                    first_tracks = services.summary_tracks(summary)
                    if first_tracks is not None:
                        self.app.call_from_thread(self._tracks_first, *first_tracks)
            warnings = services.load_warnings()
            overview = services.overview()
            with services.lock:
                rows = overview.deck_progress(spans=False)  # no retention on this screen
            tracks, next_step = services.tracks(rows)
        except StudyappError as error:
            self.app.call_from_thread(self.app.fail, error.message)
            return
        self.app.call_from_thread(self._loaded, rows, warnings, tracks, next_step)

    def _loaded(self, rows: list, warnings: list[str], tracks: list[dict] | None = None,
                next_step: dict | None = None) -> None:
        self.rows = rows
        self.tracks = tracks or []
        self._next_step = next_step
        self._show_tracks(self.tracks, next_step)
        self.loaded = True
        self._fill_table()
        self._show_warnings(warnings)
        empty = self.query_one("#home-empty", Static)
        empty.display = not rows
        self.query_one("#deck-table", DataTable).display = bool(rows)
        if not rows:
            empty.update("No decks found. Add a folder of decks with --decks DIR or STUDYAPP_DECKS, "
                         "then start studyapp again.")
        self._show_status(rows)
        self.sync_bindings()
        self.call_after_refresh(self.app.first_screen_ready)

    def _show_status(self, rows: list) -> None:
        decks = f"{len(rows)} deck{'s' if len(rows) != 1 else ''}"
        if rows and rows[0].new is None:
            text = f"{decks} · counting new, learning and due cards…"
        else:
            new = sum(r.new for r in rows)
            due = sum(r.due for r in rows)
            learning = sum(r.learning for r in rows)
            text = f"{decks} · new {new} · learning {learning} · due {due}"
        self.query_one("#home-status", Static).update(text + "  ·  Enter studies the highlighted deck")

    def _drawn_first(self, rows: list, warnings: list[str]) -> None:
        """The table before the catalog: titles, items and progress, and today's counts when they could be
        worked out without it (else the status line says they are pending)."""
        if self.loaded:
            return
        self.rows = rows
        self.drawn = True
        self._fill_table()
        self._show_warnings(warnings)
        self.query_one("#home-empty", Static).display = False
        self.query_one("#deck-table", DataTable).display = True
        self._show_status(rows)
        self.sync_bindings()
        self.call_after_refresh(self.app.first_screen_ready)

    def _tracks_first(self, tracks: list[dict], next_step: dict | None) -> None:
        """The tracks before the catalog (``Services.summary_tracks``): the catalog's draw them again, the same."""
        if self.loaded:
            return
        self.tracks = tracks
        self._next_step = next_step
        self._show_tracks(tracks, next_step)

    def _show_warnings(self, warnings: list[str]) -> None:
        warning_box = self.query_one("#home-warnings", Static)
        warning_box.display = bool(warnings)
        if warnings:
            warning_box.update(Text("⚠ " + "\n⚠ ".join(warnings)))

    def _fill_table(self) -> None:
        """The deck rows, with column widths that fit the terminal (refilled when it is resized)."""
        width = self.app.size.width
        layout = deck_table_layout(width, max((cell_len(row.title) for row in self.rows), default=4))
        table = self.query_one("#deck-table", DataTable)
        selected = self.selected_deck()
        title_cells, bar = layout
        if layout != self._layout:
            self._layout = layout
            table.clear(columns=True)
            table.add_column("Deck", key="deck", width=title_cells)
            for key, label, cells in NUMBER_COLUMNS:
                table.add_column(label, key=key, width=cells)
            table.add_column("Progress", key="progress", width=bar + 5)
            table.add_column(ITEMS_COLUMN[1], key=ITEMS_COLUMN[0], width=ITEMS_COLUMN[2])
        else:
            table.clear()
        for row in self.rows:
            seen = row.items - row.unseen
            table.add_row(
                cut(row.title, title_cells),
                count_cell(row.new, "blue"),
                count_cell(row.learning, "red"),
                count_cell(row.due, "green"),
                progress_bar(seen, row.items, bar),
                Text(str(row.items)),
                key=row.deck_id,
            )
        if selected is not None and selected in {row.deck_id for row in self.rows}:
            table.move_cursor(row=table.get_row_index(selected))

    def _show_tracks(self, tracks: list[dict], next_step: dict | None) -> None:
        box = self.query_one("#home-tracks", Static)
        box.display = bool(tracks)
        if not tracks:
            return
        width = self.app.size.width - 2  # the box's padding
        text = Text("Curriculum\n", style="bold")
        for number, track in enumerate(tracks, 1):
            text += track_line(number, track, width)
            text += Text("\n")
        if next_step:
            text += Text(" Next: ", style="bold") + Text(next_step["title"])
        box.update(text)

    def selected_deck(self) -> str | None:
        table = self.query_one("#deck-table", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key
        except Exception:  # the cursor is outside the rows (e.g. while the table is being refilled)
            return None
        return key.value

    # ------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):
            return False
        if action in ("study", "quiz", "cram"):
            return (self.loaded or self.drawn) and bool(self.rows)
        if action in ("study_all", "browse", "stats", "settings"):
            return self.loaded
        return True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_study()

    def action_study(self, deck_id: str | None = None) -> None:
        from .review import ReviewScreen

        deck_id = deck_id or self.selected_deck()
        if deck_id:
            self.app.push_screen(ReviewScreen((deck_id,)))

    def action_study_all(self) -> None:
        from .review import ReviewScreen

        self.app.push_screen(ReviewScreen(()))

    def action_quiz(self, deck_id: str | None = None) -> None:
        from .quiz import QuizScreen

        deck_id = deck_id or self.selected_deck()
        if deck_id:
            self.app.push_screen(QuizScreen((deck_id,)))

    def action_cram(self, deck_id: str | None = None) -> None:
        from .review import ReviewScreen

        deck_id = deck_id or self.selected_deck()
        if deck_id:
            self.app.push_screen(ReviewScreen((deck_id,), cram=True))

    def action_browse(self) -> None:
        from .browse import BrowseScreen

        self.app.push_screen(BrowseScreen())

    def action_stats(self) -> None:
        from .stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_settings(self) -> None:
        from .settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.refresh_decks()
