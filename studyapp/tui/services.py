"""The app's one door to the domain: decks, the progress store, sessions and queries.

Screens call these methods from thread workers (loading, queries) or directly on the UI
thread (answering a card: well under a millisecond). One lock serialises every use of the
database connection, which the store opens for use from any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.catalog import Catalog, discover, load_paths
from ..core.clock import Clock, SystemClock
from ..core.models import Deck
from ..core.problems import StudyappError
from ..core.settings import Location

if TYPE_CHECKING:
    from ..core.presets import Presets
    from ..core.scheduler import Settings
    from ..core.session import ReviewSession
    from ..store import Store


def _shown_on_a_terminal(catalog: Catalog) -> Catalog:
    """Every deck text with its control characters escaped (F2): Textual passes them to the terminal."""
    from dataclasses import replace

    from ..core.terminal_text import visible_deck

    decks = [visible_deck(deck) for deck in catalog.decks]
    if all(a is b for a, b in zip(decks, catalog.decks)):
        return catalog
    return replace(catalog, decks=decks)


@dataclass(frozen=True)
class _TitledDeck:
    """What the curriculum's tracks read of a deck (its id and shown title) when it comes from the summary."""

    id: str
    title: str


@dataclass(frozen=True)
class DeckRow:
    """A deck's line on the home screen before today's counts are known (they are None)."""

    deck_id: str
    title: str
    items: int
    unseen: int
    new: int | None = None
    learning: int | None = None
    due: int | None = None


def _warning_lines(broken) -> list[str]:
    """One line per (deck file, its errors) that did not load: its name, its first error, and what to run."""
    from ..core.terminal_text import visible

    lines = []
    for path, errors in broken:
        first = f" (line {errors[0].line}: {errors[0].message})" if errors else ""
        lines.append(visible(f"{path.name} was not loaded{first}; run 'studyapp check {path}'"))
    return lines


def _in_step(store: Store, summary) -> bool:
    """Whether the store is in step with the summarised decks: the last sync kept their very
    fingerprints, so a session's sync would change nothing (call under ``Services.lock``)."""
    return store.synced({deck.id: deck.fingerprint for deck in summary.decks})


def _scheduling_presets(store: Store, curriculum) -> Presets:
    """The presets sessions schedule with: a curriculum's team parameters take its decks until the
    learner fits their own (call under ``Services.lock``)."""
    presets = store.load_presets()
    if curriculum is None:
        return presets
    from ..core.curriculum import scheduling_presets

    return scheduling_presets(curriculum, presets, store.fitted_parameters())


class Services:
    def __init__(self, location: Location, *, clock: Clock | None = None,
                 deck_paths: Sequence[Path] | None = None, catalog: Catalog | None = None,
                 language: str | None = None) -> None:
        """Decks come from the location's folders and the bundled ones (as ``discover`` finds them);
        ``deck_paths`` instead loads exactly these files or folders, and ``catalog`` uses decks
        already loaded (by the command line, tests, benchmarks). ``language`` is the learner's
        choice (zh, en, both; None: each deck's primary)."""
        self.location = location
        self.language = language
        self.server_url: str | None = None  # the team server, when one is configured: synced on start and on leaving
        self._shown: Catalog | None = None
        self.clock: Clock = clock or SystemClock()
        self._deck_paths = list(deck_paths) if deck_paths is not None else None
        self._catalog: Catalog | None = catalog
        self._discovered = False  # the catalog was loaded here from the learner's folders (and the deck cache)
        self._catalog_lock = threading.Lock()
        self.lock = threading.RLock()
        self._store: Store | None = None
        self._overview: ReviewSession | None = None
        # A store whose last answer was committed without its fsync (Store.sync_later), until synced.
        self._unsynced: Store | None = None

    # ------------------------------------------------------------ decks

    def catalog(self) -> Catalog:
        """Every deck that loaded, in the learner's language, plus what failed (blocking: call from a worker)."""
        with self._catalog_lock:
            if self._catalog is None:
                if self._deck_paths is not None:
                    self._catalog = load_paths(self._deck_paths)
                else:
                    # The same cache as the command line's: unchanged decks are not parsed again.
                    self._catalog = discover(self.location.deck_dirs,
                                             cache_file=self.location.home / "cache" / "decks.pickle")
                    self._discovered = True
            if self._shown is None:
                from dataclasses import replace

                from ..core.language import localize_all

                shown = replace(self._catalog, decks=localize_all(self._catalog.decks, self.language))
                self._shown = _shown_on_a_terminal(shown)
            return self._shown

    @property
    def loaded_catalog(self) -> Catalog | None:
        """The catalog if it has been loaded already (never blocks)."""
        return self._shown

    def set_language(self, language: str | None) -> None:
        """Show decks in another language from the next session on; progress is per item, so nothing else changes."""
        with self._catalog_lock, self.lock:
            self.language = language
            self._shown = None
            self._overview = None

    def decks(self, deck_ids: Sequence[str] = ()) -> list[Deck]:
        """The decks with these ids (all when none); unknown ids are a usage error (see Catalog.select)."""
        return self.catalog().select(deck_ids)

    def load_warnings(self) -> list[str]:
        """One line per deck file that did not load: its name, its first error, and what to run."""
        return _warning_lines((result.path, [p for p in result.problems if p.is_error])
                              for result in self.catalog().broken_files)

    def deck_summary(self):
        """What the home screen's table needs of every deck (core.decksummary), kept beside the deck
        cache: None unless no deck file changed since it was written, or when the decks do not come
        from the learner's folders. Never loads the catalog (blocking: call from a worker)."""
        if self._deck_paths is not None or (self._catalog is not None and not self._discovered):
            return None
        from ..core import decksummary
        from ..core.catalog import summary_roots

        return decksummary.load(self.location.home / "cache" / "decks.pickle", summary_roots(self.location.deck_dirs))

    def first_rows(self, summary) -> tuple[list[DeckRow], list[str]]:
        """The home screen's rows before anything is counted (blocking): each deck's title in the
        learner's language, its items and how many were never studied, from the summary and one
        count of the stored items; what can be studied today (new, learning, due) is left out
        (None), as the queue works it out once the decks are loaded. And the load warnings."""
        from ..core.terminal_text import visible
        from ..store.summary import state_counts

        store = self.store()
        with self.lock:
            stored = state_counts(store)
        rows = []
        for deck in summary.decks:
            counts = stored.get(deck.id, {})
            items, new = deck.items, counts.get("new", 0)
            # As DeckProgress counts it: items not stored yet are unseen too.
            unseen = new + max(0, items - (new + counts.get("learning", 0) + counts.get("review", 0)))
            rows.append(DeckRow(deck.id, visible(deck.shown_title(self.language)), items, unseen))
        return rows, _warning_lines(summary.broken)

    def counted_rows(self, summary, rows: Sequence[DeckRow]) -> list[DeckRow] | None:
        """``rows`` (``first_rows``) with today's new, learning and due counts, worked out without the
        catalog when the store is in step with the summarised decks (the last sync kept their very
        fingerprints, so a session's sync would change nothing): the same counts as the overview's,
        from the same rows of the store. None otherwise (blocking: call from a worker)."""
        from dataclasses import replace

        from ..core.session import ReviewSession

        if not summary.decks:
            return None
        store = self.store()
        curriculum = self._curriculum({deck.id for deck in summary.decks})
        with self.lock:
            if not _in_step(store, summary):
                return None
            session = ReviewSession(store, summary.decks, clock=self.clock,
                                    presets=_scheduling_presets(store, curriculum), groups=summary.sibling_groups())
            counts = {deck.id: session.deck_counts(deck.id) for deck in summary.decks}
        return [replace(row, new=counts[row.deck_id].new, learning=counts[row.deck_id].learning,
                        due=counts[row.deck_id].review) for row in rows]

    def seed_text(self, deck: Deck) -> str:
        """The deck's source document, control characters escaped (blocking: call from a worker).

        Only a regular file of bounded size is read, so a FIFO or a device cannot hang or flood it."""
        from ..core.loader import SeedUnreadable, read_seed_file, seed_body
        from ..core.terminal_text import visible

        if deck.seed_path is None:
            raise StudyappError(visible(f"deck {deck.id} names no source document ('seed:' in {deck.path})"))
        try:
            return visible(seed_body(read_seed_file(Path(deck.seed_path))))
        except SeedUnreadable as why:
            raise StudyappError(visible(f"cannot read the source document {deck.seed_path}: {why}")) from None

    # ------------------------------------------------------------ progress

    def store(self) -> Store:
        """The learner's database, opened on first use (blocking: call from a worker).

        Raises StudyappError with the store's own message (locked, damaged, read-only...).
        """
        with self.lock:
            if self._store is None:
                from ..store import open_store

                self._store = open_store(self.location, clock=self.clock)
            return self._store

    def session(self, deck_ids: Sequence[str] = (), *, cram: bool = False, custom=None,
                study_days_later: bool = False) -> ReviewSession:
        """A review (or cram, or custom study: core.queue.CustomStudy) session over these decks
        (all when none); blocking. ``study_days_later``: as ReviewSession's."""
        from ..core.session import ReviewSession

        decks = self.decks(deck_ids)
        store = self.store()
        curriculum = self.curriculum()
        with self.lock:
            return ReviewSession(store, decks, clock=self.clock, cram=cram, custom=custom,
                                 presets=_scheduling_presets(store, curriculum), study_days_later=study_days_later)

    def overview(self) -> ReviewSession:
        """A session over every deck, kept for the home, browse and stats screens (never answered)."""
        with self.lock:
            if self._overview is None:
                self._overview = self.session()
            return self._overview

    def curriculum(self):
        """The first valid curriculum.yaml among the deck folders, or None; blocking."""
        return self._curriculum({deck.id for deck in self.catalog().decks})

    def _curriculum(self, known: set[str]):
        from ..core.catalog import deck_dirs, find_curricula

        folders = list(self._deck_paths if self._deck_paths is not None else deck_dirs(self.location.deck_dirs))
        if not find_curricula(folders):
            return None  # without importing the YAML parser, which the home screen's counts do not otherwise need
        if self._deck_paths is None:
            from ..core.curriculum import cached_curriculum

            # Kept beside the deck cache, as the decks are: a start reads it without the YAML parser.
            return cached_curriculum(folders, known, self.location.home / "cache" / "curriculum.pickle")
        from ..core.curriculum import first_curriculum

        return first_curriculum(folders, known)[0]

    def exam_settings(self, seed: int | None = None):
        """The curriculum's exam (size, pass mark, seed, mode), or the defaults; blocking."""
        from ..onboarding.exams import exam_settings

        curriculum = self.curriculum()
        return exam_settings(curriculum.exam if curriculum else None, seed=seed)

    def tracks(self, deck_rows: Sequence) -> tuple[list[dict], dict | None]:
        """The curriculum's tracks with mastery and status, and what to study next; blocking.

        ``deck_rows`` are the overview's DeckProgress rows (their review counts)."""
        curriculum = self.curriculum()
        if curriculum is None:
            return [], None
        decks = self.catalog().decks
        # Each deck's facts from the summary while it matches the files just loaded (the same stamps):
        # working them out from 100,000 cards took seconds.
        summary = self.deck_summary()
        bank = summary.bank() if summary is not None and [d.id for d in summary.decks] == [d.id for d in decks] \
            else None
        return self._track_progress(curriculum, decks, bank, {r.deck_id: r.reviews for r in deck_rows})

    def summary_tracks(self, summary) -> tuple[list[dict], dict | None] | None:
        """``tracks`` without the catalog: each deck's title and facts from the deck summary, whether it
        was ever reviewed from the store, when the store is in step with the summarised decks (then its
        items are the ones the overview's sync would leave, so the same keys are mastered). None
        otherwise (blocking: call from a worker)."""
        from ..core.terminal_text import visible
        from ..store.summary import reviewed_decks

        if not summary.decks:
            return None
        curriculum = self._curriculum({deck.id for deck in summary.decks})
        if curriculum is None:
            return [], None
        store = self.store()
        with self.lock:
            if not _in_step(store, summary):
                return None
            reviewed = reviewed_decks(store, [deck.id for deck in summary.decks])
        # As the shown catalog titles them (core.language.localize, then terminal_text.visible_deck).
        decks = [_TitledDeck(deck.id, visible(deck.shown_title(self.language))) for deck in summary.decks]
        # Only whether a deck was ever reviewed tells on the tracks (a track not started), not how often.
        return self._track_progress(curriculum, decks, summary.bank(), {deck_id: 1 for deck_id in reviewed})

    def _track_progress(self, curriculum, decks, bank, reviews_by_deck: dict[str, int]):
        from ..onboarding.collect import mastered_keys
        from ..onboarding.report import curriculum_progress
        from ..store.summary import first_answer_ms

        store = self.store()
        with self.lock:
            settings = store.load_settings()
            mastered = mastered_keys(store)
            started = first_answer_ms(store)
        days = settings.study_days()
        return curriculum_progress(curriculum, decks, (), reviews_by_deck, started, self.clock.now_ms(),
                                   days.day_of, days.date_of, bank=bank, mastered_keys=mastered)

    def record_exam(self, exam) -> None:
        """Keep a finished exam's result with the profile (the schedule is not touched)."""
        from ..onboarding.exams import record_exam

        store = self.store()
        with self.lock:
            record_exam(store, exam)

    def settings(self) -> Settings:
        with self.lock:
            return self.store().load_settings()

    def save_settings(self, settings: Settings) -> None:
        """Store the settings; sessions opened from now on use them (open ones are refreshed by the caller)."""
        with self.lock:
            self.store().save_settings(settings)
            self._overview = None

    def presets(self):
        with self.lock:
            return self.store().load_presets()

    def save_preset(self, preset) -> None:
        with self.lock:
            self.store().save_preset(preset)
            self._overview = None

    def assign_preset(self, deck_id: str, name: str) -> None:
        with self.lock:
            self.store().assign_preset(deck_id, name)
            self._overview = None

    def optimize(self, preset: str = "Default"):
        """Anki's Optimize for a preset (blocking: call from a worker): the Fit; StudyappError if
        there are too few reviews. Sessions opened from now on use the parameters adopted."""
        from ..core.optimize import optimize_preset

        store = self.store()
        with self.lock:
            fit, _ = optimize_preset(store, preset, now_ms=self.clock.now_ms())
            self._overview = None
        return fit

    def workload(self, deck_sizes: dict[str, int]):
        """(workload points at 0.70-0.97, minimum recommended retention, parameters) for the
        Default preset's parameters and limits over these decks (blocking: call from a worker)."""
        from ..core.workload import for_profile

        store = self.store()
        with self.lock:
            presets, settings = store.load_presets(), store.load_settings()
            return for_profile(store, presets, settings, deck_sizes, self.clock.now_ms())

    def forget_overview(self) -> None:
        """Counts changed (a session answered something): rebuild the overview when next asked."""
        with self.lock:
            self._overview = None

    def sync_with_server(self):
        """One sync with the team server (blocking: call from a worker): on a connection of its own,
        so that answering never waits for the network. Returns the result; raises StudyappError."""
        from ..store import open_store
        from ..sync.client import sync

        store = open_store(self.location, clock=self.clock)
        try:
            store.sync(self.catalog().decks)
            result = sync(store, self.server_url)
        finally:
            store.close()
        self.forget_overview()  # other devices' answers change the counts
        return result

    def committed_unsynced(self, store: Store) -> None:
        """``store`` committed an answer in ``Store.sync_later``: ``sync_answers`` or ``close`` fsyncs it."""
        self._unsynced = store

    def sync_answers(self) -> None:
        """fsync the answers committed without it (a killed app keeps them already; this is for a
        power cut). Raises OSError if the disk refuses; the answers stay committed."""
        store, self._unsynced = self._unsynced, None
        if store is not None:
            store.sync_wal()

    def close(self) -> None:
        """Close the database, if it was opened (safe to call twice), once the last answer is on disk."""
        with self.lock:
            try:
                self.sync_answers()
            except OSError:
                pass  # closing SQLite checkpoints, which syncs the WAL again
            if self._store is not None:
                self._store.close()
                self._store = None
            self._overview = None
