"""``studyapp optimize [--preset NAME] [--from LOG.json...] [--json]`` and ``studyapp export log [-o FILE]``.

Fitting is ``core.optimize`` (Anki's conversion, the crate's fit); this module opens the
store, reads exported logs and prints.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..core.clock import SystemClock
from ..core.presets import DEFAULT_PRESET
from ..core.problems import StudyappError
from ..core.wording import plural

LOG_FORMAT = "studyapp-review-log"
LOG_VERSION = 1
POOLED_PRESET = "Team"


def run_optimize(context, args) -> int:
    from ..core import optimize
    from ..store import open_store

    now_ms = SystemClock().now_ms()
    if args.from_files:
        logs = [read_log(Path(name)) for name in args.from_files]
        name = args.preset or POOLED_PRESET
        result = optimize.pooled_fit(logs, now_ms=now_ms)
        meta = {"preset": name, "decks": [], "relearning_steps": 1, "logs": [str(p) for p in args.from_files]}
        store = open_store(context.location)
        with store:
            if result.adopted:
                store.save_fitted_parameters(name, result.parameters, reviews=result.reviews, items=result.items,
                                             source="pooled", fit=result.to_dict(), fitted_ms=now_ms)
    else:
        if not context.location.database.exists():
            raise StudyappError(f"profile {context.profile!r} has no progress yet ({context.location.database}); "
                                "study first, then optimize")
        store = open_store(context.location)
        with store:
            result, meta = optimize.optimize_preset(store, args.preset or DEFAULT_PRESET, now_ms=now_ms)
    if args.json:
        print(json.dumps({**meta, **result.to_dict()}, indent=2))
        return 0
    _print(result, meta)
    return 0


def _print(result, meta: dict) -> None:
    source = (f"{plural(len(meta['logs']), 'pooled log')}" if meta.get("logs")
              else f"decks {', '.join(meta['decks'])}")
    print(f"Preset {meta['preset']}: {plural(result.reviews, 'review')} of {plural(result.cards, 'card')} ({source}) "
          f"gave {plural(result.items, 'training item')}")
    print(f"{'':<10}  {'log loss':>8}  {'RMSE(bins)':>10}")
    for label, ev in (("current", result.current_eval), ("fitted", result.fitted_eval)):
        print(f"{label:<10}  {ev.log_loss:>8.4f}  {ev.rmse_bins:>10.4f}")
    verdict = "Adopted" if result.adopted else "Not adopted"
    print(f"{verdict}: {result.reason}")
    print("Parameters in use: " + ", ".join(f"{v:.4f}" for v in result.parameters))


# ---------------------------------------------------------------- export log


def run_export_log(context, args) -> int:
    from ..core.scheduler import resolve_zone, zone_name
    from ..store import open_store

    if not context.location.database.exists():
        raise StudyappError(f"profile {context.profile!r} has no progress yet ({context.location.database}); "
                            "nothing to export")
    store = open_store(context.location, readonly=True)
    if store is None:
        raise StudyappError(f"profile {context.profile!r} has no progress yet; nothing to export")
    with store:
        settings = store.load_settings()
        rows = store.optimizer_log()
    document = {
        "format": LOG_FORMAT, "version": LOG_VERSION, "profile": context.profile,
        "exported_ms": SystemClock().now_ms(), "timezone": zone_name(resolve_zone(settings.timezone)),
        "rollover_hour": settings.rollover_hour,
        "reviews": [{"item": key, "kind": kind, "rating": rating, "time_ms": time_ms, "state_before": before,
                     "duration_ms": duration} for key, kind, rating, time_ms, before, duration in rows],
    }
    text = json.dumps(document, ensure_ascii=False)
    if args.output in (None, "-"):
        print(text)
        return 0
    output = Path(args.output)
    try:
        output.write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise StudyappError(f"cannot write {output}: {error.strerror or error}") from None
    when = datetime.fromtimestamp(document["exported_ms"] / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Wrote {output}: {plural(len(rows), 'log row')} of profile {context.profile!r} ({when})", file=sys.stderr)
    return 0


def read_log(path: Path) -> dict:
    """An exported log, checked: a bad file is named with the line and what to do."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise StudyappError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        line, column = getattr(error, "lineno", 0), getattr(error, "colno", 0)
        raise StudyappError(f"not valid JSON ({getattr(error, 'msg', error)}); give a file written by "
                            "'studyapp export log -o FILE'", path=path, line=line, column=column) from None
    if not isinstance(document, dict) or document.get("format") != LOG_FORMAT:
        raise StudyappError(f"not a studyapp review log (no \"format\": \"{LOG_FORMAT}\"); give a file written by "
                            "'studyapp export log -o FILE'", path=path, line=1, column=1)
    if document.get("version") != LOG_VERSION:
        raise StudyappError(f"review log version {document.get('version')!r} is not one this studyapp reads "
                            f"({LOG_VERSION}); export it again with this version", path=path, line=1, column=1)
    reviews = document.get("reviews")
    if not isinstance(reviews, list):
        raise StudyappError("\"reviews\" must be a list of log rows", path=path, line=1, column=1)
    if not isinstance(document.get("rollover_hour"), int) or not isinstance(document.get("timezone"), str):
        raise StudyappError("\"rollover_hour\" (a whole hour) and \"timezone\" (an IANA name) are required",
                            path=path, line=1, column=1)
    for index, row in enumerate(reviews):
        if (not isinstance(row, dict) or not isinstance(row.get("item"), str)
                or row.get("kind") not in ("review", "cram", "reset")
                or not isinstance(row.get("rating"), int) or not 0 <= row["rating"] <= 4
                or not isinstance(row.get("time_ms"), int)
                or row.get("state_before") not in ("new", "learning", "review", "relearning")):
            raise StudyappError(f"review {index + 1} is not a log row (item, kind review|cram|reset, rating 0-4, "
                                f"time_ms, state_before): {json.dumps(row)[:120]}; export the log again",
                                path=path, line=1, column=1)
    try:
        from ..core.scheduler import resolve_zone

        resolve_zone(document["timezone"])
    except StudyappError as error:
        raise StudyappError(error.message, path=path, line=1, column=1) from None
    return document
