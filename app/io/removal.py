"""Removing pairs that were added by mistake: never a judged one.

An editor who pasted the wrong draft into File ▸ Add a pair, or imported the wrong file, needs
to take those pairs out again. A pair is removed with everything the project holds of it only
(its sentences and arcs, every checker's scores of them), and its source with it when no other
pair reads that source. A pair that anyone has judged, or whose judgments the audit log records
(an undone decision too), is refused: the audit log is append-only, and a judgment is the
editor's work. So is a pair an analysis is scoring now; one that planned to score it later
passes over it. The removal is one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, delete, func, select
from sqlalchemy.orm import Session

from app.io.records import logical_id
from app.store.project import Project
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    AuditEntry,
    Claim,
    Judgment,
    Output,
    PairScoreRow,
    SentenceRow,
    SentenceScoreRow,
    Source,
)
from models.errors import InputError, ProjectError


def pairs_named(project: Project, ids: Sequence[str], system: str | None) -> list[int]:
    """The output ids of the pairs with these ids as imported (of ``system`` when given).

    Raises:
        InputError: an id no pair has, or one that several systems' pairs share while no system
            is given (naming the systems).
    """
    with project.session() as s:
        rows = s.execute(select(Output.id, Output.external_id, Output.system)).all()
    by_id: dict[str, list[tuple[int, str | None]]] = {}
    for oid, stored, sys_name in rows:
        by_id.setdefault(logical_id(stored, sys_name), []).append((oid, sys_name))
    found: list[int] = []
    for pair_id in ids:
        held = [
            (oid, name) for oid, name in by_id.get(pair_id, []) if system is None or name == system
        ]
        if not held:
            of = f" and the system '{system}'" if system is not None else ""
            raise InputError(f"no pair with the id '{pair_id}'{of}; nothing was removed")
        if len(held) > 1:
            systems = ", ".join(f"'{name}'" if name else "none" for _oid, name in held)
            raise InputError(
                f"{len(held)} pairs have the id '{pair_id}' (systems {systems}): say which "
                "with --system; nothing was removed"
            )
        found.append(held[0][0])
    return found


@dataclass(frozen=True)
class Removed:
    """What :func:`remove_pairs` removed: pairs (by id as imported) and sources no pair reads."""

    pairs: tuple[str, ...]
    sources: int


def remove_pairs(project: Project, output_ids: Sequence[int]) -> Removed:
    """Remove these pairs (output ids) and what the project holds of them alone.

    Raises:
        ProjectError: a pair that does not exist, that has judgments or audit-log entries, or
            that an analysis is scoring now (naming them); nothing is removed then.
    """
    wanted = sorted(set(output_ids))
    if not wanted:
        return Removed((), 0)
    with project.write_session() as s:
        rows = s.execute(
            select(Output.id, Output.external_id, Output.system, Output.source_id).where(
                Output.id.in_(wanted)
            )
        ).all()
        missing = sorted(set(wanted) - {r.id for r in rows})
        if missing:
            raise ProjectError(
                f"no pair with internal id {', '.join(map(str, missing))}; nothing was removed"
            )
        names = {r.id: logical_id(r.external_id, r.system) for r in rows}
        judged = dict(
            s.execute(
                select(Judgment.output_id, func.count(Judgment.id))
                .where(Judgment.output_id.in_(wanted))
                .group_by(Judgment.output_id)
            ).all()
        )
        logged = {
            int(oid)
            for (oid,) in s.execute(
                select(func.json_extract(AuditEntry.key, "$.output_id")).distinct()
            )
            if oid is not None and int(oid) in names
        }
        kept = sorted(set(judged) | logged)
        if kept:
            listed = ", ".join(
                f"'{names[oid]}' ({judged[oid]} judgments)" if oid in judged else f"'{names[oid]}'"
                for oid in kept
            )
            raise ProjectError(
                f"judged pairs are kept: {listed} "
                f"{'has' if len(kept) == 1 else 'have'} judgments or decisions in the audit "
                "log; nothing was removed"
            )
        busy = sorted(set(s.scalars(select(Claim.output_id).where(Claim.output_id.in_(wanted)))))
        if busy:
            listed = ", ".join(f"'{names[oid]}'" for oid in busy)
            raise ProjectError(
                f"{listed} {'is' if len(busy) == 1 else 'are'} being analysed now: remove "
                f"{'it' if len(busy) == 1 else 'them'} when the analysis ends; nothing was removed"
            )
        sentences = select(SentenceRow.id).where(SentenceRow.output_id.in_(wanted))
        _remove_sentences(s, sentences)
        s.execute(delete(PairScoreRow).where(PairScoreRow.output_id.in_(wanted)))
        s.execute(delete(Output).where(Output.id.in_(wanted)))
        sources = {r.source_id for r in rows}
        still_read = set(
            s.scalars(select(Output.source_id).where(Output.source_id.in_(sources)).distinct())
        )
        orphans = sorted(sources - still_read)
        if orphans:
            _remove_sentences(s, select(SentenceRow.id).where(SentenceRow.source_id.in_(orphans)))
            s.execute(delete(Source).where(Source.id.in_(orphans)))
    return Removed(tuple(names[oid] for oid in wanted), len(orphans))


def _remove_sentences(s: Session, sentence_ids: Select[Any]) -> None:
    """These sentences (a select of their ids) with their arcs and every score of them."""
    arcs = select(ArcRow.id).where(ArcRow.sentence_id.in_(sentence_ids))
    s.execute(delete(ArcScoreRow).where(ArcScoreRow.arc_id.in_(arcs)))
    s.execute(delete(ArcRow).where(ArcRow.sentence_id.in_(sentence_ids)))
    s.execute(delete(SentenceScoreRow).where(SentenceScoreRow.sentence_id.in_(sentence_ids)))
    s.execute(delete(SentenceRow).where(SentenceRow.id.in_(sentence_ids)))
