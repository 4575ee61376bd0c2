"""The deck cache only ever changes speed: edits to a deck or its seed are always seen."""

import os
import pickle

from studyapp.core.catalog import discover, load_paths
from studyapp.core.deckcache import CACHE_FORMAT, DeckCache

DECK = "schema: 1\nid: d\ntitle: D\nseed: ../seed.md\ncards:\n  - {id: a, type: basic, front: What is first?, back: alpha, source: alpha}\n"


def setup_folder(tmp_path):
    (tmp_path / "seed.md").write_text("alpha beta", encoding="utf-8")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "d.yaml").write_text(DECK, encoding="utf-8")
    return tmp_path / "decks", tmp_path / "cache.pickle"


def bump_mtime(path):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_second_load_comes_from_the_cache(tmp_path, monkeypatch):
    folder, cache_file = setup_folder(tmp_path)
    first = load_paths([folder], DeckCache(cache_file))
    assert cache_file.exists()
    import studyapp.core.loader as loader

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed although nothing changed")

    monkeypatch.setattr(loader, "load_deck", no_parsing)
    second = load_paths([folder], DeckCache(cache_file))
    assert second.decks == first.decks


def test_an_edited_deck_is_loaded_again(tmp_path):
    folder, cache_file = setup_folder(tmp_path)
    load_paths([folder], DeckCache(cache_file))
    (folder / "d.yaml").write_text(DECK.replace("What is first?", "Which word comes first?"), encoding="utf-8")
    bump_mtime(folder / "d.yaml")
    deck = load_paths([folder], DeckCache(cache_file)).decks[0]
    assert deck.cards[0].front == "Which word comes first?"


def test_an_edited_seed_is_checked_again(tmp_path):
    folder, cache_file = setup_folder(tmp_path)
    assert load_paths([folder], DeckCache(cache_file)).problems == []
    (tmp_path / "seed.md").write_text("beta gamma", encoding="utf-8")
    bump_mtime(tmp_path / "seed.md")
    problems = load_paths([folder], DeckCache(cache_file)).problems
    assert [p.code for p in problems] == ["source-not-in-seed"]


def test_problems_are_cached_too(tmp_path):
    folder, cache_file = setup_folder(tmp_path)
    (folder / "d.yaml").write_text(DECK.replace("back:", "bakc:"), encoding="utf-8")
    first = load_paths([folder], DeckCache(cache_file)).problems
    second = load_paths([folder], DeckCache(cache_file)).problems
    assert first == second and {p.code for p in second} == {"unknown-key", "missing-field"}


def test_a_corrupt_cache_is_ignored_and_rebuilt(tmp_path):
    folder, cache_file = setup_folder(tmp_path)
    cache_file.write_bytes(b"not a pickle at all")
    assert [d.id for d in load_paths([folder], DeckCache(cache_file)).decks] == ["d"]
    assert pickle.loads(cache_file.read_bytes())["format"] == CACHE_FORMAT


def test_an_unwritable_cache_location_changes_nothing(tmp_path):
    folder, _ = setup_folder(tmp_path)
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    catalog = load_paths([folder], DeckCache(blocker / "cache.pickle"))
    assert [d.id for d in catalog.decks] == ["d"]


def test_discover_uses_the_cache_file(tmp_path):
    folder, cache_file = setup_folder(tmp_path)
    catalog = discover([folder], cache_file=cache_file)
    assert "d" in [d.id for d in catalog.decks] and cache_file.exists()


def test_a_cached_deck_comes_back_field_for_field_with_its_positions(tmp_path):
    import dataclasses
    import gc

    folder, cache_file = setup_folder(tmp_path)
    (folder / "d.yaml").write_text(
        DECK + "  - {id: b, type: choice, front: Which?, choices: [alpha, beta], answer: alpha,"
        " feedback: {beta: no}, source: [alpha, beta], tags: [x, y], bogus: 1}\n", encoding="utf-8")
    first = load_paths([folder], DeckCache(cache_file))
    gc.disable()
    try:
        second = load_paths([folder], DeckCache(cache_file))
        assert not gc.isenabled()  # the cache leaves the collector as it found it
    finally:
        gc.enable()
    third = load_paths([folder], DeckCache(cache_file))
    assert gc.isenabled()
    for catalog in (second, third):
        assert catalog.problems == first.problems and catalog.problems
        [deck] = catalog.decks
        assert deck.position == first.decks[0].position and deck.seed_path == first.decks[0].seed_path
        for card, original in zip(deck.cards, first.decks[0].cards, strict=True):
            for name in (f.name for f in dataclasses.fields(card)):
                assert getattr(card, name) == getattr(original, name), name
            assert card.field_positions and all(type(p).__name__ == "Position" for p in card.field_positions.values())


def test_a_cached_bilingual_deck_keeps_its_languages_texts_and_relations(tmp_path):
    import dataclasses

    folder, cache_file = setup_folder(tmp_path)
    (folder / "d.yaml").write_text(
        "schema: 2\nid: d\ntitle: {zh: 甲, en: D}\nlanguages: [zh, en]\nseed: ../seed.md\ncards:\n"
        "  - {id: a, type: basic, front: {zh: 第一个是什么？, en: What is first?}, back: alpha, source: alpha, related: [b]}\n"
        "  - {id: b, type: choice, front: {zh: 哪个？, en: Which?}, choices: [alpha, {zh: 贝塔, en: beta}], answer: alpha,"
        " feedback: {贝塔: {zh: 不是, en: not it}}, source: beta}\n", encoding="utf-8")
    first = load_paths([folder], DeckCache(cache_file))
    second = load_paths([folder], DeckCache(cache_file))
    [deck] = second.decks
    original = first.decks[0]
    assert (deck.languages, deck.titles, deck.language) == (("zh", "en"), {"zh": "甲", "en": "D"}, "zh")
    for card, before in zip(deck.cards, original.cards, strict=True):
        for name in (f.name for f in dataclasses.fields(card)):
            assert getattr(card, name) == getattr(before, name), name
    assert deck.card("b").related == ("a",)
    assert deck.in_language("en").card("b").feedback == {"beta": "not it"}


def test_a_cache_of_the_previous_format_is_not_read(tmp_path):
    from studyapp import __version__

    folder, cache_file = setup_folder(tmp_path)
    with open(cache_file, "wb") as f:
        pickle.dump({"format": 1, "version": __version__, "entries": {str(folder / "d.yaml"): "stale"}}, f)
    assert DeckCache(cache_file).entries == {}
