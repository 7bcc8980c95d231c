"""factdesk score: a corpus scored into parts in the export format, imported back with its
analysis; stopped runs resume; errors name the input file and line."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.analysis import analyze, load_checkers, pending
from app.corpus import score_corpus
from app.io.importer import import_file
from app.store import Project
from models.errors import InputError
from tests.app.rows import analysis_rows
from tests.conftest import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "demo_pairs.jsonl"


def records(n: int) -> list[dict[str, Any]]:
    return [json.loads(x) for x in DEMO.read_text(encoding="utf-8").splitlines()[:n]]


def local_rows(tmp_path: Path, recs: list[dict[str, Any]]) -> dict[str, Any]:
    with Project.create(tmp_path / "local.factdesk") as p:
        import_file(p, write_jsonl(tmp_path / "local.jsonl", recs))
        analyze(p, load_checkers(["lexical"]), chunk_size=32)
        rows = analysis_rows(p)
    rows.pop("run_scored")
    return rows


def imported_rows(tmp_path: Path, files: list[Path]) -> dict[str, Any]:
    """The parts imported into one project: its analysis restored, nothing left to score."""
    with Project.create(tmp_path / "review.factdesk") as p:
        for f in files:
            assert import_file(p, f).restored_pairs > 0
        lexical = load_checkers(["lexical"])[0]
        assert pending(p, lexical) == []
        assert p.stats()["checkers"]["lexical"]["runs_on"] == {"cpu": p.count_pairs()}
        rows = analysis_rows(p)
    rows.pop("run_scored")
    return rows


def lexical_run() -> Any:
    return functools.partial(analyze, checkers=load_checkers(["lexical"]), chunk_size=2)


SETTINGS = {"checkers": ["lexical 2"]}


def test_parts_import_with_their_analysis(tmp_path: Path) -> None:
    recs = records(10)
    src = write_jsonl(tmp_path / "in.jsonl", recs)
    report = score_corpus(src, tmp_path / "out", lexical_run(), settings=SETTINGS, pairs_per_part=4)
    parts = sorted((tmp_path / "out").glob("part-*.jsonl"))
    assert [p.name for p in parts] == ["part-00000.jsonl", "part-00001.jsonl", "part-00002.jsonl"]
    assert report.pairs == report.pairs_scored == 10
    assert not list((tmp_path / "out").glob(".part-*"))  # the parts' project files are gone
    assert imported_rows(tmp_path, parts) == local_rows(tmp_path, recs)


def test_a_stopped_run_resumes_into_one_file(tmp_path: Path) -> None:
    recs = records(10)
    src_dir = tmp_path / "in"
    src_dir.mkdir()
    write_jsonl(src_dir / "a.jsonl", recs[:6])
    write_jsonl(src_dir / "b.jsonl", recs[6:])  # a part never spans two files
    out = tmp_path / "all.jsonl"
    seen: list[int] = []

    def stop_in_part_two() -> bool:
        return len(seen) > 0 and seen[-1] >= 6

    def progress(done: int, total: int) -> None:
        seen.append(done)

    first = score_corpus(
        src_dir,
        out,
        lexical_run(),
        settings=SETTINGS,
        pairs_per_part=4,
        progress=progress,
        should_stop=stop_in_part_two,
    )
    folder = tmp_path / "all.jsonl.parts"
    assert first.cancelled and not out.exists()
    assert (folder / "part-00000.jsonl").exists() and (folder / ".part-00001.factdesk").exists()
    again = score_corpus(src_dir, out, lexical_run(), settings=SETTINGS, pairs_per_part=4)
    assert not again.cancelled and again.parts == 3 and again.parts_done_before == 1
    assert out.exists() and not folder.exists()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 10
    assert imported_rows(tmp_path, [out]) == local_rows(tmp_path, recs)


def test_errors_name_the_input_line(tmp_path: Path) -> None:
    recs: list[Any] = records(6)
    recs[4] = {"id": "bad", "source": "A text."}  # no output field: line 5 of the input
    src = write_jsonl(tmp_path / "in.jsonl", recs)
    with pytest.raises(InputError) as err:
        score_corpus(src, tmp_path / "out", lexical_run(), settings=SETTINGS, pairs_per_part=3)
    assert err.value.path == str(src) and err.value.line == 5
    report = score_corpus(
        src, tmp_path / "out", lexical_run(), settings=SETTINGS, pairs_per_part=3, skip_invalid=True
    )
    assert [p.line for p in report.skipped] == [5] and report.pairs == 5


def test_bad_records_of_a_later_part_stop_the_run_before_any_part_is_scored(
    tmp_path: Path, capsys: Any
) -> None:
    recs: list[Any] = records(7)
    recs[4] = {"id": "bad", "source": "A text."}  # line 5: the second part
    recs[6] = {"id": "bad2", "source": "A text.", "output": ""}  # line 7: the third
    src = write_jsonl(tmp_path / "in.jsonl", recs)
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        score_corpus(src, out, lexical_run(), settings=SETTINGS, pairs_per_part=3)
    assert err.value.line == 5 and [(o.line, o.field) for o in err.value.also] == [(7, "output")]
    assert not out.exists(), "nothing scored, no parts kept for a fixed input to clash with"
    assert cli.main(["score", str(src), str(out), "--checker", "lexical"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert "in.jsonl, line 5, field 'output': no output field" in said[0]
    assert said[1:] == [
        "  line 7, field 'output': empty",
        "  2 invalid records in all; --skip-invalid reads the valid ones and lists these",
    ]
    recs[4]["output"], recs[6]["output"] = "Fixed.", "Fixed too."
    write_jsonl(src, recs)
    report = score_corpus(src, out, lexical_run(), settings=SETTINGS, pairs_per_part=3)
    assert report.pairs == 7 and report.skipped == []


def test_another_runs_parts_are_refused(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", records(3))
    score_corpus(src, tmp_path / "out", lexical_run(), settings=SETTINGS, pairs_per_part=2)
    with pytest.raises(InputError, match="another score run"):
        score_corpus(src, tmp_path / "out", lexical_run(), settings=SETTINGS, pairs_per_part=3)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="not empty"):
        score_corpus(src, tmp_path / "full", lexical_run(), settings=SETTINGS)
    with pytest.raises(InputError, match="inside the input folder"):
        score_corpus(tmp_path, tmp_path / "again.jsonl", lexical_run(), settings=SETTINGS)


def test_cli_score(tmp_path: Path, capsys: Any) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", records(3))
    out = tmp_path / "out.jsonl"
    assert cli.main(["score", str(src), str(out), "--checker", "lexical", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs_scored"] == 3 and report["parts"] == 1 and out.exists()
    assert cli.main(["score", str(tmp_path / "nothing"), str(out), "--checker", "lexical"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
