"""The app's own settings file, ``<home>/config.toml``: key remaps and the theme.

Scheduling settings (retention, limits, rollover hour) live with the learner's progress
in the store; this file holds what only the terminal app cares about::

    theme = "textual-dark"
    lang = "both"           # zh, en, both, or primary (each deck's own); --lang and STUDYAPP_LANG win

    [keys]
    "review.reveal" = "space,enter"
    "review.grade-again" = "j"

A broken file never stops the app: it is reported once as a warning naming the file and
line, and the defaults apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.language import LANGUAGE_CHOICES, PRIMARY
from .keymap import BY_ID

DEFAULT_THEME = "textual-dark"
CONFIG_NAME = "config.toml"


@dataclass
class UIConfig:
    path: Path
    theme: str = DEFAULT_THEME
    lang: str = PRIMARY
    keys: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def config_path(home: Path) -> Path:
    return home / CONFIG_NAME


def load_config(home: Path) -> UIConfig:
    path = config_path(home)
    config = UIConfig(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError) as error:
        config.warnings.append(f"{path}: warning: cannot read the config file ({error}); using the defaults")
        return config
    import tomllib  # only for a home that has the file: its patterns are compiled on import

    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as error:
        # tomllib words its position as "(at line L, column C)".
        config.warnings.append(f"{path}: warning: not valid TOML: {error}; using the defaults")
        return config
    for name in data:
        if name not in ("theme", "lang", "keys", "sync"):
            config.warnings.append(f"{path}: warning: unknown setting {name!r}; known: theme, lang, [keys], [sync]")
    lang = data.get("lang", PRIMARY)
    if lang in (*LANGUAGE_CHOICES, PRIMARY):
        config.lang = lang
    else:
        config.warnings.append(f"{path}: warning: lang must be one of {', '.join((*LANGUAGE_CHOICES, PRIMARY))}, "
                               f"not {lang!r}; showing each deck in its primary language")
    theme = data.get("theme", DEFAULT_THEME)
    if isinstance(theme, str) and theme:
        config.theme = theme
    else:
        config.warnings.append(f"{path}: warning: theme must be a name such as {DEFAULT_THEME!r}")
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        config.warnings.append(f"{path}: warning: [keys] must be a table of binding ids to keys")
        keys = {}
    for binding_id, value in keys.items():
        if binding_id not in BY_ID:
            close = _closest(binding_id)
            hint = f"; did you mean {close!r}?" if close else "; ? in the app lists each screen's keys with their binding ids"
            config.warnings.append(f"{path}: warning: unknown binding id {binding_id!r} in [keys]{hint}")
        elif not isinstance(value, str) or not value.strip():
            config.warnings.append(f"{path}: warning: [keys] {binding_id!r} must be a key such as \"j\" or \"ctrl+j,down\"")
        else:
            config.keys[binding_id] = ",".join(part.strip() for part in value.split(",") if part.strip())
    return config


def save_theme(config: UIConfig, theme: str) -> None:
    """Write the theme into the file, keeping everything else in it as it was."""
    config.theme = theme
    _save_setting(config.path, "theme", theme)


def save_lang(config: UIConfig, lang: str) -> None:
    """Write the language choice into the file, keeping everything else in it as it was."""
    config.lang = lang
    _save_setting(config.path, "lang", lang)


def _save_setting(path: Path, name: str, value: str) -> None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    line = f"{name} = {_toml_string(value)}"
    for index, existing in enumerate(lines):
        if existing.split("=", 1)[0].strip() == name and not existing.lstrip().startswith("#"):
            lines[index] = line
            break
        if existing.lstrip().startswith("["):
            # Top-level keys must come before the first table.
            lines.insert(index, line)
            break
    else:
        lines.append(line)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".toml.tmp")
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(path)


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _closest(name: str) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, list(BY_ID), n=1)
    return matches[0] if matches else None
