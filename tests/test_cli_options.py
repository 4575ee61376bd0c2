"""The global options mean the same before and after the command name.

Every command runs twice from the same starting state, once as ``studyapp --home H --profile ana
--decks D CMD ...`` and once as ``studyapp CMD ... --home H --profile ana --decks D``; what each
printed and which files each wrote (under H and under the learner's real home folder) must be
the same, and right: the profile "ana" in H, never the default profile in the real home folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from cli_runner import ROOT, run_cli
from tmux_driver import Tmux

DECK = """\
schema: 1
id: team-deck
title: Team deck
seed: ../seeds/team.md
cards:
  - {id: one, type: basic, front: What is the first word?, back: alpha, source: alpha}
  - {id: two, type: choice, front: Which word is second?, choices: [beta, gamma], answer: beta, source: beta}
  - {id: three, type: truefalse, statement: Gamma is the third word., answer: true, source: gamma}
"""


@pytest.fixture
def world(tmp_path):
    """A team deck folder, a home folder where profile "ana" has answered two items, a fake real home."""
    from studyapp.core.catalog import load_paths
    from studyapp.core.clock import FakeClock, SystemClock
    from studyapp.core.session import ReviewSession
    from studyapp.core.settings import resolve
    from studyapp.store import open_store

    team = tmp_path / "team"
    (team / "decks").mkdir(parents=True)
    (team / "seeds").mkdir()
    (team / "seeds" / "team.md").write_text("alpha beta gamma", encoding="utf-8")
    (team / "decks" / "team.yaml").write_text(DECK, encoding="utf-8")
    home = tmp_path / "home"
    decks = load_paths([team / "decks"]).decks
    clock = FakeClock(SystemClock().now_ms() - 3_600_000)
    with open_store(resolve(str(home), "ana", [], environ={}), clock=clock) as store:
        session = ReviewSession(store, decks, clock=clock)
        for _ in range(2):
            assert session.next() is not None
            session.answer(3, duration_ms=2000)
    real_home = tmp_path / "real-home"
    real_home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(HOME=str(real_home), XDG_DATA_HOME=str(real_home / ".local" / "share"), PYTHONPATH=str(ROOT))
    pristine = tmp_path / "pristine-home"
    shutil.copytree(home, pristine)
    return {"tmp": tmp_path, "home": home, "pristine": pristine, "real_home": real_home,
            "decks": team / "decks", "env": env, "cwd": tmp_path}


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


def _reset(world) -> None:
    shutil.rmtree(world["home"])
    shutil.copytree(world["pristine"], world["home"])
    shutil.rmtree(world["real_home"])
    world["real_home"].mkdir()
    for leftover in world["tmp"].glob("out*.apkg"):
        leftover.unlink()


def _globals(world) -> list[str]:
    return ["--home", str(world["home"]), "--profile", "ana", "--decks", str(world["decks"])]


def _run_both_orders(world, command: list[str]):
    """(stdout, files under home, files under the real home) for each order, from the same start."""
    outcomes = []
    for argv in ([*_globals(world), *command], [*command, *_globals(world)]):
        _reset(world)
        result = run_cli(argv, world["env"], cwd=world["cwd"])
        assert result.returncode == 0, f"{argv}: {result.stderr}"
        # A report is stamped with the time it was made; everything else must agree.
        stdout = re.sub(r'"generated(_ms)?": [^,]+,', "", result.stdout)
        outcomes.append((stdout, _tree(world["home"]), _tree(world["real_home"])))
    return outcomes


COMMANDS = {
    "list": ["list", "--json"],
    "stats": ["stats", "--json"],
    "report": ["report", "--format", "json"],
    "check": ["check", "--json"],
    "export": ["export", "anki", "team-deck", "-o", "OUT"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_gives_the_same_result_with_the_options_before_or_after_it(world, name):
    command = [str(world["tmp"] / "out.apkg") if part == "OUT" else part for part in COMMANDS[name]]
    before, after = _run_both_orders(world, command)
    assert before == after
    stdout, home_files, real_home_files = before
    assert real_home_files == [], "nothing may be written to the real home folder"
    assert "profiles/ana.sqlite3" in home_files and "profiles/default.sqlite3" not in home_files
    if name == "list":
        row = next(r for r in json.loads(stdout) if r["id"] == "team-deck")
        assert (row["new"], row["learning"]) == (1, 2)  # ana's two answers, not a fresh profile's
    elif name == "stats":
        document = json.loads(stdout)
        assert document["reviews"] == 2
        assert [d["reviews"] for d in document["decks"] if d["id"] == "team-deck"] == [2]
    elif name == "report":
        document = json.loads(stdout)
        assert document["profile"] == "ana" and document["totals"]["reviews"] == 2
    elif name == "check":
        document = json.loads(stdout)
        # With --decks, check looks at that folder (the author's), not the bundled decks.
        assert (document["ok"], document["decks"], document["cards"]) == (True, 1, 3)
    elif name == "export":
        assert stdout.startswith(f"Wrote {world['tmp'] / 'out.apkg'}: 1 deck, 3 notes")


def test_options_split_around_the_command_combine(world):
    """--decks given on both sides adds up; --home before and --profile after still name ana's file."""
    other = world["tmp"] / "other-decks"
    other.mkdir()
    (other / "solo.yaml").write_text(DECK.replace("id: team-deck", "id: solo-deck"), encoding="utf-8")
    (world["tmp"] / "seeds").mkdir()
    (world["tmp"] / "seeds" / "team.md").write_text("alpha beta gamma", encoding="utf-8")
    argv = ["--home", str(world["home"]), "--decks", str(world["decks"]), "stats", "--json",
            "--profile", "ana", "--decks", str(other)]
    result = run_cli(argv, world["env"], cwd=world["cwd"])
    assert result.returncode == 0, result.stderr
    rows = {d["id"]: d for d in json.loads(result.stdout)["decks"]}
    assert rows["team-deck"]["reviews"] == 2 and rows["solo-deck"]["reviews"] == 0
    assert _tree(world["real_home"]) == []


def test_environment_variables_are_used_when_no_option_is_given(world):
    env = dict(world["env"], STUDYAPP_HOME=str(world["home"]), STUDYAPP_PROFILE="ana",
               STUDYAPP_DECKS=str(world["decks"]))
    result = run_cli(["stats", "--json"], env, cwd=world["cwd"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["reviews"] == 2
    # An option beats its variable, in either position.
    for argv in (["--profile", "bob", "stats", "--json"], ["stats", "--json", "--profile", "bob"]):
        assert json.loads(run_cli(argv, env, cwd=world["cwd"]).stdout)["reviews"] == 0


TUI_COMMANDS = {
    # (command, what shows once it is up, keys that answer one item then leave)
    "study": (["study", "team-deck"], "Space: show the answer", ["Space", "3", "q", "q"]),
    "quiz": (["quiz", "team-deck", "-n", "1", "--mode", "choice"], "question 1 of 1", ["1", "Space", "q"]),
}


@pytest.mark.parametrize("name", sorted(TUI_COMMANDS))
def test_the_terminal_ui_uses_the_options_in_either_position(world, name):
    """The UI commands in a real terminal: the review lands in ana's database either way."""
    if shutil.which("tmux") is None:
        pytest.fail("this test needs tmux: apt-get install tmux (CI's .ci/run installs it)")
    command, ready, keys = TUI_COMMANDS[name]
    trees = []
    for argv in ([*_globals(world), *command], [*command, *_globals(world)]):
        _reset(world)
        status = world["tmp"] / "status"
        status.unlink(missing_ok=True)
        env = {k: world["env"][k] for k in ("HOME", "XDG_DATA_HOME", "PYTHONPATH")}
        env.update(TERM="xterm-256color", LANG="C.UTF-8", PATH=os.environ.get("PATH", "/usr/bin:/bin"))
        inner = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        line = (f"cd {shlex.quote(str(world['cwd']))} && env -i {inner} {shlex.quote(sys.executable)} -m studyapp "
                f"{' '.join(shlex.quote(a) for a in argv)}; echo $? > {shlex.quote(str(status))}")
        tmux = Tmux()
        try:
            tmux.start(f"sh -c {shlex.quote(line)}", world["cwd"])
            tmux.wait(lambda text: ready in text, f"{name} to open")
            for key in keys:
                before = tmux.screen()
                tmux.keys(key)
                tmux.wait(lambda text, b=before: text != b or (status.exists() and status.read_text().strip()),
                          f"the screen to change after {key}")
            tmux.wait(lambda text: status.exists() and status.read_text().strip() != "", "studyapp to exit")
            assert status.read_text().strip() == "0"
        finally:
            tmux.close()
        trees.append((_tree(world["home"]), _tree(world["real_home"])))
        stats = run_cli(["stats", "--json", *_globals(world)], world["env"], cwd=world["cwd"])
        expected = 3 if name == "study" else 2  # a quiz leaves the schedule alone
        assert json.loads(stats.stdout)["reviews"] == expected
    assert trees[0] == trees[1]
    assert trees[0][1] == [], "nothing may be written to the real home folder"
