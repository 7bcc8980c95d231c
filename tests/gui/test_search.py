"""The pair-list search: literal, case-folded for every script, and not a table scan per key."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event

from app.store import Project
from app.store.queries import build_search_index, fold, search_ids, use_search_index
from app.store.schema import Output, Source


def _add_pairs(p: Project, pairs: list[tuple[str, str, str]]) -> dict[str, int]:
    """Insert (external id, source, output) rows directly; returns external id -> output id."""
    with p.session() as s:
        for ext, source, output in pairs:
            h = hashlib.sha1(source.encode()).hexdigest()
            src = s.query(Source).filter_by(text_hash=h).one_or_none()
            if src is None:
                src = Source(text=source, text_hash=h)
                s.add(src)
                s.flush()
            s.add(
                Output(
                    source_id=src.id,
                    external_id=ext,
                    text=output,
                    system="sys",
                    content_hash=hashlib.sha1(f"{ext}{output}".encode()).hexdigest(),
                    imported_at=datetime.now(UTC),
                )
            )
    with p.session() as s:
        return dict(s.query(Output.external_id, Output.id).all())  # type: ignore[arg-type]


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    with Project.create(tmp_path / "search.factdesk") as p:
        yield p


def _found(p: Project, ids: dict[str, int], text: str) -> set[str]:
    by_id = {v: k for k, v in ids.items()}
    return {by_id[i] for i in search_ids(p, text)}


def test_percent_and_underscore_are_literal(project: Project) -> None:
    ids = _add_pairs(
        project,
        [
            ("pct", "Turnout rose.", "Turnout was 100% this year."),
            ("plain", "Turnout rose.", "Turnout was 100 this year."),
            ("under", "The file snake_case.py broke.", "It broke."),
            ("other", "The file snakeXcase.py broke.", "It broke again."),
        ],
    )
    assert _found(project, ids, "%") == {"pct"}
    assert _found(project, ids, "100%") == {"pct"}
    assert _found(project, ids, "100") == {"pct", "plain"}
    assert _found(project, ids, "_") == {"under"}
    assert _found(project, ids, "snake_case") == {"under"}
    assert _found(project, ids, "%%") == set()


def test_non_ascii_case_is_folded(project: Project) -> None:
    ids = _add_pairs(
        project,
        [
            ("emile", "Émile Zola wrote it.", "Zola wrote a novel."),
            ("strasse", "They met on the Hauptstraße.", "They met downtown."),
            ("decomposed", "Cafe\u0301 Noir opened.", "A café opened."),
            ("none", "Nothing here.", "Nothing there."),
        ],
    )
    assert _found(project, ids, "é") == {"emile", "decomposed"}
    assert _found(project, ids, "émile") == {"emile"}
    assert _found(project, ids, "ÉMILE") == {"emile"}
    assert _found(project, ids, "STRASSE") == {"strasse"}
    assert _found(project, ids, "straße") == {"strasse"}
    assert _found(project, ids, "café noir") == {"decomposed"}
    assert _found(project, ids, "EMILE ZOLA") == set()  # accents are not stripped, only case
    assert fold("Straße") == "strasse"


def test_search_matches_the_external_id_and_sees_new_pairs(project: Project) -> None:
    ids = _add_pairs(project, [("Report-7", "A source.", "An output.")])
    assert _found(project, ids, "report-7") == {"Report-7"}
    assert _found(project, ids, "zebra") == set()
    ids = _add_pairs(project, [("later", "A zebra crossed.", "It crossed.")])
    assert _found(project, ids, "zebra") == {"later"}


def test_repeated_searches_on_10000_pairs_do_not_reread_the_texts(project: Project) -> None:
    now = datetime.now(UTC)
    with project.session() as s:
        project.bulk_insert(
            s,
            Source,
            (
                {"id": i + 1, "text": f"Source {i} tells of town {i % 97}.", "text_hash": f"{i}"}
                for i in range(2000)
            ),
        )
        project.bulk_insert(
            s,
            Output,
            (
                {
                    "source_id": i % 2000 + 1,
                    "external_id": f"p{i}",
                    "text": f"Output {i} about Émile {i}.",
                    "system": "sys",
                    "content_hash": f"{i}",
                    "imported_at": now,
                }
                for i in range(10_000)
            ),
        )
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_a) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(project.engine, "before_cursor_execute", seen)
    try:
        assert len(search_ids(project, "émile 123.")) == 1
        first = list(statements)
        statements.clear()
        for query in ("É", "ÉMILE 9", "town 5", "%", "_"):
            search_ids(project, query)
    finally:
        event.remove(project.engine, "before_cursor_execute", seen)
    # The first search reads the texts once; later ones only check whether pairs were added.
    assert any("outputs.text" in s for s in first)
    assert statements and not any(".text" in s for s in statements)
    assert not any("LIKE" in s.upper() for s in first + statements)


def test_the_search_box_filters_literally(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w = window
    total = w.proxy.rowCount()
    assert total > 0
    w.search.setText("%")
    w.pairs.apply_search()
    assert w.proxy.rowCount() == 0  # no demo text has a percent sign
    w.search.setText("RESERVOIR")
    w.pairs.apply_search()
    assert 0 < w.proxy.rowCount() < total
    w.search.setText("")
    w.pairs.apply_search()
    assert w.proxy.rowCount() == total


def test_an_index_built_in_a_worker_is_used_by_the_window(project: Project) -> None:
    ids = _add_pairs(project, [("a", "Émile wrote it.", "He wrote.")])
    index = build_search_index(str(project.path))  # what a job on the runner would do
    use_search_index(project, index)
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_a) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(project.engine, "before_cursor_execute", seen)
    try:
        assert _found(project, ids, "ÉMILE") == {"a"}
    finally:
        event.remove(project.engine, "before_cursor_execute", seen)
    assert statements and not any(".text" in s for s in statements)
    # a stale index (pairs added since) is rebuilt rather than trusted
    ids = _add_pairs(project, [("b", "Émile again.", "Again.")])
    assert _found(project, ids, "émile") == {"a", "b"}
