"""Removing pairs added by mistake: what they alone hold goes with them; judged pairs stay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.analysis import analyze
from app.cli import main
from app.io.importer import import_file
from app.io.removal import remove_pairs
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.schema import ArcRow, ArcScoreRow, Output, SentenceRow, SentenceScoreRow, Source
from models.errors import ProjectError
from models.registry import load_checker
from tests.conftest import write_jsonl

ARTICLE = "The ferry sails twice a day. Vehicles must be booked a day ahead."
OTHER = "The museum opens at ten. Entry is free on Sundays."


def counts(project: Project) -> dict[str, int]:
    with project.session() as s:
        return {
            t.__tablename__: s.scalar(select(func.count()).select_from(t)) or 0
            for t in (Source, Output, SentenceRow, ArcRow, SentenceScoreRow, ArcScoreRow)
        }


@pytest.fixture
def imported(tmp_path: Path) -> Project:
    records = [
        {"id": "a", "source": ARTICLE, "output": "The ferry sails twice daily."},
        {"id": "b", "source": ARTICLE, "output": "Vehicles are booked ahead."},
        {"id": "c", "source": OTHER, "output": "The museum opens at ten."},
    ]
    project = Project.create(tmp_path / "p.factdesk")
    import_file(project, write_jsonl(tmp_path / "p.jsonl", records))
    yield project
    project.close()


@pytest.fixture
def analysed(imported: Project) -> Project:
    analyze(imported, [load_checker("lexical")])
    return imported


def test_a_pair_goes_with_what_it_alone_holds(analysed: Project) -> None:
    p = analysed
    a, b, c = p.output_ids()
    before = counts(p)
    removed = remove_pairs(p, [c])
    assert removed.pairs == ("c",) and removed.sources == 1  # nobody else reads OTHER
    after = counts(p)
    assert after["outputs"] == 2 and after["sources"] == 1
    assert after["sentences"] < before["sentences"] and after["arcs"] < before["arcs"]
    # what is left is exactly the other pairs' own: their scores and arcs are all there
    with p.session() as s:
        owners = set(
            s.scalars(select(SentenceRow.output_id).where(SentenceRow.output_id.isnot(None)))
        )
        assert owners == {a, b}
        orphan_arcs = s.scalar(
            select(func.count(ArcRow.id)).where(ArcRow.sentence_id.not_in(select(SentenceRow.id)))
        )
        assert orphan_arcs == 0
    removed = remove_pairs(p, [a])
    assert removed == type(removed)(("a",), 0)  # the article is still b's source
    assert counts(p)["sources"] == 1 and p.output_ids() == [b]


def test_judged_pairs_are_kept_and_nothing_is_removed(analysed: Project) -> None:
    p = analysed
    a, b, c = p.output_ids()
    p.judge(JudgmentKey(b), JudgmentValue("supported", "accept"))
    p.judge(JudgmentKey(c), JudgmentValue("supported", "accept"))
    p.undo()  # c's decision is undone, but the audit log records it
    before = counts(p)
    with pytest.raises(ProjectError) as err:
        remove_pairs(p, [a, b, c])
    assert "'b' (1 judgments)" in str(err.value) and "'c'" in str(err.value)
    assert "'a'" not in str(err.value) and counts(p) == before
    with pytest.raises(ProjectError, match="no pair with internal id 999"):
        remove_pairs(p, [a, 999])
    assert counts(p) == before


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_remove_command_names_pairs_by_id_and_system(tmp_path: Path, capsys) -> None:
    proj = str(tmp_path / "r.factdesk")
    records = [
        {"id": "d1", "system": "bart", "source": ARTICLE, "output": "It sails twice a day."},
        {"id": "d1", "system": "t5", "source": ARTICLE, "output": "It sails daily."},
    ]
    run(capsys, "new", proj)
    run(capsys, "import", proj, str(write_jsonl(tmp_path / "r.jsonl", records)))
    code, _, err = run(capsys, "remove", proj, "d1")
    assert code == 2 and "2 pairs have the id 'd1'" in err and "--system" in err
    code, out, _ = run(capsys, "remove", proj, "d1", "--system", "t5", "--json")
    assert code == 0 and json.loads(out) == {"removed": ["d1"], "sources_removed": 0}
    code, _, err = run(capsys, "remove", proj, "nosuch")
    assert code == 2 and "no pair with the id 'nosuch'" in err
    with Project.open(proj) as p:
        assert p.count_pairs() == 1


def test_an_analysis_passes_over_a_pair_removed_after_it_started(imported: Project) -> None:
    p = imported
    a, b, c = p.output_ids()
    checker = load_checker("lexical")
    removed: list[object] = []

    def after_chunk(ids: list[int]) -> None:
        if not removed:  # the run planned all three pairs; the last goes after the first chunk
            removed.append(remove_pairs(p, [c]))

    report = analyze(p, [checker], chunk_size=1, on_chunk=after_chunk)
    assert report.status == "done" and report.checkers[0].scored == 2
    assert p.output_ids() == [a, b]


def test_a_pair_being_analysed_is_kept(analysed: Project) -> None:
    from app.store.schema import Claim, Run

    p = analysed
    a, _b, _c = p.output_ids()
    with p.session() as s:
        run = s.scalars(select(Run.id)).first()
        s.add(Claim(run_id=run, checker="lexical", version="x", output_id=a))
    with pytest.raises(ProjectError, match="'a' is being analysed now"):
        remove_pairs(p, [a])
    assert p.count_pairs() == 3
