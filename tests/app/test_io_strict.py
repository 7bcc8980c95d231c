"""Strict JSON out, unambiguous ids in, and no export leftovers (issue 13 items 10 and 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.io.records import read_pairs
from app.store import Project
from models.checkers.lexical import LexicalArcChecker
from models.errors import InputError


def _strict(line: str) -> dict:
    def refuse(constant: str) -> None:
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(line, parse_constant=refuse)


def test_infinite_scores_export_as_strict_json(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])
    with project.engine.begin() as conn:  # SQLite keeps ±inf (a NaN would be stored as NULL)
        conn.execute(text("UPDATE sentence_scores SET score = 1e999"))
        conn.execute(text("UPDATE pair_scores SET score = -1e999"))
    out = tmp_path / "out.jsonl"
    assert export(project, out) == 3
    records = [_strict(line) for line in out.read_text(encoding="utf-8").splitlines()]
    lex = records[0]["checkers"]["lexical"]
    assert lex["score"] is None
    assert all(s["score"] is None for s in lex["sentences"])


def test_a_number_id_and_the_same_text_id_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "ids.jsonl"
    rows = [
        {"id": 7, "source": "The cat sat.", "output": "A cat sat."},
        {"id": "7", "source": "The dog ran.", "output": "A dog ran."},
        {"id": 8, "source": "The cow ate.", "output": "A cow ate."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert err.value.line == 2 and err.value.field == "id"
    assert "number" in str(err.value) and "line 1" in str(err.value)
    result = read_pairs(path, skip_invalid=True)
    assert [r.external_id for r in result.records] == ["7", "8"]
    assert [(p.line, p.field) for p in result.invalid] == [(2, "id")]


def test_a_file_named_like_a_part_file_is_left_alone(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    """Exports use no fixed temporary name (issue 24, item 1): a NAME.part is the user's."""
    import_file(project, pairs_file)
    out = tmp_path / "out.jsonl"
    theirs = tmp_path / "out.jsonl.part"
    theirs.write_text("half a record", encoding="utf-8")
    assert export(project, out) == 3
    assert theirs.read_text(encoding="utf-8") == "half a record" and out.is_file()


def test_an_export_killed_midway_leaves_no_file(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    import_file(project, pairs_file)
    path = project.path
    project.close()
    out = tmp_path / "killed.jsonl"
    script = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
import app.io.exporter as ex
from app.store import Project
real = ex.pair_record
calls = []
def dying(*a, **k):
    calls.append(1)
    if len(calls) == 2:
        os._exit(9)  # as kill -9: no finally, no atexit
    return real(*a, **k)
ex.pair_record = dying
with Project.open({str(path)!r}) as p:
    ex.export(p, {str(out)!r})
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("killed")) == []
