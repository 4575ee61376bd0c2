"""Every malformed deck in tests/malformed/ gives the one error it must, at the line it must."""

from pathlib import Path

import pytest

from studyapp.core.loader import load_deck

MALFORMED = Path(__file__).parent / "malformed"

# file -> (code, line) of the problem it must produce
EXPECTED = {
    "alias-bomb.yaml": ("alias", 2),
    "answer-leak.yaml": ("answer-leak", 8),
    "answer-not-in-choices.yaml": ("answer-not-in-choices", 10),
    "bad-card-slug.yaml": ("bad-slug", 6),
    "bad-deck-slug.yaml": ("bad-slug", 2),
    "bad-revision.yaml": ("wrong-type", 10),
    "binary.yaml": ("binary", 2),
    "cards-not-list.yaml": ("wrong-type", 6),
    "cloze-empty.yaml": ("cloze-empty", 8),
    "cloze-nested.yaml": ("cloze-nested", 8),
    "cloze-none.yaml": ("cloze-none", 8),
    "cloze-unbalanced.yaml": ("cloze-unbalanced", 8),
    "deep-nesting.yaml": ("too-deep", 2),
    "duplicate-card-id.yaml": ("duplicate-card-id", 7),
    "duplicate-choice.yaml": ("duplicate-choice", 12),
    "duplicate-key.yaml": ("duplicate-key", 10),
    "empty-text.yaml": ("empty", 8),
    "empty.yaml": ("empty-file", 1),
    "feedback-unknown.yaml": ("feedback-unknown-choice", 11),
    "field-not-for-type.yaml": ("field-not-for-type", 10),
    "front-is-list.yaml": ("wrong-type", 8),
    "latin1.yaml": ("encoding", 3),
    "missing-deck-id.yaml": ("missing-field", 1),
    "missing-front.yaml": ("missing-field", 6),
    "missing-seed.yaml": ("missing-seed", 4),
    "missing-source.yaml": ("missing-field", 6),
    "one-choice.yaml": ("choice-count", 9),
    "python-tag.yaml": ("unsafe-tag", 6),
    "same-question.yaml": ("duplicate-question", 7),
    "seed-absolute.yaml": ("seed-outside", 4),
    "seed-climbs.yaml": ("seed-outside", 4),
    "seven-choices.yaml": ("choice-count", 9),
    "source-not-verbatim.yaml": ("source-not-in-seed", 10),
    "syntax-error.yaml": ("yaml-syntax", 6),
    "tabs.yaml": ("yaml-syntax", 7),
    "top-level-list.yaml": ("not-a-mapping", 1),
    "top-level-scalar.yaml": ("not-a-mapping", 1),
    "truefalse-string.yaml": ("wrong-type", 9),
    "unknown-card-key.yaml": ("unknown-key", 10),
    "unknown-deck-key.yaml": ("unknown-key", 7),
    "unknown-type.yaml": ("unknown-type", 7),
    "wrong-schema.yaml": ("schema-version", 1),
}


# The problems a file gives besides its own, and why: a misspelt key leaves the field it meant missing.
ALSO = {"unknown-card-key.yaml": [("missing-field", 6)]}
# Warnings rather than errors: the deck still loads.
WARNINGS = {"answer-leak.yaml"}


def test_corpus_is_complete():
    on_disk = {p.name for p in MALFORMED.glob("*.yaml")}
    assert on_disk == set(EXPECTED), "every malformed deck needs an expectation, and every expectation a file"
    assert len(on_disk) >= 30


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_malformed_deck_reports_its_problem(name):
    code, line = EXPECTED[name]
    result = load_deck(MALFORMED / name)
    found = [(p.code, p.line) for p in result.problems]
    # the one problem it must give, and nothing spurious beside it
    assert found == [(code, line), *ALSO.get(name, [])], f"{name}: expected {code} at line {line}, got {found}"
    assert [p.is_error for p in result.problems] == [name not in WARNINGS] * len(found)
    for problem in result.problems:
        assert problem.path == str(MALFORMED / name)
        assert problem.line >= 1 and problem.column >= 1
        assert problem.message and "Traceback" not in problem.message


def test_typo_suggests_the_right_key():
    result = load_deck(MALFORMED / "unknown-card-key.yaml")
    assert any("did you mean 'answer'" in p.message for p in result.problems)


def test_source_mismatch_names_the_closest_passage():
    result = load_deck(MALFORMED / "source-not-verbatim.yaml")
    (problem,) = [p for p in result.problems if p.code == "source-not-in-seed"]
    assert "'The cache has three layers'" in problem.message


def test_a_bad_card_is_left_out_and_the_rest_of_the_deck_loads(tmp_path):
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("alpha beta gamma", encoding="utf-8")
    (tmp_path / "decks").mkdir()
    deck_file = tmp_path / "decks" / "d.yaml"
    deck_file.write_text(
        "schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards:\n"
        "  - {id: good, type: basic, front: What comes after alpha?, back: beta, source: alpha beta}\n"
        "  - {id: bad, type: choice, front: Which?, choices: [x, y], answer: z, source: gamma}\n",
        encoding="utf-8",
    )
    result = load_deck(deck_file)
    assert [c.id for c in result.deck.cards] == ["good"]
    assert [p.code for p in result.problems] == ["answer-not-in-choices"]


def test_every_problem_of_a_file_is_reported_in_one_pass(tmp_path):
    (tmp_path / "s.md").write_text("alpha beta gamma", encoding="utf-8")
    (tmp_path / "d").mkdir()
    deck_file = tmp_path / "d" / "d.yaml"
    deck_file.write_text(
        "schema: 1\nid: d\ntitle: D\nseed: ../s.md\ncolour: red\ncards:\n"
        "  - {id: A, type: basic, front: Q1?, back: x, source: alpha}\n"
        "  - {id: b, type: truefalse, statement: S, answer: maybe, source: beta}\n"
        "  - {id: c, type: cloze, text: no deletion here, source: delta}\n",
        encoding="utf-8",
    )
    codes = sorted(p.code for p in load_deck(deck_file).problems)
    assert codes == ["bad-slug", "cloze-none", "source-not-in-seed", "unknown-key", "wrong-type"]


def test_fifty_megabyte_file_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(50 * 1024 * 1024)
    result = load_deck(big)
    assert result.deck is None
    assert [p.code for p in result.problems] == ["too-large"]
    assert "50.0 MB" in result.problems[0].message
