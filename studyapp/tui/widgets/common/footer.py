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
    _with_palette = False

    def __init__(self) -> None:
        super().__init__(compact=True)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        first_by_action: dict[str, tuple] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                first_by_action.setdefault(binding.action, (binding, enabled, tooltip))
        ordered = sorted(first_by_action.values(), key=lambda entry: entry[0].action != HELP_ACTION)
        self.styles.grid_size_columns = len(ordered)
        for binding, enabled, tooltip in ordered:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
        self._with_palette = self.app.size.width >= PALETTE_MIN_WIDTH
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if self._with_palette and palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            _, binding, enabled, _ = palette
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes="-command-palette", disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)

    def on_resize(self) -> None:
        if self._bindings_ready and (self.app.size.width >= PALETTE_MIN_WIDTH) != self._with_palette:
            self.refresh(recompose=True)
