"""Exported judgments say which checker and version their model_score came from (issue 13, 20)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from models.checkers.base import Grain, PairInput, PairScore, SentenceScore
from models.checkers.lexical import LexicalArcChecker
from tests.conftest import PAIRS, write_jsonl


class ConstantChecker:
    """A sentence checker that gives every sentence the same score."""

    display_name = "constant"
    grain: Grain = "sentence"

    def __init__(self, name: str, version: str, value: float) -> None:
        self.name, self.version, self.value = name, version, value

    def score(self, batch: Sequence[PairInput], **_: Any) -> list[PairScore]:
        return [
            PairScore(
                item.key,
                self.name,
                self.version,
                self.value,
                tuple(SentenceScore(s.index, self.value) for s in item.output.sentences),
            )
            for item in batch
        ]


def setup(project: Project, tmp_path: Path) -> tuple[int, list[int], int]:
    import_file(project, write_jsonl(tmp_path / "pairs.jsonl", [PAIRS[1]]))
    analyze(project, [LexicalArcChecker(), ConstantChecker("const", "1", 0.25)])
    oid = project.pair_rows()[0].output_id
    sids = [s.id for s in project.sentences(output_id=oid)]
    arc = project.arcs([sids[0]])[0].id
    return oid, sids, arc


def sources(project: Project, path: Path) -> list[list[dict[str, str]]]:
    export(project, path)
    [rec] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [j["model_score_from"] for j in rec["judgments"]]


def test_judgments_name_the_checker_and_version_of_their_score(
    project: Project, tmp_path: Path
) -> None:
    oid, sids, arc = setup(project, tmp_path)
    lexical = project.sentence_scores("lexical", LexicalArcChecker.version, sids)
    arc_score = project.arc_scores("lexical", LexicalArcChecker.version, [arc])[arc]
    assert lexical[sids[0]].score not in (None, 0.25)
    judge = project.judge
    judge(
        JudgmentKey(oid, "sentence", sids[0]),
        JudgmentValue("unsupported", "reject", model_score=lexical[sids[0]].score),
    )
    judge(JudgmentKey(oid, "sentence", sids[1]), JudgmentValue("supported", model_score=0.25))
    judge(JudgmentKey(oid, "arc", sids[0], arc), JudgmentValue("supported", model_score=arc_score))
    judge(JudgmentKey(oid), JudgmentValue("supported", "accept", model_visible=False))

    assert sources(project, tmp_path / "out.jsonl") == [
        [{"checker": "lexical", "version": LexicalArcChecker.version}],
        [{"checker": "const", "version": "1"}],
        [{"checker": "lexical", "version": LexicalArcChecker.version}],
        [],  # no model score: nothing to name
    ]

    out = tmp_path / "out.csv"
    export(project, out, fmt="csv")
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    assert [r["model_score_from"] for r in rows] == [
        f"lexical {LexicalArcChecker.version}",
        "const 1",
    ]
    assert [r["model_score"] for r in rows] == [f"{lexical[sids[0]].score:.4f}", "0.2500"]

    # the sources survive a round trip (imported runs keep checker and version)
    with Project.create(tmp_path / "copy.factdesk") as copy:
        import_file(copy, tmp_path / "out.jsonl")
        assert sources(copy, tmp_path / "copy.jsonl") == sources(project, tmp_path / "again.jsonl")


def test_a_run_begun_after_the_judgment_is_not_named(project: Project, tmp_path: Path) -> None:
    oid, sids, _arc = setup(project, tmp_path)
    project.judge(
        JudgmentKey(oid, "sentence", sids[1]), JudgmentValue("supported", model_score=0.25)
    )
    analyze(project, [ConstantChecker("const", "2", 0.25), ConstantChecker("other", "1", 0.25)])
    assert sources(project, tmp_path / "out.jsonl") == [[{"checker": "const", "version": "1"}]]


def test_every_checker_that_gave_that_score_is_named(project: Project, tmp_path: Path) -> None:
    oid, sids, _arc = setup(project, tmp_path)
    analyze(project, [ConstantChecker("other", "7", 0.25)])
    project.judge(
        JudgmentKey(oid, "sentence", sids[1]), JudgmentValue("supported", model_score=0.25)
    )
    project.judge(JudgmentKey(oid), JudgmentValue("supported", model_score=0.25))
    assert sources(project, tmp_path / "out.jsonl") == [
        [{"checker": "const", "version": "1"}, {"checker": "other", "version": "7"}],
        [{"checker": "const", "version": "1"}, {"checker": "other", "version": "7"}],
    ]
