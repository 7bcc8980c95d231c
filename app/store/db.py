"""Opening a project file: the engine, SQLite pragmas, schema migrations and who owns the file.

A project file is opened once per process. SQLite's locks on it are POSIX advisory locks, which
belong to the process and are all dropped when the process closes *any* descriptor of the file.
So nothing here ever opens the file outside SQLite (the check that it is a FactDesk project goes
through a read-only SQLite connection, which SQLite keeps open while other connections hold
locks), and every :class:`~app.store.project.Project` of one file in one process (the window and
its worker jobs, a command run in-process) shares one engine, handed out by :func:`acquire`.
Otherwise another process closing its connection would believe it is the last one, checkpoint
and delete the ``-wal`` that this process still writes to.

A file is checked before any engine touches it: a file that is not a FactDesk project, or one
written by a newer FactDesk, is refused and left byte for byte as it was (no switch to WAL, no
0-byte file turned into a database). Migrations (Alembic) are applied on open.
"""

from __future__ import annotations

import ast
import errno
import functools
import os
import secrets
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from sqlalchemy import URL, Engine, create_engine, event, insert
from sqlalchemy.exc import DBAPIError

from app.store import names, sides
from models.errors import ProjectError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
SUFFIX = ".factdesk"
# Seconds a writer waits for another's commit before "locked" is reported.
LOCK_TIMEOUT = 30.0
# Tables every FactDesk schema revision has; a file lacking one is not a project.
REQUIRED_TABLES = frozenset({"settings", "sources", "outputs", "runs", "judgments", "audit_log"})
SIDE_FILES = ("-wal", "-shm", "-journal")


def database_url(path: Path) -> URL:
    """The SQLAlchemy URL of a project file; any character in the name is taken literally."""
    return URL.create("sqlite", database=str(path))


def _sqlite_uri(path: Path, mode: str) -> str:
    # A file: URI needs '?', '#' and '%' in the name escaped.
    return f"file:{quote(str(Path(path).absolute()))}?mode={mode}"


def _read_only_uri(path: Path) -> str:
    """How to read a file without writing anything beside it.

    A reader of a WAL file needs a -shm, which SQLite would create (and leave) beside it, or
    cannot create in a read-only folder. With no -wal at all no program has the file open (one
    that does keeps its -wal) and the file alone is the whole project: it is read as immutable,
    creating nothing. Otherwise the -wal holds commits and is read with the -shm that is there.
    """
    if Path(str(path) + "-wal").exists():
        return _sqlite_uri(path, "ro")
    return _sqlite_uri(path, "ro") + "&immutable=1"


def is_writable(path: Path) -> bool:
    """Whether the file and its folder (where the -wal and -shm live) can be written."""
    return os.access(path, os.W_OK) and os.access(Path(path).absolute().parent, os.W_OK)


def make_engine(path: Path, *, read_only: bool = False) -> Engine:
    # The window writes judgments while a worker writes analysis results on another connection
    # of the same engine; WAL lets readers through, and the timeout makes a writer wait for the
    # other's commit.
    if read_only:
        uri = _read_only_uri(path)
        engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(
                uri, uri=True, timeout=LOCK_TIMEOUT, check_same_thread=False
            ),
        )
    else:
        engine = create_engine(database_url(path), connect_args={"timeout": LOCK_TIMEOUT})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        cur = dbapi_conn.cursor()
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    return engine


def _alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


@functools.cache
def _revisions() -> dict[str, str | None]:
    """Revision -> the revision it revises, read from the migration scripts' assignments.

    Importing alembic to walk them costs a quarter of a second, the largest part of opening a
    project; the scripts are only read here (``revision = "0004"``, ``down_revision = "0003"``).
    """
    found: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS / "versions").glob("*.py")):
        values: dict[str, object] = {}
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                    values[target.id] = node.value.value
        revision, down = values.get("revision"), values.get("down_revision")
        if isinstance(revision, str) and (down is None or isinstance(down, str)):
            found[revision] = down
    return found


def head_revision() -> str:
    """The newest schema revision this version knows (the one no migration revises)."""
    revisions = _revisions()
    heads = set(revisions) - {down for down in revisions.values() if down}
    if len(heads) == 1:
        return heads.pop()
    from alembic.script import ScriptDirectory  # branches: let alembic say

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def known_revisions() -> set[str]:
    """Every schema revision this version can open (and migrate from)."""
    return set(_revisions())


@dataclass(frozen=True)
class FileInfo:
    """What a file holds, read before any engine is made for it."""

    tables: frozenset[str]
    revision: str | None


def inspect_file(path: Path, *, read_only: bool) -> FileInfo:
    """Read the tables and schema revision of ``path`` through SQLite, changing nothing.

    Raises:
        ProjectError: the file is not an SQLite database, is damaged or truncated, is empty,
            is another program's database, or was written by a newer FactDesk.
    """
    # mode=rw never creates the file and, unlike mode=ro, removes the -wal/-shm it needed to
    # read a WAL file when it is the last connection; a read-only file can only take mode=ro.
    try:
        uri = _read_only_uri(path) if read_only else _sqlite_uri(path, "rw")
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ProjectError(f"{path}: cannot be opened ({exc}).") from exc
    try:
        return inspect_connection(con, path)
    finally:
        con.close()


def inspect_connection(con: sqlite3.Connection, path: Path) -> FileInfo:
    """:func:`inspect_file` on an open connection; messages name ``path``."""
    try:
        tables = frozenset(
            r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        )
        revisions: list[object] = []
        if "alembic_version" in tables:
            revisions = [r[0] for r in con.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise ProjectError(
                f"{path}: not a FactDesk project (not an SQLite file); give a project file "
                "made with 'factdesk new'."
            ) from exc
        raise ProjectError(
            f"{path}: damaged project file ({exc}); it may be truncated. "
            "Restore it from a copy; the file was left untouched."
        ) from exc
    if not tables:
        raise ProjectError(f"{path}: empty file; create a project with 'factdesk new'.")
    if "alembic_version" not in tables:
        raise ProjectError(f"{path}: not a FactDesk project (no schema version).")
    if len(revisions) != 1 or not isinstance(revisions[0], str) or not revisions[0]:
        raise ProjectError(
            f"{path}: not a FactDesk project (its schema version table holds "
            f"{len(revisions)} entries, expected one)."
        )
    revision = revisions[0]
    if revision not in known_revisions():
        head = head_revision()
        if revision.isdigit() and len(revision) == len(head) and revision > head:
            raise ProjectError(
                f"{path}: written by a newer FactDesk (schema revision {revision}); "
                f"this version knows up to {head}. The file was left untouched."
            )
        raise ProjectError(
            f"{path}: not a FactDesk project (unknown schema revision {revision!r}); "
            "the file was left untouched."
        )
    missing = REQUIRED_TABLES - tables
    if missing:
        raise ProjectError(
            f"{path}: not a FactDesk project (no table {', '.join(sorted(missing))})."
        )
    return FileInfo(tables, revision)


def open_copy(path: Path) -> Engine:
    """A private copy of the project file ``path`` in memory, migrated to this version.

    The file is read without writing anything: nothing is created beside it (a -shm that
    reading a left-over -wal needed is removed again) and nothing is left on disk, even by a
    killed process. Errors name ``path``.

    Raises:
        ProjectError: ``path`` is not a FactDesk project, is damaged, or is newer.
    """
    from sqlalchemy.pool import StaticPool

    shm = Path(f"{path}-shm")
    had_shm = shm.exists()
    memory = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        try:
            src = sqlite3.connect(_read_only_uri(path), uri=True)
            try:
                src.backup(memory)
            finally:
                src.close()
        except sqlite3.Error as exc:
            raise ProjectError(f"{path}: cannot be read as a FactDesk project ({exc}).") from exc
        finally:
            if not had_shm:
                shm.unlink(missing_ok=True)
        info = inspect_connection(memory, path)
    except BaseException:
        memory.close()
        raise
    engine = create_engine("sqlite://", creator=lambda: memory, poolclass=StaticPool)
    try:
        migrate(engine, path, info.revision)
    except BaseException:
        engine.dispose()
        raise
    return engine


def migrate(engine: Engine, path: Path, current: str | None) -> None:
    """Bring the schema from revision ``current`` (None: a new file) to this version's head."""
    if current == head_revision():
        return
    from alembic import command

    with engine.begin() as conn:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def checkpoint(engine: Engine) -> None:
    """Copy committed work from the -wal into the project file, as far as nobody is reading.

    After a disk-full error the last commits sit only in the -wal; opening the project again
    (when there is space) moves them into the file. PASSIVE never waits for other programs.
    """
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
    except Exception:  # noqa: BLE001 - the work stays safe in the -wal; the next open retries
        pass


# ---------------------------------------------------------------------- one engine per file
@dataclass
class _Shared:
    engine: Engine
    read_only: bool
    users: int
    claim: names.Claim


_registry_lock = threading.Lock()
_registry: dict[tuple[int, int], _Shared] = {}


def _key(path: Path) -> tuple[int, int]:
    st = os.stat(path)  # follows links: two names of one file share its engine
    return st.st_dev, st.st_ino


def acquire(path: Path) -> tuple[Engine, bool]:
    """The engine of an existing project file, and whether it is read-only.

    The first user in the process claims the file's name across processes
    (:mod:`app.store.names`: a hard link or bind mount of a file another process has open is
    opened under that process's name), checks and migrates the file; later users (a worker job,
    an in-process command) get the same engine. Give it back with :func:`release`.
    """
    with _registry_lock:
        key = _key(path)
        shared = _registry.get(key)
        if shared is None:
            claim = names.claim(path)
            try:
                engine, read_only = _open_engine(claim.name)
            except BaseException:
                claim.release()
                raise
            shared = _registry[key] = _Shared(engine, read_only, 0, claim)
        shared.users += 1
        return shared.engine, shared.read_only


def _open_engine(path: Path) -> tuple[Engine, bool]:
    """Check, migrate and open ``path`` (the name claimed for it)."""
    read_only = not is_writable(path)
    if not read_only:
        sides.make_writable(path)
    info = inspect_file(path, read_only=read_only)
    if read_only and info.revision != head_revision():
        raise ProjectError(
            f"{path}: read-only, and its schema (revision {info.revision}) needs an "
            f"upgrade to {head_revision()} that cannot be written; open a writable copy."
        )
    engine = make_engine(path, read_only=read_only)
    try:
        migrate(engine, path, info.revision)
        if not read_only:
            checkpoint(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine, read_only


def create(path: Path, settings: Mapping[str, object]) -> Engine:
    """Create a new project file (which must not exist) holding ``settings``; its engine.

    The file is built under a fresh hidden name beside ``path`` and given its name only when
    complete (a hard link, which never replaces a file), so a failure (a full disk) leaves no
    file, not even an empty one. Give the engine back with :func:`release`.

    Raises:
        ProjectError: ``path`` exists, or the file cannot be written (disk full, permission).
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.new")
    try:
        _build(tmp, settings)
        _name_new(tmp, path)
    except FileExistsError as exc:
        raise ProjectError(f"{path}: already exists; open it instead.") from exc
    except (OSError, DBAPIError) as exc:
        if _is_full(exc):
            raise ProjectError(
                f"{path}: disk full; no project was created. Free some space and try again."
            ) from exc
        if isinstance(exc, OSError):
            raise ProjectError(
                f"{path}: cannot be written ({exc.strerror or exc}); no project was created."
            ) from exc
        raise  # Project.create says what SQLite found
    finally:
        for suffix in ("", *SIDE_FILES):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    return acquire(path)[0]


def _build(tmp: Path, settings: Mapping[str, object]) -> None:
    from app.store.schema import Setting

    engine = make_engine(tmp)
    try:
        migrate(engine, tmp, None)
        with engine.begin() as conn:
            conn.execute(
                insert(Setting.__table__),  # type: ignore[arg-type]
                [{"key": k, "value": v} for k, v in settings.items()],
            )
    finally:
        engine.dispose()  # the last connection: the -wal is folded into the file
    wal = Path(f"{tmp}-wal")
    if wal.exists() and wal.stat().st_size > 0:  # the fold failed (a full disk)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))


def _name_new(tmp: Path, path: Path) -> None:
    """Give the finished file ``tmp`` the name ``path``, never replacing a file there."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if path.exists() or path.is_symlink():  # no hard links here: checked, then renamed
            raise FileExistsError(errno.EEXIST, "exists", str(path)) from exc
        os.replace(tmp, path)


def _is_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return "disk is full" in str(getattr(exc, "orig", exc)).lower()


def release(engine: Engine) -> None:
    """Give back an engine from :func:`acquire` or :func:`create`; the last user closes it."""
    with _registry_lock:
        for key, shared in list(_registry.items()):
            if shared.engine is engine:
                shared.users -= 1
                if shared.users <= 0:
                    del _registry[key]
                    engine.dispose()
                    shared.claim.release()
                return
    engine.dispose()  # not registered (made directly): close it all the same


# ---------------------------------------------------------------------- outputs beside a project
def project_files(path: Path) -> list[Path]:
    """The project file and the side files SQLite keeps beside it, links resolved."""
    real = Path(path).resolve()
    return [real] + [real.with_name(real.name + s) for s in SIDE_FILES]


def claimed_name(engine: Engine) -> Path | None:
    """The name SQLite was given for the file of ``engine`` (see :mod:`app.store.names`)."""
    with _registry_lock:
        for shared in _registry.values():
            if shared.engine is engine:
                return shared.claim.name
    return None


def refuse_project_output(
    project_path: Path, out: Path, *, action: str = "write", also: Path | None = None
) -> None:
    """Refuse to write ``out`` when it is the project or one of its side files.

    Links are resolved, and an existing file is compared by identity, so a symlink or a hard link
    to the project is caught as well as its own name; ``also``: the name the project is open
    under, whose side files are the ones in use.

    Raises:
        ProjectError: ``out`` is the project, its -wal, -shm or -journal.
    """
    mine = project_files(project_path) + (project_files(also) if also is not None else [])
    real = Path(out).resolve()
    same = real in mine
    if not same and real.exists():
        same = any(p.exists() and os.path.samefile(real, p) for p in mine)
    if same:
        raise ProjectError(
            f"{out}: is the project file {project_path} (or its {', '.join(SIDE_FILES)}); "
            f"refusing to {action} it. Choose another file name."
        )


def describe_sqlite_error(path: Path, exc: BaseException) -> str | None:
    """A one-line reason for an SQLite error a user can act on; None for a programming error."""
    msg = str(getattr(exc, "orig", None) or exc)
    low = msg.lower()
    if "database is locked" in low or "database table is locked" in low:
        return (
            f"{path}: the project is locked by another program (waited {LOCK_TIMEOUT:g} s); "
            "try again when it has finished."
        )
    if "database or disk is full" in low:
        return (
            f"{path}: disk full; nothing of this step was written and all earlier work is "
            f"kept (in the project and its -wal file: keep both). Free some space and try again."
        )
    if "readonly database" in low or "read-only" in low:
        return f"{path}: the project is read-only; it can be read (stats, export) but not changed."
    if "disk i/o error" in low:
        return (
            f"{path}: disk I/O error; earlier work is kept. Check the disk and that the project's "
            "-wal and -shm files were not moved or deleted, then open it again."
        )
    if "malformed" in low or "not a database" in low:
        return f"{path}: damaged project file ({msg}); restore it from a copy."
    if "unable to open" in low:
        return f"{path}: cannot be opened ({msg})."
    return None
