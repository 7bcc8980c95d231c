"""The analysis pipeline: parse, score with each checker, store in batches.

Analysis is incremental: a pair is scored by a checker only when it has no score from that
checker's current version. Each chunk of pairs is parsed once, scored by every checker that
needs it, and written in one transaction, so cancelling (or a crash) leaves every finished chunk
stored and nothing half-written; running again resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from app.store.project import Project, now
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Output,
    PairScoreRow,
    Run,
    SentenceRow,
    SentenceScoreRow,
    Source,
)
from models.checkers.base import Checker, PairInput, PairScore
from models.document import ParsedText
from models.errors import Cancelled
from models.parsing import parse_many, pipeline_version

Progress = Callable[[int, int], None]


@dataclass
class CheckerReport:
    name: str
    display_name: str
    version: str
    scored: int = 0
    already_scored: int = 0
    not_checked_sentences: int = 0
    sentences: int = 0


@dataclass
class AnalysisReport:
    checkers: list[CheckerReport] = field(default_factory=list)
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "scored": sum(c.scored for c in self.checkers),
            "not_checked": sum(c.not_checked_sentences for c in self.checkers),
            "cancelled": self.cancelled,
            "checkers": [c.__dict__ for c in self.checkers],
        }


def pending(project: Project, checker: Checker) -> list[int]:
    """Outputs without a score from this checker's current version, in import order."""
    with project.session() as s:
        done = select(PairScoreRow.output_id).where(
            PairScoreRow.checker == checker.name, PairScoreRow.version == checker.version
        )
        return list(s.scalars(select(Output.id).where(Output.id.not_in(done)).order_by(Output.id)))


def analyze(
    project: Project,
    checkers: Sequence[Checker],
    *,
    chunk_size: int = 32,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_chunk: Callable[[list[int]], None] | None = None,
) -> AnalysisReport:
    """Score every pair that lacks a score from each checker's current version.

    Args:
        project: the open project.
        checkers: loaded checkers, run in this order on each chunk.
        chunk_size: pairs parsed, scored and committed together.
        progress: called with (pairs done, pairs to do).
        should_stop: checked between chunks (and by checkers between their batches).
        on_chunk: called with the output ids of each committed chunk.
    """
    todo = {c.name: set(pending(project, c)) for c in checkers}
    report = AnalysisReport([CheckerReport(c.name, c.display_name, c.version) for c in checkers])
    total_pairs = project.count_pairs()
    for rep in report.checkers:
        rep.already_scored = total_pairs - len(todo[rep.name])
    union = sorted(set().union(*todo.values())) if todo else []
    if not union:
        return report
    parser = pipeline_version()
    runs = {c.name: _start_run(project, c, parser) for c in checkers if todo[c.name]}
    done = 0
    try:
        for lo in range(0, len(union), chunk_size):
            if should_stop is not None and should_stop():
                raise Cancelled("analysis cancelled")
            ids = union[lo : lo + chunk_size]
            texts = _texts(project, ids)
            parsed = parse_many(
                [t for pair in texts.values() for t in pair], should_stop=should_stop
            )
            docs = {oid: (parsed[2 * n], parsed[2 * n + 1]) for n, oid in enumerate(texts)}
            idmaps = _store_parse(project, docs)
            results: list[tuple[Checker, list[PairScore]]] = []
            for checker in checkers:
                mine = [oid for oid in ids if oid in todo[checker.name]]
                if not mine:
                    continue
                batch = [PairInput(oid, docs[oid][0], docs[oid][1]) for oid in mine]
                results.append((checker, checker.score(batch, should_stop=should_stop)))
            _store_scores(project, runs, results, idmaps, report)
            done += len(ids)
            if progress is not None:
                progress(done, len(union))
            if on_chunk is not None:
                on_chunk(ids)
    except Cancelled:
        report.cancelled = True
    finally:
        for run_id in runs.values():
            _finish_run(project, run_id, "cancelled" if report.cancelled else "done")
    return report


def _start_run(project: Project, checker: Checker, parser: str) -> int:
    with project.session() as s:
        run = Run(
            checker=checker.name,
            version=checker.version,
            display_name=checker.display_name,
            grain=checker.grain,
            settings={"parser": parser},
            started_at=now(),
            status="running",
            scored=0,
        )
        s.add(run)
        s.flush()
        return run.id


def _finish_run(project: Project, run_id: int, status: str) -> None:
    with project.session() as s:
        run = s.get(Run, run_id)
        assert run is not None
        run.status = status
        run.finished_at = now()


def _texts(project: Project, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    with project.session() as s:
        rows = s.execute(
            select(Output.id, Source.text, Output.text)
            .join(Source, Source.id == Output.source_id)
            .where(Output.id.in_(ids))
            .order_by(Output.id)
        ).all()
    return {oid: (src, out) for oid, src, out in rows}


# (output id) -> ({sentence index: sentence id}, {(sentence index, arc index): arc id})
IdMaps = dict[int, tuple[dict[int, int], dict[tuple[int, int], int]]]


def _store_parse(project: Project, docs: dict[int, tuple[ParsedText, ParsedText]]) -> IdMaps:
    """Store sentences and arcs of outputs parsed for the first time; return id maps for all."""
    with project.session() as s:
        outputs = {o.id: o for o in s.scalars(select(Output).where(Output.id.in_(docs)))}
        fresh = [oid for oid in docs if not outputs[oid].parsed]
        src_done = set(
            s.scalars(
                select(SentenceRow.source_id).where(
                    SentenceRow.source_id.in_({o.source_id for o in outputs.values()})
                )
            )
        )
        for oid in fresh:
            source, output = docs[oid]
            src_id = outputs[oid].source_id
            if src_id not in src_done:
                src_done.add(src_id)
                project.bulk_insert(
                    s,
                    SentenceRow,
                    (
                        {
                            "source_id": src_id,
                            "idx": x.index,
                            "start": x.start,
                            "end": x.end,
                            "text": x.text,
                        }
                        for x in source.sentences
                    ),
                )
            project.bulk_insert(
                s,
                SentenceRow,
                (
                    {
                        "output_id": oid,
                        "idx": x.index,
                        "start": x.start,
                        "end": x.end,
                        "text": x.text,
                    }
                    for x in output.sentences
                ),
            )
        if fresh:
            s.flush()
            sent_ids = {
                (o, i): sid
                for o, i, sid in s.execute(
                    select(SentenceRow.output_id, SentenceRow.idx, SentenceRow.id).where(
                        SentenceRow.output_id.in_(fresh)
                    )
                )
            }
            rows = []
            for oid in fresh:
                for sent in docs[oid][1].sentences:
                    for n, a in enumerate(sent.arcs):
                        rows.append(
                            {
                                "sentence_id": sent_ids[(oid, sent.index)],
                                "idx": n,
                                "label": a.label,
                                "head_idx": a.head,
                                "child_idx": a.child,
                                "head_start": a.head_start,
                                "head_end": a.head_end,
                                "child_start": a.child_start,
                                "child_end": a.child_end,
                                "head_text": a.head_text,
                                "child_text": a.child_text,
                            }
                        )
            project.bulk_insert(s, ArcRow, rows)
            project.mark_parsed(s, fresh)
        maps: IdMaps = {oid: ({}, {}) for oid in docs}
        for sent_oid, idx, sid in s.execute(
            select(SentenceRow.output_id, SentenceRow.idx, SentenceRow.id).where(
                SentenceRow.output_id.in_(docs)
            )
        ):
            assert sent_oid is not None  # selected by output_id
            maps[sent_oid][0][idx] = sid
        owner = {sid: (oid, idx) for oid, m in maps.items() for idx, sid in m[0].items()}
        for sid, aidx, aid in s.execute(
            select(ArcRow.sentence_id, ArcRow.idx, ArcRow.id).where(ArcRow.sentence_id.in_(owner))
        ):
            oid, sidx = owner[sid]
            maps[oid][1][(sidx, aidx)] = aid
    return maps


def _store_scores(
    project: Project,
    runs: dict[str, int],
    results: list[tuple[Checker, list[PairScore]]],
    idmaps: IdMaps,
    report: AnalysisReport,
) -> None:
    reps = {r.name: r for r in report.checkers}
    with project.session() as s:
        for checker, scores in results:
            run_id = runs[checker.name]
            common = {"run_id": run_id, "checker": checker.name, "version": checker.version}
            project.replace_scores(s, checker.name, checker.version, [p.key for p in scores])  # type: ignore[misc]
            pair_rows, sent_rows, arc_rows = [], [], []
            for p in scores:
                sents, arcs = idmaps[p.key]  # type: ignore[index]
                pair_rows.append(
                    {
                        **common,
                        "output_id": p.key,
                        "score": p.score,
                        "not_checked": len(p.not_checked),
                    }
                )
                for ss in p.sentences:
                    if ss.sentence not in sents:
                        continue
                    sent_rows.append(
                        {
                            **common,
                            "sentence_id": sents[ss.sentence],
                            "score": ss.score,
                            "min_arc": ss.min_arc,
                            "evidence": list(ss.evidence),
                            "omitted": ss.omitted,
                            "not_checked": ss.not_checked,
                        }
                    )
                for a in p.arcs:
                    aid = arcs.get((a.sentence, a.arc))
                    if aid is not None:
                        arc_rows.append({**common, "arc_id": aid, "score": a.score})
                rep = reps[checker.name]
                rep.scored += 1
                rep.sentences += len(p.sentences)
                rep.not_checked_sentences += len(p.not_checked)
            project.bulk_insert(s, PairScoreRow, pair_rows)
            project.bulk_insert(s, SentenceScoreRow, sent_rows)
            project.bulk_insert(s, ArcScoreRow, arc_rows)
            run = s.get(Run, run_id)
            assert run is not None
            run.scored += len(scores)
