"""Schema 2 (bilingual) decks: localized texts, languages, related cards, and their errors at file:line:col."""

from pathlib import Path

import pytest

from studyapp.core.loader import load_deck

SEED = "---\ntitle: t\nlanguage: zh\n---\nmeta service：无状态，支持连接任意的meta service。支持数据强一致。3FS 采用存算分离设计。RDMA 远程直接内存访问。\n"

DECK = """\
schema: 2
id: demo
title: {zh: "演示", en: "Demo"}
languages: [zh, en]
seed: ../seed.md
description: {zh: "说明", en: "About"}
cards:
  - id: stateless
    type: basic
    front: {zh: "为什么 client 可以连接任意一个 meta service？", en: "Why can a client connect to any meta service?"}
    back: {zh: "因为 meta service 无状态", en: "Because the meta service is stateless"}
    accept: {zh: ["无状态"], en: ["stateless", "it is stateless"]}
    explanation: {zh: "元信息在 FoundationDB 中", en: "Metadata lives in FoundationDB"}
    source: ["meta service：无状态", "支持连接任意的meta service"]
    related: [consistency]
  - id: consistency
    type: choice
    front: {zh: "3FS 提供哪种一致性？", en: "Which consistency does 3FS provide?"}
    choices:
      - {zh: "最终一致", en: "Eventual consistency"}
      - {zh: "强一致", en: "Strong consistency"}
      - {zh: "因果一致", en: "Causal consistency"}
    answer: "强一致"
    feedback: {"最终一致": {zh: "文中说强一致", en: "The text says strong"}}
    source: "支持数据强一致"
  - {id: design, type: cloze, text: {zh: "3FS 采用{{c1::存算分离}}设计", en: "3FS uses a {{c1::storage-compute separation}} design"}, source: 3FS 采用存算分离设计}
  - {id: eventual, type: truefalse, statement: {zh: "3FS 只保证最终一致", en: "3FS only guarantees eventual consistency"}, answer: false, source: 支持数据强一致}
  - {id: rdma, type: reverse, front: RDMA, back: {zh: "远程直接内存访问", en: "Remote Direct Memory Access"}, accept: [remote dma], source: RDMA 远程直接内存访问}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "seed.md").write_text(SEED, encoding="utf-8")
    (tmp_path / "decks").mkdir(exist_ok=True)
    path = tmp_path / "decks" / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path, text):
    result = load_deck(write(tmp_path, text))
    return result, [(p.line, p.column, p.severity, p.code) for p in result.problems]


def test_a_bilingual_deck_loads_in_its_primary_language(tmp_path):
    result, found = problems(tmp_path, DECK)
    assert found == []
    deck = result.deck
    assert (deck.languages, deck.language, deck.title, deck.description) == (("zh", "en"), "zh", "演示", "说明")
    stateless, consistency, design, eventual, rdma = deck.cards
    assert (stateless.front, stateless.back, stateless.accept) == ("为什么 client 可以连接任意一个 meta service？", "因为 meta service 无状态", ("无状态",))
    assert stateless.explanation == "元信息在 FoundationDB 中"
    assert consistency.choices == ("最终一致", "强一致", "因果一致") and consistency.answer == "强一致"
    assert consistency.feedback == {"最终一致": "文中说强一致"}
    assert design.text == "3FS 采用{{c1::存算分离}}设计" and design.variants() == ["c1"]
    assert eventual.answer is False and eventual.statement == "3FS 只保证最终一致"
    assert (rdma.front, rdma.back, rdma.accept) == ("RDMA", "远程直接内存访问", ("remote dma",))
    assert rdma.texts["en"].accept == ("remote dma",)


def test_in_language_rewords_every_text_consistently(tmp_path):
    deck = load_deck(write(tmp_path, DECK)).deck.in_language("en")
    assert (deck.language, deck.title, deck.description) == ("en", "Demo", "About")
    stateless, consistency, design, eventual, rdma = deck.cards
    assert (stateless.front, stateless.accept) == ("Why can a client connect to any meta service?", ("stateless", "it is stateless"))
    assert consistency.choices == ("Eventual consistency", "Strong consistency", "Causal consistency")
    assert consistency.answer == "Strong consistency"
    assert consistency.feedback == {"Eventual consistency": "The text says strong"}
    assert design.answer_text == "storage-compute separation"
    assert (rdma.front, rdma.back) == ("RDMA", "Remote Direct Memory Access")
    assert eventual.answer is False
    # Identity never depends on the language: the same items, keyed the same way.
    zh = load_deck(write(tmp_path, DECK)).deck
    assert [item.key for item in deck.items()] == [item.key for item in zh.items()]
    assert deck.in_language("fr") is deck and zh.in_language("zh") is zh


def test_related_is_symmetric(tmp_path):
    deck = load_deck(write(tmp_path, DECK)).deck
    assert deck.card("stateless").related == ("consistency",)
    assert deck.card("consistency").related == ("stateless",)
    assert deck.card("design").related == ()


def test_related_unknown_and_self_are_errors_at_their_line(tmp_path):
    text = DECK.replace("    related: [consistency]\n", "    related: [stateless, consistensy]\n")
    result, found = problems(tmp_path, text)
    assert found == [(15, 14, "error", "related-self"), (15, 14, "error", "related-unknown")]
    assert "did you mean 'consistency'?" in result.problems[1].message


def test_a_mapping_missing_a_language_is_an_error_at_the_mapping(tmp_path):
    text = DECK.replace('front: {zh: "3FS 提供哪种一致性？", en: "Which consistency does 3FS provide?"}', 'front: {zh: "3FS 提供哪种一致性？"}')
    result, found = problems(tmp_path, text)
    assert found == [(18, 12, "error", "missing-language")]
    assert "'front' has no 'en' text" in result.problems[0].message
    assert result.deck.card("consistency") is None and len(result.deck.cards) == 4


def test_a_language_the_deck_does_not_declare_is_an_error_at_its_key(tmp_path):
    text = DECK.replace('statement: {zh: "3FS 只保证最终一致", en:', 'statement: {zh: "3FS 只保证最终一致", fr: "x", en:')
    result, found = problems(tmp_path, text)
    assert found == [(27, 68, "error", "unknown-language")]
    assert "'fr'" in result.problems[0].message and "languages: zh, en" in result.problems[0].message


def test_a_choice_option_missing_a_language_is_an_error_at_the_option(tmp_path):
    text = DECK.replace('- {zh: "因果一致", en: "Causal consistency"}', '- {zh: "因果一致"}')
    _, found = problems(tmp_path, text)
    assert found == [(22, 9, "error", "missing-language")]


def test_accept_by_language_missing_one_is_an_error(tmp_path):
    text = DECK.replace('accept: {zh: ["无状态"], en: ["stateless", "it is stateless"]}', 'accept: {en: ["stateless"]}')
    _, found = problems(tmp_path, text)
    assert found == [(12, 13, "error", "missing-language")]


def test_cloze_numbers_must_agree_across_languages(tmp_path):
    text = DECK.replace("{{c1::storage-compute separation}}", "{{c2::storage-compute separation}}")
    result, found = problems(tmp_path, text)
    assert found == [(26, 37, "error", "cloze-languages-differ")]
    assert "zh: c1; en: c2" in result.problems[0].message


def test_cloze_with_equal_numbers_in_another_order_is_fine(tmp_path):
    text = DECK.replace('text: {zh: "3FS 采用{{c1::存算分离}}设计", en: "3FS uses a {{c1::storage-compute separation}} design"}',
                        'text: {zh: "{{c1::3FS}} 采用{{c2::存算分离}}设计", en: "a {{c2::storage-compute separation}} design in {{c1::3FS}}"}')
    result, found = problems(tmp_path, text)
    assert found == [] and result.deck.card("design").variants() == ["c1", "c2"]


def test_choice_answer_is_the_primary_text_and_an_english_one_is_explained(tmp_path):
    text = DECK.replace('answer: "强一致"', 'answer: "Strong consistency"')
    result, found = problems(tmp_path, text)
    assert found == [(23, 13, "error", "answer-not-in-choices")]
    assert "is the en text of an option; write its zh text, '强一致'" in result.problems[0].message


def test_feedback_keyed_by_an_english_option_is_an_error(tmp_path):
    text = DECK.replace('feedback: {"最终一致":', 'feedback: {"Eventual consistency":')
    _, found = problems(tmp_path, text)
    assert found == [(24, 16, "error", "feedback-unknown-choice")]


def test_languages_is_required_and_checked(tmp_path):
    _, found = problems(tmp_path, DECK.replace("languages: [zh, en]\n", ""))
    assert (1, 1, "error", "missing-field") in found
    _, found = problems(tmp_path, DECK.replace("languages: [zh, en]", "languages: [zh, zh]"))
    assert found == [(4, 17, "error", "duplicate-language")]
    _, found = problems(tmp_path, DECK.replace("languages: [zh, en]", "languages: [zh, English]"))
    assert found == [(4, 17, "error", "bad-language")]


def test_source_is_never_a_mapping(tmp_path):
    text = DECK.replace('source: "支持数据强一致"', 'source: {zh: "支持数据强一致", en: "strong"}')
    result, found = problems(tmp_path, text)
    assert found == [(25, 13, "error", "wrong-type")]
    assert "verbatim in the seed's own language" in result.problems[0].message


def test_schema_1_rejects_languages_and_mappings_as_before(tmp_path):
    text = DECK.replace("schema: 2", "schema: 1")
    _, found = problems(tmp_path, text)
    assert (4, 1, "error", "unknown-key") in found
    assert (3, 8, "error", "wrong-type") in found


@pytest.mark.parametrize(("plain", "expected"), [
    ("只保证最终一致", [(27, 48, "warning", "untranslated-text")]),
    ("3FS only guarantees eventual consistency", [(27, 48, "warning", "untranslated-text")]),  # 5 words
    ("3FS guarantees eventual consistency", []),  # 4 words: a term may stay in English
    ("FUSE", []),
])
def test_a_plain_text_one_language_would_see_untranslated_warns(tmp_path, plain, expected):
    text = DECK.replace('statement: {zh: "3FS 只保证最终一致", en: "3FS only guarantees eventual consistency"}', f'statement: "{plain}"')
    _, found = problems(tmp_path, text)
    assert found == expected


def test_a_single_language_deck_never_warns_of_untranslated_text(tmp_path):
    text = DECK.replace("languages: [zh, en]", "languages: [zh]").replace('title: {zh: "演示", en: "Demo"}', "title: 演示")
    text = "\n".join(line for line in text.splitlines()) + "\n"
    result, found = problems(tmp_path, text.replace(', en: "', ', xx: "'))
    assert all(code != "untranslated-text" for *_, code in found)


def test_the_complete_example_in_the_docs_loads_clean(tmp_path):
    import re
    import shutil

    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "deck-format.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", doc, re.DOTALL).group(1)
    (tmp_path / "seeds").mkdir()
    shutil.copy(root / "seeds" / "08-3fs-file-system.md", tmp_path / "seeds")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "example.yaml").write_text(example, encoding="utf-8")
    result = load_deck(tmp_path / "decks" / "example.yaml")
    assert [p.format() for p in result.problems] == []
    assert [card.type for card in result.deck.cards] == ["basic", "choice", "cloze", "truefalse", "reverse"]
    assert result.deck.in_language("en").card("consistency-level").answer == "Strong consistency"
