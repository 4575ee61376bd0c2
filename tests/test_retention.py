"""One retention, Anki's True Retention, the same in the session (Stats), `stats --json` and the report;
mastery counts facts (cards, related cards together)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studyapp.core.retention import TrueRetention, by_span, counts, true_retention
from studyapp.core.scheduler import AGAIN, EASY, GOOD, HARD
from studyapp.core.session import ReviewSession
from studyapp.onboarding.report import Answer, ItemFacts, build_report
from studyapp.store.summary import deck_figures

from engine_support import BANK_ORDER, SETTINGS, deck, location, store_at


def test_which_answers_count():
    assert counts("review", 1) and counts("review", 400)
    assert counts("review", -86400)  # a learning step of a day
    assert not counts("review", 0)  # a new item's first answer
    assert not counts("review", -600) and not counts("review", -86399)  # short steps
    assert not counts("cram", 30)  # does not touch the schedule


def test_young_and_mature_split_at_21_days():
    result = true_retention([("review", GOOD, 20), ("review", AGAIN, 20), ("review", HARD, 21), ("review", AGAIN, 21),
                             ("review", AGAIN, 90), ("review", EASY, 0), ("cram", AGAIN, 30)])
    assert result == TrueRetention(young_passed=1, young_failed=1, mature_passed=1, mature_failed=2)
    assert (result.rate, result.young, result.mature) == (pytest.approx(2 / 5), 0.5, pytest.approx(1 / 3))
    assert TrueRetention().rate is None


def test_spans_end_today():
    day = lambda t: t  # times are study days here
    rows = [(10, "review", GOOD, 5), (4, "review", AGAIN, 5), (-19, "review", GOOD, 5), (-400, "review", GOOD, 5)]
    spans = by_span(rows, day, 10)
    assert spans["day"].total == 1 and spans["week"].total == 2 and spans["month"].total == 3
    assert spans["year"].total == 3  # day -400 is more than 365 days ago
    assert spans["week"].rate == 0.5


def test_the_session_stats_and_the_report_give_one_figure(tmp_path):
    decks = [deck("a", 4)]
    store, clock = store_at(tmp_path)
    s = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
    for _ in range(4):  # first answers: never counted
        s.next()
        s.answer(EASY)
    assert s.retention(30)[0] is None
    clock.advance(days=40)
    s = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
    for rating in (GOOD, AGAIN, GOOD, HARD):  # four reviews of young items; the Again relearns
        s.next()
        s.answer(rating)
    clock.advance(minutes=11)
    s.next()
    s.answer(GOOD)  # the relearning step: not counted
    assert s.retention(30) == (pytest.approx(3 / 4), 0.9)
    spans = s.retention_spans()
    assert (spans["day"].total, spans["week"].young, spans["month"].mature) == (4, pytest.approx(3 / 4), None)
    (progress,) = s.deck_progress()
    assert progress.retention == pytest.approx(3 / 4)  # the table's figure is the header's
    store.close()
    figures = deck_figures(decks, location(tmp_path), clock=clock)["a"]
    assert (figures["retention"], figures["retention_young"], figures["retention_mature"]) == \
        (pytest.approx(3 / 4), pytest.approx(3 / 4), None)
    from studyapp.onboarding.collect import collect_report
    from studyapp.core.catalog import Catalog

    report = collect_report(location(tmp_path), Catalog(decks=decks, problems=[]), clock=clock)
    assert report["decks"][0]["retention"] == pytest.approx(3 / 4)
    assert report["totals"]["retention_by_span"]["month"]["retention"] == pytest.approx(3 / 4)


def test_mastery_counts_a_card_once_and_related_cards_as_one_fact():
    from engine_support import card

    cards = [card("r", "reverse"), card("z", "cloze", clozes=3), card("p"), replace(card("q"), related=("p",))]
    bank = deck("d", cards)
    mastered = lambda key: ItemFacts(key, "d", key.split("/")[1], "review", 30.0)
    weak = lambda key: ItemFacts(key, "d", key.split("/")[1], "review", 3.0)
    items = [mastered("d/r/forward"), mastered("d/r/backward"),  # the whole card: one fact mastered
             mastered("d/z/c1"), mastered("d/z/c2"), weak("d/z/c3"),  # one weak deletion: not mastered
             mastered("d/p/main"), weak("d/q/main")]  # related: one fact, not mastered while q is weak
    report = build_report(profile="p", decks=[bank], items=items, answers=[], exams=[], curriculum=None,
                          now_ms=0, day_of=lambda ms: 0, date_of=lambda d: d)
    row = report["decks"][0]
    assert (row["items"], row["mastered"], row["facts"], row["mastered_facts"]) == (7, 5, 3, 1)
    assert row["mastery"] == pytest.approx(1 / 3)
    items[-1] = mastered("d/q/main")
    report = build_report(profile="p", decks=[bank], items=items, answers=[], exams=[], curriculum=None,
                          now_ms=0, day_of=lambda ms: 0, date_of=lambda d: d)
    assert report["decks"][0]["mastered_facts"] == 2


def test_one_figure_per_span_in_stats_stats_json_and_the_report(tmp_path):
    """A year and more of reviews (some mature, some failed), ending now: over each of day, week,
    month and year, the session (what Stats shows), ``stats --json`` and ``report --format json``
    give the same True Retention, split the same young and mature; the header's 30 days are the
    month, and the spans differ from each other and from the report's all-time figure, so a
    mix-up of spans could not pass."""
    import hashlib
    import json
    import os
    import time

    from studyapp.core.clock import DAY_MS, FakeClock
    from studyapp.core.retention import SPANS
    from studyapp.store import open_store

    from cli_runner import run_cli
    from engine_support import card

    bank = tmp_path / "decks"
    bank.mkdir()
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("---\ntitle: S\n---\ns\n", encoding="utf-8")
    cards = "".join(f"  - id: c{i}\n    type: basic\n    front: Q {i}?\n    back: A {i}\n    source: s\n"
                    for i in range(16))
    (bank / "r.yaml").write_text(f"schema: 1\nid: r\ntitle: R\nseed: ../seeds/s.md\ncards:\n{cards}",
                                 encoding="utf-8")
    from studyapp.core.catalog import load_paths

    loaded = load_paths([bank])
    assert not [p for p in loaded.problems if p.severity == "error"], loaded.problems
    decks = list(loaded.decks)
    now = int(time.time() * 1000)
    clock = FakeClock(now - 420 * DAY_MS)
    store = open_store(location(tmp_path), clock=clock)
    store.save_settings(SETTINGS)
    # Every fifth day until the last month, then every day (what is due waits for the next visit).
    for ago in [*range(420, 30, -5), *range(30, -1, -1)]:
        clock.set(now - ago * DAY_MS)
        s = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
        while (item := s.next()) is not None:
            digest = hashlib.blake2b(f"{item.key}{item.state.reps}".encode(), digest_size=1).digest()[0]
            # Half the cards are hard for this learner (short intervals: answers every day), half
            # easy (they grow mature).
            harsh = int(item.key.split("/")[1][1:]) % 2
            ratings = (AGAIN, AGAIN, HARD, GOOD) if harsh else (AGAIN, HARD, GOOD, GOOD, GOOD, EASY)
            s.answer(ratings[digest % len(ratings)] if item.state.reps else EASY)
            clock.advance(minutes=1)
    clock.set(now)
    s = ReviewSession(store, decks, clock=clock, settings=SETTINGS, presets=BANK_ORDER)
    spans = s.retention_spans()
    header, _ = s.retention(30)
    (table,) = s.deck_progress()
    store.close()
    # Four different sets of answers (each span holds answers the shorter ones do not), young and
    # mature among them: a mix-up of spans would show.
    assert len({spans[name] for name in SPANS}) == 4, spans
    assert spans["month"].total and spans["year"].mature is not None and spans["year"].young is not None
    assert header == spans["month"].rate == table.retention

    env = {**os.environ, "STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DECKS": str(bank)}
    result = run_cli(["stats", "r", "--json"], env)
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    result = run_cli(["report", "--format", "json"], env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    (row,) = stats["decks"]
    (report_deck,) = [d for d in report["decks"] if d["id"] == "r"]
    assert row["retention"] == pytest.approx(header)
    assert (row["retention_young"], row["retention_mature"]) == (pytest.approx(spans["month"].young),
                                                                pytest.approx(spans["month"].mature))
    for name in SPANS:
        expected = spans[name].to_json()
        # (The report gives the spans overall; its deck rows sum the log in SQL without study days.)
        for where in (row["retention_by_span"], stats["retention_by_span"],
                      report["totals"]["retention_by_span"]):
            assert set(where[name]) == set(expected), name
            for field, value in expected.items():
                assert where[name][field] == (None if value is None else pytest.approx(value)), (name, field)
    # The report's headline is over all time (it says so): more answers than the year's.
    assert report["totals"]["retention_answers"] > spans["year"].total
    result = run_cli(["report"], env)
    assert "over all time" in result.stdout and "## Retention" in result.stdout
    month = spans["month"]
    line = next(l for l in result.stdout.splitlines() if l.startswith("| 30 days |"))
    from studyapp.onboarding.report import percent

    assert line == f"| 30 days | {percent(month.rate)} | {percent(month.young)} | {percent(month.mature)} | {month.total} |"
