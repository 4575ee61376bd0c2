"""``studyapp check [PATH...] [--json]``: every problem of every deck file, compiler style.

``--coverage [DECK...]`` adds what of each source no card quotes; ``--accept-source DECK`` records a
changed source's new hash once its author has looked at the cards it moved.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..core.problems import ERROR, Problem, StudyappError
from ..core.wording import plural

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def run_check(context, args) -> int:
    from ..core.catalog import bundled_decks_dir, load_paths
    from ..core.curriculum import check_curricula, find_curricula, folder_min_coverage

    if getattr(args, "accept_source", None):
        return _accept_sources(context, args.accept_source)
    coverage_wanted = getattr(args, "coverage", False)
    named = [Path(p) for p in args.paths]
    missing = [path for path in named if not path.exists()]
    if coverage_wanted and missing:
        # Under --coverage a name that is no file is a deck id, as for study and stats.
        named = [path for path in named if path.exists()] + [deck.path for deck in
                                                              context.select_decks([str(p) for p in missing])]
        missing = []
    # With no path, the folder the author is working on: their own deck folders when they have any
    # (./decks, --decks, STUDYAPP_DECKS), the bundled decks otherwise.
    paths = named or list(context.deck_dirs) or [bundled_decks_dir()]
    for path in missing:
        context.warn(f"{path}: error: no such file or folder")
    if missing:
        return EXIT_USAGE
    catalog = load_paths(paths)
    curricula: list = []
    catalog.problems.extend(check_curricula(paths, catalog, curricula))
    # A deck file checked alone still holds to its folder's curriculum's min_coverage (the
    # curriculum itself is checked with its folder, where all its decks are known).
    checked = {c.path.resolve() for c in curricula}
    for found in find_curricula(sorted({p.parent for p in paths if p.is_file()})):
        if found.resolve() not in checked and (curriculum := folder_min_coverage(found)) is not None:
            curricula.append(curriculum)
    coverages = _coverages(catalog.decks, curricula, everything=coverage_wanted)
    catalog.problems.extend(_minimum_problems(coverages, curricula))
    problems = sorted(catalog.problems, key=lambda p: (p.path, p.line, p.column))
    ok = not any(p.is_error for p in problems)
    cards = sum(result.card_entries for result in catalog.results)
    if args.json:
        document = {"ok": ok, "decks": len(catalog.decks), "cards": cards, "problems": [p.to_json() for p in problems]}
        if coverage_wanted:
            document["coverage"] = [c.to_json() for c in coverages]
        print(json.dumps(document, ensure_ascii=False, indent=2), file=context.stdout)
        return EXIT_OK if ok else EXIT_FAILURE
    for problem in problems:
        context.warn(problem.format())
    if coverage_wanted:
        _print_coverage(context, coverages)
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


def _curriculum_for(deck, curricula):
    folder = Path(deck.path).parent.resolve()
    return next((c for c in curricula if c.min_coverage is not None and c.path.parent.resolve() == folder), None)


def minimum_for(deck, curricula) -> float | None:
    """The deck's own min_coverage, else its folder's curriculum's."""
    if deck.min_coverage is not None:
        return deck.min_coverage
    curriculum = _curriculum_for(deck, curricula)
    return curriculum.min_coverage if curriculum else None


def _coverages(decks, curricula, everything: bool) -> list:
    chosen = [deck for deck in decks if everything or (deck.seed_path is not None and minimum_for(deck, curricula))]
    if not chosen:
        return []
    from ..authoring.coverage import coverage_of  # only when asked for: check alone stays as fast as before

    return coverage_of(chosen)


def _minimum_problems(coverages, curricula) -> list[Problem]:
    problems = []
    for coverage in coverages:
        deck = coverage.deck
        minimum = minimum_for(deck, curricula)
        if minimum is None or deck.seed_path is None or coverage.share >= minimum:
            continue
        if deck.min_coverage is not None:
            where, position, whose = str(deck.path), deck.key_positions.get("min_coverage", deck.position), "its"
        else:
            curriculum = _curriculum_for(deck, curricula)
            where, position, whose = str(deck.path), deck.position, f"the curriculum's ({curriculum.path})"
        problems.append(Problem(
            where, position.line, position.column, ERROR, "coverage-below-minimum",
            f"deck '{deck.id}' quotes {coverage.percent}% of its seed's statements ({len(coverage.covered)} of "
            f"{len(coverage.statements)}), below {whose} min_coverage of {round(minimum * 100, 2):g}%; "
            f"run 'studyapp check --coverage {deck.id}' to see the statements no card quotes"))
    return problems


def _print_coverage(context, coverages) -> None:
    out = context.stdout
    for coverage in coverages:
        deck = coverage.deck
        if deck.seed_path is None:
            print(f"{deck.id}: no source document, so no coverage to measure", file=out)
            continue
        minimum = f", minimum {round(deck.min_coverage * 100, 2):g}%" if deck.min_coverage is not None else ""
        print(f"{deck.id}: {len(coverage.covered)} of {plural(len(coverage.statements), 'statement')} quoted "
              f"({coverage.percent}%){minimum}", file=out)
        uncovered = coverage.uncovered()
        if uncovered:
            print(f"  not quoted by any card, longest first:", file=out)
        for statement in uncovered:
            print(f"  {deck.seed_path}:{statement.line}: {statement.text}", file=out)


def _accept_sources(context, names: list[str]) -> int:
    from ..authoring.accept import accept_source

    for name in names:
        path = Path(name)
        if not path.is_file():
            decks = context.select_decks([name])
            path = decks[0].path
        try:
            recorded, changed = accept_source(path)
        except StudyappError as error:
            context.warn(error.format())
            return EXIT_FAILURE
        verb = "recorded" if changed else "already recorded"
        print(f"{path}: seed_hash {recorded} {verb}", file=context.stdout)
    return EXIT_OK
