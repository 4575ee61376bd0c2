"""core.cachefile.write_cache: a cache file is replaced whole or left as it was, with nothing left beside it."""

from __future__ import annotations

import pickle

import pytest

from studyapp.core.cachefile import write_cache


def test_a_cache_is_written_whole_and_replaces_the_old_one(tmp_path):
    target = tmp_path / "cache" / "thing.pickle"  # its folder made as needed
    assert write_cache(target, lambda f: pickle.dump({"a": 1}, f))
    assert write_cache(target, lambda f: pickle.dump({"a": 2}, f))
    assert pickle.loads(target.read_bytes()) == {"a": 2}
    assert sorted(p.name for p in target.parent.iterdir()) == ["thing.pickle"]


def test_a_failed_write_leaves_the_old_cache_and_no_temporary(tmp_path):
    target = tmp_path / "thing.pickle"
    write_cache(target, lambda f: f.write(b"old"))

    def half_then_fail(f):
        f.write(b"half")
        raise pickle.PicklingError("cannot")

    assert not write_cache(target, half_then_fail, (pickle.PicklingError,))
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["thing.pickle"]
    with pytest.raises(ZeroDivisionError):  # only the failures named are a cache's to swallow
        write_cache(target, lambda f: 1 / 0)


def test_a_home_it_cannot_write_is_no_error(tmp_path):
    (tmp_path / "home").write_text("a file where the cache folder should be")
    assert not write_cache(tmp_path / "home" / "cache" / "thing.pickle", lambda f: f.write(b"x"))


def test_a_keyed_cache_gives_its_value_only_for_a_fresh_key(tmp_path):
    from studyapp.core.cachefile import MISSING, read_key, read_keyed, write_keyed

    target = tmp_path / "kept.pickle"
    assert read_keyed(target, lambda key: True) is MISSING and read_key(target) is MISSING
    assert write_keyed(target, {"stamp": 1}, None)  # None is a value like any other
    assert read_key(target) == {"stamp": 1}
    assert read_keyed(target, lambda key: key == {"stamp": 1}) is None
    assert read_keyed(target, lambda key: key == {"stamp": 2}) is MISSING
    target.write_bytes(b"not a pickle")
    assert read_keyed(target, lambda key: True) is MISSING and read_key(target) is MISSING
