"""The maintainer's ledger command and the ledger file, word for word: what `python -m
studyapp.export.ledger` prints where and exits with, how a bad ledger is reported, and the
stamping rules at their ties (two ledgers holding one time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.problems import StudyappError
from studyapp.export import ledger as ledger_module
from studyapp.export.ledger import UPDATE_COMMAND, Entry, Ledger, Stamper, shipped_ledger_path

NOW = 1_800_000_000


def deck_folder(tmp_path: Path, front: str = "First?", card_type: str = "basic") -> Path:
    folder = tmp_path / "decks"
    folder.mkdir(exist_ok=True)
    (tmp_path / "seed.md").write_text("---\ntitle: Seed\n---\nthe quoted text\n", encoding="utf-8")
    body = f"front: '{front}', back: B" if card_type == "basic" else "text: 'the {{c1::quoted}} text'"
    (folder / "d.yaml").write_text(f"schema: 1\nid: d\ntitle: D\nseed: ../seed.md\ncards:\n"
                                   f"  - {{id: a, type: {card_type}, {body}, source: quoted}}\n"
                                   f"  - {{id: b, type: basic, front: Other?, back: C, source: quoted}}\n",
                                   encoding="utf-8")
    return folder


def run(capsys, *argv: str, at: int = NOW) -> tuple[int, str, str]:
    code = ledger_module.main(list(argv), clock=lambda: float(at))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_and_update_say_what_they_found_on_the_right_stream(tmp_path, capsys):
    folder = deck_folder(tmp_path)
    path = shipped_ledger_path(folder)
    # two notes and studyapp's five note types (every export carries all five), none in a ledger yet
    assert run(capsys, "check", str(folder)) == (
        1, "", f"{path}: error: 7 notes or note types changed since the ledger was written; "
               f"run '{UPDATE_COMMAND} {folder}'\n")
    assert not path.exists()
    assert run(capsys, "update", str(folder)) == (0, f"{path}: 2 notes and 5 note types restamped\n", "")
    assert run(capsys, "check", str(folder)) == (0, f"{path}: up to date\n", "")
    assert run(capsys, "update", str(folder)) == (0, f"{path}: 0 notes and 0 note types restamped\n", "")


def test_a_card_that_changed_type_is_warned_about(tmp_path, capsys):
    folder = deck_folder(tmp_path)
    path = shipped_ledger_path(folder)
    run(capsys, "update", str(folder))
    deck_folder(tmp_path, card_type="cloze")
    code, out, err = run(capsys, "update", str(folder), at=NOW + 60)
    assert code == 0
    assert err == (f"{path}: warning: card d/a changed from basic to cloze; Anki keeps the old note on import "
                   "(a conflict); give the card a new id instead\n")
    assert out == f"{path}: 1 notes and 0 note types restamped\n"  # the cloze note type was already stamped


@pytest.mark.parametrize("broken, more", [(5, ""), (6, "; ...")])
def test_decks_with_errors_are_named_five_at_most_before_any_restamp(tmp_path, capsys, broken, more):
    folder = tmp_path / "decks"
    folder.mkdir()
    for i in range(broken):
        (folder / f"bad{i}.yaml").write_text("schema: 1\nid: [\n", encoding="utf-8")
    errors = load_paths([folder]).errors
    assert len(errors) == broken
    expected = ("; ".join(p.format() for p in errors[:5]) + more
                + f"; fix the decks in {folder} first ('studyapp check {folder}')")
    assert run(capsys, "update", str(folder)) == (1, "", f"studyapp: error: {expected}\n")
    assert not shipped_ledger_path(folder).exists()


def test_a_ledger_that_cannot_be_written_is_an_error_naming_it(tmp_path, capsys, monkeypatch):
    folder = deck_folder(tmp_path)

    def full_disk(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ledger_module, "write_atomically", full_disk)
    assert run(capsys, "update", str(folder)) == (
        1, "", f"studyapp: error: cannot write {shipped_ledger_path(folder)}: No space left on device\n")


def test_an_unreadable_ledger_stops_the_command_with_its_place(tmp_path, capsys):
    folder = deck_folder(tmp_path)
    shipped_ledger_path(folder).write_text('{"schema": 2}', encoding="utf-8")
    assert run(capsys, "update", str(folder)) == (
        1, "", f"{shipped_ledger_path(folder)}:1:1: error: the Anki export ledger has an unexpected shape "
               f"(schema 2 is not 1); {repair(shipped_ledger_path(folder))} [ledger]\n")


def test_the_command_checks_the_bundled_decks_by_default_and_refuses_other_actions(tmp_path, capsys):
    path = shipped_ledger_path(bundled_decks_dir())
    assert run(capsys, "check") == (0, f"{path}: up to date\n", "")
    with pytest.raises(SystemExit) as raised:
        ledger_module.main(["restamp", str(deck_folder(tmp_path))])
    assert raised.value.code == 2
    assert "invalid choice: 'restamp' (choose from 'update', 'check')" in capsys.readouterr().err


def test_the_commands_help_names_itself_its_actions_and_the_folder(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as raised:
        ledger_module.main(["--help"])
    assert raised.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: python -m studyapp.export.ledger [-h] {update,check} [folder]\n")
    assert "\nMaintain the Anki export ledger shipped beside a deck folder.\n" in text
    for line in ("update: restamp changed notes and write the ledger; check: exit 1 if it is stale",
                 "the deck folder (default: the bundled decks)"):
        assert f"  {line}\n" in text


# -- the ledger file ------------------------------------------------------------------------


def repair(path: Path) -> str:
    """What a broken ledger's message tells the maintainer to do (the file named twice)."""
    return (f"regenerate it with '{UPDATE_COMMAND}', or move it aside (mv {path} {path}.broken) and export again: "
            "export works without it, though Anki may then update notes it imported before (replacing edits "
            "made to them in Anki)")


def error_loading(path: Path) -> StudyappError:
    with pytest.raises(StudyappError) as raised:
        Ledger.load(path)
    return raised.value


def test_bad_ledgers_are_reported_with_message_place_and_code(tmp_path):
    path = tmp_path / "anki-ledger.json"
    path.write_bytes(b'{"schema": 1, "notes": {"\xff": 1}}')
    error = error_loading(path)
    assert (error.message, error.path, error.line, error.column, error.code) == (
        "cannot read the Anki export ledger: not UTF-8 text", str(path), 1, 1, "ledger")
    assert (error_loading(tmp_path).message, error_loading(tmp_path).line) == (
        "cannot read the Anki export ledger: Is a directory", 1)
    path.write_text('{\n  "schema": 1,\n  "notes": {,}\n}', encoding="utf-8")
    error = error_loading(path)
    assert (error.message, error.path, error.line, error.column, error.code) == (
        f"the Anki export ledger is not valid JSON: Expecting property name enclosed in double quotes; {repair(path)}",
        str(path), 3, 13, "ledger")
    path.write_text('{"notes": {}}', encoding="utf-8")
    error = error_loading(path)
    assert (error.message, error.path, error.line, error.column, error.code) == (
        f"the Anki export ledger has an unexpected shape (schema None is not 1); {repair(path)}",
        str(path), 1, 1, "ledger")


def test_a_ledger_without_notes_or_note_types_is_empty(tmp_path):
    path = tmp_path / "anki-ledger.json"
    path.write_text('{"schema": 1}', encoding="utf-8")
    assert Ledger.load(path) == Ledger()
    path.write_text('{"schema": 1, "notetypes": {"7": {"hash": "t", "mtime": 3}}}', encoding="utf-8")
    assert Ledger.load(path) == Ledger(notetypes={"7": Entry("t", 3)})


def test_an_empty_ledger_is_written_with_empty_blocks():
    assert Ledger().to_text() == (
        '{\n  "schema": 1,\n'
        f'  "about": "When each exported Anki note last changed; regenerate with: {UPDATE_COMMAND}",\n'
        '  "notetypes": {},\n  "notes": {}\n}\n')


def test_entries_are_written_by_label_then_key():
    ledger = Ledger(notes={"a": Entry("h", 1, "d/z"), "b": Entry("h", 1, "d/y"), "d": Entry("h", 1), "c": Entry("h", 1)})
    text = ledger.to_text()
    assert [json.loads("{" + line.rstrip(",") + "}") for line in text.splitlines()[5:9]] == [
        {"c": {"hash": "h", "mtime": 1}}, {"d": {"hash": "h", "mtime": 1}},
        {"b": {"hash": "h", "mtime": 1, "label": "d/y"}}, {"a": {"hash": "h", "mtime": 1, "label": "d/z"}}]


@pytest.mark.parametrize("entry", [Entry("h", True, "中文"), Entry("h", 2, 3), Entry("h", 2.5, kind="cloze"),
                                   Entry("h", 2, "中文", "basic"), Entry(1, 2, 3, 4)])
def test_any_entry_is_written_as_json_dumps_writes_it(entry):
    assert entry.to_line() == json.dumps(entry.to_json(), ensure_ascii=False)


# -- ties between ledgers -------------------------------------------------------------------


@pytest.mark.parametrize("order", ["shipped first", "local first"])
def test_on_a_tie_the_entry_matching_the_content_keeps_its_time(order):
    same, other = Entry("new", NOW), Entry("old", NOW)
    shipped, local = (Ledger(notes={"g": other}, notetypes={"7": other}), Ledger(notes={"g": same}, notetypes={"7": same}))
    if order == "local first":
        shipped, local = (Ledger(notes={"g": same}, notetypes={"7": same}), Ledger(notes={"g": other}, notetypes={"7": other}))
    stamper = Stamper([shipped], local, NOW + 100)
    assert stamper.note_time("g", "new") == NOW and stamper.notetype_time(7, "new") == NOW
    assert stamper.changed_notes == [] and stamper.changed_notetypes == []


def test_a_changed_note_type_is_newer_than_a_release_stamped_in_the_future():
    # a release stamped after this machine's clock: the change still gets a newer time
    local = Ledger(notetypes={"7": Entry("css-1", NOW + 10, "studyapp basic v1")})
    stamper = Stamper([], local, NOW)
    assert stamper.notetype_time(7, "css-2", label="studyapp basic v2") == NOW + 11
    assert local.notetypes["7"] == Entry("css-2", NOW + 11, "studyapp basic v2")
    assert stamper.changed_notetypes == ["7"]
    stamper.notetype_time(8, "css-3")
    assert local.notetypes["8"] == Entry("css-3", NOW, "")


def test_on_a_tie_between_two_changed_entries_the_release_is_compared_against():
    # both ledgers hold another content at the same time: the shipped one (first) names the old kind
    shipped = Ledger(notes={"g": Entry("h1", NOW, "d/c", "basic")})
    local = Ledger(notes={"g": Entry("h2", NOW, "d/c", "cloze")})
    stamper = Stamper([shipped], local, NOW + 5)
    assert stamper.note_time("g", "h3", label="d/c", kind="reverse") == NOW + 5
    assert stamper.kind_changes == [("d/c", "basic", "reverse")]
