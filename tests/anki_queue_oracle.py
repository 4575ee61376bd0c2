"""The real Anki's queue, day after day, for a deck made in code: the oracle of test_anki_queue_parity.py.

Run as ``python tests/anki_queue_oracle.py OUT.json``: it re-runs itself under libfaketime
(Anki reads the wall clock), exports the deck with studyapp's own exporter, imports it into a
fresh collection (FSRS on, fuzz off by ANKI_TEST_MODE, Anki's default new-card order, the
three bury options on, a new-card limit), and on each day at 10:00 records what
``get_queued_cards`` counts and every card it then gives, in order, with the queue it came
from and the counts shown with it, answering each as ``rating_for`` says,
``ANSWER_GAP_SECONDS`` apart. Anki is AGPL: used here, in tests, never by the product.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

TZ = "Europe/Berlin"
START = datetime(2026, 3, 2, 10, 0)  # a Monday, well away from the 04:00 rollover
# Two weeks of daily study, then a month away and four days back: everything is overdue at
# once, so both sides of a card (and a cloze's deletions) are due reviews on the same day and
# review-sibling burying has to hold one back each day.
DAY_OFFSETS = (*range(14), 45, 46, 47, 48)
DAYS = len(DAY_OFFSETS)
NEW_PER_DAY = 4
# Each answer comes this long after the one before, on both sides: learning items answered in
# one second share a due second, and Anki then orders them by where its binary search inserts
# them (not by answer order), an accident of a frozen clock that a learner never meets.
ANSWER_GAP_SECONDS = 5
FAKETIME_LIBS = ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/local/lib/faketime/libfaketime.so.1")
MARKER = "STUDYAPP_QUEUE_ORACLE_CHILD"
AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4


def faketime_library() -> str | None:
    return next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)


def rating_for(key: str, reps: int) -> int:
    """The grade both sides give: a new item is Easy for about a third of the keys, else Good
    (then Good again from its 10-minute step, shown by learn-ahead); reviews mostly Good,
    sometimes Easy or Hard. Never Again: relearning is the engine issue's to compare."""
    digest = hashlib.blake2b(f"{key}\x00{reps}".encode(), digest_size=2).digest()[0]
    if reps == 0:
        return EASY if digest % 3 == 0 else GOOD
    return (GOOD, GOOD, EASY, HARD)[digest % 4]


def oracle_deck():
    """Reverse cards, cloze cards with two and three deletions, and basic cards (26 items)."""
    from studyapp.core.models import Card, Deck

    cards = []
    for i in range(4):
        cards.append(Card(id=f"rev{i}", type="reverse", source=("s",), front=f"term {i}", back=f"meaning {i}"))
        cards.append(Card(id=f"clz{i}", type="cloze", source=("s",),
                          text=" ".join(f"{{{{c{n}::part {i}.{n}}}}}" for n in range(1, 2 + i % 2 + 1))))
        cards.append(Card(id=f"bas{i}", type="basic", source=("s",), front=f"question {i}", back=f"answer {i}"))
    return Deck(id="oracle", title="Oracle", path=Path("/nonexistent/oracle.yaml"), seed_path=Path("/nonexistent/s.md"),
                cards=tuple(cards))


def variant_of(card_type: str, ord_: int) -> str:
    if card_type == "reverse":
        return ("forward", "backward")[ord_]
    if card_type == "cloze":
        return f"c{ord_ + 1}"
    return "main"


def day_start_local(day: int) -> datetime:
    """10:00 on the ``day``-th study day (an index into DAY_OFFSETS)."""
    return START + timedelta(days=DAY_OFFSETS[day])


def answer_time(day: int, n: int) -> datetime:
    """When the ``n``-th card of ``day`` is asked for and answered."""
    return day_start_local(day) + timedelta(seconds=n * ANSWER_GAP_SECONDS)


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    if os.environ.get(MARKER) != "1":
        library = faketime_library()
        if library is None:
            print("anki_queue_oracle: libfaketime not found (apt-get install faketime)", file=sys.stderr)
            return 1
        env = dict(os.environ, LD_PRELOAD=library, FAKETIME_NO_CACHE="1", ANKI_TEST_MODE="1", TZ=TZ,
                   FAKETIME="@" + (START - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S"), **{MARKER: "1"})
        return subprocess.call([sys.executable, os.path.abspath(__file__), *argv], env=env)
    out.write_text(json.dumps(run_anki(out.parent)), encoding="utf-8")
    return 0


def run_anki(folder: Path) -> dict:
    from anki.collection import Collection
    from anki.import_export_pb2 import (IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, ImportAnkiPackageOptions,
                                        ImportAnkiPackageRequest)
    from anki.scheduler_pb2 import CardAnswer
    from studyapp.core.scheduler import DEFAULT_PARAMETERS

    from studyapp.export.anki import export_anki

    zone = ZoneInfo(TZ)

    def set_clock(local: datetime) -> None:
        os.environ["FAKETIME"] = "@" + local.strftime("%Y-%m-%d %H:%M:%S")
        wanted = local.replace(tzinfo=zone).timestamp()
        # "@" starts a clock that then runs, from when FAKETIME last changed (the child starts an
        # hour early so that the first day's setting is a change too): milliseconds, not seconds.
        if abs(time.time() - wanted) > 2:
            raise SystemExit(f"anki_queue_oracle: libfaketime did not move the clock ({time.time()} != {wanted})")

    def key_of(card) -> str:
        note = card.note()
        card_type = {"Forward": "reverse", "Backward": "reverse"}.get(card.template()["name"], "")
        if note.note_type()["type"] == 1:
            card_type = "cloze"
        return f"{note['Id']}/{variant_of(card_type, card.ord)}"

    deck = oracle_deck()
    package = folder / "oracle.apkg"
    export_anki([deck], package, home=None, clock=lambda: day_start_local(0).replace(tzinfo=zone).timestamp() - 3600)
    col = Collection(str(folder / "collection.anki2"))
    try:
        col.set_config("fsrs", True)
        col.set_config("rollover", 4)
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions(
            merge_notetypes=False, update_notes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
            update_notetypes=IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, with_scheduling=False)))
        # The one deck holding the imported cards (the exporter names it; its name is not this test's business).
        deck_id = col.get_card(col.find_cards("")[0]).did
        conf = col.decks.config_dict_for_deck_id(deck_id)
        conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
        conf["desiredRetention"] = 0.9
        # Anki's default steps and a day-long one after them: interday learning, and its siblings.
        conf["new"]["delays"] = [1.0, 10.0, 1440.0]
        conf["lapse"]["delays"] = [10.0]
        conf["new"]["perDay"] = NEW_PER_DAY
        conf["rev"]["perDay"] = 9999
        conf["rev"]["maxIvl"] = 36500
        conf["new"]["bury"] = True
        conf["rev"]["bury"] = True
        conf["buryInterdayLearning"] = True
        conf["newGatherPriority"] = 0  # Anki's default: deck, then position
        conf["newSortOrder"] = 0  # Anki's default: card type, then order gathered
        col.decks.update_config(conf)
        col.decks.set_current(deck_id)
        days = []
        for day in range(DAYS):
            set_clock(day_start_local(day))
            # Every review due at the start of the day, siblings included (Anki buries a sibling
            # only once its card has an answer that day): what burying has to hold back.
            due = sorted(key_of(col.get_card(cid)) for cid in col.find_cards("is:review is:due"))
            cards = [col.get_card(cid) for cid in col.find_cards("")]
            interday_due = sorted(key_of(c) for c in cards if c.queue == 3 and c.due <= col.sched.today)
            first = col.sched.get_queued_cards(fetch_limit=1)
            counts = [first.new_count, first.learning_count, first.review_count]
            shown = []
            for n in range(500):
                set_clock(answer_time(day, n))
                queued = col.sched.get_queued_cards(fetch_limit=1)
                if not queued.cards:
                    break
                card = col.get_card(queued.cards[0].card.id)
                key = key_of(card)
                rating = rating_for(key, card.reps)
                # What the card was queued as, and the counts with it still in them (as a screen shows).
                # Interday learning (a step of a day: Anki's queue 3) apart from intraday learning.
                queue = "interday" if card.queue == 3 else ("new", "learning", "review")[queued.cards[0].queue]
                shown.append([key, rating, [queued.new_count, queued.learning_count, queued.review_count], queue])
                card.start_timer()
                col.sched.answer_card(col.sched.build_answer(
                    card=card, states=queued.cards[0].states, rating=CardAnswer.Rating.values()[rating - 1]))
            days.append({"day": day, "counts": counts, "shown": shown, "reviews_due": due,
                         "interday_due": interday_due})
        return {"days": days, "new_per_day": NEW_PER_DAY, "timezone": TZ}
    finally:
        col.close()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main(sys.argv[1:]))
