"""Entry points that cli.py dispatches to: ``studyapp``, ``studyapp study``, ``studyapp quiz``.

Only what the first screen needs is imported here; decks load and the database opens in
workers once the first frame is up.
"""

from __future__ import annotations

import sys

from ..core.problems import StudyappError
from ..core.settings import resolve


def run_home(args) -> int:
    return _run(args, screen="home")


def run_study(args) -> int:
    return _run(args, screen="study", deck_ids=tuple(args.deck_ids), cram=bool(getattr(args, "cram", False)))


def run_quiz(args) -> int:
    if args.n < 1:
        raise StudyappError(f"-n {args.n}: a quiz needs at least one question", code="usage")
    return _run(args, screen="quiz", deck_ids=tuple(args.deck_ids), quiz_n=args.n, quiz_mode=args.mode,
                quiz_seed=args.seed, exam=bool(getattr(args, "exam", False)))


def _run(args, **start) -> int:
    from .app import Start, StudyApp
    from .config import load_config
    from .services import Services

    location = resolve(args.home, args.profile, args.decks)
    services = Services(location, deck_dirs=args.decks)
    app = StudyApp(services, load_config(location.home), Start(**start))
    try:
        app.run()
    finally:
        services.close()
    if app.error_message:
        print(f"studyapp: error: {app.error_message}", file=sys.stderr)
    return app.return_code or 0
