"""`studyapp report --merge`: the team lead's table, figure by figure and message by message.

The reports are written by hand here (not by build_report), so every team figure below is
worked out from them in the comments: learners in profile order with their status, decks
hardest first, cards missed most, flags gathered by card, and each rejection and warning
word for word, since the lead acts on what those messages say.

Every report the figures come from fits the version-1 schema (report_schema.py): a junk row or
a null count rejects its whole file (the rejection tests below), so the figures never rest on
rows the merge skipped. Entries without an id or key, and flags without a note, do fit the
schema and are still left out by the merge. tests/test_hostile_reports.py holds the wrong types,
non-finite numbers and deep nesting of issue 15; these are the merge's own messages.
"""

from __future__ import annotations

import json

import pytest

from studyapp.onboarding.merge import merge_reports, read_report, team_markdown, team_summary

FULL_TOTALS = {"items": 10, "mastered": 4, "mastery": 0.4, "reviews": 30, "retention": 0.8, "time_ms": 600_000,
               "streak_days": 3, "last_studied_ms": 1_767_607_200_000}  # 2026-01-05T10:00Z


def base(**fields) -> dict:
    return {"format": "studyapp-report", "version": 1, **fields}


ANA = base(
    profile="ana", generated_ms=1000, totals=FULL_TOTALS,
    tracks=[{"id": "basics", "status": "behind"}, {"id": "advanced", "status": "behind"}, {"id": "extra", "status": "on track"}],
    exams=[{"score": 0.5, "passed": False}, {"score": 0.9, "passed": True}],
    decks=[{"id": "alpha", "reviews": 10, "retention": 0.8, "retention_answers": 5, "mastery": 0.5},
           {"id": "beta", "reviews": 4, "retention": 0.5, "mastery": 0.25}],  # an older report: no retention_answers
    cards=[{"key": "alpha/a", "reviews": 4, "again": 1}, {"key": "alpha/b", "reviews": 2, "again": 2}],
    flags=[{"key": "beta/x/main", "note": "two | answers", "time_ms": 2000, "date": "2026-01-05T10:00:00Z"}],
)
BOB = base(
    profile="bob", generated_ms=500,
    # A streak of 0 days is a figure ("0 d"), not a blank: only a missing one is shown as one.
    totals={"items": 5, "mastered": 5, "mastery": 1.0, "reviews": 12, "retention": 0.5, "time_ms": 60_000,
            "streak_days": 0, "last_studied_ms": None},
    tracks=[{"id": "basics", "status": "done"}, {"id": "advanced", "status": "done"}],
    exams=[{"score": 0.4, "passed": False}],
    decks=[{"id": "alpha", "reviews": 6, "retention": 0.5, "retention_answers": 4, "mastery": 0.3},
           {"id": "gamma", "reviews": 0, "mastery": 0.1},
           {"id": "delta", "reviews": 2, "retention": 0.5, "retention_answers": 2, "mastery": 0.2}],
    cards=[{"key": "alpha/a", "reviews": 2, "again": 1}, {"key": "alpha/c", "reviews": 3, "again": 0}],
    flags=[{"key": "beta/x/main", "note": "", "time_ms": 1000}, {"key": "alpha/a/main", "note": "typo", "time_ms": None}],
)
# No profile (the file's name stands in), no curriculum, no totals; a deck without an id, a card
# without a key and a flag without a note, which fit the schema and are left out.
CARL = base(
    generated_ms=700, tracks=[], exams=[],
    decks=[{"reviews": 5}, {"id": "epsilon", "reviews": 3, "retention": 0, "retention_answers": 3, "mastery": 0}],
    cards=[{"reviews": 9}, {"key": "beta/z", "reviews": 3, "again": 1}, {"key": "alpha/b", "again": 0}],
    flags=[{"key": "alpha/a/main", "note": "also", "time_ms": 0}, {"key": "no-note"}],
)


def write(tmp_path, name, data) -> str:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def team(tmp_path):
    # Given out of profile order: the table is in profile order all the same.
    paths = [write(tmp_path, "carl.json", CARL), write(tmp_path, "bob.json", BOB), write(tmp_path, "ana.json", ANA)]
    return tmp_path, merge_reports(paths)


def test_each_learner_in_profile_order_with_status_totals_and_last_exam(team):
    tmp_path, result = team
    summary = team_summary(result)
    assert summary["format"] == "studyapp-team-report" and summary["version"] == 1
    assert summary["learners"] == [
        {"profile": "ana", "status": "behind", "behind": ["basics", "advanced"], "mastery": 0.4, "reviews": 30, "retention": 0.8,
         "time_ms": 600_000, "streak_days": 3, "last_studied_ms": 1_767_607_200_000,
         "last_exam": {"score": 0.9, "passed": True}},  # the last exam, not the first
        {"profile": "bob", "status": "done", "behind": [], "mastery": 1.0, "reviews": 12, "retention": 0.5,
         "time_ms": 60_000, "streak_days": 0, "last_studied_ms": None, "last_exam": {"score": 0.4, "passed": False}},
        {"profile": "carl", "status": "no curriculum", "behind": [], "mastery": None, "reviews": None, "retention": None,
         "time_ms": None, "streak_days": None, "last_studied_ms": None, "last_exam": None},
    ]
    # Carl's missing totals are read as blanks, every one of them present
    assert result.learners[2]["totals"] == dict.fromkeys(FULL_TOTALS)
    # and his deck without an id and card without a key are left out of his report, not guessed at
    assert [d["id"] for d in result.learners[2]["decks"]] == ["epsilon"]
    assert [c["key"] for c in result.learners[2]["cards"]] == ["beta/z", "alpha/b"]
    assert result.warnings == [
        f"{tmp_path / 'carl.json'}: warning: 1 flag(s) without a \"key\" and a \"note\" left out",
        f"{tmp_path / 'carl.json'}: warning: report version 1 lacks profile, totals, totals.items, totals.mastered, "
        "totals.mastery, totals.reviews, totals.retention, totals.time_ms, totals.streak_days, "
        "totals.last_studied_ms; merged with those figures left blank",
    ]
    assert summary["warnings"] == result.warnings and summary["rejected"] == [] == result.rejected


def test_decks_hardest_first_from_each_learners_retention_answers(team):
    _, result = team
    # epsilon: carl passed 0 of 3 -> 0%.  delta: bob 1 of 2 -> 50%, mastery 0.2.
    # beta: ana's older report has no retention_answers, so her 4 reviews count: 2 of 4 -> 50%, mastery 0.25
    # (ties delta on retention; lower mastery is harder).  alpha: ana 4 of 5 + bob 2 of 4 -> 6 of 9,
    # mastery (0.5 + 0.3) / 2.  gamma: nobody answered, so no retention, and last.
    assert team_summary(result)["decks"] == [
        {"id": "epsilon", "learners": 1, "reviews": 3, "retention": 0.0, "mastery": 0.0},
        {"id": "delta", "learners": 1, "reviews": 2, "retention": 0.5, "mastery": 0.2},
        {"id": "beta", "learners": 1, "reviews": 4, "retention": 0.5, "mastery": 0.25},
        {"id": "alpha", "learners": 2, "reviews": 16, "retention": pytest.approx(6 / 9), "mastery": pytest.approx(0.4)},
        {"id": "gamma", "learners": 1, "reviews": 0, "retention": None, "mastery": 0.1},
    ]


def test_cards_missed_most_with_three_reviews_across_the_team(team):
    _, result = team
    # alpha/a: 4 + 2 reviews, 1 + 1 again -> 1/3; beta/z: 3 reviews, 1 again -> 1/3, fewer reviews so after.
    # alpha/b: 2 reviews (carl's card lacks its count, read as 0) -> under 3; alpha/c: never missed.
    assert team_summary(result)["cards"] == [
        {"key": "alpha/a", "reviews": 6, "again": 2, "learners": 2, "again_share": pytest.approx(1 / 3)},
        {"key": "beta/z", "reviews": 3, "again": 1, "learners": 1, "again_share": pytest.approx(1 / 3)},
    ]


def test_the_hardest_cards_table_stops_at_ten(tmp_path):
    cards = [{"key": f"deck/c{i:02d}", "reviews": 10, "again": i} for i in range(1, 13)]
    result = merge_reports([write(tmp_path, "ana.json", base(profile="ana", cards=cards))])
    assert not result.rejected
    assert [c["key"] for c in team_summary(result)["cards"]] == [f"deck/c{i:02d}" for i in range(12, 2, -1)]


def test_flags_gathered_by_card_then_time(team):
    _, result = team
    # alpha/a/main: bob's has no time (sorts as 0) and ties carl's 0: profile order.  beta/x/main: bob 1000, ana 2000.
    assert team_summary(result)["flags"] == [
        {"profile": "bob", "key": "alpha/a/main", "note": "typo", "time_ms": None, "date": None},
        {"profile": "carl", "key": "alpha/a/main", "note": "also", "time_ms": 0, "date": None},
        {"profile": "bob", "key": "beta/x/main", "note": "", "time_ms": 1000, "date": None},
        {"profile": "ana", "key": "beta/x/main", "note": "two | answers", "time_ms": 2000, "date": "2026-01-05T10:00:00Z"},
    ]


def test_the_team_markdown_word_for_word(team):
    _, result = team
    assert team_markdown(team_summary(result)) == "\n".join([
        "# Team progress", "",
        "| learner | status | behind on | mastery | reviews | retention | streak | last studied | last exam |",
        "|---|---|---|---|---|---|---|---|---|",
        "| ana | behind | basics, advanced | 40% | 30 | 80% | 3 d | 2026-01-05 | 90% (passed) |",
        "| bob | done | — | 100% | 12 | 50% | 0 d | — | 40% (not passed) |",
        "| carl | no curriculum | — | — | — | — | — | — | — |",
        "", "## Hardest decks", "",
        "| deck | learners | reviews | retention | mean mastery |", "|---|---|---|---|---|",
        "| epsilon | 1 | 3 | 0% | 0% |",
        "| delta | 1 | 2 | 50% | 20% |",
        "| beta | 1 | 4 | 50% | 25% |",
        "| alpha | 2 | 16 | 67% | 40% |",
        "| gamma | 1 | 0 | — | 10% |",
        "", "## Hardest cards (at least 3 reviews across the team)", "",
        "| card | learners | reviews | again |", "|---|---|---|---|",
        "| alpha/a | 2 | 6 | 2 (33%) |",
        "| beta/z | 1 | 3 | 1 (33%) |",
        "", "## Flags from learners", "",
        "| item | learner | note | flagged |", "|---|---|---|---|",
        "| alpha/a/main | bob | typo | — |",
        "| alpha/a/main | carl | also | — |",
        "| beta/x/main | bob | (no note) | — |",
        "| beta/x/main | ana | two \\| answers | 2026-01-05 |",
    ]) + "\n"


def test_a_team_with_nothing_to_show_says_so(tmp_path):
    result = merge_reports([write(tmp_path, "dora.json", base(profile="dora"))])
    text = team_markdown(team_summary(result))
    assert text.endswith("\n".join([
        "| dora | no curriculum | — | — | — | — | — | — | — |",
        "", "## Hardest decks", "",
        "| deck | learners | reviews | retention | mean mastery |", "|---|---|---|---|---|",
        "", "## Hardest cards (at least 3 reviews across the team)", "",
        "No card has been missed often enough to stand out yet.",
        "", "## Flags from learners", "",
        "No learner has flagged a card.",
    ]) + "\n")


def test_the_newer_report_of_a_profile_wins_and_the_warning_names_the_kept_file(tmp_path):
    # a (1), then b (2, newer: replaces a), then c and d (no time, 0: older than b, so b stays)
    files = [write(tmp_path, "a.json", base(profile="p", generated_ms=1, totals={"reviews": 1})),
             write(tmp_path, "b.json", base(profile="p", generated_ms=2, totals={"reviews": 2})),
             write(tmp_path, "c.json", base(profile="p", totals={"reviews": 3})),
             write(tmp_path, "d.json", base(profile="p", generated_ms=0, totals={"reviews": 4}))]
    result = merge_reports(files)
    assert [l["totals"]["reviews"] for l in result.learners] == [2]
    also = [w for w in result.warnings if "also in" in w]
    assert also == [f"{tmp_path / 'b.json'}: warning: profile 'p' also in {tmp_path / 'a.json'}; the newer report is used",
                    f"{tmp_path / 'c.json'}: warning: profile 'p' also in {tmp_path / 'b.json'}; the newer report is used",
                    f"{tmp_path / 'd.json'}: warning: profile 'p' also in {tmp_path / 'b.json'}; the newer report is used"]


@pytest.mark.parametrize("first, second, kept", [(5, 5, "second"), (None, None, "second"), (1, None, "first"),
                                                  (None, 1, "second")])
def test_between_reports_of_equal_age_the_later_file_wins(tmp_path, first, second, kept):
    def report(reviews, generated):
        return base(profile="p", totals={"reviews": reviews}, **({} if generated is None else {"generated_ms": generated}))
    result = merge_reports([write(tmp_path, "1.json", report(1, first)), write(tmp_path, "2.json", report(2, second))])
    assert result.learners[0]["totals"]["reviews"] == (1 if kept == "first" else 2)


def test_rejections_say_what_is_wrong_and_what_to_pass(tmp_path):
    def rejected(name, data):
        report, messages = read_report(write(tmp_path, name, data) if data is not None else tmp_path / name)
        assert report is None
        (message,) = messages
        return message

    where = lambda name: str(tmp_path / name)  # noqa: E731
    again = "pass the JSON written by 'studyapp report --format json'"
    assert rejected("missing.json", None) == (
        f"{where('missing.json')}: error: cannot read the file (No such file or directory); {again}")
    assert rejected("latin.json", b"\xff{}") == (
        f"{where('latin.json')}: error: cannot read the file ('utf-8' codec can't decode byte 0xff in position 0: "
        f"invalid start byte); {again}")
    assert rejected("broken.json", '{"format": "studyapp-report",\n "version": 1,,}') == (
        f"{where('broken.json')}:2:15: error: not valid JSON (Expecting property name enclosed in double quotes); {again}")
    assert rejected("list.json", [1]) == f"{where('list.json')}: error: not a studyapp report (no \"format\": \"studyapp-report\"); {again}"
    regenerate = "the report has no valid version number; regenerate it with 'studyapp report --format json'"
    for version in (True, "1", None, 1.0):
        data = {"format": "studyapp-report", **({} if version is None else {"version": version})}
        assert rejected("v.json", data) == f"{where('v.json')}: error: {regenerate}"
    assert rejected("new.json", base(version=2, studyapp="9.1")) == (
        f"{where('new.json')}: error: report version 2 was written by a newer studyapp (9.1); this one reads "
        "version 1: upgrade studyapp to merge it")
    assert rejected("new.json", base(version=3, studyapp="1" * 45)) == (
        f"{where('new.json')}: error: report version 3 was written by a newer studyapp ({'1' * 40}); this one reads "
        "version 1: upgrade studyapp to merge it")
    assert rejected("new.json", base(version=2)).split(": error: ")[1].startswith(
        "report version 2 was written by a newer studyapp (unknown);")


REGENERATE = ("this is not a report as studyapp writes it: regenerate it with 'studyapp report --format json' "
              "(the other files are merged without it)")


def with_changes(report: dict, **changes) -> dict:
    """A copy of ``report`` with top-level fields replaced, or totals fields (``totals__name``)."""
    report = json.loads(json.dumps(report))
    for name, value in changes.items():
        if name.startswith("totals__"):
            report["totals"][name[len("totals__"):]] = value
        else:
            report[name] = value
    return report


def column_of(text: str, before: str, value: str) -> int:
    """The 1-based column where ``value`` starts, the first time it follows ``before``."""
    return text.index(before + value) + len(before) + 1


# The junk the old merge skipped inside a good report: now each rejects its file, naming the row.
JUNK_ROWS = [
    ("a track that is no object", "ana.json", lambda: with_changes(ANA, tracks=[*ANA["tracks"], "junk"]),
     "$.tracks[3]", 'the text "junk"', "an object", "", '"junk"'),
    ("an exam that is no object", "ana.json",
     lambda: with_changes(ANA, exams=[ANA["exams"][0], "junk", ANA["exams"][1]]),
     "$.exams[1]", 'the text "junk"', "an object", "", '"junk"'),
    ("a deck that is no object", "carl.json", lambda: with_changes(CARL, decks=["junk", *CARL["decks"]]),
     "$.decks[0]", 'the text "junk"', "an object", "", '"junk"'),
    ("a card that is no object", "carl.json", lambda: with_changes(CARL, cards=[*CARL["cards"], 7]),
     "$.cards[3]", "7", "an object", '"again": 0}, ', "7"),
    ("a card's null count", "carl.json",
     lambda: with_changes(CARL, cards=[*CARL["cards"][:2], {"key": "alpha/b", "reviews": None, "again": 0}]),
     "$.cards[2].reviews", "null", "a whole number, 0 or more", '"reviews": ', "null"),
    ("a null streak", "bob.json", lambda: with_changes(BOB, totals__streak_days=None),
     "$.totals.streak_days", "null", "a whole number, 0 or more", '"streak_days": ', "null"),
    ("a card key that is no deck-and-card", "bob.json",
     lambda: with_changes(BOB, cards=[{"key": "alpha", "reviews": 3, "again": 3}]),
     "$.cards[0].key", 'the text "alpha"', "a card key (deck id/card id)", '"key": ', '"alpha"'),
    ("a track status no curriculum gives", "bob.json",
     lambda: with_changes(BOB, tracks=[{"id": "basics", "status": "late"}]),
     "$.tracks[0].status", 'the text "late"', 'one of "done", "behind", "not started", "on track"',
     '"status": ', '"late"'),
]


@pytest.mark.parametrize("case", JUNK_ROWS, ids=[case[0].replace("'", "").replace(" ", "-") for case in JUNK_ROWS])
def test_a_junk_row_rejects_its_file_naming_the_row_and_the_others_merge(tmp_path, case):
    _, name, make, json_path, found, expected, before, value = case
    reports = {"ana.json": ANA, "bob.json": BOB, "carl.json": CARL, name: make()}
    paths = [write(tmp_path, file, report) for file, report in reports.items()]
    result = merge_reports(paths)
    bad = tmp_path / name
    column = column_of(bad.read_text(encoding="utf-8"), before, value)
    assert result.rejected == [f"{bad}:1:{column}: error: {json_path} is {found}, expected {expected}; {REGENERATE}"]
    assert [learner["profile"] for learner in result.learners] == sorted(
        {"ana", "bob", "carl"} - {name.removesuffix(".json")})
    assert team_summary(result)["rejected"] == result.rejected


def test_the_line_and_column_are_of_the_first_wrong_field_in_a_pretty_printed_file(tmp_path):
    text = json.dumps(with_changes(ANA, exams=[ANA["exams"][0], "junk"]), indent=2)
    path = write(tmp_path, "ana.json", text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.strip() == '"junk"')
    (message,) = merge_reports([path]).rejected
    assert message.startswith(f"{path}:{line}:5: error: $.exams[1] is the text \"junk\", expected an object; ")


@pytest.mark.parametrize("wrong, more", [
    (1, ""),
    (2, " (and 1 more: $.cards[2])"),
    (4, " (and 3 more: $.cards[2], $.cards[3], $.cards[4])"),
    (5, " (and 4 more: $.cards[2], $.cards[3], $.cards[4], ...)"),
    (19, " (and 18 more: $.cards[2], $.cards[3], $.cards[4], ...)"),
    # The check stops at 20: there may be more, and the message does not claim a count it did not make.
    (20, " (and 19+ more: $.cards[2], $.cards[3], $.cards[4], ...)"),
    (50, " (and 19+ more: $.cards[2], $.cards[3], $.cards[4], ...)"),
], ids=lambda value: str(value) if isinstance(value, int) else "")
def test_a_file_with_several_wrong_fields_names_the_first_and_counts_the_rest(tmp_path, wrong, more):
    cards = [{"key": "alpha/a", "reviews": 1, "again": 0}] + [None] * wrong
    path = write(tmp_path, "p.json", base(profile="p", cards=cards))
    (message,) = merge_reports([path]).rejected
    column = column_of(path.read_text(encoding="utf-8"), '"again": 0}, ', "null")
    assert message == f"{path}:1:{column}: error: $.cards[1] is null, expected an object{more}; {REGENERATE}"


def test_a_report_that_fits_but_for_an_unknown_field_merges(tmp_path):
    # A later studyapp may add fields within version 1: the rest of the report is still read.
    report, warnings = read_report(write(tmp_path, "ana.json", with_changes(ANA, badge={"x": [float("1")]})))
    assert report is not None and warnings == [] and report["profile"] == "ana"


def test_totals_that_are_not_a_mapping_reject_the_file_with_every_wrong_field(tmp_path):
    path = write(tmp_path, "t.json", base(profile="t", totals=[1, 2], decks={}, generated_ms="x"))
    column = column_of(path.read_text(encoding="utf-8"), '"generated_ms": ', '"x"')
    assert read_report(path) == (None, [
        f"{path}:1:{column}: error: $.generated_ms is the text "
        "\"x\", expected a time in epoch milliseconds, before the year 10000 (0 to 253402300799999) "
        f"(and 2 more: $.totals, $.decks); {REGENERATE}"])


def test_missing_totals_and_lists_merge_as_blanks(tmp_path):
    report, warnings = read_report(write(tmp_path, "t.json", base(profile="t", totals={"reviews": 0})))
    assert report["totals"] == dict(dict.fromkeys(FULL_TOTALS), reviews=0)
    assert report["decks"] == [] and report["generated_ms"] == 0 and report["cards"] == []
    assert report["tracks"] == [] and report["exams"] == [] and report["flags"] == []
    assert warnings == [f"{tmp_path / 't.json'}: warning: report version 1 lacks generated_ms, decks, tracks, "
                        "exams, cards, " + ", ".join(f"totals.{name}" for name in FULL_TOTALS if name != "reviews")
                        + "; merged with those figures left blank"]
