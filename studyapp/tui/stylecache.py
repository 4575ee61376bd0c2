"""Textual's parsed stylesheets, kept beside the deck cache from one start to the next.

Textual parses app.tcss and the default CSS of every widget class it meets at each start: about
18 ms of CPU before the first card (app.tcss alone 8 ms), where reading the rule sets it made from
a pickle takes about 2 ms. Parsing is a function of the CSS text, where it came from, its
precedence and scope (Textual's own cache key for it) and the theme's CSS variables; the pickle
is keyed by those and by Textual's version, so anything else (another theme, another Textual, a
changed file, a cache that cannot be read) is parsed as before, and parsed rules are the same
objects either way (tests/tui/test_tui_stylecache.py).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import textual

from ..core.cachefile import write_cache

FORMAT = 1


def _textual_stamp() -> tuple:
    """Which Textual this is: its files' sizes and times, which any install or upgrade changes
    (its version would import importlib.metadata, a few milliseconds of its own)."""
    import textual.css.styles
    import textual.css.stylesheet

    stamps = []
    for module in (textual, textual.css.stylesheet, textual.css.styles):
        stat = os.stat(module.__file__)
        stamps.append((module.__file__, stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)


class StyleCache:
    """Feeds a stylesheet's parse cache from the file, and remembers what was parsed for ``save``."""

    def __init__(self, stylesheet, file: Path) -> None:
        self.file = file
        self.changed = False
        # Only what the start-up parses is kept (until stop_recording): the next start reads it
        # all, and other screens' CSS would only make that slower.
        self.recording = True
        self._variables: dict[str, str] = {}
        self._entries: dict[tuple, list] = {}
        self._textual = _textual_stamp()
        try:
            with open(file, "rb") as f:
                data = pickle.load(f)
            if data["format"] == FORMAT and data["textual"] == self._textual:
                self._variables, self._entries = data["variables"], data["entries"]
        except Exception:  # no cache yet, one that cannot be read, another Textual's: parsed, then written again
            pass
        parse_rules = stylesheet._parse_rules

        def _parse_rules(css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
            key = (css, read_from, is_default_rules, tie_breaker, scope)
            variables = stylesheet._variables
            if variables != self._variables and self.recording:
                # Another theme: what was kept is for the one before.
                self._variables, self._entries, self.changed = dict(variables), {}, True
            cached = self._entries.get(key) if variables == self._variables else None
            if cached is not None and key not in stylesheet._parse_cache:
                stylesheet._parse_cache[key] = cached
            rules = parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if cached is None and self.recording:
                # A changed file (app.tcss edited, Textual's widgets' CSS) replaces its old text's rules.
                for old in [old for old in self._entries if old[1:] == key[1:]]:
                    del self._entries[old]
                self._entries[key] = rules
                self.changed = True
            return rules

        # Textual's own parse cache sits behind this name; only the stylesheet made here is fed
        # (a theme change reparses into a new one, as without this cache).
        stylesheet._parse_rules = _parse_rules

    def stop_recording(self) -> None:
        self.recording = False

    def save(self) -> None:
        if not self.changed:
            return
        contents = {"format": FORMAT, "textual": self._textual, "variables": self._variables,
                    "entries": self._entries}
        if write_cache(self.file, lambda f: pickle.dump(contents, f, protocol=pickle.HIGHEST_PROTOCOL),
                       (pickle.PicklingError,)):
            self.changed = False
