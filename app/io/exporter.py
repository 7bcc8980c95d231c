"""Exports: JSONL with everything (re-importable without loss), sentence CSV, DAE arc TSV, and
the FRANK and XSumFaith shapes (:mod:`app.io.dataset_formats`).

The DAE arc format has one line per judged output sentence, tab-separated: the input (evidence
text, `` [SEP] ``, the sentence), the sentence label, then four columns per arc: ``head-child``
word indices within the sentence, ``head_word child_word``, the label, and the entailment label
(1 entailed, 0 not entailed, -1 not judged). Arcs of a sentence judged supported count as
entailed.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args

from sqlalchemy import func, select

from app.io.bundles import PairBundle, iter_bundles, run_info, run_places
from app.io.dataset_formats import Verdicts, frank_record, xsumfaith_record
from app.io.output import write_atomically
from app.io.records import logical_id
from app.review.adjudication import final_labels
from app.store.project import Project
from app.store.schema import Output, PairScoreRow

ExportFormat = Literal["jsonl", "csv", "dae-arcs", "frank", "xsumfaith"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)


def parse_export_format(value: str) -> ExportFormat:
    """An export format name (from a user's choice) as an :data:`ExportFormat`.

    Raises:
        ValueError: for a name that is not one of :data:`EXPORT_FORMATS`.
    """
    for fmt in EXPORT_FORMATS:
        if value == fmt:
            return fmt
    raise ValueError(
        f"unknown export format {value!r}; expected one of {', '.join(EXPORT_FORMATS)}"
    )


# A cell a spreadsheet would run as a formula starts with one of these (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: Any) -> Any:
    """A CSV cell that no spreadsheet runs as a formula: text starting with ``= + - @``, tab or CR
    gets a leading single quote (the OWASP rule); numbers and other text are left as they are.
    """
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


# Characters that end a line for some reader (str.splitlines(), spreadsheets, Java's
# readLine()), and the tab that separates columns: none may appear inside a DAE-arcs field.
_RECORD_BREAKERS = str.maketrans(dict.fromkeys("\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", " "))


def tsv_field(text: str) -> str:
    """``text`` as one DAE-arcs field: every tab and line-ending character becomes a space."""
    return text.translate(_RECORD_BREAKERS)


def export(
    project: Project,
    out: str | Path,
    *,
    fmt: ExportFormat = "jsonl",
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write the project to ``out``; returns the number of records written.

    The file is written by :func:`app.io.output.write_atomically`: complete or not at all, only
    a regular file (a symbolic link is written through).

    Raises:
        InputError: ``out`` is a folder, device or FIFO, or cannot be written; nothing written.
        ProjectError: ``out`` is the project file or its -wal/-shm.
    """
    project.refuse_output(out)
    writer = {
        "jsonl": _jsonl,
        "csv": _csv,
        "dae-arcs": _dae,
        "frank": _per_pair(frank_record),
        "xsumfaith": _per_pair(xsumfaith_record),
    }[fmt]
    total = project.count_pairs()
    with write_atomically(out, what="the export") as fh:
        return writer(project, fh, total, progress)


def strict_json(record: dict[str, Any]) -> str:
    """The record as strict JSON: a NaN or infinite number (never valid JSON) becomes null."""
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(record), ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def pair_record(
    b: PairBundle, runs: dict[str, dict[str, Any]], places: dict[int, str] | None = None
) -> dict[str, Any]:
    """The JSONL export record of one pair; ``places``: run id -> where it ran (``runs_on``)."""
    sent_idx = {s.id: s.idx for s in b.sentences}
    arc_pos = {a.id: (sent_idx[a.sentence_id], a.idx) for a in b.arcs}
    checkers: dict[str, Any] = {}
    for name, (pair, sents, arcs) in b.scores.items():
        info = runs.get(name, {})
        sentence_scores = [
            {
                "index": sent_idx[sid],
                "score": row.score,
                "min_arc": row.min_arc,
                "evidence": row.evidence or [],
                "omitted": row.omitted,
                "not_checked": row.not_checked,
                "detail": row.detail,
            }
            for sid, row in sorted(sents.items(), key=lambda kv: sent_idx[kv[0]])
        ]
        checkers[name] = {
            "version": pair.version,
            "display_name": info.get("display_name", name),
            "grain": info.get("grain"),
            "score": pair.score,
            "sentences": sentence_scores,
            "arcs": [
                {"sentence": arc_pos[a][0], "index": arc_pos[a][1], "score": sc}
                for a, sc in sorted(arcs.items(), key=lambda kv: arc_pos[kv[0]])
            ],
            "not_checked": [
                {"sentence": s["index"], "reason": s["not_checked"]}
                for s in sentence_scores
                if s["not_checked"]
            ],
        }
        if pair.reason is not None:  # why the pair was not checked (a text over the limit)
            checkers[name]["reason"] = pair.reason
        where = (places or {}).get(pair.run_id)
        if where is not None:  # which device and precision computed these scores
            checkers[name]["runs_on"] = where
    record: dict[str, Any] = {
        "id": logical_id(b.output.external_id, b.output.system),
        "source": b.source.text,
        "output": b.output.text,
        "system": b.output.system,
    }
    if b.output.context is not None:
        record["context"] = b.output.context
    if b.output.meta:
        record["meta"] = b.output.meta
    if b.sentences:
        record["sentences"] = [
            {"index": s.idx, "start": s.start, "end": s.end, "text": s.text} for s in b.sentences
        ]
        record["source_sentences"] = [[s.start, s.end] for s in b.source_sentences]
        record["arcs"] = [
            {
                "sentence": sent_idx[a.sentence_id],
                "index": a.idx,
                "label": a.label,
                "head": a.head_idx,
                "child": a.child_idx,
                "head_span": [a.head_start, a.head_end],
                "child_span": [a.child_start, a.child_end],
                "head_text": a.head_text,
                "child_text": a.child_text,
            }
            for a in b.arcs
        ]
    record["checkers"] = checkers
    record["judgments"] = [
        {
            "target": j.target,
            "sentence": sent_idx.get(j.sentence_id) if j.sentence_id else None,
            "arc": arc_pos[j.arc_id][1] if j.arc_id else None,
            "aspect": j.aspect,
            "label": j.label,
            "decision": j.decision,
            "error_type": j.error_type,
            "note": j.note,
            "annotator": j.annotator,
            "role": j.role,
            "created_at": j.created_at.isoformat(),
            "model_visible": j.model_visible,
            "model_score": j.model_score,
            "model_score_from": [
                {"checker": c, "version": v} for c, v in b.score_sources.get(j.id, [])
            ],
        }
        for j in b.judgments
    ]
    # The label each item ends with: the adjudicated decision, else what the reviewers agree
    # on; items the reviewers dispute and nobody adjudicated are listed with label null.
    finals = final_labels(b.judgments)
    first: dict[tuple[str, str], Any] = {}
    for j in b.judgments:
        first.setdefault((j.target_key, j.aspect), j)
    record["final_labels"] = []
    for slot, final in sorted(finals.items(), key=lambda kv: first[kv[0]].id):
        j = first[slot]
        record["final_labels"].append(
            {
                "target": j.target,
                "sentence": sent_idx.get(j.sentence_id) if j.sentence_id else None,
                "arc": arc_pos[j.arc_id][1] if j.arc_id else None,
                "aspect": slot[1],
                "label": final.label,
                "from": final.source,
                "annotator": None if final.judgment is None else final.judgment.annotator,
            }
        )
    return record


def _jsonl(project: Project, fh: Any, total: int, progress: Any) -> int:
    runs, places = run_info(project), run_places(project)
    n = 0
    for b in iter_bundles(project):
        fh.write(strict_json(pair_record(b, runs, places)))
        fh.write("\n")
        n += 1
        if progress is not None and n % 1000 == 0:
            progress(n, total)
    return n


def _per_pair(
    record: Callable[[PairBundle, Verdicts], dict[str, Any]],
) -> Callable[[Project, Any, int, Any], int]:
    """A writer of one JSON record per pair (the FRANK and XSumFaith shapes)."""

    def write(project: Project, fh: Any, total: int, progress: Any) -> int:
        verdicts = Verdicts(project)
        n = 0
        for b in iter_bundles(project):
            fh.write(strict_json(record(b, verdicts)))
            fh.write("\n")
            n += 1
            if progress is not None and n % 1000 == 0:
                progress(n, total)
        return n

    return write


def _csv(project: Project, fh: Any, total: int, progress: Any) -> int:
    runs = run_info(project)
    names = sorted(runs)
    writer = csv.writer(fh)
    header = ["pair_id", "system", "sentence", "start", "end", "text"]
    for name in names:
        header += [f"{name}_score", f"{name}_min_arc", f"{name}_evidence", f"{name}_not_checked"]
        header.append(f"{name}_detail")
    header += ["label", "decision", "error_type", "note", "annotator", "model_visible"]
    header += ["model_score", "model_score_from", "final_from", "reviewer_labels"]
    writer.writerow([spreadsheet_safe(c) for c in header])
    n = 0
    for b in iter_bundles(project):
        if not b.sentences:  # never parsed (not analysed, or not checked as a whole): one row
            whole: list[Any] = [logical_id(b.output.external_id, b.output.system)]
            whole += [b.output.system or "", "", "", "", b.output.text]
            for name in names:
                whole += ["", "", "", b.left_out(name) or "", ""]
            whole += [""] * 10
            writer.writerow([spreadsheet_safe(c) for c in whole])
            n += 1
            continue
        finals = final_labels(b.judgments)
        votes: dict[int | None, list[str]] = {}
        for vote in b.judgments:
            if vote.target == "sentence" and vote.aspect == "support" and vote.role == "review":
                votes.setdefault(vote.sentence_id, []).append(f"{vote.annotator}: {vote.label}")
        for s in b.sentences:
            row: list[Any] = [
                logical_id(b.output.external_id, b.output.system),
                b.output.system or "",
                s.idx,
                s.start,
                s.end,
                s.text,
            ]
            for name in names:
                sc = b.scores.get(name, (None, {}, {}))[1].get(s.id)
                # a pair left out whole says why on each of its sentences
                why = b.left_out(name) if sc is None else sc.not_checked
                row += [
                    "" if sc is None or sc.score is None else f"{sc.score:.4f}",
                    "" if sc is None or sc.min_arc is None else f"{sc.min_arc:.4f}",
                    "" if sc is None else " ".join(map(str, sc.evidence or [])),
                    why or "",
                    "" if sc is None or sc.detail is None else sc.detail,
                ]
            final = finals.get((f"sentence:{s.id}", "support"))
            j: Any = None if final is None else final.judgment
            row += (
                [
                    j.label,
                    j.decision or "",
                    j.error_type or "",
                    j.note or "",
                    j.annotator,
                    int(j.model_visible),
                    "" if j.model_score is None else f"{j.model_score:.4f}",
                    "; ".join(f"{c} {v}" for c, v in b.score_sources.get(j.id, [])),
                ]
                if j
                else [""] * 8
            )
            row += ["" if final is None else final.source, "; ".join(votes.get(s.id, []))]
            writer.writerow([spreadsheet_safe(c) for c in row])
            n += 1
    return n


def not_analysed(project: Project) -> int:
    """Pairs never analysed: no sentences and no result from any checker (the CSV export has
    one row with empty scores for each, the JSONL export a record without scores)."""
    with project.session() as s:
        analysed = select(PairScoreRow.output_id).where(PairScoreRow.finished())
        return (
            s.scalar(
                select(func.count(Output.id)).where(
                    Output.parsed.is_(False), Output.id.not_in(analysed)
                )
            )
            or 0
        )


def _dae(project: Project, fh: Any, total: int, progress: Any) -> int:
    n = 0
    for b in iter_bundles(project):
        # Final labels: adjudicated, else agreed by the reviewers; disputed items count as
        # not judged.
        finals = [
            f.judgment
            for (_key, aspect), f in final_labels(b.judgments).items()
            if aspect == "support" and f.judgment is not None
        ]
        if not finals or not b.sentences:
            continue
        pair_label = next((j.label for j in finals if j.target == "pair"), None)
        sent_label = {j.sentence_id: j.label for j in finals if j.target == "sentence"}
        arc_label = {j.arc_id: j.label for j in finals if j.target == "arc"}
        evidence = _evidence_by_sentence(b)
        for s in b.sentences:
            label = sent_label.get(s.id) or (pair_label if pair_label == "supported" else None)
            arcs = [a for a in b.arcs if a.sentence_id == s.id]
            if label is None and not any(a.id in arc_label for a in arcs):
                continue
            cols = [tsv_field(f"{evidence.get(s.id) or b.source.text} [SEP] {s.text}")]
            cols.append({"supported": "1", "unsupported": "0"}.get(label or "", "-1"))
            for a in arcs:
                lab = arc_label.get(a.id) or ("supported" if label == "supported" else None)
                cols += [
                    f"{a.head_idx}-{a.child_idx}",
                    tsv_field(f"{a.head_text} {a.child_text}"),
                    tsv_field(a.label),
                    {"supported": "1", "unsupported": "0"}.get(lab or "", "-1"),
                ]
            fh.write("\t".join(cols) + "\n")
            n += 1
    return n


def _evidence_by_sentence(b: PairBundle) -> dict[int, str]:
    """Evidence text for each sentence from the first checker that recorded evidence."""
    out: dict[int, str] = {}
    for _pair, sents, _arcs in b.scores.values():
        for sid, row in sents.items():
            if sid not in out and row.evidence:
                picked = [
                    b.source_sentences[i] for i in row.evidence if i < len(b.source_sentences)
                ]
                if picked and len(picked) < len(b.source_sentences):
                    out[sid] = " ".join(p.text for p in picked)
    return out
