"""What every screen and modal of the app shares: the too-small guard and the help key."""

from __future__ import annotations

from typing import Generic, TypeVar

from textual import events
from textual.screen import ModalScreen, Screen

from ..widgets.common.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmall

# Actions that still work while a screen is hidden by the guard: leaving, and quitting.
ALWAYS_ALLOWED = {"leave", "close", "cancel", "home", "quit"}


class _SizeGuard:
    """Hide the content and refuse keys (except leaving) while the terminal is too small.

    Textual calls ``on_*`` handlers of every class in the MRO, so subclasses keep their own
    ``on_mount`` and ``on_resize`` without calling this one.
    """

    too_small: bool = False

    def on_mount(self) -> None:
        self._check_size()

    def on_resize(self, event: events.Resize) -> None:
        self._check_size()

    def on_screen_resume(self) -> None:
        self._check_size()

    def _check_size(self) -> None:
        width, height = self.app.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.too_small = small
        self.set_class(small, "-too-small")
        if small:
            # Mounted only when first needed: one widget less to lay out on every normal start.
            notices = self.query(TooSmall)
            if not notices:
                notice = TooSmall(id="too-small", markup=False)
                self.mount(notice)
                notice.show_size(width, height)
            for notice in notices:
                notice.show_size(width, height)
        if isinstance(self, AppScreen):
            self.sync_bindings()
        else:
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.too_small and action not in ALWAYS_ALLOWED:
            return False
        return True


class AppScreen(_SizeGuard, Screen):
    """A full screen of the app."""

    _binding_state: tuple | None = None

    def sync_bindings(self) -> None:
        """Refresh the footer only when some key became available or unavailable.

        ``refresh_bindings`` recomposes the footer every time (tens of milliseconds), which
        would otherwise be paid on every card.
        """
        from textual.actions import parse

        state = []
        for binding in self.BINDINGS:
            _, name, params = parse(binding.action)
            state.append(bool(self.check_action(name, params)))
        state_tuple = tuple(state)
        if state_tuple != self._binding_state:
            self._binding_state = state_tuple
            self.refresh_bindings()


ResultType = TypeVar("ResultType")


class AppModal(_SizeGuard, ModalScreen[ResultType], Generic[ResultType]):
    """A dialog over a screen; its result goes back to the screen that opened it."""
