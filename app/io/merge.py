"""Merge reviewers' judgments from other project files or JSONL exports into one project.

Two reviewers judge the same pairs in their own copies of a project; :func:`merge` brings the
judgments of the copies (or of their JSONL exports, :mod:`app.io.exporter`'s format) into the
target project. A pair is matched by its id (and system) *and* the content hash of its source
and output, so a pair whose text changed is never given another text's judgments; sentence and
arc judgments also need the same sentence spans and arcs in the target.

Nothing is overwritten or doubled: a judgment the target already holds (same reviewer, role,
item and decision) counts as present, so merging again adds nothing. Judgments by other
reviewers are added beside the target's. Where the *same* reviewer name judged one item
differently in the two files, the incoming judgment is kept under ``"name (label)"``: a
separate reviewer, nothing lost.

A source is known by its content, not its name: a digest of its pairs, their sentence spans and
arcs, and its judgments (:func:`content_id`). The target records each source it merged (setting
``merged_sources``) with its *label*, the file name it was first merged under, so the same
content under another name (a copy, a link, a re-export) gets the same label and adds nothing
again, and a different file with a name already used gets a label of its own (``"bob.jsonl
#2"``). One source given twice in one merge is merged once. The whole merge is one transaction:
a merge that fails leaves the target as it was.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.io.importer import AUTO_ID
from app.io.records import content_hash, logical_id, read_pairs
from app.io.restore import (
    ANALYSIS_FIELDS,
    Analysis,
    AnalysisError,
    add_judgment,
    parse_analysis,
)
from app.store import db
from app.store.project import Project, now
from app.store.schema import ArcRow, Judgment, Output, SentenceRow, Setting
from models.errors import InputError, ProjectError

SQLITE_MAGIC = b"SQLite format 3\x00"
MERGED_SOURCES = "merged_sources"  # setting: content id -> {"file", "label", "at"}

# A judgment's identity in a project and its decision.
_Key = tuple[int, str, str, str, str]  # output id, target key, aspect, annotator, role
_Decision = tuple[str, str | None, str | None, str | None]  # label, decision, error type, note


@dataclass
class Unmatched:
    """A pair or judgment of an incoming file that was not merged, and why."""

    where: str  # "line 7" (JSONL) or "pair p12" (project file)
    id: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "id": self.id, "reason": self.reason}


@dataclass
class Renamed:
    """A conflict: the same reviewer name judged one item differently in the two files."""

    where: str
    id: str
    item: str
    reviewer: str
    kept_as: str

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "id": self.id,
            "item": self.item,
            "reviewer": self.reviewer,
            "kept_as": self.kept_as,
        }


@dataclass
class FileReport:
    """What one incoming file brought."""

    file: str
    kind: str  # "project" or "jsonl"
    content_id: str = ""
    label: str = ""  # names this source's reviewers in conflicts and unnamed judgments
    same_as: str | None = None  # given twice in this merge: the file merged instead
    merged_before: dict[str, str] | None = None  # {"file", "label", "at"} of an earlier merge
    pairs: int = 0
    pairs_matched: int = 0
    judgments_new: int = 0
    judgments_present: int = 0
    reviewers: set[str] = field(default_factory=set)
    renamed: list[Renamed] = field(default_factory=list)
    unmatched_pairs: list[Unmatched] = field(default_factory=list)
    unmatched_judgments: list[Unmatched] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "kind": self.kind,
            "content_id": self.content_id,
            "label": self.label,
            "same_as": self.same_as,
            "merged_before": self.merged_before,
            "pairs": self.pairs,
            "pairs_matched": self.pairs_matched,
            "judgments_new": self.judgments_new,
            "judgments_present": self.judgments_present,
            "reviewers": sorted(self.reviewers),
            "conflicts_kept_as_separate_reviewers": [r.to_json() for r in self.renamed],
            "unmatched_pairs": [u.to_json() for u in self.unmatched_pairs],
            "unmatched_judgments": [u.to_json() for u in self.unmatched_judgments],
        }


@dataclass
class MergeReport:
    target: str
    files: list[FileReport] = field(default_factory=list)

    @property
    def judgments_new(self) -> int:
        return sum(f.judgments_new for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "judgments_new": self.judgments_new,
            "judgments_present": sum(f.judgments_present for f in self.files),
            "files": [f.to_json() for f in self.files],
        }

    def text(self, limit: int = 20) -> str:
        """The report for people: one block per file, problems with file and line or pair id."""
        lines = [f"merged into {self.target}: {self.judgments_new} new judgments"]
        for f in self.files:
            if f.same_as is not None:
                lines.append(f"{f.file}: the same content as {f.same_as}; not merged twice")
                continue
            lines.append(
                f"{f.file} ({f.kind}): {f.pairs_matched} of {f.pairs} pairs matched; "
                f"{f.judgments_new} judgments new, {f.judgments_present} already present"
                + (f"; reviewers: {', '.join(sorted(f.reviewers))}" if f.reviewers else "")
            )
            if f.merged_before is not None:
                before = f.merged_before
                lines.append(
                    f"  already merged on {before['at'][:16].replace('T', ' ')} "
                    f"(the same content, as {before['file']})"
                    + ("; nothing new" if f.judgments_new == 0 else "")
                )
            elif f.label != Path(f.file).name:
                lines.append(
                    f"  another file named {Path(f.file).name} was merged before: this one is "
                    f"labelled {f.label!r}"
                )
            for r in f.renamed[:limit]:
                named = r.where if r.id in r.where else f"{r.where} ({r.id})"
                lines.append(
                    f"  {f.file}, {named}, {r.item}: {r.reviewer} judged it differently "
                    f"in the target; kept as reviewer {r.kept_as!r}"
                )
            for title, items in (
                ("pairs not matched", f.unmatched_pairs),
                ("judgments not matched", f.unmatched_judgments),
            ):
                if items:
                    lines.append(f"  {len(items)} {title}:")
                    lines += [
                        f"    {f.file}, {u.where}"
                        + (f" ({u.id})" if u.id and u.id not in u.where else "")
                        + f": {u.reason}"
                        for u in items[:limit]
                    ]
                    if len(items) > limit:
                        lines.append(f"    ... and {len(items) - limit} more (see --json)")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Incoming:
    """One pair of an incoming file, checked: its texts and its analysis block."""

    where: str
    id: str
    system: str | None
    source: str
    output: str
    analysis: Analysis


def merge(
    project: Project, others: Sequence[str | Path], *, unnamed: str | None = None
) -> MergeReport:
    """Merge the judgments of ``others`` (project files or JSONL exports) into ``project``.

    Every file is read and checked before anything is written; the writes are one transaction.
    The audit log names ``project.annotator`` as who merged.

    Args:
        project: the target.
        others: the files to merge from.
        unnamed: the reviewer of incoming judgments that name none (JSONL written by other
            tools); None: ``"unnamed (file name)"``, a reviewer of their own per file.

    Raises:
        InputError: a file that cannot be read as a whole (missing, not JSONL, empty).
        ProjectError: a project file that cannot be opened, or the target itself.
    """
    report = MergeReport(str(project.path))
    loaded: list[tuple[FileReport, list[_Incoming]]] = []
    for other in others:
        path = Path(other)
        if path.exists() and path.samefile(project.path):
            raise ProjectError(f"{path}: this is the target project itself; merge other files.")
        if path.is_dir():
            raise InputError(
                "is a folder; give a project file or a JSONL export to merge", path=str(path)
            )
        if not path.is_file():
            raise InputError("no such file; check the name", path=str(path))
        if _is_project_file(path):
            file_report = FileReport(str(path), "project")
            incoming = _project_pairs(path, file_report)
        else:
            file_report = FileReport(str(path), "jsonl")
            incoming = _jsonl_pairs(path, file_report)
        file_report.pairs += len(incoming)
        file_report.content_id = content_id(incoming)
        loaded.append((file_report, incoming))
    with project.write_session() as s:
        targets = _target_pairs(s)
        existing = _existing_judgments(s)
        row = s.get(Setting, MERGED_SOURCES)
        sources: dict[str, dict[str, str]] = {}
        if row is not None and isinstance(row.value, dict):
            sources = dict(row.value)
        merged_now: dict[str, str] = {}
        for file_report, incoming in loaded:
            report.files.append(file_report)
            cid = file_report.content_id
            if cid in merged_now:
                file_report.same_as = merged_now[cid]
                continue
            merged_now[cid] = file_report.file
            if cid in sources:
                file_report.merged_before = sources[cid]
            else:
                sources[cid] = {
                    "file": file_report.file,
                    "label": _free_label(Path(file_report.file).name, sources),
                    "at": now().isoformat(timespec="seconds"),
                }
            file_report.label = sources[cid]["label"]
            for pair in incoming:
                _merge_pair(s, project, pair, targets, existing, file_report, unnamed)
            if file_report.kind == "jsonl":  # in file order: "line 3" before "line 12"
                file_report.unmatched_pairs.sort(key=lambda u: int(u.where.split()[1]))
        s.merge(Setting(key=MERGED_SOURCES, value=sources))
    return report


def content_id(incoming: Sequence[_Incoming]) -> str:
    """What a source brings, as a digest: its pairs (id, system, texts), their sentence spans and
    arcs, and its judgments; in no particular order, and whatever the file is called."""
    items = sorted(
        json.dumps(
            [
                pair.id,
                pair.system,
                content_hash(pair.source, pair.output),
                [dataclasses.astuple(d) for d in pair.analysis.sentences],
                [dataclasses.astuple(a) for a in pair.analysis.arcs],
                sorted(
                    json.dumps(dataclasses.astuple(j), default=str) for j in pair.analysis.judgments
                ),
            ],
            default=str,
        )
        for pair in incoming
    )
    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()


def _free_label(name: str, sources: dict[str, dict[str, str]]) -> str:
    """``name``, or ``name #2``, ``#3``... when another source already has that label."""
    used = {s.get("label") for s in sources.values()}
    label, n = name, 1
    while label in used:
        n += 1
        label = f"{name} #{n}"
    return label


# ---------------------------------------------------------------------- reading
def _is_project_file(path: Path) -> bool:
    if path.suffix == db.SUFFIX:
        return True
    with path.open("rb") as fh:
        return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def _project_pairs(path: Path, file_report: FileReport) -> list[_Incoming]:
    """The pairs of another project file, read from a private copy (the file is not touched,
    even when its schema is older than this version's)."""
    from app.io.bundles import iter_bundles, run_info
    from app.io.exporter import pair_record

    # In memory: a killed merge leaves no copy anywhere, and every error names the user's file.
    with Project(path, db.open_copy(path), read_only=True) as other:
        runs = run_info(other)
        pairs = []
        for bundle in iter_bundles(other):
            record = pair_record(bundle, runs)
            where = f"pair {record['id']}" + (
                f" of system {record['system']}" if record["system"] else ""
            )
            block = {k: record[k] for k in ANALYSIS_FIELDS if k in record}
            try:
                analysis = parse_analysis(block, record["source"], record["output"])
            except AnalysisError as exc:
                file_report.unmatched_pairs.append(Unmatched(where, record["id"], str(exc)))
                continue
            pairs.append(
                _Incoming(
                    where,
                    record["id"],
                    record["system"],
                    record["source"],
                    record["output"],
                    analysis,
                )
            )
    return pairs


def _jsonl_pairs(path: Path, file_report: FileReport) -> list[_Incoming]:
    """The records of a JSONL export; a record that cannot be used is reported, not merged."""
    read = read_pairs(path, fmt="jsonl", skip_invalid=True)
    for problem in read.invalid:
        where = f"line {problem.line}"
        field_note = f"field '{problem.field}': " if problem.field else ""
        file_report.unmatched_pairs.append(
            Unmatched(where, problem.id, f"{field_note}{problem.reason}")
        )
    out: list[_Incoming] = []
    for rec in read.records:
        where = f"line {rec.line}"
        if rec.external_id is None:
            file_report.unmatched_pairs.append(
                Unmatched(where, None, "the record has no id to match a pair by")
            )
            continue
        analysis = rec.analysis if rec.analysis is not None else Analysis()
        out.append(_Incoming(where, rec.external_id, rec.system, rec.source, rec.output, analysis))
    return out


# ---------------------------------------------------------------------- writing
@dataclass
class _Target:
    output_id: int
    content_hash: str
    sentences: dict[int, tuple[int, int, int]] | None = None  # idx -> (id, start, end)
    arcs: dict[tuple[int, int], tuple[int, str, int, int]] | None = None


@dataclass
class _Targets:
    """The target's pairs by (id as imported, system), and by (texts' hash, system) where one
    pair has those texts."""

    by_id: dict[tuple[str, str | None], _Target]
    by_texts: dict[tuple[str, str | None], _Target]

    def find(self, pair: _Incoming) -> _Target | None:
        """The target's pair for an incoming one: by its id and system; an id made from the
        texts (``auto-…``) also by its texts, since such ids were made from the texts alone
        before the question counted in them (an older project's export names its question
        pairs by ids a project imported since does not have)."""
        target = self.by_id.get((pair.id, pair.system))
        if target is None and pair.id.startswith(AUTO_ID):
            target = self.by_texts.get((content_hash(pair.source, pair.output), pair.system))
        return target


def _target_pairs(s: Session) -> _Targets:
    rows = s.execute(select(Output.id, Output.external_id, Output.system, Output.content_hash))
    by_id: dict[tuple[str, str | None], _Target] = {}
    held: dict[tuple[str, str | None], list[_Target]] = {}
    for oid, ext, system, chash in rows:
        target = _Target(oid, chash)
        by_id[(logical_id(ext, system), system)] = target
        held.setdefault((chash, system), []).append(target)
    return _Targets(by_id, {key: ts[0] for key, ts in held.items() if len(ts) == 1})


def _existing_judgments(s: Session) -> dict[_Key, _Decision]:
    rows = s.execute(
        select(
            Judgment.output_id,
            Judgment.target_key,
            Judgment.aspect,
            Judgment.annotator,
            Judgment.role,
            Judgment.label,
            Judgment.decision,
            Judgment.error_type,
            Judgment.note,
        )
    )
    return {tuple(r[:5]): tuple(r[5:]) for r in rows}  # type: ignore[misc]


def _load_structure(s: Session, target: _Target) -> None:
    if target.sentences is not None:
        return
    sents = s.execute(
        select(SentenceRow.id, SentenceRow.idx, SentenceRow.start, SentenceRow.end).where(
            SentenceRow.output_id == target.output_id
        )
    ).all()
    target.sentences = {idx: (sid, start, end) for sid, idx, start, end in sents}
    idx_of = {sid: idx for sid, idx, _s, _e in sents}
    arcs = s.execute(
        select(ArcRow.id, ArcRow.sentence_id, ArcRow.idx, ArcRow.label, ArcRow.head_idx)
        .add_columns(ArcRow.child_idx)
        .where(ArcRow.sentence_id.in_(list(idx_of)))
    ).all()
    target.arcs = {
        (idx_of[sid], idx): (aid, label, head, child) for aid, sid, idx, label, head, child in arcs
    }


def _merge_pair(
    s: Session,
    project: Project,
    pair: _Incoming,
    targets: _Targets,
    existing: dict[_Key, _Decision],
    report: FileReport,
    unnamed: str | None = None,
) -> None:
    system = f" (system {pair.system})" if pair.system else ""
    target = targets.find(pair)
    if target is None:
        report.unmatched_pairs.append(
            Unmatched(pair.where, pair.id, f"no pair with this id{system} in the target")
        )
        return
    if content_hash(pair.source, pair.output) != target.content_hash:
        report.unmatched_pairs.append(
            Unmatched(
                pair.where,
                pair.id,
                f"the source or output differs from the target's pair{system} (content hash)",
            )
        )
        return
    report.pairs_matched += 1
    _load_structure(s, target)
    assert target.sentences is not None and target.arcs is not None
    spans = {d.index: (d.start, d.end) for d in pair.analysis.sentences}
    arcs = {(a.sentence, a.index): (a.label, a.head, a.child) for a in pair.analysis.arcs}
    file_name = report.label or Path(report.file).name
    for n, j in enumerate(pair.analysis.judgments):
        item = _item_text(j.target, j.sentence, j.arc)
        sentence_id = arc_id = None
        if j.sentence is not None:
            found = target.sentences.get(j.sentence)
            if found is None or (found[1], found[2]) != spans.get(j.sentence):
                report.unmatched_judgments.append(
                    Unmatched(
                        f"{pair.where}, judgments[{n}]",
                        pair.id,
                        f"{item}: the target has no sentence {j.sentence} with the same span "
                        "(analyse the target first, or it was split differently)",
                    )
                )
                continue
            sentence_id = found[0]
        if j.arc is not None and j.sentence is not None:
            arc = target.arcs.get((j.sentence, j.arc))
            if arc is None or arc[1:] != arcs.get((j.sentence, j.arc)):
                report.unmatched_judgments.append(
                    Unmatched(
                        f"{pair.where}, judgments[{n}]",
                        pair.id,
                        f"{item}: the target has no such arc (same label, head and child)",
                    )
                )
                continue
            arc_id = arc[0]
        target_key = {
            "pair": "pair",
            "sentence": f"sentence:{sentence_id}",
            "arc": f"arc:{arc_id}",
        }[j.target]
        reviewer = j.annotator or unnamed or f"unnamed ({file_name})"
        decision: _Decision = (j.label, j.decision, j.error_type, j.note)
        key: _Key = (target.output_id, target_key, j.aspect, reviewer, j.role)
        held = existing.get(key)
        if held is not None and held != decision:
            # The same name judged this item differently in the target: keep both, the
            # incoming one as a separate reviewer named after its file.
            renamed = f"{reviewer} ({file_name})"
            key = (target.output_id, target_key, j.aspect, renamed, j.role)
            report.renamed.append(Renamed(pair.where, pair.id, item, reviewer, renamed))
            reviewer = renamed
            held = existing.get(key)
            if held is not None and held != decision:
                report.unmatched_judgments.append(
                    Unmatched(
                        f"{pair.where}, judgments[{n}]",
                        pair.id,
                        f"{item}: {renamed} already holds a different decision in the target",
                    )
                )
                continue
        report.reviewers.add(reviewer)
        if held is not None:
            report.judgments_present += 1
            continue
        add_judgment(
            s,
            j,
            output_id=target.output_id,
            sentence_id=sentence_id,
            arc_id=arc_id,
            target_key=target_key,
            reviewer=reviewer,
            action="merge",
            by=project.annotator,
            origin=report.file,
        )
        existing[key] = decision
        report.judgments_new += 1


def _item_text(target: str, sentence: int | None, arc: int | None) -> str:
    if target == "pair":
        return "the pair"
    if target == "sentence":
        return f"sentence {sentence}"
    return f"arc {arc} of sentence {sentence}"
