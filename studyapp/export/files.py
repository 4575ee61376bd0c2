"""Writing files atomically: a reader sees the old file or the new one, never half of one.

What an export leaves behind, whatever happens to it: its temporary package beside the output
and its scratch folder (the whole collection, in the system's temporary folder) are removed when
it succeeds, fails, or is interrupted (Ctrl+C, SIGTERM, SIGHUP). A ``kill -9`` or a power cut
runs no code, so each of them is named to be recognised (``.studyapp-export-*.tmp`` beside the
output, ``studyapp-export-*`` in the temporary folder) and holds an ``flock`` while in use: the
next export removes every one whose lock it can take, i.e. whose process has ended (the kernel
drops a dead process's locks), and never one another export is still writing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.problems import StudyappError

try:  # POSIX; elsewhere leftovers are only removed once they are a day old
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

TEMP_PREFIX = ".studyapp-export-"
TEMP_SUFFIX = ".tmp"
SCRATCH_PREFIX = "studyapp-export-"
_UNLOCKED_AGE_S = 86_400


@contextlib.contextmanager
def replacing(path: Path, *, prefix: str | None = None,
              before_replace: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed over it when the block succeeds, removed when not.

    ``prefix`` names the temporary file (``.{path.name}.`` by default); ``before_replace`` sees
    the target again just before the rename, to refuse one that changed meanwhile."""
    path = Path(path)
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}.", suffix=TEMP_SUFFIX)
    temporary = Path(name)
    try:
        _lock(descriptor)
        yield temporary
        if before_replace is not None:
            before_replace(path)
        # mkstemp makes the file private; give it the mode a plain open() would have.
        os.chmod(temporary, _mode_for(path))
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def scratch_folder(prefix: str = SCRATCH_PREFIX) -> Iterator[Path]:
    """A private folder in the system's temporary folder, locked while in use, removed on any exit."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    descriptor = None
    try:
        if fcntl is not None:
            descriptor = os.open(folder, os.O_RDONLY)
            _lock(descriptor)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if descriptor is not None:
            os.close(descriptor)


def remove_leftovers(*folders: Path) -> list[Path]:
    """Remove what killed exports left: temporary files in ``folders`` (the output's, the home folder's
    ledger) and scratch folders in the system's temporary folder, each only when no running process
    holds it. Returns what went."""
    removed = []
    candidates = []
    for folder in dict.fromkeys(Path(f) for f in folders):
        with contextlib.suppress(OSError):
            candidates += [p for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX) and p.name.endswith(TEMP_SUFFIX)]
    with contextlib.suppress(OSError):
        candidates += [p for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith(SCRATCH_PREFIX)]
    for candidate in candidates:
        with contextlib.suppress(OSError):
            if _abandoned(candidate):
                if candidate.is_dir() and not candidate.is_symlink():
                    shutil.rmtree(candidate)
                else:
                    candidate.unlink()
                removed.append(candidate)
    return removed


def _lock(descriptor: int) -> None:
    if fcntl is None:
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        # A file system without locks (some network mounts): the export still works; its files are
        # then never taken for abandoned ones, as _abandoned cannot lock them either.
        pass


def _abandoned(path: Path) -> bool:
    """True when no process holds ``path``'s lock (it cannot be in use), for files and folders we own."""
    info = os.lstat(path)
    if info.st_uid != os.getuid() or not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return False  # another user's, or a link someone put there: not ours to remove
    if fcntl is None:  # pragma: no cover - Windows
        import time

        return time.time() - info.st_mtime > _UNLOCKED_AGE_S
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held (BlockingIOError), or no locks on this file system: leave it
        return False
    finally:
        os.close(descriptor)  # closing drops the lock just taken
    return True


# -- what may be replaced ------------------------------------------------------------------------

_KINDS = [
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


def refuse_unless_replaceable(path: Path, *, example: str) -> None:
    """Raise unless ``path`` is missing or a regular file this process may overwrite.

    Replacing is a rename over the path: a FIFO, a device node or a socket would be swapped for
    a regular file (as root, ``-o /dev/null`` would replace the system's), a symbolic link would
    become a file while its target stays as it was, and a read-only file would be replaced although
    its mode says not to (root's writes ignore the mode, so the mode is read here, not tried)."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise StudyappError(f"cannot write {path}: {error.strerror or error}") from None
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(path)
        raise StudyappError(f"cannot write {path}: it is a symbolic link (to {target}), and studyapp writes a package "
                            f"only as a regular file, never through or over a link; give the file's own path, or "
                            f"remove the link, or choose another name (for example -o {example})")
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise StudyappError(f"cannot write {path}: it is {kind}, not a regular file, and studyapp would replace "
                                f"it with one; choose a file name (for example -o {example})")
    if stat.S_ISDIR(info.st_mode):
        raise StudyappError(f"cannot write {path}: it is a folder; give a file name such as {path / example}",
                            code="usage")
    if not stat.S_ISREG(info.st_mode):  # pragma: no cover - every kind is named above
        raise StudyappError(f"cannot write {path}: it is not a regular file; choose a file name (for example -o {example})")
    mode = stat.S_IMODE(info.st_mode)
    if not info.st_mode & stat.S_IWUSR:
        raise StudyappError(f"cannot write {path}: it is read-only (mode {mode:04o}); make it writable "
                            f"(chmod u+w {path}) to replace it, or choose another name (for example -o {example})")
    if not os.access(path, os.W_OK, follow_symlinks=False):
        raise StudyappError(f"cannot write {path}: this user may not write it (mode {mode:04o}, owner uid "
                            f"{info.st_uid}); choose another name (for example -o {example}), or ask its owner")


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
