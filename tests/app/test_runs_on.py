"""Each run records which device and precision scored its pairs; stats say it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from models.checkers.lexical import LexicalArcChecker
from models.errors import InputError
from tests.conftest import write_jsonl


class OnGpu(LexicalArcChecker):
    runs_on = "cuda fp16"


def test_stats_say_where_pairs_were_scored(project: Project, pairs_file: Path, capsys: Any) -> None:
    import_file(project, pairs_file)
    chunks: list[list[int]] = []
    analyze(
        project,
        [OnGpu()],
        chunk_size=1,
        on_chunk=chunks.append,
        should_stop=lambda: len(chunks) == 2,
    )
    analyze(project, [LexicalArcChecker()])  # the same version, the last pair on the CPU
    assert project.stats()["checkers"]["lexical"]["runs_on"] == {"cuda fp16": 2, "cpu": 1}
    assert project.runs_on("lexical", "no such version") == {}
    project.close()
    assert cli.main(["stats", str(project.path)]) == 0
    assert "scored on cuda fp16 (2 pairs), cpu (1 pair)" in capsys.readouterr().out


def test_where_pairs_were_scored_survives_export_and_import(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    import_file(project, pairs_file)
    chunks: list[list[int]] = []
    analyze(
        project, [OnGpu()], chunk_size=1, on_chunk=chunks.append, should_stop=lambda: bool(chunks)
    )
    analyze(project, [LexicalArcChecker()])
    export(project, tmp_path / "out.jsonl")
    records = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text("utf-8").splitlines()]
    assert sorted(r["checkers"]["lexical"]["runs_on"] for r in records) == [
        "cpu",
        "cpu",
        "cuda fp16",
    ]
    with Project.create(tmp_path / "again.factdesk") as again:
        import_file(again, tmp_path / "out.jsonl")
        assert again.stats()["checkers"]["lexical"]["runs_on"] == {"cuda fp16": 1, "cpu": 2}
    bad = dict(records[0], id="bad")
    bad["checkers"]["lexical"]["runs_on"] = 7
    write_jsonl(tmp_path / "bad.jsonl", [bad])
    with Project.create(tmp_path / "bad.factdesk") as p, pytest.raises(InputError, match="runs_on"):
        import_file(p, tmp_path / "bad.jsonl")
