"""``studyapp report [--format md|json]`` and ``studyapp report --merge FILE...``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.problems import StudyappError


def run_report(context, args) -> int:
    if args.merge:
        return _merge(args)
    from ..onboarding.collect import collect_report

    report = collect_report(context.location, context.catalog())
    if args.format == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2))
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
    if args.format == "json":
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        print(team_markdown(summary), end="")
    return 1 if result.rejected else 0
