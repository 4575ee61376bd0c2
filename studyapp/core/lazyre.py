"""Regular expressions compiled on first use.

Compiling a pattern with large character classes (the Han or CJK ranges) takes milliseconds,
and a module-level ``re.compile`` pays that on every start of the app, for text checks that
only loading a changed deck or typing an answer needs.
"""

from __future__ import annotations

import re


class LazyPattern:
    """Stands for ``re.compile(pattern, flags)``: every attribute (``search``, ``findall``,
    ``sub``, ``pattern``...) is the compiled pattern's, compiled when one is first asked for.

    An attribute once looked up is kept on the instance, so that loops over a deck's cards
    call the compiled pattern's method directly after the first time."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        if self._compiled is None:
            # Two threads may both compile it: the same pattern either way.
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def __getattr__(self, name: str):
        # Only called for names the instance does not hold yet; "_compiled" is always held.
        value = getattr(self.compiled(), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"
