"""Sources in Markdown, statements, coverage and min_coverage."""

import json

import pytest

from authoring_helpers import studyapp, write
from studyapp.authoring.coverage import deck_coverage, document, split_sentences
from studyapp.core.loader import load_deck
from studyapp.core.sourcetext import markdown_blocks, plain_blocks, render_inline

GUIDE = """\
---
title: Guide
---
# The Deploy Guide

Deploys run **twice** a day. See [the runbook](http://example.com) for rollbacks.
A second line of the same paragraph.

- Every deploy is tagged.
- A failed deploy pages the on-call engineer; nobody else.

| Stage | Owner |
|---|---|
| build | CI |

## Chinese

部署每天两次。回滚见手册！真的吗？
"""


def deck_text(cards: str, extra: str = "") -> str:
    return f"schema: 1\nid: guide\ntitle: Guide\nseed: ../seeds/guide.md\n{extra}cards:\n{cards}"


def card(card_id: str, quote: str) -> str:
    return f"  - id: {card_id}\n    type: basic\n    front: Question {card_id}?\n    back: Answer {card_id}\n    source: {json.dumps(quote, ensure_ascii=False)}\n"


def make(tmp_path, cards: str, extra: str = ""):
    write(tmp_path / "seeds" / "guide.md", GUIDE)
    return write(tmp_path / "decks" / "guide.yaml", deck_text(cards, extra))


def test_sentences_cut_at_western_and_chinese_punctuation_but_not_inside_numbers():
    text = "Pi is 3.14 here. 第一句。第二句？“引用。”Last one!"
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Pi is 3.14 here.", "第一句。", "第二句？", "“引用。”", "Last one!"]
    assert split_sentences("no end at all") == [(0, 13)]
    assert split_sentences("  ...  ") == []


def test_markdown_statements_leave_out_headings_and_header_rows_with_file_lines():
    body = GUIDE.split("---\n", 2)[2]
    plain, statements = document(body, markdown=True, line_offset=3)
    texts = [(s.line, s.text) for s in statements]
    assert texts == [
        (6, "Deploys run twice a day."),
        (6, "See the runbook for rollbacks."),
        (7, "A second line of the same paragraph."),
        (9, "Every deploy is tagged."),
        (10, "A failed deploy pages the on-call engineer;"),
        (10, "nobody else."),
        (14, "build | CI"),
        (18, "部署每天两次。"),
        (18, "回滚见手册！"),
        (18, "真的吗？"),
    ]
    assert all(plain[s.start:s.end] == s.text for s in statements)
    assert "The Deploy Guide" in plain and "Stage | Owner" in plain


def test_plain_text_blocks_split_at_blank_lines_and_list_markers():
    blocks = plain_blocks("First para\ncontinues.\n\n- item a\n2. item b\n# not a heading in text\n")
    assert [(b.kind, b.text, b.line) for b in blocks] == [
        ("paragraph", "First para\ncontinues.", 1), ("item", "item a", 4), ("item", "item b", 5),
        ("paragraph", "# not a heading in text", 6)]
    assert blocks[0].line_at(12) == 2 and blocks[0].line_at(3) == 1


def test_inline_markdown_renders_as_it_reads():
    assert render_inline("Deploys run **twice** a [day](http://x).") == "Deploys run twice a day."
    assert [b.kind for b in markdown_blocks("# H\n\ntext\n\n```\ncode\n```\n")] == ["heading", "paragraph", "code"]


def test_quotes_match_the_rendered_text_as_well_as_the_raw(tmp_path):
    path = make(tmp_path, card("rendered", "Deploys run twice a day.") + card("raw", "Deploys run **twice** a day.")
                + card("link", "See the runbook for rollbacks.") + card("missing", "Deploys run thrice a day."))
    result = load_deck(path)
    codes = [(p.code, p.line) for p in result.problems if p.is_error]
    assert codes == [("source-not-in-seed", 25)]
    assert [c.id for c in result.deck.cards] == ["rendered", "raw", "link"]


def test_rendered_quotes_are_not_accepted_for_a_plain_text_seed(tmp_path):
    write(tmp_path / "seeds" / "guide.txt", "Deploys run **twice** a day.\n")
    path = write(tmp_path / "decks" / "g.yaml", deck_text(card("rendered", "Deploys run twice a day.")).replace(
        "guide.md", "guide.txt"))
    assert [p.code for p in load_deck(path).problems] == ["source-not-in-seed"]


def test_coverage_marks_the_statements_a_quote_overlaps_and_lists_the_rest_longest_first(tmp_path):
    path = make(tmp_path, card("a", "twice a day") + card("b", "Every deploy is tagged.") + card("c", "两次"))
    coverage = deck_coverage(load_deck(path).deck)
    assert (len(coverage.covered), len(coverage.statements)) == (3, 10)
    assert coverage.share == 0.3 and coverage.percent == 30
    assert [(s.line, s.text) for s in coverage.uncovered()] == [
        (10, "A failed deploy pages the on-call engineer;"),
        (7, "A second line of the same paragraph."),
        (6, "See the runbook for rollbacks."),
        (10, "nobody else."),
        (14, "build | CI"),
        (18, "回滚见手册！"),
        (18, "真的吗？"),
    ]


def test_a_quote_spanning_two_sentences_covers_both_and_only_its_first_occurrence_counts(tmp_path):
    write(tmp_path / "seeds" / "guide.md", "Alpha one. Beta two. Alpha again.\n\nAlpha one.\n")
    path = write(tmp_path / "decks" / "g.yaml", deck_text(card("span", "one. Beta") + card("alpha", "Alpha")))
    coverage = deck_coverage(load_deck(path).deck)
    # "Alpha" covers only its first occurrence; the repeated sentence "Alpha one." counts where it is repeated.
    assert [s.text for s, covered in coverage.marked() if covered] == ["Alpha one.", "Beta two.", "Alpha one."]
    assert [s.text for s in coverage.uncovered()] == ["Alpha again."]


def test_check_coverage_prints_share_and_uncovered_with_lines(tmp_path, capsys, monkeypatch):
    make(tmp_path, card("a", "twice a day") + card("b", "Every deploy is tagged."))
    code, out, err = studyapp(capsys, monkeypatch, tmp_path, "check", "--coverage", "guide")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "guide: 2 of 10 statements quoted (20%)"
    assert lines[2].endswith("guide.md:10: A failed deploy pages the on-call engineer;")
    assert len([line for line in lines if ".md:" in line]) == 8


def test_check_coverage_json_adds_coverage_to_the_check_document(tmp_path, capsys, monkeypatch):
    make(tmp_path, card("a", "twice a day"))
    code, out, _ = studyapp(capsys, monkeypatch, tmp_path, "check", "--coverage", "--json", "decks")
    document = json.loads(out)
    assert code == 0 and document["ok"] is True and document["decks"] == 1 and document["cards"] == 1
    (entry,) = document["coverage"]
    assert (entry["id"], entry["statements"], entry["covered"], entry["coverage"]) == ("guide", 10, 1, 0.1)
    assert entry["uncovered"][0] == {"line": 10, "text": "A failed deploy pages the on-call engineer;"}


@pytest.mark.parametrize(("minimum", "code"), [("30%", 0), ("31%", 1), ("0.3", 0)])
def test_min_coverage_fails_check_below_it_and_passes_at_it(tmp_path, capsys, monkeypatch, minimum, code):
    make(tmp_path, card("a", "twice a day") + card("b", "Every deploy is tagged.") + card("c", "两次"),
         extra=f"min_coverage: {minimum}\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert status == code, err
    if code:
        assert "decks/guide.yaml:5:15: error: deck 'guide' quotes 30% of its seed's statements (3 of 10), below " \
               "its min_coverage of 31%" in err


def test_the_curriculum_min_coverage_holds_for_decks_without_their_own(tmp_path, capsys, monkeypatch):
    make(tmp_path, card("a", "twice a day"))
    write(tmp_path / "decks" / "curriculum.yaml",
          "schema: 1\ntitle: T\nmin_coverage: 50%\ntracks:\n  - id: t\n    decks: [guide]\n    target: 80%\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert status == 1 and "below the curriculum's" in err and "[coverage-below-minimum]" in err
    deck = tmp_path / "decks" / "guide.yaml"
    deck.write_text(deck.read_text().replace("cards:", "min_coverage: 10%\ncards:"), encoding="utf-8")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert status == 0, err


def test_a_bad_min_coverage_is_reported_at_its_line(tmp_path):
    path = make(tmp_path, card("a", "twice a day"), extra="min_coverage: lots\n")
    assert [(p.code, p.line) for p in load_deck(path).problems] == [("bad-share", 5)]


def test_a_bank_without_a_source_loads_and_says_so_once(tmp_path, capsys, monkeypatch):
    write(tmp_path / "decks" / "free.yaml", "schema: 1\nid: free\ntitle: Free\ncards:\n"
          "  - {id: a, type: basic, front: One?, back: Two}\n  - {id: b, type: basic, front: Three?, back: Four}\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks")
    assert status == 0
    assert err.count("[no-source]") == 1 and "no quotes to verify" in err
    status, out, err = studyapp(capsys, monkeypatch, tmp_path, "check", "--coverage", "decks")
    assert status == 0 and out.splitlines()[0] == "free: no source document, so no coverage to measure"
    assert err.count("[no-source]") == 1


def test_the_percentage_shown_rounds_down_so_it_never_reads_as_meeting_a_floor_it_misses():
    from studyapp.authoring.coverage import Coverage, Statement
    from studyapp.core.models import Deck

    statements = [Statement(f"S{i}.", i + 1, i * 4, i * 4 + 3) for i in range(3)]
    coverage = Coverage(Deck("d", "D", None, None, ()), statements, {0, 1})
    assert coverage.percent == 66 and abs(coverage.share - 2 / 3) < 1e-12
    assert Coverage(Deck("d", "D", None, None, ())).percent == 100 and Coverage(Deck("d", "D", None, None, ())).share == 1.0


def test_a_deck_file_checked_alone_keeps_its_curriculums_floor_without_judging_the_curriculum(
        tmp_path, capsys, monkeypatch):
    make(tmp_path, card("a", "twice a day"))
    write(tmp_path / "decks" / "curriculum.yaml",
          "schema: 1\ntitle: T\nmin_coverage: 50%\ntracks:\n  - id: t\n    decks: [guide, not-checked-here]\n"
          "    target: 80%\n")
    status, _, err = studyapp(capsys, monkeypatch, tmp_path, "check", "decks/guide.yaml")
    assert status == 1 and "[coverage-below-minimum]" in err
    assert "not-checked-here" not in err


def test_a_space_between_chinese_characters_is_a_lost_line_break_and_ends_a_statement():
    text = "核心架构 三层缓存体系 AOTAutograd 缓存（最高层） 缓存结果"
    assert [text[a:b] for a, b in split_sentences(text, flattened=True)] == [
        "核心架构", "三层缓存体系 AOTAutograd 缓存（最高层）", "缓存结果"]
    # Between Chinese and Latin, or between Latin words, a space is only a space; and in prose as
    # written (not flattened) a space between Chinese characters is the author's spacing.
    assert split_sentences("缓存 FX graph 缓存", flattened=True) == [(0, 14)]
    assert split_sentences(text) == [(0, len(text))]


def test_a_block_with_inline_markup_keeps_its_spaces_between_chinese_characters():
    assert [s.text for s in document("甲乙 丙丁。", markdown=False)[1]] == ["甲乙", "丙丁。"]
    assert [s.text for s in document("甲乙 丙丁。", markdown=True)[1]] == ["甲乙", "丙丁。"]
    assert [s.text for s in document("甲乙 **丙丁**。", markdown=True)[1]] == ["甲乙 丙丁。"]
    assert [s.text for s in document("甲乙 `丙丁`。", markdown=True)[1]] == ["甲乙 丙丁。"]
