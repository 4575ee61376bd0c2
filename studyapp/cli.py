"""Command line: parse arguments, build one Context, hand it to the command.

The global options (``--home``, ``--decks``, ``--profile``, ``--lang``) are accepted
before and after the command name with the same meaning. Each parser level keeps them under its
own names, so that a level where they were not given never overwrites a level where they were
(argparse's ``parents=`` on both levels did exactly that, silently).

Only the commands that open the terminal UI import Textual, so that ``list``, ``check``,
``export`` and friends start fast.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .core.problems import StudyappError

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

GLOBAL_OPTIONS = ("home", "decks", "profile", "lang", "server")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: exit 2, one line of help
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _NotThisParser(Exception):
    """The parser built for one command would print or exit: the full one parses instead."""


class _OneCommandParser(_Parser):
    """Parses without a word of output: help, a version or any usage error is left to the full parser
    (whose messages list every command)."""

    def error(self, message: str):
        raise _NotThisParser

    def exit(self, status=0, message=None):
        raise _NotThisParser

    def _print_message(self, message, file=None):
        raise _NotThisParser


class _Unbuilt:
    """Stands for the parser of a command that this parse has no use for: what it is given is dropped."""

    def add_argument(self, *args, **kwargs) -> None:
        pass

    def add_subparsers(self, *args, **kwargs) -> "_Unbuilt":
        return self


def _add_global_options(parser: argparse.ArgumentParser, level: int, skip: tuple[str, ...] = ()) -> None:
    def dest(name: str) -> str:
        return f"global{level}_{name}"

    group = parser.add_argument_group("options for every command (before or after the command name)")
    group.add_argument("--home", metavar="DIR", dest=dest("home"), default=argparse.SUPPRESS,
                       help="where progress lives (env STUDYAPP_HOME)")
    group.add_argument("--decks", metavar="DIR", action="append", dest=dest("decks"), default=argparse.SUPPRESS,
                       help="another deck folder; its decks shadow bundled ones of the same id; repeatable "
                            "(env STUDYAPP_DECKS; ./decks is used when it holds decks)")
    group.add_argument("--profile", metavar="NAME", dest=dest("profile"), default=argparse.SUPPRESS,
                       help="the learner whose progress to use (env STUDYAPP_PROFILE)")
    if "lang" not in skip:
        group.add_argument("--lang", metavar="LANG", choices=("zh", "en", "both"), dest=dest("lang"),
                           default=argparse.SUPPRESS, help="zh, en or both, for bilingual decks (env STUDYAPP_LANG)")
    group.add_argument("--server", metavar="URL", dest=dest("server"), default=argparse.SUPPRESS,
                       help="the team's PostgreSQL server, postgresql://HOST/DB (env STUDYAPP_SERVER, "
                            "or [sync] server in config.toml)")


def build_parser(only: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each command's own parser (for usage errors that name the command).

    With ``only`` (a command name, or "" for none), the parser knows that command alone (its
    subcommands included), and never prints: building every command's parser took longer than a
    command such as ``list`` takes to run. ``parse`` turns to the full parser for anything but a
    command line that parses cleanly."""
    parser_class = _Parser if only is None else _OneCommandParser
    parser = parser_class(prog="studyapp", description="Spaced-repetition study of curated question banks.")
    parser.add_argument("--version", action="version", version=f"studyapp {__version__}")
    _add_global_options(parser, 0)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    commands: dict[str, argparse.ArgumentParser] = {}

    def command(name: str, help: str, level: int = 1, within=sub, parent: str = "",
                skip: tuple[str, ...] = ()) -> argparse.ArgumentParser:
        if only is not None and (parent or name) != only:
            return _Unbuilt()  # type: ignore[return-value]
        child = within.add_parser(name, help=help, description=help)
        _add_global_options(child, level, skip)
        commands[f"{parent} {name}".strip()] = child
        return child

    study = command("study", "open a review session")
    study.add_argument("deck_ids", nargs="*", metavar="DECK")
    study.add_argument("--cram", action="store_true", help="study any items ahead of time without changing their schedule")

    quiz = command("quiz", "a practice quiz that leaves the schedule alone")
    quiz.add_argument("deck_ids", nargs="*", metavar="DECK")
    quiz.add_argument("-n", type=int, default=None, metavar="N", help="number of questions (default 10)")
    quiz.add_argument("--mode", choices=("choice", "truefalse", "typed", "mixed"), default="mixed")
    quiz.add_argument("--exam", action="store_true",
                      help="the curriculum's seeded exam with its pass mark (its decks and size are the curriculum's)")
    quiz.add_argument("--seed", type=int, default=None, help="seed for the question selection")

    listing = command("list", "decks with card counts and what is due")
    listing.add_argument("--json", action="store_true")

    check = command("check", "validate decks (with no PATH: your deck folders, else the bundled decks)")
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="deck files or folders (with --coverage, deck ids too)")
    check.add_argument("--json", action="store_true")
    check.add_argument("--coverage", action="store_true",
                       help="also show what of each source no card quotes, per deck, longest first")
    check.add_argument("--accept-source", action="append", metavar="DECK", default=[],
                       help="record the deck's source's new content hash (after looking at the cards it moved); repeatable")

    # Its --lang names the bank's languages (zh,en), as the command line contract has it; the display
    # language, which it would otherwise mean, has no use in writing a file.
    new = command("new", "scaffold a bank for a source document (Markdown or plain text)", skip=("lang",))
    new.add_argument("source", metavar="SOURCE")
    new.add_argument("--id", dest="deck_id", metavar="ID", help="the deck id (default: from the file name)")
    new.add_argument("--lang", dest="languages", metavar="LANGS",
                     help="the bank's languages, primary first, such as zh,en (default: one, the source's)")
    new.add_argument("-o", "--output", metavar="FILE", help="where to write it (default decks/ID.yaml)")

    imports = command("import", "bring cards or progress in from other formats")
    import_sub = imports.add_subparsers(dest="format", metavar="FORMAT", parser_class=parser_class, required=True)
    for name, help_text in (("csv", "a new bank from a CSV or TSV file (Anki's text import: front, back, tags)"),
                            ("markdown", "a new bank from Q:/A: and C: [deletion] blocks (hashcards style)"),
                            ("anki-deck", "a new bank from the notes of an Anki package (.apkg)")):
        child = command(name, help_text, level=2, within=import_sub, parent="import")
        child.add_argument("file", metavar="FILE")
        child.add_argument("-o", "--output", metavar="FILE.yaml", help="the bank to write (default decks/ID.yaml)")
        child.add_argument("--id", dest="deck_id", metavar="ID", help="the deck id (default: from the file name)")
        child.add_argument("--title", help="the deck title (default: from the file name)")
        if name == "csv":
            child.add_argument("--columns", metavar="NAMES",
                               help="what each column is, comma-separated: front, back, tags, or - to skip "
                                    "(default: a header row naming them, else front,back,tags)")
            child.add_argument("--delimiter", choices=("tab", "comma", "semicolon"),
                               help="the separator (default: found from the file)")

    import_anki = command("anki", "reviews and schedules from an Anki package (.apkg) or collection (.colpkg)",
                          level=2, within=import_sub, parent="import")
    import_anki.add_argument("file", metavar="FILE.apkg|FILE.colpkg")
    import_anki.add_argument("--dry-run", action="store_true", help="say what would come in; change nothing")

    export = command("export", "export decks")
    export_sub = export.add_subparsers(dest="format", metavar="FORMAT", parser_class=parser_class, required=True)
    anki = command("anki", "an Anki package (.apkg)", level=2, within=export_sub, parent="export")
    anki.add_argument("deck_ids", nargs="*", metavar="DECK")
    anki.add_argument("-o", "--output", required=True, metavar="FILE.apkg")
    anki.add_argument("--with-progress", action="store_true",
                      help="also carry this profile's schedules, review log and options (Anki: import with "
                           "'Import any learning progress')")
    log = command("log", "this profile's review log as JSON, for a team's pooled fit (studyapp optimize --from)",
                  level=2, within=export_sub, parent="export")
    log.add_argument("-o", "--output", metavar="FILE.json", help="where to write it (default: stdout)")

    optimize = command("optimize", "fit FSRS parameters to the review log (Anki's Optimize)")
    optimize.add_argument("--preset", metavar="NAME",
                          help="the deck option preset to fit (default: Default; with --from: the preset to "
                               "create or update, default Team)")
    optimize.add_argument("--from", dest="from_files", nargs="+", metavar="LOG.json",
                          help="fit on these exported logs pooled together (studyapp export log)")
    optimize.add_argument("--json", action="store_true")

    stats = command("stats", "progress statistics")
    stats.add_argument("deck_ids", nargs="*", metavar="DECK")
    stats.add_argument("--json", action="store_true")

    report = command("report", "a learner's progress, for onboarding leads")
    report.add_argument("--format", choices=("md", "json", "html"), default="md",
                        help="md (default), json, or html: one self-contained page with charts")
    report.add_argument("--merge", nargs="+", metavar="FILE", help="merge several learners' JSON reports into a team table")
    report.add_argument("--team", action="store_true", help="the team table from the team server (see --server)")
    sync = command("sync", "this profile's reviews to and from the team server")
    sync.add_argument("--json", action="store_true")

    server = command("server", "set up the team's PostgreSQL server")
    server_sub = server.add_subparsers(dest="action", metavar="ACTION", parser_class=parser_class, required=True)
    init = command("init", "create the schema, roles and row-level security (run once, as the database owner)",
                   level=2, within=server_sub, parent="server")
    init.add_argument("url", metavar="URL", help="postgresql://OWNER@HOST/DB")
    init.add_argument("--learner", action="append", metavar="ROLE", help="a learner's login role; repeatable")
    init.add_argument("--lead", action="append", metavar="ROLE", help="an onboarding lead's role; repeatable")
    return parser, commands


COMMAND_NAMES = ("study", "quiz", "list", "check", "new", "import", "export", "optimize", "stats", "report",
                 "sync", "server")


def parse(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The first word that names a command is the command, unless it is an option's value (then
    # the one-command parser fails, and the full one parses).
    only = next((word for word in argv if word in COMMAND_NAMES), "")
    try:
        args, extra = build_parser(only)[0].parse_known_args(argv)
        if not extra:
            return args
    except _NotThisParser:
        pass
    return _parse_with_every_command(argv)


def _parse_with_every_command(argv: list[str]) -> argparse.Namespace:
    """Parse, print help or the version, or refuse with a usage error, as the full parser does."""
    parser, commands = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse would print the top-level usage; the command's own says what it takes.
        nested = {"export": "format", "import": "format", "server": "action"}.get(args.command)
        name = f"{args.command} {getattr(args, nested, '')}" if nested else args.command
        (commands.get(name) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def global_options(args: argparse.Namespace) -> dict:
    """The global options from every level: a later level wins, ``--decks`` folders add up."""
    values: dict = {"decks": []}
    for level in range(3):
        for name in GLOBAL_OPTIONS:
            value = getattr(args, f"global{level}_{name}", None)
            if value is None:
                continue
            if name == "decks":
                values["decks"] += value
            else:
                values[name] = value
    return values


def build_context(args: argparse.Namespace, environ=None, cwd=None):
    from pathlib import Path

    from .context import Context
    from .core.settings import resolve

    environ = os.environ if environ is None else environ
    options = global_options(args)
    location = resolve(options.get("home"), options.get("profile"), options["decks"], environ=environ,
                       cwd=Path.cwd() if cwd is None else cwd)
    lang = options.get("lang") or environ.get("STUDYAPP_LANG") or None
    if lang is not None and lang not in ("zh", "en", "both"):
        raise StudyappError(f"STUDYAPP_LANG={lang!r}: use zh, en or both", code="usage")
    return Context(location, lang=lang, server=options.get("server"))


def main(argv: list[str] | None = None) -> int:
    streams = sys.stdout, sys.stderr
    # Decks, reports and file names reach the terminal through these: an escape sequence in them
    # is printed as \x1b..., never obeyed. (Textual owns the terminal in the UI, which escapes in
    # its own rendering, so the streams are handed back before it starts.)
    _show_control_characters_visibly()
    code = None
    try:
        args = parse(argv)
        command = args.command or "home"
        if command in TUI_COMMANDS:
            sys.stdout, sys.stderr = streams
            code = _dataclass_code(args)
        context = build_context(args)
        from .commands import run

        return run(command, context, args)
    except StudyappError as error:
        print(error.format(), file=sys.stderr)
        return EXIT_USAGE if error.code == "usage" else EXIT_FAILURE
    except KeyboardInterrupt:
        print("studyapp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head`: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    finally:
        sys.stdout, sys.stderr = streams
        if code is not None:
            code.uninstall()
            code.save()


TUI_COMMANDS = {"home", "study", "quiz"}


def _dataclass_code(args: argparse.Namespace):
    """The terminal app's commands create about 100 dataclasses (the decks', Textual's, the
    app's): their methods are compiled once and kept (studyapp/dataclass_code.py)."""
    from .core.settings import home_dir
    from .dataclass_code import DataclassCode

    try:
        home = home_dir(global_options(args).get("home"))
    except Exception:  # platformdirs missing, say: build_context says so properly
        return None
    code = DataclassCode(home / "cache" / "dataclasses.marshal")
    return code if code.install() else None


def _show_control_characters_visibly() -> None:
    from .core.terminal_text import VisibleWriter

    sys.stdout, sys.stderr = VisibleWriter(sys.stdout), VisibleWriter(sys.stderr)
