"""Running the studyapp command line in a subprocess, as a user runs it.

A module of its own (not conftest) so that test files can import it by a name no other
test folder uses.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(args, env, cwd=None, input=None):
    return subprocess.run([sys.executable, "-m", "studyapp", *args], env=env, cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=120, input=input)
