"""Thresholds and probabilities fitted to the editor's judgments (issue 14, item 1).

Per checker version and level (pair, sentence, arc), the project's support judgments give
(score, label) points: accept = supported = 1, reject = unsupported = 0. From them:

- the threshold that maximises balanced accuracy (an item scored below it is flagged), or, with
  a target recall R, the lowest threshold that flags at least R of what the editor rejected;
- a calibrated probability that the item is supported: Platt scaling on the score's logit, or
  isotonic regression when there are enough judgments of both kinds.

The fit describes this editor on this project; it says nothing about the checker elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

import numpy as np
from sqlalchemy import select

from app.review.adjudication import final_judgment_ids
from app.store.project import Project, now
from app.store.schema import (
    ArcScoreRow,
    Calibration,
    Judgment,
    PairScoreRow,
    SentenceScoreRow,
)
from models.errors import FactDeskError

Level = Literal["pair", "sentence", "arc"]
LEVELS: tuple[Level, ...] = ("pair", "sentence", "arc")
#: Fewer judgments than this (or none of one kind) and nothing is fitted at that level.
MIN_JUDGMENTS = 4
#: Isotonic regression from this many judgments, with at least ISOTONIC_MIN_CLASS of each kind.
ISOTONIC_FROM = 100
ISOTONIC_MIN_CLASS = 20
#: Where the plots and the agreement curve evaluate thresholds.
GRID = np.round(np.linspace(0.0, 1.0, 101), 2)


class CalibrationError(FactDeskError):
    """Calibration cannot be fitted (no scores, too few judgments)."""


@dataclass(frozen=True)
class Points:
    """Judged items with the checker's score: ``y`` 1 = supported, 0 = unsupported."""

    scores: np.ndarray
    y: np.ndarray
    visible: np.ndarray  # the judgment was made with the model's marks shown

    def __len__(self) -> int:
        return len(self.y)


@dataclass
class Fit:
    """One fitted calibration, as stored and as printed by ``factdesk calibrate --json``."""

    checker: str
    version: str
    level: str
    threshold: float
    target_recall: float | None
    probability: dict[str, Any]
    n_judgments: int
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def probability_of(self, scores: Sequence[float] | np.ndarray) -> np.ndarray:
        return apply_probability(self.probability, np.asarray(scores, np.float64))


# ---------------------------------------------------------------------- pure fitting
def balanced_accuracy(scores: np.ndarray, y: np.ndarray, threshold: float) -> float:
    """Mean of the recall of supported (score >= t) and of unsupported (score < t) items."""
    flagged = scores < threshold
    pos, neg = y == 1, y == 0
    tpr = float((~flagged & pos).sum()) / max(1, int(pos.sum()))
    tnr = float((flagged & neg).sum()) / max(1, int(neg.sum()))
    return (tpr + tnr) / 2


def recall_unsupported(scores: np.ndarray, y: np.ndarray, threshold: float) -> float:
    neg = y == 0
    return float((scores[neg] < threshold).sum()) / max(1, int(neg.sum()))


def agreement(scores: np.ndarray, y: np.ndarray, threshold: float) -> float:
    """Share of judgments the threshold agrees with."""
    return float(((scores >= threshold) == (y == 1)).mean()) if len(y) else float("nan")


def _candidates(scores: np.ndarray) -> np.ndarray:
    """Thresholds between consecutive distinct scores (and just beyond both ends)."""
    u = np.unique(scores)
    mids = (u[1:] + u[:-1]) / 2 if len(u) > 1 else np.zeros(0)
    return np.concatenate([[u[0] - 1e-6], mids, [u[-1] + 1e-6]])


def best_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The threshold of highest balanced accuracy; among ties, the one nearest 0.5."""
    best, best_key = 0.5, (-1.0, 0.0)
    for t in _candidates(scores):
        key = (round(balanced_accuracy(scores, y, t), 12), -abs(t - 0.5))
        if key > best_key:
            best, best_key = float(t), key
    return best


def recall_threshold(scores: np.ndarray, y: np.ndarray, target: float) -> float:
    """The lowest threshold that flags at least ``target`` of the unsupported items."""
    if not 0.0 < target <= 1.0:
        raise CalibrationError(f"target recall must be in (0, 1], not {target}")
    neg = np.sort(scores[y == 0])
    if not len(neg):
        raise CalibrationError("no rejected judgment to reach a recall of")
    k = math.ceil(target * len(neg) - 1e-9)  # how many rejected items must be flagged
    t = float(neg[k - 1])
    above = scores[scores > t]
    # Just above the k-th lowest rejected score: halfway to the next score, so ties stay flagged.
    return (t + float(above.min())) / 2 if len(above) else t + 1e-6


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fit_probability(scores: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Platt scaling on the logit of the score, or isotonic regression with enough judgments."""
    n_pos, n_neg = int((y == 1).sum()), int((y == 0).sum())
    if len(y) >= ISOTONIC_FROM and min(n_pos, n_neg) >= ISOTONIC_MIN_CLASS:
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        iso.fit(scores, y)
        return {
            "method": "isotonic",
            "x": [float(v) for v in iso.X_thresholds_],
            "y": [float(v) for v in iso.y_thresholds_],
        }
    from models.training.logistic import fit

    # A small penalty keeps a fit on a handful of separable judgments finite.
    (a,), b = fit(_logit(scores)[:, None], y.astype(np.float64), l2=1e-2)
    return {"method": "platt", "a": float(a), "b": float(b)}


def apply_probability(spec: dict[str, Any], scores: np.ndarray) -> np.ndarray:
    if spec["method"] == "isotonic":
        return np.interp(scores, spec["x"], spec["y"])
    return 1.0 / (1.0 + np.exp(-(spec["a"] * _logit(scores) + spec["b"])))


def reliability(probs: np.ndarray, y: np.ndarray, bins: int = 10) -> list[tuple[float, float, int]]:
    """(mean predicted probability, observed share supported, count) per non-empty bin."""
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.digitize(probs, edges[1:-1]), 0, bins - 1)
    return [
        (float(probs[idx == b].mean()), float(y[idx == b].mean()), int((idx == b).sum()))
        for b in range(bins)
        if (idx == b).any()
    ]


def fit_points(
    checker: str,
    version: str,
    level: str,
    pts: Points,
    *,
    target_recall: float | None = None,
) -> Fit:
    """Fit threshold and probability to judged points (pure; nothing is stored)."""
    n_pos, n_neg = int((pts.y == 1).sum()), int((pts.y == 0).sum())
    if len(pts) < MIN_JUDGMENTS or not n_pos or not n_neg:
        raise CalibrationError(
            f"{level} level: {len(pts)} judgments with scores ({n_pos} supported, "
            f"{n_neg} unsupported); at least {MIN_JUDGMENTS} with both kinds are needed"
        )
    s, y = pts.scores, pts.y
    t = recall_threshold(s, y, target_recall) if target_recall else best_threshold(s, y)
    prob = fit_probability(s, y)
    return Fit(
        checker,
        version,
        level,
        round(t, 6),
        target_recall,
        prob,
        len(pts),
        {
            "supported": n_pos,
            "unsupported": n_neg,
            "made_with_marks_visible": int(pts.visible.sum()),
            "made_blind": int((~pts.visible).sum()),
            "balanced_accuracy": balanced_accuracy(s, y, t),
            "recall_unsupported": recall_unsupported(s, y, t),
            "agreement": agreement(s, y, t),
            "balanced_accuracy_at_0_5": balanced_accuracy(s, y, 0.5),
        },
    )


# ---------------------------------------------------------------------- the project
def judged_points(project: Project, checker: str, version: str, level: str) -> Points:
    """The level's support judgments that have a score from this checker version."""
    if level not in LEVELS:
        raise CalibrationError(f"unknown level '{level}'; use one of {', '.join(LEVELS)}")
    finals = final_judgment_ids(project)  # one judgment per item, its final label
    with project.session() as s:
        q = select(Judgment.label, Judgment.model_visible)
        if level == "pair":
            q = q.add_columns(PairScoreRow.score).join(
                PairScoreRow,
                (PairScoreRow.output_id == Judgment.output_id)
                & (PairScoreRow.checker == checker)
                & (PairScoreRow.version == version),
            )
        elif level == "sentence":
            q = q.add_columns(SentenceScoreRow.score).join(
                SentenceScoreRow,
                (SentenceScoreRow.sentence_id == Judgment.sentence_id)
                & (SentenceScoreRow.checker == checker)
                & (SentenceScoreRow.version == version),
            )
        else:
            q = q.add_columns(ArcScoreRow.score).join(
                ArcScoreRow,
                (ArcScoreRow.arc_id == Judgment.arc_id)
                & (ArcScoreRow.checker == checker)
                & (ArcScoreRow.version == version),
            )
        rows = [
            tuple(r)[:3]
            for r in s.execute(
                q.add_columns(Judgment.id).where(
                    Judgment.aspect == "support",
                    Judgment.target == level,
                    Judgment.label.in_(("supported", "unsupported")),
                )
            )
            if r[3] in finals
        ]
    # (label, made with marks visible, score); the query's columns grew with add_columns.
    found = [
        (str(r[0]), bool(r[1]), float(r[2])) for r in cast("list[Any]", rows) if r[2] is not None
    ]
    return Points(
        np.array([sc for _l, _v, sc in found], np.float64),
        np.array([1 if label == "supported" else 0 for label, _v, _s in found], np.int64),
        np.array([vis for _l, vis, _s in found], bool),
    )


def shown_checker(project: Project, checker: str | None = None) -> tuple[str, str]:
    """(checker, current version): the one named, else the combined score, else the latest."""
    versions = project.current_versions()
    if not versions:
        raise CalibrationError(f"{project.path}: not analysed yet; run analyze first")
    if checker is None:
        checker = "combined" if "combined" in versions else next(reversed(versions))
    if checker not in versions:
        known = ", ".join(versions)
        raise CalibrationError(f"{project.path}: no scores from '{checker}' (scored by: {known})")
    return checker, versions[checker]


def calibrate(
    project: Project,
    *,
    checker: str | None = None,
    levels: Sequence[str] | None = None,
    target_recall: float | None = None,
) -> tuple[list[Fit], list[dict[str, str]]]:
    """Fit and store the calibration of each level that has enough judgments.

    Returns:
        (fits stored, skipped levels with the reason).

    Raises:
        CalibrationError: no level could be fitted when one was asked for by name, or the
            checker has no scores.
    """
    name, version = shown_checker(project, checker)
    fits, skipped = [], []
    for level in levels or LEVELS:
        try:
            fit = fit_points(
                name,
                version,
                level,
                judged_points(project, name, version, level),
                target_recall=target_recall,
            )
        except CalibrationError as exc:
            if levels:  # asked for by name: say why it cannot be done
                raise CalibrationError(f"{project.path}: {exc}") from exc
            skipped.append({"level": level, "reason": str(exc)})
            continue
        store(project, fit)
        fits.append(fit)
    return fits, skipped


def store(project: Project, fit: Fit) -> None:
    with project.session() as s:
        row = s.scalar(
            select(Calibration).where(
                Calibration.checker == fit.checker,
                Calibration.version == fit.version,
                Calibration.level == fit.level,
            )
        )
        if row is None:
            row = Calibration(checker=fit.checker, version=fit.version, level=fit.level)
            s.add(row)
        row.threshold = fit.threshold
        row.target_recall = fit.target_recall
        row.probability = fit.probability
        row.metrics = fit.metrics
        row.n_judgments = fit.n_judgments
        row.fitted_at = now()


def stored(project: Project, checker: str, version: str) -> dict[str, Fit]:
    """The stored calibrations of a checker version, by level."""
    with project.session() as s:
        rows = s.scalars(
            select(Calibration).where(
                Calibration.checker == checker, Calibration.version == version
            )
        ).all()
    return {
        r.level: Fit(
            r.checker,
            r.version,
            r.level,
            r.threshold,
            r.target_recall,
            dict(r.probability),
            r.n_judgments,
            dict(r.metrics),
        )
        for r in rows
    }


def shown_threshold(project: Project, checker: str, version: str) -> Fit | None:
    """The calibration the window's threshold uses: sentence level first, then pair, then arc
    (the threshold marks sentences and arcs; the pair score is the lowest sentence)."""
    fits = stored(project, checker, version)
    return next((fits[lv] for lv in ("sentence", "pair", "arc") if lv in fits), None)


def describe(fit: Fit) -> str:
    m = fit.metrics
    goal = (
        f"recall of rejected ≥ {fit.target_recall:.0%}"
        if fit.target_recall
        else "best balanced accuracy"
    )
    return (
        f"{fit.level}: threshold {fit.threshold:.3f} ({goal}) on {fit.n_judgments} judgments "
        f"({m['supported']} supported, {m['unsupported']} unsupported; "
        f"{m['made_blind']} made blind): balanced accuracy {m['balanced_accuracy']:.1%} "
        f"(at 0.5: {m['balanced_accuracy_at_0_5']:.1%}), recall of rejected "
        f"{m['recall_unsupported']:.1%}; probability by {fit.probability['method']}"
    )
