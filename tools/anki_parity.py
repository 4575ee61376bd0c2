"""Record what real Anki's FSRS scheduler offers on each button, for random review histories.

    python tools/anki_parity.py --out tests/fixtures/anki_parity.json

Replays random histories (mixed ratings, irregular gaps, reviews on both sides of the
rollover hour, up to two years long) through the ``anki`` package from PyPI with FSRS on,
and before every review records the four intervals Anki would apply. tests/test_parity.py
replays the same histories through studyapp and compares.

Anki reads the wall clock, so this script re-runs itself under Debian's libfaketime
(``apt-get install faketime libfaketime``) and moves the clock before every step.
``ANKI_TEST_MODE=1`` turns Anki's fuzz off. Times stay out of 01:30-04:30 local (test mode
shifts Anki's clock between 02:00 and 04:00). Anki is AGPL: it is used by this tool, never
by studyapp.

Intervals follow Anki's review log: positive = days, negative = seconds (a learning step).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

FAKETIME_LIBS = ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/local/lib/faketime/libfaketime.so.1")
MARKER = "STUDYAPP_PARITY_CHILD"
DEFAULT_TZ = "Europe/Berlin"  # daylight saving changes included on purpose
ROLLOVER = 4
START = datetime(2026, 1, 5, 10, 0)
HORIZON_DAYS = 730
MAX_REVIEWS = 60
# Each history uses one of these desired retentions (most use Anki's default).
RETENTIONS = (0.9, 0.9, 0.9, 0.8, 0.95)
RATING_WEIGHTS = {1: 0.17, 2: 0.13, 3: 0.55, 4: 0.15}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--histories", type=int, default=240)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--tz", default=DEFAULT_TZ)
    parser.add_argument("--memory", action="store_true",
                        help="also record Anki's memory state (stability, difficulty) after each review")
    args = parser.parse_args(argv)
    if os.environ.get(MARKER) != "1":
        return _rerun_under_faketime(args)
    document = generate(args.histories, args.seed, args.tz, memory=args.memory)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(_compact_json(document))
    reviews = sum(len(h["reviews"]) for h in document["histories"])
    print(f"{args.out}: {len(document['histories'])} histories, {reviews} reviews, {reviews * 4} button intervals")
    return 0


def _rerun_under_faketime(args) -> int:
    library = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)
    if library is None:
        print("anki_parity: libfaketime not found; install it with 'apt-get install faketime libfaketime'",
              file=sys.stderr)
        return 1
    env = dict(os.environ, LD_PRELOAD=library, FAKETIME_NO_CACHE="1", FAKETIME=_faketime(START, args.tz),
               ANKI_TEST_MODE="1", TZ=args.tz, **{MARKER: "1"})
    import subprocess

    return subprocess.call([sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env=env)


def _faketime(local: datetime, tz: str) -> str:
    return "@" + local.strftime("%Y-%m-%d %H:%M:%S")


def generate(count: int, seed: int, tz: str, *, memory: bool = False) -> dict:
    import tempfile

    import anki

    from studyapp.core.scheduler import DEFAULT_PARAMETERS
    from anki.collection import Collection
    from anki.scheduler_pb2 import CardAnswer

    zone = ZoneInfo(tz)
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="anki-parity-")

    def set_clock(ms: int) -> None:
        local = datetime.fromtimestamp(ms / 1000, zone).replace(tzinfo=None)
        os.environ["FAKETIME"] = _faketime(local, tz)
        seen = time.time() * 1000
        if abs(seen - ms) > 2000:
            raise SystemExit(f"anki_parity: libfaketime did not move the clock ({seen:.0f} != {ms})")

    start_ms = int(START.replace(tzinfo=zone).timestamp() * 1000)
    set_clock(start_ms)
    col = Collection(os.path.join(folder, "collection.anki2"))
    col.set_config("fsrs", True)
    col.set_config("rollover", ROLLOVER)
    basic = col.models.by_name("Basic")

    decks = {}
    for retention in sorted(set(RETENTIONS)):
        deck_id = col.decks.id(f"retention {retention}")
        conf_id = col.decks.add_config_returning_id(f"retention {retention}")
        conf = col.decks.get_config(conf_id)
        conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
        conf["desiredRetention"] = retention
        conf["new"]["delays"] = [1.0, 10.0]
        conf["lapse"]["delays"] = [10.0]
        conf["rev"]["maxIvl"] = 36500
        conf["new"]["perDay"] = 9999
        conf["rev"]["perDay"] = 9999
        col.decks.update_config(conf)
        deck = col.decks.get(deck_id)
        deck["conf"] = conf_id
        col.decks.save(deck)
        decks[retention] = deck_id

    histories = []
    events: list[tuple[int, int]] = []
    for index in range(count):
        retention = RETENTIONS[index % len(RETENTIONS)]
        note = col.new_note(basic)
        note["Front"], note["Back"] = f"q{index}", f"a{index}"
        col.add_note(note, decks[retention])
        card_id = col.find_cards(f"nid:{note.id}")[0]
        first = _allowed_time(start_ms + rng.randrange(0, 40 * 86_400_000), zone, rng) // 1000 * 1000
        histories.append({"retention": retention, "card": card_id, "reviews": [], "end": first + HORIZON_DAYS * 86_400_000})
        heapq.heappush(events, (first, index))

    while events:
        when, index = heapq.heappop(events)
        history = histories[index]
        set_clock(when)
        card = col.get_card(history["card"])
        states = col._backend.get_scheduling_states(card.id)
        intervals = [_interval(getattr(states, name)) for name in ("again", "hard", "good", "easy")]
        rating = rng.choices(list(RATING_WEIGHTS), weights=list(RATING_WEIGHTS.values()))[0]
        card.start_timer()
        # CardAnswer.Rating counts from 0 (AGAIN) where studyapp and the fixture count from 1.
        col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                     rating=CardAnswer.Rating.values()[rating - 1]))
        entry = [when, rating, intervals]
        if memory:
            state = col.get_card(card.id).memory_state
            entry.append([round(state.stability, 4), round(state.difficulty, 4)])
        history["reviews"].append(entry)
        applied = intervals[rating - 1]
        # libfaketime takes whole seconds.
        following = _next_time(when, applied, zone, rng) // 1000 * 1000
        if following < history["end"] and len(history["reviews"]) < MAX_REVIEWS:
            heapq.heappush(events, (following, index))
    col.close()

    return {
        "generator": "tools/anki_parity.py",
        "anki_version": anki.version if hasattr(anki, "version") else _anki_version(),
        "seed": seed,
        "timezone": tz,
        "rollover_hour": ROLLOVER,
        "learning_steps": [60, 600],
        "relearning_steps": [600],
        "maximum_interval": 36500,
        "parameters": list(DEFAULT_PARAMETERS),
        "interval_units": "positive: days; negative: seconds",
        "histories": [{"retention": h["retention"], "reviews": h["reviews"]} for h in histories],
    }


def _anki_version() -> str:
    from importlib.metadata import version

    return version("anki")


def _interval(state) -> int:
    """Anki's scheduled interval for one button: days (positive) or seconds (negative)."""
    kind = state.normal.WhichOneof("kind") if state.HasField("normal") else None
    normal = state.normal
    if kind == "review":
        return normal.review.scheduled_days
    if kind == "learning":
        return -normal.learning.scheduled_secs
    if kind == "relearning":
        return -normal.relearning.learning.scheduled_secs
    raise ValueError(f"unexpected Anki state {state}")


def _next_time(now: int, interval: int, zone: ZoneInfo, rng: random.Random) -> int:
    """When the learner comes back: on time, a little late, or days late; never early."""
    if interval < 0:
        roll = rng.random()
        if roll < 0.6:
            gap = -interval * 1000 + rng.randrange(0, 15 * 60_000)
        elif roll < 0.85:
            gap = -interval * 1000 + rng.randrange(1, 8 * 3_600_000)
        else:
            gap = rng.randrange(1, 4) * 86_400_000 + rng.randrange(0, 86_400_000)
        return _allowed_time(now + gap, zone, rng)
    # A review is due on a study day; pick that day or a later one, at any allowed hour.
    late = 0 if rng.random() < 0.55 else int(rng.expovariate(1 / max(1.0, interval * 0.3)))
    local = datetime.fromtimestamp(now / 1000, zone) - timedelta(hours=ROLLOVER)
    day = local.date() + timedelta(days=interval + late)
    hour = rng.choice([h for h in range(24) if not 1 <= h < 5])
    minute = rng.randrange(60)
    moment = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
    if hour < ROLLOVER:  # before the rollover still belongs to the previous day
        moment += timedelta(days=1)
    return max(int(moment.timestamp() * 1000), now + 60_000)


def _allowed_time(ms: int, zone: ZoneInfo, rng: random.Random, ) -> int:
    """Move a time out of 01:30-04:30 local: Anki's test mode shifts its clock between 02:00
    and 04:00, and a margin keeps the minutes around the daylight-saving switch out too."""
    local = datetime.fromtimestamp(ms / 1000, zone)
    if (1, 30) <= (local.hour, local.minute) < (4, 30):
        local = local.replace(hour=4, minute=30 + rng.randrange(30))
    return int(local.timestamp() * 1000)


def _compact_json(document: dict) -> str:
    """One history per line: small, and readable in a diff."""
    head = {k: v for k, v in document.items() if k != "histories"}
    lines = [json.dumps(h, separators=(",", ":")) for h in document["histories"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "histories": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    json.loads(text)  # it must stay valid JSON
    return text


if __name__ == "__main__":
    sys.exit(main())
