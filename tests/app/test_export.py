"""Exports: JSONL round-trips without loss; CSV and DAE arc formats."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from models.checkers.lexical import LexicalArcChecker


def judged_project(project: Project, pairs_file: Path) -> Project:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])
    rows = {r.external_id: r for r in project.pair_rows()}
    oid = rows["p2"].output_id
    sents = project.sentences(output_id=oid)
    arcs = project.arcs([sents[0].id])
    project.judge(
        JudgmentKey(oid, "sentence", sents[0].id),
        JudgmentValue("unsupported", "accept", "entity", "Lyon"),
    )
    project.judge(JudgmentKey(oid, "sentence", sents[1].id), JudgmentValue("supported", "accept"))
    project.judge(
        JudgmentKey(oid, "arc", sents[0].id, arcs[0].id),
        JudgmentValue("supported", "reject", model_visible=False),
    )
    project.judge(JudgmentKey(rows["p1"].output_id), JudgmentValue("supported", "accept"))
    return project


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jsonl_round_trip_is_lossless(project: Project, pairs_file: Path, tmp_path: Path) -> None:
    judged_project(project, pairs_file)
    first = tmp_path / "first.jsonl"
    assert export(project, first) == 3
    records = read_jsonl(first)
    p2 = next(r for r in records if r["id"] == "p2")
    assert set(p2) >= {
        "id",
        "source",
        "output",
        "system",
        "checkers",
        "judgments",
        "sentences",
        "arcs",
    }
    lex = p2["checkers"]["lexical"]
    assert lex["display_name"] == "lexical baseline" and lex["score"] < 1
    assert len(lex["sentences"]) == 2 and lex["arcs"]
    assert {j["label"] for j in p2["judgments"]} == {"supported", "unsupported"}

    with Project.create(tmp_path / "copy.factdesk") as copy:
        report = import_file(copy, first)
        assert report.imported == 3 and report.restored_pairs == 3
        second = tmp_path / "second.jsonl"
        export(copy, second)
        assert read_jsonl(second) == records
        # restored pairs are not re-scored
        assert analyze(copy, [LexicalArcChecker()]).checkers[0].scored == 0


def test_sentence_csv(project: Project, pairs_file: Path, tmp_path: Path) -> None:
    judged_project(project, pairs_file)
    out = tmp_path / "s.csv"
    n = export(project, out, fmt="csv")
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert n == len(rows) == 4
    p2 = [r for r in rows if r["pair_id"] == "p2"]
    assert p2[0]["label"] == "unsupported" and p2[0]["error_type"] == "entity"
    assert float(p2[1]["lexical_score"]) == 1.0


def test_dae_arc_format(project: Project, pairs_file: Path, tmp_path: Path) -> None:
    judged_project(project, pairs_file)
    out = tmp_path / "arcs.tsv"
    n = export(project, out, fmt="dae-arcs")
    lines = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()]
    assert n == len(lines) == 3  # p1's sentence (pair judged supported) and p2's two sentences
    for cols in lines:
        assert " [SEP] " in cols[0] and cols[1] in {"1", "0", "-1"}
        assert (len(cols) - 2) % 4 == 0
        for i in range(2, len(cols), 4):
            head, child = cols[i].split("-")
            assert head.isdigit() and child.isdigit() and cols[i + 3] in {"1", "0", "-1"}
    wrong = next(
        c for c in lines if c[0].endswith("The mayor of Lyon closed the bridge on Friday.")
    )
    assert wrong[1] == "0"
    assert wrong[5] == "1"  # the first arc was judged supported by the editor
    assert set(wrong[9::4]) == {"-1"}  # other arcs of an unsupported sentence are unknown


def test_interrupted_export_leaves_no_file(
    project: Project, pairs_file: Path, tmp_path: Path, monkeypatch
) -> None:
    import app.io.exporter as exporter

    import_file(project, pairs_file)

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(exporter, "pair_record", boom)
    out = tmp_path / "x.jsonl"
    try:
        export(project, out)
    except RuntimeError:
        pass
    assert not out.exists() and not (tmp_path / "x.jsonl.part").exists()
