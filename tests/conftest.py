import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli_env(tmp_path):
    """Environment for running the CLI in a subprocess with a fresh home and no extra decks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env["STUDYAPP_HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = str(ROOT)
    return env
