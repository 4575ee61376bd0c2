"""Each rule has one definition, used everywhere (tests audit, section 4: the rules that were
written three or four times drifted apart). These read the source, so a second copy fails here
rather than disagreeing with the first on a learner's screen."""

from __future__ import annotations

import ast
from pathlib import Path

import studyapp

PACKAGE = Path(studyapp.__file__).parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_study_days_are_built_from_the_settings_in_one_place():
    calls = [f"{path.relative_to(PACKAGE)}:{node.lineno}" for path, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "StudyDays"]
    # Settings.study_days() is the one; StudyDays's own construction sites are in its module.
    assert {site.split(":")[0] for site in calls} == {"core/scheduler.py"}, calls


def test_the_grade_numbers_are_defined_once():
    defined = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    names = [t.id for t in (target.elts if isinstance(target, ast.Tuple) else [target])
                             if isinstance(t, ast.Name)]
                    values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                    numbers = all(isinstance(v, ast.Constant) and type(v.value) is int for v in values)
                    if {"AGAIN", "GOOD"} & set(names) and numbers:  # (a colour named AGAIN is not a grade)
                        defined.append(str(path.relative_to(PACKAGE)))
    assert defined == ["core/grades.py"]


def test_the_grade_numbers_are_ankis_eases():
    from studyapp.core.grades import AGAIN, EASY, GOOD, HARD, RATINGS

    # Anki's revlog ease: 1 Again, 2 Hard, 3 Good, 4 Easy; the export and import carry them as is.
    assert (AGAIN, HARD, GOOD, EASY) == (1, 2, 3, 4) and RATINGS == (1, 2, 3, 4)


def test_a_session_checks_deck_ids_as_the_command_line_does(tmp_path):
    import pytest

    from studyapp.core.catalog import Catalog
    from studyapp.core.problems import StudyappError
    from studyapp.core.session import ReviewSession

    from engine_support import deck, store_at

    decks = [deck("qwen3-training", 1), deck("3fs-file-system", 1)]
    store, clock = store_at(tmp_path)
    with pytest.raises(StudyappError) as from_session:
        ReviewSession(store, decks, deck_ids=["3fs-file-sytem"], clock=clock)
    with pytest.raises(StudyappError) as from_catalog:
        Catalog(decks=decks).select(["3fs-file-sytem"])
    assert from_session.value.message == from_catalog.value.message
    assert "did you mean '3fs-file-system'?" in from_session.value.message
    # A unique prefix is the deck, in the session as on the command line.
    assert ReviewSession(store, decks, deck_ids=["qwen3"], clock=clock).deck_ids == ["qwen3-training"]
