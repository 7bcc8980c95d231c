"""One name per project file across processes.

SQLite names a project's ``-wal`` and ``-shm`` after the path it was given. Two processes that
open one file under two names (a hard link, a bind mount) would each keep a ``-wal`` beside their
own name, and whichever checkpoints last would overwrite the other's commits. So the name a
project is opened under is recorded, keyed on the file's device and inode, in a folder of this
user's (``$XDG_RUNTIME_DIR/factdesk-open``, else ``<tmp>/factdesk-open-<uid>``); every process
that has the file open holds a shared ``flock`` on that record. A process that opens the file
under another name while the record is held uses the recorded name instead when it leads to the
same file, and is refused when it does not (the file was renamed while open). A record left by a
killed process whose ``-wal`` is still there is followed too, so that ``-wal`` is read back.

Symbolic links are resolved first, so every link to a file is one name. Where ``fcntl`` is not
available (Windows) names are not recorded.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from models.errors import ProjectError

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

_MUTEX = ".lock"


def records_dir() -> Path | None:
    """This user's folder of records, created on first use; None where it cannot be used."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = (
        Path(runtime) / "factdesk-open"
        if runtime
        else Path(tempfile.gettempdir()) / f"factdesk-open-{uid}"
    )
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    # A folder planted by someone else (or a link) is not trusted with the records.
    if not os.path.isdir(folder) or os.path.islink(folder) or st.st_uid != uid:
        return None
    return folder


@dataclass
class Claim:
    """The name a process opens a project file under, held until :meth:`release`."""

    name: Path
    _fd: int | None = field(default=None, repr=False)
    _record: Path | None = field(default=None, repr=False)

    def release(self) -> None:
        """Give the name back; the record goes when nobody holds it and no -wal is left."""
        if self._fd is None or self._record is None or fcntl is None:
            return
        fd, self._fd = self._fd, None
        try:
            with _mutex(self._record.parent):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return  # another process still has the file open under this name
                if not _has_wal(self.name):
                    self._record.unlink(missing_ok=True)
        finally:
            os.close(fd)


def claim(path: Path) -> Claim:
    """The name to open ``path`` under, recorded for other processes.

    Raises:
        ProjectError: another process has the file open under a name that this process cannot
            reach (the file was moved or renamed while open).
        OSError: ``path`` cannot be read.
    """
    real = Path(os.path.realpath(path))
    st = os.stat(real)
    folder = records_dir() if fcntl is not None else None
    if folder is None:
        return Claim(real)
    record = folder / f"{st.st_dev}-{st.st_ino}"
    with _mutex(folder):
        fd = os.open(record, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            name = _decide(fd, real, st, path)
            fcntl.flock(fd, fcntl.LOCK_SH)  # held while this process has the file open
        except BaseException:
            os.close(fd)
            raise
    return Claim(name, fd, record)


def _decide(fd: int, real: Path, st: os.stat_result, asked: Path) -> Path:
    """The name to use, the record updated (its mutex held)."""
    recorded = _read(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        others = False
    except OSError:
        others = True
    if recorded is None or recorded == real:
        name = real
    elif _same_file(recorded, st):
        if others or _has_wal(recorded):
            return recorded  # open there, or its -wal holds commits to read back
        name = real
    elif others:
        raise ProjectError(
            f"{asked}: this project is open in another program as {recorded}, a name that no "
            "longer leads to this file; close it there first, then open it again."
        )
    else:
        name = real  # a stale record (the file was renamed or the inode reused)
    if not others:
        os.ftruncate(fd, 0)
        os.pwrite(fd, os.fsencode(name), 0)
    return name


def _read(fd: int) -> Path | None:
    data = b""
    while chunk := os.pread(fd, 65536, len(data)):
        data += chunk
    return Path(os.fsdecode(data)) if data else None


def _same_file(path: Path, st: os.stat_result) -> bool:
    try:
        other = os.stat(path)
    except OSError:
        return False
    return (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)


def _has_wal(name: Path) -> bool:
    try:
        return os.stat(f"{name}-wal").st_size > 0
    except OSError:
        return False


@contextlib.contextmanager
def _mutex(folder: Path) -> Iterator[None]:
    """One process at a time reads and writes the records (briefly)."""
    fd = os.open(folder / _MUTEX, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
