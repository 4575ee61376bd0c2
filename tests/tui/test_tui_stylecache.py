"""Textual's parsed CSS kept between starts (tui/stylecache.py): the same rules as parsing makes,
parsed again whenever the text, the theme or the file say the kept ones may not fit."""

from __future__ import annotations

from pathlib import Path

import pytest
import textual.css.stylesheet
from textual.css.stylesheet import Stylesheet

from studyapp.tui.app import StudyApp
from studyapp.tui.stylecache import StyleCache

APP_CSS = Path(StudyApp.CSS_PATH).read_text(encoding="utf-8")
WHERE = ("app.tcss", "")


def _stylesheet(theme: str = "textual-dark") -> Stylesheet:
    from textual.app import App

    app = App()
    app.theme = theme
    return Stylesheet(variables=app.get_css_variables())


def _parse(stylesheet: Stylesheet, css: str = APP_CSS):
    stylesheet.add_source(css, read_from=WHERE)
    return stylesheet.rules


def _started(file: Path, css: str = APP_CSS, theme: str = "textual-dark"):
    """A start-up that parses ``css`` with the cache in ``file``, then saves it."""
    stylesheet = _stylesheet(theme)
    cache = StyleCache(stylesheet, file)
    rules = _parse(stylesheet, css)
    cache.save()
    return rules


@pytest.fixture
def parses(monkeypatch):
    """How many times Textual's CSS parser ran."""
    calls = []
    original = textual.css.stylesheet.parse

    def counted(*args, **kwargs):
        calls.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counted)
    return calls


def test_a_second_start_reads_the_rules_the_first_one_parsed(tmp_path, parses):
    file = tmp_path / "styles.pickle"
    first = _started(file)
    assert parses == [APP_CSS]
    second = _started(file)
    assert parses == [APP_CSS]  # not parsed again
    assert second == first and second is not first
    assert [rule.css for rule in second] == [rule.css for rule in first]


def test_another_theme_parses_again(tmp_path, parses):
    file = tmp_path / "styles.pickle"
    dark = _started(file)
    light = _started(file, theme="textual-light")
    assert len(parses) == 2
    assert light != dark  # the theme's colours are in the rules
    _started(file, theme="textual-light")
    assert len(parses) == 2


def test_an_edited_stylesheet_parses_again_and_replaces_what_was_kept(tmp_path, parses):
    file = tmp_path / "styles.pickle"
    _started(file)
    edited = APP_CSS + "\n#extra { height: 3; }\n"
    rules = _started(file, css=edited)
    assert parses == [APP_CSS, edited]
    assert rules[-1].css == _parse(_stylesheet(), edited)[-1].css
    cache = StyleCache(_stylesheet(), file)
    assert [key[0] for key in cache._entries] == [edited]


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_a_cache_that_cannot_be_read_is_parsed_and_written_again(tmp_path, parses, content):
    file = tmp_path / "styles.pickle"
    file.write_bytes(content)
    rules = _started(file)
    assert parses == [APP_CSS]
    assert rules == _parse(_stylesheet())
    _started(file)
    assert len(parses) == 2  # the one check above parsed too, not the start


def test_what_is_parsed_after_the_start_up_is_not_kept(tmp_path, parses):
    file = tmp_path / "styles.pickle"
    stylesheet = _stylesheet()
    cache = StyleCache(stylesheet, file)
    cache.stop_recording()
    _parse(stylesheet)
    cache.save()
    assert not file.exists()
