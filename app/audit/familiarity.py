"""Entity familiarity over a project: who the outputs describe, and whether the source agrees.

:mod:`models.familiarity` finds people and organisations and the descriptions attached to them,
and tags each entity familiar / unfamiliar / unseen from how the project's *sources* introduce it
(the rule is in that module's docstring). This module joins that with the store:

- each description of an entity in an output is matched to the stored arcs of that output: the
  arc that attaches it to the name (appos, compound, amod, acl, relcl, in either direction) and
  the arcs inside it ("IOC President": ``President -compound-> IOC``);
- its verdict: an editor's arc judgment decides an arc, then a sentence (or pair) judged
  supported — its arcs count as entailed, as in the ``dae-arcs`` export —, then the shown
  checker's arc score against the threshold. The description is *not supported* when any of its
  arcs is not, *supported* when all arcs with a verdict are, *not scored* when none has one;
- its error types: those of the editor's judgments on its arcs, else of its sentence's
  judgment, else of the pair's.

Nothing is stored: entity mentions are cached in memory per text (NER is the slow part), the
rest is computed on demand.
"""

from __future__ import annotations

import functools
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import func, select

from app.analysis import NotChecked, max_chars, too_long
from app.io.bundles import PairBundle, iter_bundles, run_info
from app.review.adjudication import FinalItem, ProjectFinals, pair_finals
from app.store.project import Project
from app.store.schema import ArcRow, Judgment, SentenceRow, Source
from app.thresholds import check_threshold
from models.casing import cased_like
from models.familiarity import (
    DESCRIPTION_LABELS,
    TAGS,
    Description,
    EntityFamiliarity,
    Mention,
    Tag,
    familiarity,
    find_mentions,
    tag_of,
    with_known_name,
)

Verdict = Literal["supported", "not supported", "not scored"]
#: How editors' judgments enter the verdicts and rates, as the views say it.
FINAL_NOTE = (
    "editors' final labels override (adjudicated, else the label the reviewers share; "
    "a dispute nobody adjudicated is left to the model)"
)
#: The error types of the *Factual or Contextual?* study, in the default taxonomy.
STUDY_ERROR_TYPES = ("nonfactual", "incongruous")
Progress = Callable[[int, int], None]
ShouldStop = Callable[[], bool]

_CACHE_LIMIT = 50_000
_MENTIONS: dict[str, tuple[Mention, ...]] = {}


@dataclass(frozen=True, slots=True)
class DescriptionVerdict:
    """One description of an entity in an output, with what the checker and editor say."""

    text: str
    label: str
    start: int
    end: int
    arc_ids: tuple[int, ...]
    score: float | None  # the lowest model score over its arcs
    verdict: Verdict
    by: str | None  # "editor" / "model"; None when not scored
    judged: bool  # an editor's support judgment covers it
    error_types: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "label": self.label,
            "start": self.start,
            "end": self.end,
            "arc_ids": list(self.arc_ids),
            "score": self.score,
            "verdict": self.verdict,
            "by": self.by,
            "judged": self.judged,
            "error_types": list(self.error_types),
        }


@dataclass(frozen=True, slots=True)
class OutputEntity:
    """One mention of a person or organisation in an output."""

    output_id: int
    external_id: str
    system: str | None
    name: str
    kind: str
    key: str
    tag: Tag
    start: int
    end: int
    descriptions: tuple[DescriptionVerdict, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "output_id": self.output_id,
            "id": self.external_id,
            "system": self.system,
            "name": self.name,
            "kind": self.kind,
            "key": self.key,
            "familiarity": self.tag,
            "start": self.start,
            "end": self.end,
            "descriptions": [d.to_json() for d in self.descriptions],
        }


@dataclass(frozen=True, slots=True)
class RateRow:
    """Error rates of the descriptions in one group (a familiarity tag, a system, or both).

    ``error_counts`` counts judged descriptions with each study error type; its rates are over
    ``judged``. ``not_supported`` is over ``scored`` (descriptions with a verdict).
    """

    group: str
    entities: int
    mentions: int
    descriptions: int
    judged: int
    scored: int
    not_supported: int
    error_counts: dict[str, int]

    def rate(self, error_type: str) -> float | None:
        return self.error_counts.get(error_type, 0) / self.judged if self.judged else None

    @property
    def not_supported_rate(self) -> float | None:
        return self.not_supported / self.scored if self.scored else None

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "entities": self.entities,
            "mentions": self.mentions,
            "descriptions": self.descriptions,
            "judged": self.judged,
            "scored": self.scored,
            "not_supported": self.not_supported,
            "not_supported_rate": self.not_supported_rate,
            "errors": {e: {"count": n, "rate": self.rate(e)} for e, n in self.error_counts.items()},
        }


@dataclass
class FamiliarityReport:
    """Everything the statistics tab, the CLI, the report and the queue read."""

    checker: str | None
    version: str | None
    threshold: float
    error_types: tuple[str, ...]
    entities: dict[str, EntityFamiliarity] = field(default_factory=dict)
    mentions: list[OutputEntity] = field(default_factory=list)
    # Pairs whose source or output is over the parser's limit: not read, as analysis does not
    # read them (the same reason).
    not_checked_pairs: list[NotChecked] = field(default_factory=list)

    def entity_counts(self) -> dict[str, int]:
        """Distinct entities the outputs mention, per tag."""
        keys: dict[str, set[str]] = {t: set() for t in TAGS}
        for m in self.mentions:
            keys[m.tag].add(m.key)
        return {t: len(k) for t, k in keys.items()}

    def rates(self, by: Literal["familiarity", "system", "both"] = "familiarity") -> list[RateRow]:
        """Rows per familiarity tag, per system, or per (system, tag), in a stable order."""
        groups: dict[str, list[OutputEntity]] = defaultdict(list)
        for m in self.mentions:
            system = m.system or "—"
            name = {"familiarity": m.tag, "system": system, "both": f"{system} / {m.tag}"}[by]
            groups[name].append(m)
        order: list[str]
        if by == "familiarity":
            order = [t for t in TAGS if t in groups]
        else:
            order = sorted(groups, key=lambda g: (g.split(" / ")[0], _tag_rank(g)))
        return [self._row(name, groups[name]) for name in order]

    def _row(self, name: str, group: list[OutputEntity]) -> RateRow:
        descs = [d for m in group for d in m.descriptions]
        counts = {e: sum(e in d.error_types for d in descs if d.judged) for e in self.error_types}
        return RateRow(
            group=name,
            entities=len({m.key for m in group}),
            mentions=len(group),
            descriptions=len(descs),
            judged=sum(d.judged for d in descs),
            scored=sum(d.verdict != "not scored" for d in descs),
            not_supported=sum(d.verdict == "not supported" for d in descs),
            error_counts=counts,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "checker": self.checker,
            "version": self.version,
            "threshold": self.threshold,
            "error_types": list(self.error_types),
            "entities": self.entity_counts(),
            "mentions": {t: sum(m.tag == t for m in self.mentions) for t in TAGS},
            "by_familiarity": [r.to_json() for r in self.rates("familiarity")],
            "by_system": [r.to_json() for r in self.rates("system")],
            "by_system_and_familiarity": [r.to_json() for r in self.rates("both")],
            "source_entities": [
                {
                    "key": e.key,
                    "name": e.name,
                    "kind": e.kind,
                    "documents": e.documents,
                    "introduced_described": e.introduced_described,
                    "mentions": e.mentions,
                    "familiarity": e.tag,
                }
                for e in sorted(self.entities.values(), key=lambda e: (-e.documents, e.key))
            ],
            "output_entities": [m.to_json() for m in self.mentions],
            "not_checked_pairs": [n.__dict__ for n in self.not_checked_pairs],
        }


def _tag_rank(group: str) -> int:
    tag = group.rsplit(" / ", 1)[-1]
    return TAGS.index(tag) if tag in TAGS else -1  # type: ignore[arg-type]


# ---------------------------------------------------------------------- mentions (cached)
def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def cached_mentions(
    texts: Sequence[str],
    *,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> list[tuple[Mention, ...]]:
    """Mentions of each text; texts seen before in this process are not parsed again."""
    keys = [_digest(t) for t in texts]
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in _MENTIONS}
    if todo:
        if len(_MENTIONS) + len(todo) > _CACHE_LIMIT:
            _MENTIONS.clear()
        found = find_mentions(list(todo.values()), progress=progress, should_stop=should_stop)
        _MENTIONS.update(zip(todo, found, strict=True))
    return [_MENTIONS[k] for k in keys]


# ---------------------------------------------------------------------- the analysis
def shown_checker(project: Project, checker: str | None = None) -> tuple[str | None, str | None]:
    """(checker, version) whose arc scores give the verdicts.

    ``checker`` when given (it must have a run); otherwise ``combined`` when it has a run, else
    the latest arc-level checker, as the window chooses.

    Raises:
        ProjectError: a named checker that never ran on this project.
    """
    from models.errors import ProjectError

    runs = run_info(project)
    if checker is not None:
        if checker not in runs:
            known = ", ".join(runs) or "none"
            raise ProjectError(
                f"{project.path}: checker '{checker}' has not analysed this project "
                f"(checkers with scores: {known})."
            )
        return checker, runs[checker]["version"]
    if "combined" in runs:
        return "combined", runs["combined"]["version"]
    arc_level = [c for c, info in runs.items() if info["grain"] == "arc"]
    if arc_level:
        return arc_level[-1], runs[arc_level[-1]]["version"]
    if runs:
        last = next(reversed(runs))
        return last, runs[last]["version"]
    return None, None


def analyse(
    project: Project,
    *,
    checker: str | None = None,
    threshold: float = 0.5,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> FamiliarityReport:
    """Familiarity of every entity the outputs mention and the verdicts on their descriptions.

    Args:
        project: the open project (its sources are the corpus the rule reads).
        checker: whose arc scores to use; None = as :func:`shown_checker` picks.
        threshold: arc scores below it are not supported.
        progress: ``(done, total)`` over the texts read for entities (sources, then outputs).
        should_stop: checked between batches.
    """
    check_threshold(threshold)
    name, version = shown_checker(project, checker)
    taxonomy = {t["key"] for t in project.taxonomy()}
    report = FamiliarityReport(
        name, version, threshold, tuple(e for e in STUDY_ERROR_TYPES if e in taxonomy)
    )
    # Texts over the parser's limit are not read (spaCy refuses them; below it one takes about
    # 1 GB per 200,000 characters): their pairs are skipped with analysis's own reason.
    limit = max_chars()
    with project.session() as s:
        sources = [
            t
            for (t,) in s.execute(
                select(Source.text).where(func.length(Source.text) <= limit).order_by(Source.id)
            )
        ]
    bundles = list(iter_bundles(project))
    refused = too_long({b.output.id: (b.source.text, b.output.text) for b in bundles}, limit)
    report.not_checked_pairs = [
        NotChecked(b.output.id, b.output.external_id, refused[b.output.id])
        for b in bundles
        if b.output.id in refused
    ]
    bundles = [b for b in bundles if b.output.id not in refused]
    n_src = len(sources)
    total = n_src + len(bundles)

    def step(offset: int) -> Progress | None:
        if progress is None:
            return None
        return lambda done, _n: progress(offset + done, total)

    report.entities = familiarity(
        cached_mentions(sources, progress=step(0), should_stop=should_stop)
    )
    # a lower-case output is read for names with its source's capitals (same offsets)
    found = cached_mentions(
        [cased_like(b.output.text, b.source.text) or b.output.text for b in bundles],
        progress=step(n_src),
        should_stop=should_stop,
    )
    for bundle, mentions in zip(bundles, found, strict=True):
        report.mentions.extend(_output_entities(bundle, mentions, report, name))
    if progress is not None:
        progress(total, total)
    return report


def _output_entities(
    b: PairBundle, mentions: Iterable[Mention], report: FamiliarityReport, checker: str | None
) -> list[OutputEntity]:
    scores = b.scores[checker][2] if checker and checker in b.scores else {}
    judged = _judgments(b.output.id, b.judgments)
    out = []
    for m in mentions:
        known = report.entities.get(m.key)
        if known is not None:
            m = with_known_name(m, known.name_words)
        descs = tuple(
            _verdict(b, m, d, scores, judged, report.threshold, report.error_types)
            for d in m.descriptions
        )
        out.append(
            OutputEntity(
                output_id=b.output.id,
                external_id=b.output.external_id,
                system=b.output.system,
                name=m.name,
                kind=m.kind,
                key=m.key,
                tag=tag_of(m.key, report.entities),
                start=m.start,
                end=m.end,
                descriptions=descs,
            )
        )
    return out


def _judgments(output_id: int, rows: Iterable[Judgment]) -> dict[str, FinalItem]:
    """Support judgments by target key, each item under its final label (adjudicated, else the
    one its reviewers share); an item the reviewers judged differently and nobody adjudicated
    is left to the model, as statistics and exports leave it out."""
    finals = ProjectFinals()
    pair_finals(output_id, (j for j in rows if j.aspect == "support"), finals)
    return {item.target_key: item for item in finals.items}


def description_arcs(arcs: Sequence[ArcRow], m: Mention, d: Description) -> list[ArcRow]:
    """The stored arcs of one description: those attaching it to the name, and those inside.

    An attaching arc has a description label (appos, compound, amod, acl, relcl), one end on a
    word of the name and the other on a word of the description, either way round. Matched on
    character offsets: the mention finder and the analysis parse with the same pipeline, so
    their words coincide.
    """
    inside = {start for start, _end in d.words}

    def in_name(offset: int) -> bool:
        return m.start <= offset < m.end

    return [
        a
        for a in arcs
        if (a.head_start in inside and a.child_start in inside)
        or (
            a.label in DESCRIPTION_LABELS
            and (
                (in_name(a.head_start) and a.child_start in inside)
                or (in_name(a.child_start) and a.head_start in inside)
            )
        )
    ]


def _verdict(
    b: PairBundle,
    m: Mention,
    d: Description,
    scores: dict[int, float],
    judged: dict[str, FinalItem],
    threshold: float,
    error_types: tuple[str, ...],
) -> DescriptionVerdict:
    arcs = description_arcs(b.arcs, m, d)
    sentence = _sentence_of(b.sentences, d.start)
    sent_j = judged.get(f"sentence:{sentence.id}") if sentence is not None else None
    pair_j = judged.get("pair")
    covering_supported = any(j is not None and j.label == "supported" for j in (sent_j, pair_j))
    verdicts: list[tuple[bool, str]] = []  # (supported, by)
    arc_js = [judged[f"arc:{a.id}"] for a in arcs if f"arc:{a.id}" in judged]
    for a in arcs:
        j = judged.get(f"arc:{a.id}")
        if j is not None:
            verdicts.append((j.label == "supported", "editor"))
        elif covering_supported:
            verdicts.append((True, "editor"))
        elif a.id in scores:
            verdicts.append((scores[a.id] >= threshold, "model"))
    model_scores = [scores[a.id] for a in arcs if a.id in scores]
    verdict: Verdict
    by: str | None
    if any(not ok for ok, _ in verdicts):
        verdict = "not supported"
        by = "editor" if any(not ok and who == "editor" for ok, who in verdicts) else "model"
    elif verdicts:
        verdict = "supported"
        by = "editor" if all(who == "editor" for _, who in verdicts) else "model"
    else:
        verdict, by = "not scored", None
    types: set[str] = {j.error_type for j in arc_js if j.error_type}
    if not types:
        for j in (sent_j, pair_j):
            if j is not None and j.error_type:
                types = {j.error_type}
                break
    return DescriptionVerdict(
        text=d.text,
        label=d.label,
        start=d.start,
        end=d.end,
        arc_ids=tuple(a.id for a in arcs),
        score=min(model_scores) if model_scores else None,
        verdict=verdict,
        by=by,
        judged=bool(arc_js) or sent_j is not None or pair_j is not None,
        error_types=tuple(sorted(t for t in types if t in error_types)),
    )


def _sentence_of(sentences: Sequence[SentenceRow], offset: int) -> SentenceRow | None:
    for s in sentences:
        if s.start <= offset < s.end:
            return s
    return None


# ---------------------------------------------------------------------- the queue
#: Queue order of familiarity tags: what a reader is least able to catch first.
TAG_WEIGHT = {"unfamiliar": 3.0, "unseen": 2.0, "familiar": 1.0}


def description_priorities(report: FamiliarityReport) -> dict[int, tuple[float, str]]:
    """{output id: (priority, reason)} for outputs whose model flags an entity description.

    Higher priority first: non-entailed descriptions of unfamiliar entities (3 to 4), then of
    entities no source mentions (2 to 3), then of familiar ones (1 to 2); within a tier the
    lower the arc score, the higher. Descriptions an editor already decided are left out (they
    need no more review); outputs without a flagged description are absent.
    """
    best: dict[int, tuple[float, str]] = {}
    for m in report.mentions:
        for d in m.descriptions:
            if d.verdict != "not supported" or d.by != "model":
                continue
            score = d.score if d.score is not None else report.threshold
            priority = TAG_WEIGHT[m.tag] + min(1.0, max(0.0, 1.0 - score))
            reason = f'{m.tag} entity "{m.name}": description "{d.text}" not entailed ({score:.2f})'
            if m.output_id not in best or priority > best[m.output_id][0]:
                best[m.output_id] = (priority, reason)
    return best


def unfamiliar_first(
    project: Project, *, checker: str | None = None, threshold: float = 0.5
) -> dict[int, tuple[float, str]]:
    """The queue provider: :func:`description_priorities` of the project's analysis."""
    return description_priorities(analyse(project, checker=checker, threshold=threshold))


# ---------------------------------------------------------------------- text view
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def rate_lines(rows: Sequence[RateRow], error_types: Sequence[str]) -> list[str]:
    """A plain-text table of :class:`RateRow` s."""
    head = ["group", "entities", "mentions", "descr.", "not supp.", "judged"] + list(error_types)
    table = [head]
    for r in rows:
        table.append(
            [
                r.group,
                str(r.entities),
                str(r.mentions),
                str(r.descriptions),
                f"{r.not_supported}/{r.scored} {_pct(r.not_supported_rate)}",
                str(r.judged),
                *(f"{r.error_counts.get(e, 0)} {_pct(r.rate(e))}" for e in error_types),
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table
    ]


def describe(report: FamiliarityReport, *, limit: int = 20) -> str:
    """The CLI's text view of a report."""
    counts = report.entity_counts()
    shown = report.checker or "no checker"
    lines = [
        "entities in the outputs: "
        + ", ".join(f"{n} {tag}" for tag, n in counts.items())
        + f" (from {len(report.entities)} entities in the sources)",
        f"verdicts: {shown}"
        + (f" (version {report.version})" if report.version else "")
        + f", threshold {report.threshold:.2f}; {FINAL_NOTE}",
        "",
        "by familiarity:",
        *rate_lines(report.rates("familiarity"), report.error_types),
        "",
        "by system:",
        *rate_lines(report.rates("system"), report.error_types),
    ]
    flagged = sorted(description_priorities(report).items(), key=lambda kv: -kv[1][0])
    if flagged:
        lines += ["", "descriptions to check first:"]
        ids = {m.output_id: m.external_id for m in report.mentions}
        lines += [f"  {ids[oid]}: {reason}" for oid, (_p, reason) in flagged[:limit]]
        if len(flagged) > limit:
            lines.append(f"  ... and {len(flagged) - limit} more (see --json)")
    if report.not_checked_pairs:
        lines += ["", f"{len(report.not_checked_pairs)} pairs not read for entities:"]
        lines += [f"  {n.external_id}: {n.reason}" for n in report.not_checked_pairs[:limit]]
        if len(report.not_checked_pairs) > limit:
            lines.append(f"  ... and {len(report.not_checked_pairs) - limit} more (see --json)")
    return "\n".join(lines)


# ---------------------------------------------------------------------- figure
def draw_rates(fig: Any, report: FamiliarityReport) -> None:
    """Rates of not-supported descriptions and of the study's error types, by familiarity and
    by system, on a matplotlib ``Figure`` (the Statistics tab and the audit report).

    Bars carry hatches as well as colours; a group with no judged description has no error-type
    bar (the rate is unknown, not zero).
    """
    measures: list[tuple[str, Callable[[RateRow], float | None], str, str]] = [
        ("not supported (verdict)", lambda r: r.not_supported_rate, "#7b1fa2", "//"),
    ]
    colours = {"nonfactual": ("#c62828", "xx"), "incongruous": ("#f9a825", "..")}
    for e in report.error_types:
        colour, hatch = colours.get(e, ("#607d8b", "++"))
        measures.append(
            (f"{e} (judged)", functools.partial(RateRow.rate, error_type=e), colour, hatch)
        )
    panels = [
        ("by familiarity", report.rates("familiarity")),
        ("by system", report.rates("system")),
    ]
    axes = fig.subplots(1, 2, sharey=True)
    width = 0.8 / len(measures)
    for ax, (title, rows) in zip(axes, panels, strict=True):
        ax.set_title(f"Entity descriptions {title}")
        if not rows:
            ax.text(0.5, 0.5, "no entities found", ha="center", va="center")
            ax.set_axis_off()
            continue
        xs = range(len(rows))
        for k, (label, value, colour, hatch) in enumerate(measures):
            heights = [value(r) for r in rows]
            ax.bar(
                [x + (k - (len(measures) - 1) / 2) * width for x in xs],
                [0.0 if h is None else h for h in heights],
                width,
                label=label,
                color=colour,
                hatch=hatch,
                edgecolor="black",
            )
        names = [r.group.replace("$", r"\$") for r in rows]  # "$" starts mathtext
        ax.set_xticks(
            list(xs),
            [f"{n}\n({r.descriptions} descr.)" for n, r in zip(names, rows, strict=True)],
            rotation=30 if len(rows) > 4 else 0,
            fontsize="small",
        )
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("share of descriptions")
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:  # under the panels, never over a bar
        fig.set_layout_engine("constrained")
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize="small")
