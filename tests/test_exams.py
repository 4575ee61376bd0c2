"""Exams: reproducible from their seed, stored with the profile, never touching the schedule."""

import pytest

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.clock import FakeClock
from studyapp.core.curriculum import ExamSettings
from studyapp.core.settings import resolve
from studyapp.onboarding.collect import collect_report
from studyapp.onboarding.exams import build_exam, exam_settings, record_exam
from studyapp.store import open_store


@pytest.fixture(scope="module")
def catalog():
    return load_paths([bundled_decks_dir()])


def keys(exam):
    return [(q.key, q.kind, q.options) for q in exam.quiz.questions]


def test_same_seed_same_exam_whatever_the_deck_order(catalog):
    settings = ExamSettings(questions=12, pass_mark=0.8, seed=2026)
    a = build_exam(catalog.decks[:3], settings)
    b = build_exam(list(reversed(catalog.decks[:3])), settings)
    c = build_exam(catalog.decks[:3], exam_settings(settings, seed=2027))
    assert keys(a) == keys(b)
    assert keys(a) != keys(c)
    assert len(a.quiz.questions) == 12
    assert {q.kind for q in a.quiz.questions} <= {"choice", "truefalse", "typed"}


def test_no_override_in_an_exam(catalog):
    exam = build_exam(catalog.decks, ExamSettings(questions=30, seed=5, mode="typed"))
    exam.quiz.answer("nothing like it")
    with pytest.raises(ValueError, match="exam"):
        exam.quiz.override_correct()


@pytest.mark.parametrize("questions, seed, expected", [
    (None, None, (20, 0.9, 1, "truefalse")),
    (5, None, (5, 0.9, 1, "truefalse")),
    (None, 9, (20, 0.9, 9, "truefalse")),
    (5, 9, (5, 0.9, 9, "truefalse")),
])
def test_command_line_overrides_only_what_they_name_and_never_the_pass_mark(questions, seed, expected):
    base = ExamSettings(questions=20, pass_mark=0.9, seed=1, mode="truefalse")
    settings = exam_settings(base, questions=questions, seed=seed)
    assert (settings.questions, settings.pass_mark, settings.seed, settings.mode) == expected
    assert base == ExamSettings(questions=20, pass_mark=0.9, seed=1, mode="truefalse")  # the curriculum's own stays


def test_with_no_curriculum_the_exam_has_the_documented_defaults():
    assert exam_settings(None) == ExamSettings()
    assert exam_settings(None, questions=3).questions == 3


def test_exam_is_recorded_and_reported_but_leaves_the_schedule_alone(tmp_path, catalog):
    location = resolve(str(tmp_path), "erin", [], environ={})
    clock = FakeClock(1_800_000_000_000)
    # All the decks: the rewritten banks hold fewer true/false cards (13 of 119), too few in any two for ten questions.
    exam = build_exam(catalog.decks, ExamSettings(questions=10, pass_mark=0.7, seed=3, mode="truefalse"))
    for i, question in enumerate(exam.quiz.questions):
        exam.quiz.answer(bool(question.card.answer) if i < 7 else not question.card.answer)
    assert exam.result() == (7, 10, True)
    with open_store(location, clock=clock) as store:
        before = store.all_items()
        record_exam(store, exam)
        assert store.all_items() == before
        assert store.log() == []
        (stored,) = store.exam_results()
    assert stored == {"time_ms": clock.now_ms(), "deck_ids": exam.deck_ids, "seed": 3, "mode": "truefalse",
                      "questions": 10, "correct": 7, "pass_mark": 0.7}
    report = collect_report(location, catalog, clock=clock)
    (row,) = report["exams"]
    assert (row["correct"], row["questions"], row["passed"]) == (7, 10, True)
    assert report["totals"]["reviews"] == 0


def test_profiles_never_see_each_others_exams(tmp_path, catalog):
    clock = FakeClock(1_800_000_000_000)
    exam = build_exam(catalog.decks[:1], ExamSettings(questions=3, seed=1, mode="truefalse"))
    for question in exam.quiz.questions:
        exam.quiz.answer(True)
    with open_store(resolve(str(tmp_path), "one", [], environ={}), clock=clock) as store:
        record_exam(store, exam)
    other = resolve(str(tmp_path), "two", [], environ={})
    assert collect_report(other, catalog, clock=clock)["exams"] == []
    assert len(collect_report(resolve(str(tmp_path), "one", [], environ={}), catalog, clock=clock)["exams"]) == 1


def test_report_command_per_profile_and_team_merge(tmp_path, catalog, cli_env):
    """End to end: reviews answered as one profile show in its report only; merge builds the team table."""
    import json

    from cli_runner import run_cli
    from studyapp.core.session import ReviewSession

    home = tmp_path / "home"
    with open_store(resolve(str(home), "ana", [], environ={})) as store:
        session = ReviewSession(store, catalog.decks, deck_ids=["qwen3-training"])
        for rating in (3, 1, 3):
            assert session.next() is not None
            session.answer(rating, 4_000)
    env = dict(cli_env, STUDYAPP_HOME=str(home))
    ana = run_cli(["report", "--format", "json", "--profile", "ana"], env)
    bob = run_cli(["report", "--format", "json", "--profile", "bob"], env)
    assert ana.returncode == 0 and bob.returncode == 0, ana.stderr + bob.stderr
    ana_report, bob_report = json.loads(ana.stdout), json.loads(bob.stdout)
    # Three answers, all first answers to new items or a short step: True Retention counts none of them.
    assert ana_report["totals"]["reviews"] == 3 and ana_report["totals"]["retention"] is None
    assert ana_report["totals"]["retention_answers"] == 0
    assert ana_report["totals"]["time_ms"] == 12_000
    assert bob_report["totals"]["reviews"] == 0
    assert [t["id"] for t in ana_report["tracks"]] == ["training-systems", "training-recipes", "inference"]
    markdown = run_cli(["report", "--profile", "ana"], env)
    assert markdown.stdout.startswith("# Progress report: ana") and "| qwen3-training |" in markdown.stdout
    (tmp_path / "ana.json").write_text(ana.stdout, encoding="utf-8")
    (tmp_path / "bob.json").write_text(bob.stdout, encoding="utf-8")
    merged = run_cli(["report", "--merge", str(tmp_path / "ana.json"), str(tmp_path / "bob.json")], env)
    assert merged.returncode == 0, merged.stderr
    assert "| ana |" in merged.stdout and "| bob |" in merged.stdout
    team = json.loads(run_cli(["report", "--merge", str(tmp_path / "ana.json"), "--format", "json"], env).stdout)
    assert team["learners"][0]["reviews"] == 3
    broken = run_cli(["report", "--merge", str(tmp_path / "nope.json")], env)
    assert broken.returncode == 1 and "cannot read the file" in broken.stderr and "Traceback" not in broken.stderr
