"""Deck option presets (Settings > p), as Anki's deck options: pick a deck, pick or make the preset
it uses, edit that preset's options. Saved in the progress database (core.presets).

A blank number field means "as Settings" (the profile's value); learning steps can be
``none`` (Anki's empty steps). Ctrl+S saves; an invalid value is named under the form and
nothing of the preset is saved; Escape saves what is valid and leaves, as Settings does.
"""

from __future__ import annotations

import dataclasses
import re

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select, Static

from ...core.presets import DEFAULT_PRESET, GATHER_ORDERS, LEECH_ACTIONS, SORT_ORDERS, Preset
from ...core.problems import StudyappError
from .. import keymap
from ..widgets.common.footer import AppFooter
from .base import AppScreen
from .settings import NumberField

NUMBERS = (
    # (option, label, hint, parse)
    ("new_per_day", "New cards per day", "this deck's daily limit; blank: as Settings", int),
    ("reviews_per_day", "Reviews per day", "blank: as Settings", int),
    ("learning_steps", "Learning steps", "e.g. 1m 10m; none: no steps; blank: as Settings", "steps"),
    ("relearning_steps", "Relearning steps", "e.g. 10m; none: no steps; blank: as Settings", "steps"),
    ("desired_retention", "Desired retention", "0.70 to 0.99; blank: as Settings", float),
    ("maximum_interval", "Maximum interval", "days, 1 to 36500; blank: as Settings", int),
    ("leech_lapses", "Leech threshold", "lapses, 1 to 99; blank: as Settings", int),
    ("learn_ahead_minutes", "Learn ahead limit", "minutes a learning card may come early; blank: as Settings", int),
)
YES_NO = ((True, "yes"), (False, "no"))
CHOICES = (
    ("leech_action", "Leech action", tuple((a, a) for a in LEECH_ACTIONS)),
    ("bury_new", "Bury new siblings", YES_NO),
    ("bury_reviews", "Bury review siblings", YES_NO),
    ("bury_interday_learning", "Bury interday learning siblings", YES_NO),
    ("new_gather_order", "New card gather order", tuple((o, o) for o in GATHER_ORDERS)),
    ("new_sort_order", "New card sort order", tuple((o, o) for o in SORT_ORDERS)),
)
STEP_RE = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}  # a bare number is minutes, as in Anki


def parse_steps(text: str) -> tuple[int, ...]:
    if text.lower() == "none":
        return ()
    steps = []
    for token in text.replace(",", " ").split():
        match = STEP_RE.match(token.lower())
        if not match:
            raise ValueError(token)
        steps.append(round(float(match.group(1)) * UNITS[match.group(2)]))
    return tuple(steps)


def format_steps(steps: tuple[int, ...]) -> str:
    if not steps:
        return "none"
    out = []
    for secs in steps:
        unit = next(u for u in ("d", "h", "m", "s") if secs % UNITS[u] == 0)
        out.append(f"{secs // UNITS[unit]}{unit}")
    return " ".join(out)


class PresetsScreen(AppScreen):
    BINDINGS = keymap.bindings("presets")
    HELP_TITLE = "Deck option presets"

    def __init__(self, deck_id: str | None = None) -> None:
        super().__init__()
        self.deck_id = deck_id
        self.book = None  # core.presets.Presets as stored
        self.loaded = False
        self._filling = False

    def compose(self) -> ComposeResult:
        yield Static("Deck option presets", id="presets-title", markup=False)
        with VerticalScroll(id="presets-form"):
            with Horizontal(classes="setting"):
                yield Label("Deck")
                yield Select([], allow_blank=True, id="preset-deck")
            with Horizontal(classes="setting"):
                yield Label("Uses preset")
                yield Select([], allow_blank=True, id="preset-name")
                yield Static("Ctrl+N: a new preset for this deck", classes="hint", markup=False)
            for name, label, hint, _ in NUMBERS:
                with Horizontal(classes="setting"):
                    yield Label(label)
                    yield Input(id=f"preset-{name}") if name.endswith("steps") else NumberField(id=f"preset-{name}")
                    yield Static(hint, classes="hint", markup=False)
            for name, label, options in CHOICES:
                with Horizontal(classes="setting"):
                    yield Label(label)
                    yield Select([(text, value) for value, text in options], allow_blank=False, id=f"preset-{name}")
        yield Static("", id="presets-error", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self.run_worker(self._load, thread=True, name="presets-load", exit_on_error=False)

    def _load(self) -> None:
        try:
            book = self.app.services.presets()
            decks = self.app.services.decks()
        except StudyappError as error:
            self.app.call_from_thread(self._error, error.message)
            return
        self.app.call_from_thread(self._loaded, book, decks)

    def _loaded(self, book, decks) -> None:
        self.book = book
        deck_select = self.query_one("#preset-deck", Select)
        deck_select.set_options([(deck.title, deck.id) for deck in decks])
        if decks:
            self.deck_id = self.deck_id if self.deck_id in {d.id for d in decks} else decks[0].id
            deck_select.value = self.deck_id
        self._fill()
        self.loaded = True

    # -- the form

    @property
    def preset(self) -> Preset:
        return self.book.for_deck(self.deck_id) if self.deck_id else self.book.default

    def _fill(self) -> None:
        self._filling = True
        try:
            names = sorted(self.book.presets, key=lambda n: (n != DEFAULT_PRESET, n))
            name_select = self.query_one("#preset-name", Select)
            name_select.set_options([(n, n) for n in names])
            name_select.value = self.preset.name
            for name, *_ in NUMBERS:
                value = getattr(self.preset, name)
                text = "" if value is None else format_steps(value) if name.endswith("steps") else str(value)
                self.query_one(f"#preset-{name}", Input).value = text
            for name, _, _ in CHOICES:
                self.query_one(f"#preset-{name}", Select).value = getattr(self.preset, name)
        finally:
            self._filling = False

    def _error(self, message: str) -> None:
        self.query_one("#presets-error", Static).update(message)

    def _read(self) -> Preset:
        """The preset as the form shows it; StudyappError naming the first bad option."""
        values: dict = {}
        for name, label, _, parse in NUMBERS:
            text = self.query_one(f"#preset-{name}", Input).value.strip()
            if not text:
                values[name] = None
                continue
            try:
                values[name] = parse_steps(text) if parse == "steps" else parse(text)
            except ValueError:
                kind = ("steps such as 1m 10m, or none" if parse == "steps"
                        else "a number such as 0.9" if parse is float else "a whole number")
                raise StudyappError(f"{label}: {text!r} is not {kind}") from None
        for name, _, _ in CHOICES:
            values[name] = self.query_one(f"#preset-{name}", Select).value
        return dataclasses.replace(self.preset, **values)

    def save(self) -> str | None:
        """Store the preset as shown; the problem (nothing saved) or None."""
        if not self.loaded:
            return None
        try:
            preset = self._read()
            if preset != self.preset:
                self.app.services.save_preset(preset)
                self.book = self.app.services.presets()
                self.notify(f"Preset {preset.name!r} saved; it applies from now on.", timeout=3)
        except StudyappError as error:
            self._error(f"Not saved: {error.message}")
            return error.message
        self._error("")
        return None

    def on_select_changed(self, event: Select.Changed) -> None:
        if self._filling or not self.loaded or not isinstance(event.value, str):
            return  # filling the form, or the blank entry
        if event.select.id == "preset-deck":
            self.deck_id = str(event.value)
            self._fill()
        elif event.select.id == "preset-name" and event.value != self.preset.name:
            self.app.services.assign_preset(self.deck_id, str(event.value))
            self.book = self.app.services.presets()
            self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.save()

    def action_new_preset(self) -> None:
        if not self.loaded or self.deck_id is None:
            return
        number = 2
        while f"Preset {number}" in self.book.presets:
            number += 1
        preset = dataclasses.replace(self.preset, name=f"Preset {number}")
        self.app.services.save_preset(preset)
        self.app.services.assign_preset(self.deck_id, preset.name)
        self.book = self.app.services.presets()
        self._fill()

    def action_save(self) -> None:
        self.save()

    def action_leave(self) -> None:
        problem = self.save()
        if problem:
            self.notify(problem, title="Preset not saved", severity="warning", markup=False, timeout=8)
        self.app.pop_screen()
