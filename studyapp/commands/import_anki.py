"""``studyapp import anki FILE.apkg|FILE.colpkg [--dry-run]``: Anki's reviews and schedules into this profile."""

from __future__ import annotations

from pathlib import Path

from ..core.problems import StudyappError
from ..core.wording import plural


def run_import(context, args) -> int:
    if args.format != "anki":
        raise StudyappError(f"unknown import format {args.format!r}; the one format here is 'anki'", code="usage")
    from ..export.anki_import import plan_import
    from ..export.apkg import read_package

    path = Path(args.file)
    # The whole file is read and checked before the profile is opened: a bad file changes nothing.
    collection = read_package(path)
    decks = context.select_decks([])
    from ..core.clock import SystemClock
    from ..store import open_store

    clock = SystemClock()
    if args.dry_run:
        store = open_store(context.location, readonly=True)
    else:
        store = open_store(context.location, clock=clock)
    if store is None:  # a dry run on a profile never studied
        from ..core.scheduler import Settings

        plan = plan_import(collection, decks, {}, [], Settings(), clock.now_ms())
    else:
        with store:
            settings = store.load_settings()
            presets = store.load_presets()
            if not args.dry_run:
                store.sync(decks)
            plan = store.import_anki(
                lambda items, log: plan_import(collection, decks, items, log, settings, clock.now_ms(), presets),
                settings, dry_run=args.dry_run)
    _summary(context, path, plan, dry_run=args.dry_run)
    return 0


def _summary(context, path: Path, plan, *, dry_run: bool) -> None:
    verb = "Would import" if dry_run else "Imported"
    items = len(plan.states)
    print(f"{verb} {plural(plan.review_count, 'review')} from {path} and took Anki's schedule for "
          f"{plural(items, 'card')}; {plural(plan.reviews_known, 'review')} already in the log", file=context.stdout)
    print(f"Notes: {plan.notes} in the file, {plan.notes_by_guid} matched by studyapp's id, "
          f"{plan.notes_by_text} by their front text, {len(plan.unmatched)} matched no card", file=context.stdout)
    for label in plan.unmatched[:20]:
        print(f"  no card for: {label}", file=context.stdout)
    if len(plan.unmatched) > 20:
        print(f"  ... and {len(plan.unmatched) - 20} more", file=context.stdout)
    if plan.kept_newer:
        print(f"{plural(len(plan.kept_newer), 'card')} were answered here after their last Anki review: "
              "their Anki reviews joined the log, studyapp's schedule stays", file=context.stdout)
    if plan.reviews_skipped:
        print(f"{plural(plan.reviews_skipped, 'row')} of Anki's manual rescheduling (no answer) left out",
              file=context.stdout)
    if dry_run:
        print("Dry run: nothing was changed", file=context.stdout)
