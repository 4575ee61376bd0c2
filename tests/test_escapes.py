"""One-line bugs that an audit (../shared/reviews/tests-audit-2026-12.md, section 3) put into the domain
and that no test noticed. Each test here fails on the mutated code it is named after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studyapp.core.loader import load_deck
from studyapp.core.matching import allowed_typos, check_typed
from studyapp.core.models import Card
from studyapp.core.scheduler import AGAIN, GOOD
from studyapp.core.session import ReviewSession

from engine_support import deck, store_at


def basic(answer: str) -> Card:
    return Card("c", "basic", ("x",), front="What is it?", back=answer)


# -- M4: 5 to 11 letters forgive one typo, not two -------------------------------------------------

@pytest.mark.parametrize("length, typos", [(4, 0), (5, 1), (11, 1), (12, 2), (30, 2)])
def test_the_typo_allowance_at_each_boundary(length, typos):
    assert allowed_typos(length) == typos


def test_two_typos_in_ten_letters_are_refused_and_one_is_forgiven():
    # Levenshtein("foundaton", "foundation") == 1; ("fuondaton", "foundation") == 2 (a swap is two edits).
    assert check_typed("foundaton", basic("foundation")).correct
    assert not check_typed("fuondaton", basic("foundation")).correct
    # Twelve letters forgive two: "transformeer" -> "transformers" is one, "trnasformers" two.
    assert check_typed("trnasformers", basic("transformers")).correct
    assert not check_typed("trnasformrrs", basic("transformers")).correct  # three


# -- M7: every quote of a card is checked against the seed, not only the first ---------------------

def test_a_second_quote_that_is_not_in_the_seed_is_an_error(tmp_path):
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("alpha beta gamma", encoding="utf-8")
    (tmp_path / "decks").mkdir()
    path = tmp_path / "decks" / "d.yaml"
    path.write_text("schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards:\n"
                    "  - id: one\n    type: basic\n    front: What comes first?\n    back: alpha\n"
                    "    source: [alpha, delta]\n", encoding="utf-8")
    result = load_deck(path)
    problems = [(p.code, p.line) for p in result.problems if p.is_error]
    assert problems == [("source-not-in-seed", 10)]
    assert "delta" in next(p.message for p in result.problems if p.code == "source-not-in-seed")


# -- M8: a report one version newer than this studyapp reads is refused ----------------------------

def test_a_report_one_version_newer_is_rejected_and_the_current_one_merges(tmp_path):
    from studyapp.onboarding.merge import merge_reports
    from studyapp.onboarding.report import REPORT_FORMAT, REPORT_VERSION, build_report

    report = build_report(profile="ana", decks=[], items=[], answers=[], exams=[], curriculum=None,
                          now_ms=1_780_000_000_000, day_of=lambda ms: ms // 86_400_000,
                          date_of=lambda day: "2026-06-01")
    assert report["format"] == REPORT_FORMAT and report["version"] == REPORT_VERSION
    current = tmp_path / "current.json"
    current.write_text(json.dumps(report), encoding="utf-8")
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(dict(report, version=REPORT_VERSION + 1, profile="bob")), encoding="utf-8")
    result = merge_reports([current, newer])
    assert [learner["profile"] for learner in result.learners] == ["ana"]
    (rejected,) = result.rejected
    assert f"report version {REPORT_VERSION + 1} was written by a newer studyapp" in rejected


# -- M3b: undo in cram puts the cram queue back as it was ------------------------------------------

def test_undo_in_cram_restores_the_cram_queue(tmp_path):
    decks = [deck("a", 3)]
    store, clock = store_at(tmp_path)
    cram = ReviewSession(store, decks, clock=clock, cram=True)
    first = cram.next()
    cram.answer(AGAIN)  # puts the item back into the cram queue, a few places on
    assert cram.undo() is not None
    assert cram.next().key == first.key  # the undone item is shown again
    seen = []
    while (shown := cram.next()) is not None:
        seen.append(shown.key)
        cram.answer(GOOD)
    # Each of the three once: the Again that was undone left no second copy behind.
    assert sorted(seen) == sorted(item.key for item in decks[0].items())


# -- M9b: the fuzz follows the review count on every review, not only the first -----------------

def test_the_fuzz_of_one_item_moves_with_its_review_count_after_the_first_review():
    from dataclasses import replace

    from studyapp.core.anki_ids import anki_card_id
    from studyapp.core.anki_random import fuzz_factor
    from studyapp.core.scheduler import REVIEW, ItemState, ReviewScheduler, Settings

    scheduler = ReviewScheduler(Settings(timezone="UTC", load_balancer=False))
    key = "d/c/main"
    # Anki seeds the fuzz with card id + reps (rslib/src/scheduler/states/mod.rs): one item,
    # reps 1 to 12, must give twelve different numbers, each Anki's for that sum.
    factors = [scheduler.fuzz_factor(key, reps) for reps in range(1, 13)]
    assert factors == [fuzz_factor(anki_card_id(key) + reps) for reps in range(1, 13)]
    assert len(set(factors)) == 12
    # And the interval shown moves with them: a 100-day review spans 93..107 days.
    state = ItemState(state=REVIEW, stability=100.0, difficulty=5.0, due_ms=10**12, last_review_ms=10**12 - 100 * 86_400_000,
                      interval=100, reps=1)
    goods = {scheduler.previews(replace(state, reps=reps), key, 10**12)[GOOD].interval_days for reps in range(1, 13)}
    assert len(goods) >= 5
