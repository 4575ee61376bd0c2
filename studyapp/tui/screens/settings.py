"""Settings: desired retention, daily limits, rollover hour and theme; saved and applied at once.

Scheduling settings are stored with the learner's progress (the store); the theme is the
app's own, in ``<home>/config.toml``.
"""

from __future__ import annotations

import dataclasses

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Input, Label, Select, Static

from ...core.problems import StudyappError
from .. import keymap
from ..config import save_theme
from .base import AppScreen

FIELDS = (
    # (setting name, label, hint, parse)
    ("desired_retention", "Desired retention", "0.70 to 0.99: the share of reviews you want to recall", float),
    ("new_per_day", "New cards per day", "across all decks", int),
    ("reviews_per_day", "Reviews per day", "across all decks", int),
    ("rollover_hour", "Day starts at hour", "0 to 23, local time (Anki: 4)", int),
)


class SettingsScreen(AppScreen):
    BINDINGS = keymap.bindings("settings")
    HELP_TITLE = "Settings"

    def __init__(self) -> None:
        super().__init__()
        self.current = None  # the stored Settings
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static("Settings", id="settings-title", markup=False)
        with VerticalScroll(id="settings-form"):
            for name, label, hint, _ in FIELDS:
                with Horizontal(classes="setting"):
                    yield Label(label)
                    yield Input(id=f"setting-{name}", disabled=True)
                    yield Static(hint, classes="hint", markup=False)
            with Horizontal(classes="setting"):
                yield Label("Theme")
                themes = sorted(self.app.available_themes)
                yield Select([(theme, theme) for theme in themes], value=self.app.theme, allow_blank=False,
                             id="setting-theme")
                yield Static("saved in config.toml", classes="hint", markup=False)
        yield Static("", id="settings-error", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.run_worker(self._load, thread=True, name="settings-load", exit_on_error=False)

    def _load(self) -> None:
        try:
            settings = self.app.services.settings()
        except StudyappError as error:
            self.app.call_from_thread(self._error, error.message)
            return
        self.app.call_from_thread(self._loaded, settings)

    def _loaded(self, settings) -> None:
        self.current = settings
        for name, *_ in FIELDS:
            field = self.query_one(f"#setting-{name}", Input)
            field.value = str(getattr(settings, name))
            field.disabled = False
        self.query_one(f"#setting-{FIELDS[0][0]}", Input).focus()
        self.loaded = True

    def _error(self, message: str) -> None:
        self.query_one("#settings-error", Static).update(message)

    def _read(self):
        """The settings as the form shows them, validated; raises StudyappError naming the bad field."""
        changes = {}
        for name, label, _, parse in FIELDS:
            text = self.query_one(f"#setting-{name}", Input).value.strip()
            try:
                changes[name] = parse(text)
            except ValueError:
                kind = "a number such as 0.9" if parse is float else "a whole number"
                raise StudyappError(f"{label}: {text!r} is not {kind}") from None
        return dataclasses.replace(self.current, **changes)

    def save(self) -> bool:
        """Store the form if it changed; True when nothing is left unsaved."""
        if not self.loaded:
            return True
        try:
            settings = self._read()
            if settings != self.current:
                self.app.services.save_settings(settings)
                self.current = settings
                self.notify("Settings saved; they apply from now on.", timeout=3)
        except StudyappError as error:
            self._error(error.message)
            return False
        self._error("")
        return True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.save()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "setting-theme" and isinstance(event.value, str) and event.value != self.app.theme:
            self.app.theme = event.value
            try:
                save_theme(self.app.config, event.value)
            except OSError as error:
                self._error(f"the theme applies now but was not saved: {error}")

    def action_save(self) -> None:
        self.save()

    def action_leave(self) -> None:
        if self.save():
            self.app.pop_screen()
