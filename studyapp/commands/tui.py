"""``studyapp``, ``studyapp study`` and ``studyapp quiz``: the commands that open the terminal UI.

What can be refused on the command line is refused here, before the screen is taken over
(an unknown deck id, options that do not go together): the message then stays in the terminal
and the exit status says usage error. Only what the first screen needs is imported; decks load
and the database opens in workers once the first frame is up.
"""

from __future__ import annotations

import gc
import sys

from ..core.gcpause import collector_paused
from ..core.problems import StudyappError

DEFAULT_QUIZ_QUESTIONS = 10
# How long after the first screen shows its content what the start-up parsed of the CSS is still
# kept for the next start (and the caches saved again: tui/stylecache.py, dataclass_code.py).
STYLES_RECORDED_S = 1.0


# The terminal app's commands run with the cycle collector off until the app's first screen is
# up (the app turns it back on then: StudyApp.first_screen_ready). Start-up allocates Textual's
# and the app's classes, modules and widgets, which live as long as the app: the collector walked
# them over and over as they appeared (over a hundred collections, about 20 ms of the start), and
# found almost nothing to free.
@collector_paused()
def run_home(context, args) -> int:
    return _run(context, screen="home")


@collector_paused()
def run_study(context, args) -> int:
    deck_ids = _checked_deck_ids(context, args.deck_ids)
    return _run(context, screen="study", deck_ids=deck_ids, cram=bool(getattr(args, "cram", False)))


@collector_paused()
def run_quiz(context, args) -> int:
    if args.exam:
        extras = [name for name, given in (("DECK", args.deck_ids), ("-n", args.n is not None),
                                           ("--mode", args.mode != "mixed")) if given]
        if extras:
            raise StudyappError(f"--exam takes its decks, size and mode from the curriculum, so it cannot be "
                                f"combined with {', '.join(extras)}; drop them, or leave out --exam for a "
                                "practice quiz", code="usage")
        return _run(context, screen="quiz", quiz_seed=args.seed, exam=True)
    n = DEFAULT_QUIZ_QUESTIONS if args.n is None else args.n
    if n < 1:
        raise StudyappError(f"-n {n}: a quiz needs at least one question", code="usage")
    deck_ids = _checked_deck_ids(context, args.deck_ids)
    from ..core.quiz import eligible

    decks = context.select_decks(deck_ids)
    available = len(eligible(decks, args.mode))
    where = ", ".join(deck_ids) if deck_ids else "your decks"
    if available == 0:
        raise StudyappError(f"{where}: no question fits --mode {args.mode}; try --mode mixed", code="usage")
    notice = None
    if available < n:
        kind = "" if args.mode == "mixed" else f"{args.mode} "
        notice = (f"{where} {'has' if len(deck_ids) == 1 else 'have'} {available} {kind}question"
                  f"{'' if available == 1 else 's'}, fewer than the {n} asked for: the quiz has {available}.")
    return _run(context, screen="quiz", deck_ids=deck_ids, quiz_n=n, quiz_mode=args.mode, quiz_seed=args.seed,
                notice=notice)


def _checked_deck_ids(context, deck_ids) -> tuple[str, ...]:
    """The deck ids as the catalog knows them (a unique prefix completed), or a usage error now."""
    if not deck_ids:
        return ()
    return tuple(deck.id for deck in context.select_decks(deck_ids))


def _run(context, **start) -> int:
    from ..tui.app import Start, StudyApp
    from ..tui.config import load_config
    from ..tui.services import Services

    from ..core.language import chosen_language

    config = load_config(context.home)
    # --lang and STUDYAPP_LANG (already in the context) win over the Settings choice.
    language = chosen_language(context.lang, {}, config.lang)
    from ..sync.config import server_url

    services = Services(context.location, catalog=context._catalog, language=language)
    services.server_url = server_url(context.server, context.home)
    from ..tui.stylecache import StyleCache

    app = StudyApp(services, config, Start(**start))
    app.resume_gc_when_ready = not gc.isenabled()
    styles = StyleCache(app.stylesheet, context.home / "cache" / "styles.pickle")
    from .. import dataclass_code

    code = dataclass_code.installed  # by cli.main
    app.when_first_screen_ready.append(lambda: _keep_caches(app, styles, code))
    try:
        app.run()
    finally:
        services.close()
    styles.save()
    if app.error_message:
        print(f"studyapp: error: {app.error_message}", file=sys.stderr)
    elif services.server_url:
        _sync_on_leaving(services)
    if app.exit_message:
        print(app.exit_message, file=sys.stderr)
    return app.return_code or 0


def _keep_caches(app, styles, code) -> None:
    """The start-up's parsed CSS and compiled dataclass methods, saved as soon as the first screen
    shows its content when there is anything new (a start that is killed once its first screen
    is up, as the benchmark's are, keeps them too; that save holds the frame back while it
    writes), and again with what came in the next second: the footer's keys come a frame or two
    later. CSS parsed after that (other screens) would only make the next start read more."""
    styles.save()
    if code is not None:
        code.save()

    def stop() -> None:
        styles.stop_recording()
        styles.save()
        if code is not None:
            code.save()

    app.set_timer(STYLES_RECORDED_S, stop)


def _sync_on_leaving(services) -> None:
    """What was answered goes up as the app closes; offline, it waits for the next sync."""
    try:
        result = services.sync_with_server()
    except StudyappError as error:
        print(f"studyapp: not synced ({error.message}); your answers are kept here and go up at the next sync",
              file=sys.stderr)
        return
    print(f"studyapp: {result.summary()}", file=sys.stderr)
