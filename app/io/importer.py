"""Importing pair files into a project: all or nothing, duplicates reported, never doubled.

A file is validated completely before anything is written, then written in one transaction, so a
bad record means nothing of the file is imported (unless the user asks to skip invalid records,
in which case each skipped record is reported with its reason). Records exported by FactDesk
carry their sentences, arcs, scores and judgments, and these are restored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.io.records import (
    DEFAULT_MAPPING,
    MAX_FIELD_CHARS,
    FieldMapping,
    Format,
    PairRecord,
    Problem,
    logical_id,
    read_pairs,
    stored_id,
)
from app.store.project import Project, now
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    AuditEntry,
    Judgment,
    Output,
    PairScoreRow,
    Run,
    SentenceRow,
    SentenceScoreRow,
    Source,
)
from models.errors import InputError

BATCH = 5000


@dataclass
class ImportReport:
    path: str
    imported: int = 0
    duplicates: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    restored_pairs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "imported": self.imported,
            "skipped": len(self.skipped),
            "duplicates": len(self.duplicates),
            "restored_analysis": self.restored_pairs,
            "skipped_records": [p.to_json() for p in self.skipped],
            "duplicate_records": [p.to_json() for p in self.duplicates],
        }


def import_file(
    project: Project,
    path: str | Path,
    *,
    fmt: Format | None = None,
    mapping: FieldMapping = DEFAULT_MAPPING,
    skip_invalid: bool = False,
    max_field_chars: int = MAX_FIELD_CHARS,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import one file. Raises :class:`InputError` (and imports nothing) on bad input."""
    read = read_pairs(
        path, fmt=fmt, mapping=mapping, skip_invalid=skip_invalid, max_field_chars=max_field_chars
    )
    report = ImportReport(str(path), skipped=read.invalid)
    with project.session() as s:
        fresh = _new_records(s, path, read.records, report, skip_invalid)
        sources = _insert_sources(project, s, [r for r, _key in fresh])
        stamp = now()
        total = len(fresh)
        for lo in range(0, total, BATCH):
            chunk = fresh[lo : lo + BATCH]
            plain = [(r, key) for r, key in chunk if not r.analysis]
            project.bulk_insert(
                s, Output, (_output_row(r, key, sources, stamp) for r, key in plain)
            )
            for rec, key in chunk:
                if rec.analysis:
                    out = Output(**_output_row(rec, key, sources, stamp))
                    s.add(out)
                    s.flush()
                    _restore(s, path, rec, out, sources[rec.source_hash], project.annotator)
                    report.restored_pairs += 1
            if progress is not None:
                progress(min(lo + BATCH, total), total)
        report.imported = total
    return report


def _auto_id(h: str) -> str:
    return f"auto-{h[:16]}"


def _system_text(system: str | None) -> str:
    return f"system '{system}'" if system is not None else "no system"


def _new_records(
    s: Session,
    path: str | Path,
    records: list[PairRecord],
    report: ImportReport,
    skip_invalid: bool,
) -> list[tuple[PairRecord, str]]:
    """The records to import, each with the id it is stored under; duplicates go to the report.

    A record is a duplicate when a pair with the same id and system, or with the same source,
    output and system, is already in the project or earlier in the file. Outputs of several
    systems for one document id are different pairs.
    """
    by_key: dict[tuple[str, str | None], tuple[str, str]] = {}  # (id, system) -> (where, hash)
    by_content: dict[tuple[str, str | None], tuple[str, str]] = {}  # (hash, system) -> where, id
    taken: set[str] = set()
    for stored, system, h in s.execute(
        select(Output.external_id, Output.system, Output.content_hash)
    ):
        ext = logical_id(stored, system)
        by_key[(ext, system)] = ("a pair already in the project", h)
        by_content.setdefault((h, system), ("a pair already in the project", ext))
        taken.add(stored)
    fresh: list[tuple[PairRecord, str]] = []
    for rec in records:
        h = rec.content_hash
        ext = rec.external_id or _auto_id(h)
        system = rec.system
        if rec.external_id is not None and (ext, system) in by_key:
            where, other = by_key[(ext, system)]
            differs = "; its source or output differs, the first is kept" if other != h else ""
            report.duplicates.append(
                Problem(
                    rec.line,
                    "id",
                    f"same id and {_system_text(system)} as {where}{differs}",
                    ext,
                )
            )
            continue
        if (h, system) in by_content:
            where, other_id = by_content[(h, system)]
            named = f" (id '{other_id}')" if other_id != ext else ""
            report.duplicates.append(
                Problem(
                    rec.line,
                    None,
                    f"same source, output and {_system_text(system)} as {where}{named}",
                    rec.external_id,
                )
            )
            continue
        key = ext
        if key in taken or logical_id(key, system) != key:
            key = stored_id(ext, system)
            if key in taken:
                err = InputError(
                    f"the id '{ext}' is taken by another system's pair and '{key}' by a third "
                    "pair; give this record another id",
                    path=str(path),
                    line=rec.line,
                    field="id",
                )
                if not skip_invalid:
                    raise err
                report.skipped.append(Problem(rec.line, "id", err.reason, rec.external_id))
                continue
        where = f"line {rec.line} of this file"
        by_key[(ext, system)] = (where, h)
        by_content.setdefault((h, system), (where, ext))
        taken.add(key)
        fresh.append((rec, key))
    return fresh


def _insert_sources(project: Project, s: Session, records: list[PairRecord]) -> dict[str, int]:
    known = dict(s.execute(select(Source.text_hash, Source.id)).all())
    new: dict[str, str] = {}
    for rec in records:
        h = rec.source_hash
        if h not in known and h not in new:
            new[h] = rec.source
    items = list(new.items())
    for lo in range(0, len(items), BATCH):
        project.bulk_insert(
            s, Source, ({"text": t, "text_hash": h} for h, t in items[lo : lo + BATCH])
        )
    if new:
        known = dict(s.execute(select(Source.text_hash, Source.id)).all())
    return known


def _output_row(
    rec: PairRecord, key: str, sources: dict[str, int], stamp: datetime
) -> dict[str, Any]:
    h = rec.content_hash
    return {
        "source_id": sources[rec.source_hash],
        "external_id": key,
        "text": rec.output,
        "system": rec.system,
        "context": rec.context,
        "meta": rec.meta,
        "content_hash": h,
        "imported_at": stamp,
        "parsed": False,
    }


def _restore(
    s: Session, path: str | Path, rec: PairRecord, out: Output, source_id: int, annotator: str
) -> None:
    """Restore sentences, arcs, scores and judgments from a FactDesk JSONL export record."""
    data = rec.analysis or {}
    try:
        sentence_ids: dict[int, int] = {}
        for sent in data.get("sentences", []):
            row = SentenceRow(
                output_id=out.id,
                idx=int(sent["index"]),
                start=int(sent["start"]),
                end=int(sent["end"]),
                text=rec.output[int(sent["start"]) : int(sent["end"])],
            )
            s.add(row)
            s.flush()
            sentence_ids[row.idx] = row.id
        has_source_sentences = s.scalar(
            select(SentenceRow.id).where(SentenceRow.source_id == source_id).limit(1)
        )
        if not has_source_sentences:
            for idx, (start, end) in enumerate(data.get("source_sentences", [])):
                s.add(
                    SentenceRow(
                        source_id=source_id,
                        idx=idx,
                        start=int(start),
                        end=int(end),
                        text=rec.source[int(start) : int(end)],
                    )
                )
        arc_ids: dict[tuple[int, int], int] = {}
        for arc in data.get("arcs", []):
            arc_row = ArcRow(
                sentence_id=sentence_ids[int(arc["sentence"])],
                idx=int(arc["index"]),
                label=str(arc["label"]),
                head_idx=int(arc["head"]),
                child_idx=int(arc["child"]),
                head_start=int(arc["head_span"][0]),
                head_end=int(arc["head_span"][1]),
                child_start=int(arc["child_span"][0]),
                child_end=int(arc["child_span"][1]),
                head_text=str(arc["head_text"]),
                child_text=str(arc["child_text"]),
            )
            s.add(arc_row)
            s.flush()
            arc_ids[(int(arc["sentence"]), int(arc["index"]))] = arc_row.id
        if sentence_ids:
            out.parsed = True
        for name, block in (data.get("checkers") or {}).items():
            run = _run_for(s, name, block)
            common = {"run_id": run.id, "checker": name, "version": run.version}
            s.add(
                PairScoreRow(
                    output_id=out.id,
                    score=block.get("score"),
                    not_checked=len(block.get("not_checked", [])),
                    **common,
                )
            )
            for sent in block.get("sentences", []):
                s.add(
                    SentenceScoreRow(
                        sentence_id=sentence_ids[int(sent["index"])],
                        score=sent.get("score"),
                        min_arc=sent.get("min_arc"),
                        evidence=list(sent.get("evidence") or []),
                        omitted=int(sent.get("omitted", 0)),
                        not_checked=sent.get("not_checked"),
                        **common,
                    )
                )
            for arc in block.get("arcs", []):
                s.add(
                    ArcScoreRow(
                        arc_id=arc_ids[(int(arc["sentence"]), int(arc["index"]))],
                        score=float(arc["score"]),
                        **common,
                    )
                )
        for j in data.get("judgments", []):
            target = j.get("target", "pair")
            sid = sentence_ids[int(j["sentence"])] if j.get("sentence") is not None else None
            aid = arc_ids[(int(j["sentence"]), int(j["arc"]))] if j.get("arc") is not None else None
            key = {"pair": "pair", "sentence": f"sentence:{sid}", "arc": f"arc:{aid}"}[target]
            judgment = Judgment(
                output_id=out.id,
                sentence_id=sid,
                arc_id=aid,
                target=target,
                target_key=key,
                aspect=j.get("aspect", "support"),
                label=str(j["label"]),
                decision=j.get("decision"),
                error_type=j.get("error_type"),
                note=j.get("note"),
                annotator=j.get("annotator") or annotator,
                created_at=datetime.fromisoformat(j["created_at"])
                if j.get("created_at")
                else now(),
                model_visible=bool(j.get("model_visible", True)),
                model_score=j.get("model_score"),
            )
            s.add(judgment)
            s.add(
                AuditEntry(
                    at=now(),
                    action="import",
                    key={
                        "output_id": out.id,
                        "target": target,
                        "sentence_id": sid,
                        "arc_id": aid,
                        "aspect": judgment.aspect,
                    },
                    before=None,
                    after={"label": judgment.label},
                    annotator=annotator,
                )
            )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InputError(
            f"malformed FactDesk analysis data ({exc!r})",
            field="analysis",
            path=str(path),
            line=rec.line,
        ) from exc


def _run_for(s: Session, name: str, block: dict[str, Any]) -> Run:
    version = str(block["version"])
    run = s.scalar(
        select(Run).where(Run.checker == name, Run.version == version, Run.status == "imported")
    )
    if run is None:
        run = Run(
            checker=name,
            version=version,
            display_name=str(block.get("display_name", name)),
            grain=str(block.get("grain", "sentence")),
            settings={"imported": True},
            started_at=now(),
            finished_at=now(),
            status="imported",
            scored=0,
        )
        s.add(run)
        s.flush()
    return run
