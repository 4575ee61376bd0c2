"""Mutation score of the domain: how many one-line bugs the tests catch, module by module.

    python tools/mutation.py                     # every target below, report in tools/MUTATION.md
    python tools/mutation.py --only matching     # one target (names as in TARGETS)
    python tools/mutation.py --jobs 2            # mutants run in parallel (default: 1)
    python tools/mutation.py --only loading --workdir DIR            # kept in DIR: run again, it goes on
    python tools/mutation.py --only loading --workdir DIR --refresh  # after tests were added or code fixed
    python tools/mutation.py --only loading --workdir DIR --collect  # record what is settled so far

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
import fnmatch
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
# Each target's first and latest figures, so that a run of one target (--only) keeps the others'
# rows and the report can show the score before the tests were written and after.
RESULTS = ROOT / "tools" / "mutation_results.json"
NOTES = ROOT / "tools" / "mutation_notes.md"
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.toml"
TARGET_SCORE = 0.90


@dataclass(frozen=True)
class Target:
    name: str
    what: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]  # globs under the repository
    # Tests left out of the run: a command line run in a subprocess from another folder loads the
    # mutated package, whose trampolines look for mutmut's settings in that folder and fail. Also a
    # load test whose every assertion a smaller test makes, when it would cost most of each mutant's
    # time (leaving a test out can only lower the score, never raise it).
    deselect: tuple[str, ...] = ()


TARGETS = (
    Target("scheduler", "the scheduler", ("studyapp/core/scheduler.py", "studyapp/core/fuzz.py"),
           ("tests/test_scheduler*.py", "tests/test_parity.py", "tests/test_session.py", "tests/test_anki_random.py",
            "tests/test_load_balancer_session.py", "tests/test_escapes.py")),
    Target("matching", "answer matching", ("studyapp/core/matching.py",),
           ("tests/test_quiz_core.py", "tests/test_matching*.py", "tests/test_escapes.py")),
    Target("loading", "deck loading and checking",
           ("studyapp/core/loader.py", "studyapp/core/lints.py", "studyapp/core/yamlsafe.py"),
           # Not test_hostile_export.py nor test_hostile_reports.py: they reach the loader only through a
           # subprocess, which mutmut's coverage does not see, so no loading mutant was ever run against them;
           # their signal timing failed the clean run (which stops mutmut) twice on a loaded machine.
           ("tests/test_loader*.py", "tests/test_lints.py", "tests/test_bundled_decks.py", "tests/test_hostile_text.py",
            "tests/test_escapes.py")),
    # The schema check is the merge's first step (issue 15): its mutants are the merge's to kill.
    Target("merge", "the report merge", ("studyapp/onboarding/merge.py", "studyapp/onboarding/report_schema.py"),
           ("tests/test_report*.py", "tests/test_merge*.py", "tests/test_exams.py", "tests/test_escapes.py",
            "tests/test_hostile_reports.py")),
    Target("anki-ids", "the Anki GUIDs and ledger", ("studyapp/export/ledger.py", "studyapp/export/fields.py"),
           ("tests/test_export_ledger*.py", "tests/test_export_fields.py", "tests/test_export_anki.py",
            "tests/test_export_equivalence.py")),
    Target("sync", "the team sync (PostgreSQL)", ("studyapp/sync/client.py", "studyapp/sync/server.py", "studyapp/sync/team.py",
                                                   "studyapp/sync/config.py"),
           # test_report_fast.py: the team report against one built from every row (its oracle test)
           ("tests/test_sync*.py", "tests/test_report_fast.py"),
           deselect=tuple(f"tests/test_sync_pg.py::{name}" for name in (
               "test_the_command_line_syncs_and_never_shows_a_password",
               "test_report_team_reads_everyone_for_a_lead_and_only_oneself_for_a_learner",
               "test_sync_killed_at_random_moments_loses_and_duplicates_nothing",
               # 50 learners x 2,000 answers at once: 11 of the 17 s the other sync tests take together;
               # rows arriving once are asserted by test_syncing_twice_uploads_each_answer_once and, for
               # syncs at once, by test_two_devices_of_one_learner_syncing_at_once_both_end_with_everything
               "test_fifty_learners_syncing_at_once_each_arrive_exactly_once"))),
    Target("anki-import", "the Anki package reader", ("studyapp/anki/package.py",),
           # not test_anki_progress.py: its Anki driver checks that libfaketime set the clock to the
           # millisecond, which a loaded machine misses
           ("tests/test_anki_package.py", "tests/test_authoring_import.py", "tests/test_anki_import.py")),
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
    by_module: dict[str, dict[str, int]] = field(default_factory=dict)  # killed / survived / equivalent per file

    @property
    def score(self) -> float | None:
        counted = len(self.killed) + len(self.survived)
        return len(self.killed) / counted if counted else None


def tracked_files() -> list[str]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in listing.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


def run_target(target: Target, jobs: int, equivalent: dict[str, str], only: list[str] | None = None,
               tests_override: list[str] | None = None, workdir: Path | None = None,
               collect_only: bool = False, refresh: bool = False) -> Outcome:
    """Run mutmut on the target in a scratch copy and classify its mutants.

    With ``workdir`` the copy is kept there, and a copy already there is reused as it is: mutmut
    keeps the verdicts it has and runs only the mutants still unchecked, so a run stopped (or cut
    off) goes on where it stopped. ``collect_only`` runs nothing and reads the verdicts found.
    ``refresh`` copies the tracked files into the kept copy again (tests added, code fixed since)
    and runs what that leaves unsettled: every mutant checked and not killed, then those of changed
    or new functions and any still unchecked."""
    scratch = workdir or Path(tempfile.mkdtemp(prefix=f"studyapp-mutation-{target.name}-"))
    try:
        kept = (scratch / "mutants").is_dir()
        if not kept and collect_only:
            raise SystemExit(f"tools/mutation.py: no mutmut run in {scratch} to collect")
        if not kept or refresh:
            _prepare(scratch, target, tests_override)
        started = time.monotonic()
        if refresh:
            # mutmut resets the verdicts of the functions that changed and adds the mutants of new ones when it
            # starts, and collects coverage for the new tests; the mutants that survived the old tests are
            # named first, to be run against the new ones; then whatever is unchecked, old or new.
            survivors = _not_killed(scratch, target)
            if survivors:
                _mutmut(scratch, target, jobs, survivors)
        if not collect_only:
            _mutmut(scratch, target, jobs, only or [])
        seconds = time.monotonic() - started
        from mutmut.stats import status_by_exit_code

        outcome = Outcome(target, seconds=seconds)
        for module in target.modules:
            meta = json.loads((scratch / "mutants" / f"{module}.meta").read_text(encoding="utf-8"))
            for mutant, code in sorted(meta["exit_code_by_key"].items()):
                if only is not None and not any(fnmatch.fnmatchcase(mutant, pattern) for pattern in only):
                    continue
                status = status_by_exit_code[code]
                counts = outcome.by_module.setdefault(module, {"killed": 0, "survived": 0, "equivalent": 0})
                if mutant in equivalent:
                    outcome.equivalent.append(mutant)
                    counts["equivalent"] += 1
                elif status in ("killed", "timeout", "segfault"):
                    outcome.killed.append(mutant)
                    counts["killed"] += 1
                elif status in ("survived", "no tests"):  # no test even reaches the mutated line
                    outcome.survived.append(mutant)
                    counts["survived"] += 1
                else:
                    outcome.other.setdefault(status, []).append(mutant)
        outcome.survived_diffs = _show(scratch, outcome.survived)
        return outcome
    finally:
        if workdir is None:
            shutil.rmtree(scratch, ignore_errors=True)


def _mutmut(scratch: Path, target: Target, jobs: int, names: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_")}
    done = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names],
                          cwd=scratch, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise SystemExit(f"tools/mutation.py: mutmut failed on {target.name} (exit {done.returncode}):\n{tail}")


def _not_killed(scratch: Path, target: Target) -> list[str]:
    from mutmut.stats import status_by_exit_code

    names = []
    for module in target.modules:
        meta = json.loads((scratch / "mutants" / f"{module}.meta").read_text(encoding="utf-8"))
        names += [m for m, code in meta["exit_code_by_key"].items()
                  if code is not None and status_by_exit_code[code] not in ("killed", "timeout", "segfault")]
    return sorted(names)


def _prepare(scratch: Path, target: Target, tests_override: list[str] | None) -> None:
    scratch.mkdir(parents=True, exist_ok=True)
    for name in tracked_files():
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, scratch / name)
    # The compiled module an editable install built (untracked): the tests hold both copies equal.
    for built in ROOT.glob("studyapp/core/_speedups.*"):
        if built.suffix in (".so", ".pyd"):
            shutil.copy2(built, scratch / built.relative_to(ROOT))
    tests = sorted({path for pattern in (tests_override or target.tests) for path in glob.glob(pattern, root_dir=ROOT)})
    if not tests:
        raise SystemExit(f"tools/mutation.py: no test file matches {target.tests} for {target.name}")
    config = "\n".join([
        "", "[tool.mutmut]",
        'source_paths = ["studyapp/"]',
        f"only_mutate = {json.dumps(list(target.modules))}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        f"pytest_add_cli_args = {json.dumps([a for test in target.deselect for a in ('--deselect', test)])}",
        # the tests read the bundled decks and seeds from beside the package
        'also_copy = ["decks", "seeds", "studyapp", "tools", "docs", "README.md"]', "",
    ])
    with open(scratch / "pyproject.toml", "a", encoding="utf-8") as handle:
        handle.write(config)
    # a kept work directory may be collected after more commits: the figures belong to this one
    (scratch / ".mutation-commit").write_text(_head(), encoding="utf-8")


def _head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


_SHOW = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
shown = {}
for mutant in json.loads(sys.stdin.read()):
    try:
        diff = get_diff_for_mutant(mutant)
    except Exception as error:  # a diff that cannot be shown must not lose the run's figures
        shown[mutant] = f"(no diff: {error!r})"
        continue
    shown[mutant] = "\\n".join(l for l in diff.splitlines()[2:] if l.startswith(("+", "-", "@@")))
print(json.dumps(shown))
"""


def _show(scratch: Path, mutants: list[str]) -> dict[str, str]:
    """Each mutant's diff, all in one process (``mutmut show`` per mutant costs a second each)."""
    shown = subprocess.run([sys.executable, "-c", _SHOW], cwd=scratch, input=json.dumps(mutants),
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return {m: f"(no diff: mutmut failed: {shown.stderr.strip().splitlines()[-1:]})" for m in mutants}
    return json.loads(shown.stdout)


def summary(o: Outcome, commit: str) -> dict:
    return {"commit": commit, "seconds": round(o.seconds), "killed": len(o.killed), "survived": len(o.survived),
            "equivalent": len(o.equivalent), "other": {k: len(v) for k, v in sorted(o.other.items())},
            "by_module": o.by_module, "survivors": {m: o.survived_diffs[m] for m in o.survived},
            "other_mutants": {k: sorted(v) for k, v in sorted(o.other.items())}}


def rechecked(last: dict, rerun: dict, commit: str, rerun_names: list[str]) -> dict:
    """The last full figures with the rerun survivors' new verdicts: killed or listed equivalent since.
    Survivors left out of the rerun (--mutants) keep their verdict."""
    record = json.loads(json.dumps(last))
    record["commit"], record["seconds"] = commit, rerun["seconds"]
    record["rechecked"] = f"survivors of {last['commit']} rerun at {commit}"
    if rerun.get("tests"):
        record["rechecked"] += f" against {', '.join(rerun['tests'])} (the tests added since; the others are unchanged)"
    if len(rerun_names) < len(last["survivors"]):
        record["rechecked"] += f"; {len(rerun_names)} of its {len(last['survivors'])} survivors were rerun"
    for module, counts in record["by_module"].items():
        new = rerun["by_module"].get(module, {"killed": 0, "survived": 0, "equivalent": 0})
        counts["killed"] += new["killed"]
        counts["equivalent"] += new["equivalent"]
        counts["survived"] -= new["killed"] + new["equivalent"]
        assert counts["survived"] >= new["survived"], module
    for name in ("killed", "equivalent"):
        record[name] += rerun[name]
    record["survived"] -= rerun["killed"] + rerun["equivalent"]
    kept = {m: d for m, d in last["survivors"].items() if m not in rerun_names}
    record["survivors"] = {**kept, **rerun["survivors"]}
    assert record["survived"] == len(record["survivors"]), (record["survived"], len(record["survivors"]))
    return record


def _score(record: dict) -> float | None:
    counted = record["killed"] + record["survived"]
    return record["killed"] / counted if counted else None


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def write_report(results: dict) -> None:
    lines = ["# Mutation score of the domain", "",
             "`python tools/mutation.py` (or `--only NAME`, one target): mutmut 3.8.1 puts one small change at a",
             "time into the module (an operator, a constant, a condition, a return value) and runs the module's",
             "tests; a mutant is killed when a test fails. Target: at least 90% killed in each module. Mutants",
             "listed in tools/mutation_equivalent.toml (with why they behave like the original) are left out.",
             "Before: the first run of the target, before tests were written against its survivors.", "",
             "| target | module | what | mutants | killed | survived | equivalent | before | after | target |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    shown = [t for t in TARGETS if t.name in results]
    for t in shown:
        after, before = results[t.name]["after"], results[t.name]["before"]
        total = after["killed"] + after["survived"] + after["equivalent"] + sum(after["other"].values())
        verdict = "met" if (_score(after) or 0) >= TARGET_SCORE else "missed"
        if after.get("part"):  # a score over the mutants measured says nothing of the others
            verdict += " on the part measured"
        lines.append(f"| {t.name} | {', '.join(Path(m).name for m in t.modules)} | {t.what} | {total} | "
                     f"{after['killed']} | {after['survived']} | {after['equivalent']} | "
                     f"{_percent(_score(before))} ({before['commit']}) | {_percent(_score(after))} ({after['commit']}) | "
                     f"{verdict} |")
    lines += ["", "Per file:", "", "| file | killed | survived | equivalent | before | after |", "|---|---|---|---|---|---|"]
    for t in shown:
        after, before = results[t.name]["after"], results[t.name]["before"]
        for module, counts in after["by_module"].items():
            was = before["by_module"].get(module)
            lines.append(f"| {module} | {counts['killed']} | {counts['survived']} | {counts['equivalent']} | "
                         f"{_percent(_score(was) if was else None)} | {_percent(_score(counts))} |")
    for t in shown:
        after = results[t.name]["after"]
        lines += ["", f"## {t.name}: {t.what} ({after['seconds']} s at {after['commit']})", "",
                  f"Tests: {', '.join(t.tests)}"]
        if after.get("part"):
            lines += ["", f"A part of the target was run: {after['part']}."]
        if after.get("rechecked"):
            lines += ["", f"Only the survivors were run again ({after['rechecked']}); the other mutants keep the "
                          "verdict of that full run."]
        for label, mutants in after["other_mutants"].items():
            lines += ["", f"{label}: {len(mutants)}", *[f"- `{m}`" for m in mutants]]
        if after["survivors"]:
            lines += ["", f"Surviving mutants ({after['survived']}):", ""]
            for mutant, diff in after["survivors"].items():
                lines += [f"- `{mutant}`", "", "  ```diff", *[f"  {l}" for l in diff.splitlines()], "  ```"]
    if NOTES.exists():  # how the figures were measured, when that is worth knowing (kept by hand)
        lines += ["", NOTES.read_text(encoding="utf-8").rstrip()]
    REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[t.name for t in TARGETS])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--baseline", action="store_true", help="record this run as the targets' 'before' figures")
    parser.add_argument("--mutants", action="append", metavar="GLOB",
                        help="run only the mutants whose mutmut name matches (e.g. 'studyapp.core.lints.*'): a part "
                             "of a target, reported as such")
    parser.add_argument("--tests", action="append", metavar="GLOB",
                        help="with --recheck: only these test files (a survivor has already survived the others, "
                             "when they are unchanged since)")
    parser.add_argument("--recheck", action="store_true",
                        help="run only the mutants that survived the target's last run (with the source unchanged, "
                             "a killed mutant stays killed when tests are only added) and update its figures")
    parser.add_argument("--workdir", type=Path, metavar="DIR",
                        help="run in DIR and keep it (one target): a run stopped or cut off goes on where it stopped "
                             "when given the same DIR again")
    parser.add_argument("--collect", action="store_true",
                        help="with --workdir: run nothing, record the verdicts mutmut has written there so far (a "
                             "run stopped before the end is recorded as a part of the target, saying how many)")
    parser.add_argument("--refresh", action="store_true",
                        help="with --workdir: copy the tracked files into it again and settle what that unsettles: "
                             "mutants of changed functions, new ones, and every one not killed, run against the "
                             "tests as they are now (killed ones stay killed: tests were only added)")
    args = parser.parse_args(argv)
    if args.refresh and not args.workdir:
        parser.error("--refresh needs --workdir")
    if args.collect and not args.workdir:
        parser.error("--collect needs --workdir")
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    equivalent = tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    commit = _head()
    chosen = [t for t in TARGETS if not args.only or t.name in args.only]
    if args.workdir and len(chosen) != 1:
        parser.error("--workdir holds one target's run: name it with --only")
    outcomes = []
    for target in chosen:
        print(f"mutation: {target.name} ({', '.join(target.modules)})...", file=sys.stderr, flush=True)
        last = results.get(target.name, {}).get("after")
        only = sorted(last["survivors"]) if args.recheck and last else args.mutants
        if args.recheck and last and args.mutants:
            only = [m for m in only if any(fnmatch.fnmatchcase(m, pattern) for pattern in args.mutants)]
        if only == []:
            print(f"mutation: {target.name}: no survivor to recheck", file=sys.stderr)
            continue
        # A survivor listed as equivalent since counts as equivalent whatever the tests do: it is not run again.
        listed = [m for m in only if m in equivalent] if args.recheck and last else []
        to_run = [m for m in only if m not in listed] if listed else only
        outcome = (run_target(target, args.jobs, equivalent, to_run, args.tests if args.recheck else None,
                              args.workdir.resolve() if args.workdir else None, args.collect, args.refresh)
                   if to_run or not listed else Outcome(target))
        for mutant in listed:
            module = next(m for m in target.modules if mutant.startswith(m[:-3].replace("/", ".") + "."))
            outcome.equivalent.append(mutant)
            outcome.by_module.setdefault(module, {"killed": 0, "survived": 0, "equivalent": 0})["equivalent"] += 1
        unchecked = outcome.other.pop("not checked", [])
        if args.workdir and (args.workdir / ".mutation-commit").exists():  # what the kept copy was made from
            commit = (args.workdir / ".mutation-commit").read_text(encoding="utf-8").strip()
        outcomes.append(outcome)
        record = summary(outcome, commit)
        if args.recheck and last:
            record["tests"] = args.tests
            record = rechecked(last, record, commit, only)
            if listed:
                record["rechecked"] += f"; {len(listed)} of them, listed as equivalent since, were not run"
        elif args.mutants:  # a part of a target, not a recheck
            record["part"] = f"only the mutants matching {', '.join(args.mutants)}"
        if unchecked:
            checked = record["killed"] + record["survived"] + record["equivalent"] + sum(record["other"].values())
            record["part"] = (record.get("part", "") + "; " if record.get("part") else "") + (
                f"{checked} of its {checked + len(unchecked)} mutants, those mutmut had checked when the run stopped")
        print(f"mutation: {target.name}: {record['killed']} killed, {record['survived']} survived, "
              f"{record['equivalent']} equivalent, score {_percent(_score(record))} ({outcome.seconds:.0f} s"
              f"{', survivors rechecked' if args.recheck else ''})", file=sys.stderr, flush=True)
        # read again: another target may have finished meanwhile (runs of different targets can overlap)
        results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
        entry = results.setdefault(target.name, {})
        if args.baseline or "before" not in entry:
            entry["before"] = record
        entry["after"] = record
        RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        write_report(results)
    print(f"mutation: report written to {REPORT.relative_to(ROOT)}", file=sys.stderr)
    return 0 if all((_score(results[t.name]["after"]) or 0) >= TARGET_SCORE for t in chosen if t.name in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
