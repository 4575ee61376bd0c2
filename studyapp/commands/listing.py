"""``studyapp list [--json]``: the decks, their size and what is due."""

from __future__ import annotations

import json


def run_list(context, args) -> int:
    catalog = context.catalog()
    counts: dict[str, tuple[int, int, int]] = {}
    if context.location.database.exists():
        # Only with progress to read: the store and the scheduler cost start-up time.
        from ..store.summary import deck_counts

        counts = deck_counts(catalog.decks, context.location)
    rows = []
    for deck in catalog.decks:
        items = len(deck.items())
        # No progress yet: every item is new; one item a card can come today (siblings are buried)
        # and today's limit lets 20 through (Settings' default new_per_day, not imported here: the
        # scheduler costs start-up time). Cards joined by related: are counted apart here.
        new, learning, due = counts.get(deck.id, (min(len(deck.cards), 20), 0, 0))
        rows.append({"id": deck.id, "title": deck.title, "path": str(deck.path), "cards": len(deck.cards),
                     "items": items, "new": new, "learning": learning, "due": due})
    _note_shadowed(context, catalog.shadowed)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=context.stdout)
        return 0
    if not rows:
        print("No decks found. Add a folder with --decks DIR or STUDYAPP_DECKS.", file=context.stdout)
        return 0
    width = max(len(row["id"]) for row in rows)
    print(f"{'DECK':<{width}}  {'CARDS':>5}  {'ITEMS':>5}  {'NEW':>5}  {'LEARN':>5}  {'DUE':>5}  TITLE", file=context.stdout)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['cards']:>5}  {row['items']:>5}  {row['new']:>5}  {row['learning']:>5}  "
              f"{row['due']:>5}  {row['title']}", file=context.stdout)
    return 0


def _note_shadowed(context, shadowed) -> None:
    """One line per folder of the learner's that takes the place of bundled decks."""
    by_folder: dict = {}
    for deck, bundled in shadowed:
        by_folder.setdefault(deck.path.parent, []).append((deck, bundled))
    for folder, pairs in by_folder.items():
        if len(pairs) == 1:
            (deck, bundled), = pairs
            context.warn(f"studyapp: note: {deck.path} is used in place of the bundled deck '{deck.id}' ({bundled})")
        else:
            context.warn(f"studyapp: note: {len(pairs)} decks in {folder} are used in place of the bundled decks "
                         f"with the same ids ({', '.join(deck.id for deck, _ in pairs)})")
