"""Onboarding curricula: ordered tracks of decks, each with a mastery target.

A deck folder may hold one ``curriculum.yaml``::

    schema: 1
    title: ML infrastructure onboarding
    tracks:
      - id: compiler
        title: Compiler and distributed training
        decks: [pytorch-mega-cache, pytorch-ddp-gradient-sync]
        target: 90%            # share of the track's items mastered (or 0.9)
        days: 14               # optional: expected within 14 days of the learner's start
      - id: inference
        decks: [llm-inference-optimization]
        target: 80%
        after: [compiler]      # optional: tracks to finish first (no cycles)
    exam:                      # optional: defaults for `studyapp quiz --exam`
      questions: 20
      pass: 80%
      seed: 2026
    preset:                    # optional: the team's parameters for newcomers
      name: Team               # the pooled fit (`studyapp optimize --from LOG... --preset Team`)
      parameters: [0.21, ...]  # its 21 numbers (`--json` prints them as "parameters")

It is validated like a deck: every problem with its line, in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import __version__
from .catalog import find_curricula
from .cachefile import read_keyed, write_keyed
from .deckcache import file_stamp
from .models import Position
from .presets import DEFAULT_PRESET, Preset, Presets
from .problems import ERROR, DeckLoadError, Problem, StudyappError

# The YAML parser (core.yamlsafe) is imported by the functions that read a curriculum file, not
# here: every session imports this module for scheduling_presets, and the app's start-up reads
# the curriculum from cached_curriculum's file, without the parser (a tenth of the start).

TOP_KEYS = {"schema", "title", "description", "tracks", "exam", "min_coverage", "preset"}
PRESET_KEYS = {"name", "parameters"}
TRACK_KEYS = {"id", "title", "decks", "target", "days", "after"}
EXAM_KEYS = {"questions", "pass", "seed", "mode"}


@dataclass(frozen=True)
class Track:
    id: str
    title: str
    deck_ids: tuple[str, ...]
    target: float  # share of items mastered, in (0, 1]
    days: int | None = None
    after: tuple[str, ...] = ()
    position: Position = Position(1, 1)


@dataclass(frozen=True)
class ExamSettings:
    questions: int = 20
    pass_mark: float = 0.8
    seed: int = 1
    mode: str = "mixed"


@dataclass
class Curriculum:
    path: Path
    title: str
    tracks: list[Track] = field(default_factory=list)
    exam: ExamSettings = field(default_factory=ExamSettings)
    # The share of its seed's statements every deck in the curriculum's folder must quote, unless
    # the deck sets its own (None: no minimum).
    min_coverage: float | None = None
    min_coverage_position: Position = Position(1, 1)
    # The team's FSRS parameters (a pooled fit) for the curriculum's decks, for a learner with
    # none fitted of their own: a Preset with a name and parameters only.
    preset: Preset | None = None

    @property
    def deck_ids(self) -> list[str]:
        return list(dict.fromkeys(deck_id for track in self.tracks for deck_id in track.deck_ids))


def parse_share(value) -> float | None:
    """0.9, 90% or "90%" as a share in (0, 1]; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            value = float(value.strip()[:-1]) / 100
        except ValueError:
            return None
    if isinstance(value, (int, float)) and 0 < value <= 1:
        return float(value)
    return None


def load_curriculum(path: Path, known_decks: set[str]) -> tuple[Curriculum | None, list[Problem]]:
    from .yamlsafe import LocatedDict, LocatedList, parse, read_text

    problems: list[Problem] = []
    where = str(path)

    def report(position: Position, code: str, message: str) -> None:
        problems.append(Problem(where, position.line, position.column, ERROR, code, message))

    try:
        data = parse(read_text(path), path, problems)
    except DeckLoadError as error:
        return None, [Problem(where, error.line, error.column, ERROR, error.code, error.message)]
    if not isinstance(data, LocatedDict):
        report(getattr(data, "position", Position(1, 1)), "not-a-mapping", "a curriculum must be a mapping with 'tracks:'")
        return None, problems
    for key in data:
        if key not in TOP_KEYS:
            report(data.key_positions[key], "unknown-key", f"unknown key '{key}' in curriculum; allowed: {', '.join(sorted(TOP_KEYS))}")
    if data.get("schema") != 1:
        report(data.value_positions.get("schema", data.position), "schema-version", "a curriculum needs 'schema: 1'")
    title = str(data.get("title") or path.parent.name)
    curriculum = Curriculum(path, title)
    tracks_value = data.get("tracks")
    if not isinstance(tracks_value, LocatedList) or not tracks_value:
        report(data.value_positions.get("tracks", data.position), "missing-field", "'tracks' must be a non-empty list of tracks")
        tracks_value = LocatedList()
        tracks_value.item_positions = []
    seen: dict[str, Position] = {}
    for raw, position in zip(tracks_value, tracks_value.item_positions):
        track = _track(raw, position, known_decks, seen, report)
        if track:
            curriculum.tracks.append(track)
    ids = {t.id for t in curriculum.tracks}
    for track in curriculum.tracks:
        for other in track.after:
            if other not in ids:
                report(track.position, "unknown-track", f"track '{track.id}' comes after unknown track '{other}'")
    for cycle_track in _cycle(curriculum.tracks):
        report(cycle_track.position, "track-cycle",
               f"track '{cycle_track.id}' is part of a cycle of 'after' dependencies; a track cannot (indirectly) come after itself")
        break
    if "exam" in data:
        curriculum.exam = _exam(data["exam"], data.value_positions["exam"], report)
    if "min_coverage" in data:
        curriculum.min_coverage_position = data.value_positions["min_coverage"]
        curriculum.min_coverage = parse_share(data["min_coverage"])
        if curriculum.min_coverage is None:
            report(curriculum.min_coverage_position, "bad-share",
                   f"min_coverage {data['min_coverage']!r} is not a share: write it as 80% or 0.8 (above 0, at most 100%)")
    if "preset" in data:
        curriculum.preset = _preset(data["preset"], data.value_positions["preset"], report)
    if any(p.is_error for p in problems):
        return None, problems
    return curriculum, problems


def _preset(raw, position: Position, report) -> Preset | None:
    from .yamlsafe import LocatedDict

    if not isinstance(raw, LocatedDict):
        report(position, "wrong-type", "'preset' must be a mapping with 'name' and 'parameters' (21 numbers)")
        return None
    for key in raw:
        if key not in PRESET_KEYS:
            report(raw.key_positions[key], "unknown-key",
                   f"unknown key '{key}' in preset; allowed: {', '.join(sorted(PRESET_KEYS))}")
    name, parameters = raw.get("name"), raw.get("parameters")
    if not isinstance(name, str) or not name.strip():
        report(raw.value_positions.get("name", position), "missing-field", "'preset' needs a 'name'")
        return None
    if not isinstance(parameters, list):
        report(raw.value_positions.get("parameters", position), "missing-field",
               "'preset' needs 'parameters': the 21 FSRS numbers of the pooled fit "
               "(studyapp optimize --from LOG... --json prints them)")
        return None
    try:
        preset = Preset(name=name, parameters=tuple(parameters))
        preset.validate()
    except StudyappError as error:
        report(raw.value_positions["parameters"], "bad-preset", error.message)
        return None
    return preset


def scheduling_presets(curriculum: Curriculum | None, presets: Presets, fitted) -> Presets:
    """The presets a session schedules with: ``presets``, but each deck of the curriculum whose
    preset has no parameters fitted in this profile (``fitted``: ``Store.fitted_parameters()``,
    by preset name) takes the curriculum preset's parameters, its other options staying the
    preset's. A learner's own fit (or a pooled one they stored) wins over the curriculum's."""
    if curriculum is None or curriculum.preset is None:
        return presets
    team = curriculum.preset
    overrides = {}
    for deck_id in curriculum.deck_ids:
        base = presets.for_deck(deck_id)
        if base.name in fitted:
            continue
        # Its own name, so that a session keeps one scheduler per preset and parameter set.
        name = team.name if base.name == DEFAULT_PRESET else f"{base.name} + {team.name}"
        overrides[deck_id] = replace(base, name=name, parameters=team.parameters)
    return replace(presets, overrides={**presets.overrides, **overrides}) if overrides else presets


def _track(raw, position: Position, known_decks: set[str], seen: dict[str, Position], report) -> Track | None:
    from .yamlsafe import LocatedDict, LocatedList

    if not isinstance(raw, LocatedDict):
        report(position, "wrong-type", "a track must be a mapping with id, decks and target")
        return None
    for key in raw:
        if key not in TRACK_KEYS:
            report(raw.key_positions[key], "unknown-key", f"unknown key '{key}' in track; allowed: {', '.join(sorted(TRACK_KEYS))}")
    track_id = raw.get("id")
    if not isinstance(track_id, str) or not track_id:
        report(position, "missing-field", "a track needs an 'id'")
        return None
    if track_id in seen:
        report(raw.value_positions["id"], "duplicate-track-id", f"track id '{track_id}' is already used at line {seen[track_id].line}")
    seen.setdefault(track_id, raw.value_positions["id"])
    decks = raw.get("decks")
    deck_ids: list[str] = []
    if not isinstance(decks, LocatedList) or not decks:
        report(raw.value_positions.get("decks", position), "missing-field", f"track '{track_id}' needs 'decks': a list of deck ids")
    else:
        for deck_id, deck_position in zip(decks, decks.item_positions):
            if deck_id not in known_decks:
                report(deck_position, "unknown-deck", f"track '{track_id}' names unknown deck {deck_id!r}; known decks: {', '.join(sorted(known_decks))}")
            else:
                deck_ids.append(deck_id)
    target = parse_share(raw.get("target")) if "target" in raw else None
    if target is None:
        report(raw.value_positions.get("target", position), "bad-target",
               f"track '{track_id}' needs a 'target' between 0% and 100%, such as 90% (share of items mastered)")
    days = raw.get("days")
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
        report(raw.value_positions["days"], "wrong-type", f"'days' must be a whole number of days from 1 up, not {days!r}")
    after = raw.get("after", [])
    if isinstance(after, str):
        after = [after]
    if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
        report(raw.value_positions.get("after", position), "wrong-type", "'after' must be a list of track ids")
        after = []
    # A track with problems is still returned so that later checks (unknown 'after', cycles) see it;
    # the problems already reported make the whole curriculum invalid.
    return Track(track_id, str(raw.get("title") or track_id), tuple(deck_ids), target or 1.0,
                 days if isinstance(days, int) else None, tuple(after), raw.value_positions["id"])


def _exam(raw, position: Position, report) -> ExamSettings:
    from .yamlsafe import LocatedDict

    if not isinstance(raw, LocatedDict):
        report(position, "wrong-type", "'exam' must be a mapping (questions, pass, seed, mode)")
        return ExamSettings()
    for key in raw:
        if key not in EXAM_KEYS:
            report(raw.key_positions[key], "unknown-key", f"unknown key '{key}' in exam; allowed: {', '.join(sorted(EXAM_KEYS))}")
    settings = ExamSettings()
    questions = raw.get("questions", settings.questions)
    if isinstance(questions, bool) or not isinstance(questions, int) or questions < 1:
        report(raw.value_positions.get("questions", position), "wrong-type", "exam 'questions' must be a whole number from 1 up")
        questions = settings.questions
    pass_mark = parse_share(raw.get("pass", settings.pass_mark))
    if pass_mark is None:
        report(raw.value_positions.get("pass", position), "bad-target", "exam 'pass' must be between 0% and 100%, such as 80%")
        pass_mark = settings.pass_mark
    seed = raw.get("seed", settings.seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        report(raw.value_positions.get("seed", position), "wrong-type", "exam 'seed' must be a whole number")
        seed = settings.seed
    mode = raw.get("mode", settings.mode)
    if mode not in ("choice", "truefalse", "typed", "mixed"):
        report(raw.value_positions.get("mode", position), "wrong-type", "exam 'mode' must be choice, truefalse, typed or mixed")
        mode = settings.mode
    return ExamSettings(questions, pass_mark, seed, mode)


def _cycle(tracks: list[Track]) -> list[Track]:
    """Tracks that sit on a cycle of 'after' dependencies (empty when there is none)."""
    by_id = {t.id: t for t in tracks}
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(track_id: str, stack: list[str]) -> list[str]:
        state[track_id] = 1
        for other in by_id[track_id].after:
            if other not in by_id:
                continue
            if state.get(other) == 1:
                return stack[stack.index(other):] + [track_id] if other in stack else [track_id]
            if other not in state:
                found = visit(other, stack + [track_id])
                if found:
                    return found
        state[track_id] = 2
        return []

    for track in tracks:
        if track.id not in state:
            found = visit(track.id, [])
            if found:
                return [by_id[i] for i in found]
    return []


def first_curriculum(folders: list[Path], known_decks: set[str]) -> tuple[Curriculum | None, list[tuple[Path, list[Problem]]]]:
    """The first curriculum among ``folders`` that loads cleanly, and every one that did not, with its problems."""
    chosen: Curriculum | None = None
    broken: list[tuple[Path, list[Problem]]] = []
    for path in find_curricula(folders):
        curriculum, problems = load_curriculum(path, known_decks)
        if curriculum is None:
            broken.append((path, problems))
        elif chosen is None:
            chosen = curriculum
    return chosen, broken


# 1: the key (format, version, each curriculum file with its stamp, the known deck ids), then the curriculum.
CURRICULUM_CACHE_FORMAT = 1


def cached_curriculum(folders: list[Path], known_decks: set[str], cache_file: Path) -> Curriculum | None:
    """``first_curriculum(folders, known_decks)[0]``, kept in ``cache_file`` while every curriculum
    file under ``folders`` has the stamp it had (size, modification time, inode: as the deck cache
    compares deck files) and the known decks are the same. The app reads it on every start; parsing
    it needs the YAML parser, whose import was a tenth of the start-up. A missing, stale or
    unreadable cache file is only slower; one that cannot be written changes nothing."""
    paths = find_curricula(folders)
    key = {"format": CURRICULUM_CACHE_FORMAT, "version": __version__,
           "files": [(str(path), file_stamp(path)) for path in paths], "known": sorted(known_decks)}
    stored = read_keyed(cache_file, lambda kept: kept == key)
    if stored is None or isinstance(stored, Curriculum):
        return stored
    curriculum = first_curriculum(folders, known_decks)[0]  # none kept, or not for these files
    write_keyed(cache_file, key, curriculum)
    return curriculum


def folder_min_coverage(path: Path) -> Curriculum | None:
    """Only the min_coverage of a curriculum (for a deck file checked alone, whose curriculum names
    decks that are not being checked); None when it sets none or cannot be read."""
    from .yamlsafe import LocatedDict, parse, read_text

    problems: list[Problem] = []
    try:
        data = parse(read_text(path), path, problems)
    except DeckLoadError:
        return None
    if not isinstance(data, LocatedDict) or parse_share(data.get("min_coverage")) is None:
        return None
    curriculum = Curriculum(path, str(data.get("title") or path.parent.name))
    curriculum.min_coverage = parse_share(data["min_coverage"])
    curriculum.min_coverage_position = data.value_positions["min_coverage"]
    return curriculum


def check_curricula(paths: list[Path], catalog, loaded: list[Curriculum] | None = None) -> list[Problem]:
    """For `studyapp check`: every curriculum.yaml in the checked folders, against every known deck.
    The curricula that loaded are appended to ``loaded`` when it is given."""
    known = {deck.id for deck in catalog.decks}
    problems: list[Problem] = []
    for path in find_curricula(paths):
        curriculum, found = load_curriculum(path, known)
        problems += found
        if curriculum is not None and loaded is not None:
            loaded.append(curriculum)
    return problems
