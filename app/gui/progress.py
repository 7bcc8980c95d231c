"""How far the review of each pair has come, counting every kind of decision.

:class:`app.gui.queries.ListRow` counts sentence and whole-pair judgments only; a pair judged at
arc level, or found not interpretable in AIS stage one, would read "unjudged". The list shows
:class:`ReviewRow` instead, which adds those decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import func, select

from app.gui.queries import ListRow, list_rows
from app.store import Project
from app.store.schema import Judgment


@dataclass(frozen=True, slots=True)
class ReviewRow(ListRow):
    """A list row that also knows the pair's arc judgments and its AIS interpretability."""

    arcs_judged: int = 0
    interpretable: str | None = None  # "yes" / "no" from AIS stage one, None when not asked

    @property
    def status(self) -> str:
        r = self.row
        if r.flagged:
            return "flagged"
        if r.pair_label is not None or (self.sentences and r.judged >= self.sentences):
            return "done"
        if self.interpretable == "no":
            return "done"  # not interpretable: attribution is not rated, the pair is finished
        if r.judged or self.arcs_judged or self.interpretable is not None:
            return "in progress"
        return "unjudged"

    def progress_text(self) -> str:
        """What has been decided on this pair, for the status tooltip."""
        r = self.row
        parts = [f"{r.judged} of {self.sentences} sentences judged"]
        if self.arcs_judged:
            parts.append(f"{self.arcs_judged} arcs judged")
        if r.pair_label:
            parts.append(f"pair: {r.pair_label}")
        if self.interpretable is not None:
            parts.append(f"interpretable: {self.interpretable}")
        return "; ".join(parts)


def review_rows(
    project: Project,
    checker: str | None,
    version: str | None,
    threshold: float,
    ids: Sequence[int] | None = None,
) -> list[ReviewRow]:
    """:func:`app.gui.queries.list_rows` with the decisions it does not count."""
    rows = list_rows(project, checker, version, threshold, ids)
    only: list[Any] = [] if ids is None else [Judgment.output_id.in_(list(ids))]
    with project.session() as s:
        arcs = dict(
            s.execute(
                select(Judgment.output_id, func.count(Judgment.id))
                .where(Judgment.aspect == "support", Judgment.target == "arc", *only)
                .group_by(Judgment.output_id)
            ).all()
        )
        interpretable = dict(
            s.execute(
                select(Judgment.output_id, Judgment.label).where(
                    Judgment.aspect == "interpretable", *only
                )
            ).all()
        )
    return [
        with_review(lr, arcs.get(lr.row.output_id, 0), interpretable.get(lr.row.output_id))
        for lr in rows
    ]


def with_review(lr: ListRow, arcs_judged: int, interpretable: str | None) -> ReviewRow:
    base = {f.name: getattr(lr, f.name) for f in fields(ListRow)}
    return ReviewRow(**base, arcs_judged=arcs_judged, interpretable=interpretable)
