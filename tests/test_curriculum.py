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


# ---------------------------------------------------------------- the team's parameters (preset:)


def _parameters(w2: float) -> list[float]:
    """FSRS-6's defaults with w2 (the stability after a first Good) set to ``w2``."""
    from studyapp.core.scheduler import DEFAULT_PARAMETERS

    return [*DEFAULT_PARAMETERS[:2], w2, *DEFAULT_PARAMETERS[3:]]


def test_a_curriculum_preset_is_checked_with_its_line(tmp_path):
    head = "schema: 1\ntracks:\n  - {id: a, decks: [qwen3-training], target: 90%}\n"
    path = write(tmp_path, head + f"preset:\n  name: Team\n  parameters: {_parameters(3.0)}\n")
    curriculum, problems = load_curriculum(path, KNOWN)
    assert problems == [] and curriculum.preset.name == "Team"
    assert curriculum.preset.parameters == tuple(_parameters(3.0))
    path = write(tmp_path, head + f"preset:\n  name: Team\n  parameters: {_parameters(3.0)[:20]}\n")
    (problem,) = load_curriculum(path, KNOWN)[1]
    assert (problem.code, problem.line) == ("bad-preset", 6) and "expected 21 numbers" in problem.message
    path = write(tmp_path, head + f"preset:\n  name: Team\n  parameters: {_parameters(-1.0)}\n")
    (problem,) = load_curriculum(path, KNOWN)[1]
    assert (problem.code, problem.line) == ("bad-preset", 6) and "parameters[2] = -1.0 is outside" in problem.message
    path = write(tmp_path, head + "preset:\n  parameters: [1]\n  shared: yes\n")
    assert codes_and_lines(path) == [("missing-field", 5), ("unknown-key", 6)]  # the mapping starts on 5


def test_the_team_parameters_schedule_the_curriculum_decks_until_the_learner_fits_their_own(tmp_path):
    """A curriculum's ``preset:`` schedules its decks (and only those) for a learner whose profile
    has no parameters fitted for the deck's preset; a fit of their own wins. Read off the first
    Good of a new card: its stability is w2 of the parameters it was scheduled with."""
    from studyapp.core.clock import FakeClock
    from studyapp.core.scheduler import DEFAULT_PARAMETERS
    from studyapp.core.settings import Location
    from studyapp.tui.services import Services

    folder = tmp_path / "decks"
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("alpha\n", encoding="utf-8")
    folder.mkdir()
    for deck_id in ("inside", "outside"):
        (folder / f"{deck_id}.yaml").write_text(
            f"schema: 1\nid: {deck_id}\ntitle: {deck_id}\nseed: ../seeds/s.md\ncards:\n"
            "  - {id: one, type: basic, front: Q?, back: A, source: alpha}\n"
            "  - {id: two, type: basic, front: Q2?, back: A2, source: alpha}\n", encoding="utf-8")
    (folder / "curriculum.yaml").write_text(
        "schema: 1\ntracks:\n  - {id: t, decks: [inside], target: 90%}\n"
        f"preset:\n  name: Team\n  parameters: {_parameters(5.0)}\n", encoding="utf-8")
    services = Services(Location(tmp_path / "home", "default", ()), clock=FakeClock(1_780_000_000_000),
                        deck_paths=[folder])

    def first_good(deck_id: str):
        session = services.session([deck_id])
        assert session.next() is not None
        return session.answer(3).after.stability, session.preset_for(deck_id).name

    assert first_good("inside") == (pytest.approx(5.0), "Team")
    assert first_good("outside") == (pytest.approx(DEFAULT_PARAMETERS[2]), "Default")
    services.store().save_fitted_parameters("Default", _parameters(7.0), reviews=400, items=300, source="profile",
                                            fit={})
    assert first_good("inside") == (pytest.approx(7.0), "Default")


def test_the_cached_curriculum_is_the_parsed_one_until_its_file_or_the_decks_change(tmp_path, monkeypatch):
    import studyapp.core.yamlsafe
    from studyapp.core.curriculum import cached_curriculum, first_curriculum

    folder = tmp_path / "decks"
    folder.mkdir()
    write(folder, "schema: 1\ntitle: One\ntracks:\n  - {id: a, decks: [qwen3-training], target: 90%}\n"
                  f"preset:\n  name: Team\n  parameters: {_parameters(3.0)}\n")
    cache = tmp_path / "home" / "cache" / "curriculum.pickle"
    parsed = first_curriculum([folder], KNOWN)[0]
    assert parsed.preset.parameters == tuple(_parameters(3.0))
    assert cached_curriculum([folder], KNOWN, cache) == parsed and cache.exists()

    def no_parser(*args, **kwargs):
        raise AssertionError("the YAML was parsed again")

    with monkeypatch.context() as patched:
        patched.setattr(studyapp.core.yamlsafe, "parse", no_parser)
        again = cached_curriculum([folder], KNOWN, cache)
        assert again == parsed and again is not parsed
        # Another set of known decks validates differently: parsed again.
        with pytest.raises(AssertionError, match="parsed again"):
            cached_curriculum([folder], KNOWN - {"3fs-file-system"}, cache)
    # So does an edited file (a stamp of its own, whatever the clock's resolution: another size).
    write(folder, "schema: 1\ntitle: Two\ntracks:\n  - {id: b, decks: [pytorch-mega-cache], target: 80%}\n")
    edited = cached_curriculum([folder], KNOWN, cache)
    assert edited.title == "Two" and [t.id for t in edited.tracks] == ["b"]
    # A curriculum that no longer loads is None, as first_curriculum's first value.
    write(folder, "schema: 1\ntracks:\n  - {id: b, decks: [no-such-deck], target: 80%}\n")
    assert cached_curriculum([folder], KNOWN, cache) is None
    # An unwritable cache costs only the parse.
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    assert cached_curriculum([folder], KNOWN, blocked / "curriculum.pickle") is None
