"""Answers cards in a process of its own until told to stop or until the store refuses, for the
fault tests (full disk, file-size limit, a held write lock). Prints one ``ACK n`` line per
acknowledged answer and ``ERR message`` for the failure that ended it, then closes the store
normally, as a learner quitting the app would (SQLite checkpoints on that close).

Usage: python fault_driver.py HOME ANSWERS [FSIZE_LIMIT_BYTES]
"""

from __future__ import annotations

import resource
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_support import SETTINGS, T0, deck  # noqa: E402
from studyapp.core.clock import FakeClock  # noqa: E402
from studyapp.core.problems import StudyappError  # noqa: E402
from studyapp.core.scheduler import GOOD  # noqa: E402
from studyapp.core.session import ReviewSession  # noqa: E402
from studyapp.core.settings import Location  # noqa: E402
from studyapp.store import open_store  # noqa: E402


def main() -> int:
    home, answers = Path(sys.argv[1]), int(sys.argv[2])
    clock = FakeClock(T0)
    store = open_store(Location(home, "default", ()), clock=clock)
    session = ReviewSession(store, [deck("a", 3000)], clock=clock, settings=replace(SETTINGS, new_per_day=100_000))
    if len(sys.argv) > 3:
        # The limit counts from the files' current size: the next growth past it fails with EFBIG.
        wal = store.path.with_name(store.path.name + "-wal")
        limit = max(store.path.stat().st_size, wal.stat().st_size if wal.exists() else 0) + int(sys.argv[3])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    acked = 0
    try:
        for _ in range(answers):
            if session.next() is None:
                clock.advance(days=1)
                continue
            session.answer(GOOD, duration_ms=3000)
            acked += 1
            print(f"ACK {acked}", flush=True)
            clock.advance(minutes=1)
    except StudyappError as error:
        print(f"ERR {error.message}", flush=True)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
