"""Anki export: decks to ``.apkg`` packages that re-import cleanly.

``notetypes`` defines the five note types (ids and fields frozen forever), ``fields``
turns cards into escaped field values, ``ledger`` remembers when each note last changed
so that re-imports update exactly the changed notes, and ``anki`` writes the package.
Nothing here imports Textual or Rich.
"""
