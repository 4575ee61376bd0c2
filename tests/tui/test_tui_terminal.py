"""The app in a real terminal: tmux runs ``studyapp study <deck>`` with a fresh home; three cards
are revealed and graded, the session is left, and ``studyapp stats --json`` counts 3 reviews.

Needs tmux (``apt-get install tmux``; CI's .ci/run installs it). The test polls the screen for
the text it expects, within a bounded time; it never waits a fixed time.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tmux_driver import Tmux

ROOT = Path(__file__).resolve().parents[2]
DECK = "pytorch-mega-cache"


def test_study_three_cards_in_a_real_terminal_then_stats_counts_them(tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("this test needs tmux: apt-get install tmux (CI's .ci/run installs it)")
    home = tmp_path / "home"
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    inner = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    study = f"env -i {inner} {shlex.quote(sys.executable)} -m studyapp study {DECK}"
    # The exit status goes to a file: tmux 3.3 sometimes marks the pane dead without recording it.
    status_file = tmp_path / "exit-status"
    command = f"sh -c {shlex.quote(f'{study}; echo $? > {shlex.quote(str(status_file))}')}"
    tmux = Tmux()
    try:
        tmux.start(command, tmp_path)
        question = lambda text: "Space: show the answer" in text and "Again ·" not in text  # noqa: E731
        first = tmux.wait(question, "the first card")
        # New cards today: the daily limit (20) or the deck's items, whichever is fewer.
        start = int(re.search(r"new (\d+)", first).group(1))
        for number in range(1, 4):
            tmux.keys("Space")
            tmux.wait(lambda text: "1 Again ·" in text and "3 Good ·" in text, f"the answer of card {number}")
            tmux.keys("3")
            if number < 3:
                tmux.wait(lambda text, n=number: question(text) and f"new {start - n}" in text, f"card {number + 1}")
        tmux.wait(lambda text: f"new {start - 3}" in text or "learning 3" in text, "the counts after three answers")
        tmux.keys("q")
        summary = tmux.wait(lambda text: "Session finished" in text and "Items reviewed" in text, "the summary")
        assert "Items reviewed  3" in summary
        tmux.keys("q")
        tmux.wait(lambda text: status_file.exists() and status_file.read_text().strip() != "", "studyapp to exit")
        assert status_file.read_text().strip() == "0"
    finally:
        tmux.close()
    stats = subprocess.run([sys.executable, "-m", "studyapp", "stats", DECK, "--json"],
                           env={**{k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")},
                                "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert stats.returncode == 0, stats.stderr
    document = json.loads(stats.stdout)
    assert document["reviews"] == 3
    assert [deck["reviews"] for deck in document["decks"]] == [3]
    # What the start parsed of the CSS is kept for the next start (tui/stylecache.py).
    from textual.css.stylesheet import Stylesheet

    from studyapp.tui.stylecache import StyleCache

    kept = StyleCache(Stylesheet(), home / "cache" / "styles.pickle")._entries
    assert any(where[0].endswith("app.tcss") for _, where, *_ in kept)
    assert any(where[1] == "FooterKey.DEFAULT_CSS" for _, where, *_ in kept)


@pytest.mark.parametrize("width, height", [(80, 24), (120, 35)])
def test_ctrl_c_mid_session_exits_130_and_says_how_many_answers_were_saved(tmp_path, width, height):
    if shutil.which("tmux") is None:
        pytest.fail("this test needs tmux: apt-get install tmux (CI's .ci/run installs it)")
    home = tmp_path / "home"
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    inner = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    study = f"env -i {inner} {shlex.quote(sys.executable)} -m studyapp study {DECK}"
    status_file = tmp_path / "exit-status"
    # The shell stays a while after studyapp exits, so the pane still shows what it printed.
    command = f"sh -c {shlex.quote(f'{study}; echo $? > {shlex.quote(str(status_file))}; sleep 60')}"
    tmux = Tmux(width, height)
    try:
        tmux.start(command, tmp_path)
        question = lambda text: "Space: show the answer" in text and "Again ·" not in text  # noqa: E731
        title = lambda text: text.split("\n", 1)[0]  # noqa: E731  (its counts change with each answer)
        shown = tmux.wait(question, "the first card")
        for number in range(1, 3):
            tmux.keys("Space")
            tmux.wait(lambda text: "1 Again ·" in text, f"the answer of card {number}")
            tmux.keys("3")
            before = title(shown)
            shown = tmux.wait(lambda text, b=before: question(text) and title(text) != b, f"card {number + 1}")
        tmux.keys("C-c")
        tmux.wait(lambda text: status_file.exists() and status_file.read_text().strip() != "", "studyapp to exit")
        assert status_file.read_text().strip() == "130"
        screen = tmux.wait(lambda text: "interrupted" in text, "the line on stderr")
        assert "studyapp: interrupted; 2 answers saved (each answer is saved when it is given)" in screen
    finally:
        tmux.close()
    stats = subprocess.run([sys.executable, "-m", "studyapp", "stats", DECK, "--json"],
                           env={**{k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")},
                                "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["reviews"] == 2
