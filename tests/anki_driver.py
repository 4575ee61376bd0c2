"""Drive a real Anki collection (the ``anki`` package) under a moved clock, for the progress tests.

    python tests/anki_driver.py SCRIPT.json

The script names a collection folder, a time zone and a list of steps, each at a time
(epoch ms): ``import`` a package (with scheduling and presets, as Anki's dialog with
"Import any learning progress"), ``dump`` every card (its stored values, memory state,
the day it is due counted from today, its four next intervals, its revlog ids),
``answer`` cards through Anki's scheduler, ``export`` an .apkg or .colpkg with scheduling.

Anki reads the wall clock, so the script re-runs itself under libfaketime and moves the
clock before every step; ``ANKI_TEST_MODE=1`` turns Anki's fuzz off. Anki is AGPL: it is
used by the tests, never by studyapp.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

FAKETIME_LIBS = ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/local/lib/faketime/libfaketime.so.1")
MARKER = "STUDYAPP_ANKI_DRIVER_CHILD"


def faketime_library() -> str | None:
    return next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)


def run(script: dict, folder: Path) -> dict:
    """Run ``script`` in a child process under libfaketime; its result document."""
    library = faketime_library()
    if library is None:
        raise RuntimeError("libfaketime is not installed (apt-get install faketime)")
    path = folder / f"script-{time.monotonic_ns()}.json"
    out = path.with_suffix(".out.json")
    path.write_text(json.dumps(script))
    first = script["steps"][0]["at"]
    env = dict(os.environ, LD_PRELOAD=library, FAKETIME_NO_CACHE="1", FAKETIME=_faketime(first, script["tz"]),
               ANKI_TEST_MODE="1", TZ=script["tz"], **{MARKER: "1"})
    completed = subprocess.run([sys.executable, os.path.abspath(__file__), str(path), str(out)], env=env,
                               capture_output=True, text=True, timeout=600)
    if completed.returncode != 0:
        raise RuntimeError(f"anki driver failed ({completed.returncode}):\n{completed.stdout}\n{completed.stderr}")
    return json.loads(out.read_text())


def _faketime(ms: int, tz: str) -> str:
    local = datetime.fromtimestamp(ms / 1000, ZoneInfo(tz)).replace(tzinfo=None)
    return "@" + local.strftime("%Y-%m-%d %H:%M:%S")


def _set_clock(ms: int, tz: str) -> None:
    wanted = _faketime(ms, tz)
    if os.environ.get("FAKETIME") == wanted:
        # libfaketime re-reads an unchanged value as "still running since it was set": on a busy
        # machine the seconds since the process started (importing anki) then exceed the check.
        os.environ["FAKETIME"] = "@2000-01-01 00:00:00"
        time.time()
    os.environ["FAKETIME"] = wanted
    seen = time.time() * 1000
    if abs(seen - ms) > 2000:
        raise SystemExit(f"anki_driver: libfaketime did not move the clock ({seen:.0f} != {ms})")


def _interval(state) -> int:
    """Anki's interval for one button: days (positive) or seconds (negative)."""
    normal = state.normal
    kind = normal.WhichOneof("kind")
    if kind == "review":
        return normal.review.scheduled_days
    if kind == "learning":
        return -normal.learning.scheduled_secs
    if kind == "relearning":
        return -normal.relearning.learning.scheduled_secs
    raise ValueError(f"unexpected Anki state {state}")


def child(script_path: str, out_path: str) -> int:
    from anki.collection import Collection, ExportAnkiPackageOptions
    from anki.import_export_pb2 import (
        IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
        ImportAnkiPackageOptions,
        ImportAnkiPackageRequest,
    )
    from anki.scheduler_pb2 import CardAnswer

    script = json.loads(Path(script_path).read_text())
    tz = script["tz"]
    folder = Path(script["collection"])
    folder.mkdir(parents=True, exist_ok=True)
    _set_clock(script["steps"][0]["at"], tz)
    col = Collection(str(folder / "collection.anki2"))
    if script.get("rollover") is not None:
        col.set_config("rollover", script["rollover"])
    # FSRS is one switch for the whole collection, which no package carries (docs/export.md).
    col.set_config("fsrs", True)
    results = []
    fitted = None  # the last optimize step's parameters
    for step in script["steps"]:
        _set_clock(step["at"], tz)
        op = step["op"]
        if op == "import":
            request = ImportAnkiPackageRequest(package_path=step["package"], options=ImportAnkiPackageOptions(
                merge_notetypes=False, update_notes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
                update_notetypes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
                with_scheduling=True, with_deck_configs=True))
            log = col.import_anki_package(request).log
            col.models._clear_cache()
            results.append({"op": op, "new": len(log.new), "updated": len(log.updated),
                            "duplicate": len(log.duplicate)})
        elif op == "dump":
            results.append({"op": op, "cards": _dump(col)})
        elif op == "answer":
            answered = []
            for card_id, rating in step["answers"]:
                card = col.get_card(int(card_id))
                states = col._backend.get_scheduling_states(card.id)
                card.start_timer()
                col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                             rating=CardAnswer.Rating.values()[rating - 1]))
                answered.append(card_id)
            results.append({"op": op, "answered": answered})
        elif op == "study":
            # A learner in Anki: every due card, a few rounds ten minutes apart, seeded ratings.
            import random

            rng = random.Random(step["seed"])
            moment = step["at"]
            answered = []
            for round_ in range(step.get("rounds", 3)):
                _set_clock(moment, tz)
                new = sorted(col.find_cards("is:new -is:suspended"))[:step.get("new", 0)] if round_ == 0 else []
                for card_id in sorted(col.find_cards("is:due")) + new:
                    card = col.get_card(card_id)
                    states = col._backend.get_scheduling_states(card.id)
                    rating = rng.choices((1, 2, 3, 4), weights=(0.15, 0.12, 0.58, 0.15))[0]
                    card.start_timer()
                    col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                                 rating=CardAnswer.Rating.values()[rating - 1]))
                    answered.append([card_id, rating])
                    moment += 20_000
                    _set_clock(moment, tz)
                moment += 11 * 60_000
            # Then new cards answered once each with the ratings given: learning cards at known steps.
            _set_clock(moment, tz)
            for card_id, rating in zip(sorted(col.find_cards("is:new -is:suspended")), step.get("tail", [])):
                card = col.get_card(card_id)
                states = col._backend.get_scheduling_states(card.id)
                card.start_timer()
                col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                             rating=CardAnswer.Rating.values()[rating - 1]))
                answered.append([card_id, rating])
            results.append({"op": op, "answered": answered})
        elif op == "replay":
            # The same answers studyapp's log holds (tests/optimize_support.py): one Basic note per
            # card in a fresh deck, then each event at its own time: an answer, a cram answer in a
            # filtered deck that does not reschedule, or an answer undone at once.
            basic = col.models.by_name("Basic")
            deck_id = col.decks.id("Replay")
            conf = col.decks.config_dict_for_deck_id(deck_id)
            conf["new"]["delays"] = [1.0, 10.0]
            conf["lapse"]["delays"] = [10.0]
            conf["new"]["perDay"] = 9999
            conf["rev"]["perDay"] = 9999
            col.decks.update_config(conf)
            card_ids = []
            for index in range(step["cards"]):
                note = col.new_note(basic)
                note.fields[0] = f"c{index:04d}"
                col.add_note(note, deck_id)
                card_ids.extend(note.card_ids())
            # "reopen_after": the collection is closed and opened again before an answer that comes
            # at least that many ms after the one before (0: before every answer), as a learner
            # starting Anki for a session. An open collection keeps the day it worked out
            # (scheduler_info) until that day's next_day_at, which on a daylight-saving morning is
            # an hour off the zone's rollover (docs/engine.md, Study days).
            reopen_after = step.get("reopen_after")
            previous = None
            for card_index, at, rating, kind, *taken in step["events"]:
                _set_clock(at, tz)
                if reopen_after is not None and previous is not None and at - previous >= reopen_after:
                    col.close()
                    col = Collection(str(folder / "collection.anki2"))
                previous = at
                card_id = card_ids[card_index]
                if kind == "cram":
                    filtered = col.decks.new_filtered("Cram")
                    fdeck = col.decks.get(filtered)
                    fdeck["terms"] = [[f"cid:{card_id}", 1, 0]]
                    fdeck["resched"] = False
                    col.decks.save(fdeck)
                    col.sched.rebuild_filtered_deck(filtered)
                card = col.get_card(card_id)
                states = col._backend.get_scheduling_states(card.id)
                card.start_timer()
                col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                             rating=CardAnswer.Rating.values()[rating - 1]))
                if kind == "undone":
                    col.undo()
                elif taken:
                    # How long the answer took, as the event says (the clock stands still here).
                    col.db.execute("UPDATE revlog SET time = ? WHERE id = (SELECT max(id) FROM revlog WHERE cid = ?)",
                                   taken[0], card_id)
                if kind == "cram":
                    col.sched.empty_filtered_deck(filtered)
                    col.decks.remove([filtered])
            results.append({"op": op, "card_ids": card_ids})
        elif op == "optimize":
            # Deck Options > Optimize on the whole collection with the given current parameters,
            # and Evaluate (the legacy one: these parameters on the same items) of old and new.
            params = list(step["current"])
            response = col._backend.compute_fsrs_params(
                search=step.get("search", ""), current_params=params, ignore_revlogs_before_ms=0,
                num_of_relearning_steps=step.get("relearning_steps", 1), health_check=False)
            evaluations = {}
            for label, values in (("current", params), ("result", list(response.params))):
                ev = col._backend.evaluate_params_legacy(params=values, search=step.get("search", ""),
                                                        ignore_revlogs_before_ms=0)
                evaluations[label] = {"log_loss": ev.log_loss, "rmse_bins": ev.rmse_bins}
            kinds = col.db.all("SELECT type, factor = 0, count(*) FROM revlog GROUP BY 1, 2")
            fitted = list(response.params)
            results.append({"op": op, "params": list(response.params), "fsrs_items": response.fsrs_items,
                            "evaluations": evaluations, "revlog_kinds": kinds})
        elif op == "optimal_retention":
            # Deck Options > "Compute minimum recommended retention" (SimulatorModal.svelte: a year,
            # no extra new cards), with the load balancer off and the review order given.
            from anki.scheduler_pb2 import SimulateFsrsReviewRequest

            col.set_config("loadBalancerEnabled", bool(step.get("load_balancer", False)))
            params = fitted if step["params"] == "fitted" else list(step["params"])
            request = SimulateFsrsReviewRequest(
                params=params, desired_retention=step.get("desired_retention", 0.9), deck_size=0,
                days_to_simulate=365, new_limit=step["new_limit"], review_limit=step["review_limit"],
                max_interval=step.get("max_interval", 36500), search=step.get("search", ""),
                new_cards_ignore_review_limit=False, easy_days_percentages=[1.0] * 7,
                review_order=step["review_order"], historical_retention=0.9,
                learning_step_count=step["learning_steps"], relearning_step_count=step["relearning_steps"])
            tables = col._backend.get_optimal_retention_parameters(search=step.get("search", ""))
            simulated = col._backend.simulate_fsrs_review(request)  # the same simulation, seed 42
            results.append({"op": op, "params": params,
                            "optimal_retention": col._backend.compute_optimal_retention(request),
                            "simulation": {"review_cnt_per_day": list(simulated.daily_review_count),
                                           "learn_cnt_per_day": list(simulated.daily_new_count),
                                           "cost_per_day": list(simulated.daily_time_cost),
                                           "memorized_cnt_per_day": list(simulated.accumulated_knowledge_acquisition)},
                            "tables": {name: list(getattr(tables, name)) for name in (
                                "first_rating_prob", "review_rating_prob", "learning_step_transitions",
                                "relearning_step_transitions", "state_rating_costs")}})
        elif op == "add_note":
            note = col.new_note(col.models.by_name(step["notetype"]))
            for index, value in enumerate(step["fields"]):
                note.fields[index] = value
            col.add_note(note, col.decks.id(step.get("deck", "Mine")))
            results.append({"op": op, "note": note.id, "cards": list(note.card_ids())})
        elif op == "delete_notes":
            col.remove_notes(col.find_notes(step.get("search", "")))
            results.append({"op": op})
        elif op == "export":
            package = step["package"]
            if package.endswith(".colpkg"):
                col.export_collection_package(package, include_media=False, legacy=step.get("legacy", False))
                col = Collection(str(folder / "collection.anki2"))
            else:
                col.export_anki_package(out_path=package, options=ExportAnkiPackageOptions(
                    with_scheduling=True, with_deck_configs=True, with_media=False,
                    legacy=step.get("legacy", False)), limit=None)
            results.append({"op": op, "package": package})
        elif op == "config":
            results.append({"op": op, "presets": [
                {"name": c["name"], "desiredRetention": c.get("desiredRetention"),
                 "fsrsParams6": c.get("fsrsParams6"), "new": c["new"]["delays"], "lapse": c["lapse"]["delays"],
                 "newPerDay": c["new"]["perDay"], "revPerDay": c["rev"]["perDay"], "maxIvl": c["rev"]["maxIvl"]}
                for c in col.decks.all_config()],
                "decks": {d["name"]: d.get("conf") for d in col.decks.all() if not d.get("dyn")}})
        else:
            raise SystemExit(f"anki_driver: unknown step {op!r}")
    col.close()
    Path(out_path).write_text(json.dumps({"results": results}))
    return 0


def _dump(col) -> list[dict]:
    today = col.sched.today
    cards = []
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        note = card.note()
        states = col._backend.get_scheduling_states(card.id)
        memory = card.memory_state
        if card.queue in (2, 3) or (card.queue in (-1, -2, -3) and card.type == 2):
            due_in_days = card.due - today
        else:
            due_in_days = None
        revlog = [row[0] for row in col.db.execute("SELECT id FROM revlog WHERE cid = ? ORDER BY id", card.id)]
        cards.append({
            "id": card.id, "guid": note.guid, "ord": card.ord, "key_field": note["Id"] if "Id" in note else None,
            "front": note.fields[0], "type": card.type, "queue": card.queue, "due": card.due,
            "due_in_days": due_in_days, "ivl": card.ivl, "reps": card.reps, "lapses": card.lapses,
            "left": card.left, "memory": [memory.stability, memory.difficulty] if card.memory_state else None,
            "intervals": [_interval(getattr(states, n)) for n in ("again", "hard", "good", "easy")],
            "revlog": revlog, "deck": col.decks.name(card.did),
        })
    return cards


if __name__ == "__main__":
    if os.environ.get(MARKER) != "1":
        raise SystemExit("anki_driver: run through anki_driver.run(script, folder)")
    raise SystemExit(child(sys.argv[1], sys.argv[2]))
