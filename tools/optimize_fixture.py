"""Write tests/fixtures/optimize_expected.json: the fit of the fixture log that tests/test_optimize.py holds fixed.

    python tools/optimize_fixture.py

Only when fsrs-rs-python's pin or tests/optimize_support.py changes (the numbers are the
crate's, on the same items Anki builds; tests/test_optimize_parity.py holds those to Anki).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from optimize_support import SPECS, deck_for, history, record, settings_for  # noqa: E402

from studyapp.core import optimize  # noqa: E402
from studyapp.core.clock import FakeClock  # noqa: E402
from studyapp.core.settings import Location  # noqa: E402
from studyapp.store import open_store  # noqa: E402


def main() -> int:
    spec = SPECS[6]
    h = history(spec)
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Location(Path(folder), "fixture", ()), clock=FakeClock(h["now_ms"]))
        store.save_settings(settings_for(spec))
        store.sync([deck_for(h)])
        record(store, h)
        fit, _ = optimize.optimize_preset(store, now_ms=h["now_ms"], save=False)
        store.close()
    out = ROOT / "tests" / "fixtures" / "optimize_expected.json"
    out.write_text(json.dumps({
        "about": f"studyapp optimize on tests/optimize_support.py SPECS[6] (seed {spec['seed']}); "
                 "written by tools/optimize_fixture.py",
        "counts": [fit.reviews, fit.items, fit.cards], "parameters": list(fit.parameters)}, indent=1) + "\n")
    print(f"{out}: {fit.reviews} reviews, {fit.items} items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
