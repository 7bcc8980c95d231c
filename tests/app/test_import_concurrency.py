"""Two imports into one project at the same time: one waits, neither fails or loses rows
(issue 24 item 15)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import app.io.importer as importer
from app.io.importer import ImportReport, import_file
from app.store import Project
from tests.conftest import PAIRS, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def test_an_import_that_starts_while_another_checks_duplicates_waits_for_it(
    project: Project, tmp_path: Path, monkeypatch
) -> None:
    """Two connections: the first has read what the project holds and is about to write when
    the second starts. The second must see the first's pairs (as duplicates), not collide."""
    path = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    first_checked, go_on = threading.Event(), threading.Event()
    real = importer._new_records

    def slow_first(*args: Any, **kwargs: Any) -> Any:
        fresh = real(*args, **kwargs)
        if threading.current_thread().name == "first":
            first_checked.set()
            go_on.wait(60)
        return fresh

    monkeypatch.setattr(importer, "_new_records", slow_first)
    reports: dict[str, ImportReport] = {}
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            with Project.open(project.path) as p:
                reports[name] = import_file(p, path)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    first = threading.Thread(target=run, args=("first",), name="first")
    second = threading.Thread(target=run, args=("second",), name="second")
    first.start()
    assert first_checked.wait(60)
    second.start()
    second.join(1.0)  # it may finish (old behaviour) or wait for the first's write lock
    go_on.set()
    first.join(60)
    second.join(60)
    assert not errors, errors
    assert project.count_pairs() == 3
    imported = sorted((r.imported, len(r.duplicates)) for r in reports.values())
    assert imported == [(0, 3), (3, 0)]


def test_two_processes_importing_one_file_at_once_store_it_once(
    project: Project, tmp_path: Path
) -> None:
    records = [
        {"id": f"p{n}", "source": f"The council met on day {n}.", "output": f"It met on {n}."}
        for n in range(3000)
    ]
    path = write_jsonl(tmp_path / "many.jsonl", records)
    cmd = [sys.executable, "-m", "app.cli", "import", str(project.path), str(path), "--json"]
    procs = [
        subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [p.communicate(timeout=300) for p in procs]
    for proc, (_out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert "Traceback" not in err and "IntegrityError" not in err
    counts = sorted(
        (json.loads(out)["imported"], json.loads(out)["duplicates"]) for out, _ in results
    )
    assert counts == [(0, 3000), (3000, 0)]
    assert project.count_pairs() == 3000
