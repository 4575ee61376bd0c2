"""The fields of an exported Anki note, HTML for HTML: both languages under one another (choice
options side by side), the source document's title, line endings, and the note GUID at the
one boundary of its base-91 digits that random ids rarely reach."""

from __future__ import annotations

import hashlib
from pathlib import Path

from genanki.util import guid_for

from studyapp.core.models import Card, CardText, Deck
from studyapp.core.problems import StudyappError
from studyapp.export.fields import DeckTags, cloze_part, document_title, fields_for, note_guid, plain

SECOND = '<div class="second">{}</div>'


def both(card_type: str, zh: dict, en: dict, **fields) -> Card:
    """A card shown in Chinese with its English wording under it (the learner chose both)."""
    return Card(id="c", type=card_type, source=("quote",), language="zh", second_language="en",
                texts={"zh": CardText(**zh), "en": CardText(**en)}, **zh, **fields)


def test_a_basic_card_in_two_languages_shows_each_text_with_the_second_under_it():
    card = both("basic", zh={"front": "问题", "back": "答案", "explanation": "因为"},
                en={"front": "Question", "back": "Answer", "explanation": "Because"})
    assert fields_for(card, "d", "Doc") == [
        "问题" + SECOND.format("Question"), "答案" + SECOND.format("Answer"), "因为" + SECOND.format("Because"),
        "quote", "Doc", "d/c", ""]


def test_a_text_worded_the_same_in_both_languages_is_shown_once():
    card = both("basic", zh={"front": "RDMA?", "back": "RDMA"}, en={"front": "RDMA?", "back": "RDMA"})
    assert fields_for(card, "d", "Doc")[:3] == ["RDMA?", "RDMA", ""]


def test_a_choice_card_in_two_languages_puts_each_option_beside_its_translation():
    card = both("choice",
                zh={"front": "哪个？", "choices": ("甲", "乙", "RDMA"), "answer": "乙",
                    "feedback": {"甲": "不对", "RDMA": "也不对"}, "explanation": "解释"},
                en={"front": "Which?", "choices": ("one", "two", "RDMA"), "answer": "two",
                    "feedback": {"one": "wrong", "RDMA": "also wrong"}, "explanation": "Why"})
    question, answer, explanation, *_ = fields_for(card, "d", "Doc")
    assert question == ('哪个？' + SECOND.format("Which?") + '<ol class="choices" type="A">'
                        '<li>甲 <span class="second">one</span></li><li>乙 <span class="second">two</span></li>'
                        '<li>RDMA</li></ol>')
    assert answer == ('<div class="correct">B. 乙 <span class="second">two</span></div><ul class="feedback">'
                      '<li><span class="option">A. 甲</span>: 不对' + SECOND.format("wrong") + '</li>'
                      '<li><span class="option">C. RDMA</span>: 也不对' + SECOND.format("also wrong") + '</li></ul>')
    assert explanation == "解释" + SECOND.format("Why")


def test_a_true_false_card_answers_true_or_false_in_both_languages():
    card = both("truefalse", zh={"statement": "天是蓝的", "answer": True}, en={"statement": "The sky is blue", "answer": True})
    assert fields_for(card, "d", "Doc")[:2] == ["天是蓝的" + SECOND.format("The sky is blue"), "True"]
    one = Card("c", "truefalse", ("q",), statement="Water is dry", answer=False)
    assert fields_for(one, "d", "Doc")[:2] == ["Water is dry", "False"]


def test_sources_are_one_per_line_and_line_endings_of_any_system_are_one_break():
    card = Card("c", "basic", ("first & one", "second"), front="Q", back="line one\r\nline two\rthree\nfour")
    fields = fields_for(card, "d", "Doc")
    assert fields[1] == "line one<br>line two<br>three<br>four"
    assert fields[3] == "first &amp; one<br>second"
    assert plain("a\nb") == "a<br>b" and plain("a&\nb") == "a&amp;<br>b"


def test_a_cloze_answer_cannot_end_its_deletion_early():
    assert cloze_part("std::vector") == "std&#58;&#58;vector"


def seeded(tmp_path: Path, text: str) -> Deck:
    seed = tmp_path / "seed.md"
    seed.write_text(text, encoding="utf-8")
    return Deck("d", "Deck title", tmp_path / "d.yaml", seed, ())


def test_the_document_title_comes_from_the_seeds_front_matter_only(tmp_path):
    assert document_title(seeded(tmp_path, "---\ntitle: The article\n---\nbody\n---\nmore\n")) == "The article"
    # a Markdown heading underlined with --- is no front matter
    assert document_title(seeded(tmp_path, "Note\ntitle: Not this\n---\nbody\n")) == "Deck title"
    assert document_title(seeded(tmp_path, "---\n- a list\n---\nbody\n")) == "Deck title"
    assert document_title(seeded(tmp_path, "---\nauthor: someone\n---\nbody\n")) == "Deck title"
    assert document_title(seeded(tmp_path, "---\ntitle: '  '\n---\nbody\n")) == "Deck title"
    assert document_title(seeded(tmp_path, "---\ntitle: 2026\n---\nbody\n")) == "2026"
    # empty front matter closes at once: a title: line further down is the body's (this took it before)
    assert document_title(seeded(tmp_path, "---\n---\ntitle: In the body\n---\nmore\n")) == "Deck title"


def test_a_guid_whose_leading_base91_digit_pair_is_91_matches_genanki():
    # 91 is the smallest leading part written with two digits; about one id in 4,000 has it
    for n in range(100_000):
        card_id = f"card-{n}"
        number = int.from_bytes(hashlib.sha256(f"studyapp__d__{card_id}".encode()).digest()[:8], "big")
        while number >= 91 * 91:
            number //= 91 * 91
        if number == 91:
            break
    assert number == 91
    assert note_guid("d", card_id) == guid_for("studyapp", "d", card_id)


def test_a_tag_with_a_space_is_refused_at_its_card_before_anki_splits_it(tmp_path):
    import pytest

    card = Card("c", "basic", ("q",), front="Q", back="A", tags=("two words",))
    deck = Deck("d", "D", tmp_path / "d.yaml", None, (card,))
    with pytest.raises(StudyappError) as raised:
        DeckTags(deck)(card)
    assert (raised.value.message, raised.value.code) == (
        "tag 'two words' of card 'c' contains a space, which Anki would split; use hyphens", "export")
