"""Anki packages read without Anki: the collection inside a .apkg, its note types, notes and media."""
