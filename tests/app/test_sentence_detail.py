"""A checker's words beside a sentence's score (``SentenceScore.detail``) travel end to end:
stored, read back, printed with the findings, exported (JSONL, CSV), imported and reported."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from app.analysis import analyze
from app.audit.report import render
from app.cli import print_findings
from app.io.bundles import load_bundles
from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from app.store.findings import finding_lines
from models.checkers.base import Grain, PairInput, PairScore, SentenceScore, pair_score
from tests.conftest import PAIRS, write_jsonl

#: What the fake question-based check finds in the first sentence of PAIRS[1]'s output.
FOUND = (
    "Q: The mayor of [which city] closed the bridge? output: Lyon · source: Paris "
    "(source sentence 1) ✗\n"
    "Q: The mayor of Lyon closed [what]? output: the bridge · source: the new bridge "
    "(source sentence 1) ✓"
)


class FakeQuestions:
    """A sentence checker that says, in words, what it found: ``details`` by sentence index;
    sentences with a detail score ``low``, the others 0.9 and no detail."""

    name = "questions"
    version = "t1"
    display_name = "question-based check"
    grain: Grain = "sentence"

    def __init__(self, details: Mapping[int, str], low: float = 0.2) -> None:
        self.details, self.low = dict(details), low

    def score(self, batch: Sequence[PairInput], **_: Any) -> list[PairScore]:
        out = []
        for item in batch:
            sentences = [
                SentenceScore(s.index, self.low, detail=self.details[s.index])
                if s.index in self.details
                else SentenceScore(s.index, 0.9)
                for s in item.output.sentences
            ]
            out.append(pair_score(item.key, self, sentences))  # type: ignore[arg-type]
        return out


def analysed(project: Project, tmp_path: Path, details: Mapping[int, str] | None = None) -> int:
    """PAIRS[1] (two output sentences) scored by the fake check; its output id."""
    import_file(project, write_jsonl(tmp_path / "pairs.jsonl", [PAIRS[1]]))
    analyze(project, [FakeQuestions({0: FOUND} if details is None else details)])
    return project.pair_rows()[0].output_id


def test_a_checkers_detail_is_stored_and_read_back(project: Project, tmp_path: Path) -> None:
    oid = analysed(project, tmp_path)
    first, second = project.sentences(output_id=oid)
    rows = project.sentence_scores("questions", "t1", [first.id, second.id])
    assert rows[first.id].detail == FOUND and rows[first.id].score == pytest.approx(0.2)
    assert rows[second.id].detail is None
    [bundle] = load_bundles(project, [oid])  # what the window, exports and report read
    _pair, sents, _arcs = bundle.scores["questions"]
    assert sents[first.id].detail == FOUND and sents[second.id].detail is None


def test_findings_text_prints_the_detail_under_its_sentence(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    analysed(project, tmp_path)
    path = project.path
    project.close()
    print_findings(path)
    lines = capsys.readouterr().out.splitlines()
    # the fake check's detail holds a conflict: marked ⚠ beside the sentence's mark
    at = next(i for i, line in enumerate(lines) if line.startswith("    ✗⚠ 0.20  1. "))
    assert lines[at - 1] == "  question-based check: 0.20, flagged (below 0.50)"
    found = finding_lines(FOUND)
    assert found and lines[at + 1 : at + 1 + len(found)] == ["             " + f for f in found]
    second = lines[at + 1 + len(found)]
    assert second.startswith("    ✔  ") and " 2. " in second  # supported: nothing said under it


def test_exports_carry_the_detail_and_import_keeps_it(project: Project, tmp_path: Path) -> None:
    analysed(project, tmp_path)
    first = tmp_path / "first.jsonl"
    export(project, first)
    [record] = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    sentences = record["checkers"]["questions"]["sentences"]
    assert [s["detail"] for s in sentences] == [FOUND, None]

    out = tmp_path / "s.csv"
    assert export(project, out, fmt="csv") == 2
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["questions_detail"] for r in rows] == [FOUND, ""]

    with Project.create(tmp_path / "copy.factdesk") as copy:
        assert import_file(copy, first).restored_pairs == 1
        oid = copy.pair_rows()[0].output_id
        sids = [s.id for s in copy.sentences(output_id=oid)]
        back = copy.sentence_scores("questions", "t1", sids)
        assert [back[sid].detail for sid in sids] == [FOUND, None]
        second = tmp_path / "second.jsonl"
        export(copy, second)
        assert json.loads(second.read_text(encoding="utf-8")) == record


def test_an_export_made_before_details_still_imports(project: Project, tmp_path: Path) -> None:
    analysed(project, tmp_path)
    path = tmp_path / "old.jsonl"
    export(project, path)
    record = json.loads(path.read_text(encoding="utf-8"))
    for s in record["checkers"]["questions"]["sentences"]:
        del s["detail"]
    write_jsonl(path, [record])
    with Project.create(tmp_path / "copy.factdesk") as copy:
        assert import_file(copy, path).restored_pairs == 1
        oid = copy.pair_rows()[0].output_id
        sids = [s.id for s in copy.sentences(output_id=oid)]
        assert [r.detail for r in copy.sentence_scores("questions", "t1", sids).values()] == [
            None,
            None,
        ]


def test_a_csv_detail_cell_is_neutralised(project: Project, tmp_path: Path) -> None:
    analysed(project, tmp_path, {1: '=HYPERLINK("http://x")\nQ: cost? ✗'})
    out = tmp_path / "s.csv"
    export(project, out, fmt="csv")
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["questions_detail"] for r in rows] == ["", '\'=HYPERLINK("http://x")\nQ: cost? ✗']


def test_the_report_shows_a_flagged_sentences_detail_escaped(
    project: Project, tmp_path: Path
) -> None:
    analysed(project, tmp_path, {0: "Q: <b>which</b> city? output: Lyon ✗"})
    html = render(project, checker="questions")
    assert '<p class="detail">Q: &lt;b&gt;which&lt;/b&gt; city? output: Lyon ✗</p>' in html
    assert "<b>which</b>" not in html
