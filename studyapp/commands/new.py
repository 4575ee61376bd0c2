"""``studyapp new SOURCE [--id ID] [--lang zh,en] [-o FILE]``: scaffold a bank for a document."""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0


def run_new(context, args) -> int:
    from ..authoring.scaffold import slug, write_new

    source = Path(args.source)
    languages = tuple(code.strip() for code in args.languages.split(",")) if args.languages else None
    deck_id = args.deck_id or slug(source.stem)
    output = Path(args.output) if args.output else Path("decks") / f"{deck_id}.yaml"
    scaffold = write_new(source, output, args.deck_id, languages)
    print(f"{output}: a bank for {scaffold.title!r} (id {scaffold.deck_id}, {', '.join(scaffold.languages)}) "
          f"with one example of each card type, commented out", file=context.stdout)
    print(f"next: write its cards, then 'studyapp check {output}' and 'studyapp check --coverage {output}'",
          file=context.stdout)
    return EXIT_OK
