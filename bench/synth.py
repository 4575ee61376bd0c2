"""Synthetic banks for the benchmarks: realistic card mixes of any size, written as real deck files."""

from __future__ import annotations

import random
from pathlib import Path

SEED_TEXT = "这是一段用于基准测试的种子文本。The cache has three layers. 第{n}段。"


def synth_cards(count: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    cards = []
    for i in range(count):
        kind = ("basic", "reverse", "cloze", "choice", "truefalse")[i % 5]
        word = f"term{rng.randrange(10**6)}"
        card: dict = {"id": f"card-{i}", "type": kind, "source": "The cache has three layers",
                      "explanation": f"Explanation {i}: the answer follows from the passage about {word}.",
                      "tags": ["bench", kind]}
        if kind in ("basic", "reverse"):
            card.update(front=f"In the benchmark document, what is fact number {i} about {word}?", back=f"Answer {i} {word}",
                        accept=[f"answer {i}"])
        elif kind == "cloze":
            card["text"] = f"Fact {i}: the {{{{c1::{word}}}}} sits in the {{{{c2::layer {i % 3}}}}} of the cache."
        elif kind == "choice":
            options = [f"Option {i}-{k} {word}" for k in range(4)]
            card.update(front=f"In the benchmark document, which option is right for question {i}?", choices=options,
                        answer=options[i % 4], feedback={options[(i + 1) % 4]: "Tempting, but wrong."})
        else:
            card.update(statement=f"In the benchmark document, statement {i} about {word} holds.", answer=bool(i % 2))
        cards.append(card)
    return cards


def write_bank(folder: Path, count: int, decks: int = 1, seed: int = 0) -> list[Path]:
    """Write ``count`` cards split over ``decks`` deck files under folder/decks, with their seed."""
    import yaml

    (folder / "decks").mkdir(parents=True, exist_ok=True)
    (folder / "seeds").mkdir(exist_ok=True)
    (folder / "seeds" / "bench.md").write_text("---\ntitle: Bench\n---\n" + SEED_TEXT, encoding="utf-8")
    cards = synth_cards(count, seed)
    per_deck = -(-count // decks)
    paths = []
    for d in range(decks):
        chunk = cards[d * per_deck:(d + 1) * per_deck]
        document = {"schema": 1, "id": f"bench-{d}", "title": f"Bench deck {d}", "seed": "../seeds/bench.md",
                    "tags": ["bench"], "cards": chunk}
        path = folder / "decks" / f"bench-{d}.yaml"
        path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
        paths.append(path)
    return paths
