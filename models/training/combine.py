"""Fit the combined score on training-side labelled data only.

``python -m models.training.combine --data ../shared/data [--out FILE] [--model-dir DIR]``
scores the training side (:mod:`models.training.calibration_data`) with the component checkers,
keeps the outputs that no model was trained on (FRANK, SummEval and Polytope outputs of
training-side documents: the span sets' outputs were the arc model's training targets), adds
``--nli-rows N`` held-out NLI pairs that no model but the NLI model has read (its dev slice,
which it never trained on: short sources and one-claim outputs; none by default), takes each
output's weakest sentence per signal (the pair score of every checker is its lowest sentence),
and fits an L2 logistic regression of the human label on the standardised logits.
Repeated stratified cross-validation on the same training side picks the penalty and is reported
in the file; nothing of the held-out evaluation data is read. ``--weigh`` names the features the
fit may weigh (default :data:`WEIGH`; the others keep weight 0 and their standardisation, which
the project head reads).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.checkers.base import PairInput, PairScore
from models.checkers.combined import (
    AGAINST,
    BUNDLED_FILE,
    FAST_FILE,
    FEATURES,
    KIND,
    logit,
    sentence_features,
)
from models.evaluation import auc, stratified_folds

Log = Callable[[str], None]
PENALTIES = (1e-3, 1e-2, 1e-1, 1.0)
#: Datasets whose outputs no model here was trained on (their training-side documents only).
UNSEEN = ("frank_valid", "summeval", "polytope")
#: NLI files the arc/support model never read (``models.training.examples`` reads ``nli/`` and
#: ``nli/extra/``): their dev-slice pairs are new to every model but the NLI model, which holds
#: them out (:func:`models.training.nli_data.training_mix`).
NLI_UNSEEN_PREFIXES = ("nli/extra2/", "nli/extra3/")
#: How many such pairs join the summaries: none for the shipped fit. With 300 (as many as the
#: summaries) the short pairs, where ``dae`` reads poorly, set the weights for summaries too,
#: and the fit on the summaries alone read every held-out summary set better (docs/history.md).
NLI_ROWS = 0
#: The features the shipped fit may weigh; the others keep weight 0. The word-reading ones
#: (``align``, the lowest arc) lift the summaries' ranking but fail the probes, written so that an
#: unfaithful output's words are all the source's.
WEIGH = ("dae", "support", "nli", "questions_conflict")
#: The features of the shipped fits (``combiner.json`` and ``combiner_fast.json``), the default
#: of ``--features``; ``lexical``, ``questions`` and ``grounding`` are for measuring candidates.
SHIPPED_FEATURES = ("dae", "dae_min", "support", "align", "nli", "questions_conflict")


def pair_features(
    names: Sequence[str], results: dict[str, PairScore], n_sentences: int
) -> list[float | None]:
    """Per feature, its value at the output's weakest sentence: the lowest over the sentences,
    the highest for a feature that speaks against support (:data:`AGAINST`: one conflicting
    sentence makes a pair conflicting); None where no sentence was checked."""
    rows = [sentence_features(names, results, s) for s in range(n_sentences)]
    out: list[float | None] = []
    for k, name in enumerate(names):
        vals = [v for r in rows if (v := r[k]) is not None]
        out.append((max if name in AGAINST else min)(vals) if vals else None)
    return out


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logits of the features with missing values at the column mean; and mean, sd."""
    z = logit(np.where(np.isnan(x), 0.5, x))
    z = np.where(np.isnan(x), np.nan, z)
    mean = np.nanmean(z, 0)
    sd = np.nanstd(z, 0)
    sd[sd == 0] = 1.0
    z = (z - mean) / sd
    return np.where(np.isnan(z), 0.0, z), mean, sd


def cv_auc(z: np.ndarray, y: np.ndarray, l2: float, repeats: int = 3, folds: int = 5) -> float:
    """Mean held-out-fold AUC of the fit (a threshold-free measure of the combination)."""
    from models.training.logistic import fit

    aucs = []
    for seed in range(repeats):
        pred = np.zeros(len(y))
        for test in stratified_folds(y, folds, seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            w, b = fit(z[train], y[train], l2=l2, balanced=True)
            pred[test] = z[test] @ w + b
        aucs.append(auc(pred, y))
    return float(np.mean(aucs))


def fit_combiner(
    features: Sequence[str],
    x: np.ndarray,
    y: np.ndarray,
    versions: dict[str, str],
    trained_on: dict[str, int] | None = None,
    *,
    weigh: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The combiner file's content: features, standardisation, weights, and the CV figures.

    The fit is monotone: every component is a probability that the text is supported, so none
    may lower the combined probability as it rises (and a feature of :data:`AGAINST`, such as a
    question-check conflict, may not raise it). A feature whose weight comes out with the wrong
    sign (two correlated signals pulling apart, such as a sentence's mean and lowest arc) is set
    to 0 and the rest refitted, one at a time, most wrong first. It stays in the file: the
    project head (:mod:`models.checkers.adapted`) reads its standardisation. So does a feature
    left out of ``weigh`` (None: every feature may be weighed; names not among ``features`` are
    ignored).
    """
    from models.training.logistic import fit

    z, mean, sd = standardise(x)
    # fitted with every feature turned to speak for support, the weights turned back after
    sign = np.array([-1.0 if f in AGAINST else 1.0 for f in features])
    z = z * sign
    unknown = sorted(set(weigh or ()) - set(FEATURES))
    if unknown:
        raise ValueError(f"unknown features to weigh: {unknown}")
    active = [k for k, f in enumerate(features) if weigh is None or f in weigh]
    if not active:
        raise ValueError(f"none of the features {list(features)} may be weighed")
    while True:
        za = z[:, active]
        scores = {l2: cv_auc(za, y, l2) for l2 in PENALTIES}
        l2 = max(scores, key=lambda k: scores[k])
        wa, b = fit(za, y, l2=l2, balanced=True)
        if wa.min() >= 0 or len(active) == 1:
            break
        del active[int(np.argmin(wa))]
    # The penalty shrinks the scale as well as the direction: refit the scale and the offset
    # (Platt, class-balanced) so that the output is a calibrated probability again.
    (scale,), b = fit((za @ wa)[:, None], y, l2=0.0, balanced=True)
    w = np.zeros(len(features))
    w[active] = wa * scale * sign[active]
    single = {f: auc(np.nan_to_num(x[:, k], nan=0.5), y) for k, f in enumerate(features)}
    return {
        "kind": KIND,
        "features": list(features),
        "mean": mean.tolist(),
        "sd": sd.tolist(),
        "weights": w.tolist(),
        "bias": b,
        "l2": l2,
        "trained_on": {"outputs": int(len(y)), "faithful": int(y.sum()), **(trained_on or {})},
        "cv_auc": scores[l2],
        # the features the fit could weigh (``weigh``; each may still come out at 0)
        "weigh": [f for f in features if weigh is None or f in weigh],
        "single_feature_auc": single,
        "components": versions,
    }


def nli_pairs(data_dir: Path, n: int = NLI_ROWS, seed: int = 13) -> list[tuple[str, str, float]]:
    """(premise, hypothesis, entailed) of ``n`` dev-slice pairs of :data:`NLI_UNSEEN_PREFIXES`
    files (seeded): claims of one or a few sentences against a short source, as an answer or a
    fact-check reads, beside the summaries."""
    import random

    from models.training.nli_data import training_mix

    _, dev = training_mix(data_dir, seed=seed)
    pool = [p for p in dev if p.path.startswith(NLI_UNSEEN_PREFIXES)]
    pool = random.Random(seed).sample(pool, min(n, len(pool)))
    return [(p.premise, p.hypothesis, float(p.label == "entailment")) for p in pool]


def collect(
    data_dir: Path,
    work: Path,
    checkers: dict[str, Any],
    features: Sequence[str],
    log: Log,
    nli_rows: int = NLI_ROWS,
) -> tuple[np.ndarray, np.ndarray]:
    """Pair features and labels of every labelled training-side output, and of ``nli_rows``
    held-out NLI pairs (:func:`nli_pairs`)."""
    from models.training.calibration_data import parse_cache, training_side_records

    # Only outputs the arc/support model never learnt from: its training targets (the span sets'
    # and FactCC's training side) score far better than new text, which would teach the
    # combiner to trust that model too much.
    records = [
        r for r in training_side_records(data_dir) if r.faithful is not None and r.dataset in UNSEEN
    ]
    texts = [(r.document, r.summary, float(r.faithful)) for r in records]
    if nli_rows:
        texts += nli_pairs(data_dir, nli_rows)
    cache = parse_cache(work)
    docs = cache.parse([t[0] for t in texts], log)
    outs = cache.parse([t[1] for t in texts], log)
    cache.save()
    batch = [PairInput(i, d, o) for i, (d, o) in enumerate(zip(docs, outs, strict=True))]
    # the two kinds are scored (and their scores kept on disk) apart: a refit with more or fewer
    # NLI pairs re-scores only those
    cut = len(records)
    results = {
        name: _scores(work, name, checker, batch[:cut], log)
        + (_scores(work, name, checker, batch[cut:], log) if cut < len(batch) else [])
        for name, checker in checkers.items()
    }
    rows = [
        pair_features(features, {n: r[k] for n, r in results.items()}, len(item.output.sentences))
        for k, item in enumerate(batch)
    ]
    x = np.array([[np.nan if v is None else v for v in r] for r in rows], np.float64)
    y = np.array([t[2] for t in texts], np.float64)
    keep = ~np.isnan(x).all(1)
    return x[keep], y[keep]


def _scores(work: Path, name: str, checker: Any, batch: list[PairInput], log: Log) -> list:
    """A checker's scores of the batch, kept on disk per checker and parser version (refits are
    cheap)."""
    import hashlib
    import pickle

    from models.parsing import pipeline_version

    key = hashlib.sha1(
        "\n".join(
            [checker.version, pipeline_version(), *(i.source.text + i.output.text for i in batch)]
        ).encode()
    ).hexdigest()[:12]
    path = work / f"combine_{name.replace(':', '_')}_{key}.pkl"
    if path.is_file():
        try:
            with path.open("rb") as fh:
                return pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError):
            path.unlink(missing_ok=True)  # a truncated file from a killed run: score again
    log(f"combiner: scoring {len(batch)} training-side outputs with {name}")
    scores = checker.score(batch, batch_size=16)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(scores, fh)
    tmp.replace(path)
    return scores


def load_components(
    features: Sequence[str],
    *,
    model_dir: Path | None = None,
    aligner_dir: Path | None = None,
    fast: bool = False,
) -> dict[str, Any]:
    """The checkers that give ``features``, by feature slot (bundled, or the arc/support model
    and aligner named; ``fast``: the fast path's checkers in their slots, as ``combined-fast``
    reads them, :data:`models.bundled.FAST_IN_PLACE`)."""
    from models.bundled import FAST_IN_PLACE
    from models.checkers.align import AlignChecker
    from models.registry import load_checker

    in_place = FAST_IN_PLACE if fast else {}
    checkers: dict[str, Any] = {}
    for name in dict.fromkeys(FEATURES[f][0] for f in features):
        if name == "align":
            checkers[name] = AlignChecker(aligner_dir, device="auto")
        elif name in ("dae", "support") and model_dir is not None:  # on either path
            checkers[name] = load_checker(name, model_dir=model_dir)
        else:
            checkers[name] = load_checker(in_place.get(name, name))
    return checkers


def build(
    data_dir: Path,
    out: Path,
    *,
    work: Path,
    model_dir: Path | None = None,
    aligner_dir: Path | None = None,
    features: Sequence[str] = SHIPPED_FEATURES,
    nli_rows: int = NLI_ROWS,
    fast: bool = False,
    weigh: Sequence[str] | None = WEIGH,
    log: Log = print,
) -> dict[str, Any]:
    """Score, fit and write the combiner file (atomically)."""
    checkers = load_components(features, model_dir=model_dir, aligner_dir=aligner_dir, fast=fast)
    x, y = collect(data_dir, work, checkers, features, log, nli_rows)
    spec = fit_combiner(
        features,
        x,
        y,
        {n: c.version for n, c in checkers.items()},
        {"nli_pairs": nli_rows},
        weigh=weigh,
    )
    if "nli" in checkers:
        spec["nli_checker"] = checkers["nli"].name
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(spec, indent=2), encoding="utf-8")
    tmp.replace(out)
    log(f"combiner written to {out}: cv AUC {spec['cv_auc']:.3f}, weights {spec['weights']}")
    return spec


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.combine")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=None, help="default: the bundled file")
    parser.add_argument("--work", type=Path, default=Path("build/training"))
    parser.add_argument("--model-dir", type=Path, default=None, help="arc/support model to use")
    parser.add_argument("--aligner-dir", type=Path, default=None)
    parser.add_argument(
        "--features",
        nargs="*",
        default=list(SHIPPED_FEATURES),
        help=f"default: the shipped fits' {' '.join(SHIPPED_FEATURES)}; any of {' '.join(FEATURES)}",
    )
    parser.add_argument(
        "--weigh",
        nargs="*",
        default=list(WEIGH),
        help="features the fit may weigh (default: %(default)s); the others keep weight 0 and "
        "their standardisation",
    )
    parser.add_argument(
        "--nli-rows", type=int, default=NLI_ROWS, help="held-out NLI pairs beside the summaries"
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="the fast path's combiner (combined-fast: nli-fast, dae-fast and support-fast in "
        "their slots), written to resources/models/combiner_fast.json by default",
    )
    args = parser.parse_args(argv)
    build(
        args.data,
        args.out or (FAST_FILE if args.fast else BUNDLED_FILE),
        work=args.work,
        model_dir=args.model_dir,
        aligner_dir=args.aligner_dir,
        features=args.features,
        nli_rows=args.nli_rows,
        fast=args.fast,
        weigh=args.weigh,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
