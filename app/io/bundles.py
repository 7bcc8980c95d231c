"""Everything known about a chunk of pairs, loaded with a few grouped queries (no N+1).

Rows are plain read-only result rows (attribute access by column name), not ORM objects:
building ORM instances was most of the cost of a large export.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy import select

from app.store.project import Project
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Base,
    Judgment,
    Output,
    PairScoreRow,
    Run,
    SentenceRow,
    SentenceScoreRow,
    Source,
)


@dataclass
class PairBundle:
    output: Output
    source: Source
    sentences: list[SentenceRow] = field(default_factory=list)
    source_sentences: list[SentenceRow] = field(default_factory=list)
    arcs: list[ArcRow] = field(default_factory=list)
    # checker -> (pair score row, {sentence_id: row}, {arc_id: score})
    scores: dict[str, tuple[PairScoreRow, dict[int, SentenceScoreRow], dict[int, float]]] = field(
        default_factory=dict
    )
    judgments: list[Judgment] = field(default_factory=list)


_R = TypeVar("_R", bound=Base)


def _rows(kind: type[_R], result: Iterable[Any]) -> Iterator[_R]:
    """Type the plain result rows of ``select(kind.__table__)`` as ``kind``.

    They are not ``kind`` instances, but they carry the same column attributes with the same
    types, which is all that readers of a bundle use.
    """
    return iter(cast("Iterable[_R]", result))


def iter_bundles(project: Project, *, chunk: int = 2000) -> Iterator[PairBundle]:
    """All pairs in import order, each with its analysis and judgments."""
    ids = project.output_ids()
    for lo in range(0, len(ids), chunk):
        yield from load_bundles(project, ids[lo : lo + chunk])


def run_info(project: Project) -> dict[str, dict[str, Any]]:
    """Checker name -> version, display name and grain of its most recent run."""
    with project.session() as s:
        rows = s.execute(
            select(Run.checker, Run.version, Run.display_name, Run.grain).order_by(Run.id)
        )
        return {c: {"version": v, "display_name": d, "grain": g} for c, v, d, g in rows}


def load_bundles(project: Project, output_ids: Sequence[int]) -> list[PairBundle]:
    current = run_info(project)
    with project.session() as s:
        outs = list(
            _rows(
                Output,
                s.execute(
                    select(Output.__table__).where(Output.id.in_(output_ids)).order_by(Output.id)
                ),
            )
        )
        src_ids = {o.source_id for o in outs}
        sources = {
            x.id: x
            for x in _rows(
                Source, s.execute(select(Source.__table__).where(Source.id.in_(src_ids)))
            )
        }
        bundles = {o.id: PairBundle(o, sources[o.source_id]) for o in outs}
        src_sents: dict[int, list[SentenceRow]] = defaultdict(list)
        for row in _rows(
            SentenceRow,
            s.execute(
                select(SentenceRow.__table__)
                .where(SentenceRow.source_id.in_(src_ids))
                .order_by(SentenceRow.idx)
            ),
        ):
            assert row.source_id is not None  # selected by source_id
            src_sents[row.source_id].append(row)
        sent_owner: dict[int, int] = {}
        for row in _rows(
            SentenceRow,
            s.execute(
                select(SentenceRow.__table__)
                .where(SentenceRow.output_id.in_(output_ids))
                .order_by(SentenceRow.idx)
            ),
        ):
            assert row.output_id is not None  # selected by output_id
            bundles[row.output_id].sentences.append(row)
            sent_owner[row.id] = row.output_id
        arc_owner: dict[int, int] = {}
        for arc in _rows(
            ArcRow,
            s.execute(
                select(ArcRow.__table__)
                .where(ArcRow.sentence_id.in_(sent_owner))
                .order_by(ArcRow.sentence_id, ArcRow.idx)
            ),
        ):
            bundles[sent_owner[arc.sentence_id]].arcs.append(arc)
            arc_owner[arc.id] = sent_owner[arc.sentence_id]
        for checker, info in current.items():
            version = info["version"]
            pair_rows = _rows(
                PairScoreRow,
                s.execute(
                    select(PairScoreRow.__table__).where(
                        PairScoreRow.checker == checker,
                        PairScoreRow.version == version,
                        PairScoreRow.output_id.in_(output_ids),
                    )
                ),
            )
            for pair in pair_rows:
                bundles[pair.output_id].scores[checker] = (pair, {}, {})
            for sent in _rows(
                SentenceScoreRow,
                s.execute(
                    select(SentenceScoreRow.__table__).where(
                        SentenceScoreRow.checker == checker,
                        SentenceScoreRow.version == version,
                        SentenceScoreRow.sentence_id.in_(sent_owner),
                    )
                ),
            ):
                entry = bundles[sent_owner[sent.sentence_id]].scores.get(checker)
                if entry is not None:
                    entry[1][sent.sentence_id] = sent
            for arc_id, score in s.execute(
                select(ArcScoreRow.arc_id, ArcScoreRow.score).where(
                    ArcScoreRow.checker == checker,
                    ArcScoreRow.version == version,
                    ArcScoreRow.arc_id.in_(arc_owner),
                )
            ):
                entry = bundles[arc_owner[arc_id]].scores.get(checker)
                if entry is not None:
                    entry[2][arc_id] = score
        for judgment in _rows(
            Judgment,
            s.execute(
                select(Judgment.__table__)
                .where(Judgment.output_id.in_(output_ids))
                .order_by(Judgment.id)
            ),
        ):
            bundles[judgment.output_id].judgments.append(judgment)
        for b in bundles.values():
            b.source_sentences = src_sents.get(b.source.id, [])
        return [bundles[o.id] for o in outs]
