"""Settings: desired retention, daily limits, rollover hour, theme and language; saved and applied at once.

Scheduling settings are stored with the learner's progress (the store); the theme and the
language are the app's own, in ``<home>/config.toml``.

Enter in a field and Ctrl+S save every valid value and stay; Escape saves every valid value
and leaves. A value that is not valid is never saved: Enter and Ctrl+S name it under the
form, Escape drops it (the stored value stays) and says so. Escape always leaves, so a
mistyped field can never keep the learner on this screen.
"""

from __future__ import annotations

import dataclasses

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select, Static

from ...core.problems import StudyappError
from .. import keymap
from ...core.language import PRIMARY
from ..config import save_lang, save_theme
from ..widgets.common.footer import AppFooter
from .base import AppScreen

FIELDS = (
    # (setting name, label, hint, parse)
    ("desired_retention", "Desired retention", "0.70 to 0.99: the share of reviews you want to recall", float),
    ("new_per_day", "New cards per day", "across all decks", int),
    ("reviews_per_day", "Reviews per day", "across all decks", int),
    ("rollover_hour", "Day starts at hour", "0 to 23, local time (Anki: 4)", int),
)
LANGUAGES = (("中文 (zh)", "zh"), ("English (en)", "en"), ("Both: 中文, English dimmed", "both"),
             ("Each deck's own", PRIMARY))


# One line at 80 columns: Enter and Ctrl+S stay, Escape goes back; both save only valid values.
SAVE_HINT = "Enter or Ctrl+S saves · Escape saves and leaves · invalid values are not saved"


class NumberField(Input):
    """An Input for a number that leaves every other printable key to the screen's bindings.

    A plain Input swallows every printable key, so ``?`` replaced the selected value instead of
    opening the help. Characters that can be part of a number are typed; the rest (``?``, ``q``)
    reach the bindings as on any other screen.
    """

    NUMBER_CHARACTERS = frozenset("0123456789.,-+eE")

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character in self.NUMBER_CHARACTERS

    def _on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character not in self.NUMBER_CHARACTERS:
            # Skips Input's own handler (Textual runs every class's in turn) without stopping
            # the event: it bubbles to the app, which runs the bindings.
            event.prevent_default()


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
                    yield NumberField(id=f"setting-{name}", disabled=True)
                    yield Static(hint, classes="hint", markup=False)
            with Horizontal(classes="setting"):
                yield Label("Theme")
                themes = sorted(self.app.available_themes)
                yield Select([(theme, theme) for theme in themes], value=self.app.theme, allow_blank=False,
                             id="setting-theme")
                yield Static("saved in config.toml", classes="hint", markup=False)
            with Horizontal(classes="setting"):
                yield Label("Language")
                yield Select(LANGUAGES, value=self.app.services.language or PRIMARY, allow_blank=False, id="setting-lang")
                yield Static("card texts; progress is kept per card", classes="hint", markup=False)
        yield Static("", id="settings-error", markup=False)
        # What the keys do, on the screen itself (docs/app.md says the same).
        yield Static(SAVE_HINT, id="settings-hint", classes="status", markup=False)
        yield AppFooter()

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

    def _read(self) -> tuple[dict, list[str]]:
        """The form's valid values that differ from the stored ones, and a message per invalid value.

        Each field is checked on its own against the stored settings, so one bad field never
        blocks the others from being saved.
        """
        changes: dict = {}
        problems: list[str] = []
        for name, label, _, parse in FIELDS:
            text = self.query_one(f"#setting-{name}", Input).value.strip()
            stored = getattr(self.current, name)
            try:
                value = parse(text)
            except ValueError:
                kind = "a number such as 0.9" if parse is float else "a whole number"
                problems.append(f"{label}: {text!r} is not {kind}; it stays {stored}")
                continue
            if value == stored:
                continue
            try:
                dataclasses.replace(self.current, **{name: value})
            except StudyappError as error:
                problems.append(f"{label}: {error.message}; it stays {stored}")
                continue
            changes[name] = value
        return changes, problems

    def save(self) -> list[str]:
        """Store every valid value that changed; returns a message per value that was not saved."""
        if not self.loaded:
            return []
        changes, problems = self._read()
        if changes:
            settings = dataclasses.replace(self.current, **changes)
            try:
                self.app.services.save_settings(settings)
            except StudyappError as error:
                problems.insert(0, f"Nothing was saved: {error.message}")
            else:
                self.current = settings
                self.notify("Settings saved; they apply from now on.", timeout=3)
        self._error("\n".join(problems))
        return problems

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
        if event.select.id == "setting-lang" and isinstance(event.value, str) \
                and event.value != (self.app.services.language or PRIMARY):
            self.app.services.set_language(None if event.value == PRIMARY else event.value)
            try:
                save_lang(self.app.config, event.value)
                self.notify("Language saved; it applies from the next session.", timeout=3)
            except OSError as error:
                self._error(f"the language applies now but was not saved: {error}")

    def action_save(self) -> None:
        self.save()

    def action_presets(self) -> None:
        from .presets import PresetsScreen

        self.save()
        self.app.push_screen(PresetsScreen())

    def action_optimize(self) -> None:
        """Anki's Optimize for the Default preset, in a worker: the fit takes seconds on a long log."""
        self.save()
        self._error("Optimizing: fitting FSRS parameters to your reviews…")
        self.run_worker(self._optimize, thread=True, name="settings-optimize", exit_on_error=False, exclusive=True)

    def _optimize(self) -> None:
        try:
            fit = self.app.services.optimize()
        except StudyappError as error:
            self.app.call_from_thread(self._error, error.message)
            return
        before, after = fit.current_eval, fit.fitted_eval
        verdict = "new parameters in use" if fit.adopted else "the current parameters stay"
        message = (f"Optimized on {fit.reviews} reviews ({fit.items} training items): log loss "
                   f"{before.log_loss:.4f} -> {after.log_loss:.4f}, RMSE(bins) {before.rmse_bins:.4f} -> "
                   f"{after.rmse_bins:.4f}; {verdict}.")
        self.app.call_from_thread(self._error, message)

    def action_leave(self) -> None:
        problems = self.save()
        if problems:
            # Shown over the screen underneath: this one is about to go.
            self.notify("\n".join(problems), title="Not saved", severity="warning", markup=False, timeout=8)
        self.app.pop_screen()
