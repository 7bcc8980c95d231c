"""How far reviewers agree, with each other and with the model.

For each level (pair, sentence, arc) and each AIS stage, the reviewers' own decisions
(judgments with role ``review``; adjudicated decisions are not a reviewer's) are compared:

- Cohen's kappa for every two reviewers, on the items both judged (scikit-learn's
  ``cohen_kappa_score``), with their raw agreement and confusion matrix;
- Krippendorff's alpha (nominal) over all reviewers at once, items judged by some reviewers
  only included (the ``krippendorff`` package);
- raw agreement: the share of items judged by two or more reviewers on which all agree;
- each reviewer against the model: the shown checker's score at the threshold (supported when
  the score is at least the threshold), on the items the reviewer judged and the checker scored.

AIS stage 1 is the ``interpretable`` judgment of a pair; stage 2 is the pair's support judgment
on pairs the same reviewer found interpretable. :func:`agreement` returns plain data (dicts,
lists, numbers, None where a figure is undefined, e.g. kappa when both reviewers gave one label
only), so the CLI prints it as JSON and the Statistics tab and the report draw it.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from itertools import combinations
from typing import Any

from sqlalchemy import select

from app.store.judging import INTERPRETABLE_LABELS, SUPPORT_LABELS
from app.store.project import Project
from app.store.schema import ArcScoreRow, Judgment, PairScoreRow, SentenceScoreRow
from app.thresholds import check_threshold

LEVELS = ("pair", "sentence", "arc")
STAGES = ("ais_stage1_interpretable", "ais_stage2_supported")
SECTIONS = LEVELS + STAGES

Unit = tuple[int, str]  # (output id, target key)
Ratings = dict[Unit, dict[str, str]]  # item -> reviewer -> label


def agreement(
    project: Project,
    *,
    checker: str | None = None,
    version: str | None = None,
    threshold: float = 0.5,
) -> dict[str, Any]:
    """Agreement figures of a project, per level and AIS stage (see the module docstring).

    Args:
        project: the project.
        checker: whose scores are the model's decisions; None: the latest checker run.
        version: that checker's version; None: its current version.
        threshold: scores at or above it count as the model saying "supported".

    Raises:
        FactDeskError: a threshold that is not a number from 0 to 1.
    """
    check_threshold(threshold)
    versions = project.current_versions()
    if checker is None and versions:
        checker = next(reversed(versions))
    if checker is not None and version is None:
        version = versions.get(checker)
    ratings = _ratings(project)
    model = _model_labels(project, checker, version, threshold) if checker and version else {}
    sections: dict[str, Any] = {}
    for name in SECTIONS:
        labels = INTERPRETABLE_LABELS if name == STAGES[0] else SUPPORT_LABELS
        by_model = None if name == STAGES[0] else model.get(_target_of(name), {})
        sections[name] = agreement_of(ratings[name], labels, by_model)
    reviewers = sorted({r for sec in ratings.values() for votes in sec.values() for r in votes})
    return {
        "checker": checker,
        "version": version,
        "threshold": threshold,
        "reviewers": reviewers,
        "sections": sections,
    }


def agreement_of(
    ratings: Ratings, labels: tuple[str, ...], model: dict[Unit, str] | None = None
) -> dict[str, Any]:
    """Agreement of one section: its items' labels by reviewer, and the model's where known."""
    reviewers = sorted({r for votes in ratings.values() for r in votes})
    shared = [votes for votes in ratings.values() if len(votes) >= 2]
    pairs = []
    for a, b in combinations(reviewers, 2):
        both = [(v[a], v[b]) for v in ratings.values() if a in v and b in v]
        pairs.append({"a": a, "b": b, **_compare(both, labels)})
    vs_model = []
    if model is not None:
        for r in reviewers:
            both = [(v[r], model[u]) for u, v in ratings.items() if r in v and u in model]
            vs_model.append({"reviewer": r, **_compare(both, labels)})
    return {
        "labels": list(labels),
        "reviewers": reviewers,
        "items": len(ratings),
        "items_judged_by_several": len(shared),
        "raw_agreement": (
            sum(len(set(v.values())) == 1 for v in shared) / len(shared) if shared else None
        ),
        "krippendorff_alpha": krippendorff_alpha(ratings, reviewers, labels),
        "pairs": pairs,
        "vs_model": vs_model,
    }


def _compare(both: list[tuple[str, str]], labels: tuple[str, ...]) -> dict[str, Any]:
    """Raw agreement, Cohen's kappa and the confusion matrix of two raters' labels."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for x, y in both:
        matrix[index[x]][index[y]] += 1
    return {
        "n": len(both),
        "raw_agreement": sum(x == y for x, y in both) / len(both) if both else None,
        "cohen_kappa": cohen_kappa([x for x, _ in both], [y for _, y in both], labels),
        "confusion": matrix,  # rows: the first rater's label, columns: the second's
    }


def cohen_kappa(a: list[str], b: list[str], labels: tuple[str, ...]) -> float | None:
    """Cohen's kappa of two raters' labels; None when undefined (no items, or chance agreement
    is certain: both gave one and the same label throughout)."""
    if not a or len(set(a) | set(b)) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(cohen_kappa_score(a, b, labels=list(labels)))
    return None if math.isnan(value) else value


def krippendorff_alpha(
    ratings: Ratings, reviewers: list[str], labels: tuple[str, ...]
) -> float | None:
    """Krippendorff's alpha (nominal) over every reviewer, missing judgments allowed; None when
    undefined (fewer than two ratings on every item, or a single value in all pairable ones)."""
    pairable = [v for v in ratings.values() if len(v) >= 2]
    if not pairable or len({label for v in pairable for label in v.values()}) < 2:
        return None
    import krippendorff
    import numpy as np

    index = {label: float(i) for i, label in enumerate(labels)}
    data = np.full((len(reviewers), len(pairable)), np.nan)
    for j, votes in enumerate(pairable):
        for i, r in enumerate(reviewers):
            if r in votes:
                data[i, j] = index[votes[r]]
    value = float(
        krippendorff.alpha(
            reliability_data=data,
            level_of_measurement="nominal",
            value_domain=list(index.values()),
        )
    )
    return None if math.isnan(value) else value


# ---------------------------------------------------------------------- reading the store
def _target_of(section: str) -> str:
    return "pair" if section in STAGES else section


def _ratings(project: Project) -> dict[str, Ratings]:
    out: dict[str, Ratings] = {name: defaultdict(dict) for name in SECTIONS}
    interpretable: set[tuple[int, str]] = set()  # (output id, reviewer) said "yes"
    pair_support: list[tuple[int, str, str]] = []
    with project.session() as s:
        rows = s.execute(
            select(
                Judgment.output_id,
                Judgment.target,
                Judgment.target_key,
                Judgment.aspect,
                Judgment.annotator,
                Judgment.label,
            ).where(Judgment.role == "review", Judgment.aspect != "flag")
        ).all()
    for oid, target, key, aspect, who, label in rows:
        if aspect == "interpretable":
            out[STAGES[0]][(oid, key)][who] = label
            if label == "yes":
                interpretable.add((oid, who))
        elif label in SUPPORT_LABELS:
            out[target][(oid, key)][who] = label
            if target == "pair":
                pair_support.append((oid, who, label))
    for oid, who, label in pair_support:
        if (oid, who) in interpretable:
            out[STAGES[1]][(oid, "pair")][who] = label
    return {name: dict(r) for name, r in out.items()}


def _model_labels(
    project: Project, checker: str, version: str, threshold: float
) -> dict[str, dict[Unit, str]]:
    """The model's decision per item at the threshold: level -> item -> label."""

    def label(score: float) -> str:
        return SUPPORT_LABELS[0] if score >= threshold else SUPPORT_LABELS[1]

    out: dict[str, dict[Unit, str]] = {level: {} for level in LEVELS}
    with project.session() as s:
        for oid, score in s.execute(
            select(PairScoreRow.output_id, PairScoreRow.score).where(
                PairScoreRow.checker == checker, PairScoreRow.version == version
            )
        ):
            if score is not None:
                out["pair"][(oid, "pair")] = label(score)
        judged = s.execute(
            select(Judgment.output_id, Judgment.sentence_id, Judgment.arc_id, Judgment.target)
            .where(Judgment.role == "review", Judgment.target != "pair")
            .distinct()
        ).all()
        sentence_of = {sid: oid for oid, sid, _a, t in judged if t == "sentence"}
        arc_of = {aid: oid for oid, _s, aid, t in judged if t == "arc"}
        for sid, score, not_checked in s.execute(
            select(
                SentenceScoreRow.sentence_id, SentenceScoreRow.score, SentenceScoreRow.not_checked
            ).where(
                SentenceScoreRow.checker == checker,
                SentenceScoreRow.version == version,
                SentenceScoreRow.sentence_id.in_(list(sentence_of)),
            )
        ):
            if score is not None and not not_checked:
                out["sentence"][(sentence_of[sid], f"sentence:{sid}")] = label(score)
        for aid, score in s.execute(
            select(ArcScoreRow.arc_id, ArcScoreRow.score).where(
                ArcScoreRow.checker == checker,
                ArcScoreRow.version == version,
                ArcScoreRow.arc_id.in_(list(arc_of)),
            )
        ):
            out["arc"][(arc_of[aid], f"arc:{aid}")] = label(score)
    return out


def agreement_text(result: dict[str, Any]) -> str:
    """The figures for people: one block per section with items."""

    def fmt(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"

    model = (
        f"{result['checker']} v{result['version']} at threshold {result['threshold']:.2f}"
        if result["checker"]
        else "no checker (not analysed)"
    )
    lines = [f"reviewers: {', '.join(result['reviewers']) or 'none'}; model: {model}"]
    for name, sec in result["sections"].items():
        if not sec["items"]:
            continue
        lines.append(
            f"{name}: {sec['items']} items, {sec['items_judged_by_several']} judged by several; "
            f"raw agreement {fmt(sec['raw_agreement'])}, "
            f"Krippendorff's alpha {fmt(sec['krippendorff_alpha'])}"
        )
        labels = sec["labels"]
        for p in sec["pairs"]:
            lines.append(
                f"  {p['a']} vs {p['b']}: n {p['n']}, agreement {fmt(p['raw_agreement'])}, "
                f"Cohen's kappa {fmt(p['cohen_kappa'])}; "
                + _matrix_text(p["confusion"], labels, p["a"], p["b"])
            )
        for m in sec["vs_model"]:
            lines.append(
                f"  {m['reviewer']} vs model: n {m['n']}, agreement {fmt(m['raw_agreement'])}, "
                f"Cohen's kappa {fmt(m['cohen_kappa'])}; "
                + _matrix_text(m["confusion"], labels, m["reviewer"], "model")
            )
    if len(lines) == 1:
        lines.append("no judgments yet")
    return "\n".join(lines)


def _matrix_text(matrix: list[list[int]], labels: list[str], a: str, b: str) -> str:
    cells = [f"{x}/{y} {matrix[i][j]}" for i, x in enumerate(labels) for j, y in enumerate(labels)]
    return f"confusion ({a}/{b}): " + ", ".join(cells)
