"""Whether anything was committed to a WAL database, told without a read transaction.

A session asks before every pick whether another window or process committed since it last
looked (``Store.data_version``). ``PRAGMA data_version`` answers that, but it starts a read
transaction, and right after this connection's own commit (every pick follows an answer) that
takes SQLite's WAL read-mark locks afresh: several fcntl calls, 7 to 10 us of a 50 us pick.

The WAL-index (the database's ``-shm`` file; https://www.sqlite.org/walformat.html, "The
WAL-Index Header") begins with a 48-byte header, stored twice, that every commit rewrites: both
copies, before the committer lets go of its write lock. Among its fields is ``iChange``, which
each commit raises by one. So 96 bytes read with one ``pread`` that equal the 96 read earlier
mean that no commit finished in between. Anything else (a commit, a checkpoint restarting the
log, a header being written this very moment) sends the caller to the PRAGMA.

The descriptor is never closed while the file exists. Closing any descriptor of a file drops
every POSIX lock this process holds on it, and SQLite keeps its shared-memory locks on this file
(schema.quick_check tells of the same trap on the database file): a close here could let
another process take this one's connection for gone and rebuild the index under it. A file that
no longer exists has no connection left to lose locks (SQLite removes it after the last one),
so only those descriptors are closed, when a new one is opened.
"""

from __future__ import annotations

import os
import sys
import threading

HEADER_BYTES = 96  # the two copies of the 48-byte header
_CHANGE_AT = 8  # iChange: the third u32 of a copy, in the byte order of the machine that wrote it

# "-shm" path -> (descriptor, device, inode), for the life of the process (see above)
_OPEN: dict[str, tuple[int, int, int]] = {}
_LOCK = threading.Lock()


def open_header(database_file: str) -> int | None:
    """A descriptor to read the WAL-index header of ``database_file`` (a database in WAL mode,
    open in this process) through, or None where it cannot be read so (no ``pread``, no index)."""
    if not database_file or not hasattr(os, "pread"):
        return None
    path = database_file + "-shm"
    with _LOCK:
        try:
            status = os.stat(path)
        except OSError:
            return None
        found = _OPEN.get(path)
        if found is not None and found[1:] == (status.st_dev, status.st_ino):
            return found[0]
        _close_removed()
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        _OPEN[path] = (descriptor, status.st_dev, status.st_ino)
        return descriptor


def _close_removed() -> None:
    for path, (descriptor, _, _) in list(_OPEN.items()):
        try:
            removed = os.fstat(descriptor).st_nlink == 0
        except OSError:
            removed = True
        if removed:
            del _OPEN[path]
            try:
                os.close(descriptor)
            except OSError:
                pass


def read_header(descriptor: int) -> bytes | None:
    """Both copies of the header as they are now (None if they cannot be read)."""
    try:
        return os.pread(descriptor, HEADER_BYTES, 0)
    except OSError:
        return None


def change_counter(header: bytes | None) -> int | None:
    """The header's commit count, or None for a header that is not whole and settled (its two
    copies differ while a commit writes them)."""
    if header is None or len(header) != HEADER_BYTES or header[:48] != header[48:]:
        return None
    return int.from_bytes(header[_CHANGE_AT:_CHANGE_AT + 4], sys.byteorder)


def after_one_commit(seen: bytes | None, now: bytes | None) -> bool:
    """Whether ``now`` is ``seen`` plus exactly one commit (this connection's own, for a caller
    that has just committed a change: then nobody else committed in between)."""
    before, after = change_counter(seen), change_counter(now)
    return before is not None and after is not None and after == (before + 1) & 0xFFFFFFFF
