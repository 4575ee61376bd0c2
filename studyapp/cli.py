"""Command line: parse arguments, then hand over to the command.

Only the commands that open the terminal UI import Textual, so that ``list``,
``check``, ``export`` and friends start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .core.problems import StudyappError

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: exit 2, one line of help
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR", help="where progress lives (env STUDYAPP_HOME)")
    common.add_argument("--decks", metavar="DIR", action="append", default=None,
                        help="another deck folder beside the bundled ones; repeatable (env STUDYAPP_DECKS)")
    common.add_argument("--profile", metavar="NAME", help="the learner whose progress to use (env STUDYAPP_PROFILE)")

    parser = _Parser(prog="studyapp", description="Spaced-repetition study of curated question banks.", parents=[common])
    parser.add_argument("--version", action="version", version=f"studyapp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    study = sub.add_parser("study", parents=[common], help="open a review session")
    study.add_argument("deck_ids", nargs="*", metavar="DECK")
    study.add_argument("--cram", action="store_true", help="study any items ahead of time without changing their schedule")

    quiz = sub.add_parser("quiz", parents=[common], help="a practice quiz that leaves the schedule alone")
    quiz.add_argument("deck_ids", nargs="*", metavar="DECK")
    quiz.add_argument("-n", type=int, default=10, metavar="N", help="number of questions (default 10)")
    quiz.add_argument("--mode", choices=("choice", "truefalse", "typed", "mixed"), default="mixed")
    quiz.add_argument("--exam", action="store_true", help="a fixed, seeded exam with a pass mark")
    quiz.add_argument("--seed", type=int, default=None, help="seed for the question selection")

    listing = sub.add_parser("list", parents=[common], help="decks with card counts and what is due")
    listing.add_argument("--json", action="store_true")

    check = sub.add_parser("check", parents=[common], help="validate decks")
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument("--json", action="store_true")

    export = sub.add_parser("export", parents=[common], help="export decks")
    export_sub = export.add_subparsers(dest="format", metavar="FORMAT", parser_class=_Parser, required=True)
    anki = export_sub.add_parser("anki", parents=[common], help="an Anki package (.apkg)")
    anki.add_argument("deck_ids", nargs="*", metavar="DECK")
    anki.add_argument("-o", "--output", required=True, metavar="FILE.apkg")

    stats = sub.add_parser("stats", parents=[common], help="progress statistics")
    stats.add_argument("deck_ids", nargs="*", metavar="DECK")
    stats.add_argument("--json", action="store_true")

    report = sub.add_parser("report", parents=[common], help="a learner's progress, for onboarding leads")
    report.add_argument("--format", choices=("md", "json"), default="md")
    report.add_argument("--merge", nargs="+", metavar="FILE", help="merge several learners' JSON reports into a team table")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "home"
    handler = COMMANDS[command]
    streams = sys.stdout, sys.stderr
    if command not in TUI_COMMANDS:
        _show_control_characters_visibly()
    try:
        return handler(args)
    except StudyappError as error:
        print(error.format(), file=sys.stderr)
        return EXIT_USAGE if error.code == "usage" else EXIT_FAILURE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head`: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    finally:
        sys.stdout, sys.stderr = streams


TUI_COMMANDS = {"home", "study", "quiz"}


def _show_control_characters_visibly() -> None:
    """Decks, reports and file names reach stdout and stderr through here: an escape sequence in
    them is printed as ``\x1b...``, never obeyed by the terminal. (The TUI does the same in its
    own rendering; Textual owns the terminal there.)"""
    from .core.terminal_text import VisibleWriter

    sys.stdout, sys.stderr = VisibleWriter(sys.stdout), VisibleWriter(sys.stderr)


def location(args):
    from .core.settings import resolve

    return resolve(args.home, args.profile, args.decks)


def load_catalog(args, *, warn: bool = True):
    from .core.catalog import discover

    catalog = discover(args.decks, cache_file=location(args).home / "cache" / "decks.pickle")
    if warn:
        for result in catalog.broken_files:
            errors = [p for p in result.problems if p.is_error]
            first = errors[0].format() if errors else str(result.path)
            print(f"{first}\nstudyapp: warning: deck {result.path} was not loaded; run 'studyapp check {result.path}'",
                  file=sys.stderr)
    return catalog


def select_decks(catalog, deck_ids: list[str]):
    """The decks named on the command line (all when none), or a usage error listing the known ids."""
    if not deck_ids:
        return list(catalog.decks)
    known = {deck.id: deck for deck in catalog.decks}
    unknown = [deck_id for deck_id in deck_ids if deck_id not in known]
    if unknown:
        raise StudyappError(
            f"unknown deck id {', '.join(repr(u) for u in unknown)}; known decks: {', '.join(sorted(known)) or '(none)'}",
            code="usage",
        )
    return [known[deck_id] for deck_id in dict.fromkeys(deck_ids)]


def cmd_check(args) -> int:
    from .core.catalog import deck_dirs, load_paths

    paths = [Path(p) for p in args.paths] if args.paths else [d for d in deck_dirs(args.decks) if d.exists()]
    for path in paths:
        if not path.exists():
            print(f"{path}: error: no such file or folder", file=sys.stderr)
            return EXIT_USAGE
    from .core.curriculum import check_curricula

    catalog = load_paths(paths)
    catalog.problems.extend(check_curricula(paths, catalog))
    problems = sorted(catalog.problems, key=lambda p: (p.path, p.line, p.column))
    ok = not any(p.is_error for p in problems)
    cards = sum(len(deck.cards) for deck in catalog.decks)
    if args.json:
        document = {"ok": ok, "decks": len(catalog.decks), "cards": cards, "problems": [p.to_json() for p in problems]}
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        for problem in problems:
            print(problem.format(), file=sys.stderr)
        errors = sum(1 for p in problems if p.is_error)
        warnings = len(problems) - errors
        summary = f"{len(catalog.decks)} decks, {cards} cards: {errors} errors, {warnings} warnings"
        print(summary, file=sys.stderr if problems else sys.stdout)
    return EXIT_OK if ok else EXIT_FAILURE


def cmd_list(args) -> int:
    catalog = load_catalog(args)
    where = location(args)
    counts: dict[str, tuple[int, int]] = {}
    if where.database.exists():
        # Only with progress to read: the store and the scheduler cost start-up time.
        from .store.summary import new_and_due

        counts = new_and_due(catalog.decks, where)
    rows = []
    for deck in catalog.decks:
        items = len(deck.items())
        new, due = counts.get(deck.id, (items, 0))
        rows.append({"id": deck.id, "title": deck.title, "path": str(deck.path), "cards": len(deck.cards),
                     "items": items, "new": new, "due": due})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print("No decks found. Add a folder with --decks DIR or STUDYAPP_DECKS.")
        return EXIT_OK
    width = max(len(row["id"]) for row in rows)
    print(f"{'DECK':<{width}}  {'CARDS':>5}  {'ITEMS':>5}  {'NEW':>5}  {'DUE':>5}  TITLE")
    for row in rows:
        print(f"{row['id']:<{width}}  {row['cards']:>5}  {row['items']:>5}  {row['new']:>5}  {row['due']:>5}  {row['title']}")
    return EXIT_OK


def _lazy(module: str, function: str):
    def run(args):
        import importlib

        return getattr(importlib.import_module(module, __package__), function)(args)

    return run


COMMANDS = {
    "home": _lazy(".tui.launch", "run_home"),
    "study": _lazy(".tui.launch", "run_study"),
    "quiz": _lazy(".tui.launch", "run_quiz"),
    "list": cmd_list,
    "check": cmd_check,
    "export": _lazy(".export.command", "run_export"),
    "stats": _lazy(".store.command", "run_stats"),
    "report": _lazy(".onboarding.command", "run_report"),
}
