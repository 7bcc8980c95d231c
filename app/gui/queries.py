"""Read queries the window needs beyond the ``Project`` API (built on its public session).

``list_rows`` is ``Project.pair_rows`` restricted to some pairs (so a judgment or an analysis
chunk refreshes only its rows) and extended with what the list's filters need.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import QueryableAttribute

from app.store.project import PairRow, Project
from app.store.schema import (
    Judgment,
    Output,
    SentenceRow,
    SentenceScoreRow,
    Source,
)

STATUSES = ("unjudged", "in progress", "done", "flagged")


@dataclass(frozen=True, slots=True)
class ListRow:
    """A pair-list row: the store's :class:`PairRow` plus what filtering needs."""

    row: PairRow
    sentences: int
    labels: frozenset[str]
    error_types: frozenset[str]

    @property
    def status(self) -> str:
        r = self.row
        if r.flagged:
            return "flagged"
        if r.pair_label is not None or (self.sentences and r.judged >= self.sentences):
            return "done"
        if r.judged:
            return "in progress"
        return "unjudged"


def list_rows(
    project: Project,
    checker: str | None,
    version: str | None,
    threshold: float,
    ids: Sequence[int] | None = None,
) -> list[ListRow]:
    """Rows for ``ids`` (all pairs when None), in import order."""

    def only(col: QueryableAttribute[Any]) -> list[ColumnElement[bool]]:
        return [] if ids is None else [col.in_(list(ids))]

    rows = project.pair_rows(checker, version, threshold, ids)
    with project.session() as s:
        n_sent = dict(
            s.execute(
                select(SentenceRow.output_id, func.count(SentenceRow.id))
                .where(SentenceRow.output_id.is_not(None), *only(SentenceRow.output_id))
                .group_by(SentenceRow.output_id)
            ).all()
        )
        labels: dict[int, set[str]] = defaultdict(set)
        errors: dict[int, set[str]] = defaultdict(set)
        for oid, label, err in s.execute(
            select(Judgment.output_id, Judgment.label, Judgment.error_type).where(
                Judgment.aspect == "support", *only(Judgment.output_id)
            )
        ):
            labels[oid].add(label)
            if err:
                errors[oid].add(err)
    return [
        ListRow(
            r,
            n_sent.get(r.output_id, 0),
            frozenset(labels.get(r.output_id, ())),
            frozenset(errors.get(r.output_id, ())),
        )
        for r in rows
    ]


def search_ids(project: Project, text: str) -> set[int]:
    """Pairs whose output or source contains ``text`` (case-insensitive)."""
    pattern = f"%{text}%"
    with project.session() as s:
        q = (
            select(Output.id)
            .join(Source, Source.id == Output.source_id)
            .where(
                or_(
                    Output.text.ilike(pattern),
                    Source.text.ilike(pattern),
                    Output.external_id.ilike(pattern),
                )
            )
        )
        return set(s.scalars(q))


def sentence_judgment_scores(
    project: Project, checker: str, version: str
) -> list[tuple[str, float | None, str | None, str | None]]:
    """(label, model score, error type, system) for every sentence-level support judgment."""
    with project.session() as s:
        q = (
            select(Judgment.label, SentenceScoreRow.score, Judgment.error_type, Output.system)
            .join(Output, Output.id == Judgment.output_id)
            .outerjoin(
                SentenceScoreRow,
                (SentenceScoreRow.sentence_id == Judgment.sentence_id)
                & (SentenceScoreRow.checker == checker)
                & (SentenceScoreRow.version == version),
            )
            .where(Judgment.aspect == "support", Judgment.target == "sentence")
        )
        return [tuple(r) for r in s.execute(q)]  # type: ignore[misc]


def error_types_by_system(project: Project) -> list[tuple[str | None, str, int]]:
    with project.session() as s:
        q = (
            select(Output.system, Judgment.error_type, func.count(Judgment.id))
            .join(Output, Output.id == Judgment.output_id)
            .where(Judgment.error_type.is_not(None))
            .group_by(Output.system, Judgment.error_type)
        )
        return [tuple(r) for r in s.execute(q)]  # type: ignore[misc]


def pair_score_values(project: Project, checker: str, version: str) -> list[float]:
    return [v for v in project.pair_scores(checker, version).values() if v is not None]
