"""``json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)``, the same text, faster.

With an indent, the standard library encodes in Python, a generator step per value: a report's
100,000 card rows took two seconds to write (F15). Here each container is one join over its
values, and scalars go straight to the encoders ``json`` itself uses (its C string encoder,
``int.__repr__``, ``float.__repr__``), so the text is byte for byte what ``json.dumps`` writes.
Anything but plain dicts, lists, tuples, strings, numbers, booleans and None (a subclass, a
cycle) is handed to ``json.dumps`` itself, which raises or encodes as it always did.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

INDENT = "  "


class _Fallback(Exception):
    """A value this writer does not handle exactly as json does: json.dumps writes the whole text."""


def _float(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        raise _Fallback  # json.dumps raises its own ValueError for it
    return float.__repr__(value)


_SCALARS = {
    str: encode_basestring,
    int: int.__repr__,
    float: _float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


def _key(key) -> str:
    if type(key) is str:
        return encode_basestring(key)
    # json turns these keys into strings first (True -> "true", 1.5 -> "1.5"); anything else is its error.
    if type(key) in (int, float, bool, type(None)):
        return encode_basestring(_SCALARS[type(key)](key))
    raise _Fallback


def _encode(value, level: int, out: list[str]) -> None:
    # Scalars inside containers are written in the loops themselves: a call per value was most of the time.
    scalars = _SCALARS
    kind = type(value)
    if kind is dict:
        if not value:
            out.append("{}")
            return
        inner = "\n" + INDENT * (level + 1)
        separator = "{" + inner
        for key, item in value.items():
            key_text = encode_basestring(key) if type(key) is str else _key(key)
            scalar = scalars.get(type(item))
            if scalar is not None:
                out.append(f"{separator}{key_text}: {scalar(item)}")
            else:
                out.append(f"{separator}{key_text}: ")
                _encode(item, level + 1, out)
            separator = "," + inner
        out.append("\n" + INDENT * level + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = "\n" + INDENT * (level + 1)
        separator = "[" + inner
        # Rows of one shape (dicts of the same string keys, scalar values: a report's card rows) share
        # their keys' text, worked out once for the list.
        shapes: dict[tuple, tuple[list[str], str]] = {}
        for item in value:
            scalar = scalars.get(type(item))
            if scalar is not None:
                out.append(separator + scalar(item))
            elif type(item) is dict and item:
                keys = tuple(item)
                shape = shapes.get(keys)
                if shape is None:
                    shape = shapes[keys] = _shape(keys, level + 1)
                texts = []
                for prefix, field in zip(shape[0], item.values()):
                    field_scalar = scalars.get(type(field))
                    if field_scalar is None:
                        texts = None
                        break
                    texts.append(prefix + field_scalar(field))
                if texts is None:
                    out.append(separator)
                    _encode(item, level + 1, out)
                else:
                    out.append(separator + "{" + "".join(texts) + shape[1])
            else:
                out.append(separator)
                _encode(item, level + 1, out)
            separator = "," + inner
        out.append("\n" + INDENT * level + "]")
    else:
        scalar = scalars.get(kind)
        if scalar is None:
            raise _Fallback
        out.append(scalar(value))


def _shape(keys: tuple, level: int) -> tuple[list[str], str]:
    """The text before each value of a dict with these keys at ``level``, and its closing text."""
    inner = "\n" + INDENT * (level + 1)
    prefixes = [("" if n == 0 else ",") + inner + (encode_basestring(key) if type(key) is str else _key(key)) + ": "
                for n, key in enumerate(keys)]
    return prefixes, "\n" + INDENT * level + "}"


def dumps(value) -> str:
    """What ``json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)`` returns."""
    out: list[str] = []
    try:
        _encode(value, 0, out)
    except (_Fallback, RecursionError):
        return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)
    return "".join(out)
