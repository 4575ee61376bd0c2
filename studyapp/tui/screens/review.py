"""Review (``studyapp study``): Anki's loop. Reveal, grade 1-4 with the interval on each button,
undo, bury, suspend, flag, the source passage, the explanation; a summary at the end."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Input, Static

from ...core.grades import AGAIN, GOOD
from ...core.models import Card, Item
from ...core.problems import StudyappError
from .. import keymap
from ..timefmt import when
from ..widgets.cards import render
from ..widgets.review.card_view import CardView, Face
from ..widgets.review.grade_bar import NAMES as GRADE_LABELS, GradeBar
from ..widgets.common.footer import AppFooter
from .base import AppScreen

if TYPE_CHECKING:
    from ...core.matching import MatchResult

TYPABLE = ("basic", "reverse", "cloze")
# What custom study offers from the nothing-due screen (Anki's dialog asks; these are its usual picks).
MORE_NEW = 10
AHEAD_DAYS = 7
FORGOTTEN_DAYS = 1
GRADE_NAMES = {1: "again", 2: "hard", 3: "good", 4: "easy"}
# From the first card's frame to working out the study days ahead (ReviewSession.keep_study_days).
STUDY_DAYS_AFTER_S = 0.1
# Another process holding the database's write lock (F10): how long a grade waits on the UI thread
# before it is handed to a worker, how long each of the worker's tries waits, and when it gives up.
FIRST_TRY_MS = 250
RETRY_MS = 250
RETRY_PAUSES_S = (0.1, 0.2, 0.5, 1.0)
GIVE_UP_S = 600
SAVING = "Saving your answer… (the progress file is busy: another studyapp is writing to it)"


def typed_check(given: str, item: Item) -> MatchResult:
    """Check a typed answer with the quiz core; a cloze item is checked against its own deletion only
    (in any of the card's languages)."""
    # Imported when an answer is first typed: its patterns cost start-up time that most cards never use.
    from ...core.matching import check_typed

    return check_typed(given, item.card, item.variant)


class ReviewScreen(AppScreen):
    BINDINGS = keymap.bindings("review")
    HELP_TITLE = "Review"

    def __init__(self, deck_ids: Sequence[str] = (), *, cram: bool = False, standalone: bool = False,
                 opened: tuple | None = None, opening_elsewhere: bool = False) -> None:
        """``opened``: the session and its first item (``open_session``), opened before the screen was
        built; ``opening_elsewhere``: they are being opened, and come to ``_opened`` when they are."""
        super().__init__()
        self._opened_before = opened
        self._opening_elsewhere = opening_elsewhere
        self._mounted = False
        self.deck_ids = tuple(deck_ids)
        self.cram = cram
        self.standalone = standalone
        self.session = None
        self.shown = None
        # What each undo level took back, newest last, as the session's own undo stack grows:
        # (kind, description) with kind "answer" | "bury" | "suspend" | "flag".
        self._done: list[tuple[str, str]] = []
        self.answered = 0  # answers given in this session, less the undone ones: the progress line
        # A grade waiting for the write lock: (rating, duration, shown, given at); None when all is saved.
        self.pending = None
        self._leave_when_saved = False
        self._stop_waiting = threading.Event()  # the app is closing at once: the worker stops retrying
        self._parts: dict[str, Widget] = {}  # the composed widgets by id: every card and key looks them up
        self._reset_face()

    def _reset_face(self) -> None:
        self.revealed = False
        self.chosen: int | None = None
        self.typed: str | None = None
        self.check: MatchResult | None = None
        self.proposed: int | None = None
        self.explanation = False

    def compose(self) -> ComposeResult:
        yield Static("Opening your progress…", id="review-title", markup=False)
        yield CardView(id="card-view")
        yield Static(id="review-empty", markup=False)
        yield Input(placeholder="Type the answer, then Enter (Escape: back)", id="review-typed")
        yield Static("", id="reveal-hint", markup=False)
        yield GradeBar(id="grade-bar", markup=False)
        yield Static("", id="review-saving", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self._part("#card-view").display = False
        self._part("#review-empty").display = False
        self._part("#review-saving").display = False
        self._mounted = True
        if self._opened_before is not None:
            session, shown = self._opened_before
            self._opened_before = None
            self._opened(session, shown)
        elif not self._opening_elsewhere:
            self.run_worker(self._open, thread=True, name="review-open", exit_on_error=False)

    def take_opened(self, session, shown) -> None:
        """The session opened elsewhere (``opening_elsewhere``): shown now, or when the screen mounts,
        if it was pushed but has not mounted yet (mounting hides the card's parts)."""
        if self._mounted:
            self._opened(session, shown)
        else:
            self._opened_before = (session, shown)

    # ------------------------------------------------------------ opening (worker thread)

    @staticmethod
    def open_session(services, deck_ids: Sequence[str], cram: bool) -> tuple:
        """(the session, its first item): what the screen shows first. In a worker thread."""
        # The study days ahead once the first card is out (_first_card_out): it waited some
        # milliseconds for them, and its own previews need only a few.
        session = services.session(deck_ids, cram=cram, study_days_later=True)
        with services.lock:
            shown = session.next()
        return session, shown

    def _open(self) -> None:
        services = self.app.services
        try:
            session, shown = self.open_session(services, self.deck_ids, self.cram)
        except StudyappError as error:
            self.app.call_from_thread(self.app.fail_with, error)
            return
        self.app.call_from_thread(self._opened, session, shown)

    def _opened(self, session, shown) -> None:
        self.session = session
        self._show(shown)
        self.call_after_refresh(self._first_card_out)

    def _first_card_out(self) -> None:
        self.app.first_screen_ready()
        # Not at once: Textual's output thread is still writing the card's frame, and needs the
        # interpreter lock that working the days out holds (as the cycle collector's first pass did).
        self.set_timer(STUDY_DAYS_AFTER_S, lambda: self.run_worker(
            self._keep_study_days, thread=True, name="review-days", exit_on_error=False))

    def _keep_study_days(self) -> None:
        with self.services.lock:
            self.session.keep_study_days()

    # ------------------------------------------------------------ drawing

    def _part(self, selector: str):
        """The widget composed with this id (found once: looking it up was a good part of a card's time)."""
        widget = self._parts.get(selector)
        if widget is None:
            widget = self._parts[selector] = self.query_one(selector)
        return widget

    @property
    def services(self):
        return self.app.services

    def _deck_label(self) -> str:
        if self.session is None:
            return ""
        decks = self.session.decks
        return decks[0].title if len(decks) == 1 else f"{len(decks)} decks"

    def _show(self, shown) -> None:
        """Show a new item (or the end of the queue)."""
        self.shown = shown
        self._reset_face()
        if shown is None:
            self._show_nothing_due()
            return
        self._draw(new_card=True)

    def _show_nothing_due(self) -> None:
        assert self.session is not None
        summary = self.session.summary()
        if summary.reviewed:
            self._finish()
            return
        self._part("#card-view").display = False
        self._part("#grade-bar").display = False
        self._part("#reveal-hint").display = False
        self._part("#review-title").update(f"{'Cram' if self.cram else 'Review'} · {self._deck_label()}")
        now = self.services.clock.now_ms()
        zone = self.session.scheduler.days.zone
        if self.cram:
            text = "Nothing to cram here: every item is suspended, or the decks are empty."
        elif self.session.custom is not None:
            text = "Nothing left in this custom study session."
        else:
            text = (f"Nothing is due in {self._deck_label()} now.\n"
                    f"The next item is due {when(summary.next_due_ms, now, zone)}.")
            with self.services.lock:
                limits = self.session.limits_reached()
            text += "".join(f"\n{self._limit_line(limit)}" for limit in limits)
            text += (f"\n\nCustom study (the limits stay as set): {self._key('review.more-new')}  {MORE_NEW} more new "
                     f"cards today  ·  {self._key('review.ahead')}  review ahead (cards due in the next {AHEAD_DAYS} "
                     f"days)  ·  {self._key('review.forgotten')}  review forgotten cards (Again in the last day)")
        empty = self.query_one("#review-empty", Static)
        empty.update(text + "\n\nPress q to go back.")
        empty.display = True
        self.sync_bindings()

    def _limit_line(self, limit) -> str:
        kind = "new-card" if limit.kind == "new" else "review"
        items = "new items" if limit.kind == "new" else "reviews"
        if limit.deck_id is None:
            return (f"Today's {kind} limit across these decks ({limit.limit}, Settings) holds back {limit.waiting} "
                    f"{items}.")
        title = next((d.title for d in self.session.decks if d.id == limit.deck_id), limit.deck_id)
        preset = self.session.preset_for(limit.deck_id).name
        return (f"Today's {kind} limit of {title} ({limit.limit}, preset {preset}) holds back {limit.waiting} "
                f"{items}.")

    def _draw(self, *, new_card: bool = False) -> None:
        shown = self.shown
        assert shown is not None and self.session is not None
        counts = shown.counts
        if self.cram:
            title = f"Cram · {self._deck_label()} · {counts.total} left · the schedule is not changed"
        else:
            # "3 of 25": this card's place among the answers given and the cards still waiting
            # (the counts include the card on screen). Learning cards that come back today add to it.
            title = (f"Review · {self._deck_label()} · {self.answered + 1} of {self.answered + counts.total} · "
                     f"new {counts.new} · learning {counts.learning} · due {counts.review}")
        self._part("#review-title").update(title)
        view = self._part("#card-view")
        view.display = True
        self._part("#review-empty").display = False
        if shown.item is None:
            # The store knows the item but its card left the deck since this session began.
            self._part("#reveal-hint").update(f"{shown.key} is no longer in its deck; press - to bury it.")
            return
        queue = shown.queue
        if shown.ahead:
            # Anki's learn-ahead: nothing else is left, so a learning card comes before its step is over.
            minutes = max(1, round(((shown.state.due_ms or shown.shown_ms) - shown.shown_ms) / 60_000))
            queue = f"learning · early: due in {minutes}m (learn-ahead)"
        view.show(Face(shown.item, queue, self.revealed, self.chosen, self.typed, self.check,
                       self.explanation, shown.flag_note, shown.choices), new_card=new_card)
        hint = self._part("#reveal-hint")
        bar = self._part("#grade-bar")
        hint.display = not self.revealed
        bar.display = self.revealed
        if not self.revealed:
            card = shown.item.card
            extra = ""
            if card.type == "truefalse":
                extra = f"  ·  or {self._key('review.grade-again')} True, {self._key('review.grade-hard')} False"
            elif shown.choices.options:
                extra = "  ·  or pick an option by its number"
            elif card.type in TYPABLE:
                extra = f"  ·  {self._key('review.type-answer')}: type the answer"
            hint.update(f"Space: show the answer{extra}")
        else:
            labels = {rating: preview.label for rating, preview in shown.previews.items()}
            prefix = "review.pick-" if self.chosen is not None else "review.grade-"
            keys = {rating: self._key(prefix + name) for rating, name in GRADE_NAMES.items()}
            bar.show(labels, self.proposed, would_be=self.cram, keys=keys)
        self.sync_bindings()

    def _key(self, binding_id: str) -> str:
        """The first key of a binding as the learner has mapped it, as the footer shows keys."""
        from textual.binding import Binding

        keys = self.app.config.keys.get(binding_id) or keymap.BY_ID[binding_id].keys  # the learner's [keys]
        return self.app.get_key_display(Binding(keys.split(",")[0].strip(), ""))

    # ------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys the footer offers. Kept the same from card to card (a changing footer is
        redrawn, which costs more than drawing the card); keys that do not apply to the card
        on screen are ignored by their action instead."""
        if not super().check_action(action, parameters):
            return False
        typing = self._typing()
        if action == "leave":
            return not typing  # Escape closes the answer box first; the footer says so
        if action == "close_typing":
            return typing
        if action == "type_answer":
            # Only where typing works, so the footer never offers what a card refuses.
            card = self._card()
            return card is not None and card.type in TYPABLE and not self.revealed and not typing
        if action == "undo":
            return self.session is not None
        if action in ("more_new", "review_ahead", "review_forgotten"):
            return (self.session is not None and self.shown is None and not self.cram
                    and self.session.custom is None)
        if action == "bury":
            return self.shown is not None
        return self.shown is not None and self.shown.item is not None

    def _typing(self) -> bool:
        return self._part("#review-typed").display

    def _card(self) -> Card | None:
        shown = self.shown
        return shown.item.card if shown is not None and shown.item is not None else None

    def action_reveal(self) -> None:
        if self._typing():
            return
        if not self.revealed:
            self._reveal()
        else:
            self._answer(self.proposed or GOOD)

    def action_grade(self, rating: int) -> None:
        if self._typing():
            return
        if not self.revealed:
            self.action_choose(int(rating))
        elif self.chosen is None:
            self._answer(int(rating))
        # After a pick the number keys were the options': the grade bar shows its own keys.

    def action_bar_grade(self, rating: int) -> None:
        """The grade keys after an option was picked (z x c v unless remapped)."""
        if self.revealed and not self._typing() and self.chosen is not None:
            self._answer(int(rating))

    def action_choose(self, number: int) -> None:
        assert self.shown is not None and self.shown.item is not None
        choices = self.shown.choices
        if self.revealed or not 1 <= int(number) <= len(choices.options):
            return
        self.chosen = int(number) - 1
        self.proposed = GOOD if self.chosen == choices.correct else AGAIN
        self._reveal()

    def action_type_answer(self) -> None:
        card = self._card()
        if card is None or self.revealed or self._typing():
            return
        if card.type not in TYPABLE:
            self.notify("Pick an option by its number instead." if self.shown and self.shown.choices.options
                        else "This card has no answer to type.", timeout=3)
            return
        typed = self._part("#review-typed")
        typed.value = ""
        typed.display = True
        # The hint below was about the closed box; the box's placeholder says what to do now.
        self._part("#reveal-hint").display = False
        typed.focus()
        self.sync_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.shown is None or self.shown.item is None or self.revealed:
            return
        if not event.value.strip():
            # An empty box is a slip of the Enter key, not a wrong answer.
            hint = self._part("#reveal-hint")
            hint.update("Type an answer first, then Enter  ·  Escape closes the box")
            hint.display = True
            return
        self.typed = event.value
        self.check = typed_check(event.value, self.shown.item)
        self.proposed = self.check.proposed_rating
        self._close_typing()
        self._reveal()

    def _close_typing(self) -> None:
        typed = self._part("#review-typed")
        typed.display = False
        self._part("#card-view").focus()

    def action_close_typing(self) -> None:
        self._close_typing()
        self._draw()

    def _reveal(self) -> None:
        self.revealed = True
        self._draw()

    def _answer(self, rating: int) -> None:
        if self._still_saving():
            return
        shown, session = self.shown, self.session
        assert shown is not None and session is not None
        now = self.services.clock.now_ms()
        duration = max(0, now - shown.shown_ms)
        try:
            # A short wait here: another studyapp's write lock must not freeze the screen (F10).
            # The commit returns before its fsync, which runs while the next card is drawn.
            with self.services.lock:
                store = self.services.store()
                with store.busy_timeout(FIRST_TRY_MS), store.sync_later():
                    session.answer(rating, duration_ms=duration, at_ms=now)
        except StudyappError as error:
            if error.code == "busy":
                self.pending = (rating, duration, shown, now)
                self._saving_line(SAVING)
                self.notify(SAVING, timeout=5, markup=False)
                self.run_worker(self._save_when_free, thread=True, name="answer-save", group="answer-save",
                                exit_on_error=False)
                return
            self.notify(error.message, severity="error", markup=False, timeout=10)
            return
        self.services.committed_unsynced(store)
        self._answered(rating, shown)
        # The fsync once the next card is on screen: the learner reads it meanwhile.
        self.call_after_refresh(self._sync_answer)

    def _sync_answer(self) -> None:
        try:
            with self.services.lock:
                self.services.sync_answers()
        except OSError as error:
            self.notify(f"Your last answer may not survive a power cut: the disk refused to flush it ({error}).",
                        severity="error", markup=False, timeout=15)

    def _answered(self, rating: int, shown) -> None:
        """The answer is stored: count it and show the next item."""
        self._done.append(("answer", f"{GRADE_LABELS[rating]} on {self._card_name(shown)}"))
        self.app.answers_saved += 1
        self.answered += 1
        self.services.forget_overview()
        try:
            with self.services.lock:
                following = self.session.next()
        except StudyappError as error:
            self.notify(error.message, severity="error", markup=False, timeout=10)
            return
        self._show(following)

    def _save_when_free(self) -> None:
        """In a worker: give the pending answer again until the other process lets go of the lock.

        Between tries the services lock is free, so the screen (and its other keys) never waits."""
        rating, duration, shown, given_ms = self.pending
        started = time.monotonic()
        tries = 0
        while True:
            try:
                with self.services.lock, self.services.store().busy_timeout(RETRY_MS):
                    self.session.answer(rating, duration_ms=duration, at_ms=given_ms)
            except StudyappError as error:
                gave_up = time.monotonic() - started > GIVE_UP_S or self._stop_waiting.is_set()
                if error.code != "busy" or gave_up:
                    self.app.call_from_thread(self._not_saved, error)
                    return
                self._stop_waiting.wait(RETRY_PAUSES_S[min(tries, len(RETRY_PAUSES_S) - 1)])
                tries += 1
                continue
            self.app.call_from_thread(self._saved_late, rating, shown)
            return

    def _saved_late(self, rating: int, shown) -> None:
        self.pending = None
        self._saving_line("")
        self.notify("Saved: the progress file is free again.", timeout=3, markup=False)
        self._answered(rating, shown)
        self._settled()

    def _not_saved(self, error: StudyappError) -> None:
        self.pending = None
        self._saving_line("")
        # The card stays on screen, so the learner can grade it again.
        self.notify(f"Your answer was not saved: {error.message}. Grade the card again.", severity="error",
                    markup=False, timeout=15)
        self._settled()

    def _settled(self) -> None:
        if self.app.quit_when_saved:
            self.app.quit_now()
        elif self._leave_when_saved:
            self._leave_when_saved = False
            self.action_leave()

    def _saving_line(self, text: str) -> None:
        line = self._part("#review-saving")
        line.update(text)
        line.display = bool(text)

    def _still_saving(self) -> bool:
        """While an answer waits for the lock, nothing else may change the progress: say so."""
        if self.pending is None:
            return False
        self.notify(SAVING, timeout=3, markup=False)
        return True

    @staticmethod
    def _card_name(shown) -> str:
        return f"{shown.item.deck_id} / {shown.item.card.id}" if shown.item is not None else shown.key

    def action_undo(self) -> None:
        assert self.session is not None
        if self._still_saving():
            return
        if not self.session.can_undo():
            self.notify("Nothing to undo: this is the start of the session.", timeout=3)
            return
        try:
            with self.services.lock:
                again = self.session.undo()
                if again is None:
                    again = self.session.next()
        except StudyappError as error:
            self.notify(error.message, severity="warning", markup=False)
            return
        self.services.forget_overview()
        kind, what = self._done.pop() if self._done else ("", "the last action")
        if kind == "answer":
            self.app.answers_saved -= 1
            self.answered -= 1
        self.notify(f"Undone: {what}.", timeout=3, markup=False)
        self._show(again)

    def _hide(self, how: str) -> None:
        if self._still_saving():
            return
        assert self.session is not None
        hidden = self.shown
        try:
            with self.services.lock:
                getattr(self.session, how)()
                following = self.session.next()
        except StudyappError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self._done.append((how, f"{'bury' if how == 'bury' else 'suspend'} of {self._card_name(hidden)}"))
        self.services.forget_overview()
        self.notify("Buried until tomorrow; u undoes." if how == "bury" else "Suspended; u undoes.", timeout=3)
        self._show(following)

    def action_bury(self) -> None:
        if self.shown is not None and not self._typing():
            self._hide("bury")

    def action_suspend(self) -> None:
        if self._card() is not None and not self._typing():
            self._hide("suspend")

    def action_flag(self) -> None:
        from ..modals.flag_note import FlagNoteModal

        if self._still_saving():
            return
        shown = self.shown
        assert shown is not None and shown.item is not None

        def flagged(note: str | None) -> None:
            if note is None or self.session is None:
                return
            try:
                with self.services.lock:
                    self.session.flag(note)
                    self.shown = self.session.next()
            except StudyappError as error:
                self.notify(error.message, severity="error", markup=False)
                return
            self._done.append(("flag", f"{'flag' if note else 'flag cleared'} on {self._card_name(shown)}"))
            self.notify("Flagged; u undoes." if note else "Flag cleared.", timeout=3)
            self._draw()

        self.app.push_screen(FlagNoteModal(f"{shown.item.deck_id} / {shown.item.card.id}", shown.flag_note or ""),
                             flagged)

    def action_source(self) -> None:
        from ...core.sourcetext import is_markdown
        from ..modals.source import SourceModal

        shown = self.shown
        assert shown is not None and shown.item is not None
        deck = self.services.loaded_catalog.deck(shown.item.deck_id) if self.services.loaded_catalog else None
        if deck is None:
            return
        quotes = shown.item.card.source

        def read() -> None:
            # In a worker: a slow or hostile file never holds the UI (F4).
            try:
                text = self.services.seed_text(deck)
            except StudyappError as error:
                self.app.call_from_thread(self.notify, error.message, severity="error", markup=False)
                return
            self.app.call_from_thread(self.app.push_screen, SourceModal(
                deck.title, text, quotes, markdown=is_markdown(deck.seed_path)))

        self.run_worker(read, thread=True, group="source", exclusive=True)

    def action_explain(self) -> None:
        card = self._card()
        if card is None:
            return
        if not card.explanation:
            self.notify("This card has no explanation.", timeout=3)
            return
        self.explanation = not self.explanation
        if self.explanation and not self.revealed:
            self.revealed = True
        self._draw()

    # ------------------------------------------------------------ custom study

    def action_more_new(self) -> None:
        session = self.session
        with self.services.lock:
            session.study_more_new(MORE_NEW)
            shown = session.next()
        self._show(shown)

    def action_review_ahead(self) -> None:
        self._custom("ahead", AHEAD_DAYS)

    def action_review_forgotten(self) -> None:
        self._custom("forgotten", FORGOTTEN_DAYS)

    def _custom(self, kind: str, days: int) -> None:
        from ...core.queue import CustomStudy

        session = self.services.session(self.deck_ids, custom=CustomStudy(kind, days))
        self.session = session
        self.cram = session.cram  # forgotten cards: the schedule is not changed
        with self.services.lock:
            shown = session.next()
        self._show(shown)

    def action_leave(self) -> None:
        if self._typing():
            self.action_close_typing()
            return
        if self.pending is not None:
            # Leaving now would lose the answer: leave once it is saved.
            self._leave_when_saved = True
            self._saving_line("Leaving once your answer is saved (the progress file is busy).")
            self.notify("Waiting for your last answer to be saved before leaving…", timeout=5, markup=False)
            return
        if self.session is not None and self.session.summary().reviewed:
            self._finish()
        elif self.standalone:
            self.app.exit(0)
        else:
            self.app.pop_screen()

    def _finish(self) -> None:
        from .summary import SummaryScreen

        assert self.session is not None
        with self.services.lock:
            summary = self.session.summary()
            # Items still waiting today (the session was left early): next_due_time only looks ahead.
            left = self.session.counts().total
        self.app.switch_screen(SummaryScreen(summary, now_ms=self.services.clock.now_ms(),
                                             zone=self.session.scheduler.days.zone, cram=self.cram, left_now=left))

