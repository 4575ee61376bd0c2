"""A deck's sync rows from the compiled pass (core/_speedups.c deck_rows) against the Python
reference (models._deck_rows_python): every card type, links, ids beyond ASCII, revisions of
every size; and the fingerprint the store keeps is the same whichever made it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from studyapp.core import models
from studyapp.core.models import MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS, Card, Deck

compiled = models._compiled_rows


def card(index: int, kind: str, *, revision: int = 1, related: tuple[str, ...] = (), card_id: str | None = None) -> Card:
    fields = {"basic": {"front": "Q", "back": "A"}, "reverse": {"front": "Q", "back": "A"},
              "cloze": {"text": "{{c1::a}} and {{c3::b}} and {{c2::c}}"},
              "truefalse": {"statement": "S", "answer": True}, "choice": {"front": "Q", "choices": ("x", "y"),
                                                                           "answer": "x"}}[kind]
    return Card(id=card_id or f"c{index}", type=kind, source=("s",), revision=revision, related=related, **fields)


def test_the_install_compiled_the_deck_rows():
    assert compiled is not None, "core/_speedups.c was not compiled: install a C compiler and reinstall"


def rows_both_ways(cards: tuple[Card, ...], prefix: str = "deck/") -> tuple[tuple[str, bool], tuple[str, bool]]:
    data, linked = compiled(cards, prefix, MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)
    return (data.decode(), linked), models._deck_rows_python(cards, prefix)


def test_every_type_gives_the_reference_rows():
    cards = tuple(card(i, kind, revision=i % 4 + 1) for i, kind in
                  enumerate(["basic", "reverse", "cloze", "truefalse", "choice"] * 3))
    ours, reference = rows_both_ways(cards)
    assert ours == reference
    rows = ours[0].split("\x1e")
    assert rows[1] == "deck/c1/forward\x1f2\x1f1000" and rows[2] == "deck/c1/backward\x1f2\x1f1001"
    assert [row.split("\x1f")[0] for row in rows[3:6]] == ["deck/c2/c1", "deck/c2/c2", "deck/c2/c3"]
    assert ours[1] is False


@pytest.mark.parametrize("cards", [(), (card(0, "basic"),), (card(0, "basic", related=("c9",)),)])
def test_empty_single_and_linked_decks(cards):
    ours, reference = rows_both_ways(cards)
    assert ours == reference
    assert ours[1] is bool(cards and cards[0].related)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["basic", "reverse", "cloze", "truefalse"]),
                          st.integers(-2 ** 70, 2 ** 70), st.booleans(),
                          st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)),
                max_size=40),
       st.text(st.characters(blacklist_categories=("Cs",)), max_size=6))
def test_any_ids_and_revisions_give_the_reference_rows(spec, prefix):
    cards = tuple(card(i, kind, revision=revision, related=("x",) if linked else (), card_id=card_id)
                  for i, (kind, revision, linked, card_id) in enumerate(spec))
    ours, reference = rows_both_ways(cards, prefix)
    assert ours == reference


def test_the_fingerprint_is_the_same_from_either(monkeypatch):
    cards = tuple(card(i, kind) for i, kind in enumerate(["basic", "reverse", "cloze"] * 50))
    deck = Deck(id="d", title="D", path=Path("/d.yaml"), seed_path=Path("/s.md"), cards=cards)
    models._DECK_VIEWS.clear()
    fast = (models.sync_rows(deck), models.sync_fingerprint(deck), models.has_links(deck))
    models._DECK_VIEWS.clear()
    monkeypatch.setattr(models, "_compiled_rows", None)
    slow = (models.sync_rows(deck), models.sync_fingerprint(deck), models.has_links(deck))
    models._DECK_VIEWS.clear()
    assert fast == slow
    assert models._deck_view(deck)[1].startswith(f"{models.SYNC_VERSION}:")


def test_a_card_without_the_fields_is_an_error_not_a_crash():
    with pytest.raises(AttributeError):
        compiled((object(),), "d/", MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)
    with pytest.raises(TypeError):
        compiled(5, "d/", MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)


class _Renamed(Card):
    """A subclass whose id is a property: the compiled pass must read it as Python does."""

    __slots__ = ()

    @property
    def id(self):  # noqa: A003 - the attribute the pass reads
        return "renamed-" + object.__getattribute__(self, "type")


class _Plain:
    """Not a Card at all: attributes in an instance dict, variants from a method."""

    def __init__(self, index: int, kind: str) -> None:
        self.id, self.type, self.revision, self.related = f"p{index}", kind, index, ()

    def variants(self):
        return ["forward", "backward"] if self.type == "reverse" else [MAIN]


class _Watched(Card):
    """A subclass that answers every attribute through __getattribute__ of its own."""

    __slots__ = ()

    def __getattribute__(self, name):
        value = super().__getattribute__(name)
        return value + 1 if name == "revision" else value


def _as(cls, original: Card):
    """``original``'s fields in an instance of ``cls`` (a subclass), set slot by slot."""
    from dataclasses import fields

    made = object.__new__(cls)
    for field in fields(Card):
        Card.__dict__[field.name].__set__(made, getattr(original, field.name))
    return made


def test_cards_of_other_classes_read_their_attributes_as_python_does():
    plain = card(0, "basic")
    renamed = _as(_Renamed, card(1, "basic", revision=3))
    watched = _Watched(id="w", type="reverse", source=("s",), front="Q", back="A", revision=7, related=("c1",))
    cards = (plain, renamed, _Plain(2, "reverse"), watched, card(4, "cloze"), renamed, plain)
    ours, reference = rows_both_ways(cards)
    assert ours == reference
    rows = ours[0].split("\x1e")
    assert rows[1] == "deck/renamed-basic/main\x1f3\x1f1000"  # the property, not the slot
    assert rows[4].startswith("deck/w/forward\x1f8\x1f")  # its own __getattribute__ is asked
    assert ours[1] is True


def test_an_empty_slot_raises_as_python_does():
    broken = object.__new__(Card)  # no field set: every slot empty
    with pytest.raises(AttributeError):
        models._deck_rows_python((broken,), "deck/")
    with pytest.raises(AttributeError):
        compiled((broken,), "deck/", MAIN, MULTI_VARIANT_TYPES, VARIANT_SLOTS)


def test_a_decks_kept_view_does_not_keep_the_deck_alive():
    import gc
    import weakref

    deck = Deck(id="kept", title="Kept", path=Path("/d/kept.yaml"), seed_path=None,
                cards=tuple(card(i, "basic") for i in range(50)))
    first = models.sync_rows(deck)
    assert models.sync_rows(deck) is first  # kept while the deck lives: no second pass
    gone = weakref.ref(deck)
    del deck
    gc.collect()
    assert gone() is None  # the view held it only weakly...
    assert not any(ref() is None for ref, _ in models._DECK_VIEWS.values())  # ...and left with it
