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
