"""The source viewer renders a Markdown source with the quote highlighted; Browse shows a deck's coverage."""

from __future__ import annotations

from studyapp.tui.modals.coverage import CoverageModal, coverage_lines
from studyapp.tui.modals.source import QuotedMarkdown, SourceModal
from studyapp.tui.screens.browse import BrowseScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.review import ReviewScreen

from tui_helpers import SIZE, screen_text, wait_for, wait_for_text

GUIDE = """\
---
title: Guide
---
# The Deploy Guide

Deploys run **twice** a day. See [the runbook](http://example.com) for rollbacks.

- Every deploy is tagged.
- A failed deploy pages the on-call engineer.

| Stage | Owner |
|---|---|
| build | CI |
"""


def guide_decks(tmp_path):
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "guide.md").write_text(GUIDE, encoding="utf-8")
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "guide.yaml").write_text(
        "schema: 1\nid: guide\ntitle: Guide\nseed: ../seeds/guide.md\nmin_coverage: 20%\ncards:\n"
        "  - {id: often, type: basic, front: How often do deploys run?, back: Twice a day,\n"
        "     source: 'Deploys run **twice** a day.'}\n"
        "  - {id: tagged, type: basic, front: What does every deploy get?, back: A tag,\n"
        "     source: Every deploy is tagged.}\n", encoding="utf-8")
    return folder


async def test_a_markdown_source_is_rendered_with_its_quote_highlighted(harness, tmp_path):
    app = harness.app("study", ["guide"], decks=[guide_decks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.shown is not None, "a card")
        assert app.screen.shown.item.card.id == "often"
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SourceModal) and app.screen.rendered, "the source")
        modal = app.screen
        document = modal.query_one(QuotedMarkdown)
        # Quoted with its markup, highlighted as it reads.
        assert document.highlighted == ["Deploys run twice a day."]
        assert modal.quote_lines == [2]
        text = await wait_for_text(pilot, "The Deploy Guide")
        assert "Deploys run twice a day." in text and "**" not in text and "# The" not in text
        assert "the runbook" in text and "http://example.com" not in text
        assert "build" in text and "|---|" not in text


def test_coverage_rows_mark_the_quoted_statements():
    from studyapp.authoring.coverage import Coverage, Statement
    from studyapp.core.models import Deck

    deck = Deck("d", "D", None, None, ())
    coverage = Coverage(deck, [Statement("One.", 9, 0, 4), Statement("Two \x1b[31m.", 12, 5, 14)], {0})
    assert coverage_lines(coverage).plain == " 9 ✓ One.\n12 · Two \\x1b[31m."
    assert coverage_lines(coverage, only_unquoted=True).plain == "12 · Two \\x1b[31m."
    assert [(s.start, s.end) for s in coverage_lines(coverage).spans] == [(5, 9)]


async def test_browse_shows_the_coverage_of_the_highlighted_cards_deck(harness, tmp_path):
    app = harness.app("home", decks=[guide_decks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded, "the decks")
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.loaded, "browse")
        screen = app.screen
        await app.workers.wait_for_complete()
        await pilot.pause()
        field = screen.query_one("#browse-search")
        await pilot.press("slash")
        await wait_for(pilot, lambda: field.has_focus, "the search box")
        field.value = "deck:guide"
        await pilot.press("enter")
        screen.query_one("#browse-table").focus()
        await pilot.pause()
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CoverageModal), "the coverage view")
        modal = app.screen
        assert modal.summary() == "Coverage: Guide: 2 of 5 statements quoted (40%), min_coverage 20%"
        text = await wait_for_text(pilot, "2 of 5 statements quoted")
        assert "6 ✓ Deploys run twice a day." in text and "6 · See the runbook for rollbacks." in text
        assert "8 ✓ Every deploy is tagged." in text and "13 · build | CI" in text
        await pilot.press("u")
        await wait_for(pilot, lambda: "✓ Deploys run" not in screen_text(app), "only the unquoted")
        assert modal.only_unquoted and "6 · See the runbook for rollbacks." in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to browse")
