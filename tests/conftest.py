"""Shared fixtures: temporary projects and small pair files."""

from __future__ import annotations

import json
import os
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


@pytest.fixture(autouse=True, scope="session")
def _graph_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Optimised graphs (``models.runtime.kept_graph``) go to a folder of this test run, not to
    the user's cache; the CLI processes the tests start read the same one."""
    before = os.environ.get("FACTDESK_CACHE_DIR")
    os.environ["FACTDESK_CACHE_DIR"] = str(tmp_path_factory.mktemp("factdesk-cache"))
    yield
    if before is None:
        os.environ.pop("FACTDESK_CACHE_DIR", None)
    else:
        os.environ["FACTDESK_CACHE_DIR"] = before


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
