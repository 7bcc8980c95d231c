"""Adapt the combined score to the project's judgments (issue 14, item 2).

``adapt_project`` fits a project head (:mod:`models.checkers.adapted`) on the project's pair and
sentence support judgments plus the bundled training rows replayed, stores it *inside* the
project (table ``project_models``: it travels with the file; nothing under ``resources/`` is
written), and re-scores the project with it from the scores already stored: the head reads the
bundled combined score and its components' stored sentence scores, so no model runs and only
pairs without a score of the head's version are written. Analysis of new pairs uses the head
too (:func:`app.store.heads.apply_project_model`). ``reset`` goes back to the bundled model; its scores are still
stored, so switching either way is immediate.

What it is not: a better checker in general. It fits this editor's decisions on this project.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import func, insert, literal, select, update

from app.review.adjudication import final_judgment_ids
from app.store.heads import CHECKER, active_model, latest_model
from app.store.project import Project, now
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Judgment,
    PairScoreRow,
    ProjectModel,
    Run,
    SentenceRow,
    SentenceScoreRow,
)
from models.checkers.adapted import Head, identity_spec
from models.checkers.combined import FEATURES, load_combiner
from models.errors import Cancelled, FactDeskError
from models.training.adapt import MIN_ARC_JUDGMENTS, Rows, adapt, fit_arc_head

DISPLAY = "combined score (adapted to this project)"
BUNDLED_DISPLAY = "combined score"
#: The SQL function that maps a stored arc score through the project's arc head.
ARC_FUNCTION = "factdesk_arc_head"
Progress = Callable[[int, int], None]


class AdaptError(FactDeskError):
    """The project cannot be adapted (not analysed with the combined score, no judgments)."""


@dataclass
class AdaptReport:
    """What one adaptation did (``factdesk adapt --json`` prints it)."""

    version: str = ""
    base_version: str = ""
    judgments: dict[str, int] = field(default_factory=dict)
    made_with_marks_visible: int = 0
    made_blind: int = 0
    agreement_before: float | None = None
    agreement_after: float | None = None
    balanced_accuracy_before: float | None = None
    balanced_accuracy_after: float | None = None
    rescored_pairs: int = 0
    already_scored: int = 0
    seconds: float = 0.0
    status: str = "done"
    weights: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


# ---------------------------------------------------------------------- versions
def bundled_version(project: Project) -> str:
    """The version of the bundled combined score this project was analysed with (its latest
    run that is not a project head).

    Raises:
        AdaptError: the project has no combined score.
    """
    with project.session() as s:
        versions = list(
            s.scalars(select(Run.version).where(Run.checker == CHECKER).order_by(Run.id))
        )
    base = [v for v in versions if "+p" not in v]
    if not base:
        raise AdaptError(
            f"{project.path}: no combined score yet; analyse the project with the default "
            "checkers first (factdesk analyze)"
        )
    return base[-1]


def component_versions(project: Project, base_version: str) -> dict[str, str]:
    """Versions of the components whose stored scores the head reads (dae, support, align).

    The combined score's version ends in a hash of its components' versions; the runs of the
    project that match it are used. A component with no matching run is left out (the head
    then reads its training mean, as the combiner does for a signal that did not check).
    """
    with project.session() as s:
        runs = s.execute(select(Run.checker, Run.version).order_by(Run.id)).all()
    seen: dict[str, list[str]] = {}
    for name, version in runs:
        seen.setdefault(name, [])
        if version not in seen[name]:
            seen[name].append(version)
    combiner = load_combiner()
    suffix = base_version.rsplit(".", 1)[-1]
    names = combiner.components
    # Newest first; lexical is never stored by default analyses: its version is fixed in code.
    from models.checkers.lexical import LexicalArcChecker

    options = {
        n: list(reversed(seen.get(n, [])))
        or ([LexicalArcChecker.version] if n == "lexical" else [])
        for n in names
    }
    if all(options[n] for n in names):
        import itertools

        for combo in itertools.product(*(options[n][:4] for n in names)):
            parts = "+".join(f"{n}={v}" for n, v in zip(names, combo, strict=True))
            if hashlib.sha1(parts.encode()).hexdigest()[:6] == suffix:
                return {n: v for n, v in zip(names, combo, strict=True) if n != "lexical"}
    return {}


# ---------------------------------------------------------------------- reading stored scores
@dataclass(frozen=True, slots=True)
class BaseScore:
    """The bundled combined score's stored sentence row (plain columns: no ORM objects, whose
    garbage would make the window's collector pause while a re-score runs)."""

    score: float | None
    min_arc: float | None
    evidence: list | None
    omitted: int
    not_checked: str | None
    # What the bundled checker found in words: the head re-weighs its scores, the findings stay.
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class StoredSentence:
    sentence_id: int
    output_id: int
    base: BaseScore
    comps: list[float]  # raw component values in the head's feature order (NaN: none)


def _stored(
    project: Project,
    base_version: str,
    comps: dict[str, str],
    features: Sequence[str],
    output_ids: Sequence[int] | None = None,
) -> dict[int, list[StoredSentence]]:
    """Per output: its sentences with the bundled combined row and the component values."""
    out: dict[int, list[StoredSentence]] = {}
    with project.session() as s:
        q = (
            select(
                SentenceScoreRow.sentence_id,
                SentenceRow.output_id,
                SentenceScoreRow.score,
                SentenceScoreRow.min_arc,
                SentenceScoreRow.evidence,
                SentenceScoreRow.omitted,
                SentenceScoreRow.not_checked,
                SentenceScoreRow.detail,
            )
            .join(SentenceRow, SentenceRow.id == SentenceScoreRow.sentence_id)
            .where(SentenceScoreRow.checker == CHECKER, SentenceScoreRow.version == base_version)
            .order_by(SentenceRow.output_id, SentenceRow.idx)
        )
        if output_ids is not None:
            q = q.where(SentenceRow.output_id.in_(list(output_ids)))
        base_rows = s.execute(q).all()
        sids = [r[0] for r in base_rows]
        values: dict[tuple[str, str], dict[int, float | None]] = {}
        for name, version in comps.items():
            got: dict[int, tuple[float | None, float | None, str | None]] = {}
            for k in range(0, len(sids), 5000):
                for sid, score, min_arc, nc in s.execute(
                    select(
                        SentenceScoreRow.sentence_id,
                        SentenceScoreRow.score,
                        SentenceScoreRow.min_arc,
                        SentenceScoreRow.not_checked,
                    ).where(
                        SentenceScoreRow.checker == name,
                        SentenceScoreRow.version == version,
                        SentenceScoreRow.sentence_id.in_(sids[k : k + 5000]),
                    )
                ):
                    got[sid] = (score, min_arc, nc)
            for field_ in ("score", "min_arc"):
                values[(name, field_)] = {
                    sid: (None if nc is not None else (sc if field_ == "score" else ma))
                    for sid, (sc, ma, nc) in got.items()
                }
    for sid, oid, score, min_arc, evidence, omitted, not_checked, detail in base_rows:
        if oid is None:
            continue  # a source sentence: never scored, never here
        comp = []
        for f in features:
            name, field_ = FEATURES[f]
            v = values.get((name, field_), {}).get(sid)
            comp.append(np.nan if v is None else float(v))
        base = BaseScore(score, min_arc, evidence, omitted or 0, not_checked, detail)
        out.setdefault(oid, []).append(StoredSentence(sid, oid, base, comp))
    return out


def training_rows(
    project: Project, base_version: str, comps: dict[str, str], features: Sequence[str]
) -> tuple[Rows, dict[str, int], np.ndarray]:
    """The project's pair and sentence support judgments as head rows.

    A sentence judgment is one row (that sentence's values); a pair judgment is one row of the
    pair's lowest value per signal, as the combiner was fitted. Returns the rows (weights 1),
    counts by level, and whether each was made with the marks visible.
    """
    finals = final_judgment_ids(project)  # one judgment per item, its final label
    with project.session() as s:
        judged: list[Any] = [
            tuple(row)[1:]
            for row in s.execute(
                select(
                    Judgment.id,
                    Judgment.output_id,
                    Judgment.target,
                    Judgment.sentence_id,
                    Judgment.label,
                    Judgment.model_visible,
                ).where(
                    Judgment.aspect == "support",
                    Judgment.target.in_(("pair", "sentence")),
                    Judgment.label.in_(("supported", "unsupported")),
                )
            )
            if row[0] in finals
        ]
    stored = _stored(project, base_version, comps, features, sorted({j[0] for j in judged}))
    base, cvals, y, visible = [], [], [], []
    counts = {"pair": 0, "sentence": 0}
    for oid, target, sid, label, vis in judged:
        sents = [x for x in stored.get(oid, []) if x.base.score is not None]
        if target == "sentence":
            sents = [x for x in sents if x.sentence_id == sid]
        if not sents:
            continue  # not scored by the combined score: nothing to learn from
        base.append(min(float(x.base.score) for x in sents))  # type: ignore[arg-type]
        arr = np.array([x.comps for x in sents], np.float64)
        with np.errstate(all="ignore"):
            cvals.append(
                [np.nan if np.isnan(col).all() else float(np.nanmin(col)) for col in arr.T]
            )
        y.append(1.0 if label == "supported" else 0.0)
        visible.append(bool(vis))
        counts[target] += 1
    return (
        Rows(
            np.array(base, np.float64),
            np.array(cvals, np.float64).reshape(len(base), len(features)),
            np.array(y, np.float64),
            np.ones(len(y)),
        ),
        counts,
        np.array(visible, bool),
    )


# ---------------------------------------------------------------------- the stored model
# ---------------------------------------------------------------------- adapt, rescore, reset
def adapt_project(
    project: Project,
    *,
    replay: bool = True,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> AdaptReport:
    """Fit the project head on the judgments, store it in the project and re-score with it.

    Raises:
        AdaptError: no combined score, or no judgment with a combined score.
        Cancelled: ``should_stop`` said so (a fit is then not stored; a re-score keeps what
            it committed, and running again resumes it).
    """
    started = time.monotonic()
    base_version = bundled_version(project)
    comps = component_versions(project, base_version)
    combiner = load_combiner()
    from models.checkers.adapted import HEAD_FEATURES

    rows, counts, visible = training_rows(project, base_version, comps, HEAD_FEATURES)
    arc_scores, arc_y, arc_visible = arc_points(project, base_version)
    arc = fit_arc_head(arc_scores, arc_y)
    if not len(rows) and arc is None:
        raise AdaptError(
            f"{project.path}: no pair or sentence judgment (nor {MIN_ARC_JUDGMENTS} arc "
            "judgments of both kinds) has a combined score to learn from; judge some items first"
        )
    if len(rows):
        head = adapt(combiner, base_version, rows, replay=replay, should_stop=should_stop)
    else:
        head = Head(identity_spec(combiner, base_version))
    if arc is not None:
        head = Head({**head.spec, "arc": arc})
    counts["arc"] = 0 if arc is None else len(arc_y)
    if arc is not None:
        visible = np.concatenate([visible, arc_visible])
    before = rows.base
    after = head.predict(rows.base, rows.comps)
    report = AdaptReport(
        version=head.version,
        base_version=base_version,
        judgments=counts,
        made_with_marks_visible=int(visible.sum()),
        made_blind=int((~visible).sum()),
        agreement_before=_agree(before, rows.y) if len(rows) else None,
        agreement_after=_agree(after, rows.y) if len(rows) else None,
        balanced_accuracy_before=_ba(before, rows.y),
        balanced_accuracy_after=_ba(after, rows.y),
        weights={
            k: float(v)
            for k, v in zip(
                ["bundled", *head.features, "bias"], [*head.weights, head.bias], strict=True
            )
        },
    )
    with project.session() as s:
        s.execute(update(ProjectModel).where(ProjectModel.checker == CHECKER).values(active=False))
        s.add(
            ProjectModel(
                checker=CHECKER,
                base_version=base_version,
                version=head.version,
                spec={**head.spec, "components": comps},
                n_judgments=sum(counts.values()),
                n_visible=report.made_with_marks_visible,
                n_blind=report.made_blind,
                active=True,
                fitted_at=now(),
            )
        )
    rescore(project, head, comps, report, progress=progress, should_stop=should_stop)
    report.seconds = round(time.monotonic() - started, 3)
    return report


def arc_points(project: Project, base_version: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arc support judgments with the bundled combined score's arc score: (scores, labels 1 =
    supported/entailed, made with the marks visible)."""
    finals = final_judgment_ids(project)  # one judgment per item, its final label
    with project.session() as s:
        found: list[Any] = [
            tuple(row)[1:]
            for row in s.execute(
                select(Judgment.id, ArcScoreRow.score, Judgment.label, Judgment.model_visible)
                .join(ArcScoreRow, ArcScoreRow.arc_id == Judgment.arc_id)
                .where(
                    Judgment.aspect == "support",
                    Judgment.target == "arc",
                    Judgment.label.in_(("supported", "unsupported")),
                    ArcScoreRow.checker == CHECKER,
                    ArcScoreRow.version == base_version,
                )
            )
            if row[0] in finals
        ]
    return (
        np.array([float(sc) for sc, _l, _v in found], np.float64),
        np.array([1.0 if label == "supported" else 0.0 for _s, label, _v in found]),
        np.array([bool(v) for _s, _l, v in found], bool),
    )


def _agree(p: np.ndarray, y: np.ndarray) -> float:
    return float(((p >= 0.5) == (y == 1)).mean())


def _ba(p: np.ndarray, y: np.ndarray) -> float | None:
    from app.learning.calibration import balanced_accuracy

    if not len(y) or not (y == 1).any() or not (y == 0).any():
        return None
    return balanced_accuracy(p, y, 0.5)


def rescore(
    project: Project,
    head: Head,
    comps: dict[str, str],
    report: AdaptReport | None = None,
    *,
    chunk: int = 200,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> AdaptReport:
    """Score every pair that has a bundled combined score but none of the head's version, from
    the stored scores; the head's version becomes the one shown."""
    report = report or AdaptReport(version=head.version, base_version=head.base_version)
    with project.session() as s:
        have = set(
            s.scalars(
                select(PairScoreRow.output_id).where(
                    PairScoreRow.checker == CHECKER, PairScoreRow.version == head.version
                )
            )
        )
        base_pairs = {
            oid: (score, reason)
            for oid, score, reason in s.execute(
                select(PairScoreRow.output_id, PairScoreRow.score, PairScoreRow.reason).where(
                    PairScoreRow.checker == CHECKER, PairScoreRow.version == head.base_version
                )
            )
        }
    todo = sorted(set(base_pairs) - have)
    report.already_scored = len(have)
    run_id = _start_run(
        project,
        head.version,
        DISPLAY,
        {"project_model": head.hash, "runs_on": refitted_from(head.base_version)},
    )
    status = "interrupted"
    try:
        for k in range(0, len(todo), chunk):
            if should_stop is not None and should_stop():
                raise Cancelled("re-scoring cancelled")
            ids = todo[k : k + chunk]
            stored = _stored(project, head.base_version, comps, head.features, ids)
            _write(project, run_id, head, ids, stored, base_pairs)
            report.rescored_pairs += len(ids)
            if progress is not None:
                progress(min(k + chunk, len(todo)), len(todo))
        status = "done"
    except Cancelled:
        status = report.status = "cancelled"
        raise
    finally:
        with project.session() as s:
            run = s.get(Run, run_id)
            assert run is not None
            run.status = status
            run.finished_at = now()
            run.scored = report.rescored_pairs
    return report


def rescore_with_project_model(project: Project) -> AdaptReport | None:
    """Score with the project's head, from the stored component scores, the pairs that have a
    bundled combined score but none of the head's version (after an analysis that ran the
    bundled models elsewhere, e.g. on Ray); None when the project uses the bundled model."""
    head = active_model(project)
    if head is None:
        return None
    return rescore(project, head, component_versions(project, head.base_version))


def _write(
    project: Project,
    run_id: int,
    head: Head,
    ids: Sequence[int],
    stored: dict[int, list[StoredSentence]],
    base_pairs: dict[int, tuple[float | None, str | None]],
) -> None:
    common = {"run_id": run_id, "checker": CHECKER, "version": head.version}
    pair_rows, sent_rows = [], []
    for oid in ids:
        sents = stored.get(oid, [])
        checked = [x for x in sents if x.base.score is not None]
        probs = (
            head.predict(
                np.array([x.base.score for x in checked], np.float64),
                np.array([x.comps for x in checked], np.float64),
            ).tolist()
            if checked
            else []
        )
        new = {x.sentence_id: p for x, p in zip(checked, probs, strict=True)}
        for x in sents:
            b = x.base
            sent_rows.append(
                {
                    **common,
                    "sentence_id": x.sentence_id,
                    "score": new.get(x.sentence_id),
                    "min_arc": head.arc_score(b.min_arc),
                    "evidence": b.evidence,
                    "omitted": b.omitted,
                    "not_checked": b.not_checked,
                    "detail": b.detail,
                }
            )
        score, reason = base_pairs[oid]
        pair_rows.append(
            {
                **common,
                "output_id": oid,
                "score": min(new.values()) if new else None,
                "not_checked": sum(1 for x in sents if x.base.score is None),
                "reason": reason,
            }
        )
    with project.session() as s:
        project.replace_scores(s, CHECKER, head.version, list(ids))
        project.bulk_insert(s, PairScoreRow, pair_rows)
        project.bulk_insert(s, SentenceScoreRow, sent_rows)
        # The arcs are the DAE model's, as in the bundled combined score: copied inside SQLite
        # (arcs outnumber sentences tenfold: no Python container per arc), through the arc
        # head when there is one.
        arc_value: Any = ArcScoreRow.score
        if head.arc is not None:
            raw = s.connection().connection.driver_connection
            assert raw is not None
            raw.create_function(ARC_FUNCTION, 1, head.arc_score, deterministic=True)
            arc_value = getattr(func, ARC_FUNCTION)(ArcScoreRow.score)
        s.execute(
            insert(ArcScoreRow).from_select(
                ["run_id", "checker", "version", "arc_id", "score"],
                select(
                    literal(run_id),
                    literal(CHECKER),
                    literal(head.version),
                    ArcScoreRow.arc_id,
                    arc_value,
                )
                .join(ArcRow, ArcRow.id == ArcScoreRow.arc_id)
                .join(SentenceRow, SentenceRow.id == ArcRow.sentence_id)
                .where(
                    ArcScoreRow.checker == CHECKER,
                    ArcScoreRow.version == head.base_version,
                    SentenceRow.output_id.in_(list(ids)),
                ),
            )
        )


def refitted_from(base_version: str) -> str:
    """Where an adapted model's scores come from (a run's ``runs_on``): the head is a logistic
    layer computed on the CPU over the stored scores of the bundled version it adapts."""
    return f"cpu, refitted from the scores of v{base_version}"


def _start_run(project: Project, version: str, display: str, settings: dict[str, Any]) -> int:
    """A run row for the version about to be shown (the latest run of a checker is shown)."""
    with project.session() as s:
        run = Run(
            checker=CHECKER,
            version=version,
            display_name=display,
            grain="arc",
            settings=settings,
            started_at=now(),
            status="running",
            scored=0,
        )
        s.add(run)
        s.flush()
        return run.id


def use_project_model(
    project: Project,
    on: bool,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> str:
    """Switch between the latest project model and the bundled one; returns the version shown.

    Raises:
        AdaptError: ``on`` without any project model (adapt first), or no combined score.
    """
    base_version = bundled_version(project)
    if not on:
        with project.session() as s:
            s.execute(
                update(ProjectModel).where(ProjectModel.checker == CHECKER).values(active=False)
            )
        run_id = _start_run(project, base_version, BUNDLED_DISPLAY, {"switched_to": "bundled"})
        with project.session() as s:
            run = s.get(Run, run_id)
            assert run is not None
            run.status, run.finished_at = "done", now()
        return base_version
    latest = latest_model(project)
    if latest is None:
        raise AdaptError(f"{project.path}: no project model yet; adapt first (factdesk adapt)")
    with project.session() as s:
        s.execute(update(ProjectModel).where(ProjectModel.checker == CHECKER).values(active=False))
        s.execute(update(ProjectModel).where(ProjectModel.id == latest.id).values(active=True))
    head = Head(dict(latest.spec))
    rescore(
        project,
        head,
        dict(latest.spec.get("components", {})),
        progress=progress,
        should_stop=should_stop,
    )
    return head.version
