"""The compiled-dataclass cache (studyapp/dataclass_code.py): dataclasses made with it are the
ones Python makes without it, and a second start compiles nothing."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import sys
import types

import pytest

from studyapp.dataclass_code import DataclassCode

SOURCE = '''
from __future__ import annotations
import dataclasses
from dataclasses import dataclass, field, InitVar, KW_ONLY
from typing import ClassVar

@dataclass(frozen=True)
class Frozen:
    """A frozen one, as most of studyapp's."""
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()
    limit: ClassVar[int] = 3

@dataclass(frozen=True, slots=True)
class Slotted:
    key: str
    due_ms: int | None = None

@dataclass(order=True)
class Ordered:
    rank: int
    label: str = field(default="x", compare=False, repr=False)
    items: list = field(default_factory=list)
    seed: InitVar[int] = 0

    def __post_init__(self, seed):
        self.items.append(seed)

@dataclass(eq=False)
class KeywordOnly:
    first: int
    _: KW_ONLY
    second: str = "b"

@dataclass(unsafe_hash=True)
class Hashed:
    a: int
    b: float = 1.5
'''


def _classes(code: DataclassCode | None) -> dict:
    module = types.ModuleType("made_by_test_dataclass_code")
    sys.modules[module.__name__] = module  # dataclasses reads the module's names
    namespace = module.__dict__
    if code is not None:
        assert code.install()
    try:
        exec(compile(SOURCE, "made.py", "exec", dont_inherit=True), namespace)
    finally:
        del sys.modules[module.__name__]
        if code is not None:
            code.uninstall()
    assert dataclasses._create_fn.__module__ == "dataclasses"
    return {name: namespace[name] for name in ("Frozen", "Slotted", "Ordered", "KeywordOnly", "Hashed")}


def _behaviour(classes: dict) -> list:
    Frozen, Slotted, Ordered, KeywordOnly, Hashed = classes.values()
    seen = []
    f = Frozen("a", 2, ("t",))
    seen += [repr(f), f == Frozen("a", 2, ("t",)), f == Frozen("b"), hash(f) == hash(Frozen("a", 2, ("t",)))]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.count = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del f.name
    s = Slotted("k")
    seen += [repr(s), s.__slots__, hash(s) == hash(Slotted("k")), s.__getstate__()]
    o = Ordered(2, "y", seed=5)
    seen += [repr(o), o.items, Ordered(1) < Ordered(2), Ordered(1, "p") == Ordered(1, "q"), o.__hash__]
    k = KeywordOnly(1, second="c")
    seen += [repr(k), k == KeywordOnly(1, second="c")]
    with pytest.raises(TypeError):
        KeywordOnly(1, "c")
    seen += [repr(Hashed(1)), hash(Hashed(1)) == hash(Hashed(1, 1.5))]
    for cls in classes.values():
        seen.append(str(inspect.signature(cls)))
        seen.append(cls.__doc__)
        for name, value in sorted(vars(cls).items()):
            if inspect.isfunction(value):
                code = value.__code__
                seen.append((name, value.__qualname__, value.__annotations__ and repr(value.__annotations__),
                             code.co_code, code.co_consts, code.co_names, code.co_varnames, code.co_filename))
    return seen


def test_dataclasses_made_with_the_cache_are_the_ones_python_makes(tmp_path):
    plain = _behaviour(_classes(None))
    code = DataclassCode(tmp_path / "dataclasses.marshal")
    assert _behaviour(_classes(code)) == plain
    assert code.new > 0
    code.save()
    again = DataclassCode(tmp_path / "dataclasses.marshal")
    assert _behaviour(_classes(again)) == plain
    assert again.new == 0  # every method came from the file


@pytest.mark.parametrize("content", [b"", b"garbage", pickle.dumps({"a": 1})])
def test_a_cache_that_cannot_be_read_compiles_as_usual(tmp_path, content):
    file = tmp_path / "dataclasses.marshal"
    file.write_bytes(content)
    code = DataclassCode(file)
    assert _behaviour(_classes(code)) == _behaviour(_classes(None))
    assert code.new > 0
    code.save()
    assert DataclassCode(file).codes.keys() == code.codes.keys()


def test_another_python_compiles_again(tmp_path, monkeypatch):
    file = tmp_path / "dataclasses.marshal"
    code = DataclassCode(file)
    _classes(code)
    code.save()
    monkeypatch.setattr("sys.version", "3.11.99 (another build)")
    assert DataclassCode(file).codes == {}
