"""Fitting FSRS parameters to the review log (core/optimize.py, studyapp optimize, export log).

The conversion tests restate Anki's own (rslib/src/scheduler/fsrs/params.rs, its tests
module) on studyapp's rows; the fits run the real crate on real stores.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from cli_runner import run_cli
from engine_support import SCHEMA_6_UNDONE, location, store_at
from optimize_support import SPECS, deck_for, history, record, settings_for
from studyapp.core import optimize as o
from studyapp.core.clock import FakeClock
from studyapp.core.optimize import KIND_CRAM, KIND_LEARNING, KIND_RELEARNING, KIND_RESET, KIND_REVIEW, LogRow
from studyapp.core.presets import DEFAULT_PRESET, Preset
from studyapp.core.problems import StudyappError
from studyapp.core.scheduler import DEFAULT_PARAMETERS
from studyapp.core.session import ReviewSession
from studyapp.store import open_store, schema

NEXT_DAY_AT = 86_400 * 1000  # Anki's tests: next_day_at 1000 days after the epoch


def row(kind: int, days_ago: int, rating: int = 3, card: int = 1) -> LogRow:
    return LogRow(card, (NEXT_DAY_AT - days_ago * 86_400) * 1000, rating, kind)


def items(rows, ignore_before_ms=0):
    found = o.card_reviews(rows, NEXT_DAY_AT, ignore_before_ms)
    if found is None:
        return None
    _, reviews, found_items = found
    return [reviews[:length] for _, length in found_items]


def test_delta_t_and_one_item_per_later_day_as_anki():
    assert items([row(KIND_LEARNING, 1), row(KIND_REVIEW, 0)]) == [[(3, 0), (3, 1)]]
    assert items([row(KIND_LEARNING, 15), row(KIND_LEARNING, 13), row(KIND_REVIEW, 10), row(KIND_REVIEW, 5)]) == [
        [(3, 0), (3, 2)], [(3, 0), (3, 2), (3, 3)], [(3, 0), (3, 2), (3, 3), (3, 5)]]


def test_cram_rows_are_left_out():
    assert items([row(KIND_LEARNING, 10), row(KIND_REVIEW, 9), row(KIND_CRAM, 7, rating=1),
                  row(KIND_REVIEW, 4)]) == [[(3, 0), (3, 1)], [(3, 0), (3, 1), (3, 5)]]


def test_a_reset_drops_the_history_before_it():
    assert items([row(KIND_LEARNING, 10), row(KIND_RESET, 7, rating=0), row(KIND_LEARNING, 4),
                  row(KIND_REVIEW, 0)]) == [[(3, 0), (3, 4)]]
    # Graded after the reset but never learnt again: nothing to train on.
    assert items([row(KIND_LEARNING, 10), row(KIND_REVIEW, 9), row(KIND_RESET, 7, rating=0),
                  row(KIND_REVIEW, 1), row(KIND_RELEARNING, 0)]) is None


def test_history_starting_mid_way_is_dropped_and_items_start_at_the_last_first_learn():
    # Reviews with no learning step before them (an import of part of a history).
    assert items([row(KIND_REVIEW, 10), row(KIND_REVIEW, 8), row(KIND_REVIEW, 6)]) is None
    # A card learnt, reviewed, then (Anki: rescheduled as new without a reset row) learnt again:
    # its items start at the first answer of the last learning run.
    assert items([row(KIND_LEARNING, 30), row(KIND_REVIEW, 20), row(KIND_LEARNING, 10), row(KIND_LEARNING, 9),
                  row(KIND_REVIEW, 5)]) == [[(3, 0), (3, 1)], [(3, 0), (3, 1), (3, 4)]]
    assert items([row(KIND_LEARNING, 1)]) is None  # a single learning step gives no item


def test_same_day_answers_join_the_history_without_an_item_of_their_own():
    # An hour after a rollover, and ten minutes later: one study day; a day later, the next.
    first = LogRow(1, row(KIND_LEARNING, 3).time_ms + 3_600_000, 3, KIND_LEARNING)
    again_same_day = LogRow(1, first.time_ms + 600_000, 3, KIND_LEARNING)
    next_day = LogRow(1, first.time_ms + 86_400_000, 3, KIND_REVIEW)
    assert items([first, again_same_day, next_day]) == [[(3, 0), (3, 0), (3, 1)]]


def test_ignore_before_drops_a_card_learnt_before_it():
    rows = [row(KIND_LEARNING, 10), row(KIND_LEARNING, 8)]
    assert items(rows, (NEXT_DAY_AT - 9 * 86_400) * 1000) is None
    assert items(rows, (NEXT_DAY_AT - 11 * 86_400) * 1000) == items(rows)


def test_days_count_from_the_rollover_in_the_learners_zone():
    zone = ZoneInfo("Asia/Shanghai")
    settings = settings_for({"tz": "Asia/Shanghai", "rollover": 4})

    def ms(day, hour, minute=0):
        return int(datetime(2026, 3, day, hour, minute, tzinfo=zone).timestamp() * 1000)

    now = ms(20, 12)
    nda = o.next_day_at_s(settings, now)
    assert nda == ms(21, 4) // 1000
    # 03:30 and 04:30 on one calendar day are two study days apart by one; 04:30 and 23:00 are one day.
    assert o.days_elapsed(nda, ms(10, 3, 30)) - o.days_elapsed(nda, ms(10, 4, 30)) == 1
    assert o.days_elapsed(nda, ms(10, 4, 30)) - o.days_elapsed(nda, ms(10, 23)) == 0
    assert o.days_elapsed(nda, now + 3_600_000) == 0  # later than now: 0, as Anki's max(0)


def test_studyapp_rows_map_to_ankis_review_kinds():
    assert o.kind_of("review", "new") == o.kind_of("review", "learning") == KIND_LEARNING
    assert o.kind_of("review", "review") == KIND_REVIEW
    assert o.kind_of("review", "relearning") == KIND_RELEARNING
    assert o.kind_of("cram", "review") == KIND_CRAM and o.kind_of("reset", "review") == KIND_RESET


def test_relearning_steps_counted_as_ankis_optimize_counts_them():
    assert o.relearning_steps_within_a_day((600,)) == 1
    assert o.relearning_steps_within_a_day(()) == 0
    assert o.relearning_steps_within_a_day((600, 3600, 86_400)) == 2


# ---------------------------------------------------------------- fits on real stores


def _store(tmp_path, spec, profile="default"):
    h = history(spec)
    store = open_store(location(tmp_path, profile), clock=FakeClock(h["now_ms"]))
    store.save_settings(settings_for(spec))
    store.sync([deck_for(h)])
    record(store, h)
    return store, h


EXPECTED = json.loads((__import__("pathlib").Path(__file__).parent / "fixtures" / "optimize_expected.json").read_text())


def test_fitting_the_fixture_log_gives_fixed_parameters(tmp_path):
    store, h = _store(tmp_path, SPECS[6])
    fit, meta = o.optimize_preset(store, now_ms=h["now_ms"])
    assert (fit.reviews, fit.items, fit.cards) == tuple(EXPECTED["counts"])
    assert fit.adopted and meta["decks"] == ["d"] and meta["relearning_steps"] == 1
    assert list(fit.parameters) == pytest.approx(EXPECTED["parameters"], abs=1e-6)
    assert fit.fitted_eval.log_loss < fit.current_eval.log_loss
    # Stored for the preset, with when and from how many reviews, and scheduling uses it.
    stored = store.fitted_parameters()[DEFAULT_PRESET]
    assert stored["parameters"] == list(fit.parameters)
    assert (stored["fitted_ms"], stored["reviews"], stored["items"], stored["source"]) == (
        h["now_ms"], fit.reviews, fit.items, "profile")
    presets = store.load_presets()
    assert presets.for_deck("d").scheduling(store.load_settings()).parameters == fit.parameters
    store.close()


def test_sessions_schedule_with_the_fitted_parameters_and_log_them(tmp_path):
    store, h = _store(tmp_path, SPECS[6])
    fit, _ = o.optimize_preset(store, now_ms=h["now_ms"])
    session = ReviewSession(store, [deck_for(h)], clock=FakeClock(h["now_ms"] + 86_400_000 * 3))
    assert session.settings_for("d").parameters == fit.parameters
    shown = session.next()
    assert shown is not None
    session.answer(3, 4000)
    (params,) = store.conn.execute("SELECT s.params FROM review_log r JOIN schedulers s ON s.id = r.scheduler_id "
                                   "ORDER BY r.id DESC LIMIT 1").fetchone()
    assert json.loads(params)["parameters"] == list(fit.parameters)
    store.close()


def test_new_parameters_are_adopted_only_when_better(tmp_path):
    store, h = _store(tmp_path, SPECS[6])
    first, _ = o.optimize_preset(store, now_ms=h["now_ms"])
    assert first.adopted
    # Fitting again from the parameters just adopted: the fit is no better, nothing changes.
    second, _ = o.optimize_preset(store, now_ms=h["now_ms"] + 60_000)
    assert not second.adopted and second.parameters == first.parameters
    assert second.fitted_eval.log_loss >= second.current_eval.log_loss
    assert store.fitted_parameters()[DEFAULT_PRESET]["fitted_ms"] == h["now_ms"]
    store.close()


def test_anki_keeps_the_fit_with_several_relearning_steps_unless_stability_falls():
    better_current = o.Evaluation(0.40, 0.05)
    worse_fit = o.Evaluation(0.45, 0.06)
    assert o._adopt(DEFAULT_PARAMETERS, better_current, worse_fit, 1)[0] is False
    # With two relearning steps Anki keeps the current parameters only if, from stability 1, a
    # lapse and two same-day Good answers leave stability below 1: FSRS-6's defaults do (0.48)...
    assert o._adopt(DEFAULT_PARAMETERS, better_current, worse_fit, 2)[0] is False
    # ... strong short-term parameters (w17 1.5, w18 0.8: 3.57) do not, and Anki takes the fit.
    strong = DEFAULT_PARAMETERS[:17] + (1.5, 0.8) + DEFAULT_PARAMETERS[19:]
    assert o._adopt(strong, better_current, worse_fit, 2)[0] is True
    assert o._adopt(DEFAULT_PARAMETERS, worse_fit, better_current, 1)[0] is True


def test_too_few_reviews_says_how_many_there_are_and_how_many_are_needed(tmp_path):
    spec = dict(SPECS[0], cards=6, days=6, new_per_day=2)
    store, h = _store(tmp_path, spec)
    data = o.training_set(o.rows_from_log(store.optimizer_log()), o.next_day_at_s(settings_for(spec), h["now_ms"]))
    with pytest.raises(StudyappError) as caught:
        o.optimize_preset(store, now_ms=h["now_ms"])
    message = caught.value.message
    assert f"{h['reviews']} reviews in the log" in message
    assert f"giving {data.size} training items" in message and f"at least {o.MINIMUM_ITEMS}" in message
    assert DEFAULT_PRESET not in store.fitted_parameters()
    store.close()


def test_optimize_cli_json_and_too_few_message(tmp_path, cli_env):
    home = tmp_path / "home"
    store, h = _store(tmp_path, SPECS[6])
    store.close()
    done = run_cli(["optimize", "--json"], cli_env)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["preset"] == DEFAULT_PRESET and document["reviews"] == EXPECTED["counts"][0]
    assert set(document["current_evaluation"]) == {"log_loss", "rmse_bins"} and len(document["parameters"]) == 21
    small, _ = _store(tmp_path, dict(SPECS[0], cards=4, days=4, new_per_day=2), profile="small")
    small.close()
    refused = run_cli(["--profile", "small", "optimize"], cli_env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "too few reviews" in refused.stderr and "at least 64 training items are needed" in refused.stderr
    assert str(home) in cli_env["STUDYAPP_HOME"]


def test_pooled_fit_from_exported_logs_gives_a_named_preset(tmp_path, cli_env):
    for index, profile in ((6, "ann"), (8, "bob")):
        store, _ = _store(tmp_path, SPECS[index], profile)
        store.close()
        done = run_cli(["--profile", profile, "export", "log", "-o", str(tmp_path / f"{profile}.json")], cli_env)
        assert done.returncode == 0, done.stderr
    logs = [json.loads((tmp_path / f"{p}.json").read_text()) for p in ("ann", "bob")]
    assert logs[0]["format"] == "studyapp-review-log" and logs[0]["timezone"] == SPECS[6]["tz"]
    done = run_cli(["--profile", "newcomer", "optimize", "--from", str(tmp_path / "ann.json"),
                    str(tmp_path / "bob.json"), "--preset", "Onboarding", "--json"], cli_env)
    assert done.returncode == 0, done.stderr
    pooled = json.loads(done.stdout)
    # The pool is both learners' items together (each learner's cards kept apart).
    alone = [o.pooled_fit([log], now_ms=int(time.time() * 1000)) for log in logs]
    assert pooled["items"] == sum(f.items for f in alone) and pooled["reviews"] == sum(f.reviews for f in alone)
    assert pooled["adopted"]
    store = open_store(location(tmp_path, "newcomer"))
    stored = store.fitted_parameters()["Onboarding"]
    assert stored["source"] == "pooled" and stored["parameters"] == pooled["parameters"]
    store.assign_preset("d", "Onboarding")
    assert list(store.load_presets().for_deck("d").scheduling(store.load_settings()).parameters) == pooled["parameters"]
    store.close()


def test_a_bad_log_file_is_named_with_its_line(tmp_path, cli_env):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "studyapp-review-log",\n "version": 1,\n "reviews": [,]}\n')
    done = run_cli(["optimize", "--from", str(bad)], cli_env)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{bad}:3:") and "studyapp export log" in done.stderr
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    done = run_cli(["optimize", "--from", str(other)], cli_env)
    assert done.returncode == 1 and "not a studyapp review log" in done.stderr


def test_schema_4_database_is_backed_up_and_gains_the_parameters_table(tmp_path):
    store, _ = store_at(tmp_path)
    store.close()
    path = location(tmp_path).database
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE preset_parameters")
    for statement in SCHEMA_6_UNDONE:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    store = open_store(location(tmp_path))
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert store.fitted_parameters() == {}
    (backup,) = path.parent.glob(f"{path.name}.schema4-*.bak")
    old = sqlite3.connect(backup)
    assert "preset_parameters" not in {n for (n,) in old.execute("SELECT name FROM sqlite_master")}
    old.close()
    # A preset saved from the presets screen keeps its fitted parameters in their table, not its JSON.
    store.save_fitted_parameters(DEFAULT_PRESET, DEFAULT_PARAMETERS, reviews=1, items=1, source="profile", fit={})
    store.save_preset(Preset(new_per_day=5, parameters=DEFAULT_PARAMETERS))
    (text,) = store.conn.execute("SELECT json FROM presets WHERE name = ?", (DEFAULT_PRESET,)).fetchone()
    assert "parameters" not in json.loads(text)
    assert store.load_presets().default.parameters == DEFAULT_PARAMETERS
    store.close()


def test_the_stores_kind_column_is_kind_of(tmp_path):
    """Store.optimizer_rows maps kinds in SQL for speed; it must say what kind_of says."""
    store, _ = _store(tmp_path, SPECS[1])
    rows = store.optimizer_rows()
    logged = store.conn.execute("SELECT item_id, time_ms, rating, kind, state_before FROM review_log "
                                "ORDER BY item_id, id").fetchall()
    assert [r[3] for r in rows] == [o.kind_of(kind, before) for *_, kind, before in logged]
    assert {r[3] for r in rows} >= {KIND_LEARNING, KIND_REVIEW, KIND_RELEARNING, KIND_CRAM}
    assert [r[:3] for r in rows] == [r[:3] for r in logged]
    store.close()


def test_the_stores_columns_are_its_rows_with_ankis_days(tmp_path):
    """Store.optimizer_columns (what optimize_preset reads: SQLite sorts, JSON hands over) holds
    optimizer_rows' rows column by column, each with Anki's days_elapsed worked out in SQL, and
    the conversion of either gives the same items."""
    store, h = _store(tmp_path, SPECS[1])
    rollover = o.next_day_at_s(settings_for(SPECS[1]), h["now_ms"])
    for decks, later in ((None, 0), (["d"], 0), (["d"], 40 * 86_400)):
        # ``later``: a rollover before some answers, where Anki's max(0, ...) holds days at 0.
        at = rollover - later
        rows = store.optimizer_rows(decks)
        columns = store.optimizer_columns(at, decks)
        assert [list(c) for c in zip(*rows)] == columns[:4]
        assert columns[4] == [o.days_elapsed(at, time_ms) for time_ms in columns[1]]
        after = [days for time_ms, days in zip(columns[1], columns[4]) if time_ms // 1000 > at]
        assert bool(after) == bool(later) and set(after) <= {0}
        mine, theirs = o.training_set_from_columns(columns, at), o.training_set(rows, at)
        assert list(map(repr, mine.items)) == list(map(repr, theirs.items)) and mine.size > 0
        assert (mine.card_ids, mine.times, mine.reviews, mine.cards) == (
            theirs.card_ids, theirs.times, theirs.reviews, theirs.cards)
    assert store.optimizer_columns(rollover, ["no-such-deck"]) == [[], [], [], [], []]
    store.close()


def test_a_preset_no_deck_uses_is_named_as_such(tmp_path):
    store, h = _store(tmp_path, SPECS[0])
    store.save_preset(Preset(name="Spare"))
    with pytest.raises(StudyappError) as caught:
        o.optimize_preset(store, "Spare", now_ms=h["now_ms"])
    assert "no deck uses preset 'Spare'" in caught.value.message
    with pytest.raises(StudyappError) as caught:
        o.optimize_preset(store, "Nope", now_ms=h["now_ms"])
    assert caught.value.code == "usage" and "presets: Default, Spare" in caught.value.message
    store.close()
