"""``studyapp stats [DECK...] [--json]``: progress per deck, from the learner's database."""

from __future__ import annotations

import json

from ..core.retention import SPANS, TrueRetention, spans_json
from ..store.summary import deck_figures


def run_stats(context, args) -> int:
    decks = context.select_decks(args.deck_ids)
    figures = deck_figures(decks, context.location)
    # new / learning / due: what can be studied today, as Anki counts them; retention: True Retention
    # over the last 30 study days (core.retention), split young and mature; unseen: never studied.
    # retention_by_span: the same figure over the day, week, month (the 30 days) and year ending
    # today, as the Stats screen and the report give them.
    rows = [{"id": deck.id, **{k: figures[deck.id][k] for k in
                               ("items", "new", "learning", "review", "due", "reviews", "retention",
                                "retention_young", "retention_mature", "unseen")},
             "retention_by_span": spans_json(figures[deck.id]["true_retention"])}
            for deck in decks]
    total = sum(row["reviews"] for row in rows)
    if args.json:
        overall = {name: sum((figures[d.id]["true_retention"][name] for d in decks), TrueRetention())
                   for name in SPANS}
        print(json.dumps({"reviews": total, "retention_by_span": spans_json(overall), "decks": rows},
                         ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("No decks found. Add a folder with --decks DIR or STUDYAPP_DECKS.")
        return 0
    width = max(len("DECK"), *(len(row["id"]) for row in rows))
    header = f"{'DECK':<{width}}  {'ITEMS':>5}  {'NEW':>5}  {'LEARN':>5}  {'REVIEW':>6}  {'DUE':>5}  {'REVIEWS':>7}  RETENTION"
    print(header)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['items']:>5}  {row['new']:>5}  {row['learning']:>5}  {row['review']:>6}  "
              f"{row['due']:>5}  {row['reviews']:>7}  {_percent(row['retention'])}")
    passed = sum(figures[row["id"]]["retention_passed"] for row in rows)
    answers = sum(figures[row["id"]]["retention_answers"] for row in rows)
    print(f"{'total':<{width}}  {sum(r['items'] for r in rows):>5}  {sum(r['new'] for r in rows):>5}  "
          f"{sum(r['learning'] for r in rows):>5}  {sum(r['review'] for r in rows):>6}  "
          f"{sum(r['due'] for r in rows):>5}  {total:>7}  {_percent(passed / answers if answers else None)}")
    return 0


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"
