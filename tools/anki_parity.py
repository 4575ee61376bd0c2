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

# The tool imports studyapp (its DEFAULT_PARAMETERS) when run from a checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
    parser.add_argument("--families", action="store_true",
                        help="record the parity review's families instead (see family_specs)")
    parser.add_argument("--repro", action="store_true",
                        help="record the parity review's minimal examples instead (see repro_specs)")
    args = parser.parse_args(argv)
    if args.families or args.repro:
        return families_main(args)
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


# ================================================================ the review's families
#
#     python tools/anki_parity.py --families --out tests/fixtures/anki_families.json
#
# Each history has its own configuration (steps, retention, maximum interval, time zone,
# rollover, fuzz, load balancer, card id) and its own fresh collection, created two days
# before its first answer. Fuzz-off families run in Anki's test mode (which shifts its
# clock between 02:00 and 04:00 local, so their answers avoid that window); fuzz-on
# families run with Anki's real fuzz, anywhere in the day, the card id set so that
# studyapp draws the same numbers. Before each answer the tool records the four buttons
# (state and interval); after it, the due Anki stored (seconds from the answer for an
# intraday step, study days from today otherwise), the card's memory state, and for the
# load-balancer family the reviews due on each of the next days.

FAMILY_MARKER = "STUDYAPP_FAMILIES_CHILD"
LAST_ANSWER = 2_000_000_000  # 2033: Anki keeps intraday due times as i32 seconds
LEARN_GRID = ((60, 600), (300,), (600, 3600, 86400), (15, 60), (86400,), (172800, 259200), ())
RELEARN_GRID = ((600,), (600, 3600), (86400,), (259200,), ())
STATE_CODES = {"learning": "l", "relearning": "r", "review": "v"}


def family_specs(seed: int) -> list[dict]:
    """Every history to record, with its configuration and how its answer times are chosen."""
    from studyapp.core.anki_ids import anki_card_id

    rng = random.Random(seed)
    specs: list[dict] = []

    def add(family: str, count: int, *, fuzz: bool, tz: str = "UTC", rollover: int = 4, learn=(60, 600),
            relearn=(600,), retention: float = 0.9, maximum: int = 36500, pattern: str = "mixed",
            answers: int = 8, load_balancer: bool = False, start: str = "2026-01-05 10:00", **extra) -> None:
        for _ in range(count):
            # The card id is the one studyapp (and its export) gives the item key.
            key = f"parity/{len(specs)}/main"
            specs.append(dict(family=family, fuzz=fuzz, tz=tz, rollover=rollover, learn=list(learn),
                              relearn=list(relearn), retention=retention, maximum=maximum, pattern=pattern,
                              answers=answers, load_balancer=load_balancer, start=start, key=key,
                              card_id=anki_card_id(key), seed=rng.randrange(2**31), **extra))

    # Every configuration of steps, retention and maximum interval, fuzz off and on.
    for learn in LEARN_GRID:
        for relearn in RELEARN_GRID:
            for retention in (0.8, 0.9, 0.95):
                for maximum in (30, 36500):
                    add("configurations, fuzz off", 1, fuzz=False, learn=learn, relearn=relearn,
                        retention=retention, maximum=maximum, answers=6)
                    add("configurations, fuzz on", 1, fuzz=True, learn=learn, relearn=relearn,
                        retention=retention, maximum=maximum, answers=6)
    # Answers within an hour of the rollover, in three zones, with fuzz (test mode would move the clock).
    for tz in ("UTC", "Asia/Shanghai", "America/Los_Angeles"):
        add("within an hour of the rollover", 25, fuzz=True, tz=tz, pattern="rollover")
        add("within an hour of the rollover", 5, fuzz=True, tz=tz, pattern="rollover", learn=(600, 3600, 86400))
    # Los Angeles across its daylight-saving changes (spring forward 8 March, fall back 1 November 2026).
    for start in ("2026-03-05 10:00", "2026-03-07 10:00", "2026-10-29 10:00", "2026-10-31 10:00"):
        add("America/Los_Angeles daylight saving", 10, fuzz=True, tz="America/Los_Angeles", pattern="dst",
            start=start)
    add("Asia/Shanghai", 20, fuzz=True, tz="Asia/Shanghai")
    # Lapses with no relearning steps (maximum 30 included: Anki's Again passes it).
    add("lapses without relearning steps", 20, fuzz=False, relearn=(), pattern="lapses", answers=10)
    add("lapses without relearning steps", 20, fuzz=True, relearn=(), pattern="lapses", answers=10)
    add("lapses without relearning steps", 15, fuzz=True, relearn=(), learn=(), maximum=30, retention=0.8,
        pattern="lapses", answers=10)
    # Anki's default: the load balancer on, with other reviews already due on the next days.
    add("load balancer", 40, fuzz=True, load_balancer=True, answers=8)
    return specs


def repro_specs() -> list[dict]:
    """The parity review's minimal examples, one per mismatch class (times and ratings as it gives them;
    the card ids are studyapp's for the key, so the fuzz-dependent ones are compared on our own card)."""
    from studyapp.core.anki_ids import anki_card_id

    base = dict(fuzz=False, tz="UTC", rollover=4, learn=[60, 600], relearn=[600], retention=0.9, maximum=36500,
                load_balancer=False, seed=0, pattern="explicit", answers=0, start="")
    examples = [
        ("hard first step, learn 1d", dict(learn=[86400]), [(1767607200, 2)]),
        ("hard first step, learn 2d 3d", dict(learn=[172800, 259200]), [(1767607200, 2)]),
        ("hard first step, learn 15s 1m", dict(learn=[15, 60]), [(1767607200, 2)]),
        ("hard first step, relearn 3d", dict(relearn=[259200]), [(1767607200, 4), (1768298400, 1), (1768302000, 3)]),
        ("no learning steps", dict(learn=[]), [(1767607200, 1)]),
        ("no relearning steps", dict(relearn=[]), [(1767607200, 1), (1767607260, 1), (1767607320, 3),
                                                   (1767607920, 3), (1767693600, 1), (1767722400, 3)]),
        ("again past the maximum", dict(retention=0.8, learn=[], relearn=[], maximum=30),
         [(1771796722, 3), (1772431402, 3), (1774975350, 4), (1774976010, 3)]),
        # This key's fuzz number (0.3453) puts Good's unrounded 4.546 days and its rounded 5 in different days.
        ("easy floor under fuzz", dict(fuzz=True, tz="America/Los_Angeles", key="repro/easy/10"),
         [(1770983955, 2), (1770984555, 4)]),
        ("dst spring, day before", dict(fuzz=True, tz="America/Los_Angeles"),
         [(1772800200, 4), (1772883000, 3), (1772949600, 3)]),
        ("dst fall, same study day", dict(fuzz=True, tz="America/Los_Angeles"), [(1793444512, 2), (1793516383, 3)]),
        ("dst fall, next study day", dict(fuzz=True, tz="America/Los_Angeles"), [(1793359800, 4), (1793466000, 3)]),
        ("learning fuzz", dict(fuzz=True), [(1767607200, 1), (1767607300, 3)]),
        ("interday step, 10m 1h 1d", dict(learn=[600, 3600, 86400]), [(1772371625, 3), (1772378825, 3),
                                                                       (1772429790, 3)]),
        ("step crossing the rollover", dict(fuzz=True), [(1769399805, 2), (1769400200, 3)]),
    ]
    out = []
    for number, (name, changes, answers) in enumerate(examples):
        key = changes.pop("key", f"repro/{number}/main")
        out.append(dict(base, **changes, family=name, key=key, card_id=anki_card_id(key), explicit=answers))
    return out


def record_families(specs: list[dict], fuzz: bool) -> list[dict]:
    """Run the histories of one fuzz mode through Anki (the caller set up faketime and test mode)."""
    out = []
    only = os.environ.get("STUDYAPP_FAMILIES_ONLY")  # while debugging: "family substring:count"
    name, _, count = (only or "").partition(":")
    for spec in specs:
        if spec["fuzz"] == fuzz and name in spec["family"]:
            out.append(_record_history(spec))
            if count and len(out) >= int(count):
                break
    return out


def _record_history(spec: dict) -> dict:
    import tempfile

    from anki.collection import Collection
    from anki.scheduler_pb2 import CardAnswer

    from studyapp.core.scheduler import DEFAULT_PARAMETERS

    zone = ZoneInfo(spec["tz"])
    rng = random.Random(spec["seed"])
    os.environ["TZ"] = spec["tz"]
    time.tzset()
    explicit = spec.get("explicit")  # [(time, rating), ...] given outright (the minimal examples)
    if explicit:
        first = explicit[0][0]
    else:
        first = int(datetime.strptime(spec["start"], "%Y-%m-%d %H:%M").replace(tzinfo=zone).timestamp())
        first += rng.randrange(0, 3 * 86400)
        first = _allowed(first, spec, zone, rng)
    _set_clock(first - 2 * 86400, spec["tz"])
    folder = tempfile.mkdtemp(prefix="anki-family-")
    path = os.path.join(folder, "collection.anki2")
    col = Collection(path)
    col.set_config("fsrs", True)
    col.set_config("rollover", spec["rollover"])
    col.set_config("loadBalancerEnabled", bool(spec["load_balancer"]))
    deck_id = col.decks.id("family")
    conf_id = col.decks.add_config_returning_id("family")
    conf = col.decks.get_config(conf_id)
    conf["fsrsParams6"] = list(DEFAULT_PARAMETERS)
    conf["desiredRetention"] = spec["retention"]
    conf["new"]["delays"] = [s / 60 for s in spec["learn"]]
    conf["lapse"]["delays"] = [s / 60 for s in spec["relearn"]]
    conf["rev"]["maxIvl"] = spec["maximum"]
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    col.decks.update_config(conf)
    deck = col.decks.get(deck_id)
    deck["conf"] = conf_id
    col.decks.save(deck)
    basic = col.models.by_name("Basic")
    note = col.new_note(basic)
    note["Front"], note["Back"] = "q", "a"
    col.add_note(note, deck_id)
    old = col.find_cards(f"nid:{note.id}")[0]
    card_id = spec["card_id"]
    col.db.execute("update cards set id = ? where id = ?", card_id, old)
    if spec["load_balancer"]:
        _add_workload(col, basic, deck_id, rng)
    steps: list = []
    base_workload: dict = {}
    when = first
    for index in range(len(explicit) if explicit else spec["answers"]):
        if explicit:
            when = explicit[index][0]
        if when > LAST_ANSWER:
            break
        _set_clock(when, spec["tz"])
        if spec["load_balancer"] or spec["pattern"] == "dst":
            # A freshly opened collection: Anki caches its day (and builds its load balancer) per opening.
            col.close()
            col = Collection(path)
        if spec["load_balancer"]:
            col.sched.get_queued_cards(fetch_limit=1)
        timing = col._backend.sched_timing_today()
        card = col.get_card(card_id)
        try:
            states = col._backend.get_scheduling_states(card_id)
        except BaseException as error:  # pyo3's PanicException is not an Exception
            if "min > max" not in str(error):
                raise
            # Anki's test mode (fuzz off) panics when a graduating Easy would pass a maximum
            # interval (fuzz.rs clamp); with fuzz it clamps. No reference from here on.
            spec = dict(spec, anki_panicked=True)
            break
        buttons = [_button(getattr(states, name)) for name in ("again", "hard", "good", "easy")]
        compact = " ".join(f"{kind}{interval}" for kind, interval in buttons)
        rating = explicit[index][1] if explicit else _pick_rating(spec, index, card, rng)
        workload = _workload(col, timing.days_elapsed) if spec["load_balancer"] else None
        if spec["load_balancer"]:
            # Answering outside the queue order is refused while the queues are built: drop them
            # (a reopened collection has none); the states already carry the balancer's choice.
            col.close()
            col = Collection(path)
            card = col.get_card(card_id)
        card.start_timer()
        col.sched.answer_card(col.sched.build_answer(card=card, states=states,
                                                     rating=CardAnswer.Rating.values()[rating - 1]))
        after = col.get_card(card_id)
        if after.queue == 1:
            due = ["s", after.due - when]
        else:
            due = ["d", after.due - timing.days_elapsed]
        memory = after.memory_state
        step = [when, rating, compact, f"{due[0]}{due[1]}", [round(memory.stability, 4), round(memory.difficulty, 3)],
                timing.next_day_at - when]
        if workload is not None:
            # The other reviews stay put (kept once, by absolute day, with the history); the
            # answer keeps Anki's day number, and whether Anki counted this card itself.
            if not steps:
                base_workload = _workload(col, 0, exclude=card_id)
            seen, expected = workload, _shifted(base_workload, timing.days_elapsed)
            step.append([timing.days_elapsed, {k: v - expected.get(k, 0) for k, v in seen.items()
                                               if v != expected.get(k, 0)}])
        steps.append(step)
        applied = buttons[rating - 1][1]
        when = _following(when, applied, due, timing.next_day_at, spec, zone, rng)
    if not spec.get("anki_panicked"):  # a panic poisons the backend: leave that collection be
        col.close()
    keep = {k: v for k, v in spec.items() if k not in ("seed", "answers", "pattern", "start", "explicit")}
    keep.setdefault("anki_panicked", False)
    keep.pop("card_id")  # anki_card_id(key)
    if spec["load_balancer"] and steps:
        keep["workload"] = base_workload
    return dict(keep, steps=steps)


def _set_clock(secs: int, tz: str) -> None:
    local = datetime.fromtimestamp(secs, ZoneInfo(tz)).replace(tzinfo=None)
    os.environ["FAKETIME"] = _faketime(local, tz)
    seen = time.time()
    if abs(seen - secs) > 2:
        raise SystemExit(f"anki_parity: libfaketime did not move the clock ({seen:.0f} != {secs})")


def _button(state) -> list:
    kind = state.normal.WhichOneof("kind")
    normal = state.normal
    if kind == "review":
        return ["v", normal.review.scheduled_days]
    if kind == "learning":
        return ["l", -normal.learning.scheduled_secs]
    if kind == "relearning":
        return ["r", -normal.relearning.learning.scheduled_secs]
    raise ValueError(f"unexpected Anki state {state}")


def _pick_rating(spec: dict, index: int, card, rng: random.Random) -> int:
    if spec["pattern"] == "lapses" and card.type == 2:  # a review: lapse often
        return rng.choice([1, 1, 3, 4])
    return rng.choices([1, 2, 3, 4], weights=[0.2, 0.15, 0.5, 0.15])[0]


def _following(now: int, applied: int, due: list, next_day_at: int, spec: dict, zone, rng: random.Random) -> int:
    """The next answer: on time or late, for an intraday due; on or after the due day otherwise."""
    if due[0] == "s":
        gap = due[1] + rng.choice([0, 1, 30, 300, 3600, 5 * 3600, 30 * 3600])
    else:
        day_start = next_day_at + (due[1] - 1) * 86400
        late = 0 if rng.random() < 0.6 else rng.randrange(0, min(max(2, due[1]), 120))
        gap = day_start + late * 86400 - now + rng.randrange(0, 86400)
    return _allowed(now + max(gap, 1), spec, zone, rng)


def _allowed(secs: int, spec: dict, zone, rng: random.Random) -> int:
    """Move an answer time where the family wants it: out of 01:55-04:05 in test mode; near the
    rollover for the rollover family; around 03:00-05:30, 10:00, 22:00 or 23:59 on DST days."""
    local = datetime.fromtimestamp(secs, zone)
    if spec["pattern"] == "rollover" and rng.random() < 0.7:
        offset = rng.choice([-3600, -1800, -300, -60, -1, 0, 1, 60, 300, 1800, 3599])
        moved = int(local.replace(hour=spec["rollover"], minute=0, second=0).timestamp()) + offset
        return moved if moved >= secs else moved + 86400
    if spec["pattern"] == "dst" and rng.random() < 0.8:
        hour, minute = rng.choice([(3, 0), (3, 30), (4, 0), (4, 1), (4, 30), (5, 0), (5, 30), (10, 0), (22, 0),
                                   (23, 59)])
        moved = int(local.replace(hour=hour, minute=minute, second=rng.randrange(60)).timestamp())
        return moved if moved >= secs else moved + 86400
    if not spec["fuzz"] and (1, 55) <= (local.hour, local.minute) < (4, 5):
        return int(local.replace(hour=4, minute=5 + rng.randrange(50)).timestamp())
    return secs


def _add_workload(col, basic, deck_id: int, rng: random.Random) -> None:
    """Other reviews due on the next days: a few each day, some days empty."""
    today = col.sched.today
    for offset in range(0, 100):
        for _ in range(rng.choice([0, 0, 1, 2, 3, 5, 8])):
            note = col.new_note(basic)
            note["Front"], note["Back"] = f"w{offset}-{rng.random()}", "a"
            col.add_note(note, deck_id)
            cid = col.find_cards(f"nid:{note.id}")[0]
            col.db.execute("update cards set type = 2, queue = 2, due = ?, ivl = 10 where id = ?", today + offset, cid)


def _workload(col, today: int, exclude: int = 0) -> dict:
    """What Anki's load balancer counts: cards due on each day from today (any queue), as {offset: n}
    (with ``today`` 0 and ``exclude`` this card: every other card by absolute day)."""
    rows = col.db.all("select due from cards where due >= ? and due < ? and id != ?", today, today + 99 if today
                      else 10**6, exclude)
    counts: dict[str, int] = {}
    for (due,) in rows:
        counts[str(due - today)] = counts.get(str(due - today), 0) + 1
    return counts


def _shifted(background: dict, today: int) -> dict:
    return {str(int(day) - today): n for day, n in background.items() if 0 <= int(day) - today < 99}


def families_main(args) -> int:
    specs = repro_specs() if args.repro else family_specs(args.seed)
    if os.environ.get(FAMILY_MARKER):
        fuzz = os.environ[FAMILY_MARKER] == "fuzz"
        histories = record_families(specs, fuzz)
        Path(args.out).write_text(json.dumps(histories))
        return 0
    library = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)
    if library is None:
        print("anki_parity: libfaketime not found; install it with 'apt-get install faketime'", file=sys.stderr)
        return 1
    import subprocess
    import tempfile

    histories = []
    for mode in ("plain", "fuzz"):
        part = Path(tempfile.mkdtemp(prefix="anki-families-")) / f"{mode}.json"
        env = dict(os.environ, LD_PRELOAD=library, FAKETIME_NO_CACHE="1", FAKETIME="@2026-01-01 10:00:00",
                   **{FAMILY_MARKER: mode})
        env.pop("ANKI_TEST_MODE", None)
        if mode == "plain":
            env["ANKI_TEST_MODE"] = "1"
        code = subprocess.call([sys.executable, os.path.abspath(__file__), "--families", "--out", str(part),
                                "--seed", str(args.seed), *(["--repro"] if args.repro else [])], env=env)
        if code:
            return code
        histories += json.loads(part.read_text())
    document = {"generator": "tools/anki_parity.py " + ("--repro" if args.repro else "--families"), "anki_version": _anki_version(),
                "seed": args.seed, "parameters": "DEFAULT_PARAMETERS",
                "interval_units": "positive: days; negative: seconds", "histories": histories}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(_compact_json(document))
    steps = sum(len(h["steps"]) for h in histories)
    print(f"{args.out}: {len(histories)} histories, {steps} answers, {steps * 4} button intervals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
