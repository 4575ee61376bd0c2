"""What a valid deck loads as: every field of every card type, the defaults of what is left out,
and where each field was written (the positions messages point at)."""

from pathlib import Path

import pytest

from studyapp.core.loader import SeedCache, content_hash, load_deck, read_seed_file, seed_body
from studyapp.core.models import Card, CardText, Position

SEED = "---\ntitle: t\n---\nThe cache has three layers. The top layer is AOTAutograd. Buckets merge gradients.\n"

MONOLINGUAL = """\
schema: 1
id: values
title: Values
seed: ../seeds/s.md
min_coverage: 80%
cards:
  - {id: b, type: basic, front: How many layers?, back: Three, source: The cache has three layers}
  - {id: r, type: reverse, front: Top layer, back: AOTAutograd, accept: [aot], tags: [x, y], revision: 3,
     source: [The top layer is AOTAutograd, The cache has three layers], explanation: Named after autograd., related: [b]}
  - {id: z, type: cloze, text: "{{c2::Buckets}} merge {{c1::gradients}}", source: Buckets merge gradients}
  - {id: c, type: choice, front: Which merges?, choices: [Buckets, Layers, 3], answer: 3,
     feedback: {Layers: They stack., Buckets: They do.}, source: Buckets merge gradients}
  - {id: t, type: truefalse, statement: Buckets split gradients., answer: true, source: Buckets merge gradients}
"""

BILINGUAL = """\
schema: 2
id: values
title: {zh: "值", en: Values}
description: {zh: "说明", en: About}
languages: [zh, en]
seed: ../seeds/s.md
tags: [t1]
cards:
  - {id: b, type: basic, front: {zh: "几层？", en: How many layers?}, back: {zh: "三", en: Three},
     accept: {zh: ["3"], en: [three, "3"]}, source: The cache has three layers, tags: [t2], revision: 2}
  - {id: c, type: choice, front: {zh: "哪个合并？", en: Which merges?}, choices: [{zh: "桶", en: Buckets}, {zh: "层", en: Layers}],
     answer: "桶", feedback: {"层": {zh: "它们堆叠", en: They stack.}}, explanation: {zh: "桶合并", en: Buckets merge.},
     source: Buckets merge gradients}
  - {id: f, type: choice, front: {zh: "哪个？", en: Which?}, choices: [RDMA, TCP], answer: TCP, feedback: {RDMA: "否定"},
     source: Buckets merge gradients}
  - {id: t, type: truefalse, statement: {zh: "桶分裂梯度", en: Buckets split gradients}, answer: false, source: Buckets merge gradients}
"""


def load(tmp_path: Path, text: str, seed: str = SEED):
    (tmp_path / "seeds").mkdir(exist_ok=True)
    (tmp_path / "decks").mkdir(exist_ok=True)
    (tmp_path / "seeds" / "s.md").write_text(seed, encoding="utf-8")
    path = tmp_path / "decks" / "d.yaml"
    path.write_text(text, encoding="utf-8")
    return load_deck(path)


def P(line, column):
    return Position(line, column)


def test_a_monolingual_deck_loads_every_field_and_the_defaults(tmp_path):
    result = load(tmp_path, MONOLINGUAL)
    assert result.problems == [] and result.card_entries == 5
    deck = result.deck
    assert (deck.id, deck.title, deck.description, deck.tags, deck.position) == ("values", "Values", "", (), P(2, 5))
    assert (deck.path, deck.seed_path) == (tmp_path / "decks" / "d.yaml", (tmp_path / "seeds" / "s.md").resolve())
    assert (deck.languages, deck.language, deck.seed_hash, deck.min_coverage) == ((), "", "", 0.8)
    assert deck.key_positions == {"seed": P(4, 7), "min_coverage": P(5, 15)}
    source = ("Buckets merge gradients",)
    assert list(deck.cards) == [
        # 'related' is made symmetric: r names b, so b names r
        Card("b", "basic", ("The cache has three layers",), P(7, 5), front="How many layers?", back="Three",
             related=("r",)),
        Card("r", "reverse", ("The top layer is AOTAutograd", "The cache has three layers"), P(8, 5), front="Top layer",
             back="AOTAutograd", accept=("aot",), explanation="Named after autograd.", tags=("x", "y"), revision=3,
             related=("b",)),
        Card("z", "cloze", source, P(10, 5), text="{{c2::Buckets}} merge {{c1::gradients}}"),
        Card("c", "choice", source, P(11, 5), front="Which merges?", choices=("Buckets", "Layers", "3"), answer="3",
             feedback={"Layers": "They stack.", "Buckets": "They do."}),
        Card("t", "truefalse", source, P(13, 5), statement="Buckets split gradients.", answer=True),
    ]
    assert all(card.texts == {} and card.language == "" for card in deck.cards)
    b, r, _, c, t = deck.cards
    assert b.field_positions == {"id": P(7, 10), "type": P(7, 19), "front": P(7, 33), "back": P(7, 57), "source": P(7, 72)}
    assert r.field_positions["source"] == P(9, 14) and r.field_positions["related"] == P(9, 119)
    assert c.field_positions["feedback"] == P(12, 16) and t.field_positions["answer"] == P(13, 75)


def test_a_bilingual_deck_loads_every_language(tmp_path):
    result = load(tmp_path, BILINGUAL)
    # the one plain string in Chinese shown to en learners is the only thing to say
    assert [(p.code, p.line, p.column) for p in result.problems] == [("untranslated-text", 14, 111)]
    deck = result.deck
    assert (deck.id, deck.title, deck.description, deck.tags) == ("values", "值", "说明", ("t1",))
    assert (deck.languages, deck.language, deck.min_coverage) == (("zh", "en"), "zh", None)
    assert (deck.path, deck.seed_path) == (tmp_path / "decks" / "d.yaml", (tmp_path / "seeds" / "s.md").resolve())
    assert (deck.position, deck.seed_hash) == (P(2, 5), "")
    assert (deck.titles, deck.descriptions) == ({"zh": "值", "en": "Values"}, {"zh": "说明", "en": "About"})
    assert deck.key_positions == {"seed": P(6, 7)}
    b, c, f, t = deck.cards
    assert b == Card("b", "basic", ("The cache has three layers",), P(9, 5), front="几层？", back="三", accept=("3",),
                     tags=("t2",), revision=2, language="zh")
    assert b.field_positions == {"id": P(9, 10), "type": P(9, 19), "front": P(9, 33), "back": P(9, 74), "accept": P(10, 14),
                                 "source": P(10, 53), "tags": P(10, 87), "revision": P(10, 103)}
    assert b.texts == {"zh": CardText(front="几层？", back="三", accept=("3",)),
                       "en": CardText(front="How many layers?", back="Three", accept=("three", "3"))}
    # the answer and the feedback are written in the primary language; each language gets its own option's text
    assert c == Card("c", "choice", ("Buckets merge gradients",), P(11, 5), front="哪个合并？", choices=("桶", "层"),
                     answer="桶", feedback={"层": "它们堆叠"}, explanation="桶合并", language="zh")
    assert c.texts["en"] == CardText(front="Which merges?", choices=("Buckets", "Layers"), answer="Buckets",
                                     feedback={"Layers": "They stack."}, explanation="Buckets merge.")
    # plain options and feedback are the same in every language
    assert f.texts["en"] == CardText(front="Which?", choices=("RDMA", "TCP"), answer="TCP", feedback={"RDMA": "否定"})
    assert (t.statement, t.answer) == ("桶分裂梯度", False)
    # the fields a type does not have are empty in every language
    assert t.texts == {"zh": CardText(statement="桶分裂梯度", answer=False),
                       "en": CardText(statement="Buckets split gradients", answer=False)}
    assert [card.in_language("en").front for card in (b, c)] == ["How many layers?", "Which merges?"]


def test_an_untitled_deck_is_titled_by_its_id(tmp_path):
    result = load(tmp_path, MONOLINGUAL.replace("title: Values\n", ""))
    assert (result.deck.title, result.deck.description) == ("values", "")
    bilingual = load(tmp_path, BILINGUAL.replace('title: {zh: "值", en: Values}\n', "").replace(
        'description: {zh: "说明", en: About}\n', ""))
    assert (bilingual.deck.titles, bilingual.deck.descriptions) == ({"zh": "values", "en": "values"}, {"zh": "", "en": ""})


def test_a_card_with_an_error_is_left_out_and_the_rest_of_the_deck_kept(tmp_path):
    result = load(tmp_path, MONOLINGUAL.replace("revision: 3", "revision: 0").replace("answer: true", "answer: maybe"))
    assert [(p.code, p.line) for p in result.problems] == [("wrong-type", 8), ("wrong-type", 13)]
    assert [card.id for card in result.deck.cards] == ["b", "z", "c"]
    assert result.card_entries == 5
    # r, left out, named b: b keeps no relation to a card that is not there
    assert result.deck.cards[0].related == ()


def test_a_relation_to_a_card_left_out_for_its_errors_is_not_unknown(tmp_path):
    text = MONOLINGUAL.replace("related: [b]", "related: [t]").replace("answer: true", "answer: maybe")
    result = load(tmp_path, text)
    assert [p.code for p in result.problems] == ["wrong-type"]
    assert {card.id: card.related for card in result.deck.cards}["r"] == ()


def test_a_recorded_seed_hash_that_matches_is_kept_without_a_word(tmp_path):
    recorded = content_hash(SEED)
    result = load(tmp_path, MONOLINGUAL.replace("min_coverage: 80%\n", f"seed_hash: {recorded}\n"))
    assert result.problems == []
    assert result.deck.seed_hash == recorded and result.deck.key_positions["seed_hash"] == P(5, 12)


def test_a_stale_hash_judges_quotes_only_against_the_changed_seed(tmp_path):
    stale = "sha256:" + "0" * 64
    # the quote is verbatim: only the hash is reported, no quote
    result = load(tmp_path, MONOLINGUAL.replace("min_coverage: 80%\n", f"seed_hash: {stale}\n"))
    assert [(p.code, p.line) for p in result.problems] == [("source-changed", 5)]
    assert result.deck.seed_hash == stale


def test_a_seed_hash_is_the_sha256_of_the_whole_file_as_sha256sum_prints_it():
    assert content_hash("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.parametrize(("text", "body"), [
    ("---\ntitle: t\n---\nBody\n", "Body\n"),
    ("---\ntitle: t\n---\n", ""),
    ("---\ntitle: t\nBody\n", "---\ntitle: t\nBody\n"),  # never closed: no front matter
    ("Body\n---\nx\n---\n", "Body\n---\nx\n---\n"),  # front matter only at the very start
    ("---\n---\nBody", "---\n---\nBody"),  # the closing line is looked for after the opening one
    ("---\n\n---\nBody", "Body"),  # an empty front matter
    ("---\nx\n---\n---\ny\n---\nBody", "---\ny\n---\nBody"),  # the first closing line ends it
])
def test_a_seeds_front_matter_is_left_out_of_its_body(text, body):
    assert seed_body(text) == body


def test_the_seed_cache_reads_each_file_once_and_remembers_why_it_could_not(tmp_path):
    seed = tmp_path / "s.md"
    seed.write_text("---\nt: 1\n---\nBody", encoding="utf-8")
    cache = SeedCache()
    assert cache.hash(seed) is None  # not read yet
    assert cache.text(seed) == "Body"
    assert cache.hash(seed) == content_hash("---\nt: 1\n---\nBody")
    seed.write_text("changed", encoding="utf-8")
    assert cache.read(seed) == "Body"
    missing = tmp_path / "none.md"
    assert cache.text(missing) is None
    missing.write_text("now here", encoding="utf-8")
    assert cache.text(missing) is None
    assert cache.hash(missing) is None


def test_a_seed_read_in_chunks_is_read_whole(tmp_path):
    seed = tmp_path / "s.md"
    text = "é" * (3 << 20)  # 6 MB of two-byte characters: several reads of 1 MB, some splitting a character
    seed.write_text(text, encoding="utf-8")
    assert read_seed_file(seed) == text


@pytest.mark.parametrize(("question", "answer", "leaks"), [
    ("What does the cache hold?", "cache", True),
    ("What does the CACHE hold?", "the Cache", True),  # case and punctuation aside
    ("What is cache_size for?", "cache", False),  # an underscore joins words: cache_size is one word
    ("What is size_cache for?", "cache", False),
    ("What does the cacheline hold?", "cache", False),
    ("Is it a cache, or not?", "cache", True),
    ("Is it a or b?", "a", False),  # one letter is too short to be looked for
    ("Which is 42?", "42", True),
    ("caches cache", "cache", True),  # a partial occurrence, then a whole one
    ("the cache holds caches", "cache", True),  # a whole one, then a partial one
    ("caches cache caches", "cache", True),  # a whole one between two partial ones
])
def test_an_answer_leaks_into_its_question_only_as_whole_words(question, answer, leaks):
    from studyapp.core.loader import _contains_phrase

    assert _contains_phrase(question, answer) is leaks


def test_a_quote_of_a_markdown_seed_matches_it_as_it_reads_or_as_it_is_written(tmp_path):
    (tmp_path / "seeds").mkdir()
    (tmp_path / "decks").mkdir()
    (tmp_path / "seeds" / "s.md").write_text("Multiply with `2*x*y` in **bold** code.\n", encoding="utf-8")
    deck = ("schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\ncards:\n"
            "  - {id: a, type: basic, front: How?, back: This, source: ['2*x*y', in bold code, 'in **bold** code']}\n")
    (tmp_path / "decks" / "d.yaml").write_text(deck, encoding="utf-8")
    # '2*x*y' reads as it is written in the code span, though as Markdown of its own it would read '2xy'
    assert load_deck(tmp_path / "decks" / "d.yaml").problems == []
    # as it reads only: the code span's text and the bold word, without their markup
    (tmp_path / "decks" / "d.yaml").write_text(deck.replace("source: [", "source: ['2*x*y in bold code', "), encoding="utf-8")
    assert load_deck(tmp_path / "decks" / "d.yaml").problems == []
    (tmp_path / "seeds" / "s.txt").write_text("Multiply with `2*x*y` in **bold** code.\n", encoding="utf-8")
    (tmp_path / "decks" / "d.yaml").write_text(deck.replace("s.md", "s.txt"), encoding="utf-8")
    # a plain-text seed is matched as it is written only
    assert [p.message for p in load_deck(tmp_path / "decks" / "d.yaml").problems] == [
        "source quote 'in bold code' is not verbatim in the seed; the closest passage is '*bold** code.\\n'; "
        "copy it character for character"]


def test_a_quote_of_an_empty_seed_has_no_closest_passage(tmp_path):
    result = load(tmp_path, MONOLINGUAL, seed="")
    assert {p.message for p in result.problems if p.code == "source-not-in-seed"} == {
        f"source quote {quote!r} is not verbatim in the seed; the closest passage is ''; copy it character for character"
        for quote in ("The cache has three layers", "The top layer is AOTAutograd", "Buckets merge gradients")}


@pytest.mark.parametrize(("quote", "seed", "closest"), [
    # the passage the quote's longest common stretch aligns it with, four characters longer than the quote
    ("Alpha betX", "Alpha beta. Alpha beta gamma.", "Alpha beta. Al"),
    # the stretch starts inside the quote: the passage starts that much before it in the seed
    ("Zz Alpha betX", "Alpha beta. Alpha beta gamma. more text here", "a. Alpha beta gam"),
    ("Zz Alpha betX", "Alpha beta gamma", "Alpha beta gamma"),  # not before the seed's start
])
def test_the_closest_passage_is_aligned_on_the_longest_common_stretch(quote, seed, closest):
    from studyapp.core.loader import _closest_passage

    assert _closest_passage(quote, seed) == closest


def test_the_closest_passage_of_a_long_quote_is_where_it_came_from():
    from studyapp.core.loader import _closest_passage

    intro = "Scheduling: these are notes on memory. "
    body = ("The scheduler reads every review of a card, oldest first, and estimates its memory state from them; then "
            "it picks the interval at which the chance of recalling the card falls to the desired retention, and rounds "
            "it to whole days. ")
    quote = body.replace("oldest first", "newest last").strip()
    assert len(quote) >= 200  # where difflib's "popular characters" heuristic would apply, and is turned off
    # aligned on the stretch after the reworded phrase, which is one character shorter
    start = len(intro) + 1
    assert _closest_passage(quote, intro + body + "Buckets merge gradients.") == (
        intro + body + "Buckets merge gradients.")[start:start + len(quote) + 4]


def test_a_seed_that_grows_past_its_limit_while_read_is_refused():
    # a /proc file says it holds 0 bytes and then gives more: what is read counts, not what was said
    from studyapp.core.loader import SeedUnreadable

    status = Path("/proc/self/status")
    with pytest.raises(SeedUnreadable) as caught:
        read_seed_file(status, max_bytes=10)
    assert str(caught.value) == "it grew past the 10 bytes a source document may be"
    whole = read_seed_file(status)
    assert whole.startswith("Name:") and len(whole.encode()) > 100
    assert read_seed_file(status, max_bytes=len(whole.encode()) + 64).startswith("Name:")


@pytest.mark.parametrize(("cards", "entries", "loaded"), [
    ("", 0, 0),  # no 'cards' at all
    ("cards: {a: 1}\n", 0, 0),  # not a list
    ("cards: []\n", 0, 0),
    ("cards:\n  - 1\n  - {id: a, type: basic, front: Q?, back: A}\n", 2, 1),
])
def test_every_entry_under_cards_is_counted_loaded_or_not(tmp_path, cards, entries, loaded):
    result = load(tmp_path, "schema: 1\nid: d\ntitle: D\n" + cards)
    assert (result.card_entries, len(result.deck.cards)) == (entries, loaded)


def test_a_title_mapping_with_a_wrong_language_is_not_used(tmp_path):
    result = load(tmp_path, BILINGUAL.replace('title: {zh: "值", en: Values}', 'title: {zh: "值", en: Values, fr: Valeurs}'))
    assert [(p.code, p.line) for p in result.problems if p.is_error] == [("unknown-language", 3)]
    assert result.deck.titles == {"zh": "values", "en": "values"}  # the id stands in, as with no title


def test_a_long_quote_reworded_in_a_changed_seed_has_moved(tmp_path):
    # over 200 characters, where difflib's "popular characters" heuristic (turned off) would score it 0.23
    body = ("The scheduler reads every review of a card, oldest first, and estimates its memory state from them; then "
            "it picks the interval at which the chance of recalling the card falls to the desired retention, and rounds "
            "it to whole days.")
    quote = body.replace("oldest first", "newest last")
    deck = ("schema: 1\nid: d\ntitle: D\nseed: ../seeds/s.md\nseed_hash: sha256:" + "0" * 64 + "\ncards:\n"
            f"  - {{id: a, type: basic, front: How?, back: This, source: '{quote}'}}\n")
    result = load(tmp_path, deck, seed="Scheduling: these are notes on memory. " + body + " Buckets merge gradients.\n")
    assert [p.code for p in result.problems] == ["quote-moved", "source-changed"]


def test_a_bilingual_cloze_card_has_only_its_text_in_each_language(tmp_path):
    deck = BILINGUAL.split("cards:\n")[0] + (
        'cards:\n  - {id: z, type: cloze, text: {zh: "{{c1::桶}}合并梯度", en: "{{c1::Buckets}} merge gradients"},'
        ' source: Buckets merge gradients}\n')
    [card] = load(tmp_path, deck).deck.cards
    assert card.texts == {"zh": CardText(text="{{c1::桶}}合并梯度"), "en": CardText(text="{{c1::Buckets}} merge gradients")}
    assert (card.text, card.front, card.back, card.statement, card.answer) == ("{{c1::桶}}合并梯度", "", "", "", None)


@pytest.mark.parametrize("written", ["[abc]", "abc", "sha256:ABC"])
def test_a_seed_hash_that_is_not_one_is_not_recorded(tmp_path, written):
    result = load(tmp_path, MONOLINGUAL.replace("min_coverage: 80%\n", f"seed_hash: {written}\n"))
    assert [p.code for p in result.problems] in (["wrong-type"], ["bad-seed-hash"])
    assert result.deck.seed_hash == ""


def test_a_seed_that_cannot_be_opened_or_read_says_why_in_the_systems_words(tmp_path, monkeypatch):
    import errno
    import os

    from studyapp.core.loader import SeedUnreadable

    with pytest.raises(SeedUnreadable) as caught:
        read_seed_file(tmp_path / "missing.md")
    assert str(caught.value) == "No such file or directory"
    seed = tmp_path / "s.md"
    seed.write_text("text", encoding="utf-8")

    def failing_read(fd, size):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "read", failing_read)  # a disk error mid-read
    with pytest.raises(SeedUnreadable) as caught:
        read_seed_file(seed)
    assert str(caught.value) == "Input/output error"


def test_a_load_result_names_its_file_loaded_or_not(tmp_path):
    good = load(tmp_path, MONOLINGUAL)
    assert good.path == tmp_path / "decks" / "d.yaml"
    (tmp_path / "decks" / "bad.yaml").write_text("[unclosed\n", encoding="utf-8")
    bad = load_deck(tmp_path / "decks" / "bad.yaml")
    assert (bad.path, bad.deck) == (tmp_path / "decks" / "bad.yaml", None)


def test_a_file_that_cannot_be_read_raises_an_error_naming_it(tmp_path):
    from studyapp.core.problems import DeckLoadError
    from studyapp.core.yamlsafe import read_text

    for path, why in ((tmp_path / "none.yaml", "No such file or directory"), (tmp_path, "Is a directory")):
        with pytest.raises(DeckLoadError) as caught:
            read_text(path)
        assert caught.value.format() == f"{path}:1:1: error: cannot read the file: {why} [unreadable]"
