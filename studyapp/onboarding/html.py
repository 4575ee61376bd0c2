"""``report --format html``: one self-contained page, for people who would rather look than read.

No script, no stylesheet or font from elsewhere, no network: the charts are inline SVG drawn
here, so the file opens anywhere, offline, and shows the same thing in every browser. Every
value that came from a deck, a profile or a report is escaped: the page only says what
studyapp wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

MASTERY_DAYS = 21.0
FORECAST_DAYS = 30
HISTORY_DAYS = 60
BAR = "#3b82f6"      # reviews per day
AGAIN = "#ef4444"    # of them, answered Again
MASTERY = "#16a34a"  # mastery over time
DUE = "#f59e0b"      # the due forecast
TARGET = "#6b7280"


@dataclass
class Series:
    """What the charts draw, per study day (dates as the learner's own calendar has them)."""

    reviews: list[tuple[str, int, int]] = field(default_factory=list)  # (date, answers, of them Again)
    mastery: list[tuple[str, float]] = field(default_factory=list)     # (date, share of items mastered)
    forecast: list[tuple[str, int]] = field(default_factory=list)      # (date, reviews due)


def learner_series(log, items_total: int, due_ms: list[int], today: int, day_of, date_of) -> Series:
    """``log``: (item id, kind, rating, time_ms, state_after, stability) in the order given, for one learner."""
    series = Series()
    per_day: dict[int, list[int]] = {}
    mastered: set[int] = set()
    mastery_by_day: dict[int, float] = {}
    for item_id, kind, rating, time_ms, state_after, stability in log:
        day = day_of(time_ms)
        if kind == "review":
            counts = per_day.setdefault(day, [0, 0])
            counts[0] += 1
            counts[1] += rating == 1
            if state_after == "review" and stability is not None and stability >= MASTERY_DAYS:
                mastered.add(item_id)
            else:
                mastered.discard(item_id)
        elif kind == "reset":
            mastered.discard(item_id)
        mastery_by_day[day] = len(mastered) / items_total if items_total else 0.0
    first = min(per_day, default=today)
    for day in range(max(first, today - HISTORY_DAYS + 1), today + 1):
        answers, again = per_day.get(day, (0, 0))
        series.reviews.append((str(date_of(day)), answers, again))
    level = 0.0
    for day in range(min(mastery_by_day, default=today), today + 1):
        level = mastery_by_day.get(day, level)
        series.mastery.append((str(date_of(day)), level))
    due_days = [max(day_of(ms), today) for ms in due_ms]
    for day in range(today, today + FORECAST_DAYS):
        series.forecast.append((str(date_of(day)), sum(1 for d in due_days if d == day)))
    return series


# ---------------------------------------------------------------- drawing

WIDTH, HEIGHT, PAD = 720, 200, 28


def _bars(points: list[tuple[str, float]], color: str, title: str, label, overlay=None) -> str:
    top = max([value for _, value in points] + [1])
    step = (WIDTH - 2 * PAD) / max(len(points), 1)
    parts = [f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}">',
             f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="{TARGET}"/>']
    for index, (date, value) in enumerate(points):
        height = (HEIGHT - 2 * PAD) * value / top
        x = PAD + index * step
        parts.append(f'<rect x="{x:.1f}" y="{HEIGHT - PAD - height:.1f}" width="{max(step - 2, 1):.1f}" '
                     f'height="{height:.1f}" fill="{color}"><title>{escape(date)}: {escape(label(value))}</title></rect>')
        if overlay:
            extra = overlay[index]
            over = (HEIGHT - 2 * PAD) * extra / top
            parts.append(f'<rect x="{x:.1f}" y="{HEIGHT - PAD - over:.1f}" width="{max(step - 2, 1):.1f}" '
                         f'height="{over:.1f}" fill="{AGAIN}"/>')
    if points:
        parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" font-size="11">{escape(points[0][0])}</text>')
        parts.append(f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">'
                     f'{escape(points[-1][0])}</text>')
    parts.append(f'<text x="{PAD}" y="14" font-size="11">{escape(label(top))}</text></svg>')
    return "".join(parts)


def _line(points: list[tuple[str, float]], targets: list[tuple[str, float, str]]) -> str:
    """Mastery over time (0 to 100%), with each track's target drawn at its deadline."""
    dates = [date for date, _ in points]
    step = (WIDTH - 2 * PAD) / max(len(points) - 1, 1)

    def y(share: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * share

    path = " ".join(f"{'M' if i == 0 else 'L'}{PAD + i * step:.1f},{y(share):.1f}" for i, (_, share) in enumerate(points))
    parts = [f'<svg class="chart" role="img" aria-label="mastery over time" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}">',
             f'<line x1="{PAD}" y1="{y(0)}" x2="{WIDTH - PAD}" y2="{y(0)}" stroke="{TARGET}"/>',
             f'<line x1="{PAD}" y1="{y(1)}" x2="{WIDTH - PAD}" y2="{y(1)}" stroke="{TARGET}" stroke-dasharray="4"/>',
             f'<path d="{path}" fill="none" stroke="{MASTERY}" stroke-width="3"/>']
    for deadline, target, name in targets:
        index = dates.index(deadline) if deadline in dates else len(dates) - 1
        parts.append(f'<circle cx="{PAD + index * step:.1f}" cy="{y(target):.1f}" r="5" fill="{TARGET}">'
                     f'<title>{escape(name)}: {target:.0%} by {escape(deadline)}</title></circle>')
    parts.append(f'<text x="{PAD}" y="14" font-size="11">100%</text></svg>')
    return "".join(parts)


STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:760px;color:#111}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse}
td,th{border-bottom:1px solid #ddd;padding:.25rem .6rem;text-align:left}.chart{display:block}"""


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>" + "".join(body) + "</body></html>\n")


def _table(header: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _percent(value) -> str:
    return "—" if value is None else f"{value:.0%}"


def learner_html(report: dict, series: Series) -> str:
    t = report["totals"]
    targets = [(track["deadline"], track["target"], track["title"]) for track in report.get("tracks", [])
               if track.get("deadline")]
    hardest = [[c["key"], c["reviews"], c["again"]] for c in
               sorted((c for c in report.get("cards", []) if c.get("again")),
                      key=lambda c: (-c["again"] / c["reviews"], -c["reviews"], c["key"]))[:10]]
    body = [
        f"<h1>Progress report: {escape(str(report['profile']))}</h1>",
        f"<p>Generated {escape(str(report['generated']))} by studyapp {escape(str(report['studyapp']))}. "
        f"Mastery {_percent(t['mastery'])} of {escape(str(t['facts']))} facts; {escape(str(t['reviews']))} reviews, "
        f"retention {_percent(t['retention'])}.</p>",
        "<h2>Mastery over time</h2>", _line(series.mastery, targets),
        "<h2>Reviews per day</h2><p>Red: answered Again.</p>",
        _bars([(d, n) for d, n, _ in series.reviews], BAR, "reviews per day", lambda v: f"{v:.0f} reviews",
              overlay=[again for _, _, again in series.reviews]),
        "<h2>Due in the next 30 days</h2>",
        _bars(series.forecast, DUE, "due forecast", lambda v: f"{v:.0f} due"),
        "<h2>Hardest cards</h2>",
        _table(["card", "reviews", "again"], hardest) if hardest else "<p>No card answered Again yet.</p>",
        "<h2>Decks</h2>",
        _table(["deck", "mastery", "reviews", "retention"],
               [[d["id"], _percent(d["mastery"]), d["reviews"], _percent(d["retention"])] for d in report["decks"]]),
    ]
    return _page(f"Progress report: {report['profile']}", body)


def team_html(summary: dict) -> str:
    learners = summary.get("learners", [])
    body = [
        "<h1>Team progress</h1>",
        "<h2>Mastery by learner</h2>",
        _bars([(str(l["profile"]), l.get("mastery") or 0.0) for l in learners], MASTERY, "mastery by learner",
              _percent),
        _table(["learner", "status", "mastery", "reviews", "retention"],
               [[l["profile"], l["status"], _percent(l.get("mastery")), l.get("reviews"),
                 _percent(l.get("retention"))] for l in learners]),
        "<h2>Hardest decks</h2>",
        _table(["deck", "learners", "reviews", "retention", "mean mastery"],
               [[d["id"], d["learners"], d["reviews"], _percent(d["retention"]), _percent(d["mastery"])]
                for d in summary.get("decks", [])]),
        "<h2>Hardest cards</h2>",
        _table(["card", "reviews", "again", "learners"],
               [[c["key"], c["reviews"], c["again"], c["learners"]] for c in summary.get("cards", [])]),
    ]
    return _page("Team progress", body)
