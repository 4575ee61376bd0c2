"""``studyapp check [PATH...] [--json]``: every problem of every deck file, compiler style."""

from __future__ import annotations

import json
from pathlib import Path

from ..core.wording import plural

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def run_check(context, args) -> int:
    from ..core.catalog import bundled_decks_dir, load_paths
    from ..core.curriculum import check_curricula

    # With no path, the folder the author is working on: their own deck folders when they have any
    # (./decks, --decks, STUDYAPP_DECKS), the bundled decks otherwise.
    paths = [Path(p) for p in args.paths] if args.paths else list(context.deck_dirs) or [bundled_decks_dir()]
    missing = [path for path in paths if not path.exists()]
    for path in missing:
        context.warn(f"{path}: error: no such file or folder")
    if missing:
        return EXIT_USAGE
    catalog = load_paths(paths)
    catalog.problems.extend(check_curricula(paths, catalog))
    problems = sorted(catalog.problems, key=lambda p: (p.path, p.line, p.column))
    ok = not any(p.is_error for p in problems)
    cards = sum(result.card_entries for result in catalog.results)
    if args.json:
        document = {"ok": ok, "decks": len(catalog.decks), "cards": cards, "problems": [p.to_json() for p in problems]}
        print(json.dumps(document, ensure_ascii=False, indent=2), file=context.stdout)
        return EXIT_OK if ok else EXIT_FAILURE
    for problem in problems:
        context.warn(problem.format())
    errors = sum(1 for p in problems if p.is_error)
    left_out = cards - sum(len(deck.cards) for deck in catalog.decks)
    not_loaded = f" ({left_out} left out for errors)" if left_out else ""
    summary = (f"{plural(len(catalog.decks), 'deck')}, {plural(cards, 'card')}{not_loaded}: "
               f"{plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')}")
    if problems:
        context.warn(summary)
    else:
        print(summary, file=context.stdout)
    return EXIT_OK if ok else EXIT_FAILURE
