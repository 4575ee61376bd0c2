"""The domain: decks, cards, scheduling and sessions. Never imports Textual or Rich."""
