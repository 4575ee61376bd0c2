"""The store's rows made into ItemRow objects by the compiled pass (core/_speedups.c item_rows)
against the Python reference (repository._row_to_item): every column's kinds of value, the
objects equal, hashed alike and of the same classes; and a class whose fields no longer match
the columns is refused instead of filled wrongly."""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass, fields, make_dataclass

import pytest
from hypothesis import given, settings, strategies as st

from studyapp.core.scheduler import ItemState
from studyapp.store import repository
from studyapp.store.repository import ItemRow

compiled = repository._compiled_item_rows
ROW_FIELDS = tuple(f.name for f in fields(ItemRow))
STATE_FIELDS = tuple(f.name for f in fields(ItemState))


def test_the_install_compiled_the_item_rows():
    assert compiled is not None, "core/_speedups.c was not compiled: install a C compiler and reinstall"


def both_ways(rows: list[tuple]) -> tuple[list[ItemRow], list[ItemRow]]:
    return compiled(rows, ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS), [repository._row_to_item(r) for r in rows]


def same(ours: list[ItemRow], reference: list[ItemRow]) -> None:
    assert ours == reference
    for a, b in zip(ours, reference):
        assert type(a) is ItemRow and type(a.state) is ItemState
        assert hash(a) == hash(b)
        for name in ROW_FIELDS:
            assert type(getattr(a, name)) is type(getattr(b, name)), name
        for name in STATE_FIELDS:
            assert type(getattr(a.state, name)) is type(getattr(b.state, name)), name


optional_int = st.none() | st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1)
optional_float = st.none() | st.floats(allow_nan=False)
text = st.text(max_size=12)
# What SQLite gives for a flag is 0 or 1; any value goes through bool() on both copies.
flag = st.integers(min_value=0, max_value=1) | st.none() | st.integers() | text | st.floats(allow_nan=False)
row = st.tuples(
    st.integers(min_value=1, max_value=2 ** 62), text, text, text, text,  # id, key, deck, card, variant
    st.integers(min_value=0, max_value=10 ** 6), st.integers(min_value=0, max_value=10 ** 9),  # revision, position
    flag,  # present
    st.sampled_from(["new", "learning", "review", "relearning"]), optional_int, optional_float, optional_float,
    optional_int, optional_int, st.integers(), st.integers(min_value=0), st.integers(min_value=0),
    flag,  # leech
    flag, st.integers(), st.none() | text, optional_int)  # suspended .. flagged_ms


@settings(max_examples=300, deadline=None)
@given(st.lists(row, max_size=8))
def test_any_rows_give_the_reference_objects(rows):
    same(*both_ways(rows))


def test_rows_as_the_store_reads_them_give_the_reference_objects(tmp_path):
    from engine_support import deck, store_at

    from studyapp.core.scheduler import AGAIN, EASY, GOOD
    from studyapp.core.session import ReviewSession
    from engine_support import SETTINGS

    store, clock = store_at(tmp_path)
    session = ReviewSession(store, [deck("a", 6)], clock=clock, settings=SETTINGS)
    for rating in (GOOD, AGAIN, EASY, GOOD):
        session.next()
        session.answer(rating)
    store.conn.execute("UPDATE items SET flag_note = 'see 3.2', flagged_ms = 5, suspended = 1 WHERE id = 2")
    rows = store.conn.execute(f"SELECT {repository.ITEM_COLUMNS} FROM items ORDER BY id").fetchall()
    assert len({r[8] for r in rows}) >= 2  # more than one state among them
    same(*both_ways(rows))
    store.close()


def test_the_objects_live_and_die_as_python_made_ones():
    rows = [(i, f"d/c{i}/main", "d", f"c{i}", "main", 1, i, 1, "review", None, 2.5, 5.0, 10 ** 12 + i, 10 ** 12,
             3, 4, 0, 0, 0, 0, None, None) for i in range(200)]
    made = compiled(rows, ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)
    assert gc.is_tracked(made[0]) == gc.is_tracked(repository._row_to_item(rows[0]))
    keys = [r.key for r in made]
    del made, rows
    gc.collect()
    assert keys[-1] == "d/c199/main"


def test_rows_of_another_shape_are_refused():
    good = (1, "d/c/main", "d", "c", "main", 1, 0, 1, "new", None, None, None, None, None, 0, 0, 0, 0, 0, 0, None, None)
    with pytest.raises(TypeError, match="row 1 is not a tuple of 22"):
        compiled([good, good[:-1]], ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)
    with pytest.raises(TypeError, match="row 0 is not a tuple"):
        compiled([list(good)], ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)


def test_a_class_whose_fields_moved_is_refused():
    swapped = (ROW_FIELDS[1], ROW_FIELDS[0], *ROW_FIELDS[2:])  # ItemRow's fields, the first two swapped
    reordered = make_dataclass("Reordered", swapped, frozen=True, slots=True)
    with pytest.raises(TypeError, match="field 0 of Reordered is 'key', where id was expected"):
        compiled([], reordered, swapped, ItemState, STATE_FIELDS)
    with pytest.raises(TypeError, match="13 names"):
        compiled([], ItemRow, ROW_FIELDS[:-1], ItemState, STATE_FIELDS)

    @dataclass(frozen=True)
    class NoSlots:
        state: str

    names = ("state",) + STATE_FIELDS[1:]
    with pytest.raises(TypeError, match="not a plain slot"):
        compiled([], ItemRow, ROW_FIELDS, NoSlots, names)


def test_no_reference_is_kept_or_lost():
    marker = "a value no other object holds " * 3
    rows = [(1, marker, "d", "c", "main", 1, 0, 1, "review", None, 1.0, 2.0, 3, 4, 5, 6, 7, 0, 0, 0, marker, None)]
    before = sys.getrefcount(marker)
    for _ in range(1000):
        made = compiled(rows, ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)
        assert made[0].flag_note is marker
        del made
    for bad in ([rows[0][:-1]], [rows[0], "not a row"]):
        for _ in range(100):
            with pytest.raises(TypeError):
                compiled(bad, ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)
    assert sys.getrefcount(marker) == before


def test_a_value_that_changes_the_rows_while_they_are_read_changes_nothing_read():
    rows: list[tuple] = []

    class Meddling:
        def __bool__(self):
            rows.clear()  # the caller's list, emptied halfway
            return True

    template = (1, "d/c/main", "d", "c", "main", 1, 0, Meddling(), "new", None, None, None, None, None, 0, 0, 0, 0, 0,
                0, None, None)
    rows.extend(template[:0] + (i,) + template[1:] for i in range(50))
    made = compiled(rows, ItemRow, ROW_FIELDS, ItemState, STATE_FIELDS)
    assert [r.id for r in made] == list(range(50)) and all(r.present is True for r in made)


def test_a_class_that_borrows_another_classes_slots_is_refused():
    # Every check passes by name and by kind, but the slots are ItemState's, not this class's:
    # writing at their offsets would run past this object's end.
    borrowed = type("Borrowed", (), {**{name: ItemState.__dict__[name] for name in STATE_FIELDS}, "__slots__": ()})
    with pytest.raises(TypeError, match="not a plain slot"):
        compiled([], ItemRow, ROW_FIELDS, borrowed, STATE_FIELDS)
