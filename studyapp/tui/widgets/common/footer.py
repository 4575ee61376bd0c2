"""The footer of every screen: the help key first, so that it survives a narrow terminal.

Textual's Footer lists the focused widget's keys, then the screen's, then the app's, so ``? Keys``
came last and was the first thing cut at 80 columns. This one lists ``?`` first, spaces the keys
compactly, and shows the command palette's key only where there is room (the help lists it too).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the pinned Textual's own key widget

HELP_ACTION = "app.help"
# Below this width the palette's key gives its room to the screen's own keys.
PALETTE_MIN_WIDTH = 100


class AppFooter(Footer):
    """Textual's Footer composes its keys again whenever the screen's bindings change: on the
    review screen that is twice a card (the grade keys come with the answer and go with the
    next card), and mounting and styling a dozen key widgets was most of a grade's time. This
    one keeps every key it has shown (in order) and hides those not wanted now; it composes
    again only for a key it does not hold in a place that fits, or a key enabled or disabled."""

    _with_palette = False

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._held: list[tuple] = []  # the keys composed, in order: (identity, enabled, binding, tooltip, classes)
        self._next: tuple[list[tuple], set] | None = None  # what the coming compose holds, and shows

    def _wanted(self) -> list[tuple]:
        """The keys to show now, in order: (identity, enabled, binding, tooltip, classes)."""
        first_by_action: dict[str, tuple] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                first_by_action.setdefault(binding.action, (binding, enabled, tooltip))
        ordered = sorted(first_by_action.values(), key=lambda entry: entry[0].action != HELP_ACTION)
        wanted = [((binding.key, binding.description, binding.action, ""), enabled, binding, tooltip, "")
                  for binding, enabled, tooltip in ordered]
        self._with_palette = self.app.size.width >= PALETTE_MIN_WIDTH
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if self._with_palette and palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            _, binding, enabled, _ = palette
            classes = "-command-palette"
            wanted.append(((binding.key, binding.description, binding.action, classes), enabled, binding,
                           binding.tooltip or binding.description, classes))
        return wanted

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        if self._next is not None:
            held, shown = self._next
            self._next = None
        else:
            held = self._wanted()
            shown = {identity for identity, *_ in held}
        self._held = held
        self.styles.grid_size_columns = len(shown)
        # Born with the class that the compact binding gives it once mounted: added then, it styled
        # every key a second time (a few milliseconds of each start).
        compact = " -compact" if self.compact else ""
        for identity, enabled, binding, tooltip, classes in held:
            key = FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes=classes + compact, disabled=not enabled,
                            tooltip=tooltip).data_bind(compact=Footer.compact)
            key.display = identity in shown
            yield key

    def bindings_changed(self, screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._show_wanted)

    def _show_wanted(self) -> None:
        if not self.is_attached:
            return
        wanted = self._wanted()
        keys = list(self.query_children(FooterKey))
        if len(keys) != len(self._held):
            self._next = None
            self.refresh(recompose=True)
            return
        shown: set[int] = set()
        place = 0
        for identity, enabled, *_ in wanted:
            while place < len(self._held) and self._held[place][0] != identity:
                place += 1
            if place == len(self._held) or self._held[place][1] != enabled:
                # A key not held (or not in this order), or enabled differently: compose them all,
                # the keys held before kept (hidden) so that coming back to them is a toggle.
                self._recompose_with(wanted)
                return
            shown.add(place)
            place += 1
        for index, key in enumerate(keys):
            key.display = index in shown
        self.styles.grid_size_columns = len(wanted)

    def _recompose_with(self, wanted: list[tuple]) -> None:
        """Compose the wanted keys in their order, with the keys held before that are not
        wanted now kept (hidden) after the wanted key they followed."""
        wanted_ids = {identity for identity, *_ in wanted}
        where = {entry[0]: i for i, entry in enumerate(self._held)}
        merged, done = [], 0
        for entry in wanted:
            place = where.get(entry[0])
            if place is not None:
                for held in self._held[done:place]:
                    if held[0] not in wanted_ids:
                        merged.append(held)
                done = max(done, place + 1)
            merged.append(entry)
        merged += [held for held in self._held[done:] if held[0] not in wanted_ids]
        seen: set = set()
        merged = [entry for entry in merged if not (entry[0] in seen or seen.add(entry[0]))]
        self._next = (merged, wanted_ids)
        self.refresh(recompose=True)

    def on_resize(self) -> None:
        if self._bindings_ready and (self.app.size.width >= PALETTE_MIN_WIDTH) != self._with_palette:
            self._next = None
            self.refresh(recompose=True)
