"""What an analysis wrote, in a form two projects can be compared in."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.store import Project
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Output,
    PairScoreRow,
    Run,
    SentenceRow,
    SentenceScoreRow,
)


def analysis_rows(project: Project) -> dict[str, Any]:
    """Everything an analysis wrote, keyed by what it means (pair id, sentence and arc index),
    not by row ids, which depend on the order chunks were written in."""
    with project.session() as s:
        ext = dict(s.execute(select(Output.id, Output.external_id)).all())
        sent = {
            sid: (ext[oid], idx)
            for sid, oid, idx in s.execute(
                select(SentenceRow.id, SentenceRow.output_id, SentenceRow.idx).where(
                    SentenceRow.output_id.is_not(None)
                )
            )
        }
        arc = {
            aid: (*sent[sid], idx)
            for aid, sid, idx in s.execute(select(ArcRow.id, ArcRow.sentence_id, ArcRow.idx))
        }
        runs = {r.id: r for r in s.scalars(select(Run))}
        return {
            "pairs": sorted(
                (ext[r.output_id], r.checker, r.version, r.score, r.not_checked, r.reason)
                for r in s.scalars(select(PairScoreRow))
            ),
            "sentences": sorted(
                (*sent[r.sentence_id], r.checker, r.version, r.score, r.min_arc)
                + (tuple(r.evidence or ()), r.omitted, r.detail, r.not_checked)
                for r in s.scalars(select(SentenceScoreRow))
            ),
            "arcs": sorted(
                (*arc[r.arc_id], r.checker, r.version, r.score)
                for r in s.scalars(select(ArcScoreRow))
            ),
            "parsed": sorted(
                (ext[oid], idx, text)
                for oid, idx, text in s.execute(
                    select(SentenceRow.output_id, SentenceRow.idx, SentenceRow.text).where(
                        SentenceRow.output_id.is_not(None)
                    )
                )
            ),
            "run_scored": sorted((r.checker, r.version, r.scored) for r in runs.values()),
        }
