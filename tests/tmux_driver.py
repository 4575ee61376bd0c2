"""Driving studyapp in a real terminal: a private tmux server, keys sent, the screen read.

A module of its own (like cli_runner) so that tests in any folder can import it.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid


class Tmux:
    """One private tmux server (its own socket), so the learner's own tmux is never touched."""

    def __init__(self, width: int = 100, height: int = 30) -> None:
        self.width, self.height = width, height
        self.socket = f"studyapp-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.target = "app"

    def run(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def start(self, command: str, cwd) -> None:
        """``cwd`` explicitly: a decks/ folder in the working directory is one the app reads."""
        self.run("new-session", "-d", "-s", self.target, "-c", str(cwd), "-x", str(self.width), "-y", str(self.height), command)
        # Keep the pane after the program exits, to read the screen it left.
        self.run("set-option", "-t", self.target, "remain-on-exit", "on")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.target)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.target, *keys)

    def wait(self, condition, what: str, timeout: float = 60.0) -> str:
        """Poll the screen until ``condition(text)`` holds; fail with the last screen if it never does."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if condition(text):
                return text
            time.sleep(0.05)  # between polls of the condition, not a wait for the app
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{text}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)
