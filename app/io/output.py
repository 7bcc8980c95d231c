"""Writing an output file (export, report, a scored corpus): a regular file, whole or not at all.

:func:`write_atomically` writes into a new file beside the target that no other file can be
mistaken for (unnamed on Linux, ``O_TMPFILE``; elsewhere a fresh hidden name made with
``O_EXCL``), then renames it over the target in one step. So the target is the old file or the
complete new one, a killed command leaves at most its own hidden temporary file (on Linux
nothing), and no file the command did not create is replaced or deleted on the way.

Only regular files are written: a folder, device, FIFO or socket at the output path is refused.
A symbolic link is written through: its target is replaced, the link stays.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from models.errors import InputError

_KINDS = (
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISFIFO, "FIFO (named pipe)"),
    (stat.S_ISSOCK, "socket"),
)


def output_target(out: str | Path) -> Path:
    """The regular file that writing ``out`` creates or replaces: links followed.

    Raises:
        InputError: ``out`` (or what its link points at) is a folder, device, FIFO or socket,
            or its folder does not exist.
    """
    target = Path(os.path.realpath(out))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror})", path=str(out)) from exc
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise InputError("is a folder; give a file name to write to", path=str(out))
        for test, kind in _KINDS:
            if test(mode):
                raise InputError(
                    f"is a {kind}, not a regular file; FactDesk writes only regular files: "
                    "give a file name",
                    path=str(out),
                )
    if not target.parent.is_dir():
        raise InputError(f"no such folder {target.parent}", path=str(out))
    return target


@contextlib.contextmanager
def write_atomically(
    out: str | Path, *, what: str = "the file", binary: bool = False
) -> Iterator[IO[Any]]:
    """A file to write the whole of ``out`` into; it replaces ``out`` when the block ends.

    Text is UTF-8 with newlines as written. An error or interrupt in the block leaves ``out``
    as it was and removes the temporary file. ``what`` names the file in errors ("the export").

    Raises:
        InputError: ``out`` cannot be written (see :func:`output_target`), or writing failed
            (disk full, no permission): one line, nothing written.
    """
    target = output_target(out)
    try:
        fd, named = _new_file(target)
    except OSError as exc:
        raise _failed(out, what, exc) from exc
    try:
        fh: IO[Any] = (
            os.fdopen(fd, "w+b") if binary else os.fdopen(fd, "w+", encoding="utf-8", newline="")
        )
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
            if named is None:
                named = _give_name(fh.fileno(), target)
        output_target(out)  # still no folder or device there
        with contextlib.suppress(OSError):  # a replaced file keeps its permissions
            os.chmod(named, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(named, target)
        named = None
    except OSError as exc:
        raise _failed(out, what, exc) from exc
    finally:
        if named is not None:
            named.unlink(missing_ok=True)


def _failed(out: str | Path, what: str, exc: OSError) -> InputError:
    return InputError(
        f"cannot write {what} ({exc.strerror or exc}); nothing was written", path=str(out)
    )


def _new_file(target: Path) -> tuple[int, Path | None]:
    """A new file beside ``target``: unnamed (Linux) or under a fresh hidden name."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is not None and Path("/proc/self/fd").is_dir():
        try:
            return os.open(target.parent, flag | os.O_RDWR, 0o666), None
        except OSError:  # a filesystem without O_TMPFILE: a named file instead
            pass
    return _exclusive(target)


def _exclusive(target: Path) -> tuple[int, Path]:
    while True:
        name = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666), name
        except FileExistsError:
            continue


def _give_name(fd: int, target: Path) -> Path:
    """A fresh hidden name for the unnamed file ``fd``: linked through /proc/self/fd, or, where
    linking is refused, a copy under that name."""
    proc = os.open("/proc/self/fd", os.O_RDONLY)
    try:
        while True:
            name = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
            try:
                # With a directory fd CPython calls linkat(..., AT_SYMLINK_FOLLOW); plain link()
                # would link the /proc symlink itself.
                os.link(str(fd), name, src_dir_fd=proc, follow_symlinks=True)
                return name
            except FileExistsError:
                continue
            except OSError:
                break
    finally:
        os.close(proc)
    copy, name = _exclusive(target)
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        while chunk := os.read(fd, 1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(copy, view) :]
        os.fsync(copy)
    except BaseException:
        name.unlink(missing_ok=True)
        raise
    finally:
        os.close(copy)
    return name
