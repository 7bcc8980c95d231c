"""One project file shared by the window, its workers and command-line processes.

SQLite's locks are POSIX advisory locks: they belong to the process and any ``close()`` of any
descriptor of the file drops them all. A process that holds a connection must therefore never
open the file outside SQLite, or another process closing its own connection believes it is the
last one, checkpoints, and deletes the ``-wal`` and ``-shm`` that this process still writes to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.cli import main
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from tests.conftest import PAIRS, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command line in its own process, as a user runs it in a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def deleted_project_files(path: Path) -> list[str]:
    """Descriptors of this process that point at a deleted file of the project."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)) and target.endswith("(deleted)"):
            found.append(target)
    return found


def judgments_seen_by_another_process(path: Path) -> int:
    """Count judgments through a fresh process: what survives if this one is killed now."""
    code = (
        "import sqlite3, sys\n"
        "con = sqlite3.connect(sys.argv[1])\n"
        "print(con.execute('SELECT count(*) FROM judgments').fetchone()[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@pytest.fixture
def open_project(tmp_path: Path, pairs_file: Path):
    p = Project.create(tmp_path / "shared.factdesk")
    import_file(p, pairs_file)
    yield p
    p.close()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_cli_stats_beside_an_open_project_keeps_its_wal(open_project: Project, capsys) -> None:
    path = open_project.path
    oid = open_project.pair_rows()[0].output_id
    open_project.judge(JudgmentKey(oid), JudgmentValue("supported", "accept"))
    # The window's own process runs the stats path (as a worker would), then a terminal does.
    assert main(["stats", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 3
    done = cli("stats", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pairs"] == 3
    assert deleted_project_files(path) == []
    # A decision taken afterwards is on disk where a new process (or a restart) finds it.
    open_project.judge(JudgmentKey(oid, aspect="flag"), JudgmentValue("malformed"))
    assert judgments_seen_by_another_process(path) == 2
    assert deleted_project_files(path) == []


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_worker_opening_the_project_again_keeps_the_locks(open_project: Project) -> None:
    """A window worker opens the project by path in a thread while the window holds it."""
    path = open_project.path
    result: list[int] = []

    def worker() -> None:
        with Project.open(path) as again:
            result.append(again.count_pairs())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert result == [3]
    done = cli("stats", str(path))
    assert done.returncode == 0, done.stderr
    oid = open_project.pair_rows()[0].output_id
    open_project.judge(JudgmentKey(oid), JudgmentValue("unsupported", "reject"))
    assert deleted_project_files(path) == []
    assert judgments_seen_by_another_process(path) == 1


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_cli_writers_beside_an_open_project(open_project: Project, tmp_path: Path) -> None:
    path = open_project.path
    more = write_jsonl(
        tmp_path / "more.jsonl",
        [dict(r, id=f"{r['id']}-b", output=r["output"] + " Also.") for r in PAIRS],
    )
    done = cli("import", str(path), str(more), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["imported"] == 3
    done = cli("analyze", str(path), "--checker", "lexical", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pairs_scored"] == 6
    # The open project sees what the other process wrote, and its own writes stay durable.
    assert open_project.count_pairs() == 6
    assert open_project.stats()["checkers"]["lexical"]["scored_pairs"] == 6
    oid = open_project.pair_rows()[-1].output_id
    open_project.judge(JudgmentKey(oid), JudgmentValue("supported", "accept"))
    assert deleted_project_files(path) == []
    assert judgments_seen_by_another_process(path) == 1
