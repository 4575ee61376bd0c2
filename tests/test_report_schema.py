"""The report schema's own contract (report_schema.py), field kind by field kind.

tests/test_hostile_reports.py rejects whole files through the merge; here are the edges it does
not reach: each range's first and last value (both the fast predicate, which sees a fitting
report, and the walk, which names fields once a report fails), the text of every kind of
expected value, how a found value is shown, JSON paths that need quoting, and where a field is
found in a file written with other whitespace, escapes or a repeated key.
"""

from __future__ import annotations

import pytest

from studyapp.onboarding.report_schema import (
    COUNT, FLAG, MAX_COUNT, MAX_MS, REPORT, ListOf, MapOf, Record, _fits, check, describe, json_path, locate,
    too_deep,
)

TIME = "a time in epoch milliseconds, before the year 10000 (0 to 253402300799999)"


def fresh(spec):
    """The same schema as a new object, so its fast predicate is written out again here: each schema's
    is kept after its first use, and one made before this test would not show how it is made now."""
    # (a list or mapping schema is made in its test, so it is new already)
    return Record(dict(spec.fields), nullable=spec.nullable) if isinstance(spec, Record) else spec


def checked(document, spec=REPORT, **options):
    """check() on a fresh copy of ``spec``, and its fast predicate agreeing with it: true exactly when
    the walk finds nothing (the predicate alone decides whether a report is walked at all)."""
    spec = fresh(spec)
    problems = check(document, spec, **options)
    assert _fits(spec)(document) is (problems == [])
    return problems


def edges() -> dict:
    """A report whose every number sits on an end of its range: it fits, end to end."""
    span = {"retention": 0, "young": 1, "mature": None, "answers": 0, "young_answers": MAX_COUNT,
            "mature_answers": 7}
    return {
        "profile": "a.b_c-1", "generated_ms": MAX_MS, "generated": None, "curriculum": "x",
        "totals": {"items": 0, "reviews": MAX_COUNT, "mastery": 0.0, "retention": 1.0, "retention_young": None,
                   "retention_by_span": {"day": span, "1 week": dict(span)}, "started_ms": 0,
                   "last_studied_ms": None, "time_ms": 0},
        "decks": [{"id": "a-1", "title": "", "mastery": 1, "retention": 0.0}],
        "tracks": [{"id": "x", "status": "not started", "days": None, "decks": [], "after": ["y"]}],
        "next": None,
        "exams": [{"seed": -MAX_COUNT, "passed": False, "score": 1, "time_ms": 0},
                  {"seed": MAX_COUNT, "passed": True, "score": 0.5}],
        "cards": [{"key": "a-1/b2", "reviews": 0, "again": 0}],
        "unknown": float("nan"),  # a field of a later studyapp is not looked at
    }


def test_a_report_on_every_range_end_fits():
    assert checked(edges()) == []
    assert checked(dict(edges(), next={"track": None, "deck": "a", "title": ""})) == []
    assert checked({}) == [] and checked({"decks": []}) == []  # a field may be missing
    (problem,) = checked(dict(edges(), next={"track": 3, "deck": "a"}))
    assert (problem.json_path, problem.found, problem.expected) == ("$.next.track", "3", "text or null")


# (the field, a value just outside it, how it is shown, what was expected)
OUTSIDE = [
    (("totals", "items"), -1, "-1", "a whole number, 0 or more"),
    (("totals", "reviews"), MAX_COUNT + 1, "9007199254740992", "a whole number, 0 or more"),
    (("totals", "reviews"), 3.0, "3.0", "a whole number, 0 or more"),
    (("totals", "reviews"), None, "null", "a whole number, 0 or more"),
    (("totals", "mastery"), -0.001, "-0.001", "a finite number from 0 to 1"),
    (("totals", "retention"), 1.001, "1.001", "a finite number from 0 to 1 or null"),
    (("totals", "retention"), False, "false", "a finite number from 0 to 1 or null"),
    (("totals", "retention"), float("-inf"), "-Infinity", "a finite number from 0 to 1 or null"),
    (("totals", "started_ms"), MAX_MS + 1, "253402300800000", TIME + " or null"),
    (("generated_ms",), None, "null", TIME),
    (("generated",), 5, "5", "text or null"),
    (("profile",), "two words", 'the text "two words"',
     "a profile name (letters, digits, '.', '_' and '-', as --profile takes)"),
    (("decks", 0, "id"), "Alpha", 'the text "Alpha"', "a deck id (lower-case letters, digits and hyphens)"),
    (("decks", 0, "title"), None, "null", "text"),
    (("tracks", 0, "status"), "late", 'the text "late"', 'one of "done", "behind", "not started", "on track"'),
    (("tracks", 0, "status"), None, "null", 'one of "done", "behind", "not started", "on track"'),
    (("tracks", 0, "days"), -1, "-1", "a whole number, 0 or more or null"),
    (("tracks", 0, "id"), " \t", 'the text " \\t"', "a non-empty text"),
    (("tracks", 0, "after", 0), "", 'the text ""', "a non-empty text"),
    (("tracks", 0, "decks"), {}, "an object", "a list"),
    (("next",), [], "a list of 0", "an object or null"),
    (("exams", 0, "seed"), -MAX_COUNT - 1, "-9007199254740992", "a whole number"),
    (("exams", 1, "seed"), MAX_COUNT + 1, "9007199254740992", "a whole number"),
    (("exams", 0, "passed"), 1, "1", "true or false"),
    (("exams", 0, "score"), True, "true", "a finite number from 0 to 1"),
    (("exams", 0, "score"), "1", 'the text "1"', "a finite number from 0 to 1"),
    (("cards", 0, "key"), "a-1/b2/main", 'the text "a-1/b2/main"', "a card key (deck id/card id)"),
    (("cards", 0, "key"), "a-1/B2", 'the text "a-1/B2"', "a card key (deck id/card id)"),
    (("totals", "retention_by_span"), [], "a list of 0", "an object"),
    (("totals", "retention_by_span", "1 week", "answers"), -2, "-2", "a whole number, 0 or more"),
    (("totals", "retention_by_span", "day"), 0, "0", "an object"),
    (("totals",), "x", 'the text "x"', "an object"),
    (("cards",), {}, "an object", "a list"),
]


def put(document: dict, path: tuple, value) -> dict:
    inner = document
    for part in path[:-1]:
        inner = inner[part]
    inner[path[-1]] = value
    return document


@pytest.mark.parametrize("path, value, shown, expected", OUTSIDE,
                         ids=[f"{'.'.join(map(str, p))}-{n}" for n, (p, _, _, _) in enumerate(OUTSIDE)])
def test_a_value_just_outside_its_field_is_the_one_named(path, value, shown, expected):
    problems = checked(put(edges(), path, value))
    # Every other field is on the end of its range: the walk names this one and no other.
    assert [(p.json_path, p.found, p.expected) for p in problems] == [(json_path(path), shown, expected)]


def test_the_walk_names_every_wrong_field_in_document_order_up_to_the_limit():
    report = edges()
    report["cards"] = [{"key": "a/b", "reviews": 1, "again": 0}, {"key": "a/b", "again": -1}, {"key": "a/c"}, "x"]
    report["profile"] = ""
    report["totals"]["mastery"] = 2
    paths = ["$.profile", "$.totals.mastery", "$.cards[1].again", "$.cards[3]"]
    assert [p.json_path for p in checked(report)] == paths
    assert [p.json_path for p in checked(report, limit=2)] == paths[:2]
    assert [p.path for p in checked(report, limit=1)] == [("profile",)]


def test_a_flag_is_checked_at_its_place_in_the_report():
    flag = {"key": "alpha/a/main", "deck": "alpha", "card": "a", "note": "", "time_ms": None, "date": None}
    assert checked(flag, FLAG, at=("flags", 4)) == []
    (problem,) = checked(dict(flag, key="alpha/a"), FLAG, at=("flags", 4))
    assert (problem.path, problem.expected) == (("flags", 4, "key"), "an item key (deck id/card id/variant)")
    (problem,) = checked(dict(flag, time_ms=-1), FLAG, limit=1, at=("flags", 0))
    assert problem.json_path == "$.flags[0].time_ms" and problem.expected == TIME + " or null"


def test_a_schema_may_be_a_list_or_a_mapping_of_them():
    # report_schema's kinds nest in any order, not only as REPORT nests them.
    assert checked([[0], [MAX_COUNT]], ListOf(ListOf(COUNT))) == []
    assert [p.json_path for p in checked([[0], [1, -1]], ListOf(ListOf(COUNT)))] == ["$[1][1]"]
    assert [p.json_path for p in checked({"a": [1], "b c": [None]}, MapOf(ListOf(COUNT)))] == ['$["b c"][0]']


def test_a_value_is_shown_short():
    assert [describe(v) for v in (None, True, False, float("nan"), float("inf"), -float("inf"), 0, -2.5)] == [
        "null", "true", "false", "NaN", "Infinity", "-Infinity", "0", "-2.5"]
    assert describe(10**23) == "100000000000000000000000"  # 24 digits: still shown
    assert describe(10**24) == "a 25-digit number"
    assert describe(-(10**22)) == "-10000000000000000000000"
    assert describe("y" * 41) == 'the text "' + "y" * 40 + '"...'
    assert describe("x" * 40) == 'the text "' + "x" * 40 + '"'
    assert describe("é\n") == 'the text "\\u00e9\\n"'
    assert describe([1, [2]]) == "a list of 2" and describe({}) == "an object"


def test_json_paths_quote_keys_that_are_not_names():
    assert json_path(()) == "$"
    assert json_path(("cards", 0, "key")) == "$.cards[0].key"
    assert json_path(("_a1", "B")) == "$._a1.B"
    assert json_path(("1a", "a-b", "a b", 'q"')) == '$["1a"]["a-b"]["a b"]["q\\""]'


def test_the_line_and_column_of_a_field_whatever_the_whitespace():
    text = '{\n  "x": "}]",\t"a" :\t[ 1 ,\n 2 ],\r\n "b\\"c": {"d":[]}\n}'
    assert locate(text, ()) == (1, 1)
    assert locate(text, ("a",)) == (2, 20)
    assert locate(text, ("a", 1)) == (3, 2)
    assert locate(text, ("b\"c", "d")) == (4, 15)
    assert locate("  \n {}", ()) == (2, 2)
    assert locate('\n{"a": 1}', ("a",)) == (2, 7)
    assert locate('[1,22,{"a":12}]', (1,)) == (1, 4)  # json.dumps(separators=(",", ":")): no spaces
    assert locate('[1,22,{"a":12}]', (2, "a")) == (1, 12)
    assert locate('{"a":1,"b":2}', ("b",)) == (1, 12)


def test_a_repeated_key_is_found_where_json_reads_it_the_last_time():
    text = '{"a": 1, "a": [0, {"b": 2}], "c": 3}'
    assert locate(text, ("a", 1, "b")) == (1, text.index("2") + 1)
    assert locate(text, ("c",)) == (1, text.index("3") + 1)


@pytest.mark.parametrize("text, path", [
    ("[1, 2]", (2,)),  # no such entry
    ("[1 2]", (1,)),  # no comma
    ('{"a": 1}', ("b",)),
    ("{}", ("a",)),
    ('{"a": 1}', ("a", 0)),  # not a list
    ("[1]", ("a",)),  # not an object
    ('{"a" 1}', ("a",)),  # no colon
    ('{"b": 1 "a": 2}', ("a",)),  # no comma
    ('{"a": 1', ("a", 0)),
    ('{"a": [1,', ("a", 2)),
])
def test_a_field_that_cannot_be_found_is_put_at_the_start(text, path):
    assert locate(text, path) == (1, 1)


def test_too_deep_counts_brackets_outside_strings():
    assert too_deep("[[]]", limit=2) is None
    assert too_deep("[[[]]]", limit=2) == (1, 3)
    assert too_deep('[{"a": "[[[{{{", "b\\"[[": "\\\\"}, [], []]', limit=2) is None
    assert too_deep('[{"a": "\\\\"}, [[1]]]', limit=2) == (1, 16)
    assert too_deep("[\n [\n  [1]]]", limit=2) == (3, 3)
    assert too_deep("[\n [\n  [1]]]\n\n", limit=2) == (3, 3)  # lines after it are not counted
    assert too_deep("\n[[[]]]\n", limit=2) == (2, 3)  # a first line that is empty is a line
    assert too_deep("[]" * 100, limit=1) is None
