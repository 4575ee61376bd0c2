"""Running studyapp in this process for the authoring tests: argv in, (exit code, stdout, stderr) out."""

from __future__ import annotations

import os
from pathlib import Path


def studyapp(capsys, monkeypatch, cwd: Path, *argv: str) -> tuple[int, str, str]:
    from studyapp.cli import main

    for key in [k for k in os.environ if k.startswith("STUDYAPP_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("STUDYAPP_HOME", str(cwd / ".home"))
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
