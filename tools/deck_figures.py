"""Per-deck figures for a folder of banks: cards, items, the share of cards that ask to compare, explain
or predict, and the true/false share.

    python tools/deck_figures.py [FOLDER]        (default: the bundled decks/)

The compare/why/predict share is measured two ways: what the deck's header comment claims
(the writer's own classification, "compare/why/predict: N of M"), and a keyword count over
each card's Chinese and English question (为什么/比较/区别/如果/why/compare/differ/if...),
which is a floor: a card can ask for a reason without these words.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from studyapp.core.catalog import deck_files  # noqa: E402
from studyapp.core.loader import load_deck  # noqa: E402

REASONING = re.compile(
    r"为什么|为何|比较|相比|区别|不同|如果|假如|会怎样|会发生|预测|而不是|取舍|原因|"
    r"\bwhy\b|\bcompare|\bdiffer|\bdifference|\bif\b|\bwould\b|\bpredict|rather than|instead of|\bversus\b|"
    r"\btrade-?off|\bunlike\b|\breason\b|\bexplain",
    re.IGNORECASE)
CLAIM = re.compile(r"compare/why/predict[^:]*:\s*(\d+)\s*of\s*(\d+)")


def figures(path: Path) -> dict:
    deck = load_deck(path).deck
    text = path.read_text(encoding="utf-8")
    claim = CLAIM.search(text)
    cards = len(deck.cards)
    reasoning = sum(1 for card in deck.cards
                    if any(REASONING.search(wording.question) for wording in (card, card.in_language("en"))))
    return {"deck": deck.id, "cards": cards, "items": len(deck.items()),
            "claimed": int(claim.group(1)) if claim else None, "keyword": reasoning,
            "truefalse": sum(card.type == "truefalse" for card in deck.cards)}


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "decks"
    rows = [figures(path) for path in deck_files(folder)]
    print("| deck | cards | items | compare/why/predict (header) | (keywords) | true/false |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in [*rows, {"deck": "all", **{key: sum(r[key] or 0 for r in rows) for key in ("cards", "items", "claimed", "keyword", "truefalse")}}]:
        share = lambda n: f"{n} ({n / row['cards']:.0%})"  # noqa: E731
        claimed = share(row["claimed"]) if row["claimed"] is not None else "-"
        print(f"| {row['deck']} | {row['cards']} | {row['items']} | {claimed} | {share(row['keyword'])} | {share(row['truefalse'])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
