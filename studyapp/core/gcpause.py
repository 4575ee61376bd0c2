"""The cycle collector paused while a large, acyclic structure is built or read.

Each full collection walks every object alive: a deck cache, a YAML node tree, a day's queues
an import plan or a package's review log of a hundred thousand small objects sets collections
off again and again, and they find no cycle to free (it doubled the time of an export with
progress of 100,000 reviews). Reference counting still frees everything meanwhile.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """The collector off for the block (or, as ``@collector_paused()``, for each call), then as
    it was before: a pause inside another leaves it off for the outer one."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
