"""``studyapp export anki``: the command, its errors, atomic writing and progress."""

from __future__ import annotations

import io
import re
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from studyapp.cli import main
from studyapp.commands import export as command
from studyapp.export.anki import LedgerNote
from studyapp.commands.export import StderrProgress
from studyapp.export.ledger import Ledger, local_ledger_path

DECK = "pytorch-mega-cache"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("STUDYAPP_DECKS", raising=False)
    monkeypatch.delenv("STUDYAPP_PROFILE", raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    return home


def write_deck(folder: Path, deck_id: str, cards_yaml: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent / "seed.md").write_text("---\ntitle: The Seed\n---\nthe quoted text\n", encoding="utf-8")
    path = folder / f"{deck_id}.yaml"
    path.write_text(f"schema: 1\nid: {deck_id}\ntitle: {deck_id}\nseed: ../seed.md\ncards:\n{cards_yaml}", encoding="utf-8")
    return path


GOOD_CARD = "  - {id: a, type: basic, front: Question?, back: Answer, source: quoted}\n"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_export_writes_a_package_and_says_what_it_wrote(home, tmp_path, capsys):
    out = tmp_path / "mega.apkg"
    assert main(["export", "anki", DECK, "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"Wrote {out}: 1 deck,")
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["collection.anki2", "media"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert leftovers(tmp_path) == []


def test_an_unknown_deck_is_a_usage_error_that_lists_the_known_ones(home, tmp_path, capsys):
    out = tmp_path / "x.apkg"
    assert main(["export", "anki", "no-such-deck", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unknown deck id 'no-such-deck'" in err and DECK in err
    assert not out.exists()


@pytest.mark.parametrize("target", ["missing-folder/x.apkg", "."])
def test_an_unwritable_path_is_an_error_and_leaves_nothing(home, tmp_path, capsys, target):
    extra = tmp_path / "more"
    write_deck(extra, "mine", GOOD_CARD)
    out = tmp_path / target
    code = main(["export", "anki", "--decks", str(extra), "mine", "-o", str(out)])
    assert code == (2 if out.is_dir() else 1)
    assert "cannot write" in capsys.readouterr().err
    assert not (tmp_path / "missing-folder").exists()
    assert leftovers(tmp_path) == []
    # Refused before any export time was remembered.
    assert not local_ledger_path(home).exists()


def test_a_failure_while_writing_keeps_the_old_file_and_leaves_no_partial_one(home, tmp_path, capsys, monkeypatch):
    out = tmp_path / "decks.apkg"
    out.write_bytes(b"the previous export")
    written = []

    def failing(self, *args):
        written.append(self)
        if len(written) == 5:
            raise OSError(28, "No space left on device")
        return original(self, *args)

    original = LedgerNote.write_to_db
    monkeypatch.setattr(LedgerNote, "write_to_db", failing)
    assert main(["export", "anki", "-o", str(out)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_bytes() == b"the previous export"
    assert leftovers(tmp_path) == []


def test_a_deck_file_that_fails_to_load_stops_an_export_of_everything(home, tmp_path, capsys):
    extra = tmp_path / "more"
    write_deck(extra, "fine", GOOD_CARD)
    (extra / "broken.yaml").write_text("schema: 1\nid: [not, a, slug\n", encoding="utf-8")
    out = tmp_path / "all.apkg"
    assert main(["export", "anki", "--decks", str(extra), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "could not be loaded" in err and "broken.yaml" in err
    assert not out.exists()
    # Naming the decks that do load still works.
    assert main(["export", "anki", "--decks", str(extra), "fine", "-o", str(out)]) == 0
    assert out.exists()


def test_a_deck_with_a_faulty_card_is_refused_naming_the_card(home, tmp_path, capsys):
    extra = tmp_path / "more"
    path = write_deck(extra, "faulty", GOOD_CARD + "  - {id: b, type: basic, front: Other?, back: B, source: not in the seed}\n")
    out = tmp_path / "faulty.apkg"
    assert main(["export", "anki", "--decks", str(extra), "faulty", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:7:" in err and "source-not-in-seed" in err and "has errors" in err
    assert not out.exists()


def test_changes_are_remembered_in_the_home_folder(home, tmp_path, capsys):
    extra = tmp_path / "more"
    write_deck(extra, "mine", GOOD_CARD)
    out = tmp_path / "mine.apkg"
    assert main(["export", "anki", "--decks", str(extra), "mine", "-o", str(out)]) == 0
    assert "1 new or changed since your last export" in capsys.readouterr().out
    remembered = Ledger.load(local_ledger_path(home))
    assert [e.label for e in remembered.notes.values()] == ["mine/a"]
    assert main(["export", "anki", "--decks", str(extra), "mine", "-o", str(out)]) == 0
    assert "none changed" in capsys.readouterr().out


def test_a_corrupt_local_ledger_is_a_warning_not_a_failure(home, tmp_path, capsys):
    home.mkdir(parents=True)
    local_ledger_path(home).write_text("{not json", encoding="utf-8")
    extra = tmp_path / "more"
    write_deck(extra, "mine", GOOD_CARD)
    assert main(["export", "anki", "--decks", str(extra), "mine", "-o", str(tmp_path / "m.apkg")]) == 0
    assert "warning" in capsys.readouterr().err
    assert [e.label for e in Ledger.load(local_ledger_path(home)).notes.values()] == ["mine/a"]


def test_large_exports_show_progress_on_stderr(home, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(command, "PROGRESS_THRESHOLD", 10)
    assert main(["export", "anki", "-o", str(tmp_path / "all.apkg")]) == 0
    printed = capsys.readouterr()
    for stage in ("preparing", "writing"):
        lines = [line for line in printed.err.splitlines() if f"{stage} notes" in line]
        # A line now and then, not one per note: rising shares that end at the whole.
        shares = [int(re.search(r"\((\d+)%\)$", line).group(1)) for line in lines]
        assert 2 <= len(shares) <= 21 and shares == sorted(set(shares)) and shares[-1] == 100, printed.err
    assert "notes" in printed.out and "preparing" not in printed.out and "writing" not in printed.out


def test_progress_stays_quiet_for_small_exports_and_redraws_on_a_terminal():
    quiet = io.StringIO()
    progress = StderrProgress(quiet, threshold=100)
    for done in range(1, 51):
        progress("writing", done, 50)
    assert quiet.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    progress = StderrProgress(terminal, threshold=10)
    for done in range(1, 101):
        progress("writing", done, 100)
    assert terminal.getvalue().count("\r") == 11 and terminal.getvalue().endswith("(100%)\n")


def test_the_export_modules_import_neither_textual_nor_rich():
    code = ("import sys, studyapp.commands.export, studyapp.export.anki, studyapp.export.ledger; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
