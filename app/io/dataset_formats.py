"""Exports in the shape of the published factuality sets people compare with: FRANK, XSumFaith.

Both are one JSON object per pair and line. Each output sentence gets one verdict: the editors'
final label (adjudicated, else the reviewers' common label; :func:`app.review.adjudication.final_labels`)
where there is one, else the model's mark, and every record says which (``from``: ``editor``,
``model``, ``disputed`` — reviewers disagree and nobody adjudicated —, or ``none``).

An editor's verdict on a sentence comes from its sentence judgment, else from its arc judgments
(unsupported when any judged arc is), else from a pair judged supported. The model's comes from
the shown checker (the combined score when it ran, as in the window) at :data:`THRESHOLD`.

* ``frank`` — FRANK's sentence annotations (Pagnoni et al. 2021): ``summary_sentences`` and
  ``summary_sentences_annotations`` (one ``{annotator: [category codes]}`` per sentence, ``NoE``
  for no error), ``Factuality`` (the share of error-free sentences), and ``sentences`` with each
  verdict in full. Error types map to FRANK's codes (:data:`FRANK_CODES`); an unsupported
  sentence with no FRANK type (none given, another taxonomy's, or the model's mark, which says
  *that* not *why*) is ``OtherE``.
* ``xsumfaith`` — XSumFaith's hallucinated spans (Maynez et al. 2020): ``hallucination_spans`` as
  ``{annotator: [{type, span, start, end, ...}]}`` with character offsets into ``summary``,
  0-based with the end excluded (``summary[start:end] == span``). A span is a word whose every
  judged (editor) or scored (model) arc is unsupported — the DAE rule, neighbouring words joined —
  or the whole sentence when no arc says which words; ``type`` is ``intrinsic`` or ``extrinsic``
  when the error type says so, else null.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.io.bundles import PairBundle
from app.io.records import logical_id
from app.review.adjudication import Final, final_labels
from app.store.project import Project
from app.store.schema import ArcRow, SentenceRow

#: The model's marks: a sentence or arc scored below this is unsupported (the combined score is
#: a probability; 0.5 is where a flag is as likely a miss as a false alarm).
THRESHOLD = 0.5

#: The default taxonomy's FRANK error types and FRANK's annotation codes.
FRANK_CODES = {
    "predicate": "RelE",
    "entity": "EntE",
    "circumstance": "CircE",
    "coreference": "CorefE",
    "discourse_link": "LinkE",
    "out_of_article": "OutE",
    "grammar": "GramE",
    "other": "OtherE",
}
NO_ERROR = "NoE"
#: Error types that name XSumFaith's hallucination types.
SPAN_TYPES = ("intrinsic", "extrinsic")


@dataclass(frozen=True)
class Span:
    """Characters of the output (0-based, end excluded) that are not supported."""

    start: int
    end: int
    type: str | None  # "intrinsic" / "extrinsic" when the error type says so
    error_type: str | None


@dataclass(frozen=True)
class Verdict:
    """One output sentence's verdict and where it comes from."""

    sentence: SentenceRow
    label: str | None  # "supported", "unsupported"; None when disputed or unknown
    source: str  # "editor", "model", "disputed", "none"
    annotator: str | None  # the reviewer(s), or "model:<checker> <version>"
    error_types: tuple[str, ...] = ()
    spans: tuple[Span, ...] = ()
    score: float | None = None  # the model's sentence score, when it is the source


class Verdicts:
    """Turns a pair's judgments and scores into one verdict per output sentence."""

    def __init__(self, project: Project) -> None:
        from app.audit.familiarity import shown_checker

        self.checker, self.version = shown_checker(project)

    @property
    def model_name(self) -> str:
        return f"model:{self.checker} {self.version}"

    def model_info(self) -> dict[str, Any]:
        return {"checker": self.checker, "version": self.version, "threshold": THRESHOLD}

    def of(self, b: PairBundle) -> list[Verdict]:
        finals = {
            key: (final, _annotators(b, key, final))
            for (key, aspect), final in final_labels(b.judgments).items()
            if aspect == "support"
        }
        pair = finals.get("pair")
        return [self._sentence(b, s, finals, pair) for s in b.sentences]

    def _sentence(
        self,
        b: PairBundle,
        s: SentenceRow,
        finals: dict[str, tuple[Final, str | None]],
        pair: tuple[Final, str | None] | None,
    ) -> Verdict:
        arcs = [a for a in b.arcs if a.sentence_id == s.id]
        own = finals.get(f"sentence:{s.id}")
        judged_arcs = {a.id: finals[f"arc:{a.id}"] for a in arcs if f"arc:{a.id}" in finals}
        if (own is not None and own[0].label is None) or any(
            f.label is None for f, _who in judged_arcs.values()
        ):
            return Verdict(s, None, "disputed", None)
        if own is not None or judged_arcs:
            settled = {a: f for a, (f, _who) in judged_arcs.items()}
            bad_arcs = [f for f in settled.values() if f.label == "unsupported"]
            label = own[0].label if own is not None else None
            if label is None:
                label = "unsupported" if bad_arcs else "supported"
            types = _types([own[0]] if own is not None else [], bad_arcs)
            who = _join([own[1] if own else None, *(who for _f, who in judged_arcs.values())])
            spans: tuple[Span, ...] = ()
            if label == "unsupported" or bad_arcs:
                arc_labels = {a: f.label == "unsupported" for a, f in settled.items()}
                types_of = {a: f.judgment.error_type for a, f in settled.items()}
                spans = _word_spans(b, arcs, arc_labels, types_of) or (
                    (_whole(s, types),) if label == "unsupported" else ()
                )
            return Verdict(s, label, "editor", who, types, spans)
        if pair is not None and pair[0].label == "supported":
            return Verdict(s, "supported", "editor", pair[1])
        return self._model(b, s, arcs)

    def _model(self, b: PairBundle, s: SentenceRow, arcs: list[ArcRow]) -> Verdict:
        scores = b.scores.get(self.checker or "")
        row = None if scores is None else scores[1].get(s.id)
        if scores is None or row is None or row.score is None or row.not_checked:
            return Verdict(s, None, "none", None)
        label = "supported" if row.score >= THRESHOLD else "unsupported"
        spans: tuple[Span, ...] = ()
        arc_scores = {a.id: scores[2][a.id] for a in arcs if a.id in scores[2]}
        flagged = {a: v < THRESHOLD for a, v in arc_scores.items()}
        if arc_scores:
            spans = _word_spans(b, arcs, flagged, {})
        if label == "unsupported" and not spans:
            spans = (_whole(s, ()),)
        return Verdict(s, label, "model", self.model_name, (), spans, row.score)


def _annotators(b: PairBundle, key: str, final: Final) -> str | None:
    """Who gave a final label: the adjudicator, the one reviewer, or every agreeing reviewer."""
    if final.judgment is None:
        return None
    if final.source != "agreed":
        return str(final.judgment.annotator)
    names = {
        j.annotator
        for j in b.judgments
        if j.target_key == key and j.aspect == "support" and j.role == "review"
    }
    return " + ".join(sorted(names))


def _join(names: Iterable[str | None]) -> str | None:
    found = sorted({n for part in names if part for n in part.split(" + ")})
    return " + ".join(found) or None


def _types(sentence: list[Final], bad_arcs: list[Final]) -> tuple[str, ...]:
    found = [f.judgment.error_type for f in (*sentence, *bad_arcs) if f.label == "unsupported"]
    return tuple(dict.fromkeys(t for t in found if t))


def _span_type(types: Iterable[str | None]) -> str | None:
    return next((t for t in types if t in SPAN_TYPES), None)


def _whole(s: SentenceRow, types: tuple[str, ...]) -> Span:
    return Span(s.start, s.end, _span_type(types), types[0] if types else None)


def _word_spans(
    b: PairBundle,
    arcs: list[ArcRow],
    unsupported: dict[int, bool],
    error_types: dict[int, str | None],
) -> tuple[Span, ...]:
    """Words whose every judged or scored arc is unsupported (the DAE rule), as char spans;
    words with only spaces between them make one span."""
    words: dict[int, tuple[int, int]] = {}
    verdicts: dict[int, list[bool]] = {}
    types: dict[int, list[str | None]] = {}
    for a in arcs:
        if a.id not in unsupported:
            continue
        for i, start, end in (
            (a.head_idx, a.head_start, a.head_end),
            (a.child_idx, a.child_start, a.child_end),
        ):
            words[i] = (start, end)
            verdicts.setdefault(i, []).append(unsupported[a.id])
            types.setdefault(i, []).append(error_types.get(a.id))
    flagged = sorted((words[i], i) for i, v in verdicts.items() if all(v))
    spans: list[Span] = []
    text = b.output.text
    for (start, end), i in flagged:
        kind, error_type = _span_type(types[i]), next((t for t in types[i] if t), None)
        last = spans[-1] if spans else None
        if last is not None and not text[last.end : start].strip():
            spans[-1] = Span(last.start, end, last.type or kind, last.error_type or error_type)
        else:
            spans.append(Span(start, end, kind, error_type))
    return tuple(spans)


def _from(verdicts: list[Verdict]) -> str:
    sources = {v.source for v in verdicts} - {"none"}
    if not sources:
        return "none"
    if sources == {"disputed"}:
        return "disputed"
    return " and ".join(x for x in ("editor", "model", "disputed") if x in sources)


def frank_codes(v: Verdict) -> list[str]:
    """FRANK's category codes of a verdict (``NoE`` when supported, none when unknown)."""
    if v.label == "supported":
        return [NO_ERROR]
    if v.label != "unsupported":
        return []
    codes = [FRANK_CODES[t] for t in v.error_types if t in FRANK_CODES]
    return list(dict.fromkeys(codes)) or ["OtherE"]


def frank_record(b: PairBundle, verdicts: Verdicts) -> dict[str, Any]:
    """One pair in FRANK's shape (see the module docstring)."""
    found = verdicts.of(b)
    labelled = [v for v in found if v.label is not None]
    record: dict[str, Any] = {
        "hash": logical_id(b.output.external_id, b.output.system),
        "model_name": b.output.system,
        "article": b.source.text,
        "summary": b.output.text,
        "summary_sentences": [v.sentence.text for v in found],
        "summary_sentences_annotations": [{v.annotator or v.source: frank_codes(v)} for v in found],
        "Factuality": (
            sum(v.label == "supported" for v in labelled) / len(labelled) if labelled else None
        ),
        "from": _from(found),
        "sentences": [
            {
                "index": v.sentence.idx,
                "start": v.sentence.start,
                "end": v.sentence.end,
                "label": v.label,
                "categories": frank_codes(v),
                "error_types": list(v.error_types),
                "from": v.source,
                "annotator": v.annotator,
                "score": v.score,
            }
            for v in found
        ],
    }
    if any(v.source == "model" for v in found):
        record["model"] = verdicts.model_info()
    return record


def xsumfaith_record(b: PairBundle, verdicts: Verdicts) -> dict[str, Any]:
    """One pair in XSumFaith's shape (see the module docstring)."""
    found = verdicts.of(b)
    text = b.output.text
    spans: dict[str, list[dict[str, Any]]] = {}
    for v in found:
        if v.label is None:
            continue
        mine = spans.setdefault(v.annotator or v.source, [])
        mine += [
            {
                "type": sp.type,
                "span": text[sp.start : sp.end],
                "start": sp.start,
                "end": sp.end,
                "sentence": v.sentence.idx,
                "error_type": sp.error_type,
                "from": v.source,
            }
            for sp in v.spans
        ]
    labels = [v.label for v in found]
    faithful = (
        None if not labels or None in labels else int(all(label == "supported" for label in labels))
    )
    record: dict[str, Any] = {
        "bbcid": logical_id(b.output.external_id, b.output.system),
        "system": b.output.system,
        "summary": text,
        "document": b.source.text,
        "hallucination_spans": spans,
        "label_faithful": faithful,
        "from": _from(found),
        "sentences": [
            {
                "index": v.sentence.idx,
                "start": v.sentence.start,
                "end": v.sentence.end,
                "label": v.label,
                "from": v.source,
            }
            for v in found
        ],
    }
    if any(v.source == "model" for v in found):
        record["model"] = verdicts.model_info()
    return record
