"""report --format html: one self-contained page whose charts a real browser draws.

Headless Chromium (Debian's chromium package; CI's .ci/run installs it) loads the file from disk
with the network off, and its screenshot is read pixel by pixel for each chart's colour.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from studyapp.core.catalog import bundled_decks_dir, load_paths
from studyapp.core.clock import DAY_MS, FakeClock, SystemClock
from studyapp.core.session import ReviewSession
from studyapp.core.settings import resolve
from studyapp.onboarding import html as report_html
from studyapp.store import open_store

from cli_runner import ROOT, run_cli


def _history(home: Path, days: int = 12) -> None:
    """A learner who studied two decks for ``days`` days, with some answers Again."""
    clock = FakeClock(SystemClock().now_ms() - days * DAY_MS)
    decks = load_paths([bundled_decks_dir()]).decks[:2]
    with open_store(resolve(str(home), "default", [], environ={}), clock=clock) as store:
        for _ in range(days):
            session = ReviewSession(store, decks, clock=clock)
            for index in range(12):
                if session.next() is None:
                    break
                session.answer(1 if index % 4 == 0 else 3, duration_ms=3000)
                clock.advance(minutes=1)
            clock.advance(days=1)


def test_the_series_count_what_was_answered_each_day():
    day_of = lambda ms: ms // DAY_MS  # noqa: E731
    date_of = lambda day: f"d{day}"  # noqa: E731
    log = [(1, "review", 3, 10 * DAY_MS, "learning", 1.0), (1, "review", 1, 10 * DAY_MS + 5, "relearning", 0.5),
           (2, "review", 4, 11 * DAY_MS, "review", 30.0), (2, "cram", 3, 11 * DAY_MS + 9, "review", 30.0),
           (1, "review", 3, 12 * DAY_MS, "review", 25.0), (2, "reset", 0, 13 * DAY_MS, "new", None)]
    series = report_html.learner_series(log, items_total=4, due_ms=[14 * DAY_MS, 14 * DAY_MS + 1, 20 * DAY_MS],
                                        today=13, day_of=day_of, date_of=date_of)
    assert series.reviews[-4:] == [("d10", 2, 1), ("d11", 1, 0), ("d12", 1, 0), ("d13", 0, 0)]
    assert series.mastery == [("d10", 0.0), ("d11", 0.25), ("d12", 0.5), ("d13", 0.25)]
    assert series.forecast[:2] == [("d13", 0), ("d14", 2)] and series.forecast[7] == ("d20", 1)
    assert len(series.forecast) == report_html.FORECAST_DAYS


def test_the_page_is_self_contained_and_escapes_what_it_did_not_write(tmp_path):
    home = tmp_path / "home"
    _history(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(STUDYAPP_HOME=str(home), PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    done = run_cli(["report", "--format", "html"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert page.startswith("<!DOCTYPE html>") and page.count('<svg class="chart"') == 3
    for outside in ("<script", "http://", "https://", "<link", "@import", "src="):
        assert outside not in page
    hostile = report_html.team_html({"learners": [{"profile": "<img src=x onerror=alert(1)>", "status": "on track",
                                                   "mastery": 0.5, "reviews": 3, "retention": 0.9}],
                                     "decks": [], "cards": []})
    assert "<img" not in hostile and "&lt;img src=x onerror=alert(1)&gt;" in hostile


def _pixels(png: bytes):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks, header = 8, [], None
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        data = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            chunks.append(data)
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    size = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * size
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - size] if x >= size else 0
            up, corner = previous[x], previous[x - size] if x >= size else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, size)])
        previous = line
    return width, height, rows


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def test_a_real_browser_draws_every_chart_with_no_console_error(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("this test needs Chromium: apt-get install chromium (CI's .ci/run installs it)")
    home = tmp_path / "home"
    _history(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    env.update(STUDYAPP_HOME=str(home), PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    page = tmp_path / "report.html"
    page.write_text(run_cli(["report", "--format", "html"], env, cwd=tmp_path).stdout, encoding="utf-8")
    shot = tmp_path / "report.png"
    browser = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--window-size=800,1500", f"--screenshot={shot}", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert shot.exists(), browser.stderr[-2000:]
    console = [line for line in browser.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    _, _, rows = _pixels(shot.read_bytes())
    seen = {}
    for row in rows:
        for pixel in row:
            seen[pixel] = seen.get(pixel, 0) + 1
    for name in ("MASTERY", "BAR", "AGAIN", "DUE"):
        assert seen.get(_rgb(getattr(report_html, name)), 0) > 200, f"the {name.lower()} chart was not drawn"
    # and the numbers under them are this learner's
    data = json.loads(run_cli(["report", "--format", "json"], env, cwd=tmp_path).stdout)
    assert data["totals"]["reviews"] > 0 and f"{data['totals']['reviews']} reviews" in page.read_text()
