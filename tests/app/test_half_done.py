"""Half-done work is said and finished, never taken for done (issue 24 items 16, 17, 18)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app import cli
from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from app.store.schema import PairScoreRow
from models.checkers.base import PairInput
from models.checkers.lexical import LexicalArcChecker
from models.parsing import load_pipeline
from tests.conftest import GERMAN_PAIR, PAIRS, write_jsonl


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def pair_rows(project: Project) -> dict[str, PairScoreRow]:
    ids = {r.output_id: r.external_id for r in project.pair_rows()}
    with project.session() as s:
        return {ids[r.output_id]: r for r in s.scalars(select(PairScoreRow))}


# ---------------------------------------------------------------------- item 16
def test_a_checker_block_started_but_not_finished_is_scored_by_the_next_analyze(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    """A block that names a checker version but holds no score, no reason and no sentence
    scores (an analysis that was claimed and never finished) is not a score."""
    with Project.create(tmp_path / "first.factdesk") as first:
        import_file(first, pairs_file)
        analyze(first, [LexicalArcChecker()])
        export(first, tmp_path / "all.jsonl")
    records = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    version = records[0]["checkers"]["lexical"]["version"]
    records[0]["checkers"]["lexical"] = {"version": version, "score": None}  # started, no more
    import_file(project, write_jsonl(tmp_path / "half.jsonl", records))
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 2  # not counted as scored
    report = analyze(project, [LexicalArcChecker()])
    assert report.checkers[0].scored == 1 and report.pairs == {project.pair_rows()[0].output_id}
    rows = pair_rows(project)
    assert rows["p1"].score is not None and len(rows) == 3
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 3
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 0  # and then done


def test_a_pair_not_checked_keeps_its_reason_through_export_and_is_not_rerun(
    project: Project, tmp_path: Path, monkeypatch
) -> None:
    long_source = "The council met on Monday and approved the budget. " * 6
    records = [PAIRS[0], {"id": "long", "source": long_source, "output": "It approved it."}]
    import_file(project, write_jsonl(tmp_path / "long.jsonl", records))
    monkeypatch.setattr(load_pipeline(), "max_length", 200)
    analyze(project, [LexicalArcChecker()])
    export(project, tmp_path / "out.jsonl")
    with Project.create(tmp_path / "again.factdesk") as again:
        import_file(again, tmp_path / "out.jsonl")
        assert "over the parser's limit" in (pair_rows(again)["long"].reason or "")
        assert analyze(again, [LexicalArcChecker()]).checkers[0].scored == 0


# ---------------------------------------------------------------------- item 17
class Interrupting(LexicalArcChecker):
    """Ctrl-C in the middle of scoring, after ``after`` batches."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.left = after

    def score(self, batch: Sequence[PairInput], **kw: Any) -> Any:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().score(batch, **kw)


def test_ctrl_c_before_any_chunk_is_interrupted_not_done(
    project: Project, pairs_file: Path, capsys, monkeypatch
) -> None:
    """Ctrl-C while the analysis works out what to score (before its runs start)."""
    import app.analysis

    import_file(project, pairs_file)
    real, calls = app.analysis.pending, []

    def interrupted_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(app.analysis, "pending", interrupted_once)
    code, out, _ = run(capsys, "analyze", str(project.path), "--checker", "lexical", "--json")
    data = json.loads(out)
    assert code == 130
    assert data["status"] == "interrupted" and data["cancelled"] is True
    assert data["pairs_scored"] == 0 and data["pairs_left"] == 3


def test_ctrl_c_while_loading_the_checkers_still_prints_the_object(
    project: Project, pairs_file: Path, capsys, monkeypatch
) -> None:
    import_file(project, pairs_file)

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "load_checkers", interrupted)
    code, out, _ = run(capsys, "analyze", str(project.path), "--json")
    data = json.loads(out)
    assert code == 130 and data["status"] == "interrupted"
    assert data["pairs_scored"] == 0 and data["pairs_left"] is None  # unknown: no checker yet


def test_ctrl_c_after_a_chunk_says_what_was_and_was_not_scored(
    project: Project, pairs_file: Path, capsys, monkeypatch
) -> None:
    import_file(project, pairs_file)
    monkeypatch.setattr(cli, "load_checkers", lambda *a, **k: [Interrupting(after=1)])
    argv = ("analyze", str(project.path), "--json", "--shard-size", "1")
    code, out, _ = run(capsys, *argv)
    data = json.loads(out)
    assert code == 130 and data["status"] == "interrupted"
    assert data["pairs_scored"] == 1 and data["pairs_left"] == 2
    monkeypatch.setattr(cli, "load_checkers", lambda *a, **k: [LexicalArcChecker()])
    code, out, _ = run(capsys, *argv)
    data = json.loads(out)
    assert code == 0 and data["status"] == "done"
    assert data["pairs_scored"] == 2 and data["pairs_left"] == 0


# ---------------------------------------------------------------------- item 18
def test_csv_export_keeps_pairs_never_analysed_and_says_how_many(
    project: Project, pairs_file: Path, tmp_path: Path, capsys
) -> None:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])
    later = [
        {"id": "n1", "source": "The ferry left at noon.", "output": "The ferry left at noon."},
        {"id": "n2", "source": "Rain fell all day.", "output": "It rained.", "system": "s"},
    ]
    import_file(project, write_jsonl(tmp_path / "later.jsonl", later))
    out = tmp_path / "s.csv"
    code, text, _ = run(capsys, "export", str(project.path), str(out), "--format", "csv")
    assert code == 0
    assert "2 pairs not analysed" in text
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 4 + 2
    n2 = next(r for r in rows if r["pair_id"] == "n2")
    assert n2["system"] == "s" and n2["text"] == "It rained."
    assert n2["sentence"] == "" and n2["lexical_score"] == "" and n2["lexical_not_checked"] == ""
    code, text, _ = run(capsys, "export", str(project.path), str(out), "--format", "csv", "--json")
    assert json.loads(text)["not_analysed"] == 2


def test_a_pair_not_in_english_is_parsed_but_not_scored_and_says_why(
    project: Project, tmp_path: Path
) -> None:
    """The models read English only: on German they returned a flag that said nothing."""
    import_file(project, write_jsonl(tmp_path / "de.jsonl", [PAIRS[0], GERMAN_PAIR]))
    report = analyze(project, [LexicalArcChecker()])
    assert report.checkers[0].scored == 1
    assert [n.reason for n in report.not_checked_pairs] == [
        "the source reads as German, not English: the models read English only"
    ]
    rows = pair_rows(project)
    assert rows["de"].score is None and "reads as German" in (rows["de"].reason or "")
    assert rows["p1"].score is not None
    de = next(r for r in project.pair_rows() if r.external_id == "de")
    assert [x.text for x in project.sentences(output_id=de.output_id)] == [GERMAN_PAIR["output"]]
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 0  # and then done
    export(project, tmp_path / "out.csv", fmt="csv")  # each of its sentences says why
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as fh:
        rows_csv = {r["pair_id"]: r for r in csv.DictReader(fh)}
    assert "reads as German" in rows_csv["de"]["lexical_not_checked"]
    assert rows_csv["p1"]["lexical_not_checked"] == ""


def test_many_pairs_not_checked_for_one_reason_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project of German texts is not a screenful of the same reason: past ten pairs with one
    reason, analyze says it once with their first ids."""
    source = GERMAN_PAIR["source"]
    german = [
        {"id": f"de-{k}", "source": source, "output": f"Bremen hat {k} neue Schulen gebaut."}
        for k in range(12)
    ]
    proj = str(tmp_path / "de.factdesk")
    run(capsys, "new", proj)
    run(capsys, "import", proj, str(write_jsonl(tmp_path / "de.jsonl", [PAIRS[0], *german])))
    code, out, _err = run(capsys, "analyze", proj, "--checker", "lexical")
    said = [line for line in out.splitlines() if line.startswith("not checked")]
    assert code == 0 and said == [
        "not checked: 12 pairs (de-0, de-1, de-2, de-3, de-4, de-5, de-6, de-7, de-8, de-9, …): "
        "the source reads as German, not English: the models read English only"
    ]
