"""Hostile and malformed reports given to `report --merge` (issue 15: F6, F7), one test per repro of
the reliability review (reliability-2026-12.md, 5b, 5c, 5e): a wrong type, a non-finite number, a
time no calendar shows, nesting 200,000 deep or a version other than 1 rejects that file, with its
line and the field's JSON path, and the other learners' rows are still printed; names, ids and
notes reach the Markdown (and HTML) escaped; the JSON never holds NaN or Infinity."""

from __future__ import annotations

import copy
import json
from datetime import date, datetime, timedelta, timezone

import pytest
from markdown_it import MarkdownIt

from studyapp.core.curriculum import Curriculum, Track
from studyapp.core.models import Card, Deck
from studyapp.onboarding.html import team_html
from studyapp.onboarding.merge import merge_reports, team_markdown, team_summary
from studyapp.onboarding.report import (
    Answer, ExamResult, Flag, ItemFacts, build_report, table_cell, to_markdown,
)
from studyapp.onboarding.report_schema import check

from cli_runner import run_cli

DAY_MS = 86_400_000
T0 = int(datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc).timestamp() * 1000)


def day_of(ms):
    return (datetime.fromtimestamp(ms / 1000, timezone.utc) - timedelta(hours=4)).date().toordinal()


def card(card_id):
    return Card(id=card_id, type="basic", source=("x",), front=f"Q {card_id}?", back="A")


ALPHA = Deck("alpha", "Alpha", None, None, (card("a"), card("b")))


def good_report(profile="good") -> dict:
    """A report as `studyapp report --format json` writes it, with a deck, a track, an exam, a hard
    card and a flag, so that every field a repro changes is there to change."""
    answers = [Answer("alpha/a/main", "alpha", "a", "review", rating, T0 + i * DAY_MS, 5_000, i)
               for i, rating in enumerate((1, 3, 1, 3))]
    report = build_report(
        profile=profile, decks=[ALPHA], items=[ItemFacts("alpha/a/main", "alpha", "a", "review", 3.0)],
        answers=answers, exams=[ExamResult(T0 + DAY_MS, ("alpha",), 7, "mixed", 10, 8, 0.8)],
        curriculum=Curriculum(path=None, title="Onboarding", tracks=[Track("first", "First", ("alpha",), 0.5, 3)]),
        now_ms=T0 + 5 * DAY_MS, day_of=day_of, date_of=date.fromordinal,
        flags=[Flag("alpha/a/main", "alpha", "a", "unclear", T0)])
    # Through JSON and back, as a file is read.
    return json.loads(json.dumps(report, allow_nan=False))


def variant(profile, **changes):
    """The review's make_merge_inputs.py variant(): dotted names change a nested field."""
    report = good_report(profile)
    for name, value in changes.items():
        if "." in name:
            outer, inner = name.split(".")
            report[outer][inner] = value
        else:
            report[name] = value
    return report


def write(folder, name, data=None, text=None):
    path = folder / name
    path.write_text(text if text is not None else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def deck0(**changes):
    return [dict(good_report()["decks"][0], **changes)]


# (file, the report (or raw text), the JSON path named, what the message says was found)
WRONG_TYPES = [
    ("t01-mastery-str", lambda: variant("t01", **{"totals.mastery": "90%"}), "$.totals.mastery", 'the text "90%"'),
    ("t02-decks-reviews-str", lambda: variant("t02", decks=deck0(reviews="83")), "$.decks[0].reviews",
     'the text "83"'),
    ("t03-deck-id-list", lambda: variant("t03", decks=deck0(id=["a"])), "$.decks[0].id", "a list of 1"),
    ("t04-card-key-dict", lambda: variant("t04", cards=[{"key": {"a": 1}, "reviews": 5, "again": 2}]),
     "$.cards[0].key", "an object"),
    ("t05-track-id-none", lambda: variant("t05", tracks=[{"status": "behind", "id": None}]), "$.tracks[0].id",
     "null"),
    ("t06-exam-score-str", lambda: variant("t06", exams=[{"score": "high", "passed": True}]), "$.exams[0].score",
     'the text "high"'),
    ("t07-profile-list", lambda: variant(["a", "b"]), "$.profile", "a list of 2"),
    ("t08-streak-str", lambda: variant("t08", **{"totals.streak_days": "7"}), "$.totals.streak_days",
     'the text "7"'),
    ("t09-last-studied-str", lambda: variant("t09", **{"totals.last_studied_ms": "yesterday"}),
     "$.totals.last_studied_ms", 'the text "yesterday"'),
    ("t10-generated-str", lambda: variant("t10", generated_ms="soon"), "$.generated_ms", 'the text "soon"'),
    ("t11-totals-list", lambda: variant("t11", totals=[1, 2]), "$.totals", "a list of 2"),
    ("t12-card-again-str", lambda: variant("t12", cards=[{"key": "x/y", "reviews": 5, "again": "2"}]),
     "$.cards[0].again", 'the text "2"'),
    ("t13-deck-mastery-str", lambda: variant("t13", decks=deck0(mastery="0.5")), "$.decks[0].mastery",
     'the text "0.5"'),
    ("t14-last-studied-huge", lambda: variant("t14", **{"totals.last_studied_ms": 10**30}),
     "$.totals.last_studied_ms", "a 31-digit number"),
    ("t15-reviews-bool", lambda: variant("t15", **{"totals.reviews": True}), "$.totals.reviews", "true"),
    # 5e: NaN and Infinity are JSON to Python's reader, and to no other.
    ("m08-nan", lambda: json.dumps(variant("m08", **{"totals.mastery": float("nan")})), "$.totals.mastery", "NaN"),
    ("m08-infinity", lambda: json.dumps(variant("m08", **{"totals.retention": float("inf")})), "$.totals.retention",
     "Infinity"),
    ("m08-overflow", lambda: json.dumps(variant("m08", decks=deck0(retention=0.5))).replace("0.5", "1e400"),
     "$.decks[0].retention", "Infinity"),
    ("share-above-one", lambda: variant("share", **{"totals.mastery": 1.5}), "$.totals.mastery", "1.5"),
    ("negative-count", lambda: variant("neg", **{"totals.reviews": -3}), "$.totals.reviews", "-3"),
]
# Where each offending value starts in its file: the line and column must point there.
VALUE_STARTS = dict(zip([case[0] for case in WRONG_TYPES], ['"90%"', '"83"', '["a"]', '{"a": 1}', 'null', '"high"', '["a", "b"]', '"7"', '"yesterday"', '"soon"', '[1, 2]', '"2"', '"0.5"', '1000000000000000000000000000000', 'true', 'NaN', 'Infinity', '1e400', '1.5', '-3']))


@pytest.mark.parametrize("name, make, json_path, found", WRONG_TYPES, ids=[case[0] for case in WRONG_TYPES])
def test_a_wrong_type_rejects_only_that_file_naming_the_field_and_its_line(tmp_path, name, make, json_path, found):
    made = make()
    bad = write(tmp_path, f"{name}.json", text=made if isinstance(made, str) else json.dumps(made))
    good = write(tmp_path, "good.json", good_report())
    result = merge_reports([good, bad])
    assert [learner["profile"] for learner in result.learners] == ["good"]
    (message,) = result.rejected
    assert message.startswith(f"{bad}:")
    line, column = map(int, message[len(f"{bad}:"):].split(":")[:2])
    assert message.startswith(f"{bad}:{line}:{column}: error: {json_path} is {found}, expected ")
    assert "regenerate it with 'studyapp report --format json'" in message
    assert bad.read_text(encoding="utf-8").splitlines()[line - 1][column - 1:].startswith(VALUE_STARTS[name])
    # And the team table (with its JSON) is still made, for the file that was fine.
    summary = team_summary(result)
    assert json.loads(json.dumps(summary, allow_nan=False))["learners"][0]["profile"] == "good"
    assert "| good |" in team_markdown(summary)


def test_the_line_and_column_point_into_a_pretty_printed_report(tmp_path):
    report = good_report()
    report["decks"][0]["reviews"] = "83"
    path = write(tmp_path, "pretty.json", text=json.dumps(report, indent=2))
    (message,) = merge_reports([path]).rejected
    line_number = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if '"reviews": "83"' in line)
    column = path.read_text().splitlines()[line_number - 1].index('"83"') + 1
    assert message.startswith(f"{path}:{line_number}:{column}: error: $.decks[0].reviews is the text \"83\"")


@pytest.mark.parametrize("version, says", [
    (2, "report version 2 was written by a newer studyapp"),
    (99, "report version 99 was written by a newer studyapp"),
    (0, "report version 0 is not one studyapp writes (it writes version 1)"),
    (-1, "report version -1 is not one studyapp writes"),
    ("1", "the report has no valid version number"),
    (True, "the report has no valid version number"),
    (1.0, "the report has no valid version number"),
])
def test_only_version_1_is_read(tmp_path, version, says):
    path = write(tmp_path, "v.json", dict(good_report("v"), version=version))
    result = merge_reports([write(tmp_path, "good.json", good_report()), path])
    assert [learner["profile"] for learner in result.learners] == ["good"]
    (message,) = result.rejected
    assert message.startswith(f"{path}: error: ") and says in message


@pytest.mark.parametrize("name, text", [
    ("m06-deep", "[" * 200_000 + "]" * 200_000),
    ("m07-deep-inside", json.dumps(good_report("deep"))[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ("deep-objects", '{"a": ' * 100_000 + "1" + "}" * 100_000),
])
def test_deep_nesting_is_refused_with_its_line_not_a_recursion_error(tmp_path, name, text):
    path = write(tmp_path, f"{name}.json", text=text)
    result = merge_reports([write(tmp_path, "good.json", good_report()), path])
    assert [learner["profile"] for learner in result.learners] == ["good"]
    (message,) = result.rejected
    assert message.startswith(f"{path}:1:") and "nested more than 64 levels deep" in message
    column = int(message.split(":")[2])
    # The bracket that opens level 65 (the good report before m07's deep part has no bracket in a string).
    before = text[:column - 1]
    assert text[column - 1] in "[{"
    assert before.count("[") + before.count("{") - before.count("]") - before.count("}") == 64


def test_merge_command_prints_the_table_and_exits_1_when_a_file_was_rejected(tmp_path, cli_env):
    """Every bad file of 5b, given together with two good ones: exit 1, no traceback, one error line per
    bad file naming it, and both good learners in the table (Markdown and JSON)."""
    files = [write(tmp_path, "ana.json", good_report("ana"))]
    for name, make, _, _ in WRONG_TYPES:
        made = make()
        files.append(write(tmp_path, f"{name}.json", text=made if isinstance(made, str) else json.dumps(made)))
    files.append(write(tmp_path, "m06-deep.json", text="[" * 200_000 + "]" * 200_000))
    files.append(write(tmp_path, "m09-future.json", dict(good_report("future"), version=99)))
    files.append(write(tmp_path, "bob.json", good_report("bob")))
    args = ["report", "--merge", *map(str, files)]
    markdown = run_cli(args, cli_env)
    assert markdown.returncode == 1
    assert "Traceback" not in markdown.stderr
    errors = [line for line in markdown.stderr.splitlines() if ": error: " in line]
    assert len(errors) == len(files) - 2
    for path in files[1:-1]:
        assert sum(line.startswith(f"{path}:") for line in errors) == 1, path
    assert "| ana |" in markdown.stdout and "| bob |" in markdown.stdout
    as_json = run_cli([*args, "--format", "json"], cli_env)
    assert as_json.returncode == 1
    summary = json.loads(as_json.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    assert [learner["profile"] for learner in summary["learners"]] == ["ana", "bob"]
    assert len(summary["rejected"]) == len(files) - 2


def test_every_file_rejected_is_exit_1_with_each_reason(tmp_path, cli_env):
    bad = write(tmp_path, "nan.json", text=json.dumps(variant("nan", **{"totals.mastery": float("nan")})))
    run = run_cli(["report", "--merge", str(bad), "--format", "json"], cli_env)
    assert run.returncode == 1 and run.stdout == ""
    assert f"{bad}:" in run.stderr and "$.totals.mastery is NaN" in run.stderr
    assert "no report could be merged" in run.stderr and "Traceback" not in run.stderr


def test_a_fifo_given_to_merge_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result = merge_reports([fifo, write(tmp_path, "good.json", good_report())])
    assert result.rejected == [f"{fifo}: error: not a regular file; pass the JSON written by "
                               "'studyapp report --format json'"]


def test_a_bad_flag_is_left_out_with_its_path_and_the_report_merges(tmp_path):
    report = good_report("ana")
    report["flags"].append({"key": {"x": 1}, "note": "n", "deck": "alpha", "card": "a", "time_ms": None})
    report["flags"].append({"key": "alpha/a/main", "note": "fine", "time_ms": float("nan")})
    path = write(tmp_path, "ana.json", text=json.dumps(report))
    result = merge_reports([path])
    assert [learner["profile"] for learner in result.learners] == ["ana"] and not result.rejected
    assert [w.split(": warning: ")[1] for w in result.warnings] == [
        "$.flags[1].key is an object, expected an item key (deck id/card id/variant); that flag is left out",
        "$.flags[2].time_ms is NaN, expected a time in epoch milliseconds, before the year 10000 (0 to "
        "253402300799999) or null; that flag is left out",
    ]
    assert [f["note"] for f in team_summary(result)["flags"]] == ["unclear"]


def test_a_huge_valid_report_still_merges(tmp_path):
    """5f: a report of 200,000 cards is a report (the fast check walks it without keeping paths)."""
    report = good_report("big")
    report["cards"] = [{"key": f"deck/c{i}", "reviews": 5, "again": i % 5} for i in range(200_000)]
    result = merge_reports([write(tmp_path, "big.json", report)])
    assert not result.rejected and len(result.learners[0]["cards"]) == 200_000
    report["cards"][150_000]["again"] = "2"
    result = merge_reports([write(tmp_path, "big.json", report)])
    assert "$.cards[150000].again is the text \"2\"" in result.rejected[0]


# ---------------------------------------------------------------- F7: what reaches the Markdown

MARKDOWN = MarkdownIt("gfm-like")
HOSTILE = [
    "<img src=x onerror=alert(1)><script>alert('lead')</script>",
    "evil | done | | 100% |\n| fake-learner | done",
    "[click me](javascript:alert(1)) ![x](https://evil.example/track.png)",
    "ana\x1b]52;c;cm0gLXJmIH4vKg==\x1b\\\x1b]2;PWNED-MERGE\x07\x1b[2K\rbob",
    "<script>alert('deck')</script> | x",
    "*bold* _it_ `code` ~~gone~~ \\| &amp; &lt;b&gt;",
]


def rendered(markdown: str) -> str:
    return MARKDOWN.render(markdown)


# What a studyapp table renders to: anything else came from a value.
TABLE_TAGS = {"h1", "h2", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "strong"}


def assert_inert(html: str) -> None:
    """Parsed as a browser would: only the tags studyapp's own Markdown makes, with no attribute (no
    handler, no src), and no link but a bare web address the renderer linked (GitHub's tables do),
    which shows its whole address as its text. ``strong`` is the learner report's "Next: study **...**"."""
    from html.parser import HTMLParser

    seen, links = [], []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            seen.append((tag, attrs))
            if tag == "a":
                links.append([dict(attrs).get("href"), ""])

        def handle_endtag(self, tag):
            if tag == "a":
                links.append(None)  # closed: later text is not the link's

        def handle_data(self, data):
            if links and links[-1] is not None:
                links[-1][1] += data

    Tags().feed(html)
    assert {tag for tag, _ in seen} <= TABLE_TAGS | {"a"}, seen
    assert all(not attrs for tag, attrs in seen if tag != "a"), seen
    for href, text in filter(None, links):
        assert href.startswith("https://") and href == text, (href, text)


@pytest.mark.parametrize("name", HOSTILE, ids=[f"i{n:02d}" for n in range(1, len(HOSTILE) + 1)])
def test_hostile_profiles_and_deck_ids_in_a_report_are_rejected_by_merge(tmp_path, name):
    """5c: a report studyapp wrote has a --profile name and slug deck ids; these are neither."""
    as_profile = write(tmp_path, "p.json", variant(name))
    as_deck = write(tmp_path, "d.json", variant("deckinj", decks=deck0(id=name)))
    result = merge_reports([as_profile, as_deck, write(tmp_path, "good.json", good_report())])
    assert [learner["profile"] for learner in result.learners] == ["good"]
    assert [m.split(": error: ")[1].split(" is ")[0] for m in result.rejected] == ["$.profile", "$.decks[0].id"]


@pytest.mark.parametrize("name", HOSTILE, ids=[f"i{n:02d}" for n in range(1, len(HOSTILE) + 1)])
def test_team_markdown_shows_names_ids_and_notes_as_written_and_nothing_more(name):
    """The team table from the server (`report --team`) does not pass through a file's checks, and notes
    are free text: every cell is escaped. Rendered by a real CommonMark (GFM tables) renderer, the table
    has one row per learner, deck and card, no live HTML, link or image, and the text itself."""
    summary = {
        "learners": [{"profile": name, "status": "behind", "behind": [name], "mastery": 0.5, "reviews": 3,
                      "retention": 0.5, "time_ms": 0, "streak_days": 1, "last_studied_ms": T0, "last_exam": None},
                     {"profile": "bob", "status": "on track", "behind": [], "mastery": 0.1, "reviews": 1,
                      "retention": None, "time_ms": 0, "streak_days": 0, "last_studied_ms": None,
                      "last_exam": None}],
        "decks": [{"id": name, "learners": 1, "reviews": 3, "retention": 0.5, "mastery": 0.5}],
        "cards": [{"key": name, "learners": 1, "reviews": 3, "again": 1, "again_share": 1 / 3}],
        "flags": [{"key": name, "profile": name, "note": name, "date": name}],
    }
    markdown = team_markdown(summary)
    assert "\x1b" not in markdown and "\r" not in markdown and "\x07" not in markdown
    html = rendered(markdown)
    assert_inert(html)
    # learners: 2 rows; decks, cards, flags: 1 each; plus 4 header rows
    assert html.count("<tr>") == 2 + 1 + 1 + 1 + 4
    first_learner_cell = html.split("<tbody>\n<tr>\n<td>")[1].split("</td>")[0]
    assert unescaped(first_learner_cell) == visible_one_line(name)


def unescaped(cell_html: str) -> str:
    """The text a reader sees in rendered HTML (tags dropped, entities decoded)."""
    from html.parser import HTMLParser

    parts = []

    class Text(HTMLParser):
        def handle_data(self, data):
            parts.append(data)

    Text().feed(cell_html)
    return "".join(parts)


def visible_one_line(text: str) -> str:
    from studyapp.core.terminal_text import visible_line

    return visible_line(" ".join(text.split()))


def test_merged_notes_with_html_links_pipes_and_newlines_stay_text(tmp_path):
    report = good_report("ana")
    report["flags"][0]["note"] = "<script>x</script> [a](javascript:1) | forged | row |\n| eve | done |"
    summary = team_summary(merge_reports([write(tmp_path, "ana.json", report)]))
    html = rendered(team_markdown(summary))
    assert_inert(html)
    flags_table = html.split("<table>")[-1]
    assert flags_table.count("<tr>") == 2  # the header and the one flag
    assert "| forged | row |" in unescaped(flags_table)


def test_learner_markdown_escapes_titles_and_names():
    deck = Deck("alpha", "<script>t</script> [x](javascript:1) | forged |", None, None, (card("a"),))
    report = build_report(profile="ana", decks=[deck], items=[], answers=[], exams=[],
                          curriculum=Curriculum(path=None, title="<b>C</b>", tracks=[
                              Track("first", "*First* | x |\n| y", ("alpha",), 0.5, 3)]),
                          now_ms=T0, day_of=day_of, date_of=date.fromordinal)
    markdown = to_markdown(report)
    html = rendered(markdown)
    assert_inert(html)
    assert "Next: study <strong>&lt;script&gt;t&lt;/script&gt; [x](javascript:1) | forged |</strong> (alpha)." in html
    tracks = html.split("<table>")[1]
    assert tracks.count("<tr>") == 2 and "*First* | x | | y" in unescaped(tracks)


def test_table_cell_escapes_exactly_what_markdown_would_read():
    assert table_cell("plain words, 3 (of 4) - ok!") == "plain words, 3 (of 4) - ok!"
    assert table_cell("ana_b_2") == "ana_b_2"  # inside a word an underscore is no emphasis
    assert table_cell("_x_ a_ _b") == "\\_x\\_ a\\_ \\_b"
    assert table_cell("a|b") == "a\\|b"
    assert table_cell("<b>&") == "&lt;b&gt;&amp;"
    assert table_cell("[x](y) *z* _w_ `v` ~u~ \\") == "\\[x\\](y) \\*z\\* \\_w\\_ \\`v\\` \\~u\\~ \\\\"
    assert table_cell("one\ntwo\r\nthree\tfour") == "one two three four"
    assert table_cell("\x1b]2;T\x07") == "\\\\x1b\\]2;T\\\\x07"


def test_team_html_escapes_names_ids_and_keys():
    name = HOSTILE[0]
    summary = {"learners": [{"profile": name, "status": "behind", "mastery": 0.5, "reviews": 3, "retention": 0.5}],
               "decks": [{"id": name, "learners": 1, "reviews": 3, "retention": 0.5, "mastery": 0.5}],
               "cards": [{"key": name, "reviews": 3, "again": 1, "learners": 1}]}
    page = team_html(summary)
    assert "<script" not in page and "<img" not in page
    assert page.count("&lt;img src=x onerror=alert(1)&gt;") >= 3


def test_good_report_fits_the_schema_as_written():
    """The schema is the shape build_report writes: a fresh report has no problem, and copy edits do."""
    report = good_report()
    assert check(report) == []
    broken = copy.deepcopy(report)
    broken["exams"][0]["passed"] = "yes"
    assert [p.json_path for p in check(broken)] == ["$.exams[0].passed"]
