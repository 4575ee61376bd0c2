"""The deck summary kept beside the deck cache (core/decksummary.py) only ever changes speed: the report
from it is the report from the catalog, and any change to a deck file, its seed or the folders makes
the catalog load again."""

from __future__ import annotations

import os
import shutil

import pytest

from studyapp.core import decksummary
from studyapp.core.catalog import bundled_decks_dir, discover, summary_roots
from studyapp.core.clock import FakeClock
from studyapp.core.language import localize
from studyapp.onboarding.collect import collect_report
from studyapp.store import open_store

from cli_runner import run_cli
from engine_support import location

NOW = 1_790_000_000_000
DECK = ("schema: 2\nid: d\ntitle: {zh: 甲, en: D}\nlanguages: [zh, en]\nseed: ../seed.md\ncards:\n"
        "  - {id: a, type: basic, front: {zh: 第一个是什么？, en: What is first?}, back: alpha, source: alpha, related: [b]}\n"
        "  - {id: b, type: reverse, front: {zh: 哪个？, en: Which?}, back: beta, source: beta}\n"
        "  - {id: c, type: cloze, text: 'the {{c1::alpha}} and {{c2::beta}}', source: alpha beta}\n"
        "  - {id: e, type: basic, front: Alone?, back: yes, source: alpha, related: [c]}\n")


def folder_with_decks(tmp_path):
    (tmp_path / "seed.md").write_text("alpha beta", encoding="utf-8")
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "d.yaml").write_text(DECK, encoding="utf-8")
    (decks / "broken.yaml").write_text("schema: 1\nid: broken\ncards: [", encoding="utf-8")
    return decks, tmp_path / "home" / "cache" / "decks.pickle"


def bump_mtime(path):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_the_report_from_the_summary_is_the_report_from_the_catalog(tmp_path):
    decks, cache_file = folder_with_decks(tmp_path)
    catalog = discover([decks], cache_file=cache_file)
    summary = decksummary.load(cache_file, summary_roots([decks]))
    assert summary is not None and summary == decksummary.summarize(catalog)
    assert [d.id for d in summary.decks] == [d.id for d in catalog.decks] and "d" in [d.id for d in summary.decks]
    assert [path.name for path, _ in summary.broken] == ["broken.yaml"] and summary.broken[0][1]
    # Progress with mastered items, so that the facts (related cards join) count.
    loc = location(tmp_path)
    store = open_store(loc, clock=FakeClock(NOW))
    store.sync(catalog.decks)
    store.conn.execute("UPDATE items SET state = 'review', stability = 30 WHERE key LIKE 'd/a/%' OR key LIKE 'd/b/%'")
    store.close()
    from_catalog = collect_report(loc, catalog, clock=FakeClock(NOW))
    from_summary = collect_report(loc, summary, clock=FakeClock(NOW))
    assert from_summary == from_catalog
    row = next(r for r in from_summary["decks"] if r["id"] == "d")
    items = len(next(d for d in catalog.decks if d.id == "d").items())
    assert (row["items"], row["facts"], row["mastered"], row["mastered_facts"]) == (items, 2, 3, 1) and items >= 5


@pytest.mark.parametrize("choice", [None, "zh", "en", "both", "fr"])
def test_the_summarys_title_is_the_localized_decks(tmp_path, choice):
    decks, cache_file = folder_with_decks(tmp_path)
    catalog = discover([decks, bundled_decks_dir()], cache_file=cache_file)
    summary = decksummary.summarize(catalog)
    assert [d.shown_title(choice) for d in summary.decks] == [localize(d, choice).title for d in catalog.decks]
    assert [d.items for d in summary.decks] == [len(d.items()) for d in catalog.decks]


@pytest.mark.parametrize("change", ["deck", "seed", "new file", "removed file", "new folder"])
def test_any_change_makes_the_summary_stale(tmp_path, change):
    decks, cache_file = folder_with_decks(tmp_path)
    discover([decks], cache_file=cache_file)
    roots = summary_roots([decks])
    assert decksummary.load(cache_file, roots) is not None
    if change == "deck":
        (decks / "d.yaml").write_text(DECK.replace("Alone?", "On its own?"), encoding="utf-8")
        bump_mtime(decks / "d.yaml")
    elif change == "seed":
        (tmp_path / "seed.md").write_text("alpha beta gamma", encoding="utf-8")
        bump_mtime(tmp_path / "seed.md")
    elif change == "new file":
        (decks / "e.yaml").write_text(DECK.replace("id: d", "id: e"), encoding="utf-8")
    elif change == "removed file":
        (decks / "broken.yaml").unlink()
    else:
        other = tmp_path / "more"
        other.mkdir()
        roots = summary_roots([decks, other])
    assert decksummary.load(cache_file, roots) is None
    # Loading the catalog again writes a summary of what it loaded.
    catalog = discover([decks] if change != "new folder" else [decks, tmp_path / "more"], cache_file=cache_file)
    assert decksummary.load(cache_file, roots) == decksummary.summarize(catalog)


def test_a_corrupt_summary_is_ignored(tmp_path):
    decks, cache_file = folder_with_decks(tmp_path)
    discover([decks], cache_file=cache_file)
    decksummary.summary_file(cache_file).write_bytes(b"not a pickle")
    assert decksummary.load(cache_file, summary_roots([decks])) is None


def test_report_reads_the_summary_and_says_the_same(tmp_path, monkeypatch):
    """Through the command line: the first report loads the catalog, the second only the summary (the
    deck cache is made unreadable to prove it); output and warnings are the same."""
    decks, cache_file = folder_with_decks(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(STUDYAPP_HOME=str(tmp_path / "home"), STUDYAPP_DECKS=str(decks), TZ="UTC")
    study = run_cli(["stats"], env)  # creates the home and its caches
    assert study.returncode == 0, study.stderr
    first = run_cli(["report", "--format", "json"], env)
    assert first.returncode == 0, first.stderr
    assert decksummary.summary_file(cache_file).exists()
    shutil.copy(cache_file, tmp_path / "saved.pickle")
    cache_file.write_bytes(b"unreadable")
    os.utime(cache_file, ns=(0, 0))
    second = run_cli(["report", "--format", "json"], env)
    assert second.returncode == 0 and "was not loaded" in second.stderr
    assert second.stderr == first.stderr
    drop = ("generated_ms", "generated")
    import json

    assert {k: v for k, v in json.loads(second.stdout).items() if k not in drop} == \
        {k: v for k, v in json.loads(first.stdout).items() if k not in drop}
    assert cache_file.read_bytes() == b"unreadable"  # the catalog was not loaded (it would rebuild the cache)


def test_todays_counts_from_the_summary_are_the_sessions(tmp_path):
    """A session over the summary's decks (ids and sibling groups, no cards) on a store in step with
    the decks counts each deck as the session over the loaded decks does, through answers that bury
    siblings (related cards join groups), learning steps, the new limit and days passing; and a deck
    that changed since the store's last sync is seen (the fingerprints differ)."""
    from dataclasses import replace

    from studyapp.core.session import ReviewSession

    decks, cache_file = folder_with_decks(tmp_path)
    (decks / "second.yaml").write_text(
        "schema: 1\nid: second\ntitle: Second\nseed: ../seed.md\ncards:\n"
        + "".join(f"  - {{id: q{n}, type: reverse, front: 'Q{n}?', back: alpha, source: alpha}}\n" for n in range(30)),
        encoding="utf-8")
    catalog = discover([decks], cache_file=cache_file)
    summary = decksummary.load(cache_file, summary_roots([decks]))
    ids = [deck.id for deck in catalog.decks]
    assert summary is not None and [d.id for d in summary.decks] == ids and {"d", "second"} <= set(ids)
    clock = FakeClock(NOW)
    store = open_store(location(tmp_path), clock=clock)
    fingerprints = {deck.id: deck.fingerprint for deck in summary.decks}
    assert not store.synced(fingerprints)  # never synced: the catalog is needed
    full = ReviewSession(store, catalog.decks, clock=clock)
    assert store.synced(fingerprints)
    linked = {deck_id for deck_id, _ in summary.sibling_groups()}
    assert "d" in linked and "second" not in linked

    def both():
        loaded = ReviewSession(store, catalog.decks, clock=clock)
        quick = ReviewSession(store, summary.decks, clock=clock, groups=summary.sibling_groups())
        expected = [(p.new, p.learning, p.due) for p in loaded.deck_progress(spans=False)]
        got = [(c.new, c.learning, c.review) for c in map(quick.deck_counts, ids)]
        assert got == expected
        return got

    seen = {tuple(both())}
    settings = store.load_settings()
    store.save_settings(replace(settings, new_per_day=7))
    seen.add(tuple(both()))
    for step, rating in enumerate([3, 1, 4, 3, 1, 3, 3, 2, 3, 4, 1, 3]):
        assert full.next() is not None
        full.answer(rating, 1000)
        clock.advance(minutes=3)
        seen.add(tuple(both()))
        if step == 5:
            # Today's answers bury the siblings related cards share: counting without the groups differs.
            unlinked = ReviewSession(store, summary.decks, clock=clock, groups={})
            assert unlinked.deck_counts("d") != ReviewSession(store, catalog.decks, clock=clock).deck_counts("d")
    for days in (1, 1, 3):
        clock.advance(days=days)
        seen.add(tuple(both()))
    assert len(seen) >= 5  # the counts moved
    # A deck changed since the last sync: its fingerprint is not the store's, and the catalog is needed.
    (decks / "d.yaml").write_text(DECK.replace("alpha, related: [b]", "alpha two, related: [b]", 1)
                                  .replace("id: a,", "id: a2,", 1), encoding="utf-8")
    changed = decksummary.summarize(discover([decks], cache_file=cache_file))
    assert not store.synced({deck.id: deck.fingerprint for deck in changed.decks})
    store.close()


def test_a_summary_with_fingerprints_made_another_way_is_not_used(tmp_path, monkeypatch):
    """Its fingerprints would never match the store's again: the home screen's counts would wait
    for the catalog on every start."""
    decks, cache_file = folder_with_decks(tmp_path)
    discover([decks], cache_file=cache_file)
    roots = summary_roots([decks])
    assert decksummary.load(cache_file, roots) is not None
    monkeypatch.setattr(decksummary, "SYNC_VERSION", decksummary.SYNC_VERSION + 1)
    assert decksummary.load(cache_file, roots) is None
