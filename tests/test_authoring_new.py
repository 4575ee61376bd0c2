"""`studyapp new` and a source that changes: from a new document to a checked bank with coverage."""

import json

import pytest

from authoring_helpers import studyapp, write
from studyapp.authoring.scaffold import render, plan, uncommented
from studyapp.core.loader import content_hash, load_deck

DOC = """\
# 部署指南

部署每天运行 **两次**，由 CI 触发。失败的部署会通知值班工程师。

- 每次部署都打标签。
- 回滚见 [手册](http://example.com)。
"""


def test_new_scaffolds_a_bank_that_checks_clean_and_shows_coverage(tmp_path, capsys, monkeypatch):
    write(tmp_path / "seeds" / "deploy.md", DOC)
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "new", "seeds/deploy.md", "--lang", "zh,en")
    assert code == 0, err
    bank = tmp_path / "decks" / "deploy.yaml"
    assert out.startswith("decks/deploy.yaml: a bank for '部署指南' (id deploy, zh, en)")
    result = load_deck(bank)
    deck = result.deck
    assert (deck.id, deck.title, deck.languages, deck.cards) == ("deploy", "部署指南", ("zh", "en"), ())
    assert deck.seed_path == (tmp_path / "seeds" / "deploy.md").resolve()
    assert deck.seed_hash == content_hash(DOC)
    assert [p.code for p in result.problems] == ["no-cards"] and not result.problems[0].is_error
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert code == 0, err

    # Every example, uncommented, is a card that loads with no problem at all.
    bank.write_text(uncommented(bank.read_text(encoding="utf-8")), encoding="utf-8")
    result = load_deck(bank)
    assert result.problems == []
    assert [c.type for c in result.deck.cards] == ["basic", "reverse", "cloze", "choice", "truefalse"]
    assert result.deck.cards[0].source == ("部署每天运行 两次，由 CI 触发。",)
    assert result.deck.cards[2].text == "{{c1::失败}}的部署会通知值班工程师。"
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "check", "--coverage", "deploy")
    assert code == 0, err
    assert out.splitlines()[0] == "deploy: 3 of 4 statements quoted (75%)"
    assert "seeds/deploy.md:6: 回滚见 手册。" in out


def test_new_defaults_to_the_source_language_and_the_file_name_as_id(tmp_path):
    source = write(tmp_path / "seeds" / "Runbook Notes.txt", "Restart the queue first. Then drain it.\n")
    scaffold = plan(source, tmp_path / "decks" / "x.yaml")
    assert (scaffold.deck_id, scaffold.languages, scaffold.title, scaffold.seed) == (
        "runbook-notes", ("en",), "Runbook Notes", "../seeds/Runbook Notes.txt")
    assert scaffold.quotes == ("Restart the queue first.", "Then drain it.")
    text = render(scaffold)
    assert "languages: [en]" in text and '#    front: "TERM"' in text


@pytest.mark.parametrize(("argv", "message"), [
    (["new", "seeds/missing.md"], "cannot read the source document"),
    (["new", "seeds/doc.md", "--id", "Bad Id"], "is not a deck id"),
    (["new", "seeds/doc.md", "--lang", "zh,zh"], "names a language twice"),
    (["new", "seeds/doc.md", "-o", "elsewhere/deep/x.yaml"], "the source must lie within"),
])
def test_new_refuses_bad_input_with_a_message(tmp_path, capsys, monkeypatch, argv, message):
    write(tmp_path / "seeds" / "doc.md", "One sentence.\n")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, *argv)
    assert code in (1, 2) and message in err
    assert not (tmp_path / "decks").exists()


def test_new_never_overwrites_a_bank(tmp_path, capsys, monkeypatch):
    write(tmp_path / "seeds" / "doc.md", "One sentence.\n")
    existing = write(tmp_path / "decks" / "doc.yaml", "mine\n")
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "new", "seeds/doc.md")
    assert code == 1 and "already exists" in err and existing.read_text() == "mine\n"


STALE_DECK = """\
schema: 1
id: ops
title: Ops
seed: ../seeds/ops.md
seed_hash: {hash}
cards:
  - id: kept
    type: basic
    front: How often do deploys run?
    back: Twice a day
    source: "Deploys run twice a day."
  - id: reworded
    type: basic
    front: Who is paged?
    back: The on-call engineer
    source: "A failed deploy pages the on-call engineer."
  - id: removed
    type: basic
    front: Are deploys tagged?
    back: Every one
    source: "Every deploy is tagged."
"""
OLD = "Deploys run twice a day. A failed deploy pages the on-call engineer. Every deploy is tagged.\n"
NEW = "Deploys run twice a day. A failed deploy pages the on-call engineers. Rollbacks need approval.\n"


def test_a_changed_source_lists_moved_and_vanished_quotes_until_accepted(tmp_path, capsys, monkeypatch):
    seed = write(tmp_path / "seeds" / "ops.md", OLD)
    deck = write(tmp_path / "decks" / "ops.yaml", STALE_DECK.format(hash=content_hash(OLD)))
    assert load_deck(deck).problems == []
    seed.write_text(NEW, encoding="utf-8")
    problems = [(p.code, p.line) for p in load_deck(deck).problems]
    assert problems == [("quote-moved", 16), ("quote-vanished", 21), ("source-changed", 5)]
    code, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert code == 1
    assert "card 'reworded': the seed changed and its quote 'A failed deploy pages the on-call engineer.' is no " \
           "longer verbatim; the closest new passage is 'A failed deploy pages the on-call engineers." in err
    assert "2 cards quote passages that moved or vanished" in err and "--accept-source ops" in err

    # Accepting records the new hash in place, keeping the rest of the file as written.
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "check", "--accept-source", "ops")
    assert code == 0, err
    assert out == f"{tmp_path / 'decks' / 'ops.yaml'}: seed_hash {content_hash(NEW)} recorded\n"
    assert deck.read_text() == STALE_DECK.format(hash=content_hash(NEW))
    # The quotes that no longer match are plain errors now, with their closest passage.
    assert [p.code for p in load_deck(deck).problems] == ["source-not-in-seed", "source-not-in-seed"]


def test_a_changed_source_whose_quotes_all_hold_still_asks_to_be_accepted(tmp_path, capsys, monkeypatch):
    seed = write(tmp_path / "seeds" / "ops.md", OLD)
    deck = write(tmp_path / "decks" / "ops.yaml", STALE_DECK.format(hash=content_hash(OLD)))
    seed.write_text(OLD + "A new closing sentence.\n", encoding="utf-8")
    (problem,) = load_deck(deck).problems
    assert problem.code == "source-changed" and "every card's quotes are still verbatim" in problem.message


def test_accept_source_adds_the_hash_line_under_seed_when_there_is_none(tmp_path, capsys, monkeypatch):
    write(tmp_path / "seeds" / "ops.md", OLD)
    without = STALE_DECK.replace("seed_hash: {hash}\n", "")
    deck = write(tmp_path / "decks" / "ops.yaml", without)
    code, out, _ = studyapp(capsys, monkeypatch, tmp_path, "check", "--accept-source", str(deck))
    assert code == 0 and out.endswith(" recorded\n")
    assert deck.read_text() == STALE_DECK.format(hash=content_hash(OLD))
    code, out, _ = studyapp(capsys, monkeypatch, tmp_path, "check", "--accept-source", str(deck))
    assert code == 0 and out.endswith(" already recorded\n")


def test_a_malformed_seed_hash_is_an_error_at_its_line(tmp_path):
    write(tmp_path / "seeds" / "ops.md", OLD)
    deck = write(tmp_path / "decks" / "ops.yaml", STALE_DECK.format(hash="md5:abc"))
    assert [(p.code, p.line) for p in load_deck(deck).problems] == [("bad-seed-hash", 5)]


def test_one_moved_quote_is_counted_in_the_singular(tmp_path):
    seed = write(tmp_path / "seeds" / "ops.md", OLD)
    deck = write(tmp_path / "decks" / "ops.yaml", STALE_DECK.format(hash=content_hash(OLD)))
    seed.write_text(OLD.replace("on-call engineer.", "on-call engineers."), encoding="utf-8")
    changed = [p for p in load_deck(deck).problems if p.code == "source-changed"]
    assert len(changed) == 1 and "; 1 card quotes a passage that moved or vanished (listed);" in changed[0].message
