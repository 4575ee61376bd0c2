"""Durability: answers survive a killed process, and two processes can answer at once.

The worker processes are forked from the test process (studyapp already imported, so
each run starts in milliseconds); if the test process runs other threads (forking those
is unsafe), they come from a multiprocessing fork server instead, which is slower. A worker answers reviews as fast as it can and reports
each answer on a pipe only after ``answer`` returned; the test kills it with SIGKILL after
a random number of reports (the worker is then somewhere in its next answer). No sleeps:
the test waits on the pipe.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
from collections import Counter
from dataclasses import replace

import pytest

from studyapp.core.clock import DAY_MS, FakeClock
from studyapp.core.scheduler import RATINGS
from studyapp.core.session import ReviewSession
from studyapp.store import open_store

from engine_support import SETTINGS, T0, card, deck, location

DECKS = [deck("a", [card(f"c{i:04d}", "reverse" if i % 5 == 0 else "basic") for i in range(1500)])]
PLENTY = replace(SETTINGS, new_per_day=100_000, reviews_per_day=100_000, learn_ahead_minutes=24 * 60)
RUNS = 50


def _worker(home, start_ms: int, step_ms: int, seed: int, limit: int, out, sync_later: bool = False) -> None:
    """Answer reviews until ``limit`` answers or death; report 'key time' after each answer returned.
    ``sync_later``: as the review screen answers, the commit returning before its fsync (Store.sync_later),
    reported before that fsync."""
    code = 0
    try:
        clock = FakeClock(start_ms)
        store = open_store(location(home), clock=clock)
        session = ReviewSession(store, DECKS, clock=clock, settings=PLENTY)
        rng = random.Random(seed)
        out.send("ready")
        for _ in range(limit):
            shown = session.next()
            if shown is None:
                clock.advance(ms=DAY_MS)
                continue
            if sync_later:
                with store.sync_later():
                    session.answer(rng.choice(RATINGS), duration_ms=rng.randrange(500, 9000))
            else:
                session.answer(rng.choice(RATINGS), duration_ms=rng.randrange(500, 9000))
            out.send(f"{shown.key} {clock.now_ms()}")
            if sync_later:
                store.sync_wal()
            clock.advance(ms=step_ms)
        store.close()
    except BaseException as error:  # reported to the test, which fails on it
        out.send(f"ERROR {type(error).__name__}: {error}")
        code = 1
    finally:
        out.close()
        os._exit(code)


_CONTEXT = None


def _context():
    global _CONTEXT
    if threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["studyapp.store", "studyapp.core.session", "engine_support"])
    return _CONTEXT


class _Reports:
    """The lines a worker sent, read as they come; ends when the worker's end is closed."""

    def __init__(self, connection) -> None:
        self.connection = connection

    def readline(self) -> str:
        try:
            return self.connection.recv()
        except (EOFError, OSError):
            return ""

    def __iter__(self):
        while line := self.readline():
            yield line

    def read(self) -> list[str]:
        return list(self)

    def close(self) -> None:
        self.connection.close()


def _start(home, start_ms, step_ms, seed, limit, sync_later=False):
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_worker, args=(home, start_ms, step_ms, seed, limit, sender, sync_later), daemon=True)
    process.start()
    sender.close()
    return process, _Reports(receiver)


def _check(home, reported: Counter, *, replay: bool = True) -> None:
    store = open_store(location(home), clock=FakeClock(T0))
    try:
        assert store.integrity_check() == ["ok"]
        logged = Counter(store.conn.execute(
            "SELECT i.key, r.time_ms FROM review_log r JOIN items i ON i.id = r.item_id WHERE r.kind = 'review'"
        ).fetchall())
        missing = reported - logged
        assert not missing, f"answers that returned but are not in the log: {list(missing)[:5]}"
        if replay:
            stored = store.stored_states()
            for item_id, state in store.rebuild_states().items():
                assert stored[item_id] == state
    finally:
        store.close()


@pytest.mark.parametrize("sync_later", [False, True], ids=["fsync-in-commit", "fsync-after-commit"])
def test_answers_survive_sigkill_at_random_moments(tmp_path, sync_later):
    rng = random.Random(20261202)
    reported: Counter = Counter()
    for run in range(RUNS):
        process, reports = _start(tmp_path, T0 + run * DAY_MS // 4, 20_000, run, limit=400, sync_later=sync_later)
        assert reports.readline() == "ready"
        for _ in range(rng.randrange(0, 12)):
            line = reports.readline()
            assert line and not line.startswith("ERROR"), line
            key, time_ms = line.split()
            reported[key, int(time_ms)] += 1
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        assert process.exitcode == -signal.SIGKILL
        for line in reports:  # sent before the kill, not read yet
            assert not line.startswith("ERROR"), line
            key, time_ms = line.split()
            reported[key, int(time_ms)] += 1
        reports.close()
        # Replaying the whole log each time would dominate the run time: every tenth run.
        _check(tmp_path, reported, replay=run % 10 == 9)
    assert sum(reported.values()) >= RUNS  # the workers did answer


def test_two_processes_answering_at_once_lose_nothing(tmp_path):
    per_process = 150
    # Odd and even times keep the two processes' answers apart in the check.
    workers = [_start(tmp_path, T0 + n, 20_000, n, limit=per_process) for n in range(2)]
    reported: Counter = Counter()
    for process, reports in workers:
        lines = reports.read()
        reports.close()
        process.join()
        errors = [line for line in lines if line.startswith("ERROR")]
        assert not errors, errors
        assert process.exitcode == 0
        answers = [line.split() for line in lines[1:]]
        assert len(answers) == per_process
        reported.update((key, int(time_ms)) for key, time_ms in answers)
    _check(tmp_path, reported)
    store = open_store(location(tmp_path), clock=FakeClock(T0))
    assert store.conn.execute("SELECT count(*) FROM review_log WHERE kind = 'review'").fetchone()[0] == 2 * per_process
    store.close()
