"""Work on hundreds of thousands of small objects (review logs, cards) without the cycle collector.

A package's review log becomes one tuple per row; none of them forms a cycle, yet the
collector walks them all again and again as they pile up (it doubled the time of an
export with progress of 100,000 reviews, more with other objects alive in the process).
"""

from __future__ import annotations

import functools
import gc


def collector_paused(function):
    """Run ``function`` with the cycle collector off, and put it back as it was."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return wrapper
