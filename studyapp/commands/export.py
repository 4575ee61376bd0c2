"""``studyapp export anki [DECK...] -o FILE.apkg``."""

from __future__ import annotations

import contextlib
import signal
import sys
from pathlib import Path
from typing import TextIO

from ..core.problems import StudyappError
from ..core.wording import plural

# Below this many notes an export takes a blink; above it, say how far it got.
PROGRESS_THRESHOLD = 2000


class StderrProgress:
    """Progress on stderr: one line redrawn on a terminal, a line per tenth of a stage otherwise."""

    def __init__(self, stream: TextIO, threshold: int | None = None):
        # Its own "\r" must reach the terminal; the numbers it prints are ours, never a deck's text.
        self.stream = getattr(stream, "trusted", stream)
        self.threshold = PROGRESS_THRESHOLD if threshold is None else threshold
        self.interactive = stream.isatty()
        self.last: tuple[str, int] | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total < self.threshold:
            return
        tenth = done * 10 // total
        if (stage, tenth) == self.last:
            return
        self.last = (stage, tenth)
        message = f"studyapp: {stage} notes {done}/{total} ({tenth * 10}%)"
        if self.interactive:
            end = "\n" if done == total else ""
            self.stream.write(f"\r{message}{end}")
        else:
            self.stream.write(message + "\n")
        self.stream.flush()


def run_export(context, args) -> int:
    if args.format == "log":
        from .optimize import run_export_log

        return run_export_log(context, args)
    from ..core.language import localize_all
    from ..export.anki import export_anki

    if args.format != "anki":
        raise StudyappError(f"unknown export format {args.format!r}; use 'anki' or 'log'", code="usage")
    output = Path(args.output)
    if output.suffix.lower() != ".apkg" and not output.is_dir():
        # Anki's File > Import picks packages by their extension; a .txt would be taken for a text import.
        raise StudyappError(f"-o {args.output}: an Anki package's name must end in .apkg "
                            f"(for example -o {output.with_suffix('.apkg')})", code="usage")
    from ..export.anki import check_output

    # Before the decks load (seconds for a big bank): a path that cannot be replaced fails at once.
    check_output(output)
    catalog = context.catalog()
    decks = catalog.select(args.deck_ids)
    _refuse_failing_decks(catalog, decks, named=bool(args.deck_ids))
    # Only the texts change with the language: note ids come from deck and card ids alone.
    decks = localize_all(decks, context.lang)
    schedule = _progress(context, decks) if getattr(args, "with_progress", False) else None
    with _terminating_cleanly():
        result = export_anki(decks, output, home=context.home, progress=StderrProgress(sys.stderr),
                             schedule=schedule)
    for label, old, new in result.kind_changes:
        print(f"studyapp: warning: card {label} changed from {old} to {new}; Anki will not change the type of a "
              "note already in a collection (it reports a conflict and keeps the old note). "
              "Give the card a new id to replace it.", file=sys.stderr)
    if result.ledger_warning:
        print(f"studyapp: warning: {result.ledger_warning}", file=sys.stderr)
    if result.changed_notes:
        changed = f"{result.changed_notes} new or changed since your last export"
    else:
        changed = "none changed since the last export or release: importing it again changes nothing in Anki"
    print(f"Wrote {result.path}: {plural(result.decks, 'deck')}, {plural(result.notes, 'note')} ({changed}), "
          f"{plural(result.cards, 'card')}")
    if schedule is not None:
        studied = sum(1 for item in schedule.items.values() if not item.state.is_new)
        reviews = plural(schedule.review_count, 'review')
        print(f"With progress: {plural(studied, 'card')} studied, {reviews} in the log; "
              "in Anki, import it with 'Import any learning progress' ticked (see docs/export.md)")
    return 0


@contextlib.contextmanager
def _terminating_cleanly():
    """SIGTERM and SIGHUP (a closed terminal, a timeout, a service stop) end the export as Ctrl+C does,
    through the code that removes its temporary package and scratch folder: by default Python dies
    at once and leaves both behind."""
    def stop(signum, _frame):
        print(f"studyapp: {signal.Signals(signum).name}: export stopped; the previous package is unchanged",
              file=sys.stderr)
        raise SystemExit(128 + signum)

    previous = {}
    try:
        for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is not None:
                previous[signum] = signal.signal(signum, stop)
    except ValueError:  # not the main thread (a test calling run_export): nothing to install
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _progress(context, decks):
    """The profile's schedules for the decks exported (a profile never studied has none: all new)."""
    from ..core.scheduler import Settings
    from ..export.progress import Progress, gather_progress
    from ..store import open_store

    if not context.location.database.exists():
        return Progress(Settings(), {}, [])
    # Not read-only: a profile from an older studyapp is upgraded (after a backup) rather than refused.
    store = open_store(context.location)
    with store:
        return gather_progress(store, store.load_settings())


def _refuse_failing_decks(catalog, decks, *, named: bool) -> None:
    """A package missing a deck or some cards would look complete; refuse rather than mislead."""
    if not named and catalog.broken_files:
        paths = ", ".join(str(r.path) for r in catalog.broken_files)
        raise StudyappError(f"{len(catalog.broken_files)} deck file(s) could not be loaded ({paths}); "
                            "fix them (see 'studyapp check') or name the decks to export")
    chosen = {Path(deck.path) for deck in decks}
    failing = [r for r in catalog.results if r.deck is not None and Path(r.path) in chosen and not r.ok]
    if failing:
        for result in failing:
            for problem in result.problems:
                if problem.is_error:
                    print(problem.format(), file=sys.stderr)
        names = ", ".join(repr(r.deck.id) for r in failing)
        raise StudyappError(f"deck {names} has errors and its faulty cards would be left out of the package; "
                            "fix them first (see 'studyapp check')")
