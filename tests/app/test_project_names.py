"""One project file under several names, side files left behind, a full disk (issue 24, 3/6/7).

SQLite names the ``-wal`` and ``-shm`` after the path it is given, so two processes that open
one file under two names (a hard link, a bind mount) would each keep a ``-wal`` of their own and
the later checkpoint would overwrite the other's commits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.store import Project
from models.errors import ProjectError

ROOT = Path(__file__).resolve().parents[2]

HOLD = """
import sys
from app.store import Project
p = Project.open(sys.argv[1])
p.set_setting(sys.argv[2], "held")
print("ready", flush=True)
sys.stdin.readline()
p.close()
"""


def holder(path: Path, key: str) -> subprocess.Popen[str]:
    """Another program that opens ``path``, commits ``key`` and keeps the project open."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), key],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def settle(proc: subprocess.Popen[str]) -> None:
    proc.communicate("\n", timeout=60)
    assert proc.returncode == 0


def intact(path: Path) -> bool:
    import sqlite3

    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()


def test_two_names_of_one_project_across_processes_lose_nothing(tmp_path: Path) -> None:
    a = tmp_path / "a.factdesk"
    Project.create(a).close()
    b = tmp_path / "b.factdesk"
    os.link(a, b)  # a second name for the same file
    other = holder(a, "from_a")
    try:
        with Project.open(b) as p:
            assert p.get_setting("from_a") == "held"  # sees the other program's commit
            p.set_setting("from_b", "here")
    finally:
        settle(other)
    with Project.open(a) as p:
        assert (p.get_setting("from_a"), p.get_setting("from_b")) == ("held", "here")
    assert intact(a)
    assert not list(tmp_path.glob("b.factdesk-*"))  # one -wal only, beside the first name


def test_the_side_files_in_use_are_refused_as_outputs_under_any_name(tmp_path: Path) -> None:
    from app.io.exporter import export

    a = tmp_path / "a.factdesk"
    Project.create(a).close()
    b = tmp_path / "b.factdesk"
    os.link(a, b)
    other = holder(a, "x")
    try:
        with Project.open(b) as p:
            with pytest.raises(ProjectError, match="is the project file"):
                export(p, tmp_path / "a.factdesk-wal")
    finally:
        settle(other)


def test_a_crash_under_one_name_is_read_back_under_another(tmp_path: Path) -> None:
    a = tmp_path / "a.factdesk"
    Project.create(a).close()
    b = tmp_path / "b.factdesk"
    os.link(a, b)
    crashed = holder(a, "before_crash")
    crashed.send_signal(signal.SIGKILL)
    crashed.wait(timeout=60)
    assert (tmp_path / "a.factdesk-wal").exists()  # the commit is in a's -wal only
    with Project.open(b) as p:
        assert p.get_setting("before_crash") == "held"
        p.set_setting("after", "yes")
    with Project.open(a) as p:
        assert (p.get_setting("before_crash"), p.get_setting("after")) == ("held", "yes")
    assert intact(a)


def test_a_name_this_process_cannot_reach_is_refused(tmp_path: Path) -> None:
    a = tmp_path / "a.factdesk"
    Project.create(a).close()
    other = holder(a, "x")
    try:
        moved = tmp_path / "moved.factdesk"
        a.rename(moved)  # the other program still writes a.factdesk-wal
        with pytest.raises(ProjectError, match="open in another program as .*a.factdesk"):
            Project.open(moved)
    finally:
        moved.rename(a)
        settle(other)
    assert intact(a)


# ---------------------------------------------------------------------- side files (item 7)
def as_plain_user(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` where file permissions apply: as root, without the capability to
    override them (root ignores a read-only file otherwise)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        if not Path("/usr/bin/setpriv").exists():
            pytest.skip("needs setpriv to drop root's permission override")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    return subprocess.run(
        [*prefix, sys.executable, "-c", script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


LEFTOVER = """
import os, shutil, sys
from pathlib import Path
from app.store import Project
folder = Path(sys.argv[1])
live = Project.create(folder / "live.factdesk")
live.set_setting("kept", "in the wal")
left = folder / "left.factdesk"  # what a crash leaves: the file, its -wal and -shm
for suffix in ("", "-wal", "-shm"):
    shutil.copy(f"{live.path}{suffix}", f"{left}{suffix}")
live.close()
for suffix in sys.argv[2].split(","):
    os.chmod(f"{left}{suffix}", 0o444)
for attempt in range(2):
    with Project.open(left) as p:
        assert p.get_setting("kept") == "in the wal", p.get_setting("kept")
        p.set_setting("attempt", attempt)
print("ok", sorted(x.name for x in folder.iterdir()))
"""


@pytest.mark.parametrize("read_only", ["-shm", "-wal", "-wal,-shm"])
def test_a_read_only_leftover_side_file_does_not_keep_the_project_read_only(
    tmp_path: Path, read_only: str
) -> None:
    tmp_path.chmod(0o777)
    done = as_plain_user(LEFTOVER, str(tmp_path), read_only)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok ['left.factdesk', 'live.factdesk']"


IN_USE = """
import os, sys
from pathlib import Path
from app.store import Project
from models.errors import ProjectError
path = Path(sys.argv[1])
os.chmod(f"{path}-shm", 0o444)
try:
    Project.open(path).set_setting("x", 1)
except ProjectError as exc:
    print(exc)
"""


def test_a_read_only_side_file_of_a_project_in_use_is_explained(tmp_path: Path) -> None:
    path = tmp_path / "p.factdesk"
    Project.create(path).close()
    tmp_path.chmod(0o777)
    other = holder(path, "x")
    try:
        done = as_plain_user(IN_USE, str(path))
    finally:
        settle(other)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert f"{path}-shm is read-only and another program has the project open" in done.stdout


NO_STRAYS = """
import os, sqlite3, sys
from pathlib import Path
from app.cli import main
folder = Path(sys.argv[1])
foreign = folder / "other.db"  # another program's database, in WAL mode, read-only
con = sqlite3.connect(foreign)
con.execute("PRAGMA journal_mode=WAL")
con.execute("CREATE TABLE t (x)")
con.commit()
con.close()
os.chmod(foreign, 0o444)
assert main(["stats", str(foreign)]) == 2
main(["new", str(folder / "p.factdesk")])
os.chmod(folder / "p.factdesk", 0o444)
assert main(["stats", str(folder / "p.factdesk")]) == 0
assert main(["merge", str(folder / "t.factdesk"), str(foreign)]) == 2
print(sorted(x.name for x in folder.iterdir()))
"""


def test_refused_and_read_only_files_get_no_stray_side_files(tmp_path: Path) -> None:
    tmp_path.chmod(0o777)
    Project.create(tmp_path / "t.factdesk").close()
    done = as_plain_user(NO_STRAYS, str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['other.db', 'p.factdesk', 't.factdesk']"


# ---------------------------------------------------------------------- a full disk (item 6)
def test_new_on_a_full_disk_leaves_nothing_and_new_works_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from app.cli import main
    from app.store import db

    def full(*_a: object, **_k: object) -> None:
        raise OperationalError(
            "CREATE TABLE", {}, sqlite3.OperationalError("database or disk is full")
        )

    path = tmp_path / "p.factdesk"
    with monkeypatch.context() as m:
        m.setattr(db, "migrate", full)
        assert main(["new", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"factdesk: error: {path}: disk full; no project was created. Free some space and try again.\n"
    )
    assert list(tmp_path.iterdir()) == []  # no 0-byte file, no temporary file
    assert main(["new", str(path)]) == 0
    assert main(["stats", str(path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.factdesk"]


def test_new_that_fails_on_write_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from app.cli import main

    real_link = os.link

    def full(*_a: object, **_k: object) -> None:  # the last step, naming the finished file
        raise OSError(errno.ENOSPC, "No space left on device")

    path = tmp_path / "p.factdesk"
    with monkeypatch.context() as m:
        m.setattr(os, "link", full)
        m.setattr(os, "replace", full)
        assert main(["new", str(path)]) == 2
    assert "no project was created" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert os.link is real_link and main(["new", str(path)]) == 0
