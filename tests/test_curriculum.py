"""Curricula are validated like decks: every problem with its line."""

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from studyapp.core.catalog import bundled_decks_dir
from studyapp.core.curriculum import load_curriculum, parse_share

KNOWN = {"pytorch-mega-cache", "qwen3-training", "3fs-file-system"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "curriculum.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def codes_and_lines(path: Path) -> list[tuple[str, int]]:
    return sorted((p.code, p.line) for p in load_curriculum(path, KNOWN)[1])


def test_the_bundled_curriculum_is_valid():
    from studyapp.core.catalog import load_paths

    decks = {d.id for d in load_paths([bundled_decks_dir()]).decks}
    curriculum, problems = load_curriculum(bundled_decks_dir() / "curriculum.yaml", decks)
    assert problems == []
    assert [t.id for t in curriculum.tracks] == ["training-systems", "training-recipes", "inference"]
    assert sorted(d for t in curriculum.tracks for d in t.deck_ids) == sorted(decks)
    assert curriculum.exam.pass_mark == 0.8 and curriculum.exam.questions == 20


def test_unknown_deck_ids_are_reported_with_their_line(tmp_path):
    path = write(tmp_path, "schema: 1\ntracks:\n  - id: a\n    decks: [pytorch-mega-cache, no-such-deck]\n    target: 90%\n")
    assert codes_and_lines(path) == [("unknown-deck", 4)]
    (problem,) = load_curriculum(path, KNOWN)[1]
    assert "'no-such-deck'" in problem.message and "qwen3-training" in problem.message


def test_cycles_are_reported(tmp_path):
    path = write(tmp_path, (
        "schema: 1\ntracks:\n"
        "  - {id: a, decks: [qwen3-training], target: 0.9, after: [c]}\n"
        "  - {id: b, decks: [qwen3-training], target: 0.9, after: [a]}\n"
        "  - {id: c, decks: [qwen3-training], target: 0.9, after: [b]}\n"
    ))
    (problem,) = load_curriculum(path, KNOWN)[1]
    assert problem.code == "track-cycle"
    # One problem for the cycle, at the line of the track it names (a, b and c are all in it).
    named = {3: "'a'", 4: "'b'", 5: "'c'"}
    assert problem.line in named and f"track {named[problem.line]} is part of a cycle" in problem.message


def test_self_dependency_is_a_cycle(tmp_path):
    path = write(tmp_path, "schema: 1\ntracks:\n  - {id: a, decks: [qwen3-training], target: 90%, after: [a]}\n")
    assert codes_and_lines(path) == [("track-cycle", 3)]


@pytest.mark.parametrize("target", ["0", "150%", "-0.5", "lots", "true", "1.5"])
def test_bad_targets(tmp_path, target):
    path = write(tmp_path, f"schema: 1\ntracks:\n  - id: a\n    decks: [qwen3-training]\n    target: {target}\n")
    assert codes_and_lines(path) == [("bad-target", 5)]


def test_every_problem_in_one_pass(tmp_path):
    path = write(tmp_path, (
        "schema: 1\ntracks:\n"
        "  - {id: a, decks: [nope], target: 90%}\n"
        "  - {id: a, decks: [qwen3-training], target: 90%, dayz: 3}\n"
        "  - {id: b, decks: [qwen3-training], target: 90%, after: [zzz], days: 0}\n"
        "exam: {questions: 0, pass: 200%}\n"
    ))
    assert [c for c, _ in codes_and_lines(path)] == sorted([
        "unknown-deck", "duplicate-track-id", "unknown-key", "wrong-type", "unknown-track", "wrong-type", "bad-target",
    ])


def test_shares():
    assert parse_share("90%") == 0.9 and parse_share(0.85) == 0.85 and parse_share(1) == 1.0
    assert parse_share(True) is None and parse_share("0%") is None and parse_share(2) is None


def test_check_reports_a_broken_curriculum_beside_decks(cli_env, tmp_path):
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "curriculum.yaml").write_text("schema: 1\ntracks:\n  - {id: a, decks: [ghost], target: 90%}\n", encoding="utf-8")
    result = run_cli(["check", str(folder), "--json"], cli_env)
    assert result.returncode == 1
    problems = json.loads(result.stdout)["problems"]
    assert [(p["code"], p["line"]) for p in problems] == [("unknown-deck", 3)]
