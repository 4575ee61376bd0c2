"""A team table from several learners' JSON reports: who is on track, who is behind, what is hardest.

Reports from this report version merge as they are. A report with missing fields is merged
with those figures left blank and a warning naming them; a file that is not a studyapp
report, or that a newer studyapp wrote, is rejected with a message that says what to do.
Every field is checked against the report's schema first (report_schema.py): a file with
a field of the wrong type or range is rejected with its path, line and the field's JSON path,
and the other files merge without it. Nothing here raises for bad input.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .report import REPORT_FORMAT, REPORT_VERSION, date_only, percent, table_cell
from .report_schema import FLAG, MAX_DEPTH, check, locate, too_deep

# field -> default when missing (a report of this version should have them all)
TOP_FIELDS = {"profile": None, "generated_ms": 0, "totals": {}, "decks": [], "tracks": [], "exams": [], "cards": []}
# Fields added within this version: a report written before them merges without a warning.
OPTIONAL_FIELDS = {"flags": []}
TOTAL_FIELDS = ("items", "mastered", "mastery", "reviews", "retention", "time_ms", "streak_days", "last_studied_ms")
HARD_CARD_MIN_REVIEWS = 3


@dataclass
class MergeResult:
    learners: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


REGENERATE = "pass the JSON written by 'studyapp report --format json'"


def read_report(path: Path) -> tuple[dict | None, list[str]]:
    """(report, warnings) or (None, [why it was rejected])."""
    where = str(path)
    try:
        # A FIFO or a device would block the merge or never end: only a file can be a report.
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, [f"{where}: error: not a regular file; {REGENERATE}"]
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return None, [f"{where}: error: cannot read the file ({getattr(error, 'strerror', None) or error}); "
                      f"{REGENERATE}"]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, [f"{where}:{error.lineno}:{error.colno}: error: not valid JSON ({error.msg}); {REGENERATE}"]
    except RecursionError:
        line, column = too_deep(text) or (1, 1)
        return None, [f"{where}:{line}:{column}: error: nested more than {MAX_DEPTH} levels deep, which no "
                      f"studyapp report is; {REGENERATE}"]
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        return None, [f"{where}: error: not a studyapp report (no \"format\": \"{REPORT_FORMAT}\"); {REGENERATE}"]
    version = data.get("version")
    if type(version) is not int:
        return None, [f"{where}: error: the report has no valid version number; regenerate it with 'studyapp report --format json'"]
    if version > REPORT_VERSION:
        writer = data.get("studyapp")
        writer = writer[:40] if isinstance(writer, str) else "unknown"
        return None, [f"{where}: error: report version {version} was written by a newer studyapp ({writer}); "
                      f"this one reads version {REPORT_VERSION}: upgrade studyapp to merge it"]
    if version != REPORT_VERSION:
        return None, [f"{where}: error: report version {version} is not one studyapp writes (it writes version "
                      f"{REPORT_VERSION}); regenerate it with 'studyapp report --format json'"]
    problems = check(data)
    if problems:
        first = problems[0]
        line, column = locate(text, first.path)
        more = ""
        if len(problems) > 1:
            others = ", ".join(p.json_path for p in problems[1:4]) + (", ..." if len(problems) > 4 else "")
            more = f" (and {len(problems) - 1}{'+' if len(problems) >= 20 else ''} more: {others})"
        return None, [f"{where}:{line}:{column}: error: {first.json_path} is {first.found}, expected "
                      f"{first.expected}{more}; this is not a report as studyapp writes it: regenerate it with "
                      "'studyapp report --format json' (the other files are merged without it)"]
    warnings = []
    missing = [name for name in TOP_FIELDS if name not in data]
    totals = data.get("totals", {})
    missing += [f"totals.{name}" for name in TOTAL_FIELDS if name not in totals]
    for name, default in TOP_FIELDS.items():
        if default is not None and name not in data:
            data[name] = type(default)()  # an empty list or mapping, or 0
    data["totals"] = {name: totals.get(name) for name in TOTAL_FIELDS}
    flags = data.get("flags", [])
    if not isinstance(flags, list):
        warnings.append(f"{where}: warning: \"flags\" is not a list; merged without this learner's flags")
        flags = []
    kept = [(index, f) for index, f in enumerate(flags) if isinstance(f, dict) and "key" in f and "note" in f]
    if len(kept) < len(flags):
        warnings.append(f"{where}: warning: {len(flags) - len(kept)} flag(s) without a \"key\" and a \"note\" "
                        "left out")
    fitting = []
    for index, flag in kept:
        wrong = check(flag, FLAG, limit=1, at=("flags", index))
        if wrong:
            line, column = locate(text, wrong[0].path)
            warnings.append(f"{where}:{line}:{column}: warning: {wrong[0].json_path} is {wrong[0].found}, expected "
                            f"{wrong[0].expected}; that flag is left out")
        else:
            fitting.append(flag)
    data["flags"] = fitting
    # Each list's entries are used by their ids: one without is left out rather than guessed at.
    data["decks"] = [d for d in data["decks"] if "id" in d]
    data["cards"] = [c for c in data["cards"] if "key" in c]
    if not data.get("profile"):
        data["profile"] = path.stem
    if missing:
        warnings.append(f"{where}: warning: report version {version} lacks {', '.join(missing)}; "
                        "merged with those figures left blank")
    return data, warnings


def merge_reports(paths: list[Path]) -> MergeResult:
    result = MergeResult()
    by_profile: dict[str, tuple[dict, Path]] = {}
    for path in paths:
        report, messages = read_report(path)
        if report is None:
            result.rejected += messages
            continue
        result.warnings += messages
        profile = str(report["profile"])
        if profile in by_profile:
            kept, kept_path = by_profile[profile]
            newer = report if (report["generated_ms"] or 0) >= (kept["generated_ms"] or 0) else kept
            result.warnings.append(f"{path}: warning: profile '{profile}' also in {kept_path}; the newer report is used")
            by_profile[profile] = (newer, path if newer is report else kept_path)
        else:
            by_profile[profile] = (report, path)
    result.learners = [report for report, _ in sorted(by_profile.values(), key=lambda rp: str(rp[0]["profile"]))]
    return result


def learner_status(report: dict) -> str:
    statuses = [t.get("status") for t in report["tracks"] if isinstance(t, dict)]
    if not statuses:
        return "no curriculum"
    if "behind" in statuses:
        return "behind"
    if all(s == "done" for s in statuses):
        return "done"
    return "on track"


def team_summary(result: MergeResult) -> dict:
    learners = []
    deck_totals: dict[str, dict] = {}
    card_totals: dict[str, dict] = {}
    flags: list[dict] = []
    for report in result.learners:
        flags += [{"profile": report["profile"], "key": f["key"], "note": f["note"], "time_ms": f.get("time_ms"),
                   "date": f.get("date")} for f in report.get("flags", [])]
        totals = report["totals"]
        exams = [e for e in report["exams"] if isinstance(e, dict)]
        last_exam = exams[-1] if exams else None
        learners.append({
            "profile": report["profile"], "status": learner_status(report),
            "behind": [t.get("id") for t in report["tracks"] if isinstance(t, dict) and t.get("status") == "behind"],
            "mastery": totals.get("mastery"), "reviews": totals.get("reviews"), "retention": totals.get("retention"),
            "time_ms": totals.get("time_ms"), "streak_days": totals.get("streak_days"),
            "last_studied_ms": totals.get("last_studied_ms"),
            "last_exam": None if last_exam is None else {"score": last_exam.get("score"), "passed": last_exam.get("passed")},
        })
        for deck in report["decks"]:
            if not isinstance(deck, dict) or "id" not in deck:
                continue
            entry = deck_totals.setdefault(deck["id"], {"id": deck["id"], "learners": 0, "reviews": 0, "passed": 0, "answers": 0,
                                                        "mastery_sum": 0.0})
            entry["learners"] += 1
            reviews = deck.get("reviews") or 0
            entry["reviews"] += reviews
            # Retention's own count of answers (True Retention leaves some reviews out); older reports lack it.
            answers = deck.get("retention_answers", reviews) or 0
            entry["answers"] += answers
            entry["passed"] += round((deck.get("retention") or 0) * answers)
            entry["mastery_sum"] += deck.get("mastery") or 0.0
        for card in report["cards"]:
            if not isinstance(card, dict) or "key" not in card:
                continue
            entry = card_totals.setdefault(card["key"], {"key": card["key"], "reviews": 0, "again": 0, "learners": 0})
            entry["reviews"] += card.get("reviews") or 0
            entry["again"] += card.get("again") or 0
            entry["learners"] += 1
    decks = []
    for entry in deck_totals.values():
        decks.append({"id": entry["id"], "learners": entry["learners"], "reviews": entry["reviews"],
                      "retention": entry["passed"] / entry["answers"] if entry["answers"] else None,
                      "mastery": entry["mastery_sum"] / entry["learners"]})
    # Hardest first: lowest retention, then lowest mastery; decks nobody reviewed last.
    decks.sort(key=lambda d: (d["retention"] is None, d["retention"] if d["retention"] is not None else 1, d["mastery"], d["id"]))
    cards = [dict(c, again_share=c["again"] / c["reviews"]) for c in card_totals.values()
             if c["reviews"] >= HARD_CARD_MIN_REVIEWS and c["again"]]
    cards.sort(key=lambda c: (-c["again_share"], -c["reviews"], c["key"]))
    # By card, so a maintainer reads every note on one card together.
    flags.sort(key=lambda f: (f["key"], f["time_ms"] if isinstance(f["time_ms"], int) else 0, str(f["profile"])))
    return {"format": "studyapp-team-report", "version": 1, "learners": learners, "decks": decks, "cards": cards[:10],
            "flags": flags, "warnings": result.warnings, "rejected": result.rejected}


def team_markdown(summary: dict) -> str:
    lines = ["# Team progress", "", "| learner | status | behind on | mastery | reviews | retention | streak | last studied | last exam |",
             "|---|---|---|---|---|---|---|---|---|"]
    for l in summary["learners"]:
        exam = l["last_exam"]
        exam_text = "—" if exam is None else f"{percent(exam['score'])} ({'passed' if exam['passed'] else 'not passed'})"
        streak = "—" if l["streak_days"] is None else f"{l['streak_days']} d"
        behind = table_cell(", ".join(map(str, l["behind"]))) or "—"
        lines.append(f"| {table_cell(l['profile'])} | {table_cell(l['status'])} | {behind} | {percent(l['mastery'])} | "
                     f"{l['reviews'] if l['reviews'] is not None else '—'} | {percent(l['retention'])} | {streak} | "
                     f"{date_only(l['last_studied_ms'])} | {exam_text} |")
    lines += ["", "## Hardest decks", "", "| deck | learners | reviews | retention | mean mastery |", "|---|---|---|---|---|"]
    for d in summary["decks"]:
        lines.append(f"| {table_cell(d['id'])} | {d['learners']} | {d['reviews']} | {percent(d['retention'])} | {percent(d['mastery'])} |")
    lines += ["", f"## Hardest cards (at least {HARD_CARD_MIN_REVIEWS} reviews across the team)", ""]
    if summary["cards"]:
        lines += ["| card | learners | reviews | again |", "|---|---|---|---|"]
        for c in summary["cards"]:
            lines.append(f"| {table_cell(c['key'])} | {c['learners']} | {c['reviews']} | {c['again']} ({percent(c['again_share'])}) |")
    else:
        lines.append("No card has been missed often enough to stand out yet.")
    lines += ["", "## Flags from learners", ""]
    if summary.get("flags"):
        lines += ["| item | learner | note | flagged |", "|---|---|---|---|"]
        for f in summary["flags"]:
            lines.append(f"| {table_cell(f['key'])} | {table_cell(f['profile'])} | {table_cell(f['note']) or '(no note)'} | "
                         f"{table_cell((f.get('date') or '—')[:10])} |")
    else:
        lines.append("No learner has flagged a card.")
    return "\n".join(lines) + "\n"
