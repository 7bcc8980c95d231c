"""The analysis block of a FactDesk-format record: checked whole, then written.

FactDesk's JSONL export carries each pair's sentences, arcs, checker scores and judgments.
:func:`parse_analysis` turns that block into typed values and refuses anything the store or the
window could not use (wrong types, spans outside the text, references to sentences or arcs that
are not there, unknown labels, two judgments on one target) with the field and the place named,
so that a crafted or damaged file is refused, or its record skipped, before anything is written.
:func:`write_analysis` then stores the checked values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, get_args

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.judging import (
    DECISIONS,
    FLAG_LABELS,
    INTERPRETABLE_LABELS,
    ROLES,
    SUPPORT_LABELS,
    Aspect,
    Target,
)
from app.store.project import now
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
)
from app.terminal import bad_character
from models.checkers.base import Grain

# Fields written by FactDesk's own JSONL export; restored on re-import, never kept as metadata.
ANALYSIS_FIELDS = (
    "source_sentences",
    "sentences",
    "arcs",
    "checkers",
    "judgments",
    "not_checked",
    # derived from the judgments on export (app.review.adjudication); not read back, never metadata
    "final_labels",
)
LABELS: dict[str, tuple[str, ...]] = {
    "support": SUPPORT_LABELS,
    "interpretable": INTERPRETABLE_LABELS,
    "flag": FLAG_LABELS,
}
TARGETS: tuple[str, ...] = get_args(Target)
ASPECTS: tuple[str, ...] = get_args(Aspect)
GRAINS: tuple[str, ...] = get_args(Grain)
_BIG = 1_000_000_000  # no count or index in a record comes near this


class AnalysisError(ValueError):
    """A malformed analysis block: ``field`` is the record's field, the message says where."""

    def __init__(self, field: str, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.field = field


@dataclass(frozen=True, slots=True)
class SentenceData:
    index: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ArcData:
    sentence: int
    index: int
    label: str
    head: int
    child: int
    head_span: tuple[int, int]
    child_span: tuple[int, int]
    head_text: str
    child_text: str


@dataclass(frozen=True, slots=True)
class SentenceScoreData:
    index: int
    score: float | None
    min_arc: float | None
    evidence: tuple[int, ...]
    omitted: int
    not_checked: str | None
    detail: str | None = None  # absent from exports made before details existed


@dataclass(frozen=True, slots=True)
class ArcScoreData:
    sentence: int
    index: int
    score: float


@dataclass(frozen=True, slots=True)
class CheckerData:
    name: str
    version: str
    display_name: str
    grain: str
    score: float | None
    not_checked: int
    sentences: tuple[SentenceScoreData, ...]
    arcs: tuple[ArcScoreData, ...]
    runs_on: str | None = None  # where the scores were computed ("cpu int8"), when recorded
    reason: str | None = None  # why the pair was not checked, when it was not


@dataclass(frozen=True, slots=True)
class JudgmentData:
    target: str
    sentence: int | None
    arc: int | None
    aspect: str
    label: str
    decision: str | None
    error_type: str | None
    note: str | None
    annotator: str | None
    created_at: datetime | None
    model_visible: bool
    model_score: float | None
    role: str = "review"


@dataclass(frozen=True, slots=True)
class Analysis:
    """A checked analysis block; every reference in it points at something in it."""

    sentences: tuple[SentenceData, ...] = ()
    source_sentences: tuple[tuple[int, int], ...] = ()
    arcs: tuple[ArcData, ...] = ()
    checkers: tuple[CheckerData, ...] = ()
    judgments: tuple[JudgmentData, ...] = ()


# ---------------------------------------------------------------------- checking
class _Check:
    """Typed reads of one top-level field, each failure naming the place inside it."""

    def __init__(self, field: str) -> None:
        self.field = field

    def fail(self, where: str, message: str) -> AnalysisError:
        return AnalysisError(self.field, where, message)

    def seq(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, found {_kind(value)}")
        return value

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, found {_kind(value)}")
        return value

    def whole(self, value: Any, where: str, lo: int = 0, hi: int = _BIG) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"expected a whole number, found {_kind(value)}")
        if not lo <= value <= hi:
            raise self.fail(where, f"{_short(value)} is outside {lo}..{hi}")
        return value

    def score(self, value: Any, where: str, *, nullable: bool = True) -> float | None:
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a score from 0 to 1, found {_kind(value)}")
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise self.fail(where, f"expected a score from 0 to 1, found {_short(value)}")
        return float(value)

    def text(self, value: Any, where: str, *, nullable: bool = False) -> str | None:
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.fail(where, f"expected text, found {_kind(value)}")
        return value

    def name(
        self, value: Any, where: str, *, nullable: bool = False, plain: bool = True
    ) -> str | None:
        """A name (checker, version, reviewer, error type): commands print it, so it must hold
        no control or format character (:func:`app.terminal.bad_character`) unless ``plain``
        is False (an arc's label, which comes from the parse of the text)."""
        text = self.text(value, where, nullable=nullable)
        if text is not None and not text.strip():
            raise self.fail(where, "empty")
        bad = None if text is None or not plain else bad_character(text)
        if bad is not None:
            raise self.fail(where, f"contains the control character {bad}; names are plain text")
        return text

    def choice(self, value: Any, where: str, choices: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in choices:
            raise self.fail(where, f"{_short(value)} is not one of {', '.join(choices)}")
        return value

    def span(self, value: Any, where: str, lo: int, hi: int) -> tuple[int, int]:
        pair = self.seq(value, where)
        if len(pair) != 2:
            raise self.fail(where, f"expected [start, end], found {len(pair)} numbers")
        start = self.whole(pair[0], f"{where}[0]", 0, _BIG)
        end = self.whole(pair[1], f"{where}[1]", 0, _BIG)
        if not lo <= start < end <= hi:
            raise self.fail(where, f"[{start}, {end}] is not a span within {lo}..{hi}")
        return start, end


def _kind(value: Any) -> str:
    return {
        type(None): "null",
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_analysis(block: Mapping[str, Any], source: str, output: str) -> Analysis:
    """Check a record's analysis fields against its texts and each other.

    Args:
        block: the record's fields named in :data:`ANALYSIS_FIELDS` (those present).
        source: the record's source text (source sentence spans must lie within it).
        output: the record's output text (sentence and arc spans must lie within it).

    Raises:
        AnalysisError: naming the field and the place in it, for the first problem found.
    """
    sentences = _sentences(block.get("sentences", []), len(output))
    source_sentences = _source_sentences(block.get("source_sentences", []), len(source))
    arcs = _arcs(block.get("arcs", []), {s.index: s for s in sentences})
    checkers = _checkers(
        block.get("checkers", {}),
        {s.index for s in sentences},
        {(a.sentence, a.index) for a in arcs},
        len(source_sentences),
    )
    judgments = _judgments(
        block.get("judgments", []),
        {s.index for s in sentences},
        {(a.sentence, a.index) for a in arcs},
    )
    return Analysis(sentences, source_sentences, arcs, checkers, judgments)


def _sentences(value: Any, length: int) -> tuple[SentenceData, ...]:
    c = _Check("sentences")
    out: list[SentenceData] = []
    seen: dict[int, int] = {}
    for n, item in enumerate(c.seq(value, "sentences")):
        where = f"sentences[{n}]"
        d = c.obj(item, where)
        index = c.whole(d.get("index"), f"{where}.index")
        if index in seen:
            raise c.fail(f"{where}.index", f"sentence {index} is also sentences[{seen[index]}]")
        seen[index] = n
        start = c.whole(d.get("start"), f"{where}.start", 0, length)
        end = c.whole(d.get("end"), f"{where}.end", 0, length)
        if start >= end:
            raise c.fail(where, f"start {start} is not before end {end}")
        if "text" in d:
            c.text(d["text"], f"{where}.text")
        out.append(SentenceData(index, start, end))
    ordered = sorted(out, key=lambda s: s.index)
    for prev, nxt in zip(ordered, ordered[1:], strict=False):
        if nxt.start < prev.end:
            raise c.fail("sentences", f"sentence {nxt.index} starts inside sentence {prev.index}")
    return tuple(ordered)


def _source_sentences(value: Any, length: int) -> tuple[tuple[int, int], ...]:
    c = _Check("source_sentences")
    spans = [
        c.span(item, f"source_sentences[{n}]", 0, length)
        for n, item in enumerate(c.seq(value, "source_sentences"))
    ]
    for n in range(1, len(spans)):
        if spans[n][0] < spans[n - 1][1]:
            raise c.fail(f"source_sentences[{n}]", "starts inside the sentence before it")
    return tuple(spans)


def _arcs(value: Any, sentences: dict[int, SentenceData]) -> tuple[ArcData, ...]:
    c = _Check("arcs")
    out: list[ArcData] = []
    seen: set[tuple[int, int]] = set()
    for n, item in enumerate(c.seq(value, "arcs")):
        where = f"arcs[{n}]"
        d = c.obj(item, where)
        sidx = c.whole(d.get("sentence"), f"{where}.sentence")
        sent = sentences.get(sidx)
        if sent is None:
            raise c.fail(f"{where}.sentence", f"no sentence {sidx} in this record")
        index = c.whole(d.get("index"), f"{where}.index")
        if (sidx, index) in seen:
            raise c.fail(f"{where}.index", f"sentence {sidx} has two arcs {index}")
        seen.add((sidx, index))
        words = sent.end - sent.start
        out.append(
            ArcData(
                sentence=sidx,
                index=index,
                label=c.name(d.get("label"), f"{where}.label", plain=False) or "",
                head=c.whole(d.get("head"), f"{where}.head", 0, words),
                child=c.whole(d.get("child"), f"{where}.child", 0, words),
                head_span=c.span(d.get("head_span"), f"{where}.head_span", sent.start, sent.end),
                child_span=c.span(d.get("child_span"), f"{where}.child_span", sent.start, sent.end),
                head_text=c.text(d.get("head_text"), f"{where}.head_text") or "",
                child_text=c.text(d.get("child_text"), f"{where}.child_text") or "",
            )
        )
    return tuple(out)


def _checkers(
    value: Any, sentences: set[int], arcs: set[tuple[int, int]], source_sentences: int
) -> tuple[CheckerData, ...]:
    c = _Check("checkers")
    out: list[CheckerData] = []
    for name, item in c.obj(value, "checkers").items():
        where = f"checkers.{name}"
        c.name(name, where)
        d = c.obj(item, where)
        version = d.get("version")
        if isinstance(version, bool) or not isinstance(version, (str, int)):
            raise c.fail(f"{where}.version", f"expected text, found {_kind(version)}")
        version = c.name(str(version), f"{where}.version") or ""
        grain = d.get("grain")
        scores: list[SentenceScoreData] = []
        seen: set[int] = set()
        for n, s in enumerate(c.seq(d.get("sentences", []), f"{where}.sentences")):
            at = f"{where}.sentences[{n}]"
            sd = c.obj(s, at)
            index = c.whole(sd.get("index"), f"{at}.index")
            if index not in sentences:
                raise c.fail(f"{at}.index", f"no sentence {index} in this record")
            if index in seen:
                raise c.fail(f"{at}.index", f"sentence {index} is scored twice")
            seen.add(index)
            evidence = c.seq(sd.get("evidence") or [], f"{at}.evidence")
            for k, e in enumerate(evidence):
                c.whole(e, f"{at}.evidence[{k}]", 0, _BIG)
                if e >= source_sentences:
                    raise c.fail(
                        f"{at}.evidence[{k}]",
                        f"source sentence {e} is not in source_sentences "
                        f"({source_sentences} sentences)",
                    )
            scores.append(
                SentenceScoreData(
                    index=index,
                    score=c.score(sd.get("score"), f"{at}.score"),
                    min_arc=c.score(sd.get("min_arc"), f"{at}.min_arc"),
                    evidence=tuple(evidence),
                    omitted=c.whole(sd.get("omitted", 0), f"{at}.omitted"),
                    not_checked=c.text(sd.get("not_checked"), f"{at}.not_checked", nullable=True),
                    detail=c.text(sd.get("detail"), f"{at}.detail", nullable=True),
                )
            )
        arc_scores: list[ArcScoreData] = []
        seen_arcs: set[tuple[int, int]] = set()
        for n, a in enumerate(c.seq(d.get("arcs", []), f"{where}.arcs")):
            at = f"{where}.arcs[{n}]"
            ad = c.obj(a, at)
            key = (
                c.whole(ad.get("sentence"), f"{at}.sentence"),
                c.whole(ad.get("index"), f"{at}.index"),
            )
            if key not in arcs:
                raise c.fail(at, f"no arc {key[1]} of sentence {key[0]} in this record")
            if key in seen_arcs:
                raise c.fail(at, f"arc {key[1]} of sentence {key[0]} is scored twice")
            seen_arcs.add(key)
            arc_scores.append(
                ArcScoreData(*key, c.score(ad.get("score"), f"{at}.score", nullable=False) or 0.0)
            )
        not_checked = c.seq(d.get("not_checked", []), f"{where}.not_checked")
        for n, nc in enumerate(not_checked):
            at = f"{where}.not_checked[{n}]"
            ncd = c.obj(nc, at)
            if c.whole(ncd.get("sentence"), f"{at}.sentence") not in sentences:
                raise c.fail(f"{at}.sentence", f"no sentence {ncd['sentence']} in this record")
            c.text(ncd.get("reason"), f"{at}.reason")
        out.append(
            CheckerData(
                name=name,
                version=version,
                display_name=c.name(d.get("display_name", name), f"{where}.display_name") or name,
                grain="sentence" if grain is None else c.choice(grain, f"{where}.grain", GRAINS),
                score=c.score(d.get("score"), f"{where}.score"),
                not_checked=len(not_checked),
                sentences=tuple(scores),
                arcs=tuple(arc_scores),
                runs_on=c.name(d.get("runs_on"), f"{where}.runs_on", nullable=True),
                reason=c.text(d.get("reason"), f"{where}.reason", nullable=True),
            )
        )
    return tuple(out)


def _judgments(
    value: Any, sentences: set[int], arcs: set[tuple[int, int]]
) -> tuple[JudgmentData, ...]:
    c = _Check("judgments")
    out: list[JudgmentData] = []
    seen: dict[tuple[str, int | None, int | None, str, str | None, str], int] = {}
    for n, item in enumerate(c.seq(value, "judgments")):
        where = f"judgments[{n}]"
        d = c.obj(item, where)
        target = c.choice(d.get("target", "pair"), f"{where}.target", TARGETS)
        sentence = d.get("sentence")
        arc = d.get("arc")
        if target == "pair":
            if sentence is not None or arc is not None:
                raise c.fail(where, "a pair judgment names no sentence or arc")
        else:
            sentence = c.whole(sentence, f"{where}.sentence")
            if sentence not in sentences:
                raise c.fail(f"{where}.sentence", f"no sentence {sentence} in this record")
            if target == "sentence" and arc is not None:
                raise c.fail(f"{where}.arc", "a sentence judgment names no arc")
            if target == "arc":
                arc = c.whole(arc, f"{where}.arc")
                if (sentence, arc) not in arcs:
                    raise c.fail(f"{where}.arc", f"no arc {arc} of sentence {sentence}")
        aspect = c.choice(d.get("aspect", "support"), f"{where}.aspect", ASPECTS)
        annotator = c.name(d.get("annotator"), f"{where}.annotator", nullable=True)
        role = c.choice(d.get("role", "review"), f"{where}.role", ROLES)
        # Several reviewers judge one item side by side; one reviewer judges it once per role.
        key = (target, sentence, arc, aspect, annotator, role)
        if key in seen:
            what = {"pair": "the pair", "sentence": f"sentence {sentence}"}.get(
                target, f"arc {arc} of sentence {sentence}"
            )
            who = "" if annotator is None else f" by {annotator}"
            kind = aspect if role == "review" else f"{role} {aspect}"
            raise c.fail(
                where,
                f"a second {kind} judgment on {what}{who} (the first is judgments[{seen[key]}])",
            )
        seen[key] = n
        created = d.get("created_at")
        visible = d.get("model_visible", True)
        if not isinstance(visible, bool):
            raise c.fail(
                f"{where}.model_visible", f"expected true or false, found {_kind(visible)}"
            )
        decision = d.get("decision")
        out.append(
            JudgmentData(
                target=target,
                sentence=sentence,
                arc=arc,
                aspect=aspect,
                label=c.choice(d.get("label"), f"{where}.label", LABELS[aspect]),
                decision=None
                if decision is None
                else c.choice(decision, f"{where}.decision", DECISIONS),
                error_type=c.name(d.get("error_type"), f"{where}.error_type", nullable=True),
                note=c.text(d.get("note"), f"{where}.note", nullable=True),
                annotator=annotator,
                created_at=None if created is None else _when(c, created, f"{where}.created_at"),
                model_visible=visible,
                model_score=c.score(d.get("model_score"), f"{where}.model_score"),
                role=role,
            )
        )
    return tuple(out)


def _when(c: _Check, value: Any, where: str) -> datetime:
    text = c.text(value, where) or ""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise c.fail(where, f"{_short(value)} is not an ISO date and time") from None
    # The store keeps naive UTC times.
    return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo is not None else when


# ---------------------------------------------------------------------- writing
def write_analysis(
    s: Session, out: Output, source_id: int, source: str, data: Analysis, annotator: str
) -> None:
    """Store a checked analysis block for a new output (flushed, so ``out.id`` is set).

    Source sentences are stored only when the source has none yet: sources are shared by pairs.
    """
    sentence_ids: dict[int, int] = {}
    for sent in data.sentences:
        row = SentenceRow(
            output_id=out.id,
            idx=sent.index,
            start=sent.start,
            end=sent.end,
            text=out.text[sent.start : sent.end],
        )
        s.add(row)
        s.flush()
        sentence_ids[sent.index] = row.id
    has_source_sentences = s.scalar(
        select(SentenceRow.id).where(SentenceRow.source_id == source_id).limit(1)
    )
    if not has_source_sentences:
        for idx, (start, end) in enumerate(data.source_sentences):
            s.add(
                SentenceRow(
                    source_id=source_id, idx=idx, start=start, end=end, text=source[start:end]
                )
            )
    arc_ids: dict[tuple[int, int], int] = {}
    for arc in data.arcs:
        arc_row = ArcRow(
            sentence_id=sentence_ids[arc.sentence],
            idx=arc.index,
            label=arc.label,
            head_idx=arc.head,
            child_idx=arc.child,
            head_start=arc.head_span[0],
            head_end=arc.head_span[1],
            child_start=arc.child_span[0],
            child_end=arc.child_span[1],
            head_text=arc.head_text,
            child_text=arc.child_text,
        )
        s.add(arc_row)
        s.flush()
        arc_ids[(arc.sentence, arc.index)] = arc_row.id
    if sentence_ids:
        out.parsed = True
    for checker in data.checkers:
        run = _run_for(s, checker)
        common = {"run_id": run.id, "checker": checker.name, "version": run.version}
        s.add(
            PairScoreRow(
                output_id=out.id,
                score=checker.score,
                not_checked=checker.not_checked,
                reason=checker.reason,
                **common,
            )
        )
        for sent_score in checker.sentences:
            s.add(
                SentenceScoreRow(
                    sentence_id=sentence_ids[sent_score.index],
                    score=sent_score.score,
                    min_arc=sent_score.min_arc,
                    evidence=list(sent_score.evidence),
                    omitted=sent_score.omitted,
                    not_checked=sent_score.not_checked,
                    detail=sent_score.detail,
                    **common,
                )
            )
        for arc_score in checker.arcs:
            s.add(
                ArcScoreRow(
                    arc_id=arc_ids[(arc_score.sentence, arc_score.index)],
                    score=arc_score.score,
                    **common,
                )
            )
    for j in data.judgments:
        sid = sentence_ids[j.sentence] if j.sentence is not None else None
        aid = arc_ids[(j.sentence, j.arc)] if j.sentence is not None and j.arc is not None else None
        key = {"pair": "pair", "sentence": f"sentence:{sid}", "arc": f"arc:{aid}"}[j.target]
        add_judgment(
            s,
            j,
            output_id=out.id,
            sentence_id=sid,
            arc_id=aid,
            target_key=key,
            reviewer=j.annotator or annotator,
            action="import",
            by=annotator,
        )


def add_judgment(
    s: Session,
    j: Any,
    *,
    output_id: int,
    sentence_id: int | None,
    arc_id: int | None,
    target_key: str,
    reviewer: str,
    action: str,
    by: str,
    origin: str | None = None,
) -> None:
    """Add a judgment brought from a file (an import restoring it, a merge) and its audit entry.

    Args:
        j: the judgment as read (its target, aspect, role, label, decision, error type, note,
            time, whether the marks were visible, the model's score).
        output_id, sentence_id, arc_id, target_key: where it lands in this project.
        reviewer: whose judgment it is; by: who brought it in (the audit's annotator).
        action: the audit action; origin: the file it came from (merges say so).
    """
    s.add(
        Judgment(
            output_id=output_id,
            sentence_id=sentence_id,
            arc_id=arc_id,
            target=j.target,
            target_key=target_key,
            aspect=j.aspect,
            label=j.label,
            decision=j.decision,
            error_type=j.error_type,
            note=j.note,
            annotator=reviewer,
            role=j.role,
            created_at=j.created_at or now(),
            model_visible=j.model_visible,
            model_score=j.model_score,
        )
    )
    key = {
        "output_id": output_id,
        "target": j.target,
        "sentence_id": sentence_id,
        "arc_id": arc_id,
        "aspect": j.aspect,
        "role": j.role,
    }
    after = {"label": j.label}
    if origin is not None:
        key["from"] = origin
        after["annotator"] = reviewer
    s.add(AuditEntry(at=now(), action=action, key=key, before=None, after=after, annotator=by))


def _run_for(s: Session, checker: CheckerData) -> Run:
    """The imported run of this checker version (one per place its scores were computed)."""
    runs = s.scalars(
        select(Run).where(
            Run.checker == checker.name, Run.version == checker.version, Run.status == "imported"
        )
    )
    run = next((r for r in runs if (r.settings or {}).get("runs_on") == checker.runs_on), None)
    if run is None:
        settings: dict[str, Any] = {"imported": True}
        if checker.runs_on is not None:
            settings["runs_on"] = checker.runs_on
        run = Run(
            checker=checker.name,
            version=checker.version,
            display_name=checker.display_name,
            grain=checker.grain,
            settings=settings,
            started_at=now(),
            finished_at=now(),
            status="imported",
            scored=0,
        )
        s.add(run)
        s.flush()
    return run
