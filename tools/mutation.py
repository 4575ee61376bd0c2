"""Mutation score of the domain: how many one-line bugs the tests catch, module by module.

    python tools/mutation.py                     # every target below, report in tools/MUTATION.md
    python tools/mutation.py --only matching     # one target (names as in TARGETS)
    python tools/mutation.py --jobs 2            # mutants run in parallel (default: 1)

Each target runs in a scratch copy of the tracked files (mutmut writes a mutants/ tree and
its state beside the code; the working tree is never touched), with mutmut's pytest limited
to the tests that exercise the target. Not part of the default test run: a full pass takes
tens of minutes. Needs the test extras and mutmut (pip install -e '.[test]' mutmut==3.8.1).

A surviving mutant is either killed by a new test or listed, with the reason it cannot be
told apart from the original, in tools/mutation_equivalent.toml; those count as neither
killed nor survived.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "tools" / "MUTATION.md"
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.toml"
TARGET_SCORE = 0.90


@dataclass(frozen=True)
class Target:
    name: str
    what: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]  # globs under the repository


TARGETS = (
    Target("scheduler", "the scheduler", ("studyapp/core/scheduler.py",),
           ("tests/test_scheduler.py", "tests/test_parity.py", "tests/test_session.py")),
    Target("matching", "answer matching", ("studyapp/core/matching.py",),
           ("tests/test_quiz_core.py", "tests/test_matching*.py")),
    Target("loading", "deck loading and checking",
           ("studyapp/core/loader.py", "studyapp/core/lints.py", "studyapp/core/yamlsafe.py"),
           ("tests/test_loader*.py", "tests/test_lints.py", "tests/test_bundled_decks.py", "tests/test_hostile*.py")),
    Target("merge", "the report merge", ("studyapp/onboarding/merge.py",),
           ("tests/test_report*.py", "tests/test_merge*.py", "tests/test_exams.py")),
    Target("anki-ids", "the Anki GUIDs and ledger", ("studyapp/export/ledger.py", "studyapp/export/fields.py"),
           ("tests/test_export_ledger.py", "tests/test_export_anki.py", "tests/test_export_equivalence.py")),
)


@dataclass
class Outcome:
    target: Target
    killed: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    other: dict[str, list[str]] = field(default_factory=dict)  # by mutmut's status: not checked, suspicious
    seconds: float = 0.0
    survived_diffs: dict[str, str] = field(default_factory=dict)

    @property
    def score(self) -> float | None:
        counted = len(self.killed) + len(self.survived)
        return len(self.killed) / counted if counted else None


def tracked_files() -> list[str]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in listing.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


def run_target(target: Target, jobs: int, equivalent: dict[str, str]) -> Outcome:
    scratch = Path(tempfile.mkdtemp(prefix=f"studyapp-mutation-{target.name}-"))
    try:
        for name in tracked_files():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, scratch / name)
        tests = sorted({path for pattern in target.tests for path in glob.glob(pattern, root_dir=ROOT)})
        if not tests:
            raise SystemExit(f"tools/mutation.py: no test file matches {target.tests} for {target.name}")
        config = "\n".join([
            "", "[tool.mutmut]",
            'source_paths = ["studyapp/"]',
            f"only_mutate = {json.dumps(list(target.modules))}",
            f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
            # the tests read the bundled decks and seeds from beside the package
            'also_copy = ["decks", "seeds", "studyapp", "tools"]', "",
        ])
        with open(scratch / "pyproject.toml", "a", encoding="utf-8") as handle:
            handle.write(config)
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)], cwd=scratch,
                              env=env, capture_output=True, text=True)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            raise SystemExit(f"tools/mutation.py: mutmut failed on {target.name} (exit {done.returncode}):\n{tail}")
        from mutmut.stats import status_by_exit_code

        outcome = Outcome(target, seconds=seconds)
        for module in target.modules:
            meta = json.loads((scratch / "mutants" / f"{module}.meta").read_text(encoding="utf-8"))
            for mutant, code in sorted(meta["exit_code_by_key"].items()):
                status = status_by_exit_code[code]
                if mutant in equivalent:
                    outcome.equivalent.append(mutant)
                elif status in ("killed", "timeout", "segfault"):
                    outcome.killed.append(mutant)
                elif status in ("survived", "no tests"):  # no test even reaches the mutated line
                    outcome.survived.append(mutant)
                else:
                    outcome.other.setdefault(status, []).append(mutant)
        outcome.survived_diffs = {m: _show(scratch, m) for m in outcome.survived}
        return outcome
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _show(scratch: Path, mutant: str) -> str:
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", mutant], cwd=scratch,
                           capture_output=True, text=True)
    return "\n".join(line for line in shown.stdout.splitlines()[1:] if line.startswith(("+", "-", "@@"))).strip()


def write_report(outcomes: list[Outcome], commit: str) -> None:
    lines = ["# Mutation score of the domain", "",
             f"`python tools/mutation.py` at {commit}: mutmut 3.8.1 puts one small change at a time into the",
             "module (an operator, a constant, a condition, a return value) and runs the module's tests;",
             "a mutant is killed when a test fails. Target: at least 90% killed in each module. Mutants",
             "listed in tools/mutation_equivalent.toml (with why they behave like the original) are left out.", "",
             "| module | what | mutants | killed | survived | equivalent | other | score | target |",
             "|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        other = sum(len(v) for v in o.other.values())
        total = len(o.killed) + len(o.survived) + len(o.equivalent) + other
        score = "-" if o.score is None else f"{o.score:.1%}"
        verdict = "met" if o.score is not None and o.score >= TARGET_SCORE else "missed"
        lines.append(f"| {', '.join(Path(m).name for m in o.target.modules)} | {o.target.what} | {total} | "
                     f"{len(o.killed)} | {len(o.survived)} | {len(o.equivalent)} | {other} | {score} | {verdict} |")
    for o in outcomes:
        lines += ["", f"## {o.target.what} ({o.seconds:.0f} s)", "",
                  f"Tests: {', '.join(o.target.tests)}"]
        for label, mutants in sorted(o.other.items()):
            lines += ["", f"{label}: {len(mutants)}", *[f"- `{m}`" for m in mutants]]
        if o.survived:
            lines += ["", f"Surviving mutants ({len(o.survived)}):", ""]
            for mutant in o.survived:
                lines += [f"- `{mutant}`", "", "  ```diff", *[f"  {l}" for l in o.survived_diffs[mutant].splitlines()],
                          "  ```"]
    REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[t.name for t in TARGETS])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    equivalent = tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    chosen = [t for t in TARGETS if not args.only or t.name in args.only]
    outcomes = []
    for target in chosen:
        print(f"mutation: {target.name} ({', '.join(target.modules)})...", file=sys.stderr, flush=True)
        outcome = run_target(target, args.jobs, equivalent)
        score = "-" if outcome.score is None else f"{outcome.score:.1%}"
        print(f"mutation: {target.name}: {len(outcome.killed)} killed, {len(outcome.survived)} survived, "
              f"score {score} ({outcome.seconds:.0f} s)", file=sys.stderr, flush=True)
        outcomes.append(outcome)
    write_report(outcomes, commit)
    print(f"mutation: report written to {REPORT.relative_to(ROOT)}", file=sys.stderr)
    return 0 if all(o.score is not None and o.score >= TARGET_SCORE for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
