"""The bundled banks: clean under `check`, one per seed, seeds unchanged from their origin."""

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.loader import seed_body

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"

# sha256 of the original text files (../shared/seeds/NN-*.txt): the seeds keep them byte for byte.
ORIGIN_SHA256 = {
    "01-pytorch-mega-cache": "faecc66f4e616635492779dfe05b2c6c5df869951217cc9c6ec79700f4928a73",
    "02-pytorch-ddp-gradient-sync": "34ee0347d9c155b7bfb402c878818d698b1b8a4f8ea9073c6289cb4a32dd6abc",
    "03-minimalist-llm-reasoning": "5e788288aa07c5f4245a731c26741c258f9772552721cff1466a75c2e2f2b57c",
    "04-qwen3-training": "7aab23ed0e3b297860210316985e75df97273c161cb41caa9e082326dd32d44a",
    "05-llm-inference-optimization": "4986c5125143d3a3e62f6d9fea7bb79a235590f83c73c96aa082dbd4c8a87f1d",
    "06-efficient-llm-inference-survey": "f7379e2a038fea86c96b07e36bdab4c24174709146ac5dcaad6d15730d2b0d28",
    "07-memo-activation-memory": "a9a9303736da83c4fad3999c63ad108b2152cb3beb18cc781ec40e4de20d645d",
    "08-3fs-file-system": "569932cc003245c9ba7d57db7366b5b2f251b1a9dc86d8feb3dac13597c8c1a3",
}


@pytest.fixture(scope="module")
def catalog():
    return load_paths([bundled_decks_dir()])


def test_bundled_decks_have_no_problems(catalog):
    assert [p.format() for p in catalog.problems] == []
    assert len(catalog.decks) == 8


def test_the_set_meets_the_issue_14_targets(catalog):
    cards = [card for deck in catalog.decks for card in deck.cards]
    assert 110 <= len(cards) <= 140, len(cards)
    truefalse = sum(card.type == "truefalse" for card in cards)
    assert truefalse <= 0.15 * len(cards), truefalse


@pytest.mark.parametrize("stem", sorted(ORIGIN_SHA256))
def test_seed_text_is_the_origin_byte_for_byte(stem):
    raw = (SEEDS / f"{stem}.md").read_text(encoding="utf-8")
    assert raw.startswith("---\ntitle: ")
    assert "\nlanguage: zh\n" in raw.split("\n---\n", 1)[0]
    body = seed_body(raw).encode("utf-8")
    assert hashlib.sha256(body).hexdigest() == ORIGIN_SHA256[stem]


def test_every_seed_has_exactly_one_deck_and_every_deck_a_seed(catalog):
    seeds = sorted(p.resolve() for p in SEEDS.glob("*.md"))
    used = Counter(deck.seed_path.resolve() for deck in catalog.decks)
    assert sorted(used) == seeds
    assert set(used.values()) == {1}


@pytest.mark.parametrize("index", range(8))
def test_each_deck_meets_the_bank_rules(catalog, index):
    deck = catalog.decks[index]
    types = Counter(card.type for card in deck.cards)
    assert len(deck.cards) >= 12, deck.id
    assert len(types) >= 4, (deck.id, types)
    for card in deck.cards:
        assert card.source, card.id
        if card.type in ("choice", "truefalse"):
            assert card.explanation, f"{deck.id}/{card.id} needs an explanation"
        if card.type == "choice":
            assert card.feedback, f"{deck.id}/{card.id} needs feedback for a tempting wrong option"
            assert 3 <= len(card.choices) <= 5, f"{deck.id}/{card.id}"
        if card.type == "cloze":
            assert 1 <= len(card.cloze_numbers()) <= 3, f"{deck.id}/{card.id}"
        # Chinese first, every text also in English: the English wording may keep a short original
        # term in brackets, not a Chinese question; the Chinese one is Chinese (a reverse card's
        # front may be a term kept in English, such as RDMA).
        english = card.in_language("en")
        letters = [ch for ch in english.question if ch.isalpha()]
        cjk = [ch for ch in letters if "\u4e00" <= ch <= "\u9fff"]
        assert len(cjk) <= 0.1 * len(letters), f"{deck.id}/{card.id}: its English text should be English"
        if card.type != "reverse":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in card.question), f"{deck.id}/{card.id}: no Chinese question"


@pytest.mark.parametrize("index", range(8))
def test_each_deck_is_chinese_first_and_english_too(catalog, index):
    deck = catalog.decks[index]
    assert deck.languages == ("zh", "en") and deck.language == "zh", deck.id
    assert set(deck.titles) == {"zh", "en"} and all(deck.titles.values()), deck.id
