"""Record the fuzz numbers real Anki draws, for card ids we choose.

    python tools/anki_fuzz.py --out tests/fixtures/anki_fuzz.json

For each card id: the review fuzz Anki applies to a long interval (``Collection.fuzz_delta``,
whose range of thousands of days pins the fuzz factor to within 1/3000), and the learning
fuzz it adds to an Again on a new card for three step lengths (the due time Anki stores).
tests/test_anki_random.py checks studyapp.core.anki_random against these numbers.

Runs under Debian's libfaketime (the clock is fixed so that the learning due times can be
read back exactly) with Anki's fuzz on (no ANKI_TEST_MODE).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anki_parity import FAKETIME_LIBS  # noqa: E402

MARKER = "STUDYAPP_FUZZ_CHILD"
CLOCK = "@2026-01-05 10:00:00"
# (maximum interval, interval) pairs: a wide range reads the factor finely; 36500 is Anki's cap.
REVIEW_CASES = ((36500, 30000), (36500, 100), (36500, 7), (36500, 3))
# Learning step lengths in minutes: 1 min (fuzz up to 15 s), 10 min (150 s), 30 min (capped at 300 s).
STEP_MINUTES = (1.0, 10.0, 30.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--cards", type=int, default=60)
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args(argv)
    if os.environ.get(MARKER) != "1":
        library = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)
        if library is None:
            print("anki_fuzz: libfaketime not found; install it with 'apt-get install faketime'", file=sys.stderr)
            return 1
        import subprocess

        env = dict(os.environ, LD_PRELOAD=library, FAKETIME=CLOCK, FAKETIME_NO_CACHE="1", TZ="UTC", **{MARKER: "1"})
        env.pop("ANKI_TEST_MODE", None)
        return subprocess.call([sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env=env)
    rng = random.Random(args.seed)
    # Real card ids are creation times in milliseconds; a few edge values besides.
    ids = [1767441600000 + rng.randrange(0, 10**9) for _ in range(args.cards)] + [1, 2**32 - 1, 2**40 + 7]
    document = {"generator": "tools/anki_fuzz.py", "anki_version": _anki_version(), "cards": record(ids)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=None, separators=(",", ":")) + "\n")
    print(f"{args.out}: {len(ids)} card ids")
    return 0


def record(card_ids: list[int]) -> list[dict]:
    from anki.collection import Collection
    from anki.scheduler_pb2 import CardAnswer

    folder = tempfile.mkdtemp(prefix="anki-fuzz-")
    col = Collection(os.path.join(folder, "collection.anki2"))
    col.set_config("fsrs", True)
    basic = col.models.by_name("Basic")
    deck_id = col.decks.id("fuzz")
    conf_id = col.decks.add_config_returning_id("fuzz")
    conf = col.decks.get_config(conf_id)
    conf["new"]["perDay"] = 9999
    col.decks.update_config(conf)
    deck = col.decks.get(deck_id)
    deck["conf"] = conf_id
    col.decks.save(deck)
    out = []
    for number, card_id in enumerate(card_ids):
        entry: dict = {"card_id": card_id, "review": [], "learning": []}
        for maximum, interval in REVIEW_CASES:
            conf["rev"]["maxIvl"] = maximum
            col.decks.update_config(conf)
            cid = _new_card(col, basic, deck_id, card_id, f"r{number}/{interval}")
            entry["review"].append([maximum, interval, col.fuzz_delta(cid, interval)])
            col.remove_notes([col.get_card(cid).nid])
        for minutes in STEP_MINUTES:
            conf["new"]["delays"] = [minutes, 60.0]
            col.decks.update_config(conf)
            cid = _new_card(col, basic, deck_id, card_id, f"l{number}/{minutes}")
            card = col.get_card(cid)
            states = col._backend.get_scheduling_states(cid)
            card.start_timer()
            now = int(time.time())
            col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=CardAnswer.AGAIN))
            entry["learning"].append([int(minutes * 60), col.get_card(cid).due - now])
            col.remove_notes([card.nid])
        out.append(entry)
    col.close()
    return out


def _new_card(col, basic, deck_id: int, card_id: int, front: str) -> int:
    note = col.new_note(basic)
    note["Front"], note["Back"] = front, "back"
    col.add_note(note, deck_id)
    old = col.find_cards(f"nid:{note.id}")[0]
    col.db.execute("update cards set id = ? where id = ?", card_id, old)
    return card_id


def _anki_version() -> str:
    from importlib.metadata import version

    return version("anki")


if __name__ == "__main__":
    sys.exit(main())
