"""Shared fixtures: temporary projects and small pair files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import Project

PAIRS = [
    {
        "id": "p1",
        "source": "The mayor of Paris opened the new bridge on Tuesday. It cost four million euros.",
        "output": "The mayor of Paris opened the bridge on Tuesday.",
        "system": "sys-a",
    },
    {
        "id": "p2",
        "source": "The mayor of Paris opened the new bridge on Tuesday. It cost four million euros.",
        "output": "The mayor of Lyon closed the bridge on Friday. It cost four million euros.",
        "system": "sys-b",
    },
    {
        "id": "p3",
        "source": "Shares of Acme rose 5 percent after the company reported record profits.",
        "output": "Acme shares fell after the company reported losses.",
        "system": "sys-a",
        "context": "Summarise the news.",
    },
]


#: A pair written in German: the models read English only, so analysis leaves it unscored.
GERMAN_PAIR = {
    "id": "de",
    "source": "Die Stadt Bremen hat 2023 einen neuen Bürgermeister gewählt. Er heißt "
    "Andreas Bovenschulte und gehört der SPD an.",
    "output": "Bremen wählte 2023 Andreas Bovenschulte zum Bürgermeister, der seit vielen "
    "Jahren in der Stadt lebt.",
}


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def pairs_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "pairs.jsonl", PAIRS)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = Project.create(tmp_path / "test.factdesk")
    yield p
    p.close()
