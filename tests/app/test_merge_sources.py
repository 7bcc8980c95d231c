"""Merge knows a source by its content, and leaves nothing behind (issue 24, items 4 and 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from app.cli import main
from app.io.importer import import_file
from app.store import Project
from app.store.schema import Judgment
from tests.conftest import PAIRS, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "target.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    return path


def judged(path: Path, label: str, annotator: str | None = None, note: str | None = None) -> Path:
    """A JSONL file with a pair judgment of the first pair (no annotator: another tool's)."""
    judgment: dict[str, str | None] = {"target": "pair", "aspect": "support", "label": label}
    if annotator is not None:
        judgment["annotator"] = annotator
    if note is not None:
        judgment["note"] = note
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_jsonl(path, [{**PAIRS[0], "judgments": [judgment]}])


def held(path: Path) -> list[tuple[str, str, str | None]]:
    with Project.open(path) as p, p.session() as s:
        rows = s.execute(select(Judgment.annotator, Judgment.label, Judgment.note)).all()
    return sorted(tuple(r) for r in rows)  # type: ignore[misc]


def merge_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["merge", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_same_source_under_another_name_is_merged_once(
    target: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = judged(tmp_path / "tool.jsonl", "unsupported")
    assert merge_json(capsys, str(target), str(src))["judgments_new"] == 1
    copy = tmp_path / "elsewhere" / "renamed.jsonl"
    copy.parent.mkdir()
    shutil.copy(src, copy)
    report = merge_json(capsys, str(target), str(copy))
    assert report["judgments_new"] == 0
    assert report["files"][0]["merged_before"]["file"] == str(src)
    assert held(target) == [("unnamed (tool.jsonl)", "unsupported", None)]
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    assert main(["merge", str(target), str(copy), str(link)]) == 0
    text = capsys.readouterr().out
    assert "already merged on" in text and "nothing new" in text
    assert f"{link}: the same content as {copy}; not merged twice" in text
    assert held(target) == [("unnamed (tool.jsonl)", "unsupported", None)]


def test_two_sources_with_one_name_are_both_merged(
    target: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = judged(tmp_path / "mine.jsonl", "supported", annotator="alice")
    merge_json(capsys, str(target), str(mine))
    first = judged(tmp_path / "a" / "bob.jsonl", "unsupported", "alice", note="from a")
    second = judged(tmp_path / "b" / "bob.jsonl", "unsupported", "alice", note="from b")
    report = merge_json(capsys, str(target), str(first), str(second))
    assert report["judgments_new"] == 2
    assert [f["label"] for f in report["files"]] == ["bob.jsonl", "bob.jsonl #2"]
    assert held(target) == [
        ("alice", "supported", None),
        ("alice (bob.jsonl #2)", "unsupported", "from b"),
        ("alice (bob.jsonl)", "unsupported", "from a"),
    ]


KILLED_WHILE_READING = """
import os, signal, sys
import app.io.bundles

def killed(*_a, **_k):
    os.kill(os.getpid(), signal.SIGKILL)

app.io.bundles.iter_bundles = killed
from app.cli import main
main(["merge", sys.argv[1], sys.argv[2]])
"""


def test_a_killed_merge_leaves_no_copy_anywhere(target: Path, tmp_path: Path) -> None:
    src_dir = tmp_path / "src"
    src_dir.mkdir()
    src = src_dir / "alice.factdesk"
    shutil.copy(target, src)
    tmp, run = tmp_path / "tmp", tmp_path / "run"
    tmp.mkdir()
    run.mkdir()  # where the open projects' names are recorded (not the temporary folder)
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_READING, str(target), str(src)],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp), "XDG_RUNTIME_DIR": str(run)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == -9
    assert list(tmp.iterdir()) == []  # no temporary copy of the source
    assert sorted(p.name for p in src_dir.iterdir()) == ["alice.factdesk"]  # no -wal, -shm


def test_a_corrupt_source_is_named_by_its_path(
    target: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    src = tmp_path / "alice.factdesk"
    shutil.copy(target, src)
    con = sqlite3.connect(src)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'outputs'").fetchone()
    con.close()
    data = bytearray(src.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[(root - 1) * page : root * page] = b"\x07" * page  # found damaged only when read
    src.write_bytes(bytes(data))
    before = src.read_bytes()
    code = main(["merge", str(target), str(src)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"factdesk: error: {src}: ")
    assert "copy.factdesk" not in err and "factdesk-merge" not in err
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "alice.factdesk",
        "pairs.jsonl",
        "target.factdesk",
    ]
