"""Browse: search cards by text, tag, deck and state; a card's detail and review history;
suspend and unsuspend; jump to the source."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Input, Static

from ...core.problems import StudyappError
from .. import browse_query, keymap
from ..widgets.cards import render
from ..widgets.common.footer import AppFooter
from .base import AppScreen

# The list's columns: the question takes what the others leave. State fits "suspended"; Due a
# date, month and day only below WIDE_COLUMNS, where the year would take the question's room.
WIDE_COLUMNS = 100
STATE_CELLS = 9
DATE_CELLS, SHORT_DATE_CELLS = 10, 5
DECK_CELLS, SHORT_DECK_CELLS = 12, 10
MIN_QUESTION_CELLS = 12
DETAIL_LABEL_CELLS = 10  # "Question  ", the detail pane's labels
CELL_PADDING = 2
SCROLLBAR = 2
MAX_ROWS = 1000  # a DataTable of 100,000 rows is slow to fill and nobody scrolls it: refine the search
RATING_NAMES = {0: "reset", 1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}


def list_layout(screen_width: int, list_width: int) -> dict[str, int]:
    """Cells of each column of the item list, ``list_width`` cells wide in a ``screen_width`` terminal.

    The question column takes what the list's scrollbar, the padding of four columns and the
    other columns leave.
    """
    wide = screen_width >= WIDE_COLUMNS
    deck = DECK_CELLS if wide else SHORT_DECK_CELLS
    due = DATE_CELLS if wide else SHORT_DATE_CELLS
    question = list_width - SCROLLBAR - 4 * CELL_PADDING - deck - STATE_CELLS - due
    return {"question": max(MIN_QUESTION_CELLS, question), "deck": deck, "state": STATE_CELLS, "due": due}


def break_id(key: str, width: int) -> str:
    """An item id on as few lines as fit ``width``, broken only after a "/" (never inside a part)."""
    lines = [""]
    for part in key.split("/"):
        piece = part if not lines[-1] else "/" + part
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines[-1] += "/"
            lines.append(part)
        else:
            lines[-1] += piece
    return "\n".join(lines)


def interval_text(interval: int) -> str:
    if interval > 0:
        return f"{interval}d"
    if interval < 0:
        seconds = -interval
        return f"{seconds // 60}m" if seconds >= 60 else f"{seconds}s"
    return "-"


class BrowseScreen(AppScreen):
    BINDINGS = keymap.bindings("browse")
    HELP_TITLE = "Browse"
    # The list has the keys; the search box takes focus only when asked (/).
    AUTO_FOCUS = "#browse-table"

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.query_text = query
        self.entries: list = []  # (Item, ItemRow, searchable text)
        self.today = 0
        self.end_of_today = 0
        self.shown_keys: list[str] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static("Browse", id="browse-title", markup=False)
        yield Input(self.query_text, placeholder="Search: words  tag:NAME  deck:ID  is:due|new|learning|suspended|leech"
                    "|flagged  type:cloze  -word", id="browse-search")
        with Horizontal(id="browse-main"):
            yield DataTable(id="browse-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="browse-detail"):
                yield Static(id="browse-card", markup=False)
                yield Static(id="browse-history", markup=False)
        yield Static("Loading…", id="browse-status", classes="status", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self._layout: dict[str, int] | None = None
        self._detail_width = 0  # the width the detail was last wrapped to
        self._set_columns()
        self.query_one("#browse-table", DataTable).focus()
        self.reload()

    def _set_columns(self) -> bool:
        """Columns sized to the terminal; True when they changed (the rows must be added again)."""
        table = self.query_one("#browse-table", DataTable)
        # Before the first layout the list has no width yet: two thirds of the screen, as app.tcss has it.
        layout = list_layout(self.app.size.width, table.size.width or self.app.size.width * 2 // 3)
        if layout == self._layout:
            return False
        self._layout = layout
        table.clear(columns=True)
        for label, key in (("Question", "question"), ("Deck", "deck"), ("State", "state"), ("Due", "due")):
            table.add_column(label, key=key, width=layout[key])
        return True

    def on_resize(self) -> None:
        # After the layout that the resize starts: the list's new width is known then.
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        card_width = self.query_one("#browse-card", Static).content_region.width
        if self.loaded and card_width != self._detail_width and self.selected_key():
            self._show_detail(self.selected_key())
        if self._set_columns() and self.loaded:
            cursor = self.query_one("#browse-table", DataTable).cursor_row
            self._search(self.query_one("#browse-search", Input).value)
            table = self.query_one("#browse-table", DataTable)
            if table.row_count:
                table.move_cursor(row=min(cursor, table.row_count - 1))

    def reload(self) -> None:
        self.run_worker(self._load, thread=True, name="browse-load", group="browse-load", exclusive=True,
                        exit_on_error=False)

    def _load(self) -> None:
        services = self.app.services
        try:
            overview = services.overview()
            with services.lock:
                rows = {row.key: row for row in overview.store.all_items()}
                days = overview.scheduler.days
                today = days.day_of(services.clock.now_ms())
                end = days.end_ms(today)
            entries = []
            for deck in overview.decks:
                for item in deck.items():
                    row = rows.get(item.key)
                    if row is not None:
                        entries.append((item, row, browse_query.item_text(item)))
        except StudyappError as error:
            self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
            return
        self.app.call_from_thread(self._loaded, entries, today, end, days.zone)

    def _loaded(self, entries: list, today: int, end: int, zone) -> None:
        self.entries, self.today, self.end_of_today, self.zone = entries, today, end, zone
        self.loaded = True
        self._search(self.query_one("#browse-search", Input).value)

    # ------------------------------------------------------------ searching

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._search(event.value)
        self.query_one("#browse-table", DataTable).focus()

    def _search(self, text: str) -> None:
        query = browse_query.parse(text)
        found = [(item, row) for item, row, searchable in self.entries
                 if browse_query.matches(query, item, searchable,
                                         browse_query.item_states(row, self.today, self.end_of_today))]
        table = self.query_one("#browse-table", DataTable)
        table.clear()
        self.shown_keys = []
        for item, row in found[:MAX_ROWS]:
            states = browse_query.item_states(row, self.today, self.end_of_today)
            state = "suspended" if row.suspended else "buried" if "buried" in states else row.state.state
            layout = self._layout
            question = Text(render.question(item.card, item.variant).plain.replace("\n", " "))
            # Cells, not characters: a Chinese question is twice as wide as its length.
            question.truncate(layout["question"], overflow="ellipsis")
            deck = Text(item.deck_id)
            deck.truncate(layout["deck"], overflow="ellipsis")
            due = self._date(row.state.due_ms, short=layout["due"] < DATE_CELLS) if not row.state.is_new else "-"
            table.add_row(question, deck, Text(state), Text(due), key=item.key)
            self.shown_keys.append(item.key)
        more = f" (showing the first {MAX_ROWS}; narrow the search)" if len(found) > MAX_ROWS else ""
        problems = "  ·  " + "; ".join(query.problems) if query.problems else ""
        self.query_one("#browse-status", Static).update(
            f"{len(found)} of {len(self.entries)} items match{more}{problems}")
        if self.shown_keys:
            self._show_detail(self.shown_keys[0])
        else:
            self.query_one("#browse-card", Static).update("No card matches the search.")
            self.query_one("#browse-history", Static).update("")
        self.sync_bindings()

    def _date(self, ms: int | None, *, short: bool = False) -> str:
        if ms is None:
            return "-"
        return datetime.fromtimestamp(ms / 1000, self.zone).strftime("%m-%d" if short else "%Y-%m-%d")

    # ------------------------------------------------------------ the detail pane

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value:
            self._show_detail(event.row_key.value)

    def selected_key(self) -> str | None:
        table = self.query_one("#browse-table", DataTable)
        if not table.row_count:
            return None
        try:
            return table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        except Exception:
            return None

    def _show_detail(self, key: str) -> None:
        services = self.app.services
        try:
            with services.lock:
                info = services.overview().item_info(key)
        except StudyappError as error:
            self.query_one("#browse-card", Static).update(render.plain(error.message))
            return
        item, row = info.item, info.row
        lines: list[Content] = []
        if item is not None:
            card = item.card
            lines += [Content.assemble(("Question  ", "bold"), render.question(card, item.variant)),
                      Content.assemble(("Answer    ", "bold"), render.answer(card, item.variant))]
            variant = "" if item.variant == "main" else f" ({item.variant})"
            lines.append(Content.assemble(("Type      ", "bold"), f"{card.type}{variant}"))
            if card.choices:
                lines.append(Content.assemble(("Options   ", "bold"), render.plain(" | ".join(card.choices))))
            if card.tags:
                lines.append(Content.assemble(("Tags      ", "bold"), render.plain(", ".join(card.tags))))
            lines.append(Content.assemble(("Source    ", "bold"), render.plain(" … ".join(card.source), render.MUTED)))
        state = row.state
        status = [state.state]
        if row.suspended:
            status.append("suspended")
        if state.leech:
            status.append("leech")
        lines.append(Content.assemble(("State     ", "bold"), ", ".join(status)))
        if not state.is_new:
            recall = f"{info.retrievability:.0%}" if info.retrievability is not None else "-"
            lines.append(Content.assemble(("Due       ", "bold"), self._date(state.due_ms),
                                          f"   reviews {state.reps} · lapses {state.lapses} · recall now {recall}"))
        if row.flag_note is not None:
            lines.append(Content.assemble(("Flag      ", "bold"), render.plain(row.flag_note or "(no note)"),
                                          render.plain("  (f unflags)", render.MUTED)))
        card_box = self.query_one("#browse-card", Static)
        width = card_box.content_region.width or None
        self._detail_width = card_box.content_region.width
        # Each value wraps under itself, beside its label, not under the label.
        lines = [render.hanging(line, DETAIL_LABEL_CELLS, width) for line in lines]
        lines.append(render.plain(break_id(key, width or len(key)), render.MUTED))
        card_box.update(Content("\n").join(lines))
        history = [Content.assemble(("History", "bold $accent"))]
        if not info.history:
            history.append(render.plain("not reviewed yet", render.MUTED))
        for entry in info.history:
            stamp = datetime.fromtimestamp(entry.time_ms / 1000, self.zone).strftime("%Y-%m-%d %H:%M")
            kind = "" if entry.kind == "review" else f" ({entry.kind})"
            history.append(render.plain(f"{stamp}  {RATING_NAMES.get(entry.rating, entry.rating):<5}  "
                                        f"{entry.state_before} → {entry.state_after}  next {interval_text(entry.interval)}"
                                        f"{kind}"))
        self.query_one("#browse-history", Static).update(Content("\n").join(history))

    # ------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):
            return False
        if action in ("toggle_suspend", "source", "coverage", "toggle_flag"):
            return self.loaded and self.selected_key() is not None and not self.query_one("#browse-search").has_focus
        return True

    def on_descendant_focus(self) -> None:
        self.sync_bindings()

    def action_search(self) -> None:
        self.query_one("#browse-search", Input).focus()

    def action_toggle_suspend(self) -> None:
        key = self.selected_key()
        if key is None:
            return
        services = self.app.services
        try:
            with services.lock:
                overview = services.overview()
                row = overview.store.item(key)
                if row is None:
                    return
                if row.suspended:
                    overview.unsuspend(key)
                else:
                    overview.store.set_status(row.id, suspended=True)
                updated = overview.store.item(key)
        except StudyappError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self.entries = [(item, updated if item.key == key else r, text) for item, r, text in self.entries]
        self.notify("Unsuspended." if row.suspended else "Suspended.", timeout=2)
        self._refresh_keeping_cursor(key)

    def action_toggle_flag(self) -> None:
        """Unflag a flagged card at once (its note is shown in the detail pane); otherwise ask for a note."""
        from ..modals.flag_note import FlagNoteModal

        key = self.selected_key()
        row = next((r for item, r, _ in self.entries if item.key == key), None)
        if key is None or row is None:
            return
        if row.flag_note is not None:
            self._set_flag(key, "")
            return
        label = " / ".join(key.split("/")[:2])

        def flagged(note: str | None) -> None:
            if note:
                self._set_flag(key, note)

        self.app.push_screen(FlagNoteModal(label), flagged)

    def _set_flag(self, key: str, note: str) -> None:
        """Flag ``key`` with ``note``; an empty note unflags it."""
        services = self.app.services
        try:
            with services.lock:
                overview = services.overview()
                overview.flag(note, key=key)
                updated = overview.store.item(key)
        except StudyappError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self.entries = [(item, updated if item.key == key else r, text) for item, r, text in self.entries]
        self.notify(f"Flagged {key}." if note else f"Unflagged {key}.", timeout=3, markup=False)
        self._refresh_keeping_cursor(key)

    def _refresh_keeping_cursor(self, key: str) -> None:
        table = self.query_one("#browse-table", DataTable)
        cursor = table.cursor_row
        self._search(self.query_one("#browse-search", Input).value)
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
            self._show_detail(self.selected_key() or key)

    def action_source(self) -> None:
        from ...core.sourcetext import is_markdown
        from ..modals.source import SourceModal

        key = self.selected_key()
        services = self.app.services
        entry = next(((item, row) for item, row, _ in self.entries if item.key == key), None)
        catalog = services.loaded_catalog
        if entry is None or catalog is None:
            return
        item = entry[0]
        deck = catalog.deck(item.deck_id)
        if deck is None:
            return
        quotes = item.card.source

        def read() -> None:
            # In a worker: a slow or hostile file never holds the UI (F4).
            try:
                text = services.seed_text(deck)
            except StudyappError as error:
                self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
                return
            self.app.call_from_thread(self.app.push_screen, SourceModal(
                deck.title, text, quotes, markdown=is_markdown(deck.seed_path)))

        self.run_worker(read, thread=True, group="source", exclusive=True)

    def action_coverage(self) -> None:
        from ..modals.coverage import CoverageModal

        key = self.selected_key()
        catalog = self.app.services.loaded_catalog
        item = next((item for item, _, _ in self.entries if item.key == key), None)
        deck = catalog.deck(item.deck_id) if item is not None and catalog is not None else None
        if deck is None:
            return
        if deck.seed_path is None:
            self.notify(f"deck {deck.id} names no source document, so there is no coverage to show", markup=False)
            return

        def measure() -> None:
            # In a worker, like the source viewer: the seed is read bounded, regular files only (F4).
            from ...authoring.coverage import coverage_of

            coverage = coverage_of([deck])[0]
            if not coverage.statements and deck.seed_path is not None:
                self.app.call_from_thread(self.notify, f"the source document of {deck.id} cannot be read or has "
                                          "no statements", severity="error", markup=False)
                return
            self.app.call_from_thread(self.app.push_screen, CoverageModal(deck.title, coverage))

        self.run_worker(measure, thread=True, group="coverage", exclusive=True)

    def action_leave(self) -> None:
        search = self.query_one("#browse-search", Input)
        if search.has_focus:
            self.query_one("#browse-table", DataTable).focus()
            return
        self.app.pop_screen()
