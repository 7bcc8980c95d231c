"""Everything known about a chunk of pairs, loaded with a few grouped queries (no N+1).

Rows are plain read-only result rows (attribute access by column name), not ORM objects:
building ORM instances was most of the cost of a large export.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.findings import QUESTIONS, conflicts
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
from app.thresholds import DEFAULT_THRESHOLD
from models.checkers.questions import Said
from models.claims import question_text
from models.evidence import SHOWN, contradicting_sentence, shown_evidence


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
    # judgment id -> (checker, version) of each stored score its model_score can have come from
    score_sources: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def left_out(self, checker: str) -> str | None:
        """Why ``checker`` left this pair unscored as a whole (its texts are not in English, or
        too long to parse), when it did: its sentences then have no scores of their own."""
        pair, sentences, _arcs = self.scores.get(checker, (None, {}, {}))
        return pair.reason if pair is not None and pair.score is None and not sentences else None

    def shown_evidence(
        self,
        sentence: str,
        window: Collection[int] = (),
        k: int = SHOWN,
        detail: str | None = None,
    ) -> list[tuple[int, str]]:
        """The source sentences to show for an output sentence, best first, as (index, text): a
        bare answer ("No.") is matched through its question, and the source sentence that the
        checker's ``detail`` names as contradicting it comes first (:func:`models.evidence.
        shown_evidence`)."""
        source = [(s.idx, s.text) for s in self.source_sentences]
        ranks = shown_evidence(
            source,
            sentence,
            window,
            k,
            question_text(self.output.context),
            contradicting_sentence(detail),
        )
        texts = dict(source)
        return [(idx, texts[idx]) for idx in sorted(ranks, key=ranks.__getitem__)]

    def conflicts(self, sid: int) -> list[Said]:
        """What the question-based check finds the source answering otherwise in output
        sentence ``sid`` (a name or figure), whichever checker is shown; [] when it did not
        run."""
        held = self.scores.get(QUESTIONS)
        row = None if held is None else held[1].get(sid)
        return [] if row is None else conflicts(row.detail)

    def findings(
        self, checker: str, sid: int, threshold: float, labels: dict[str, str]
    ) -> list[tuple[str, str]]:
        """(checker label, what it found) for output sentence ``sid``, in words: the shown
        ``checker``'s detail first (or why it did not check the sentence, or the pair), then
        that of every other checker that flags the sentence
        at the default threshold (say, the question-based check's conflicts while the combined
        score is shown), with its score, and the shown checker's where that passes the sentence
        at ``threshold``. ``labels``: checker name -> the name an editor knows."""
        out: list[tuple[str, str]] = []
        label = labels.get(checker, checker)
        shown = self.scores.get(checker)
        shown_row = None if shown is None else shown[1].get(sid)
        if shown_row is None:
            why = self.left_out(checker)  # the pair as a whole
        else:
            why = shown_row.not_checked if shown_row.score is None else None
        if why is not None:
            out.append((label, f"not checked: {why}"))
        # where the shown score passes the sentence, a flag beside it says so: the two marks
        # must not read as one contradicting the other
        passes = (
            f"; {label} passes it at {shown_row.score:.2f}"
            if shown_row is not None
            and shown_row.score is not None
            and shown_row.score >= threshold
            else ""
        )
        for name, (_pair, rows, _arcs) in self.scores.items():
            row = rows.get(sid)
            if row is None or not row.detail:
                continue
            if name == checker:
                out.insert(0, (label, row.detail))
            elif row.score is not None and row.score < DEFAULT_THRESHOLD:
                other = labels.get(name, name)
                out.append((f"{other} (flags it at {row.score:.2f}{passes})", row.detail))
        return out


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


def run_places(project: Project) -> dict[int, str]:
    """Run id -> where its scores were computed ("cpu int8"), for the runs that recorded it."""
    with project.session() as s:
        rows = s.execute(select(Run.id, Run.settings)).all()
    return {i: str(st["runs_on"]) for i, st in rows if isinstance(st, dict) and st.get("runs_on")}


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
        _score_sources(s, bundles)
        return [bundles[o.id] for o in outs]


def _score_sources(s: Session, bundles: dict[int, PairBundle]) -> None:
    """Say which checker and version each judgment's ``model_score`` came from.

    A judgment stores the score the editor saw, not its producer; every stored score keeps its
    checker, version and run. The producers are the (checker, version) pairs whose score for the
    judged target equals ``model_score`` and whose run had begun by the time of the judgment
    (for imported runs the original start is unknown, so any). Several are named only when
    several checkers gave that same score.
    """
    judged = [j for b in bundles.values() for j in b.judgments if j.model_score is not None]
    if not judged:
        return
    Table = type[PairScoreRow] | type[SentenceScoreRow] | type[ArcScoreRow]
    lookups: list[tuple[str, Table, Any]] = [
        ("pair", PairScoreRow, PairScoreRow.output_id),
        ("sentence", SentenceScoreRow, SentenceScoreRow.sentence_id),
        ("arc", ArcScoreRow, ArcScoreRow.arc_id),
    ]
    found: dict[tuple[str, int], list[tuple[str, str, float | None, datetime, bool]]] = defaultdict(
        list
    )
    for target, table, column in lookups:
        ids = {_target_id(j) for j in judged if j.target == target}
        if not ids:
            continue
        rows = s.execute(
            select(column, table.checker, table.version, table.score, Run.started_at, Run.status)
            .join(Run, Run.id == table.run_id)
            .where(column.in_(ids))
        )
        for tid, checker, version, score, started, status in rows:
            found[(target, tid)].append((checker, version, score, started, status == "imported"))
    for b in bundles.values():
        for j in b.judgments:
            if j.model_score is None:
                continue
            b.score_sources[j.id] = sorted(
                {
                    (checker, version)
                    for checker, version, score, started, imported in found[
                        (j.target, _target_id(j))
                    ]
                    if score == j.model_score and (imported or started <= j.created_at)
                }
            )


def _target_id(j: Judgment) -> int:
    """The id of what a judgment is about, in the table its target's scores live in."""
    if j.target == "arc" and j.arc_id is not None:
        return j.arc_id
    if j.target == "sentence" and j.sentence_id is not None:
        return j.sentence_id
    return j.output_id
