"""core.jsontext.dumps writes what json.dumps(ensure_ascii=False, indent=2, allow_nan=False) writes."""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict

import pytest

from studyapp.core.jsontext import dumps


def reference(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)


def generated(rng: random.Random, depth: int = 0):
    choice = rng.randrange(11 if depth < 4 else 7)
    if choice == 0:
        return rng.choice(["", "plain", "中文 text", "quote \" back\\slash", "tab\tnew\nline", "\x1b[31m", "\u2028",
                           "emoji 😀", "\x00"])
    if choice == 1:
        return rng.randrange(-10**20, 10**20)
    if choice == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 1e-300, 0.1 + 0.2, rng.random(), -rng.random() * 1e6])
    if choice == 3:
        return rng.choice([True, False])
    if choice == 4:
        return None
    if choice in (5, 6):
        return rng.randrange(100)
    if choice in (7, 8):
        return [generated(rng, depth + 1) for _ in range(rng.randrange(4))]
    if choice == 9:
        return tuple(generated(rng, depth + 1) for _ in range(rng.randrange(3)))
    keys = ["a", "中", "", "x\ny", 3, 2.5, True, False, None]
    return {rng.choice(keys): generated(rng, depth + 1) for _ in range(rng.randrange(5))}


def test_random_values_are_written_as_json_writes_them():
    rng = random.Random(15)
    for _ in range(3000):
        value = generated(rng)
        assert dumps(value) == reference(value)


def test_a_report_shaped_value_is_written_as_json_writes_it():
    value = {"format": "studyapp-report", "totals": {"retention": None, "mastery": 0.25, "by": {}},
             "decks": [{"id": "d", "title": "T \"quoted\"", "items": 3}], "exams": [],
             "cards": [{"key": f"d/c{n}", "reviews": n, "again": n % 3} for n in range(1000)], "flags": []}
    assert dumps(value) == reference(value)


class Colour(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize("value", [
    {"a": Colour.RED}, [Colour.RED], {Colour.RED: 1}, OrderedDict(a=1), {"nested": OrderedDict(b=[1])},
])
def test_subclasses_are_written_by_json_itself(value):
    assert dumps(value) == reference(value)


@pytest.mark.parametrize("value", [float("nan"), [float("inf")], {"x": float("-inf")}, {float("nan"): 1}])
def test_nan_and_infinity_are_refused_as_json_refuses_them(value):
    with pytest.raises(ValueError) as ours:
        dumps(value)
    with pytest.raises(ValueError) as theirs:
        reference(value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("value", [{"x": object()}, {(1, 2): 1}, [{1, 2}]])
def test_what_json_cannot_write_raises_its_error(value):
    with pytest.raises(TypeError) as ours:
        dumps(value)
    with pytest.raises(TypeError) as theirs:
        reference(value)
    assert str(ours.value) == str(theirs.value)


def test_a_cycle_is_refused_as_json_refuses_it():
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(cycle)
