"""The methods that ``@dataclass`` writes, compiled once and kept beside the deck cache.

On Python 3.11 every dataclass compiles its __init__, __repr__, __eq__ (and for frozen ones
__setattr__, __delattr__, __hash__) from source text when its module is imported: a start of
``studyapp study`` creates about 90 dataclasses (45 of studyapp's, the rest Textual's and Rich's)
and spent about 27 ms compiling. ``dataclasses._create_fn`` turns the text into a function with
``exec``; installed, this module gives it a code object compiled from the very same text (same
file name, no inherited future flags), from the cache when the text was seen before, so the
functions are the same and only the compiling is skipped. Only the terminal app's commands
install it, and only on the Python 3.11 whose ``_create_fn`` it was written against.
"""

from __future__ import annotations

import dataclasses
import marshal
import sys
from pathlib import Path

from .core.cachefile import write_cache

FORMAT = 1
MAX_ENTRIES = 4000  # about 4 MB: past that the file is started afresh (dataclasses of old versions)

_ORIGINAL = dataclasses._create_fn
installed: DataclassCode | None = None  # the one in use, for whoever saves it early
_MISSING = dataclasses.MISSING


def _supported() -> bool:
    code = _ORIGINAL.__code__
    return (sys.version_info[:2] == (3, 11) and code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            == ("name", "args", "body", "globals", "locals", "return_type"))


class DataclassCode:
    def __init__(self, file: Path) -> None:
        self.file = file
        self.codes: dict[str, object] = {}
        self.new = 0
        self._key = (FORMAT, sys.version, sys.implementation.cache_tag)
        try:
            with open(file, "rb") as f:
                key, codes = marshal.loads(f.read())
            if tuple(key) == self._key and isinstance(codes, dict):
                self.codes = codes
        except Exception:  # none yet, or unreadable: compiled as usual, then written again
            pass

    def install(self) -> bool:
        """Use the cache for every dataclass created from now on; False where it cannot."""
        global installed
        if not _supported() or installed is not None:
            return False
        dataclasses._create_fn = self._create_fn
        installed = self
        return True

    def uninstall(self) -> None:
        global installed
        if installed is self:
            dataclasses._create_fn = _ORIGINAL
            installed = None

    def _create_fn(self, name, args, body, *, globals=None, locals=None, return_type=_MISSING):
        # dataclasses._create_fn of Python 3.11, but for where the text is compiled.
        if locals is None:
            locals = {}
        return_annotation = ""
        if return_type is not _MISSING:
            locals["_return_type"] = return_type
            return_annotation = "->_return_type"
        args = ",".join(args)
        body = "\n".join(f"  {b}" for b in body)
        txt = f" def {name}({args}){return_annotation}:\n{body}"
        local_vars = ", ".join(locals.keys())
        txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
        code = self.codes.get(txt)
        if code is None:
            # As exec(txt) in dataclasses.py compiles it: that module has no __future__ imports.
            code = self.codes[txt] = compile(txt, "<string>", "exec", dont_inherit=True)
            self.new += 1
        ns: dict = {}
        exec(code, globals, ns)
        return ns["__create_fn__"](**locals)

    def save(self) -> None:
        if not self.new:
            return
        codes = self.codes if len(self.codes) <= MAX_ENTRIES else {}
        if write_cache(self.file, lambda f: marshal.dump((self._key, codes), f), (ValueError,)):
            self.new = 0
