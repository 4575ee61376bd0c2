"""Compiles studyapp/core/_speedups.c into the wheel (or beside it, for an editable install).

The compiled module holds fast copies of the Python a pick and a first session spend their time
in (see its header); it is optional: where no C compiler is found the build says so in its log
(`pip install -v`) and installs without it, and the Python references give the same results.
setuptools' build_ext finds the platform's compiler and flags.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODULE = "studyapp.core._speedups"
SOURCE = "studyapp/core/_speedups.c"


class CompiledSpeedups(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        try:
            built = _compile(root, in_place=version == "editable")
        except Exception as error:  # no compiler, no headers: the pure-Python copy serves
            print(f"studyapp: not compiling {SOURCE} ({error}); using the pure-Python copies",
                  file=sys.stderr)
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(built)] = str(Path(SOURCE).parent / built.name)


def _compile(root: Path, in_place: bool) -> Path:
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    # -ffp-contract=off: a fused multiply-add would skip an f32 rounding Anki makes (GCC and
    # Clang contract by default where the target has FMA, as aarch64 does). MSVC keeps them apart
    # under its default /fp:precise.
    flags = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
    extension = Extension(MODULE, [SOURCE], extra_compile_args=flags)
    distribution = Distribution({"name": "studyapp", "ext_modules": [extension], "script_name": "hatch_build.py"})
    distribution.src_root = str(root)
    command = build_ext(distribution)
    command.inplace = in_place
    command.force = True  # this file system keeps whole seconds: a stale copy can look up to date
    out = Path(tempfile.mkdtemp(prefix="studyapp-build-"))
    command.build_lib = str(out / "lib")
    command.build_temp = str(out / "temp")
    command.ensure_finalized()
    cwd = os.getcwd()
    os.chdir(root)  # build_ext resolves the source and the in-place target from here
    try:
        command.run()
        return Path(command.get_ext_fullpath(MODULE)).resolve()
    finally:
        os.chdir(cwd)
