"""Progress storage: one SQLite database per learner profile (see repository.py and schema.py)."""

from .repository import ItemRow, LogEntry, Store, open_store

__all__ = ["ItemRow", "LogEntry", "Store", "open_store"]
