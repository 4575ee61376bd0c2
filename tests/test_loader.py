"""Loading valid decks: every card type, positions, items and their identity."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studyapp.core.loader import load_deck
from studyapp.core.models import item_key
from studyapp.core.problems import DeckLoadError
from studyapp.core.yamlsafe import decode, parse

DECK = """\
schema: 1
id: sample
title: Sample
seed: ../seed.md
description: A deck with every card type.
tags: [demo]
cards:
  - id: layers
    type: basic
    front: How many layers does the cache have?
    back: Three
    accept: ["3"]
    source: The cache has three layers
  - id: top
    type: reverse
    front: The top layer
    back: AOTAutograd
    source: The top layer is AOTAutograd
  - id: order
    type: cloze
    text: "The {{c1::FX graph cache}} is the {{c2::middle}} layer."
    source: The middle layer is the FX graph cache
  - id: bottom
    type: choice
    front: Which layer is at the bottom?
    choices: [AOTAutograd, FX graph cache, Triton autotuning]
    answer: Triton autotuning
    feedback: {FX graph cache: It is the middle layer.}
    explanation: The bottom layer is Triton autotuning.
    source: [The bottom layer is Triton autotuning]
  - id: four
    type: truefalse
    statement: The cache has four layers.
    answer: false
    explanation: It has three.
    source: The cache has three layers
    revision: 2
"""


def write_sample(tmp_path: Path, text: str = DECK) -> Path:
    (tmp_path / "seed.md").write_text(
        "---\ntitle: t\n---\nThe cache has three layers. The top layer is AOTAutograd. "
        "The middle layer is the FX graph cache. The bottom layer is Triton autotuning.",
        encoding="utf-8",
    )
    (tmp_path / "decks").mkdir(exist_ok=True)
    path = tmp_path / "decks" / "sample.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_all_five_card_types_load_with_positions(tmp_path):
    result = load_deck(write_sample(tmp_path))
    assert result.problems == []
    deck = result.deck
    assert (deck.id, deck.title, deck.tags) == ("sample", "Sample", ("demo",))
    assert [c.type for c in deck.cards] == ["basic", "reverse", "cloze", "choice", "truefalse"]
    basic, reverse, cloze, choice, truefalse = deck.cards
    assert basic.accept == ("3",)
    assert (basic.position.line, basic.position_of("back").line) == (8, 11)
    assert cloze.cloze_numbers() == [1, 2]
    assert cloze.answer_text == "FX graph cache, middle"
    assert choice.answer == "Triton autotuning" and choice.feedback == {"FX graph cache": "It is the middle layer."}
    assert truefalse.answer is False and truefalse.revision == 2 and truefalse.answer_text == "False"
    assert truefalse.position_of("statement").line == 33


def test_items_are_keyed_by_deck_card_and_variant(tmp_path):
    deck = load_deck(write_sample(tmp_path)).deck
    keys = [item.key for item in deck.items()]
    assert keys == [
        "sample/layers/main", "sample/top/forward", "sample/top/backward",
        "sample/order/c1", "sample/order/c2", "sample/bottom/main", "sample/four/main",
    ]
    assert item_key("sample", "top", "forward") == keys[1]
    siblings = {item.sibling_key for item in deck.items() if item.card.id == "order"}
    assert siblings == {"sample/order"}


def test_editing_text_keeps_item_identity(tmp_path):
    before = [i.key for i in load_deck(write_sample(tmp_path)).deck.items()]
    edited = DECK.replace("How many layers does the cache have?", "How many cache layers are there?")
    after = [i.key for i in load_deck(write_sample(tmp_path, edited)).deck.items()]
    assert before == after


def test_loader_accepts_a_byte_order_mark(tmp_path):
    path = write_sample(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_deck(path).problems == []


# -- fuzzing: whatever the input, only DeckLoadError ever escapes the parser ---------------

yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
yaml_values = st.recursive(
    yaml_scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_the_loaders_error(text):
    try:
        parse(text, "fuzz.yaml", [])
    except DeckLoadError as error:
        _assert_located(error, text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_the_loaders_error(data):
    try:
        text = decode(data, "fuzz.yaml")
    except DeckLoadError as error:
        assert error.code in {"binary", "encoding"}
        _assert_located(error, data.decode("utf-8", "replace"))
        return
    assert text == data.decode("utf-8")  # what decodes is the file's text, unchanged
    try:
        parse(text, "fuzz.yaml", [])
    except DeckLoadError as error:
        _assert_located(error, text)


def _assert_located(error: DeckLoadError, text: str) -> None:
    """The error a learner sees names the file and a real place in it, and says something."""
    assert error.path == "fuzz.yaml"
    assert 1 <= error.line <= text.count("\n") + 2 and error.column >= 1
    assert error.message.strip() and "Traceback" not in error.message
    assert error.format().startswith("fuzz.yaml:")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=yaml_values)
def test_arbitrary_yaml_documents_load_without_crashing(tmp_path, value):
    import yaml

    path = tmp_path / "decks" / "fuzz.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(value, allow_unicode=True), encoding="utf-8")
    result = load_deck(path)  # must never raise
    assert result.deck is not None or any(p.is_error for p in result.problems)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cards=st.lists(st.dictionaries(
    st.sampled_from(["id", "type", "front", "back", "text", "statement", "choices", "answer", "feedback",
                     "source", "accept", "tags", "revision", "explanation", "bogus"]),
    yaml_values, max_size=8), max_size=4))
def test_arbitrary_cards_in_a_valid_deck_never_crash(tmp_path, cards):
    import yaml

    head = {"schema": 1, "id": "fuzz", "title": "Fuzz", "seed": "../seed.md", "cards": cards}
    path = write_sample(tmp_path, yaml.safe_dump(head, allow_unicode=True))
    result = load_deck(path)
    assert result.deck is not None
    # A card is kept only when it is whole; every card left out has an error naming its line.
    assert len(result.deck.cards) <= len(cards)
    left_out = len(cards) - len(result.deck.cards)
    errors = [p for p in result.problems if p.is_error]
    assert left_out == 0 or len(errors) >= 1
    assert all(p.line >= 1 and p.path == str(path) for p in result.problems)
    for card in result.deck.cards:
        assert card.type in {"basic", "reverse", "cloze", "choice", "truefalse"} and card.source
