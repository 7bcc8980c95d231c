"""Adjudication: the adjudicated decision is the final label; every reviewer is kept; round trip."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from app.io.exporter import export
from app.io.importer import import_file
from app.review.adjudication import disagreeing_pairs, final_labels
from app.store import JudgmentKey, JudgmentValue, Project


@pytest.fixture
def disputed(tmp_path: Path, pairs_file: Path) -> tuple[Path, int, int]:
    """Alice and Bob disagree on the first pair and its first sentence; Carol adjudicates."""
    from app.analysis import analyze
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "audit.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        analyze(p, [LexicalArcChecker()])
        first, second = p.output_ids()[:2]
        sent = p.sentences(output_id=first)[0].id
        for who, pair_label, sent_label, note in (
            ("alice", "supported", "supported", None),
            ("bob", "unsupported", "unsupported", "the bridge was not new"),
        ):
            p.set_annotator(who)
            p.judge(JudgmentKey(first), JudgmentValue(pair_label, "accept", note=note))
            p.judge(
                JudgmentKey(first, "sentence", sentence_id=sent),
                JudgmentValue(sent_label, "relabel", error_type="entity" if note else None),
            )
            p.judge(JudgmentKey(second), JudgmentValue("unsupported", "reject"))  # agreed
        assert disagreeing_pairs(p) == {first}
        p.set_annotator("carol")
        p.judge(
            JudgmentKey(first, "sentence", sentence_id=sent, role="adjudicated"),
            JudgmentValue("unsupported", "reject", error_type="entity", note="bob is right"),
        )
        p.judge(JudgmentKey(first, role="adjudicated"), JudgmentValue("unsupported", "reject"))
        assert disagreeing_pairs(p) == set()
        assert disagreeing_pairs(p, unsettled_only=False) == {first}
        return path, first, sent


def _finals(record: dict) -> dict[tuple, tuple]:
    return {
        (f["target"], f["sentence"], f["aspect"]): (f["label"], f["from"], f["annotator"])
        for f in record["final_labels"]
    }


def test_adjudicated_decisions_export_as_final_labels_and_round_trip(
    disputed: tuple[Path, int, int], tmp_path: Path
) -> None:
    path, first, sent = disputed
    with Project.open(path) as p:
        export(p, tmp_path / "out.jsonl")
        export(p, tmp_path / "out.csv", fmt="csv")
        export(p, tmp_path / "out.tsv", fmt="dae-arcs")
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    rec = records[0]
    assert _finals(rec) == {
        ("pair", None, "support"): ("unsupported", "adjudicated", "carol"),
        ("sentence", 0, "support"): ("unsupported", "adjudicated", "carol"),
    }
    assert _finals(records[1]) == {("pair", None, "support"): ("unsupported", "agreed", "alice")}
    kept = sorted((j["annotator"], j["role"], j["target"], j["label"]) for j in rec["judgments"])
    assert kept == [
        ("alice", "review", "pair", "supported"),
        ("alice", "review", "sentence", "supported"),
        ("bob", "review", "pair", "unsupported"),
        ("bob", "review", "sentence", "unsupported"),
        ("carol", "adjudicated", "pair", "unsupported"),
        ("carol", "adjudicated", "sentence", "unsupported"),
    ]
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as fh:
        row = next(csv.DictReader(fh))
    assert (row["label"], row["annotator"], row["note"]) == ("unsupported", "carol", "bob is right")
    assert row["final_from"] == "adjudicated"
    assert row["reviewer_labels"] == "alice: supported; bob: unsupported"
    dae = (tmp_path / "out.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert dae[1] == "0"  # the adjudicated "unsupported", not alice's "supported"

    # Re-import the export: every reviewer's judgment and the adjudication come back.
    with Project.create(tmp_path / "again.factdesk") as q:
        report = import_file(q, tmp_path / "out.jsonl")
        assert report.restored_pairs == 3
        assert "final_labels" not in (q.pair(q.output_ids()[0])[0].meta or {})
        export(q, tmp_path / "again.jsonl")
    again = [json.loads(line) for line in (tmp_path / "again.jsonl").read_text().splitlines()]
    assert [r["judgments"] for r in again] == [r["judgments"] for r in records]
    assert [r["final_labels"] for r in again] == [r["final_labels"] for r in records]


def test_final_labels_rules(disputed: tuple[Path, int, int]) -> None:
    path, first, sent = disputed
    with Project.open(path) as p:
        p.set_annotator("carol")
        p.undo()  # carol takes back her pair-level adjudication
        finals = final_labels(p.judgments(first))
        assert finals[("pair", "support")].label is None
        assert finals[("pair", "support")].source == "disputed"
        assert finals[(f"sentence:{sent}", "support")].source == "adjudicated"
        assert disagreeing_pairs(p) == {first}
