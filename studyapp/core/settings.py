"""Where progress lives and which learner is studying: flags, then environment, then defaults."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .problems import StudyappError

DEFAULT_PROFILE = "default"
PROFILE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Location:
    home: Path
    profile: str
    # The learner's own deck folders (flags, environment, ./decks), before the bundled one.
    deck_dirs: tuple[Path, ...]

    @property
    def database(self) -> Path:
        return self.home / "profiles" / f"{self.profile}.sqlite3"


def resolve(home: str | None = None, profile: str | None = None, decks: list[str] | None = None,
            environ: dict | None = None, cwd: Path | None = None) -> Location:
    """``cwd`` is where a ``decks/`` folder counts as the learner's own (None: don't look)."""
    from .catalog import user_deck_dirs

    environ = os.environ if environ is None else environ
    home = home_dir(home, environ)
    profile = profile or environ.get("STUDYAPP_PROFILE") or DEFAULT_PROFILE
    if not PROFILE_RE.match(profile):
        raise StudyappError(
            f"profile name {profile!r} is not allowed; use letters, digits, '.', '_' and '-' (at most 64)",
            code="usage",
        )
    return Location(home, profile, tuple(user_deck_dirs(decks, environ, cwd)))


def home_dir(home: str | None = None, environ: dict | None = None) -> Path:
    """Where progress lives: ``--home``, else STUDYAPP_HOME, else the platform's data folder."""
    environ = os.environ if environ is None else environ
    home = home or environ.get("STUDYAPP_HOME")
    if not home:
        import platformdirs  # only when needed: it costs start-up time

        home = platformdirs.user_data_dir("studyapp", appauthor=False)
    return Path(home).expanduser()
