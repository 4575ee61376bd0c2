"""Export under hostile paths, interruptions and hostile decks (issue 15: F8, F9, F14), one test per
repro of the reliability review (reliability-2026-12.md 6c to 6f, 4d): a FIFO, a device node, a
socket, a symbolic link or a read-only file at the output path is refused and left as it was; an
export interrupted by an error, Ctrl+C, SIGTERM or SIGHUP leaves no temporary file or scratch folder,
and what a SIGKILL left is removed by the next export (a real subprocess killed mid-export); tags and
deck titles reach Anki escaped (rendered by Anki's own backend through a template with {{Tags}} and
{{Deck}}); a ledger nested 100,000 deep is an error naming it, and export works once it is moved aside."""

from __future__ import annotations

import fcntl
import hashlib
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import time
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from studyapp.export.files import remove_leftovers

from cli_runner import ROOT, run_cli

GOOD_CARD = "  - {id: a, type: basic, front: Question?, back: Answer, source: quoted}\n"


def deck_folder(root: Path, deck_id: str = "small", cards: str = GOOD_CARD, title: str | None = None,
                tags: str = "") -> Path:
    folder = root / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "seed.md").write_text("---\ntitle: The Seed\n---\nthe quoted text\n", encoding="utf-8")
    (folder / f"{deck_id}.yaml").write_text(
        f"schema: 1\nid: {deck_id}\ntitle: {title or deck_id}\nseed: ../seed.md\n{tags}cards:\n{cards}",
        encoding="utf-8")
    return folder


def big_deck(root: Path, cards: int) -> Path:
    lines = "".join(f"  - {{id: c{i}, type: basic, front: 'Question {i} on the quoted text?', back: 'Answer {i}', "
                    f"source: quoted}}\n" for i in range(cards))
    return deck_folder(root, "big", lines)


@pytest.fixture
def env(cli_env, tmp_path):
    """The CLI's environment with a temporary folder of its own, so that scratch folders can be seen."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    return dict(cli_env, TMPDIR=str(scratch))


def scratch_of(env) -> list[str]:
    return sorted(p.name for p in Path(env["TMPDIR"]).iterdir())


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".tmp"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def deck_ids(decks: Path) -> list[str]:
    """The folder's own decks (named by file), so that the bundled ones stay out of the package."""
    return sorted(p.stem for p in decks.glob("*.yaml"))


def export(env, decks: Path, output: Path, *extra):
    return run_cli(["--decks", str(decks), "export", "anki", *deck_ids(decks), *extra, "-o", str(output)], env)


# ---------------------------------------------------------------- F8: what may be replaced


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_device(path: Path) -> None:
    os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null


def make_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays


SPECIAL = [
    ("fifo", make_fifo, stat.S_ISFIFO, "it is a FIFO (named pipe), not a regular file"),
    ("device", make_device, stat.S_ISCHR, "it is a character device, not a regular file"),
    ("socket", make_socket, stat.S_ISSOCK, "it is a socket, not a regular file"),
]


@pytest.mark.parametrize("kind, make, still, says", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_a_special_file_at_the_output_is_refused_and_left_as_it_was(tmp_path, env, kind, make, still, says):
    if kind == "device" and os.geteuid() != 0:
        pytest.skip("mknod of a device node needs root; the FIFO and socket cases cover a non-root run")
    decks = deck_folder(tmp_path)
    target = tmp_path / f"{kind}.apkg"
    make(target)
    before = os.lstat(target)
    run = export(env, decks, target)
    assert run.returncode == 1, run.stderr
    assert run.stderr.strip() == (f"studyapp: error: cannot write {target}: {says}, and studyapp would replace it "
                                  f"with one; choose a file name (for example -o {kind}-export.apkg)")
    after = os.lstat(target)
    assert still(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert temporaries(tmp_path) == [] and scratch_of(env) == []


def test_a_symbolic_link_at_the_output_is_refused_and_neither_it_nor_its_target_changes(tmp_path, env):
    decks = deck_folder(tmp_path)
    precious = tmp_path / "precious.txt"
    precious.write_text("precious\n")
    link = tmp_path / "link.apkg"
    link.symlink_to("precious.txt")
    run = export(env, decks, link)
    assert run.returncode == 1
    assert f"cannot write {link}: it is a symbolic link (to precious.txt)" in run.stderr
    assert "give the file's own path, or remove the link, or choose another name" in run.stderr
    assert link.is_symlink() and os.readlink(link) == "precious.txt" and precious.read_text() == "precious\n"
    # A link to nowhere is a link too: it would become a file where the learner expected the link.
    dangling = tmp_path / "dangling.apkg"
    dangling.symlink_to("nowhere.apkg")
    assert export(env, decks, dangling).returncode == 1
    assert dangling.is_symlink() and not (tmp_path / "nowhere.apkg").exists()


def test_a_read_only_package_is_refused_even_for_root_and_kept(tmp_path, env):
    decks = deck_folder(tmp_path)
    old = tmp_path / "ro.apkg"
    assert export(env, decks, old).returncode == 0
    kept = digest(old)
    old.chmod(0o444)
    run = export(env, decks, old)
    assert run.returncode == 1
    assert run.stderr.strip() == (f"studyapp: error: cannot write {old}: it is read-only (mode 0444); make it "
                                  f"writable (chmod u+w {old}) to replace it, or choose another name "
                                  "(for example -o ro-export.apkg)")
    assert digest(old) == kept and stat.S_IMODE(old.stat().st_mode) == 0o444
    old.chmod(0o644)
    assert export(env, decks, old).returncode == 0  # and once writable, it is replaced


def test_the_refusal_comes_before_the_decks_load(tmp_path, env):
    """A big bank takes seconds to load: a FIFO output is refused first, so even a broken deck folder
    gets the output's message, not the deck's."""
    decks = deck_folder(tmp_path, cards="  - {id: a, type: basic}\n")  # fails to load
    fifo = tmp_path / "out.apkg"
    os.mkfifo(fifo)
    run = export(env, decks, fifo)
    assert run.returncode == 1 and "it is a FIFO" in run.stderr and "small.yaml" not in run.stderr


# ---------------------------------------------------------------- F9: nothing left behind


def test_a_write_error_mid_export_leaves_no_temporary_file_or_scratch_folder(tmp_path, env):
    """A file-size limit (ulimit -f) makes the scratch collection's write fail half way, as a full disk
    does: exit 1 with the reason, the old package whole, nothing left."""
    decks = big_deck(tmp_path, 3000)
    out = tmp_path / "big.apkg"
    assert export(env, decks, out).returncode == 0
    kept = digest(out)
    limit = 500_000  # bytes: more than the ledger and the package, less than the collection built first

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = subprocess.run([sys.executable, "-m", "studyapp", "--decks", str(decks), "export", "anki", "big", "-o", str(out)],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip().splitlines()[-1] == (f"studyapp: error: cannot write {out}: building its collection in {env['TMPDIR']} "
                                  "failed (disk I/O error); free space there, or set TMPDIR to a folder with room")
    assert digest(out) == kept
    assert temporaries(tmp_path) == [] and scratch_of(env) == []


def start_export(env, decks: Path, output: Path) -> subprocess.Popen:
    # As from a terminal, where Ctrl-C reaches the program: a test run started in the background
    # of a non-interactive shell passes SIGINT on ignored, and Python then keeps ignoring it.
    return subprocess.Popen([sys.executable, "-m", "studyapp", "--decks", str(decks), "export", "anki", "big", "-o",
                             str(output)], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_until_writing(process: subprocess.Popen, folder: Path, env) -> tuple[list[str], list[str]]:
    """Until the export has its temporary package and its scratch folder with the collection in it (it is
    writing): the folder is made a moment before the collection, and a kill in that moment leaves no file."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        temps = [n for n in temporaries(folder) if n.startswith(".studyapp-export-big.apkg.")]
        scratch = [n for n in scratch_of(env) if n.startswith("studyapp-export-")]
        if temps and scratch and (Path(env["TMPDIR"]) / scratch[0] / "collection.anki2").exists():
            return temps, scratch
        if process.poll() is not None:
            pytest.fail(f"the export ended before it was caught writing: {process.communicate()}")
        time.sleep(0.005)
    pytest.fail("the export never started writing")


@pytest.mark.parametrize("signum, code, says", [
    (signal.SIGINT, 130, "studyapp: interrupted"),
    (signal.SIGTERM, 128 + signal.SIGTERM, "studyapp: SIGTERM: export stopped; the previous package is unchanged"),
    (signal.SIGHUP, 128 + signal.SIGHUP, "studyapp: SIGHUP: export stopped; the previous package is unchanged"),
], ids=["ctrl-c", "sigterm", "sighup"])
def test_an_interrupted_export_cleans_up_after_itself(tmp_path, env, signum, code, says):
    decks = big_deck(tmp_path, 8000)
    out = tmp_path / "big.apkg"
    assert export(env, decks, out).returncode == 0
    kept = digest(out)
    process = start_export(env, decks, out)
    wait_until_writing(process, tmp_path, env)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr
    assert stderr.strip().splitlines()[-1] == says
    assert digest(out) == kept
    assert temporaries(tmp_path) == [] and scratch_of(env) == []


def test_what_a_sigkill_leaves_is_removed_by_the_next_export_and_nothing_in_use(tmp_path, env, monkeypatch):
    """6c: kill -9 mid-export leaves the temporary package and the scratch folder (no code runs); the
    next export removes them. A lookalike another live process holds (its flock) is left alone."""
    decks = big_deck(tmp_path, 8000)
    out = tmp_path / "big.apkg"
    assert export(env, decks, out).returncode == 0
    kept = digest(out)
    process = start_export(env, decks, out)
    temps, scratch = wait_until_writing(process, tmp_path, env)
    process.kill()
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    # The review's finding, reproduced: the kill left both, with the old package whole.
    assert temporaries(tmp_path) == temps and scratch_of(env) == scratch
    assert (Path(env["TMPDIR"]) / scratch[0] / "collection.anki2").exists()
    assert digest(out) == kept
    # A live export's files look the same; this one's lock is held by the test, as a running export holds it.
    busy = tmp_path / ".studyapp-export-busy.apkg.x1.tmp"
    busy.write_bytes(b"in use")
    busy_folder = Path(env["TMPDIR"]) / "studyapp-export-busy"
    busy_folder.mkdir()
    holders = [os.open(busy, os.O_RDONLY), os.open(busy_folder, os.O_RDONLY)]
    try:
        for holder in holders:
            fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        run = export(env, decks, out)
        assert run.returncode == 0, run.stderr
        assert temporaries(tmp_path) == [busy.name]
        assert scratch_of(env) == [busy_folder.name]
    finally:
        for holder in holders:
            os.close(holder)
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None  # the new package, whole
    # Released, they are leftovers like any other (this process looks in the same temporary folder).
    import tempfile

    monkeypatch.setenv("TMPDIR", env["TMPDIR"])
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert sorted(p.name for p in remove_leftovers(tmp_path)) == sorted([busy.name, busy_folder.name])
    assert temporaries(tmp_path) == [] and scratch_of(env) == []


def test_leftovers_of_another_user_or_a_planted_link_are_not_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("keep")
    (tmp_path / "tmp" / "studyapp-export-planted").symlink_to(victim)
    (tmp_path / ".studyapp-export-link.tmp").symlink_to(victim / "keep")
    assert remove_leftovers(tmp_path) == []
    assert (victim / "keep").read_text() == "keep"


# ---------------------------------------------------------------- F14: hostile decks reach Anki escaped

HOSTILE_TAG = "<img/src=x/onerror=alert('tag')>"
HOSTILE_TITLE = "Inject <b>deck</b> <script>alert('decktitle')</script> [sound:../../etc/passwd]"


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def test_tags_and_deck_names_reach_anki_as_text(tmp_path, env):
    """4d: a tag and a deck title with HTML, rendered by Anki's own backend through a learner's template
    that shows {{Tags}} and {{Deck}}: no element, handler or sound from them; the text is shown."""
    from anki_helpers import fresh_collection, import_package, visible

    tags = f'tags: ["{HOSTILE_TAG}", "[sound:x.mp3]"]\n'
    decks = deck_folder(tmp_path, "inject", title=f'"{HOSTILE_TITLE}"', tags=tags)
    out = tmp_path / "inject.apkg"
    run = export(env, decks, out)
    assert run.returncode == 0, run.stderr
    collection = fresh_collection(tmp_path / "anki")
    try:
        import_package(collection, out)
        (card_id,) = collection.find_cards("")
        card = collection.get_card(card_id)
        model = card.note().note_type()
        model["tmpls"][0]["qfmt"] += "<div class=t>{{Tags}}</div><div class=d>{{Deck}}</div>"
        collection.models.update_dict(model)
        card = collection.get_card(card_id)
        question = card.question(reload=True)
        parser = Elements()
        parser.feed(question)
        names = {tag for tag, _ in parser.tags}
        assert not names & {"img", "script", "b", "svg", "iframe", "a"}, question
        assert not any(attr.startswith("on") for _, attrs in parser.tags for attr, _ in attrs)
        assert card.question_av_tags() == []
        shown = visible(question)
        assert HOSTILE_TAG in shown and "<script>alert('decktitle')</script>" in shown
        deck_names = [d.name for d in collection.decks.all_names_and_ids()]
        assert not any("<" in name for name in deck_names), deck_names
    finally:
        collection.close()


def test_a_deeply_nested_ledger_is_an_error_naming_it_and_export_works_once_moved_aside(tmp_path, env):
    """6f: the shipped ledger nested 100,000 deep was a RecursionError traceback."""
    decks = deck_folder(tmp_path)
    ledger = decks / "anki-ledger.json"
    ledger.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    out = tmp_path / "out.apkg"
    run = export(env, decks, out)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith(f"{ledger}:1:1: error: the Anki export ledger is nested far deeper than a ledger is")
    assert f"or move it aside (mv {ledger} {ledger}.broken) and export again: export works without it" in line
    assert not out.exists()
    ledger.rename(ledger.with_name("anki-ledger.json.broken"))
    again = export(env, decks, out)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Wrote {out}: 1 deck, 1 note")


@pytest.mark.parametrize("mtime", ["1e30", "1000000000000000000000000000000", "-5", "true", '"12"'])
def test_a_ledger_time_no_anki_can_hold_is_refused(tmp_path, env, mtime):
    decks = deck_folder(tmp_path)
    ledger = decks / "anki-ledger.json"
    ledger.write_text('{"schema": 1, "notetypes": {}, "notes": {"g": {"hash": "h", "mtime": %s}}}' % mtime,
                      encoding="utf-8")
    run = export(env, decks, tmp_path / "out.apkg")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"{ledger}:1:1: error: the Anki export ledger has an unexpected shape (mtime " in run.stderr
    assert "is not whole seconds from 0 to 253402300799)" in run.stderr and "move it aside" in run.stderr
