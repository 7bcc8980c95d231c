"""Text that must survive import and export: line separators and lone surrogates (issue 13, 3-4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from models.errors import InputError
from tests.conftest import PAIRS, write_jsonl

# Every character that str.splitlines() breaks on besides "\n", and the "\r" of "\r\n".
SEPARATORS = ["\u2028", "\u2029", "\u0085", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(c):04X}" for c in SEPARATORS])
def test_jsonl_round_trip_keeps_line_separators_inside_strings(tmp_path: Path, sep: str) -> None:
    # Texts keep them; ids and system names refuse them (issue 24 item 8: tests/app/test_io_names.py).
    record = {
        "id": "a-b",
        "source": f"The mayor opened the bridge.{sep}It cost four million euros.",
        "output": f"The mayor{sep}opened the bridge.",
        "system": "sys-1",
        "context": f"Summarise{sep}this.",
        "meta": {"note": f"x{sep}y", "list": [f"{sep}"]},
    }
    path = tmp_path / "in.jsonl"
    # ensure_ascii=False writes the separator raw, as FactDesk's own export does.
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    with Project.create(tmp_path / "a.factdesk") as first:
        assert import_file(first, path).imported == 1
        exported = tmp_path / "first.jsonl"
        assert export(first, exported) == 1
    with Project.create(tmp_path / "b.factdesk") as second:
        report = import_file(second, exported)
        assert report.imported == 1 and not report.skipped
        again = tmp_path / "second.jsonl"
        export(second, again)
    assert again.read_bytes() == exported.read_bytes()
    back = json.loads(again.read_text(encoding="utf-8").rstrip("\n"))
    assert {k: back[k] for k in record} == record


def test_crlf_line_endings_still_import(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes("".join(json.dumps(r) + "\r\n" for r in PAIRS).encode("utf-8"))
    report = import_file(project, path)
    assert report.imported == 3
    assert [r.external_id for r in project.pair_rows()] == ["p1", "p2", "p3"]


def test_line_numbers_count_newlines_only(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = json.dumps({"source": "A\u2028B.", "output": "A."}, ensure_ascii=False)
    path.write_text(good + "\n" + good.replace('"A."', '"B."') + "\n{broken\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_file(project, path)
    assert info.value.line == 3


LONE = "\ud800"


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"source": f"A{LONE}b.", "output": "A b."}, "source"),
        ({"source": "A b.", "output": f"A{LONE}"}, "output"),
        ({"id": f"x{LONE}", "source": "A b.", "output": "A b."}, "id"),
        ({"system": LONE, "source": "A b.", "output": "A b."}, "system"),
        ({"context": LONE, "source": "A b.", "output": "A b."}, "context"),
        ({"rating": f"good{LONE}", "source": "A b.", "output": "A b."}, "rating"),
        ({"meta": {"tags": ["a", LONE]}, "source": "A b.", "output": "A b."}, "meta"),
        ({"meta": {f"k{LONE}": 1}, "source": "A b.", "output": "A b."}, "meta"),
        ({"source": "A b.", "output": "A b.", "judgments": [{"note": LONE}]}, "judgments"),
    ],
    ids=["source", "output", "id", "system", "context", "extra", "meta", "meta-key", "analysis"],
)
def test_lone_surrogate_refused_with_line_and_field(
    project: Project, tmp_path: Path, record: dict, field: str
) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [PAIRS[0], record])
    assert "\\ud800" in path.read_text(encoding="utf-8")  # written as a JSON escape
    with pytest.raises(InputError) as info:
        import_file(project, path)
    err = info.value
    assert (err.line, err.field) == (2, field)
    assert "lone surrogate" in err.reason and "U+D800" in err.reason
    assert project.count_pairs() == 0
    report = import_file(project, path, skip_invalid=True)
    assert report.imported == 1
    assert [(p.line, p.field) for p in report.skipped] == [(2, field)]
    # and nothing stored can make an export fail
    export(project, tmp_path / "out.jsonl")


def test_lone_surrogate_in_a_field_name(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [{f"x{LONE}": "y", "source": "A.", "output": "A."}])
    with pytest.raises(InputError) as info:
        import_file(project, path)
    assert info.value.line == 1 and info.value.field == "x\\ud800"
    assert "field name" in info.value.reason
