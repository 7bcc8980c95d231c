"""Familiarity and the report take what analysis takes: a pair over the parser's limit is
skipped with analysis's reason (issue 24 item 11), and a threshold is a number from 0 to 1
(item 12)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.analysis import analyze, max_chars
from app.audit.familiarity import analyse, describe
from app.audit.report import render
from app.cli import main
from app.io.importer import import_file
from app.store import Project
from models.errors import FactDeskError
from models.registry import load_checker
from tests.conftest import write_jsonl

PAIRS = [
    {
        "id": "o1",
        "source": "IOC President Thomas Bach opened the session in Lausanne on Monday.",
        "output": "FIFA President Thomas Bach opened the session.",
    },
]


@pytest.fixture
def huge(tmp_path: Path) -> Iterator[Path]:
    """A project with one ordinary pair and one whose source is over the parser's limit."""
    limit = max_chars()
    sentence = "Angela Merkel, the German chancellor, spoke in Berlin. "
    long_source = (sentence * (limit // len(sentence) + 1))[: limit + 1]
    records = [*PAIRS, {"id": "huge", "source": long_source, "output": "Merkel spoke."}]
    path = tmp_path / "huge.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "h.jsonl", records), max_field_chars=3 * limit)
        report = analyze(p, [load_checker("lexical")])
        assert [n.external_id for n in report.not_checked_pairs] == ["huge"]
    yield path


def test_a_pair_over_the_parser_limit_is_skipped_by_familiarity_with_its_reason(
    huge: Path, capsys
) -> None:
    reason = f"source is {max_chars() + 1:,} characters, over the parser's limit of {max_chars():,}"
    with Project.open(huge) as p:
        report = analyse(p)
    assert [(n.external_id, n.reason) for n in report.not_checked_pairs] == [("huge", reason)]
    assert {m.external_id for m in report.mentions} == {"o1"}  # the rest is read as before
    assert f"huge: {reason}" in describe(report)
    assert main(["familiarity", str(huge), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(n["external_id"], n["reason"]) for n in data["not_checked_pairs"]] == [
        ("huge", reason)
    ]


def test_the_report_lists_the_pair_it_could_not_read(huge: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(huge), str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "over the parser&#x27;s limit" in text and "huge" in text


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.1", "1.5"])
@pytest.mark.parametrize("command", ["familiarity", "report", "agreement"])
def test_a_threshold_that_is_not_from_0_to_1_is_refused(
    tmp_path: Path, capsys, command: str, value: str
) -> None:
    proj = tmp_path / "t.factdesk"
    with Project.create(proj) as p:
        import_file(p, write_jsonl(tmp_path / "p.jsonl", PAIRS))
    out = tmp_path / "r.html"
    target = [str(out)] if command == "report" else []
    code = main([command, str(proj), *target, f"--threshold={value}"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == (
        f"factdesk: error: --threshold must be a number from 0 to 1, not {value}\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.0])
def test_the_library_refuses_such_a_threshold_too(project: Project, value: float) -> None:
    with pytest.raises(FactDeskError, match="number from 0 to 1"):
        analyse(project, threshold=value)
    with pytest.raises(FactDeskError, match="number from 0 to 1"):
        render(project, threshold=value)
