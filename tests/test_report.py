"""Reports and team merges, checked against figures computed by hand on a small scripted history."""

import json
from datetime import date, datetime, timedelta, timezone

import pytest

from studyapp.core.curriculum import Curriculum, Track
from studyapp.core.models import Card, Deck
from studyapp.onboarding.merge import merge_reports, team_markdown, team_summary
from studyapp.onboarding.report import (
    Answer, ExamResult, Flag, ItemFacts, build_report, is_mastered, streak, to_markdown,
)

DAY_MS = 86_400_000
T0 = int(datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc).timestamp() * 1000)  # study day 0, noon UTC


def day_of(ms):  # UTC, rollover at 04:00
    return (datetime.fromtimestamp(ms / 1000, timezone.utc) - timedelta(hours=4)).date().toordinal()


def date_of(day):
    return date.fromordinal(day)


def card(card_id, kind="basic"):
    return Card(id=card_id, type=kind, source=("x",), front=f"Q {card_id}?", back="A",
                text="{{c1::a}} {{c2::b}}" if kind == "cloze" else "")


# deck "alpha": a (1 item), b (reverse: 2 items), c (cloze: 2 items) -> 5 items
# deck "beta": d, e -> 2 items
ALPHA = Deck("alpha", "Alpha", None, None, (card("a"), card("b", "reverse"), card("c", "cloze")))
BETA = Deck("beta", "Beta", None, None, (card("d"), card("e")))

ITEMS = [
    ItemFacts("alpha/a/main", "alpha", "a", "review", 30.0),      # mastered
    ItemFacts("alpha/b/forward", "alpha", "b", "review", 21.0),   # mastered (exactly the bar)
    ItemFacts("alpha/b/backward", "alpha", "b", "review", 20.9),  # not: stability below 21 days
    ItemFacts("alpha/c/c1", "alpha", "c", "relearning", 40.0),    # not: relearning
    ItemFacts("beta/d/main", "beta", "d", "learning", 0.5),
    ItemFacts("gone/x/main", "gone", "x", "review", 99.0),         # a deck no longer loaded: ignored
]


def answer(key, rating, day, minute=0, kind="review", duration=10_000, last=0):
    deck_id, card_id, _ = key.split("/")
    return Answer(key, deck_id, card_id, kind, rating, T0 + day * DAY_MS + minute * 60_000, duration, last)


# ``last``: the interval before the answer (days > 0, step seconds < 0); True Retention counts
# only answers with a day or more: a/main on day 2 (young, passed), b/backward on day 2
# (mature, failed), d/main's day-long step on day 4 (young, passed), and the cram Again never.
ANSWERS = [
    answer("alpha/a/main", 3, 0), answer("alpha/b/forward", 1, 0, 1), answer("alpha/b/forward", 3, 0, 12, last=-60),
    answer("alpha/a/main", 4, 2, last=2), answer("alpha/b/backward", 1, 2, 1, last=25), answer("alpha/c/c1", 3, 3),
    answer("alpha/a/main", 1, 3, 5, kind="cram", duration=5_000, last=30),
    answer("beta/d/main", 1, 4), answer("beta/d/main", 1, 4, 1, last=-600), answer("beta/d/main", 2, 4, 2, last=-86400),
]
NOW = T0 + 5 * DAY_MS  # day 5: answers on days 0, 2, 3, 4 -> streak 3 (days 2-4), today not studied yet

CURRICULUM = Curriculum(path=None, title="Onboarding", tracks=[
    Track("first", "First", ("alpha",), 0.3, days=10),
    Track("second", "Second", ("beta",), 0.5, days=3, after=("first",)),
])


@pytest.fixture
def report():
    return build_report(profile="ana", decks=[ALPHA, BETA], items=ITEMS, answers=ANSWERS,
                        exams=[ExamResult(T0 + 4 * DAY_MS, ("alpha", "beta"), 7, "mixed", 20, 15, 0.8)],
                        curriculum=CURRICULUM, now_ms=NOW, day_of=day_of, date_of=date_of)


def test_mastery_rule():
    assert is_mastered(ITEMS[0]) and is_mastered(ITEMS[1])
    assert not is_mastered(ITEMS[2]) and not is_mastered(ITEMS[3]) and not is_mastered(ITEMS[4])


def test_deck_figures_by_hand(report):
    alpha, beta = report["decks"]
    # alpha: 5 items, 2 mastered, but 3 facts (cards) of which only a is mastered in full:
    # b's backward side and c are not; 6 reviews (cram excluded); True Retention 1 of 2
    assert (alpha["items"], alpha["mastered"], alpha["reviews"]) == (5, 2, 6)
    assert (alpha["facts"], alpha["mastered_facts"]) == (3, 1)
    assert alpha["mastery"] == pytest.approx(1 / 3)
    assert alpha["retention"] == pytest.approx(1 / 2)
    assert (alpha["retention_young"], alpha["retention_mature"], alpha["retention_answers"]) == (1.0, 0.0, 2)
    assert alpha["time_ms"] == 6 * 10_000 + 5_000
    assert alpha["last_studied_ms"] == T0 + 3 * DAY_MS + 5 * 60_000
    # beta: 2 items, none mastered; 3 reviews, 2 Again
    assert (beta["items"], beta["mastered"], beta["reviews"]) == (2, 0, 3)
    assert beta["retention"] == 1.0 and beta["retention_answers"] == 1  # the day-long step only


def test_totals_streak_and_tracks(report):
    totals = report["totals"]
    assert (totals["items"], totals["mastered"], totals["reviews"]) == (7, 2, 9)
    assert (totals["facts"], totals["mastered_facts"]) == (5, 1)
    assert totals["retention"] == pytest.approx(2 / 3)
    # Today is day 5: the week holds days -1 to 5 (all three counted answers), the day none.
    spans = totals["retention_by_span"]
    assert spans["week"]["retention"] == pytest.approx(2 / 3) and spans["day"]["retention"] is None
    assert "True Retention" in report["retention_rule"] and "facts" in report["mastery_rule"]
    assert totals["streak_days"] == 3
    assert totals["started_ms"] == T0
    first, second = report["tracks"]
    assert (first["status"], first["mastery"]) == ("done", pytest.approx(1 / 3))  # 1 of 3 facts reaches 30%
    # second: started on day 0, 3 days allowed -> deadline day 3; today is day 5 and 0% < 50%
    assert second["status"] == "behind"
    assert second["deadline"] == date_of(day_of(T0) + 3).isoformat()
    assert report["next"] == {"track": "second", "deck": "beta", "title": "Beta"}


def test_cards_and_exams(report):
    cards = {c["key"]: c for c in report["cards"]}
    assert cards["beta/d"] == {"key": "beta/d", "reviews": 3, "again": 2}
    assert cards["alpha/a"] == {"key": "alpha/a", "reviews": 2, "again": 0}  # the cram Again is not a review
    (exam,) = report["exams"]
    assert exam["score"] == 0.75 and exam["passed"] is False


def test_streak_rules():
    assert streak(set(), 10) == 0
    assert streak({10}, 10) == 1
    assert streak({8, 9}, 10) == 2  # today not studied yet: yesterday's streak still counts
    assert streak({7, 9, 10}, 10) == 2


def test_markdown_report(report):
    text = to_markdown(report)
    assert text.startswith("# Progress report: ana\n")
    assert "| Second | 1 | 0% | 50% | behind |" in text
    assert "| alpha | 5 | 3 | 1 | 33% | 6 | 50% | 1 min |" in text
    assert "Mastery: 1 of 5 facts (20%; 7 items)" in text and "young 100%, mature 0%, of 3 answers" in text
    assert "15/20 (75%) | 80% | not passed |" in text


# -- merging ----------------------------------------------------------------------------------

def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_merge_two_learners(tmp_path, report):
    bob = json.loads(json.dumps(report))
    bob["profile"] = "bob"
    for track in bob["tracks"]:
        track["status"] = "on track"
    bob["cards"] = [{"key": "beta/d", "reviews": 2, "again": 1}, {"key": "alpha/a", "reviews": 5, "again": 0}]
    result = merge_reports([write(tmp_path, "ana.json", report), write(tmp_path, "bob.json", bob)])
    summary = team_summary(result)
    assert [(l["profile"], l["status"], l["behind"]) for l in summary["learners"]] == [
        ("ana", "behind", ["second"]), ("bob", "on track", [])]
    # True Retention's own answers: alpha 1 + 1 passed of 2 + 2 -> 50%; beta 1 + 1 of 1 + 1 -> 100%
    assert [d["id"] for d in summary["decks"]] == ["alpha", "beta"]
    assert summary["decks"][0]["retention"] == pytest.approx(0.5)
    assert summary["decks"][1]["retention"] == 1.0
    # alpha/b (ana only): 3 reviews, 2 again (67%); beta/d: 2 + 3 reviews, 1 + 2 again (60%);
    # alpha/a never missed and alpha/c reviewed once: not listed
    assert summary["cards"] == [
        {"key": "alpha/b", "reviews": 3, "again": 2, "learners": 1, "again_share": pytest.approx(2 / 3)},
        {"key": "beta/d", "reviews": 5, "again": 3, "learners": 2, "again_share": 0.6},
    ]
    text = team_markdown(summary)
    assert "| ana | behind | second |" in text and "| beta/d | 2 | 5 | 3 (60%) |" in text


def test_merge_rejects_and_warns_without_tracebacks(tmp_path, report):
    old = {k: v for k, v in report.items() if k not in ("cards", "exams")}
    old["totals"] = {k: v for k, v in report["totals"].items() if k != "streak_days"}
    old["profile"] = "carl"
    files = [
        write(tmp_path, "broken.json", '{"format": "studyapp-report",\n "version": 1,,}'),
        write(tmp_path, "other.json", {"hello": "world"}),
        write(tmp_path, "newer.json", dict(report, version=99, profile="dora")),
        write(tmp_path, "old.json", old),
        tmp_path / "missing.json",
        write(tmp_path, "list.json", [1, 2, 3]),
    ]
    result = merge_reports(files)
    assert [l["profile"] for l in result.learners] == ["carl"]
    assert len(result.rejected) == 5
    joined = "\n".join(result.rejected)
    assert f"{files[0]}:2:15: error: not valid JSON" in joined
    assert "not a studyapp report" in joined
    assert "report version 99 was written by a newer studyapp" in joined and "upgrade studyapp" in joined
    assert "cannot read the file" in joined
    (warning,) = result.warnings
    assert "lacks exams, cards, totals.streak_days" in warning
    summary = team_summary(result)
    assert summary["learners"][0]["streak_days"] is None and summary["learners"][0]["last_exam"] is None
    assert "| carl |" in team_markdown(summary)


def test_merge_keeps_the_newer_report_of_one_profile(tmp_path, report):
    newer = dict(report, generated_ms=report["generated_ms"] + 1, totals=dict(report["totals"], reviews=99))
    result = merge_reports([write(tmp_path, "new.json", newer), write(tmp_path, "old.json", report)])
    assert [l["totals"]["reviews"] for l in result.learners] == [99]
    assert "also in" in result.warnings[0]



# -- flags: what learners found wrong, for the deck maintainer ------------------------------------

FLAGS = [
    Flag("beta/d/main", "beta", "d", "two answers | fit\nthis one", T0 + 2 * DAY_MS),
    Flag("alpha/b/backward", "alpha", "b", "too easy given the previous card", T0 + DAY_MS),
    Flag("gone/x/main", "gone", "x", "a deck no longer loaded", T0),  # left out, like its progress
]


@pytest.fixture
def flagged_report():
    return build_report(profile="ana", decks=[ALPHA, BETA], items=ITEMS, answers=ANSWERS, exams=[],
                        curriculum=None, now_ms=NOW, day_of=day_of, date_of=date_of, flags=FLAGS)


def test_flags_are_in_the_json_report_oldest_first(flagged_report):
    assert flagged_report["version"] == 1  # a new field within version 1: older readers ignore it
    assert flagged_report["flags"] == [
        {"key": "alpha/b/backward", "deck": "alpha", "card": "b", "note": "too easy given the previous card",
         "time_ms": T0 + DAY_MS, "date": "2026-11-03T12:00:00Z"},
        {"key": "beta/d/main", "deck": "beta", "card": "d", "note": "two answers | fit\nthis one",
         "time_ms": T0 + 2 * DAY_MS, "date": "2026-11-04T12:00:00Z"},
    ]
    assert json.loads(json.dumps(flagged_report))["flags"] == flagged_report["flags"]


def test_flags_are_in_the_markdown_report_one_row_each(flagged_report, report):
    text = to_markdown(flagged_report)
    section = text[text.index("## Flags"):]
    assert section == ("## Flags\n\nCards the learner flagged, for whoever maintains the decks:\n\n"
                       "| item | note | flagged |\n|---|---|---|\n"
                       "| alpha/b/backward | too easy given the previous card | 2026-11-03 |\n"
                       "| beta/d/main | two answers \\| fit this one | 2026-11-04 |\n")
    assert to_markdown(report).endswith("## Flags\n\nNo cards flagged.\n")


def test_merge_accepts_flags_and_older_reports_without_them(tmp_path, flagged_report, report):
    bob = json.loads(json.dumps(flagged_report))
    bob["profile"] = "bob"
    bob["flags"] = [{"key": "alpha/b/backward", "note": "the answer is ambiguous", "time_ms": T0, "date": None},
                    {"note": "no key"}, "not a flag"]
    carl = {k: v for k, v in report.items() if k != "flags"}  # written before flags existed
    carl["profile"] = "carl"
    result = merge_reports([write(tmp_path, "ana.json", flagged_report), write(tmp_path, "bob.json", bob),
                            write(tmp_path, "carl.json", carl)])
    assert [l["profile"] for l in result.learners] == ["ana", "bob", "carl"] and not result.rejected
    assert result.warnings == [f"{tmp_path / 'bob.json'}: warning: 2 flag(s) without a \"key\" and a \"note\" left out"]
    summary = team_summary(result)
    assert [(f["key"], f["profile"], f["note"]) for f in summary["flags"]] == [
        ("alpha/b/backward", "bob", "the answer is ambiguous"),
        ("alpha/b/backward", "ana", "too easy given the previous card"),
        ("beta/d/main", "ana", "two answers | fit\nthis one"),
    ]
    text = team_markdown(summary)
    assert ("## Flags from learners\n\n| item | learner | note | flagged |\n|---|---|---|---|\n"
            "| alpha/b/backward | bob | the answer is ambiguous | — |\n"
            "| alpha/b/backward | ana | too easy given the previous card | 2026-11-03 |\n"
            "| beta/d/main | ana | two answers \\| fit this one | 2026-11-04 |\n") in text
    bad = dict(flagged_report, profile="dora", flags="oops")
    result = merge_reports([write(tmp_path, "dora.json", bad)])
    assert result.warnings == [f"{tmp_path / 'dora.json'}: warning: \"flags\" is not a list; merged without "
                               "this learner's flags"]
    assert team_summary(result)["flags"] == [] and "No learner has flagged a card." in team_markdown(team_summary(result))
