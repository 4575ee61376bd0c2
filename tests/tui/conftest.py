"""Fixtures for the terminal app's tests (helpers are in tui_helpers.py)."""

import pytest

from tui_helpers import Harness


@pytest.fixture
def harness(tmp_path):
    """A fresh home folder with a fixed clock; builds apps on the sample deck."""
    h = Harness(tmp_path / "home")
    yield h
    h.close()
