"""Names from files are plain text, kept as given, and said once (issue 24 items 8 and 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.io.importer import import_file
from app.io.records import read_pairs
from app.store import Project
from app.store.project import check_reviewer
from app.store.schema import Output
from models.errors import InputError, ProjectError
from tests.conftest import write_jsonl

PAIR = {"source": "The cat sat on the mat.", "output": "A cat sat."}


# ---------------------------------------------------------------------- item 8: control chars
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("id", "p1\x1b[2J"),  # ESC: clears a terminal
        ("id", "p1\x9b31m"),  # C1 CSI
        ("id", "p\u202e1"),  # right-to-left override
        ("system", "sys\x07"),  # BEL
        ("system", "sys\ta"),
    ],
)
def test_control_characters_in_ids_and_systems_are_refused_with_line_and_field(
    tmp_path: Path, field: str, value: str
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{**PAIR, "id": "ok"}, {**PAIR, field: value}])
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert err.value.line == 2 and err.value.field == field
    code = f"U+{ord(next(c for c in value if not c.isprintable())):04X}"
    assert code in err.value.reason
    assert not any(c in str(err.value) for c in "\x1b\x9b\u202e\x07\t")
    skipped = read_pairs(path, skip_invalid=True)
    assert [r.external_id for r in skipped.records] == ["ok"]
    assert [(p.line, p.field) for p in skipped.invalid] == [(2, field)]


def test_control_characters_in_a_csv_id_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text('id,source,output\n"a\x1b]0;owned\x07",The cat sat.,A cat.\n', "utf-8")
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert (err.value.line, err.value.field) == (2, "id")


def test_control_characters_in_restored_reviewer_names_are_refused(tmp_path: Path) -> None:
    judgment = {"target": "pair", "label": "supported", "annotator": "eve\x1b[8m"}
    path = write_jsonl(tmp_path / "j.jsonl", [{**PAIR, "id": "p1", "judgments": [judgment]}])
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert (err.value.line, err.value.field) == (1, "judgments")
    assert "judgments[0].annotator" in err.value.reason and "U+001B" in err.value.reason


@pytest.mark.parametrize("name", ["eve\x1b[8m", "eve\x9b", "eve\u202e"])
def test_reviewer_names_with_control_characters_are_refused(name: str) -> None:
    with pytest.raises(ProjectError):
        check_reviewer(name)


# ---------------------------------------------------------------------- item 9: as given
@pytest.mark.parametrize(("field", "value"), [("id", " p1"), ("id", "p1 "), ("system", "sys ")])
def test_ids_and_systems_with_surrounding_whitespace_are_refused_not_stripped(
    tmp_path: Path, field: str, value: str
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{**PAIR, "id": "x", field: value}])
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert (err.value.line, err.value.field) == (1, field)
    assert "space" in err.value.reason


def test_a_context_is_kept_exactly_as_given(project: Project, tmp_path: Path) -> None:
    context = "  Q: Did the cat sit?\n"
    path = write_jsonl(tmp_path / "p.jsonl", [{**PAIR, "id": "p1", "context": context}])
    import_file(project, path)
    with project.session() as s:
        assert s.query(Output.context).scalar() == context


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": "p1", "source": "A cat.", "output": "B.", "output": "C."}', "output"),
        ('{"id": "p1", "source": "A cat.", "output": "B.", "meta": {"k": 1, "k": 2}}', "k"),
    ],
)
def test_a_duplicate_key_in_a_json_object_is_refused(tmp_path: Path, line: str, field: str) -> None:
    path = tmp_path / "dup.jsonl"
    ok = json.dumps({**PAIR, "id": "p0"})
    path.write_text(f"{ok}\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_pairs(path)
    assert (err.value.line, err.value.field) == (2, field)
    assert "twice" in err.value.reason
    skipped = read_pairs(path, skip_invalid=True)
    assert [r.external_id for r in skipped.records] == ["p0"]
