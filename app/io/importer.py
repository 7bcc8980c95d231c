"""Importing pair files into a project: all or nothing, duplicates reported, never doubled.

A file is validated completely before anything is written, then written in one transaction, so a
bad record means nothing of the file is imported (unless the user asks to skip invalid records,
in which case each skipped record is reported with its reason). Records exported by FactDesk
carry their sentences, arcs, scores and judgments, and these are restored. Two imports into one
project at the same time take turns: the second waits for the first to commit (up to the
store's lock timeout, then it is refused as locked) and finds its pairs as duplicates.
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
    text_hash,
)
from app.io.restore import write_analysis
from app.store.project import Project, now
from app.store.schema import (
    Output,
    SentenceRow,
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
    max_line_bytes: int | None = None,
    max_file_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import one file. Raises :class:`InputError` (and imports nothing) on bad input.

    The limits are :func:`~app.io.records.read_pairs`'s (None: its defaults).
    """
    read = read_pairs(
        path,
        fmt=fmt,
        mapping=mapping,
        skip_invalid=skip_invalid,
        max_field_chars=max_field_chars,
        max_line_bytes=max_line_bytes,
        max_file_bytes=max_file_bytes,
    )
    report = ImportReport(str(path), skipped=read.invalid)
    write_records(project, path, read.records, report, skip_invalid, progress)
    return report


@dataclass(frozen=True)
class AddedPair:
    """What :func:`add_pair` did: the pair in the project that holds the texts, and whether it
    was added now (False: the same texts were there already; ``report`` says as what)."""

    report: ImportReport
    external_id: str
    output_id: int
    added: bool


def add_pair(project: Project, record: PairRecord, where: str) -> AddedPair:
    """Add one pair (:func:`app.io.text_pair.text_record`) as an import of one record would:
    a pair already in the project with the same texts, context and system is not added again.

    ``where`` names where the texts came from, for messages (the two files, or "pasted text").

    Raises:
        InputError: the record's id is another pair's, with other texts (nothing is added).
    """
    report = ImportReport(where)
    write_records(project, where, [record], report, False)
    if report.duplicates and report.duplicates[0].conflict:
        raise InputError(
            f"the id '{record.external_id}' is another pair's in this project (its source, "
            "output or question differs); nothing was added: give another id, or none for one "
            "made from the texts",
            path=where,
            field="id",
        )
    system = Output.system.is_(None) if record.system is None else Output.system == record.system
    context = (
        Output.context.is_(None) if record.context is None else Output.context == record.context
    )
    with project.session() as s:
        row = s.execute(
            select(Output.id, Output.external_id)
            .where(Output.content_hash == record.content_hash, system, context)
            .order_by(Output.id)
        ).first()
    if row is None:  # written or found above, in this process: another one removed it since
        raise InputError("the pair was removed from the project as it was added", path=where)
    output_id, stored = row
    return AddedPair(report, logical_id(stored, record.system), output_id, not report.duplicates)


def write_records(
    project: Project,
    path: str | Path,
    records: list[PairRecord],
    report: ImportReport,
    skip_invalid: bool,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Write the records that are not duplicates in one transaction; ``report`` gets the
    duplicates, the records skipped (with ``skip_invalid``) and the count written."""
    # The duplicate checks and the writes are one step under the write lock: an import (or
    # merge, or analysis) of this project in another process waits for it, then sees its pairs.
    with project.write_session() as s:
        fresh = _new_records(s, path, records, report, skip_invalid)
        fresh = _consistent_source_sentences(s, path, fresh, report, skip_invalid)
        sources = _insert_sources(project, s, [r for r, _key in fresh])
        stamp = now()
        total = len(fresh)
        for lo in range(0, total, BATCH):
            chunk = fresh[lo : lo + BATCH]
            plain = [(r, key) for r, key in chunk if r.analysis is None]
            project.bulk_insert(
                s, Output, (_output_row(r, key, sources, stamp) for r, key in plain)
            )
            for rec, key in chunk:
                if rec.analysis is not None:
                    out = Output(**_output_row(rec, key, sources, stamp))
                    s.add(out)
                    s.flush()
                    write_analysis(
                        s,
                        out,
                        sources[rec.source_hash],
                        rec.source,
                        rec.analysis,
                        project.annotator,
                    )
                    report.restored_pairs += 1
            if progress is not None:
                progress(min(lo + BATCH, total), total)
        report.imported = total


#: How an id made from a record's texts (it had none) begins.
AUTO_ID = "auto-"
#: What makes two pairs the same pair: their texts' hash (source and output) and context.
Texts = tuple[str, str | None]


def _auto_id(rec: PairRecord) -> str:
    """The id of a record without one, from its texts (and its context, when it has one)."""
    h = rec.content_hash
    if rec.context is not None:
        h = text_hash(f"{h}\x00{rec.context}")
    return f"{AUTO_ID}{h[:16]}"


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
    output, context and system, is already in the project or earlier in the file. Outputs of
    several systems for one document id are different pairs, and so are one answer's pairs
    for different questions (a passage answered "No." to two questions).
    """
    # (id, system) -> (where, texts); (texts, system) -> (where, id); texts: content_key()
    by_key: dict[tuple[str, str | None], tuple[str, Texts]] = {}
    by_content: dict[tuple[Texts, str | None], tuple[str, str]] = {}
    taken: set[str] = set()
    for stored, system, h, context in s.execute(
        select(Output.external_id, Output.system, Output.content_hash, Output.context)
    ):
        ext = logical_id(stored, system)
        by_key[(ext, system)] = ("a pair already in the project", (h, context))
        by_content.setdefault(((h, context), system), ("a pair already in the project", ext))
        taken.add(stored)
    fresh: list[tuple[PairRecord, str]] = []
    for rec in records:
        texts = (rec.content_hash, rec.context)
        ext = rec.external_id or _auto_id(rec)
        system = rec.system
        if rec.external_id is not None and (ext, system) in by_key:
            where, other = by_key[(ext, system)]
            differs = other != texts
            said = (
                "source, output or context"
                if rec.context is not None or other[1] is not None
                else "source or output"
            )
            report.duplicates.append(
                Problem(
                    rec.line,
                    "id",
                    f"same id and {_system_text(system)} as {where}"
                    + (f"; its {said} differs, the first is kept" if differs else ""),
                    ext,
                    conflict=differs,
                )
            )
            continue
        if (texts, system) in by_content:
            where, other_id = by_content[(texts, system)]
            named = f" (id '{other_id}')" if other_id != ext else ""
            said = "source, output, context" if rec.context is not None else "source, output"
            report.duplicates.append(
                Problem(
                    rec.line,
                    None,
                    f"same {said} and {_system_text(system)} as {where}{named}",
                    rec.external_id,
                )
            )
            continue
        key = ext
        if key in taken or logical_id(key, system) != key:
            key = stored_id(ext, system)
            if key in taken:
                err = InputError(
                    f"cannot store the id '{ext}' for {_system_text(system)}: it is stored as "
                    f"'{key}' when another system has it, and '{key}' is another pair's id; "
                    "give this record another id",
                    path=str(path),
                    line=rec.line,
                    field="id",
                )
                if not skip_invalid:
                    raise err
                report.skipped.append(Problem(rec.line, "id", err.reason, rec.external_id))
                continue
        where = f"line {rec.line} of this file"
        by_key[(ext, system)] = (where, texts)
        by_content.setdefault((texts, system), (where, ext))
        taken.add(key)
        fresh.append((rec, key))
    return fresh


def _consistent_source_sentences(
    s: Session,
    path: str | Path,
    fresh: list[tuple[PairRecord, str]],
    report: ImportReport,
    skip_invalid: bool,
) -> list[tuple[PairRecord, str]]:
    """Drop (or refuse) restored records whose source sentences differ from the source's own.

    Pairs share their source, and so its sentences: evidence numbers in a record point into the
    source sentences it brings, so they must be the ones the project has (or an earlier record
    of the file brings) for that source.
    """
    hashes = {
        rec.source_hash for rec, _key in fresh if rec.analysis and rec.analysis.source_sentences
    }
    known: dict[str, tuple[tuple[int, int], ...]] = {}
    if hashes:
        rows = s.execute(
            select(Source.text_hash, SentenceRow.start, SentenceRow.end)
            .join(SentenceRow, SentenceRow.source_id == Source.id)
            .where(Source.text_hash.in_(hashes))
            .order_by(Source.id, SentenceRow.idx)
        )
        spans: dict[str, list[tuple[int, int]]] = {}
        for h, start, end in rows:
            spans.setdefault(h, []).append((start, end))
        known = {h: tuple(v) for h, v in spans.items()}
    kept: list[tuple[PairRecord, str]] = []
    for rec, key in fresh:
        mine = rec.analysis.source_sentences if rec.analysis else ()
        theirs = known.setdefault(rec.source_hash, mine) if mine else None
        if mine and theirs != mine:
            err = InputError(
                "malformed FactDesk analysis data: these source sentences differ from those "
                "the project already has for the same source (analysed by another version?)",
                path=str(path),
                line=rec.line,
                field="source_sentences",
            )
            if not skip_invalid:
                raise err
            report.skipped.append(Problem(rec.line, err.field, err.reason, rec.external_id))
            continue
        kept.append((rec, key))
    return kept


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
