"""Several reviewers in one project: judgments keyed by reviewer, each undoes only their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.io.exporter import export
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from models.errors import ProjectError


def test_two_reviewers_judge_one_item_side_by_side(tmp_path: Path, pairs_file: Path) -> None:
    path = tmp_path / "two.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
    with Project.open(path) as alice, Project.open(path) as bob:
        alice.set_annotator("alice")
        bob.set_annotator("  bob ")
        assert bob.annotator == "bob"
        oid = alice.output_ids()[0]
        key = JudgmentKey(oid)
        alice.judge(key, JudgmentValue("supported", "accept"))
        bob.judge(key, JudgmentValue("unsupported", "reject", note="wrong day"))
        assert alice.judgment(key) == JudgmentValue("supported", "accept")
        assert bob.judgment(key) == JudgmentValue("unsupported", "reject", note="wrong day")
        rows = alice.judgments(oid)
        assert sorted((j.annotator, j.label) for j in rows) == [
            ("alice", "supported"),
            ("bob", "unsupported"),
        ]
        assert [j.annotator for j in alice.judgments(oid, own=True)] == ["alice"]
        assert alice.reviewers() == ["alice", "bob"]
        # The pair list counts each reviewer's own decisions.
        assert alice.pair_rows(ids=[oid])[0].pair_label == "supported"
        assert bob.pair_rows(ids=[oid])[0].pair_label == "unsupported"
        # Each reviewer undoes only their own: bob's undo leaves alice's decision alone.
        alice.judge(JudgmentKey(oid, aspect="flag"), JudgmentValue("malformed"))
        undone = bob.undo()
        assert undone is not None and undone.key == key
        assert bob.judgment(key) is None
        assert alice.judgment(key) == JudgmentValue("supported", "accept")
        assert bob.undo() is None  # nothing more of bob's to undo
        assert [c.key.aspect for c in alice.history()[0]] == ["support", "flag"]


def test_reviewer_names_are_checked(project: Project) -> None:
    for bad in ("", "   ", "a\nb"):
        with pytest.raises(ProjectError, match="reviewer name"):
            project.set_annotator(bad)


def test_export_and_reimport_keep_every_reviewer(tmp_path: Path, pairs_file: Path) -> None:
    path = tmp_path / "a.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        oid = p.output_ids()[1]
        for name, label in (("alice", "supported"), ("bob", "unsupported")):
            p.set_annotator(name)
            p.judge(JudgmentKey(oid), JudgmentValue(label, "accept"))
        export(p, tmp_path / "out.jsonl")
    record = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[1])
    assert {(j["annotator"], j["role"]) for j in record["judgments"]} == {
        ("alice", "review"),
        ("bob", "review"),
    }
    assert main(["new", str(tmp_path / "b.factdesk")]) == 0
    args = ["import", str(tmp_path / "b.factdesk"), str(tmp_path / "out.jsonl")]
    assert main([*args, "--reviewer", "carol"]) == 0
    with Project.open(tmp_path / "b.factdesk") as q:
        oid = q.output_ids()[1]
        assert sorted((j.annotator, j.label) for j in q.judgments(oid)) == [
            ("alice", "supported"),
            ("bob", "unsupported"),
        ]
