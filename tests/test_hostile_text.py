"""Hostile deck text and seeds (issue 15: F2, F4): escape sequences are shown, never sent, by every
command; `check` warns about them; a seed outside the deck's tree stops the deck loading; seeds
are read only from regular files of bounded size."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from studyapp.core import terminal_text
from studyapp.core.loader import MAX_SEED_BYTES, SeedUnreadable, load_deck, read_seed_file
from studyapp.core.terminal_text import control_characters, visible, visible_deck, visible_line

from cli_runner import run_cli

OSC52 = "\x1b]52;c;cm0gLXJmIH4vKg==\x1b\\"  # sets the clipboard to "rm -rf ~/*"
TITLE = "\x1b]2;PWNED-TITLE\x07"

# YAML double quotes turn \e and \x1b into ESC: the deck file itself is plain ASCII.
HOSTILE_DECK = r'''schema: 1
id: osc
title: "Innocent \e]2;PWNED-TITLE\a deck"
seed: ../seeds/s.md
cards:
  - id: one
    type: basic
    front: "Harmless question \e]52;c;cm0gLXJmIH4vKg==\e\\ end"
    back: "red \x1b[31mtext\x1b[0m"
    source: alpha
  - id: two
    type: basic
    front: What is beta?
    back: beta
    source: beta
    "x\e]2;PWNED-CHECK\e\\": 1
'''


def hostile_folder(root: Path, deck: str = HOSTILE_DECK) -> Path:
    (root / "decks").mkdir(parents=True)
    (root / "seeds").mkdir()
    (root / "seeds" / "s.md").write_text("alpha beta gamma\n", encoding="utf-8")
    (root / "decks" / "osc.yaml").write_text(deck, encoding="utf-8")
    return root / "decks"


# ---------------------------------------------------------------- the sanitiser


def test_visible_shows_every_control_character_as_an_escape():
    assert visible("a" + OSC52 + "b") == "a\\x1b]52;c;cm0gLXJmIH4vKg==\\x1b\\b"
    assert visible(TITLE) == "\\x1b]2;PWNED-TITLE\\x07"
    assert visible("\x00\x08\x0b\x0c\x0d\x1f\x7f") == "\\x00\\x08\\x0b\\x0c\\x0d\\x1f\\x7f"
    assert visible("csi \x9b2J c1 \x80 \x9f") == "csi \\u009b2J c1 \\u0080 \\u009f"
    assert visible("abc\u202eevil\u2066x\u2069") == "abc\\u202eevil\\u2066x\\u2069"


def test_visible_leaves_ordinary_text_alone():
    text = "Zeile 1\n\tmit Tab, ünïcödé, 三层缓存体系, [bold]markup[/bold] \\x1b as typed \xa0 \xa9"
    assert visible(text) is text
    assert visible("") == ""


def test_visible_line_also_escapes_tab_and_newline():
    assert visible_line("a\tb\nc\x1bd") == "a\\tb\\nc\\x1bd"
    assert visible_line("plain") == "plain"


def test_control_characters_lists_each_once_in_order():
    assert control_characters("x\x1by\x07z\x1b\x9b") == ["\\x1b", "\\x07", "\\u009b"]
    assert control_characters("tab\tnewline\n") == []


def test_visible_writer_escapes_what_passes_through_and_keeps_its_stream():
    import io

    raw = io.StringIO()
    writer = terminal_text.VisibleWriter(raw)
    assert writer.write("a\x1b[2Jb\n") == len("a\x1b[2Jb\n")
    writer.writelines(["\x07", "c"])
    assert raw.getvalue() == "a\\x1b[2Jb\n\\x07c"
    assert writer.trusted is raw
    assert writer.getvalue() == raw.getvalue()  # everything else is the wrapped stream's


def test_a_deck_is_escaped_for_the_terminal_only_where_needed(tmp_path):
    folder = hostile_folder(tmp_path)
    deck = load_deck(folder / "osc.yaml").deck
    shown = visible_deck(deck)
    assert shown.title == "Innocent \\x1b]2;PWNED-TITLE\\x07 deck"
    assert shown.cards[0].front == "Harmless question \\x1b]52;c;cm0gLXJmIH4vKg==\\x1b\\ end"
    assert shown.cards[0].back == "red \\x1b[31mtext\\x1b[0m"
    assert deck.cards[0].front.count("\x1b") == 2  # the loaded deck itself is unchanged (export escapes its own way)
    clean_card = type(deck.cards[0])(id="c", type="basic", source=("alpha",), front="Q?", back="A")
    mixed = type(deck)(deck.id, "Clean", deck.path, deck.seed_path, (deck.cards[0], clean_card))
    assert visible_deck(mixed).cards[1] is clean_card  # a clean card is not copied
    clean = type(deck)(deck.id, "Clean", deck.path, deck.seed_path, (clean_card,))
    assert visible_deck(clean) is clean


# ---------------------------------------------------------------- check, list and errors


def test_check_warns_about_control_characters_at_their_line(cli_env, tmp_path):
    folder = hostile_folder(tmp_path)
    done = run_cli(["check", str(folder), "--json"], cli_env)
    document = json.loads(done.stdout)
    found = [(p["line"], p["column"], p["severity"]) for p in document["problems"] if p["code"] == "control-character"]
    assert found == [(3, 8, "warning"), (8, 12, "warning"), (9, 11, "warning"), (16, 5, "warning")]
    message = next(p["message"] for p in document["problems"] if p["code"] == "control-character" and p["line"] == 3)
    assert message.startswith("the text holds control characters (\\x1b, \\x07)")
    assert "\x1b" not in done.stdout


def test_check_text_output_never_sends_an_escape(cli_env, tmp_path):
    folder = hostile_folder(tmp_path)
    done = run_cli(["check", str(folder)], cli_env)
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "unknown key 'x\\x1b]2;PWNED-CHECK\\x1b\\'" in done.stderr
    assert "osc.yaml:3:8: warning: the text holds control characters" in done.stderr
    assert "4 warnings" in done.stderr


def test_list_shows_a_hostile_title_escaped(cli_env, tmp_path):
    folder = hostile_folder(tmp_path)
    done = run_cli(["list", "--decks", str(folder)], cli_env)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "Innocent \\x1b]2;PWNED-TITLE\\x07 deck" in done.stdout


def test_list_json_stays_valid_and_means_the_same(cli_env, tmp_path):
    folder = hostile_folder(tmp_path, HOSTILE_DECK.replace(r"\a deck", r"\x9b2J deck"))
    done = run_cli(["list", "--json", "--decks", str(folder)], cli_env)
    assert "\x9b" not in done.stdout and "\x1b" not in done.stdout
    row = next(r for r in json.loads(done.stdout) if r["id"] == "osc")
    assert row["title"] == "Innocent \x1b]2;PWNED-TITLE\x9b2J deck"  # escaped on screen, intact as data


def test_error_messages_show_control_characters_escaped(cli_env, tmp_path):
    done = run_cli(["check", str(tmp_path / "no\x1b]2;X\x07such")], cli_env)
    assert done.returncode == 2
    assert "\x1b" not in done.stderr
    assert "no\\x1b]2;X\\x07such: error: no such file or folder" in done.stderr


# ---------------------------------------------------------------- seeds (F4)


def seeded_deck(root: Path, seed: str) -> Path:
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "seeds").mkdir(exist_ok=True)
    path = root / "decks" / "d.yaml"
    path.write_text(f"schema: 1\nid: d\ntitle: D\nseed: {seed}\ncards:\n"
                    "  - {id: one, type: basic, front: Q?, back: A, source: alpha}\n", encoding="utf-8")
    return path


def test_the_bundled_layout_seed_beside_the_decks_folder_loads(tmp_path):
    path = seeded_deck(tmp_path, "../seeds/s.md")
    (tmp_path / "seeds" / "s.md").write_text("alpha\n", encoding="utf-8")
    result = load_deck(path)
    assert result.deck is not None and result.problems == []
    assert result.deck.seed_path == (tmp_path / "seeds" / "s.md").resolve()


@pytest.mark.parametrize("seed", ["../../../../etc/passwd", "/etc/passwd", "../seeds/link.md"])
def test_a_seed_outside_the_tree_stops_the_deck_loading(tmp_path, seed):
    path = seeded_deck(tmp_path, seed)
    (tmp_path / "seeds" / "link.md").symlink_to("/etc/passwd")
    result = load_deck(path)
    assert result.deck is None
    codes = [(p.code, p.line, p.severity) for p in result.problems]
    assert codes == [("seed-outside", 4, "error")]
    assert "the deck was not loaded" in result.problems[0].message


def test_list_names_the_deck_that_was_not_loaded_for_its_seed(cli_env, tmp_path):
    path = seeded_deck(tmp_path, "../seeds/link.md")
    (tmp_path / "seeds" / "link.md").symlink_to("/etc/passwd")
    done = run_cli(["list", "--json", "--decks", str(path.parent)], cli_env)
    assert "d" not in [row["id"] for row in json.loads(done.stdout)]
    assert f"{path}:4:7: error: seed path '../seeds/link.md' leads to /etc/passwd" in done.stderr
    assert f"studyapp: warning: deck {path} was not loaded" in done.stderr


def test_a_fifo_seed_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "seeds" / "fifo.md"
    path = seeded_deck(tmp_path, "../seeds/fifo.md")
    os.mkfifo(fifo)
    outcome = {}

    def load():
        outcome["result"] = load_deck(path)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=30)  # a bound, not a measurement: an open() that blocks never returns
    assert not worker.is_alive(), "loading a deck whose seed is a FIFO blocked"
    problems = [(p.code, p.message) for p in outcome["result"].problems]
    assert problems == [("missing-seed", "seed file '../seeds/fifo.md' cannot be read: it is not a regular file "
                                         "(a FIFO, a device or a folder)")]


def test_read_seed_file_reads_only_regular_files_of_bounded_size(tmp_path):
    with pytest.raises(SeedUnreadable, match="not a regular file"):
        read_seed_file(Path("/dev/zero"))
    with pytest.raises(SeedUnreadable, match="not a regular file"):
        read_seed_file(tmp_path)
    exact = tmp_path / "exact.md"
    exact.write_bytes(b"a" * 100)
    assert read_seed_file(exact, max_bytes=100) == "a" * 100
    with pytest.raises(SeedUnreadable, match="it is 101 bytes, more than the 100"):
        exact.write_bytes(b"a" * 101)
        read_seed_file(exact, max_bytes=100)
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"caf\xe9")
    with pytest.raises(SeedUnreadable, match="not UTF-8"):
        read_seed_file(latin)
    with pytest.raises(SeedUnreadable, match="No such file"):
        read_seed_file(tmp_path / "missing.md")
    assert MAX_SEED_BYTES == 8 * 1024 * 1024


def test_the_viewers_reader_refuses_a_device_and_a_fifo_quickly(tmp_path):
    from studyapp.core.problems import StudyappError
    from studyapp.core.settings import Location
    from studyapp.tui.services import Services

    path = seeded_deck(tmp_path, "../seeds/fifo.md")
    os.mkfifo(tmp_path / "seeds" / "fifo.md")
    services = Services(Location(tmp_path / "home", "default", ()), deck_paths=[path.parent])
    deck = services.decks(["d"])[0]
    with pytest.raises(StudyappError, match="not a regular file"):
        services.seed_text(deck)
    zero = type(deck)(deck.id, deck.title, deck.path, Path("/dev/zero"), deck.cards)
    with pytest.raises(StudyappError, match="not a regular file"):
        services.seed_text(zero)


# ---------------------------------------------------------------- the wide YAML (F5)


def test_a_file_of_millions_of_tiny_values_is_refused_before_its_tree_is_built(tmp_path):
    import tracemalloc

    from studyapp.core import yamlsafe

    path = tmp_path / "wide.yaml"
    body = "a," * 8_388_000
    path.write_text("schema: 1\nid: wide\ntitle: W\nseed: ../seeds/s.md\ntags: [" + body + "a]\ncards: []\n")
    assert path.stat().st_size < yamlsafe.MAX_FILE_BYTES  # under the byte cap: only the value count stops it
    tracemalloc.start()
    result = load_deck(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.deck is None
    [problem] = result.problems
    assert (problem.code, problem.line, problem.severity) == ("too-many-values", 5, "error")
    assert problem.message.startswith("the file holds more than 2,000,000 YAML values")
    # A node tree of 8 million scalars takes gigabytes; the refusal holds the text and little else.
    assert peak < 200 * 1024 * 1024, peak


@pytest.mark.parametrize("count, refused", [(99, False), (100, False), (101, True)])
def test_the_value_limit_is_exact(tmp_path, count, refused):
    from studyapp.core import yamlsafe
    from studyapp.core.problems import DeckLoadError

    # A root mapping, its key, the list and its items: count values in all, with one comma per item.
    text = "k: [" + ",".join(["a"] * (count - 3)) + "]\n"
    if refused:
        with pytest.raises(DeckLoadError) as caught:
            yamlsafe._refuse_too_many_nodes(text, "f.yaml", limit=100)
        assert caught.value.code == "too-many-values"
    else:
        yamlsafe._refuse_too_many_nodes(text, "f.yaml", limit=100)


def test_the_free_bound_never_undercounts_a_real_deck():
    from studyapp.core import yamlsafe

    text = "- a: 1\n  b: [x, {c: d}]\n- - - e\n-\n  ? f\n  : g\n"
    events = 0
    loader = yamlsafe._Loader(text)
    import yaml

    while (event := loader.get_event()) is not None:
        events += isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent))
    loader.dispose()
    assert events == 16
    assert 2 * (1 + sum(text.count(c) for c in yamlsafe._NODE_INDICATORS)) >= events
