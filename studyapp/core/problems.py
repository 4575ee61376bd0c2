"""Problems found in input files, reported like a compiler: ``path:line:column: severity: message [code]``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    line: int
    column: int
    severity: str
    code: str
    message: str

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message} [{self.code}]"

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


class StudyappError(Exception):
    """Bad input or environment, with a message fit for a user (no traceback)."""

    def __init__(self, message: str, *, path: str | Path | None = None, line: int = 0, column: int = 0, code: str = "error"):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        self.code = code

    def format(self) -> str:
        if self.path is None:
            return f"studyapp: error: {self.message}"
        return Problem(self.path, self.line, self.column, ERROR, self.code, self.message).format()


class DeckLoadError(StudyappError):
    """The one error type the YAML loader raises, whatever the input."""
