"""The learner's language: --lang, STUDYAPP_LANG, the setting; a language a deck lacks falls back to its primary."""

from __future__ import annotations

import sqlite3
import zipfile

import pytest

from studyapp.cli import main
from studyapp.core.language import chosen_language, localize, shown_languages
from studyapp.core.loader import load_deck
from studyapp.core.models import Deck
from studyapp.core.problems import StudyappError

DECK = """\
schema: 2
id: demo
title: {zh: 演示, en: Demo}
languages: [zh, en]
seed: ../seed.md
cards:
  - {id: a, type: basic, front: {zh: 什么是甲？, en: What is alpha?}, back: {zh: 甲, en: alpha}, source: alpha}
  - {id: b, type: reverse, front: RDMA, back: {zh: 远程直接内存访问, en: Remote Direct Memory Access}, source: alpha}
"""


@pytest.fixture
def deck_folder(tmp_path):
    (tmp_path / "seed.md").write_text("alpha", encoding="utf-8")
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "demo.yaml").write_text(DECK, encoding="utf-8")
    return folder


@pytest.fixture
def deck(deck_folder):
    return load_deck(deck_folder / "demo.yaml").deck


def test_the_flag_wins_over_the_environment_which_wins_over_the_setting():
    assert chosen_language("en", {"STUDYAPP_LANG": "zh"}, "both") == "en"
    assert chosen_language(None, {"STUDYAPP_LANG": "zh"}, "both") == "zh"
    assert chosen_language(None, {"STUDYAPP_LANG": " Both "}, "en") == "both"
    assert chosen_language(None, {}, "both") == "both"
    assert chosen_language(None, {}, "primary") is None
    assert chosen_language(None, {}, None) is None


def test_a_bad_choice_is_a_usage_error_naming_where_it_came_from():
    with pytest.raises(StudyappError) as error:
        chosen_language(None, {"STUDYAPP_LANG": "fr"})
    assert error.value.code == "usage" and "STUDYAPP_LANG 'fr'" in error.value.message and "zh, en, both" in error.value.message
    with pytest.raises(StudyappError, match="--lang 'de'"):
        chosen_language("de", {})


def test_shown_languages_fall_back_to_the_primary(deck):
    assert shown_languages(deck, "en") == ("en",)
    assert shown_languages(deck, "both") == ("zh", "en")
    assert shown_languages(deck, None) == ("zh",)
    only_en = Deck("x", "X", deck.path, deck.seed_path, (), languages=("en",), language="en")
    assert shown_languages(only_en, "zh") == ("en",) and shown_languages(only_en, "both") == ("en",)
    schema_1 = Deck("y", "Y", deck.path, deck.seed_path, ())
    assert shown_languages(schema_1, "zh") == () and localize(schema_1, "zh") is schema_1


def test_localize_both_keeps_the_primary_and_names_the_second_on_each_card(deck):
    both = localize(deck, "both")
    assert both.title == "演示" and [card.second_language for card in both.cards] == ["en", "en"]
    assert both.cards[0].front == "什么是甲？" and both.cards[0].second.front == "What is alpha?"
    english = localize(deck, "en")
    assert english.title == "Demo" and [card.second_language for card in english.cards] == ["", ""]
    assert english.cards[0].second is None
    assert [item.key for item in both.items()] == [item.key for item in english.items()] == [item.key for item in deck.items()]


def _questions(package):
    with zipfile.ZipFile(package) as archive:
        data = archive.read("collection.anki2")
    path = package.with_suffix(".anki2")
    path.write_bytes(data)
    connection = sqlite3.connect(path)
    try:
        return sorted((guid, fields.split("\x1f")[0]) for guid, fields in connection.execute("select guid, flds from notes"))
    finally:
        connection.close()


def test_export_takes_lang_and_the_environment_and_keeps_the_guids(deck_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("STUDYAPP_LANG", raising=False)
    assert main(["export", "anki", "demo", "--decks", str(deck_folder), "-o", str(tmp_path / "zh.apkg")]) == 0
    assert main(["export", "anki", "demo", "--decks", str(deck_folder), "--lang", "en", "-o", str(tmp_path / "en.apkg")]) == 0
    monkeypatch.setenv("STUDYAPP_LANG", "en")
    assert main(["export", "anki", "demo", "--decks", str(deck_folder), "-o", str(tmp_path / "env.apkg")]) == 0
    zh, en, env = (_questions(tmp_path / f"{name}.apkg") for name in ("zh", "en", "env"))
    assert [question for _, question in zh] != [question for _, question in en]
    assert {question for _, question in zh} == {"什么是甲？", "RDMA"}
    assert {question for _, question in en} == {"What is alpha?", "RDMA"}
    assert en == env
    assert [guid for guid, _ in zh] == [guid for guid, _ in en]
    monkeypatch.setenv("STUDYAPP_LANG", "klingon")
    assert main(["export", "anki", "demo", "--decks", str(deck_folder), "-o", str(tmp_path / "bad.apkg")]) == 2
    assert "STUDYAPP_LANG='klingon': use zh, en or both" in capsys.readouterr().err


def test_every_language_of_a_card_is_escaped_for_the_terminal():
    from studyapp.core.models import Card, CardText
    from studyapp.core.terminal_text import visible_deck

    hostile = "Why?\x1b]0;pwned\x07"
    texts = {"zh": CardText(front="为什么？", back="甲"), "en": CardText(front=hostile, back="alpha\x1b[2J")}
    card = Card(id="a", type="basic", source=("alpha",), front="为什么？", back="甲", language="zh", texts=texts)
    deck = Deck("d", "D", None, None, (card,), languages=("zh", "en"), language="zh")
    for shown in (visible_deck(localize(deck, "en")).cards[0], visible_deck(localize(deck, "both")).cards[0].second):
        assert "\x1b" not in shown.front + shown.back and "\x07" not in shown.front
        assert shown.front.startswith("Why?") and "\\x1b" in shown.front
    assert visible_deck(localize(deck, "zh")).cards[0].front == "为什么？"
