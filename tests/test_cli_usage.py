"""Wrong usage is refused on the command line, at once, with what was meant; a team's deck folder is
the one its author is editing."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from cli_runner import ROOT, run_cli
from tmux_driver import Tmux

SEED = "alpha beta gamma delta"
DECK = """\
schema: 1
id: {id}
title: {title}
seed: ../seeds/s.md
cards:
  - {{id: one, type: basic, front: What is the first word?, back: alpha, source: alpha}}
  - {{id: two, type: choice, front: Which word is second?, choices: [beta, gamma], answer: beta, source: beta}}
"""


@pytest.fixture
def env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(STUDYAPP_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    return env


def project(root: Path, decks: dict[str, str]) -> Path:
    """A deck repository as a team keeps one: decks/ and seeds/ side by side."""
    (root / "decks").mkdir(parents=True)
    (root / "seeds").mkdir()
    (root / "seeds" / "s.md").write_text(SEED, encoding="utf-8")
    for name, text in decks.items():
        (root / "decks" / name).write_text(text, encoding="utf-8")
    return root


# -- deck ids -----------------------------------------------------------------------------------

def test_a_unique_prefix_names_the_deck(env, tmp_path):
    result = run_cli(["stats", "qwen3", "--json"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [d["id"] for d in json.loads(result.stdout)["decks"]] == ["qwen3-training"]


def test_a_typo_gets_a_did_you_mean(env, tmp_path):
    result = run_cli(["stats", "3fs-file-sytem"], env, cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown deck id '3fs-file-sytem'; did you mean '3fs-file-system'?" in result.stderr
    assert "known decks" not in result.stderr  # the likely id, not a list of all of them


def test_an_ambiguous_prefix_lists_what_it_could_be(env, tmp_path):
    result = run_cli(["stats", "pytorch"], env, cwd=tmp_path)
    assert result.returncode == 2
    assert "deck id 'pytorch' is ambiguous: it starts pytorch-ddp-gradient-sync, pytorch-mega-cache" in result.stderr


def test_an_id_with_nothing_close_lists_the_known_decks(env, tmp_path):
    result = run_cli(["stats", "zzzz"], env, cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown deck id 'zzzz'; known decks: 3fs-file-system, " in result.stderr


@pytest.mark.parametrize("command", [["study", "nope"], ["quiz", "nope"], ["study", "--cram", "nope"]])
def test_the_ui_commands_refuse_an_unknown_deck_before_opening_the_ui(env, tmp_path, command):
    """Run with no terminal at all: had the UI started, it would fail differently."""
    result = run_cli([*command], env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("studyapp: error: unknown deck id 'nope'")
    assert "\x1b[" not in result.stdout + result.stderr  # the screen was never taken over


# -- quiz and exam options ----------------------------------------------------------------------

@pytest.mark.parametrize("extra, named", [(["3fs-file-system"], "DECK"), (["-n", "3"], "-n"),
                                          (["--mode", "typed"], "--mode")])
def test_exam_refuses_options_it_would_ignore(env, tmp_path, extra, named):
    result = run_cli(["quiz", "--exam", *extra], env, cwd=tmp_path)
    assert result.returncode == 2
    assert f"cannot be combined with {named}" in result.stderr


def test_quiz_with_no_question_of_the_mode_is_refused(env, tmp_path):
    folder = project(tmp_path / "team", {"t.yaml": DECK.format(id="tiny", title="Tiny")})
    result = run_cli(["quiz", "tiny", "--mode", "truefalse", "--decks", str(folder / "decks")], env, cwd=tmp_path)
    assert result.returncode == 2
    assert "tiny: no question fits --mode truefalse" in result.stderr


def test_quiz_says_when_the_decks_have_fewer_questions_than_asked(env, tmp_path):
    if shutil.which("tmux") is None:
        pytest.fail("this test needs tmux: apt-get install tmux (CI's .ci/run installs it)")
    folder = project(tmp_path / "team", {"t.yaml": DECK.format(id="tiny", title="Tiny")})
    inner = " ".join(f"{k}={shlex.quote(v)}" for k, v in
                     {**{k: env[k] for k in ("STUDYAPP_HOME", "PYTHONPATH", "HOME")}, "TERM": "xterm-256color",
                      "LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}.items())
    tmux = Tmux(120, 35)
    try:
        tmux.start(f"env -i {inner} {shlex.quote(sys.executable)} -m studyapp quiz tiny -n 10 --mode choice "
                   f"--decks {shlex.quote(str(folder / 'decks'))}", tmp_path)
        screen = tmux.wait(lambda text: "question 1 of 1" in text and "fewer than" in text, "the quiz and its notice")
        assert "tiny has 1 choice question, fewer than the 10 asked for: the quiz has 1." in " ".join(screen.replace("▌", " ").split())
    finally:
        tmux.close()


# -- deck folders -------------------------------------------------------------------------------

def test_a_deck_folder_that_does_not_exist_is_an_error(env, tmp_path):
    result = run_cli(["list", "--decks", str(tmp_path / "typo")], env, cwd=tmp_path)
    assert result.returncode == 2
    assert f"--decks {tmp_path / 'typo'}: no such folder" in result.stderr
    result = run_cli(["list"], dict(env, STUDYAPP_DECKS=str(tmp_path / "typo")), cwd=tmp_path)
    assert result.returncode == 2 and f"STUDYAPP_DECKS {tmp_path / 'typo'}: no such folder" in result.stderr


def test_an_edited_copy_of_a_bundled_deck_shadows_it(env, tmp_path):
    """The author's working copy in ./decks wins over the installed deck of the same id, and list says so."""
    repo = project(tmp_path / "repo", {"mega.yaml": DECK.format(id="pytorch-mega-cache", title="Edited copy")})
    result = run_cli(["list", "--json"], env, cwd=repo)
    assert result.returncode == 0, result.stderr
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows["pytorch-mega-cache"]["title"] == "Edited copy" and rows["pytorch-mega-cache"]["cards"] == 2
    assert len(rows) == 8  # the seven other bundled decks stay
    assert "duplicate-deck-id" not in result.stderr
    (note,) = [line for line in result.stderr.splitlines() if "in place of the bundled deck" in line]
    assert note.startswith(f"studyapp: note: {repo / 'decks' / 'mega.yaml'} is used in place of the bundled deck "
                           "'pytorch-mega-cache' (")
    assert note.endswith("01-pytorch-mega-cache.yaml)")


def test_a_folder_shadowing_several_bundled_decks_says_so_once(env, tmp_path):
    decks = {f"{i}.yaml": DECK.format(id=deck_id, title=f"Copy {i}")
             for i, deck_id in enumerate(["qwen3-training", "3fs-file-system"])}
    repo = project(tmp_path / "repo", decks)
    result = run_cli(["list"], env, cwd=repo)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [f"studyapp: note: 2 decks in {repo / 'decks'} are used in place of the "
                                          "bundled decks with the same ids (qwen3-training, 3fs-file-system)"]


def test_check_with_no_path_checks_the_folder_being_edited(env, tmp_path):
    broken = DECK.format(id="pytorch-mega-cache", title="Edited").replace("type: choice", "type: choise")
    repo = project(tmp_path / "repo", {"mega.yaml": broken, "other.yaml": DECK.format(id="other", title="Other")})
    result = run_cli(["check"], env, cwd=repo)
    assert result.returncode == 1
    assert "decks/mega.yaml:7:21: error: unknown card type 'choise'; did you mean 'choice'?" in result.stderr
    assert result.stderr.strip().endswith("2 decks, 4 cards (1 left out for errors): 1 error, 0 warnings")


def test_check_counts_every_card_and_says_so_in_good_english(env, tmp_path):
    repo = project(tmp_path / "repo", {"one.yaml": DECK.format(id="one-deck", title="One")})
    result = run_cli(["check"], env, cwd=repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1 deck, 2 cards: 0 errors, 0 warnings"


def test_without_a_decks_folder_here_check_checks_the_bundled_decks(env, tmp_path):
    result = run_cli(["check"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = (result.stdout or result.stderr).strip().splitlines()[-1]
    assert summary.startswith("8 decks, ") and ": 0 errors, " in summary


# -- argparse usage -----------------------------------------------------------------------------

def test_an_unknown_option_prints_the_commands_own_usage(env, tmp_path):
    result = run_cli(["list", "--bogus"], env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: studyapp list ")
    assert "studyapp list: error: unrecognized arguments: --bogus" in result.stderr
    nested = run_cli(["export", "anki", "-o", "x.apkg", "--bogus"], env, cwd=tmp_path)
    assert nested.returncode == 2 and nested.stderr.startswith("usage: studyapp export anki ")


def test_export_refuses_an_output_name_anki_would_not_import(env, tmp_path):
    result = run_cli(["export", "anki", "-o", str(tmp_path / "x.txt")], env, cwd=tmp_path)
    assert result.returncode == 2
    assert f"-o {tmp_path / 'x.txt'}: an Anki package's name must end in .apkg" in result.stderr
    assert not (tmp_path / "x.txt").exists()
    upper = run_cli(["export", "anki", "qwen3", "-o", str(tmp_path / "X.APKG")], env, cwd=tmp_path)
    assert upper.returncode == 0, upper.stderr


def test_lang_must_be_one_the_app_knows(env, tmp_path):
    assert run_cli(["list", "--lang", "fr"], env, cwd=tmp_path).returncode == 2
    result = run_cli(["list"], dict(env, STUDYAPP_LANG="fr"), cwd=tmp_path)
    assert result.returncode == 2 and "STUDYAPP_LANG='fr': use zh, en or both" in result.stderr


# -- the parser built for one command ---------------------------------------------------------------

def test_every_command_is_known_to_the_one_command_parser():
    from studyapp import cli

    parser, _ = cli.build_parser()
    assert sorted(cli.COMMAND_NAMES) == sorted(parser._subparsers._group_actions[0].choices)


ARGVS = [[], ["--help"], ["--he"], ["--version"], ["study", "--help"], ["import", "csv", "-h"], ["server", "init", "-h"],
         ["bogus"], ["list", "--bogus"], ["export", "anki", "-o", "x.apkg", "--bogus"], ["export"], ["quiz", "--mode", "no"],
         ["list", "--lang", "fr"], ["--home"], ["--profile", "list", "study", "d"], ["study", "pytorch-mega-cache"],
         ["--home", "/x", "study", "--cram", "a", "b", "--profile", "p"], ["quiz", "-n3", "--mode", "typed", "--seed", "4"],
         ["import", "csv", "f.csv", "--delimiter", "tab"], ["export", "anki", "d", "-o", "x.apkg", "--with-progress"],
         ["server", "init", "u", "--lead", "a", "--lead", "b"], ["--decks", "a", "list", "--decks", "c"], ["study", "--cr"],
         ["study", "--", "--cram"], ["--json", "list"], ["report", "--format", "pdf"], ["new", "s.md", "--lang", "zh,en"]]


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_parsing_with_one_commands_parser_says_and_returns_what_the_full_parser_does(argv, capsys):
    from studyapp import cli

    def outcome(parse):
        try:
            result = sorted(vars(parse(list(argv))).items())
        except SystemExit as stop:
            result = ("exit", stop.code)
        return result, capsys.readouterr()

    assert outcome(cli.parse) == outcome(cli._parse_with_every_command)
