"""Anki export: studyapp against genanki writing the same notes with no studyapp code.

    python bench/bench_export.py [--quick]

Rows: 10,000 generated notes (all five card types) exported by studyapp, first with no
ledger in the home folder (every note is new and remembered) and then again with nothing
changed; the bundled decks in-process; and ``studyapp export anki`` end to end in a
fresh process against ``python -c pass``.

What each side's clock covers:
- studyapp: all of ``export_anki``: planning every note (escaping the fields, GUIDs,
  tags, content hashes, ledger look-ups), reading and writing the ledger, the SQLite
  collection, the deflated zip, the fsync and the atomic rename.
- baseline: stock genanki only: ``genanki.Note`` objects and ``Package.write_to_file``
  (its own checks and inserts, an uncompressed zip). Its inputs (the same notes: the
  same card text escaped with ``html.escape``, the same GUIDs, tags, decks and order) are
  computed before its clock starts, as producing them is not genanki's work.
Runs alternate (baseline, first, again, round after round) so that a busy spell on a
shared machine weighs on both sides alike.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import command_env, interleaved_medians, row  # noqa: E402
from synth import synth_cards  # noqa: E402

import genanki  # noqa: E402

from studyapp.core.catalog import bundled_decks_dir, load_paths  # noqa: E402
from studyapp.core.models import Card, Deck  # noqa: E402
from studyapp.export.anki import export_anki  # noqa: E402


def synth_decks(count: int, folder: Path, decks: int = 4) -> list[Deck]:
    """``count`` cards as Deck objects (no YAML: this measures the export alone)."""
    cards = [_card(raw) for raw in synth_cards(count)]
    per_deck = -(-count // decks)
    return [Deck(f"bench-{d}", f"Bench deck {d}", folder / f"bench-{d}.yaml", folder / "no-seed.md",
                 tuple(cards[d * per_deck:(d + 1) * per_deck]), "", ("bench",)) for d in range(decks)]


def _card(raw: dict) -> Card:
    source = raw["source"]
    return Card(
        id=raw["id"], type=raw["type"], source=(source,) if isinstance(source, str) else tuple(source),
        front=raw.get("front", ""), back=raw.get("back", ""), text=raw.get("text", ""),
        statement=raw.get("statement", ""), choices=tuple(raw.get("choices", ())), answer=raw.get("answer"),
        feedback=dict(raw.get("feedback", {})), accept=tuple(raw.get("accept", ())),
        explanation=raw.get("explanation", ""), tags=tuple(raw.get("tags", ())),
    )


# -- the baseline: stock genanki, no studyapp code in the timed part ---------------------

_FIELDS = [{"name": n} for n in ("Question", "Answer", "Explanation", "Source", "Document", "Id", "Spare")]
_BACK = "{{FrontSide}}<hr id=answer>{{Answer}}<div>{{Explanation}}</div><div>{{Source}}</div><div>{{Document}}</div>"


def _baseline_models() -> dict[str, genanki.Model]:
    front_back = {"qfmt": "{{Question}}", "afmt": _BACK}
    return {
        "basic": genanki.Model(1607392319, "bench basic", fields=_FIELDS, templates=[{"name": "Card", **front_back}]),
        "reverse": genanki.Model(1607392320, "bench reverse", fields=_FIELDS, templates=[
            {"name": "Forward", **front_back},
            {"name": "Backward", "qfmt": "{{Answer}}", "afmt": "{{FrontSide}}<hr id=answer>{{Question}}"}]),
        "cloze": genanki.Model(1607392321, "bench cloze", fields=_FIELDS, model_type=genanki.Model.CLOZE, templates=[
            {"name": "Cloze", "qfmt": "{{cloze:Question}}", "afmt": "{{cloze:Question}}<br>{{Explanation}}"}]),
        "choice": genanki.Model(1607392322, "bench choice", fields=_FIELDS, templates=[{"name": "Card", **front_back}]),
        "truefalse": genanki.Model(1607392323, "bench truefalse", fields=_FIELDS,
                                   templates=[{"name": "Card", **front_back}]),
    }


def _baseline_rows(decks: list[Deck]) -> list[tuple[str, str, list[str], list[str], str]]:
    """(deck name, card type, fields, tags, guid) per card, computed before timing starts."""
    rows = []
    for deck in decks:
        for card in deck.cards:
            if card.type == "choice":
                question = html.escape(card.front) + "".join(f"<li>{html.escape(c)}</li>" for c in card.choices)
                answer = html.escape(str(card.answer))
            elif card.type == "cloze":
                question, answer = card.text, ""  # deletions kept as they are
            elif card.type == "truefalse":
                question, answer = html.escape(card.statement), str(card.answer)
            else:
                question, answer = html.escape(card.front), html.escape(card.back)
            fields = [question, answer, html.escape(card.explanation), "<br>".join(map(html.escape, card.source)),
                      html.escape(deck.title), f"{deck.id}/{card.id}", ""]
            tags = [*deck.tags, *card.tags, f"type::{card.type}"]
            rows.append((f"studyapp::{deck.title}", card.type, fields, tags,
                         genanki.guid_for("studyapp", deck.id, card.id)))
    return rows


def _genanki_export(rows, models, out: Path) -> None:
    decks: dict[str, genanki.Deck] = {}
    for position, (deck_name, card_type, fields, tags, guid) in enumerate(rows):
        deck = decks.setdefault(deck_name, genanki.Deck(1607392400 + len(decks), deck_name))
        deck.add_note(genanki.Note(model=models[card_type], fields=fields, tags=tags, guid=guid, due=position))
    genanki.Package(list(decks.values())).write_to_file(str(out), timestamp=time.time())


# -- the measurements ----------------------------------------------------------------------


def _pair(label: str, decks: list[Deck], repeat: int, tmp: Path, note: str) -> list[dict]:
    models = _baseline_models()
    rows = _baseline_rows(decks)
    home = tmp / "home"
    out = tmp / "bench.apkg"
    clear_home = lambda: shutil.rmtree(home, ignore_errors=True)  # noqa: E731

    # Stock genanki leaves its SQLite file behind in the temporary folder: keep those in ours.
    saved, tempfile.tempdir = tempfile.tempdir, str(tmp)
    try:
        # "again" follows "first" in each round, so it always finds the ledger "first" wrote.
        medians = interleaved_medians({
            "baseline": lambda: _genanki_export(rows, models, tmp / "baseline.apkg"),
            "first": lambda: export_anki(decks, out, home=home),
            "again": lambda: export_anki(decks, out, home=home),
        }, repeat, setups={"first": clear_home})
    finally:
        tempfile.tempdir = saved
    baseline, first, again = medians["baseline"], medians["first"], medians["again"]
    return [
        row(f"export {label}, first time (ledger written)", first * 1000, baseline * 1000, "ms", note=note),
        row(f"export {label}, again unchanged", again * 1000, baseline * 1000, "ms", note=note),
    ]


def _cli(repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = command_env(Path(tmp) / "home", Path(tmp) / "pycache")

        def command(args: list[str]):
            return lambda: subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          check=True)

        export = command([sys.executable, "-m", "studyapp", "export", "anki", "-o", str(Path(tmp) / "all.apkg")])
        export()  # bytecode and deck cache written, as for an installed copy used before
        times = interleaved_medians({"baseline": command([sys.executable, "-c", "pass"]), "export": export}, repeat)
        baseline, ours = times["baseline"], times["export"]
    return row("`studyapp export anki` (bundled decks), end to end", ours * 1000, baseline * 1000, "ms",
               note="fresh process: start-up, loading and checking the decks, export; baseline `python -c pass`")


def run(quick: bool = False) -> list[dict]:
    size = 1_000 if quick else 10_000
    repeat = 3 if quick else 7
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        decks = synth_decks(size, Path(tmp))
        rows += _pair(f"{size:,} generated notes", decks, repeat, Path(tmp),
                      "studyapp: the whole export_anki (fields, GUIDs, ledger, SQLite, deflated zip, fsync); "
                      "baseline: stock genanki's Note + write_to_file on precomputed fields, GUIDs and tags")
    with tempfile.TemporaryDirectory() as tmp:
        bundled = load_paths([bundled_decks_dir()]).decks
        notes = sum(len(d.cards) for d in bundled)
        rows += _pair(f"the bundled decks ({notes} notes)", bundled, repeat * 3, Path(tmp),
                      "in-process, decks already loaded; baseline: stock genanki, same notes")
    rows.append(_cli(repeat if quick else 11))
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "-"
        print(f"{r['figure']}: {r['studyapp']:.1f} {r['unit']} vs {r['baseline']:.1f} {r['unit']} ({ratio})")
