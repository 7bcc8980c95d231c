"""Side files a crash or another user left read-only beside a writable project.

SQLite opens a project whose ``-wal`` or ``-shm`` it cannot write as read-only, and would do so
for good. When the project file and its folder are writable and no program has the project open
(nobody holds the ``-shm``'s lock), :func:`make_writable` gives the side files back: a file of
this user's gets its write permission back, another's is replaced by a copy of this user's (the
``-wal``, which holds commits) or removed (the ``-shm``, an index SQLite rebuilds). Otherwise the
user is told which file it is and what to do.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import struct
import sys
from pathlib import Path

from models.errors import ProjectError

# SQLite's "dead man switch" byte in the -shm: every connection holds a read lock on it.
_SHM_DMS = 128
_FLOCK = "hhxxxxqqixxxx"  # struct flock on Linux (64-bit off_t)


def make_writable(path: Path) -> None:
    """Make the project's left-over read-only ``-wal``/``-shm`` writable, or say what to do.

    Raises:
        ProjectError: a side file cannot be made writable (the project is open elsewhere, or
            the file cannot be replaced); the message names it and what to do.
    """
    stuck = [
        side
        for side in (Path(f"{path}-wal"), Path(f"{path}-shm"))
        if side.exists() and not os.access(side, os.W_OK)
    ]
    if not stuck:
        return
    named = " and ".join(str(s) for s in stuck)
    if _in_use(Path(f"{path}-shm")):
        raise ProjectError(
            f"{path}: {named} is read-only and another program has the project open; close it "
            f"there, or make {named} writable, then open the project again."
        )
    try:
        for side in stuck:
            _give_back(side)
    except OSError as exc:
        raise ProjectError(
            f"{path}: {named} is read-only ({exc.strerror or exc}); make it writable "
            "(chmod u+w), or delete the -shm (never the -wal), then open the project again."
        ) from exc


def _give_back(side: Path) -> None:
    st = os.stat(side)
    if st.st_uid == getattr(os, "geteuid", lambda: -1)():
        os.chmod(side, stat.S_IMODE(st.st_mode) | stat.S_IWUSR)
        if os.access(side, os.W_OK):
            return
    if side.name.endswith("-shm"):
        side.unlink()  # nobody has it open: SQLite rebuilds it from the -wal
        return
    copy = side.with_name(f".{side.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(side, "rb") as src, open(copy, "xb") as dst:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(copy, side)
    finally:
        copy.unlink(missing_ok=True)


def _in_use(shm: Path) -> bool:
    """Whether a connection (any process) holds the project's ``-shm``.

    Without a -shm no program has the project open (one that does keeps it). Where the lock
    cannot be read (not Linux, an unreadable -shm) the answer is yes: nothing is replaced.
    """
    if not shm.exists():
        return False
    if sys.platform != "linux":
        return True
    import fcntl

    try:
        fd = os.open(shm, os.O_RDONLY)
    except OSError:
        return True
    try:
        probe = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, _SHM_DMS, 1, 0)
        kind = struct.unpack(_FLOCK, fcntl.fcntl(fd, fcntl.F_GETLK, probe))[0]
    except OSError:
        return True
    finally:
        # Safe: this process has no connection to this file yet (see db.acquire), so closing
        # the descriptor drops no lock of SQLite's.
        os.close(fd)
    return kind != fcntl.F_UNLCK
