"""``studyapp report [--format md|json]`` and ``studyapp report --merge FILE...``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.problems import StudyappError


def run_report(context, args) -> int:
    if args.merge and args.team:
        raise StudyappError("--merge reads JSON reports and --team reads the server: use one of them", code="usage")
    if args.merge:
        return _merge(args)
    if args.team:
        return _team(context, args)
    from ..onboarding.collect import collect_report

    if args.format == "html":
        from ..onboarding.collect import collect_series
        from ..onboarding.html import learner_html

        report = collect_report(context.location, context.catalog())
        print(learner_html(report, collect_series(context.location, context.catalog())), end="", file=context.stdout)
        return 0
    # Markdown and JSON need no card but each deck's facts: the summary kept with the deck cache.
    report = collect_report(context.location, context.catalog_summary())
    if args.format == "json":
        from ..core.jsontext import dumps

        print(dumps(report))  # json.dumps(ensure_ascii=False, indent=2, allow_nan=False)'s text, faster
    else:
        from ..onboarding.report import to_markdown

        print(to_markdown(report), end="")
    return 0


def _merge(args) -> int:
    from ..onboarding.merge import merge_reports, team_markdown, team_summary

    paths = [Path(p) for p in args.merge]
    result = merge_reports(paths)
    for message in result.rejected + result.warnings:
        print(message, file=sys.stderr)
    if not result.learners:
        raise StudyappError("no report could be merged; pass files written by 'studyapp report --format json'")
    summary = team_summary(result)
    if args.format == "html":
        from ..onboarding.html import team_html

        print(team_html(summary), end="")
    elif args.format == "json":
        print(json.dumps(summary, ensure_ascii=False, indent=2, allow_nan=False))
    else:
        print(team_markdown(summary), end="")
    return 1 if result.rejected else 0


def _team(context, args) -> int:
    """Everyone's progress from the team server: the table --merge makes, without collecting files."""
    from ..core.catalog import deck_dirs
    from ..core.clock import SystemClock
    from ..core.curriculum import first_curriculum
    from ..core.scheduler import Settings
    from ..onboarding.merge import MergeResult, team_markdown, team_summary
    from ..store import open_store
    from ..sync.client import connect
    from ..sync.config import required_server_url
    from ..sync.team import team_reports

    url = required_server_url(context.server, context.home, "report --team")
    catalog = context.catalog()
    curriculum, _ = first_curriculum(deck_dirs(context.deck_dirs), {deck.id for deck in catalog.decks})
    settings = Settings()
    store = open_store(context.location, readonly=True)
    if store is not None:
        with store:
            settings = store.load_settings()
    days = settings.study_days()
    conn = connect(url)
    try:
        from ..sync.server import check_server

        check_server(conn)
        reports = team_reports(conn, catalog.decks, curriculum, SystemClock().now_ms(), days.day_of, days.date_of)
    finally:
        conn.close()
    if not reports:
        raise StudyappError("the server holds no learner's progress yet (each learner runs 'studyapp sync')")
    summary = team_summary(MergeResult(learners=reports))
    if args.format == "html":
        from ..onboarding.html import team_html

        print(team_html(summary), end="", file=context.stdout)
        return 0
    if args.format == "json":
        print(json.dumps(summary, ensure_ascii=False, indent=2, allow_nan=False), file=context.stdout)
    else:
        print(team_markdown(summary), end="", file=context.stdout)
    return 0
