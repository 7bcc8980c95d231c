"""What counts as a duplicate at import (issue 13, item 6).

A duplicate is the same (id, system) or the same (source, output, context, system). Several systems'
outputs for one document id (the shape of CLIFF's and SummEval's files) are different pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from models.errors import InputError
from tests.conftest import write_jsonl

DOCS = {
    "21267591": "Sheikh Ali Salman told the BBC that dialogue had to be meaningful.",
    "35937446": "The council approved the new budget on Monday after a long debate.",
    "40138502": "Heavy rain flooded roads across the county, police said.",
}
SYSTEMS = ["bart", "pegasus"]


def cliff_shaped(systems: list[str] = SYSTEMS) -> list[dict]:
    """One summary per system for each document id, the system in `model_name`."""
    return [
        {
            "dataset": "CLIFF",
            "origin": "xsum",
            "id": doc_id,
            "doc": doc,
            "summ": f"A summary of {doc_id} by {system}.",
            "model_name": system,
            "error_type": ["extrinsic"],
        }
        for doc_id, doc in DOCS.items()
        for system in systems
    ]


def test_systems_sharing_a_document_id_are_all_imported(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "cliff.jsonl", cliff_shaped())
    report = import_file(project, path)
    assert report.imported == 6 and report.duplicates == []
    rows = project.pair_rows()
    assert sorted((r.system, r.external_id.split("@")[0]) for r in rows) == sorted(
        (s, d) for d in DOCS for s in SYSTEMS
    )
    again = import_file(project, path)
    assert again.imported == 0 and project.count_pairs() == 6
    assert [(d.line, d.id, d.field) for d in again.duplicates] == [
        (n, r["id"], "id") for n, r in enumerate(cliff_shaped(), start=1)
    ]
    assert again.duplicates[1].reason == (
        "same id and system 'pegasus' as a pair already in the project"
    )


def test_ids_shared_across_systems_round_trip(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "cliff.jsonl", cliff_shaped())
    import_file(project, path)
    first = tmp_path / "first.jsonl"
    export(project, first)
    exported = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["system"]) for r in exported] == [(d, s) for d in DOCS for s in SYSTEMS], (
        "the export gives back the ids of the file, not the stored ones"
    )
    assert import_file(project, first).imported == 0  # the same pairs: all duplicates
    with Project.create(tmp_path / "copy.factdesk") as copy:
        assert import_file(copy, first).imported == 6
        second = tmp_path / "second.jsonl"
        export(copy, second)
    assert second.read_bytes() == first.read_bytes()


def test_a_later_file_adds_a_system(project: Project, tmp_path: Path) -> None:
    import_file(project, write_jsonl(tmp_path / "a.jsonl", cliff_shaped(["bart"])))
    report = import_file(project, write_jsonl(tmp_path / "b.jsonl", cliff_shaped()))
    assert report.imported == 3 and len(report.duplicates) == 3
    assert {d.reason for d in report.duplicates} == {
        "same id and system 'bart' as a pair already in the project"
    }
    assert project.count_pairs() == 6


def test_same_id_and_system_with_other_text_is_reported_as_such(
    project: Project, tmp_path: Path
) -> None:
    records = cliff_shaped(["bart"])
    records.append({**records[0], "summ": "Another summary."})
    report = import_file(project, write_jsonl(tmp_path / "a.jsonl", records))
    assert report.imported == 3
    [dup] = report.duplicates
    assert (dup.line, dup.id, dup.field) == (4, "21267591", "id")
    assert dup.reason == (
        "same id and system 'bart' as line 1 of this file; "
        "its source or output differs, the first is kept"
    )


def test_same_content_and_system_under_another_id(project: Project, tmp_path: Path) -> None:
    base = {"doc": "A cat sat on the mat.", "summ": "A cat sat.", "model_name": "bart"}
    records = [
        {**base, "id": "a"},
        {**base, "id": "b"},  # same content, same system: a duplicate
        {**base, "id": "c", "model_name": "t5"},  # same content, another system: a pair
        {"doc": base["doc"], "summ": base["summ"]},  # no id, no system: a pair
        {"doc": base["doc"], "summ": base["summ"]},  # the same again: a duplicate
    ]
    report = import_file(project, write_jsonl(tmp_path / "a.jsonl", records))
    assert report.imported == 3
    assert [(d.line, d.id, d.field, d.reason) for d in report.duplicates] == [
        (2, "b", None, "same source, output and system 'bart' as line 1 of this file (id 'a')"),
        (5, None, None, "same source, output and no system as line 4 of this file"),
    ]


def test_one_answer_to_two_questions_is_two_pairs(project: Project, tmp_path: Path) -> None:
    """A passage answered "No." to two questions (BoolQ's shape) loses neither, with or without
    ids; the same question again is a duplicate, and so is a re-import of the file."""
    passage = "Vehicles must be booked 24 hours ahead; foot passengers buy tickets on the day."
    records = [
        {"source": passage, "output": "No.", "question": "Do foot passengers need to book?"},
        {"source": passage, "output": "No.", "question": "Can vehicles just turn up?"},
        {"source": passage, "output": "No.", "question": "Do foot passengers need to book?"},
        {"id": "q1", "source": passage, "output": "No.", "question": "Is the ferry free?"},
        {"id": "q1", "source": passage, "output": "No.", "question": "Is it daily?"},
    ]
    f = write_jsonl(tmp_path / "qa.jsonl", records)
    report = import_file(project, f)
    assert report.imported == 3
    assert [(d.line, d.field, d.reason) for d in report.duplicates] == [
        (3, None, "same source, output, context and no system as line 1 of this file"),
        (
            5,
            "id",
            "same id and no system as line 4 of this file; "
            "its source, output or context differs, the first is kept",
        ),
    ]
    ids = project.output_ids()
    assert len(set(ids)) == 3
    again = import_file(project, f)
    assert again.imported == 0 and len(again.duplicates) == 5


def test_without_a_system_the_id_alone_decides(project: Project, tmp_path: Path) -> None:
    records = [
        {"id": "x", "source": "A.", "output": "A."},
        {"id": "x", "source": "B.", "output": "B."},
    ]
    report = import_file(project, write_jsonl(tmp_path / "a.jsonl", records))
    assert report.imported == 1
    assert report.duplicates[0].reason == (
        "same id and no system as line 1 of this file; "
        "its source or output differs, the first is kept"
    )


def test_ids_that_look_like_stored_ones_stay_exact(project: Project, tmp_path: Path) -> None:
    records = [
        {"id": "d1", "source": "A.", "output": "A one.", "system": "s1"},
        {"id": "d1", "source": "A.", "output": "A two.", "system": "s2"},  # stored as d1@s2
        {"id": "d1@s2", "source": "A.", "output": "A three.", "system": "s2"},  # its own id
        {"id": "d1", "source": "A.", "output": "A four."},  # no system
    ]
    path = write_jsonl(tmp_path / "a.jsonl", records)
    assert import_file(project, path).imported == 4
    out = tmp_path / "out.jsonl"
    export(project, out)
    back = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["system"]) for r in back] == [
        ("d1", "s1"),
        ("d1", "s2"),
        ("d1@s2", "s2"),
        ("d1", None),
    ]
    assert import_file(project, path).imported == 0


def test_an_id_that_cannot_be_stored_is_refused(project: Project, tmp_path: Path) -> None:
    records = [
        {"id": "d1", "source": "A.", "output": "A one.", "system": "s1"},
        {"id": "d1@s2", "source": "A.", "output": "A two.", "system": "s3"},
        {"id": "d1", "source": "A.", "output": "A three.", "system": "s2"},
    ]
    path = write_jsonl(tmp_path / "a.jsonl", records)
    with pytest.raises(InputError) as info:
        import_file(project, path)
    assert (info.value.line, info.value.field) == (3, "id")
    assert project.count_pairs() == 0
    report = import_file(project, path, skip_invalid=True)
    assert report.imported == 2 and [(p.line, p.field) for p in report.skipped] == [(3, "id")]
