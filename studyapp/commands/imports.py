"""``studyapp import csv|markdown|anki-deck FILE [-o decks/ID.yaml]``: a new bank from another format.

(``studyapp import anki FILE`` brings in Anki progress; it is another stream's, registered beside these.)
"""

from __future__ import annotations

from pathlib import Path

from ..core.wording import plural

EXIT_OK, EXIT_FAILURE = 0, 1


def run_import(context, args) -> int:
    if args.format == "anki":  # progress into this profile, not a new bank
        from .import_anki import run_import as import_progress

        return import_progress(context, args)
    from ..authoring.bank import write_bank

    source = Path(args.file)
    if args.format == "csv":
        from ..authoring.import_csv import import_csv

        result = import_csv(source, args.deck_id, args.title, args.columns, args.delimiter)
    elif args.format == "markdown":
        from ..authoring.import_markdown import import_markdown

        result = import_markdown(source, args.deck_id, args.title)
    else:
        from ..authoring.import_anki import import_anki_deck

        result = import_anki_deck(source, args.deck_id, args.title)
    output = Path(args.output) if args.output else Path("decks") / f"{result.deck_id}.yaml"
    problems = write_bank(result, output, f"import {args.format}")
    for problem in sorted(problems, key=lambda p: (p.line, p.column)):
        context.warn(problem.format())
    if any(p.is_error for p in problems):
        errors = sum(p.is_error for p in problems)
        context.warn(f"{source}: {plural(errors, 'error')}; no bank was written")
        return EXIT_FAILURE
    media = f" and {plural(len(result.media), 'media file')} in {output.with_name(output.stem + '-media')}" \
        if result.media else ""
    print(f"{output}: {plural(len(result.drafts), 'card')} from {source}{media}", file=context.stdout)
    return EXIT_OK
