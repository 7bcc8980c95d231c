"""Each run records which device and precision scored its pairs; stats say it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app import cli
from app.analysis import analyze
from app.io.importer import import_file
from app.store import Project
from models.checkers.lexical import LexicalArcChecker


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
    assert "scored on cuda fp16 (2 pairs), cpu (1 pairs)" in capsys.readouterr().out
