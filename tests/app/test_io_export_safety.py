"""Exports that a spreadsheet or a line reader cannot be fooled by (issue 13, items 8 and 29)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from app.io.exporter import export, spreadsheet_safe
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.project import now
from app.store.schema import Run

SOURCE = "The mayor of Paris opened the new bridge on Tuesday. It cost four million euros."


def factdesk_record(pid: str, output: str, words: list[tuple[str, str]], **extra) -> dict:
    """A FactDesk-format record: one sentence (the whole output), one arc per word pair."""
    arcs = []
    for n, (head, child) in enumerate(words):
        h, c = output.index(head), output.index(child)
        arcs.append(
            {
                "sentence": 0,
                "index": n,
                "label": "nsubj",
                "head": 1,
                "child": 0,
                "head_span": [h, h + len(head)],
                "child_span": [c, c + len(child)],
                "head_text": head,
                "child_text": child,
            }
        )
    return {
        "id": pid,
        "source": SOURCE,
        "output": output,
        "system": "s",
        "sentences": [{"index": 0, "start": 0, "end": len(output), "text": output}],
        "source_sentences": [[0, 52], [53, 80]],
        "arcs": arcs,
        "checkers": {},
        "judgments": [
            {"target": "sentence", "sentence": 0, "aspect": "support", "label": "supported"}
        ],
        **extra,
    }


DANGEROUS = ['=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)"]


@pytest.mark.parametrize(
    ("cell", "safe"),
    [
        *[(d, "'" + d) for d in DANGEROUS],
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("plain", "plain"),
        ("", ""),
        ("a=b", "a=b"),
        (3, 3),
    ],
)
def test_spreadsheet_safe(cell: object, safe: object) -> None:
    assert spreadsheet_safe(cell) == safe


def test_csv_export_neutralises_formula_cells(project: Project, tmp_path: Path) -> None:
    records = [
        factdesk_record(f"{d[:2]}{n}", f"{d} is here.", [("is", "here")], system=d)
        for n, d in enumerate(DANGEROUS)
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_file(project, path)
    with project.session() as s:  # a checker name from a crafted project file
        s.add(
            Run(
                checker="=1+2",
                version="1",
                display_name="x",
                grain="sentence",
                started_at=now(),
                status="imported",
            )
        )
    oid = project.pair_rows()[0].output_id
    sid = project.sentences(output_id=oid)[0].id
    project.judge(
        JudgmentKey(oid, "sentence", sid),
        JudgmentValue("unsupported", "relabel", "@entity", "\tnote=1", model_score=None),
    )
    out = tmp_path / "out.csv"
    assert export(project, out, fmt="csv") == len(DANGEROUS)
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert "'=1+2_score" in rows[0]
    for row in rows:
        for cell in row:
            assert not cell or cell[0] not in "=+-@\t\r", row
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert [r["text"] for r in body] == [f"'{d} is here." for d in DANGEROUS]
    assert [r["system"] for r in body] == [f"'{d}" for d in DANGEROUS]
    assert body[0]["error_type"] == "'@entity" and body[0]["note"] == "'\tnote=1"


BREAKERS = ["\r", "\n", "\t", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c"]


def test_dae_arcs_fields_never_break_a_record(project: Project, tmp_path: Path) -> None:
    records = []
    for n, ch in enumerate(BREAKERS):
        output = f"The mayor{ch}opened the bridge."
        rec = factdesk_record(f"p{n}", output, [("opened", "mayor")])
        rec["source"] = SOURCE.replace(" on ", f"{ch}on ")
        rec["arcs"][0]["label"] = f"ns{ch}ubj"
        rec["arcs"][0]["head_text"] = f"ope{ch}ned"
        records.append(rec)
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert import_file(project, path).imported == len(BREAKERS)
    out = tmp_path / "arcs.tsv"
    assert export(project, out, fmt="dae-arcs") == len(BREAKERS)
    data = out.read_bytes().decode("utf-8")
    lines = data.split("\n")
    assert lines[-1] == "" and len(lines) - 1 == len(BREAKERS)
    assert data.splitlines() == lines[:-1], "no other character may end a line"
    for line in lines[:-1]:
        cols = line.split("\t")
        assert len(cols) == 6, cols
        assert cols[0].endswith(" [SEP] The mayor opened the bridge.")
        assert cols[1:] == ["1", "1-0", "ope ned mayor", "ns ubj", "1"]
