"""Authoring banks: scaffolding one for a document, its coverage, and banks brought in from other formats.

Domain code: no Textual, no Rich.
"""
