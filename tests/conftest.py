import os
import sys
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


def run_cli(args, env, cwd=None, input=None):
    import subprocess

    return subprocess.run([sys.executable, "-m", "studyapp", *args], env=env, cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=120, input=input)
