"""A learner's progress report, for whoever runs the onboarding.

Mastery comes from the scheduler's memory state: an item is *mastered* when it is in the
review state with an FSRS stability of at least 21 days, i.e. the scheduler expects the
learner to still recall it three weeks after the last review with the desired retention
(Anki calls cards with intervals of 21 days or more "mature"; this is the same bar, read
from memory rather than from the interval). New, learning, relearning, suspended-but-weak
items are not mastered. Mastery counts facts, not items: a card is one fact however many
items it has (both sides of a reverse card, every deletion of a cloze), and cards that name
each other in ``related:`` are one fact together. A fact is mastered when every item of it
is; a deck's mastery is mastered facts / facts in the bank.

Retention is core.retention's, Anki's True Retention, the one every screen shows.

The report is built by a pure function from the store's rows, so it can be checked
against hand-computed figures on a scripted history.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Collection, Iterable, Sequence

from .. import __version__
from ..core.curriculum import Curriculum
from ..core.grades import AGAIN
from ..core.models import Deck, item_key
from ..core.queue import group_keys
from ..core.terminal_text import visible_line
from ..core.retention import DEFINITION as RETENTION_RULE, TrueRetention, bucket_days, spans_from_days, spans_json, true_retention

REPORT_FORMAT = "studyapp-report"
REPORT_VERSION = 1
MASTERY_STABILITY_DAYS = 21.0
MASTERY_RULE = (f"a fact (a card, however many items it has, together with the cards it names as related) "
                f"is mastered when every one of its items is in review with an FSRS stability of at least "
                f"{MASTERY_STABILITY_DAYS:g} days; mastery is mastered facts / facts")


@dataclass(frozen=True)
class ItemFacts:
    """What the report needs of a stored item."""

    key: str
    deck_id: str
    card_id: str
    state: str
    stability: float | None


@dataclass(frozen=True)
class Answer:
    """What the report needs of a review-log row."""

    key: str
    deck_id: str
    card_id: str
    kind: str  # review | cram
    rating: int
    time_ms: int
    duration_ms: int
    # The interval before the answer, as the log keeps it (days > 0, seconds < 0): True Retention
    # counts an answer only when the item had an interval of a day or more.
    last_interval: int = 0


@dataclass(frozen=True)
class Flag:
    """A learner's flag on an item: what they found wrong or unclear, for the deck's maintainer."""

    key: str
    deck_id: str
    card_id: str
    note: str
    time_ms: int | None


@dataclass(frozen=True)
class ExamResult:
    time_ms: int
    deck_ids: tuple[str, ...]
    seed: int
    mode: str
    questions: int
    correct: int
    pass_mark: float

    @property
    def score(self) -> float:
        return self.correct / self.questions if self.questions else 0.0

    @property
    def passed(self) -> bool:
        return self.score >= self.pass_mark


def is_mastered(item: ItemFacts) -> bool:
    return item.state == "review" and (item.stability or 0.0) >= MASTERY_STABILITY_DAYS


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def facts(decks: Sequence[Deck]) -> dict[str, dict[str, set[str]]]:
    """Per deck: fact (sibling group) -> the keys of its items."""
    groups = group_keys(decks)
    out: dict[str, dict[str, set[str]]] = {}
    for deck in decks:
        for item in deck.items():
            out.setdefault(deck.id, {}).setdefault(groups[(deck.id, item.card.id)], set()).add(item.key)
    return out


def _mastered_facts(deck_facts: dict[str, Collection[str]], mastered_keys: set[str]) -> int:
    superset = mastered_keys.issuperset  # a fact's keys may be a set or (Bank.from_facts) a tuple
    return sum(1 for keys in deck_facts.values() if superset(keys))


def streak(study_days: set[int], today: int) -> int:
    """Consecutive study days with an answer, ending today (or yesterday: today is not over yet)."""
    day = today if today in study_days else today - 1
    count = 0
    while day in study_days:
        count += 1
        day -= 1
    return count


@dataclass
class DeckLog:
    """One deck's answers (reviews and cram) in a learner's log, summed."""

    reviews: int = 0
    time_ms: int = 0
    last_ms: int | None = None
    retention: TrueRetention = TrueRetention()


@dataclass
class LogSummary:
    """Everything the report reads of a learner's log, already summed: per deck, per study day
    (retention, and which days had answers), per card (reviews, Again). Built from answer rows by
    ``summarize`` (the straightforward way, one row at a time) or by SQL aggregates over the store
    (``store.summary.report_log`` and ``sync.team``), which give the same figures without loading the log."""

    decks: dict[str, DeckLog] = field(default_factory=dict)
    days: dict[int, TrueRetention] = field(default_factory=dict)
    cards: dict[str, tuple[int, int]] = field(default_factory=dict)  # "deck/card" -> (reviews, again)
    first_ms: int | None = None
    last_ms: int | None = None


def summarize(answers: Iterable[Answer], deck_ids: set[str], day_of) -> LogSummary:
    """The summary of answer rows, one at a time (answers of other decks and other kinds left out)."""
    out = LogSummary()
    for a in answers:
        if a.deck_id not in deck_ids or a.kind not in ("review", "cram"):
            continue
        deck = out.decks.get(a.deck_id)
        if deck is None:
            deck = out.decks[a.deck_id] = DeckLog()
        one = true_retention(((a.kind, a.rating, a.last_interval),))
        deck.retention = deck.retention + one
        deck.time_ms += a.duration_ms
        deck.last_ms = a.time_ms if deck.last_ms is None else max(deck.last_ms, a.time_ms)
        day = day_of(a.time_ms)
        out.days[day] = out.days.get(day, TrueRetention()) + one
        out.first_ms = a.time_ms if out.first_ms is None else min(out.first_ms, a.time_ms)
        out.last_ms = a.time_ms if out.last_ms is None else max(out.last_ms, a.time_ms)
        if a.kind == "review":
            deck.reviews += 1
            key = f"{a.deck_id}/{a.card_id}"
            reviews, again = out.cards.get(key, (0, 0))
            out.cards[key] = (reviews + 1, again + (a.rating == AGAIN))
    return out


def summary_from_aggregates(card_rows: Iterable[Sequence], bucket_rows: Iterable[Sequence], answers_in,
                            day_of) -> LogSummary:
    """The summary from SQL aggregates of one learner's answers (reviews and cram of the report's decks).

    ``card_rows``: (deck, card, reviews, again, duration, first time, last time, and the four True
    Retention counts, as ``core.retention.sql_counts`` sums them), one per card answered.
    ``bucket_rows``: (quarter-hour bucket, the four counts), one per bucket with an answer.
    ``answers_in(buckets)`` gives (time, kind, rating, last interval) of every answer in the
    buckets named, for the few that span two study days.
    """
    out = LogSummary()
    # Plain lists while summing (a dataclass or an attribute per addition was most of the time at
    # 100,000 cards and at 200 learners): reviews, time, last, the four counts, first. Objects at the end.
    sums: dict[str, list] = {}
    cards = out.cards
    for deck_id, card_id, reviews, again, duration, first, last, yp, yf, mp, mf in card_rows:
        c = sums.get(deck_id)
        if c is None:
            c = sums[deck_id] = [0, 0, last, 0, 0, 0, 0, first]
        c[0] += reviews
        c[1] += duration
        if last > c[2]:
            c[2] = last
        c[3] += yp
        c[4] += yf
        c[5] += mp
        c[6] += mf
        if first < c[7]:
            c[7] = first
        if reviews:
            cards[f"{deck_id}/{card_id}"] = (reviews, again)
    for deck_id, c in sums.items():
        out.decks[deck_id] = DeckLog(reviews=c[0], time_ms=c[1], last_ms=c[2], retention=TrueRetention(*c[3:7]))
        out.first_ms = c[7] if out.first_ms is None or c[7] < out.first_ms else out.first_ms
        out.last_ms = c[2] if out.last_ms is None or c[2] > out.last_ms else out.last_ms
    buckets = {row[0]: row[1:] for row in bucket_rows}
    days, split = bucket_days(buckets, day_of)
    day_counts: dict[int, list[int]] = {}
    for bucket, day in days.items():
        c = day_counts.get(day)
        if c is None:
            c = day_counts[day] = [0, 0, 0, 0]
        yp, yf, mp, mf = buckets[bucket]
        c[0] += yp
        c[1] += yf
        c[2] += mp
        c[3] += mf
    out.days = {day: TrueRetention(*c) for day, c in day_counts.items()}
    if split:
        for time_ms, kind, rating, last_interval in answers_in(sorted(split)):
            day = day_of(time_ms)
            out.days[day] = out.days.get(day, TrueRetention()) + true_retention(((kind, rating, last_interval),))
    return out


class Bank:
    """What a report needs of the decks alone (their keys and facts), worked out once for many reports:
    the same as ``facts`` and the decks' item keys, in one pass over the cards."""

    def __init__(self, decks: Sequence[Deck]) -> None:
        self.decks = list(decks)
        self.deck_ids = {deck.id for deck in decks}
        groups = group_keys(decks)
        self.keys: dict[str, set[str]] = {}
        self.facts: dict[str, dict[str, set[str]]] = {}
        for deck in decks:
            keys = self.keys[deck.id] = set()
            for card in deck.cards:
                variants = card.variants()
                if not variants:
                    continue
                members = self.facts.setdefault(deck.id, {}).setdefault(groups[(deck.id, card.id)], set())
                for variant in variants:
                    key = item_key(deck.id, card.id, variant)
                    keys.add(key)
                    members.add(key)
        self.all_keys = set().union(*self.keys.values()) if self.keys else set()

    @classmethod
    def from_facts(cls, decks: Sequence, facts: dict[str, Sequence[Sequence[str]]]) -> Bank:
        """The same Bank from what ``core.decksummary`` keeps: each deck's facts as lists of item keys
        (``decks`` need only an id and a title)."""
        bank = cls.__new__(cls)
        bank.decks = list(decks)
        bank.deck_ids = {deck.id for deck in decks}
        bank.keys, bank.facts = {}, {}
        for deck in decks:
            keys = bank.keys[deck.id] = set()
            deck_facts = facts.get(deck.id, ())
            if deck_facts:
                # Tuples as the summary keeps them: a set per fact was most of the time at 100,000 cards.
                bank.facts[deck.id] = dict(enumerate(deck_facts))
            for members in deck_facts:
                keys.update(members)
        bank.all_keys = set().union(*bank.keys.values()) if bank.keys else set()
        return bank


def build_report(*, profile: str, decks: Sequence[Deck], items: Iterable[ItemFacts], answers: Iterable[Answer],
                 exams: Iterable[ExamResult], curriculum: Curriculum | None, now_ms: int,
                 day_of, date_of, flags: Iterable[Flag] = ()) -> dict:
    """The report as a JSON-ready dict. ``day_of(ms)`` gives the study day; ``date_of(day)`` its date.

    ``flags`` (item, note, time) go to whoever maintains the decks; reports without them (older
    ones) still merge, as the field is new within version 1.
    """
    bank = Bank(decks)
    return report_from_summary(profile=profile, bank=bank, mastered_keys=mastered(items),
                               log=summarize(answers, bank.deck_ids, day_of), exams=exams, curriculum=curriculum,
                               now_ms=now_ms, day_of=day_of, date_of=date_of, flags=flags)


def mastered(items: Iterable[ItemFacts]) -> set[str]:
    return {i.key for i in items if is_mastered(i)}


def report_from_summary(*, profile: str, bank: Bank, mastered_keys: set[str], log: LogSummary,
                        exams: Iterable[ExamResult], curriculum: Curriculum | None, now_ms: int, day_of, date_of,
                        flags: Iterable[Flag] = ()) -> dict:
    """The report from the keys of the mastered items and the summary of the log."""
    decks, bank_keys, fact_keys = bank.decks, bank.keys, bank.facts
    mastered_keys = mastered_keys & bank.all_keys
    today = day_of(now_ms)

    deck_rows = []
    for deck in decks:
        deck_log = log.decks.get(deck.id) or DeckLog()
        total = len(bank_keys[deck.id])
        mastered_count = len(mastered_keys & bank_keys[deck.id])
        deck_facts = fact_keys.get(deck.id, {})
        mastered_facts = _mastered_facts(deck_facts, mastered_keys)
        retention = deck_log.retention
        deck_rows.append({
            "id": deck.id, "title": deck.title, "items": total, "mastered": mastered_count,
            "facts": len(deck_facts), "mastered_facts": mastered_facts,
            "mastery": mastered_facts / len(deck_facts) if deck_facts else 0.0,
            "reviews": deck_log.reviews,
            "retention": retention.rate, "retention_young": retention.young, "retention_mature": retention.mature,
            "retention_answers": retention.total,
            "time_ms": deck_log.time_ms,
            "last_studied_ms": deck_log.last_ms,
        })

    track_rows = tracks_progress(curriculum, deck_rows, log.first_ms, today, day_of, date_of)
    cards = [{"key": key, "reviews": reviews, "again": again} for key, (reviews, again) in sorted(log.cards.items())]

    total_items = sum(r["items"] for r in deck_rows)
    total_facts = sum(r["facts"] for r in deck_rows)
    mastered_facts = sum(r["mastered_facts"] for r in deck_rows)
    overall = TrueRetention()
    for deck_log in log.decks.values():
        overall = overall + deck_log.retention
    exam_rows = [{
        "time_ms": e.time_ms, "date": iso(e.time_ms), "decks": list(e.deck_ids), "seed": e.seed, "mode": e.mode,
        "questions": e.questions, "correct": e.correct, "score": e.score, "pass_mark": e.pass_mark, "passed": e.passed,
    } for e in sorted(exams, key=lambda e: e.time_ms)]
    deck_ids = bank.deck_ids
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "studyapp": __version__,
        "profile": profile,
        "generated_ms": now_ms,
        "generated": iso(now_ms),
        "mastery_rule": MASTERY_RULE,
        "retention_rule": RETENTION_RULE,
        "curriculum": curriculum.title if curriculum else None,
        "totals": {
            "items": total_items,
            "mastered": len(mastered_keys),
            "facts": total_facts,
            "mastered_facts": mastered_facts,
            "mastery": mastered_facts / total_facts if total_facts else 0.0,
            "reviews": sum(r["reviews"] for r in deck_rows),
            "retention": overall.rate,
            "retention_young": overall.young,
            "retention_mature": overall.mature,
            "retention_answers": overall.total,
            # The same figure over the spans the Stats screen and `stats` show (month: their 30 days).
            "retention_by_span": spans_json(spans_from_days(log.days, today)),
            "time_ms": sum(r["time_ms"] for r in deck_rows),
            "streak_days": streak(set(log.days), today),
            "started_ms": log.first_ms,
            "last_studied_ms": log.last_ms,
        },
        "decks": deck_rows,
        "tracks": track_rows,
        "next": next_step(track_rows, deck_rows),
        "exams": exam_rows,
        "cards": cards,
        "flags": [{"key": f.key, "deck": f.deck_id, "card": f.card_id, "note": f.note, "time_ms": f.time_ms,
                   "date": iso(f.time_ms)}
                  for f in sorted((f for f in flags if f.deck_id in deck_ids),
                                  key=lambda f: (f.time_ms is None, f.time_ms or 0, f.key))],
    }


def tracks_progress(curriculum: Curriculum | None, deck_rows: Sequence[dict], started_ms: int | None, today: int,
                    day_of, date_of) -> list[dict]:
    """Each track's mastery and status, from per-deck rows with id, facts, mastered_facts and reviews.

    A track is done when its mastery reaches its target; behind when its days (counted from
    the learner's first answer) have passed without that; not started before any answer in
    its decks; on track otherwise.
    """
    if curriculum is None:
        return []
    by_deck = {row["id"]: row for row in deck_rows}
    out = []
    for track in curriculum.tracks:
        rows = [by_deck[d] for d in track.deck_ids if d in by_deck]
        total = sum(r["facts"] for r in rows)
        mastered = sum(r["mastered_facts"] for r in rows)
        mastery = mastered / total if total else 0.0
        deadline_day = (day_of(started_ms) + track.days) if (track.days and started_ms is not None) else None
        if total and mastery >= track.target:
            status = "done"
        elif deadline_day is not None and today > deadline_day:
            status = "behind"
        elif not any(r["reviews"] for r in rows):
            status = "not started"
        else:
            status = "on track"
        out.append({
            "id": track.id, "title": track.title, "decks": list(track.deck_ids), "target": track.target,
            "facts": total, "mastered_facts": mastered, "mastery": mastery, "status": status,
            "days": track.days, "deadline": date_of(deadline_day).isoformat() if deadline_day is not None else None,
            "after": list(track.after),
        })
    return out


def curriculum_progress(curriculum: Curriculum | None, decks: Sequence[Deck], items: Iterable[ItemFacts],
                        reviews_by_deck: dict[str, int], started_ms: int | None, now_ms: int,
                        day_of, date_of, bank: Bank | None = None,
                        mastered_keys: set[str] | None = None) -> tuple[list[dict], dict | None]:
    """The tracks and what to study next, for the home screen: the report's figures without the log.
    ``bank``: the decks' Bank when it is at hand (``core.decksummary``), rather than worked out again;
    ``mastered_keys``: the keys of the mastered ``items``, when they were picked out already."""
    if mastered_keys is None:
        mastered_keys = {i.key for i in items if is_mastered(i)}
    fact_keys = (bank or Bank(decks)).facts
    deck_rows = []
    for deck in decks:
        deck_facts = fact_keys.get(deck.id, {})
        mastered = _mastered_facts(deck_facts, mastered_keys)
        deck_rows.append({"id": deck.id, "title": deck.title, "facts": len(deck_facts), "mastered_facts": mastered,
                          "mastery": mastered / len(deck_facts) if deck_facts else 0.0,
                          "reviews": reviews_by_deck.get(deck.id, 0)})
    tracks = tracks_progress(curriculum, deck_rows, started_ms, day_of(now_ms), day_of, date_of)
    return tracks, next_step(tracks, deck_rows)


def next_step(track_rows: list[dict], deck_rows: list[dict]) -> dict | None:
    """What to study next: the least-mastered deck of the first unfinished track whose prerequisites are done."""
    by_deck = {row["id"]: row for row in deck_rows}
    done = {t["id"] for t in track_rows if t["status"] == "done"}
    for track in track_rows:
        if track["status"] == "done" or not set(track["after"]) <= done:
            continue
        candidates = [by_deck[d] for d in track["decks"] if d in by_deck]
        if candidates:
            deck = min(candidates, key=lambda r: (r["mastery"], track["decks"].index(r["id"])))
            return {"track": track["id"], "deck": deck["id"], "title": deck["title"]}
    if not track_rows and deck_rows:
        deck = min(deck_rows, key=lambda r: r["mastery"])
        return {"track": None, "deck": deck["id"], "title": deck["title"]}
    return None


# -- Markdown ---------------------------------------------------------------------------

def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def duration(ms: int) -> str:
    minutes = round(ms / 60000)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def date_only(ms: int | None) -> str:
    return (iso(ms) or "—")[:10]


def to_markdown(report: dict) -> str:
    t = report["totals"]
    lines = [
        f"# Progress report: {md(report['profile'])}",
        "",
        f"Generated {report['generated']} by studyapp {report['studyapp']}."
        + (f" Curriculum: {md(report['curriculum'])}." if report.get("curriculum") else ""),
        "",
        f"- Mastery: {t['mastered_facts']} of {t['facts']} facts ({percent(t['mastery'])}; {t['items']} items); "
        f"{report['mastery_rule']}.",
        f"- Reviews: {t['reviews']}, retention {percent(t['retention'])} over all time (young "
        f"{percent(t['retention_young'])}, mature {percent(t['retention_mature'])}, of {t['retention_answers']} "
        f"answers; by span below), "
        f"time spent {duration(t['time_ms'])}; {report['retention_rule']}.",
        f"- Streak: {t['streak_days']} day{'s' if t['streak_days'] != 1 else ''}; "
        f"started {date_only(t['started_ms'])}, last studied {date_only(t['last_studied_ms'])}.",
    ]
    if report.get("next"):
        lines.append(f"- Next: study **{md(report['next']['title'])}** ({md(report['next']['deck'])}).")
    if report["tracks"]:
        lines += ["", "## Tracks", "", "| track | decks | mastery | target | status | deadline |", "|---|---|---|---|---|---|"]
        for track in report["tracks"]:
            lines.append(f"| {md(track['title'])} | {len(track['decks'])} | {percent(track['mastery'])} | "
                         f"{percent(track['target'])} | {md(track['status'])} | {md(track['deadline'] or '—')} |")
    spans = t.get("retention_by_span")
    if spans:  # reports merged from older versions may lack it
        lines += ["", "## Retention", "",
                  "True Retention over the day, week, month (the Stats screen's 30 days) and year ending today.", "",
                  "| span | retention | young | mature | answers |", "|---|---|---|---|---|"]
        for name, label in (("day", "today"), ("week", "7 days"), ("month", "30 days"), ("year", "365 days")):
            span = spans[name]
            lines.append(f"| {label} | {percent(span['retention'])} | {percent(span['young'])} | "
                         f"{percent(span['mature'])} | {span['answers']} |")
    lines += ["", "## Decks", "", "| deck | items | facts | mastered facts | mastery | reviews | retention | time | "
              "last studied |", "|---|---|---|---|---|---|---|---|---|"]
    for deck in report["decks"]:
        lines.append(f"| {md(deck['id'])} | {deck['items']} | {deck['facts']} | {deck['mastered_facts']} | "
                     f"{percent(deck['mastery'])} | "
                     f"{deck['reviews']} | {percent(deck['retention'])} | {duration(deck['time_ms'])} | "
                     f"{date_only(deck['last_studied_ms'])} |")
    lines += ["", "## Exams", ""]
    if report["exams"]:
        lines += ["| date | decks | score | pass mark | result |", "|---|---|---|---|---|"]
        for exam in report["exams"]:
            lines.append(f"| {exam['date'][:10]} | {md(', '.join(exam['decks']))} | {exam['correct']}/{exam['questions']} "
                         f"({percent(exam['score'])}) | {percent(exam['pass_mark'])} | "
                         f"{'passed' if exam['passed'] else 'not passed'} |")
    else:
        lines.append("No exams taken yet.")
    lines += ["", "## Flags", ""]
    flags = report.get("flags") or []
    if flags:
        lines += ["Cards the learner flagged, for whoever maintains the decks:", "",
                  "| item | note | flagged |", "|---|---|---|"]
        for flag in flags:
            lines.append(f"| {table_cell(flag['key'])} | {table_cell(flag['note']) or '(no note)'} | "
                         f"{(flag.get('date') or '—')[:10]} |")
    else:
        lines.append("No cards flagged.")
    return "\n".join(lines) + "\n"


# What Markdown (CommonMark and GitHub's tables) would read as syntax in a value: HTML and
# entities, link and image brackets, emphasis and code marks, and the pipe that ends a cell. An
# underscore between letters or digits never delimits emphasis (CommonMark), so a profile such as
# ana_b is left as it is written.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]|~<>&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MARKDOWN_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def table_cell(text) -> str:
    """A value studyapp did not write (a name, a deck id, a title, a note), as Markdown that shows it as
    written and nothing else: one line (a line break would end the row, so whitespace runs become a
    space), no HTML, no link or image, no emphasis, and no pipe that ends the cell and forges a row.
    Control characters are shown as escapes (``\\x1b``), as on the terminal. A bare web address stays
    text that renderers may link, showing the whole address: it is what the learner wrote."""
    text = visible_line(" ".join(str(text).split()))
    if not _MARKDOWN_SPECIAL.search(text):
        return text
    return _MARKDOWN_SPECIAL.sub(lambda m: _MARKDOWN_ESCAPES.get(m.group(), "\\" + m.group()), text)


md = table_cell
