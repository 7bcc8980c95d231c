"""Read queries the window needs beyond the ``Project`` API (built on its public session).

``list_rows`` is ``Project.pair_rows`` restricted to some pairs (so a judgment or an analysis
chunk refreshes only its rows) and extended with what the list's filters need.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import QueryableAttribute

from app.store.project import PairRow, Project
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Judgment,
    Output,
    PairScoreRow,
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

    with project.session() as s:
        base = s.execute(
            select(Output.id, Output.external_id, Output.system)
            .where(*only(Output.id))
            .order_by(Output.id)
        ).all()
        n_sent = dict(
            s.execute(
                select(SentenceRow.output_id, func.count(SentenceRow.id))
                .where(SentenceRow.output_id.is_not(None), *only(SentenceRow.output_id))
                .group_by(SentenceRow.output_id)
            ).all()
        )
        lowest: dict[int, float | None] = {}
        flagged_arcs: dict[int, int] = {}
        if checker and version:
            lowest = dict(
                s.execute(
                    select(PairScoreRow.output_id, PairScoreRow.score).where(
                        PairScoreRow.checker == checker,
                        PairScoreRow.version == version,
                        *only(PairScoreRow.output_id),
                    )
                ).all()
            )
            # Arcs belong to output sentences only, so the joined output_id is never NULL.
            flagged_arcs = dict(
                cast(
                    "Sequence[tuple[int, int]]",
                    s.execute(
                        select(SentenceRow.output_id, func.count(ArcScoreRow.id))
                        .join(ArcRow, ArcRow.sentence_id == SentenceRow.id)
                        .join(ArcScoreRow, ArcScoreRow.arc_id == ArcRow.id)
                        .where(
                            ArcScoreRow.checker == checker,
                            ArcScoreRow.version == version,
                            ArcScoreRow.score < threshold,
                            *only(SentenceRow.output_id),
                        )
                        .group_by(SentenceRow.output_id)
                    ).all(),
                )
            )
        judged: dict[int, int] = defaultdict(int)
        flags: set[int] = set()
        pair_labels: dict[int, str] = {}
        labels: dict[int, set[str]] = defaultdict(set)
        errors: dict[int, set[str]] = defaultdict(set)
        for oid, target, aspect, label, err in s.execute(
            select(
                Judgment.output_id,
                Judgment.target,
                Judgment.aspect,
                Judgment.label,
                Judgment.error_type,
            ).where(*only(Judgment.output_id))
        ):
            if aspect == "flag":
                flags.add(oid)
                continue
            if aspect != "support":
                continue
            if target == "sentence":
                judged[oid] += 1
            if target == "pair":
                pair_labels[oid] = label
            labels[oid].add(label)
            if err:
                errors[oid].add(err)
    return [
        ListRow(
            PairRow(
                oid,
                ext,
                system,
                lowest.get(oid),
                flagged_arcs.get(oid, 0),
                judged.get(oid, 0),
                oid in flags,
                pair_labels.get(oid),
            ),
            n_sent.get(oid, 0),
            frozenset(labels.get(oid, ())),
            frozenset(errors.get(oid, ())),
        )
        for oid, ext, system in base
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
