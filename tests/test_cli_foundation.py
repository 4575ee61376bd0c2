"""The command-line contract for `check` and `list`, run as a user runs it (in a subprocess)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cli_runner import ROOT, run_cli

GOOD = """\
schema: 1
id: extra
title: Extra deck
seed: ../seed.md
cards:
  - {id: one, type: basic, front: What is the first word?, back: alpha, source: alpha}
  - {id: two, type: reverse, front: The second word, back: beta, source: beta}
"""


def make_folder(root: Path, decks: dict[str, str]) -> Path:
    (root / "decks").mkdir(parents=True)
    (root / "seed.md").write_text("alpha beta gamma", encoding="utf-8")
    for name, text in decks.items():
        (root / "decks" / name).write_text(text, encoding="utf-8")
    return root / "decks"


def test_check_on_bundled_decks_is_clean(cli_env):
    result = run_cli(["check"], cli_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("8 decks, 119 cards: 0 errors, 0 warnings")


def test_check_json_shape_and_exit_code(cli_env, tmp_path):
    folder = make_folder(tmp_path, {"bad.yaml": GOOD.replace("answer", "x").replace("back: alpha", "bak: alpha")})
    result = run_cli(["check", str(folder), "--json"], cli_env)
    assert result.returncode == 1
    document = json.loads(result.stdout)  # nothing else on stdout
    assert set(document) == {"ok", "decks", "cards", "problems"}
    # Both cards count, the one left out for its error too: the file has two.
    assert document["ok"] is False and document["decks"] == 1 and document["cards"] == 2
    (problem, *rest) = document["problems"]
    assert set(problem) == {"path", "line", "column", "severity", "code", "message"}
    assert {p["code"] for p in document["problems"]} == {"unknown-key", "missing-field"}


def test_check_text_output_is_compiler_style(cli_env, tmp_path):
    folder = make_folder(tmp_path, {"bad.yaml": GOOD.replace("type: reverse", "type: revers")})
    result = run_cli(["check", str(folder / "bad.yaml")], cli_env)
    assert result.returncode == 1
    assert f"{folder / 'bad.yaml'}:7:21: error: unknown card type 'revers'; did you mean 'reverse'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_check_usage_errors_exit_2(cli_env, tmp_path):
    assert run_cli(["check", str(tmp_path / "nope")], cli_env).returncode == 2
    assert run_cli(["check", "--bogus"], cli_env).returncode == 2


def test_duplicate_deck_ids_across_folders_are_reported(cli_env, tmp_path):
    a = make_folder(tmp_path / "a", {"x.yaml": GOOD})
    b = make_folder(tmp_path / "b", {"y.yaml": GOOD})
    result = run_cli(["check", str(a), str(b), "--json"], cli_env)
    codes = [p["code"] for p in json.loads(result.stdout)["problems"]]
    assert codes == ["duplicate-deck-id"] and result.returncode == 1


def test_list_json_shows_bundled_and_extra_decks(cli_env, tmp_path):
    folder = make_folder(tmp_path, {"extra.yaml": GOOD})
    env = dict(cli_env, STUDYAPP_DECKS=str(folder))
    result = run_cli(["list", "--json"], env)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert len(rows) == 9
    # The learner's own folders come first; the bundled decks after them.
    extra = rows[0]
    assert set(extra) == {"id", "title", "path", "cards", "items", "new", "learning", "due"}
    # New as Anki counts it: one item a card today (the reverse card's second side is buried).
    assert (extra["id"], extra["cards"], extra["items"], extra["new"], extra["learning"], extra["due"]) == \
        ("extra", 2, 3, 2, 0, 0)
    # --decks does the same as the environment variable
    flagged = json.loads(run_cli(["list", "--json", "--decks", str(folder)], cli_env).stdout)
    assert [r["id"] for r in flagged] == [r["id"] for r in rows]


def test_a_broken_deck_never_stops_the_others(cli_env, tmp_path):
    folder = make_folder(tmp_path, {"extra.yaml": GOOD, "broken.yaml": "schema: 1\nid: [unclosed\n"})
    result = run_cli(["list", "--json", "--decks", str(folder)], cli_env)
    assert result.returncode == 0
    ids = [row["id"] for row in json.loads(result.stdout)]
    assert "extra" in ids and len(ids) == 9
    assert f"{folder / 'broken.yaml'}:3:1: error: YAML syntax error" in result.stderr
    assert "was not loaded" in result.stderr


def test_list_text_output_and_version(cli_env):
    result = run_cli(["list"], cli_env)
    assert result.returncode == 0
    from studyapp.core.catalog import discover

    header, *rows = result.stdout.splitlines()
    assert header.split() == ["DECK", "CARDS", "ITEMS", "NEW", "LEARN", "DUE", "TITLE"]
    # One row per bundled deck, in catalog order, with its own card and item counts.
    decks = discover().decks
    assert [row.split()[0] for row in rows] == [deck.id for deck in decks]
    for row, deck in zip(rows, decks):
        assert row.split()[1:3] == [str(len(deck.cards)), str(len(deck.items()))]
        assert row.endswith(deck.title)
    version = run_cli(["--version"], cli_env)
    assert version.returncode == 0 and version.stdout.startswith("studyapp ")


def test_bad_profile_name_is_a_usage_error(cli_env):
    result = run_cli(["list", "--profile", "../etc"], cli_env)
    assert result.returncode == 2
    assert "profile name '../etc' is not allowed" in result.stderr


# -- import hygiene ---------------------------------------------------------------------------

UI_LIBRARIES = ("textual", "rich")


@pytest.mark.parametrize("package", ["core", "store", "export", "onboarding", "authoring", "anki"])
def test_domain_packages_never_import_ui_libraries(package):
    """Static: no module of the domain imports Textual or Rich, even lazily inside a function."""
    import ast

    folder = ROOT / "studyapp" / package
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in UI_LIBRARIES, f"{path.relative_to(ROOT)} imports {name}"


def _imports(path: Path, module_name: str | None = None) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in a studyapp module, relative ones resolved."""
    import ast

    package = module_name or ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:-node.level] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [(module, node.lineno)] + [(f"{module}.{alias.name}", node.lineno) for alias in node.names]
    return found


def test_nothing_below_the_command_line_imports_it():
    """cli.py parses and hands a context down; no package imports back up from it."""
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {name}"
                 for path in (ROOT / "studyapp").rglob("*.py") if path.name not in ("cli.py", "__main__.py")
                 for name, line in _imports(path) if name == "studyapp.cli" or name.startswith("studyapp.cli.")]
    assert offenders == []


def test_the_import_check_sees_relative_imports_of_cli(tmp_path):
    """The check above must catch ``from ..cli import x`` (the form that was used before)."""
    sample = tmp_path / "probe.py"
    sample.write_text("from ..cli import main\nfrom .. import cli\n", encoding="utf-8")
    names = [name for name, _ in _imports(sample, "studyapp.export.probe")]
    assert "studyapp.cli" in names and "studyapp.cli.main" in names


@pytest.mark.parametrize("command", [["list"], ["list", "--json"], ["check"], ["--version"], ["stats", "--json"],
                                     ["report", "--format", "json"], ["export", "anki", "-o", "/dev/null/x.apkg"],
                                     ["check", "--coverage"], ["import", "csv", "/dev/null/x.csv"],
                                     ["new", "/dev/null/x.md"]])
def test_commands_without_ui_never_import_textual(cli_env, command):
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['studyapp', *{command!r}]\n"
        "try:\n    runpy.run_module('studyapp', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print('UI-MODULES:', bad, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], env=cli_env, capture_output=True, text=True, timeout=60)
    assert "UI-MODULES: []" in result.stderr, result.stderr[-2000:]


# -- packaging --------------------------------------------------------------------------------

def test_wheel_ships_decks_and_seeds_and_finds_them_from_anywhere(tmp_path, cli_env):
    """A plain (non-editable) install must find the bundled decks from any working directory."""
    out = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    if build.returncode != 0 and "No module named hatchling" in build.stderr:
        build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)],
                               capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = out.glob("studyapp-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    deck_files = [n for n in names if n.startswith("studyapp/_data/decks/") and n.endswith(".yaml")]
    assert len(deck_files) == 9 and "studyapp/_data/decks/curriculum.yaml" in deck_files  # 8 decks + the curriculum
    assert sum(n.startswith("studyapp/_data/seeds/") and n.endswith(".md") for n in names) == 8
    env = dict(cli_env, PYTHONPATH=str(site))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli(["list", "--json"], env, cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert len(rows) == 8 and all(str(site) in row["path"] for row in rows)
    assert run_cli(["check"], env, cwd=elsewhere).returncode == 0
