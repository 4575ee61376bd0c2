"""Times as a learner reads them: "in 9 minutes (15:20)", "tomorrow at 04:00", "3 min 20 s"."""

from __future__ import annotations

from datetime import datetime, tzinfo

MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def duration(ms: int) -> str:
    seconds = max(0, ms) // 1000
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def relative(when_ms: int, now_ms: int) -> str:
    delta = when_ms - now_ms
    if delta <= 0:
        return "now"
    if delta < HOUR:
        minutes = max(1, round(delta / MINUTE))
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    if delta < DAY:
        hours = round(delta / HOUR)
        return f"in {hours} hour{'s' if hours != 1 else ''}"
    days = round(delta / DAY)
    return f"in {days} day{'s' if days != 1 else ''}"


def when(when_ms: int | None, now_ms: int, zone: tzinfo) -> str:
    """Relative and absolute, in the learner's time zone."""
    if when_ms is None:
        return "nothing is scheduled"
    moment = datetime.fromtimestamp(when_ms / 1000, zone)
    today = datetime.fromtimestamp(now_ms / 1000, zone).date()
    if moment.date() == today:
        stamp = moment.strftime("%H:%M")
    elif (moment.date() - today).days == 1:
        stamp = "tomorrow " + moment.strftime("%H:%M")
    else:
        stamp = moment.strftime("%Y-%m-%d %H:%M")
    return f"{relative(when_ms, now_ms)} ({stamp})"
