"""The terminal app: start-up in a real terminal, grade key to next card, memory at 100,000 items.

    python bench/bench_tui.py [--quick]

Figures, each against a bare Textual app that shows one label (the floor any Textual app
pays):

- process start to first screen: tmux starts ``studyapp study <deck>`` (bundled decks, a home
  that already has a database) and the screen is polled until the card's hint is drawn;
  the baseline is the bare app until its label is drawn. Medians of repeated runs.
- grade key to the next card drawn, with 100,000 items and 1,000,000 review-log rows in the
  database: a key event is posted to the running app (headless) and the clock stops when the
  screen has been refreshed with the next card; the baseline is a key that changes the bare
  app's label, timed the same way.
- peak memory (max RSS) with that database open in a review session, against the bare app.

The database is built with bench_engine's builder (quick: a tenth of the size). Each app
runs in a child process, so the figures do not share one interpreter's warm caches.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from common import markdown, row  # noqa: E402

DECK = "pytorch-mega-cache"
READY_TEXT = "Space: show the answer"
BARE_TEXT = "bare textual app ready"

BARE_APP = f'''
from textual.app import App
from textual.widgets import Label


class Bare(App):
    BINDINGS = [("3", "change", "change"), ("q", "quit", "quit")]

    def compose(self):
        yield Label("{BARE_TEXT}", id="label")

    def action_change(self):
        self.count = getattr(self, "count", 0) + 1
        self.query_one("#label").update(f"changed {{self.count}}")


if __name__ == "__main__":
    Bare().run()
'''


# ---------------------------------------------------------------- start-up in tmux

class _Tmux:
    def __init__(self) -> None:
        self.socket = f"studyapp-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.errors: list[str] = []  # for the message when a screen never appears

    def __call__(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=60)
        if result.returncode:
            self.errors.append(f"tmux {args[0]}: exit {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=60)


# A warm-up start is left running this long after its first screen: the app saves its parsed CSS
# and compiled dataclass methods when that screen is up and again a second later (commands/tui.py
# STYLES_RECORDED_S), and a start killed at once could lose the race to write them, so that the
# next starts ran without them (some 80 ms slower each, and a temporary file left behind).
WARM_UP_LINGER_S = 1.5


def _time_to_text(tmux: _Tmux, command: str, text: str, timeout: float = 30.0, linger: float = 0.0) -> float:
    """Seconds from starting ``command`` in a fresh tmux window to ``text`` on its screen; the window
    is killed ``linger`` seconds after that (a warm-up's: WARM_UP_LINGER_S)."""
    name = f"w{uuid.uuid4().hex[:6]}"
    start = time.perf_counter()
    tmux.errors.clear()
    tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", command)
    screen = ""
    try:
        while time.perf_counter() - start < timeout:
            screen = tmux("capture-pane", "-p", "-t", name)
            if text in screen:
                seen = time.perf_counter() - start
                time.sleep(linger)
                return seen
        # Seen a few times on the shared machine, never reproduced alone: say all we know.
        raise RuntimeError(f"{text!r} never appeared within {timeout:.0f} s on the screen of: {command}; "
                           f"tmux said: {'; '.join(tmux.errors[-3:]) or 'nothing'}; "
                           f"last screen: {screen.strip()[-800:]!r}")
    finally:
        tmux("kill-session", "-t", name)


def startup(runs: int, work: Path) -> tuple[float, float]:
    """(studyapp, bare) median seconds to the first screen, interleaved run by run."""
    home = work / "home"
    bare = work / "bare_app.py"
    bare.write_text(BARE_APP, encoding="utf-8")
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "STUDYAPP_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work)}
    prefix = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    python = shlex.quote(sys.executable)
    study = f"{prefix} {python} -m studyapp study {DECK}"
    baseline = f"{prefix} {python} {shlex.quote(str(bare))}"
    tmux = _Tmux()
    # A session that outlives every measured one: killing the last session stops the tmux
    # server, and the next new-session could reach a server on its way out (the app's window
    # then never appeared, now and then, on the shared machine).
    tmux("new-session", "-d", "-s", "keeper", "-x", "20", "-y", "5", "cat")
    try:
        # Warm-up: creates the learner's database and the deck cache, as any second start finds them.
        _time_to_text(tmux, study, READY_TEXT, timeout=120, linger=WARM_UP_LINGER_S)
        _time_to_text(tmux, baseline, BARE_TEXT, timeout=120)
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(_time_to_text(tmux, study, READY_TEXT))
            theirs.append(_time_to_text(tmux, baseline, BARE_TEXT))
    finally:
        tmux.close()
    return statistics.median(ours), statistics.median(theirs)


# ---------------------------------------------------------------- children: keypress latency and memory

def _max_rss_mb() -> float:
    """This process's peak resident memory since it started its own program.

    Not ``getrusage(...).ru_maxrss``: on Linux that keeps the high-water mark from before
    ``exec``, when the forked child still counted all of its parent's pages, so a child of
    a large benchmark process reported the parent's size (both apps showed 225 MB).
    VmHWM belongs to the memory map ``exec`` created.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _key_latencies(app, ready, changed, presses: int) -> list[float]:
    """Post key "3" (after a space where the app needs a reveal) and time it to the next refresh."""
    from textual import events

    latencies = []
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(6000):
            if ready():
                break
            await pilot.pause()
        else:
            raise RuntimeError("the app never showed its first screen")
        await pilot.pause()
        loop = asyncio.get_running_loop()
        for _ in range(presses):
            if await app.prepare_key():
                await pilot.pause()  # let the revealed answer draw before the clock starts
            drawn = loop.create_future()
            before = changed()
            app.on_drawn = lambda: drawn.done() or drawn.set_result(time.perf_counter())
            start = time.perf_counter()
            app._driver.send_message(events.Key("3", "3"))
            stamp = await asyncio.wait_for(drawn, 30)
            if changed() == before:
                raise RuntimeError("the key did not change the screen")
            latencies.append(stamp - start)
            await pilot.pause()
    return latencies


def child_studyapp(folder: str, items: int, presses: int) -> dict:
    """Open the benchmark database in a review session and time grade key -> next card drawn."""
    from bench_engine import _decks

    from studyapp.core.catalog import Catalog
    from studyapp.core.settings import Location
    from studyapp.tui.app import Start, StudyApp
    from studyapp.tui.config import UIConfig
    from studyapp.tui.screens.review import ReviewScreen
    from studyapp.tui.services import Services

    decks = _decks(items)
    services = Services(Location(Path(folder), "bench", ()), catalog=Catalog(decks=decks))

    class Timed(StudyApp):
        on_drawn = staticmethod(lambda: None)

        async def prepare_key(self) -> bool:
            """Reveal the card, so that the timed key grades it."""
            screen = self.screen
            if not screen.revealed:
                screen.action_reveal()
                return True
            return False

    app = Timed(services, UIConfig(Path(folder) / "config.toml"), Start("study"))
    opened = time.perf_counter()

    def ready() -> bool:
        return isinstance(app.screen, ReviewScreen) and app.screen.shown is not None

    original_show = ReviewScreen._show

    def show_and_stamp(self, shown) -> None:
        original_show(self, shown)
        self.call_after_refresh(lambda: app.on_drawn())

    ReviewScreen._show = show_and_stamp
    latencies = asyncio.run(_key_latencies(app, ready, lambda: app.screen.shown.key, presses))
    services.close()
    return {"latencies": latencies, "rss_mb": _max_rss_mb(), "open_s": time.perf_counter() - opened}


def child_bare(presses: int) -> dict:
    namespace: dict = {}
    exec(compile(BARE_APP.replace('if __name__ == "__main__":\n    Bare().run()', ""), "bare_app", "exec"), namespace)

    class Timed(namespace["Bare"]):
        on_drawn = staticmethod(lambda: None)

        async def prepare_key(self) -> bool:
            return False

        def action_change(self) -> None:
            super().action_change()
            self.call_after_refresh(lambda: self.on_drawn())

    app = Timed()
    latencies = asyncio.run(_key_latencies(app, lambda: app.screen.query("#label"),
                                           lambda: str(app.query_one("#label").render()), presses))
    return {"latencies": latencies, "rss_mb": _max_rss_mb()}


def _child(*args: str) -> dict:
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args], capture_output=True,
                            text=True, timeout=1800, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"bench child {args} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the figures

def run(quick: bool = False) -> list[dict]:
    from bench_engine import build_studyapp

    items, log_rows = (10_000, 100_000) if quick else (100_000, 1_000_000)
    runs, presses = (3, 20) if quick else (9, 60)
    size = f"{items:,} items, {log_rows:,} log rows"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as tmp:
        work = Path(tmp)
        if shutil.which("tmux"):
            ours, bare = startup(runs, work)
            rows.append(row("TUI: process start to first card drawn (tmux, bundled decks)", ours * 1000,
                            bare * 1000, "ms", note=f"median of {runs}; baseline: a bare Textual app showing one label"))
        else:
            rows.append(row("TUI: process start to first card drawn (tmux)", None, None, "ms",
                            note="not measured: tmux is not installed"))
        now = int(time.time() * 1000)
        store, *_ = build_studyapp(work / "db", items, log_rows, now)
        store.close()
        ours = _child("studyapp", str(work / "db"), str(items), str(presses))
        bare = _child("bare", str(presses))
    ours_ms = [x * 1000 for x in ours["latencies"]]
    bare_ms = [x * 1000 for x in bare["latencies"]]
    rows.append(row(f"TUI: grade key to next card drawn ({size})", statistics.median(ours_ms),
                    statistics.median(bare_ms), "ms",
                    note=f"median of {presses} (p90 {_p90(ours_ms):.1f} ms), headless; answer + next item + redraw; "
                         "baseline: a key that changes the bare app's label"))
    rows.append(row(f"TUI: peak memory, review session open ({size})", ours["rss_mb"], bare["rss_mb"], "MB",
                    note="peak resident memory (VmHWM) of the app's own process; baseline: the bare Textual app"))
    return rows


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


if __name__ == "__main__":
    if "--child" in sys.argv:
        args = sys.argv[sys.argv.index("--child") + 1:]
        if args[0] == "studyapp":
            print(json.dumps(child_studyapp(args[1], int(args[2]), int(args[3]))))
        else:
            print(json.dumps(child_bare(int(args[1]))))
    else:
        print(markdown(run("--quick" in sys.argv), baseline="bare Textual"))
