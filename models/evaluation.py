"""Quality measures of the checkers on held-out shared data, always beside the lexical baseline.

``factdesk eval [--json] [--data DIR] [--limit N] [--qa-only | --nli-only | --demo-only]`` calls
:func:`main`. Measures:

* arc level: accuracy and F1 (class "not entailed" = positive) on held-out auto-derived arcs;
* XSumFaith token-level hallucination F1 against the annotators' majority (>= 2 of 3), on the
  held-out documents; a word is flagged when all its arcs score below 0.5 (sentence checkers:
  every word of a sentence scored below 0.5);
* FRANK (valid): balanced accuracy of "Factuality == 1" with the threshold chosen by 5-fold
  cross-validation, and FRANK's partial Pearson correlation with Factuality controlling for the
  system and the dataset (both residualised on their one-hot codes);
* SummEval: balanced accuracy of ``true_label`` (threshold by 5-fold cross-validation);
* ranking accuracy: a faithful output scored above an unfaithful output of the same source
  (ties count half), over every such pair of held-out sources; Polytope by its accuracy label
  (issue 27's figure) and again by its consistency errors alone (:func:`by_consistency`: its
  accuracy label also counts omissions); and where the pairs ordered wrong lie
  (:func:`ranking_losses`: both outputs read as supported, the faithful one flagged, between);
* QA: yes/no and short-answer pairs built from held-out NLI/FEVER pairs
  (:mod:`models.training.qa_data`), each answer checked with its question: balanced accuracy
  per answer kind, with the threshold by 5-fold cross-validation and at the fixed 0.5.

Only held-out data is used: the dev side of the fixed splits, and for FRANK, SummEval and
Polytope every document that is not a training document.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from models.errors import UsageError

Progress = Callable[[str], None]
REPO = Path(__file__).resolve().parents[1]
DEFAULT_WORK = REPO / "build" / "training"
UNCHECKED = 0.5  # score given to a pair no sentence of which could be checked
#: Pairs every checker scores before the next ones (see :func:`_score_records`).
EVAL_CHUNK = 32


# ---- metrics (numpy only) ----


def binary_f1(gold: Sequence[int], pred: Sequence[int]) -> tuple[float, float, float]:
    """Precision, recall and F1 of class 1."""
    g, p = np.asarray(gold, bool), np.asarray(pred, bool)
    tp = float((g & p).sum())
    prec = tp / p.sum() if p.sum() else 0.0
    rec = tp / g.sum() if g.sum() else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return prec, rec, f1


def balanced_accuracy(gold: Sequence[int] | np.ndarray, pred: Sequence[int] | np.ndarray) -> float:
    g, p = np.asarray(gold, bool), np.asarray(pred, bool)
    tpr = (g & p).sum() / max(1, g.sum())
    tnr = (~g & ~p).sum() / max(1, (~g).sum())
    return float((tpr + tnr) / 2)


def best_threshold(scores: np.ndarray, gold: np.ndarray) -> float:
    cands = np.unique(scores)
    best, best_ba = 0.5, -1.0
    for t in cands:
        ba = balanced_accuracy(gold, scores >= t)
        if ba > best_ba:
            best, best_ba = float(t), ba
    return best


def stratified_folds(y: Sequence[int] | np.ndarray, folds: int, seed: int) -> list[np.ndarray]:
    """Test indices of each fold, every fold with the same class balance."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    parts: list[list[int]] = [[] for _ in range(folds)]
    for label in np.unique(y):
        idx = rng.permutation(np.nonzero(y == label)[0])
        for k in range(folds):
            parts[k].extend(idx[k::folds].tolist())
    return [np.asarray(sorted(p), np.int64) for p in parts]


#: Repeats of the stratified k-fold threshold choice; one seed moves FRANK BA by about a point.
CV_REPEATS = 10


def cv_balanced_accuracy(
    scores: Sequence[float], gold: Sequence[int], folds: int = 5, repeats: int = CV_REPEATS
) -> tuple[float, float]:
    """Balanced accuracy with the threshold chosen on the other folds: mean and sd over repeats.

    Each repeat draws new stratified folds; a repeat's figure pools its folds' predictions.
    """
    s, g = np.asarray(scores, float), np.asarray(gold, int)
    figures = []
    for seed in range(repeats):
        pred = np.zeros(len(s), bool)
        for test in stratified_folds(g, folds, seed):
            train = np.setdiff1d(np.arange(len(s)), test)
            pred[test] = s[test] >= best_threshold(s[train], g[train])
        figures.append(balanced_accuracy(g, pred))
    return float(np.mean(figures)), float(np.std(figures))


def auc(score: Sequence[float] | np.ndarray, y: Sequence[int] | np.ndarray) -> float:
    """Probability that a positive scores above a negative (ties half)."""
    score, y = np.asarray(score, float), np.asarray(y)
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def partial_correlation(
    metric: Sequence[float], human: Sequence[float], confounders: Sequence[Sequence[str]]
) -> float:
    """Pearson correlation of the residuals after regressing both on one-hot confounders."""
    cols = [np.ones(len(metric))]
    for values in confounders:
        levels = sorted(set(values))
        for level in levels[1:]:
            cols.append(np.array([v == level for v in values], float))
    x = np.stack(cols, 1)

    def residual(y: np.ndarray) -> np.ndarray:
        beta, *_ = np.linalg.lstsq(x, y, rcond=None)
        return y - x @ beta

    a = residual(np.asarray(metric, float))
    b = residual(np.asarray(human, float))
    denom = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / denom) if denom else 0.0


def ranking_pairs(groups: dict[str, list[tuple[float, int]]]) -> list[tuple[float, float]]:
    """Every (faithful, unfaithful) pair of outputs of one source, as their two scores."""
    return [
        (a, b)
        for items in groups.values()
        for a in (s for s, y in items if y == 1)
        for b in (s for s, y in items if y == 0)
    ]


def ranking_accuracy(groups: dict[str, list[tuple[float, int]]]) -> tuple[float, int]:
    """Share of (faithful, unfaithful) pairs of one source ordered right; ties count half."""
    pairs = ranking_pairs(groups)
    hits = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs)
    return (hits / len(pairs) if pairs else float("nan")), len(pairs)


def ranking_losses(
    groups: dict[str, list[tuple[float, int]]], supported: float = 0.8, flagged: float = 0.5
) -> dict[str, float]:
    """Where the ranking pairs that are ordered wrong lie (ties count half), each as a share of
    all pairs, so the three add up to 1 - :func:`ranking_accuracy`: ``both supported`` (both
    outputs scored at least ``supported``: an order set by small differences between outputs
    the score reads as supported), ``faithful flagged`` (the faithful output below ``flagged``,
    the threshold: a misreading of it) and ``between`` (the rest)."""
    pairs = ranking_pairs(groups)
    out = {"both supported": 0.0, "faithful flagged": 0.0, "between": 0.0}
    for a, b in pairs:
        lost = 1.0 if a < b else 0.5 if a == b else 0.0
        if not lost:
            continue
        if min(a, b) >= supported:
            out["both supported"] += lost
        elif a < flagged:
            out["faithful flagged"] += lost
        else:
            out["between"] += lost
    return {k: v / len(pairs) if pairs else float("nan") for k, v in out.items()}


# ---- running ----


#: Checkers that take an arc/support model directory (ours) instead of the bundled one.
MODEL_DIR_CHECKERS = ("dae", "support")


def _checkers(names: Sequence[str] | None, model_dir: Path | None = None) -> dict[str, Any]:
    from models.registry import CHECKERS, default_checkers, load_checker

    defaults = default_checkers()  # also registers the bundled checkers, named or not
    if names is None:
        names = ["lexical"] + [n for n in defaults if n != "lexical"]
        if model_dir is not None:
            names += [n for n in MODEL_DIR_CHECKERS if n not in names]
    elif "lexical" not in names:
        names = ["lexical", *names]
    return {
        n: load_checker(n, device="auto", model_dir=model_dir)
        if model_dir is not None and n in MODEL_DIR_CHECKERS
        else load_checker(n, device="auto")
        for n in names
        if CHECKERS[n].available() or (model_dir is not None and n in MODEL_DIR_CHECKERS)
    }


def _sample(items: list, limit: int | None, seed: int = 0) -> list:
    if limit is None or len(items) <= limit:
        return items
    return random.Random(seed).sample(items, limit)


def _held_out(records: list, train_prints: set[str]) -> list:
    from models.training.examples import fingerprint

    return [r for r in records if fingerprint(r.document) not in train_prints]


def _score_records(
    records: Sequence[Any],
    checkers: dict[str, Any],
    cache: Any,
    progress: Progress | None,
    label: str,
) -> tuple[list[Any], dict[str, list[Any]]]:
    from models.checkers.base import PairInput

    docs = cache.parse([r.document for r in records])
    outs = cache.parse([r.summary for r in records])
    cache.save()
    batch = [PairInput(i, d, o) for i, (d, o) in enumerate(zip(docs, outs, strict=True))]
    scores: dict[str, list[Any]] = {name: [] for name in checkers}
    spent = dict.fromkeys(checkers, 0.0)
    # every checker on a chunk before the next chunk: the combined score reads its components'
    # readings of the same pairs from their caches instead of computing them again
    for lo in range(0, len(batch), EVAL_CHUNK):
        for name, checker in checkers.items():
            t = time.monotonic()
            scores[name] += checker.score(batch[lo : lo + EVAL_CHUNK], batch_size=16)
            spent[name] += time.monotonic() - t
    if progress:
        for name in checkers:
            progress(f"{label}: {name} scored {len(batch)} pairs in {spent[name]:.0f}s")
    return outs, scores


def _cv(key: str, scores: Sequence[float], gold: Sequence[int]) -> dict[str, float]:
    mean, sd = cv_balanced_accuracy(scores, gold)
    return {key: mean, f"{key}_sd": sd}


def _pair_value(p: Any) -> float:
    return UNCHECKED if p.score is None else float(p.score)


def _arc_level(dev: Sequence[Any], checkers: dict[str, Any]) -> dict[str, dict[str, float]]:
    rows = [(e, k, y) for e in dev for k, y in enumerate(e.arc_y) if y >= 0]
    gold_bad = [1 - y for _, _, y in rows]
    out = {}
    for name, checker in checkers.items():
        if name == "lexical":
            pred_ok = [e.arc_known[k] for e, k, _ in rows]
        elif checker.grain == "arc" and hasattr(checker, "_runner"):
            preds = checker._runner.predict([(e.evidence, e.sentence, e.arcs) for e in dev])
            by_ex = {id(e): p[0] for e, p in zip(dev, preds, strict=True)}
            pred_ok = [(by_ex[id(e)][k] or 0.0) >= 0.5 for e, k, _ in rows]
        else:
            continue
        pred_bad = [0 if ok else 1 for ok in pred_ok]
        acc = float(np.mean([a == b for a, b in zip(gold_bad, pred_bad, strict=True)]))
        _, _, f1 = binary_f1(gold_bad, pred_bad)
        out[name] = {
            "accuracy": acc,
            "f1_not_entailed": f1,
            "balanced_accuracy": balanced_accuracy(gold_bad, pred_bad),
            "arcs": len(rows),
        }
    return out


def _token_f1(
    records: Sequence[Any], outs: Sequence[Any], scores: dict[str, list[Any]]
) -> dict[str, dict[str, float]]:
    from models.checkers.dae import flagged_words
    from models.training.labels import majority_chars

    result = {}
    for name, pairs in scores.items():
        gold, pred = [], []
        for r, out, ps in zip(records, outs, pairs, strict=True):
            marked = majority_chars(r.spans, 2)
            arc_vals: dict[tuple[int, int], float] = {(a.sentence, a.arc): a.score for a in ps.arcs}
            for s, ss in zip(out.sentences, ps.sentences, strict=True):
                if ps.arcs or ps.checker == "lexical":
                    vals = [arc_vals.get((s.index, k)) for k in range(len(s.arcs))]
                    flagged = set(flagged_words(s, vals))
                else:
                    flagged = (
                        set(range(len(s.tokens)))
                        if ss.score is not None and ss.score < 0.5
                        else set()
                    )
                for t in s.tokens:
                    if t.pos == "PUNCT":
                        continue
                    gold.append(int(any(t.start < b and a < t.end for a, b in marked)))
                    pred.append(int(t.i in flagged))
        p, rc, f1 = binary_f1(gold, pred)
        result[name] = {"precision": p, "recall": rc, "f1": f1, "tokens": len(gold)}
    return result


def _demo(checkers: dict[str, Any], cache: Any) -> dict[str, dict[str, float]]:
    """The bundled demo project: AUC of faithful above unfaithful, false alarms at 0.5."""
    from models.claims import pair_input
    from models.resources import resources_dir

    path = resources_dir() / "demo" / "demo_pairs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    gold = [int(bool(r["expected"]["faithful"])) for r in rows]
    docs = cache.parse([r["source"] for r in rows])
    outs = cache.parse([r["output"] for r in rows])
    # The QA pairs are read with their question, as the app reads them.
    batch = [
        pair_input(i, d, o, r.get("context"), parse=lambda texts: cache.parse(texts))
        for i, (r, d, o) in enumerate(zip(rows, docs, outs, strict=True))
    ]
    out = {}
    for name, checker in checkers.items():
        values = [_pair_value(p) for p in checker.score(batch, batch_size=16)]
        faithful = [v for v, g in zip(values, gold, strict=True) if g]
        bad = [v for v, g in zip(values, gold, strict=True) if not g]
        out[name] = {
            "auc": auc(values, gold),
            "faithful_flagged": sum(v < 0.5 for v in faithful),
            "faithful": len(faithful),
            "unfaithful_caught": sum(v < 0.5 for v in bad),
            "unfaithful": len(bad),
        }
    return out


#: QA items of each answer kind evaluated when no ``limit`` is given.
QA_ITEMS = 600


def qa_items(data_dir: Path, limit: int | None = None) -> list[Any]:
    """The held-out QA items: yes/no and short answers built from ``dev`` NLI pairs only."""
    from models.training.data import detokenize, read_pairs
    from models.training.nli_data import trained_premises
    from models.training.qa_data import build_items

    n = limit if limit is not None else QA_ITEMS
    items = build_items(read_pairs(data_dir), "dev", yes_no=n, short=n)
    # The bundled NLI model's mix holds files the QA builder reads: an item whose passage it
    # was trained on is not held out for it.
    seen = trained_premises(data_dir)
    return [i for i in items if detokenize(i.passage) not in seen]


def evaluate_qa(
    items: Sequence[Any], checkers: dict[str, Any], cache: Any, progress: Progress | None = None
) -> dict[str, dict[str, dict[str, float]]]:
    """Balanced accuracy per checker and answer kind of QA items read with their question.

    A pair no sentence of which could be checked scores :data:`UNCHECKED` and is counted.
    """
    from models.claims import pair_input

    passages = cache.parse([i.passage for i in items])
    answers = cache.parse([i.answer for i in items])
    cache.save()
    batch = [
        pair_input(n, d, o, i.question, parse=lambda texts: cache.parse(texts))
        for n, (i, d, o) in enumerate(zip(items, passages, answers, strict=True))
    ]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, checker in checkers.items():
        t = time.monotonic()
        scored = checker.score(batch, batch_size=16)
        if progress:
            progress(f"qa: {name} scored {len(batch)} pairs in {time.monotonic() - t:.0f}s")
        per: dict[str, dict[str, float]] = {}
        for kind in sorted({i.kind for i in items}):
            mine = [(p, i) for p, i in zip(scored, items, strict=True) if i.kind == kind]
            values = [_pair_value(p) for p, _ in mine]
            gold = [i.supported for _, i in mine]
            fixed = balanced_accuracy(gold, [v >= 0.5 for v in values])
            per[kind] = {
                **_cv("balanced_accuracy_cv", values, gold),
                "balanced_accuracy_at_0.5": fixed,
                "n": len(mine),
                "supported": sum(gold),
                "not_checked": sum(p.score is None for p, _ in mine),
            }
        out[name] = per
    return out


def format_qa_table(qa: dict[str, dict[str, dict[str, float]]]) -> str:
    """The QA row of the evaluation as a plain-text table."""
    names = list(qa)
    kinds = sorted({k for per in qa.values() for k in per})
    first = qa[names[0]] if names else {}
    cols = ["checker"]
    for k in kinds:
        n, sup = int(first[k]["n"]), int(first[k]["supported"])
        cols += [f"{k} BA-cv (n={n}, {sup} supported)", f"{k} BA@0.5", f"{k} not checked"]
    rows = []
    for name in names:
        row = [name]
        for k in kinds:
            d = qa[name][k]
            row += [
                f"{100 * d['balanced_accuracy_cv']:.1f} ± {100 * d['balanced_accuracy_cv_sd']:.1f}",
                f"{100 * d['balanced_accuracy_at_0.5']:.1f}",
                str(int(d["not_checked"])),
            ]
        rows.append(row)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = ["Answers read with their question (QA built from held-out NLI/FEVER pairs)"]
    lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines) + "\n"


def nli_benchmarks(data_dir: Path, limit: int | None = None) -> dict[str, dict[str, float]]:
    """Three-way accuracy and entailed-vs-rest AUC of the bundled NLI model on the NLI sets it
    never trained on (MultiNLI dev-matched, SNLI test, ANLI); empty when it is not installed."""
    from models.checkers.nli import BUNDLED_DIR
    from models.checkers.nli import bundled_available as nli_available
    from models.training.nli_data import ANLI, BENCHMARK_MNLI, BENCHMARK_SNLI, held_out
    from models.training.nli_model import accuracy

    if not nli_available():
        return {}
    return {
        path: accuracy(BUNDLED_DIR, held_out(data_dir, path, limit))
        for path in (BENCHMARK_MNLI, BENCHMARK_SNLI, ANLI)
    }


def format_nli_table(nli: dict[str, dict[str, float]]) -> str:
    """The NLI model's held-out accuracy as a small table."""
    if not nli:
        return "NLI model: not installed (resources/models/nli)\n"
    lines = ["Bundled NLI model on NLI sets it never trained on (three-way)"]
    for path, d in nli.items():
        lines.append(
            f"  {path.rsplit('/', 1)[-1]:<42} accuracy {100 * d['accuracy']:.1f}  "
            f"entailed-vs-rest AUC {d['auc_entailed']:.3f}  ({d['items']} items)"
        )
    return "\n".join(lines) + "\n"


#: The held-out summary sets, in the order the evaluation reads them.
SUMMARY_SETS = ("xsumfaith", "frank", "summeval", "cliff+goyal21", "polytope")


def held_out_summaries(data_dir: Path, limit: int | None = None) -> dict[str, list[Any]]:
    """The held-out summary records by set (:data:`SUMMARY_SETS`): the dev side of the span
    sets, every FRANK, SummEval and Polytope output of a document that is not a training
    document; a seeded sample of at most ``limit`` per set."""
    from models.training import data as D
    from models.training.examples import training_fingerprints

    train = training_fingerprints(data_dir)
    spans = [
        r
        for name in ("cliff_error_types", "goyal21_error_types")
        for r in D.read_aggrefact_spans(data_dir, name)
    ]
    return {
        "xsumfaith": _sample(
            [r for r in D.read_xsumfaith(data_dir) if D.split_of(r.doc_id) == "dev"], limit
        ),
        "frank": _sample(_held_out(D.read_frank(data_dir), train), limit),
        "summeval": _sample(_held_out(D.read_summeval(data_dir), train), limit),
        "cliff+goyal21": _sample([r for r in spans if D.split_of(r.doc_id) == "dev"], limit),
        "polytope": _sample(_held_out(D.read_polytope(data_dir), train), limit),
    }


def by_consistency(sets: dict[str, Sequence[Any]]) -> dict[str, Sequence[Any]]:
    """The same sets with Polytope's outputs labelled by their consistency errors
    (``extra["consistent"]``, :data:`models.training.data.POLYTOPE_CONSISTENCY_ERRORS`) instead
    of its accuracy label, which also counts omissions and extra source passages. Issue 27's
    ranking figure reads the accuracy label; this reading is reported beside it."""
    import dataclasses

    return {
        label: (
            [dataclasses.replace(r, faithful=int(r.extra["consistent"])) for r in records]
            if label == "polytope"
            else records
        )
        for label, records in sets.items()
    }


def ranking_by_set(
    sets: dict[str, Sequence[Any]], values: dict[str, Sequence[float]]
) -> dict[str, tuple[float, int]]:
    """Ranking accuracy and pair count per set of records (``values``: their pair scores, in
    order) and over all of them (``"all"``): faithful above unfaithful outputs of one source."""
    per = {
        label: ranking_accuracy(ranking_groups(records, values[label]))
        for label, records in sets.items()
    }
    hits = sum(a * n for a, n in per.values() if n)
    total = sum(n for _, n in per.values())
    return {"all": (hits / total if total else float("nan"), total), **per}


def losses_by_place(
    sets: dict[str, Sequence[Any]], values: dict[str, Sequence[float]]
) -> dict[str, float]:
    """:func:`ranking_losses` over every set of records (``values``: their pair scores, by set);
    outputs of one source are compared within their set only."""
    return ranking_losses(
        {
            f"{label}:{key}": group
            for label, records in sets.items()
            for key, group in ranking_groups(records, values[label]).items()
        }
    )


def ranking_groups(
    records: Sequence[Any], values: Sequence[float]
) -> dict[str, list[tuple[float, int]]]:
    """The labelled outputs of one set by source, as (score, faithful) (``values``: their pair
    scores, in order)."""
    from models.training.examples import fingerprint

    groups: dict[str, list[tuple[float, int]]] = {}
    for r, v in zip(records, values, strict=True):
        if r.faithful is not None:
            # Same source = same document text (Polytope's ids name summaries).
            key = f"{r.dataset}:{fingerprint(r.document)}"
            groups.setdefault(key, []).append((float(v), r.faithful))
    return groups


def run_evaluation(
    data_dir: str | Path,
    *,
    checkers: Sequence[str] | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    work_dir: str | Path | None = None,
    model_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Run every measure; ``limit`` samples at most that many items per data set.

    ``model_dir`` evaluates that arc/support model directory (e.g. one just exported by the
    reproduction command) as ``dae`` and ``support`` instead of the bundled one.
    """
    from models.training.examples import (
        ParseCache,
        Plan,
        build_all,
        read_pickle,
    )

    data_dir = Path(data_dir)
    work = Path(work_dir) if work_dir is not None else DEFAULT_WORK
    loaded = _checkers(checkers, Path(model_dir) if model_dir is not None else None)
    cache = ParseCache(work / "parse_cache.pkl")
    started = time.monotonic()
    result: dict[str, Any] = {
        "checkers": {n: f"{c.name} {c.version}" for n, c in loaded.items()},
        "limit": limit,
    }

    cached = read_pickle(work / "examples.pkl")  # None when missing or truncated: rebuilt
    if isinstance(cached, dict) and "dev" in cached:
        dev = cached["dev"]
    else:
        from models.arc_runtime import default_retriever
        from models.embedder import BUNDLED_DIR as EMB
        from models.encoding import load_tokenizer

        tok = load_tokenizer(EMB / "tokenizer.json")
        dev = build_all(
            data_dir,
            cache,
            Plan().scaled(0.35),
            count_tokens=lambda t: len(tok.encode(t, add_special_tokens=False).ids),
            retriever=default_retriever(),
            splits=("dev",),
        )["dev"]
    dev = _sample(dev, limit)
    result["arc_level"] = _arc_level(dev, loaded)
    if progress:
        progress("arc level done")

    sets = held_out_summaries(data_dir, limit)
    xsum = sets["xsumfaith"]
    outs, xs = _score_records(xsum, loaded, cache, progress, "xsumfaith")
    result["xsumfaith_token"] = _token_f1(xsum, outs, xs)

    frank = sets["frank"]
    _, fs = _score_records(frank, loaded, cache, progress, "frank")
    result["frank"] = {
        name: {
            **_cv(
                "balanced_accuracy_cv", [_pair_value(p) for p in ps], [r.faithful for r in frank]
            ),
            "partial_pearson": partial_correlation(
                [_pair_value(p) for p in ps],
                [r.score for r in frank],
                [[r.system for r in frank], [r.extra["dataset"] for r in frank]],
            ),
            "n": len(frank),
        }
        for name, ps in fs.items()
    }

    summeval = sets["summeval"]
    _, ss = _score_records(summeval, loaded, cache, progress, "summeval")
    result["summeval"] = {
        name: {
            **_cv(
                "balanced_accuracy_cv", [_pair_value(p) for p in ps], [r.faithful for r in summeval]
            ),
            "n": len(summeval),
        }
        for name, ps in ss.items()
    }

    _, cs = _score_records(sets["cliff+goyal21"], loaded, cache, progress, "cliff+goyal21")
    _, ps_ = _score_records(sets["polytope"], loaded, cache, progress, "polytope")
    scored = {
        "xsumfaith": xs, "frank": fs, "summeval": ss, "cliff+goyal21": cs, "polytope": ps_
    }  # fmt: skip
    values = {
        name: {label: [_pair_value(p) for p in sc[name]] for label, sc in scored.items()}
        for name in loaded
    }
    result["ranking"] = {name: ranking_by_set(sets, values[name]) for name in loaded}
    consistency = by_consistency(sets)
    result["ranking_consistency"] = {
        name: ranking_by_set(consistency, values[name]) for name in loaded
    }
    result["ranking_lost"] = {name: losses_by_place(sets, values[name]) for name in loaded}
    shipped = demo_and_probes(loaded, work)
    result["demo"], result["probes"] = shipped["demo"], shipped["probes"]
    result["qa"] = evaluate_qa(qa_items(data_dir, limit), loaded, cache, progress)
    result["nli"] = nli_benchmarks(data_dir, limit)
    result["seconds"] = round(time.monotonic() - started)
    return result


def demo_and_probes(loaded: dict[str, Any], work_dir: str | Path | None = None) -> dict[str, Any]:
    """The bundled demo project and probe set scored by ``loaded`` (both ship with the app)."""
    from models.probes import load_probes, probe_table, score_probes
    from models.training.examples import ParseCache

    started = time.monotonic()
    cache = ParseCache(Path(work_dir or DEFAULT_WORK) / "parse_cache.pkl")
    probes = load_probes()
    result: dict[str, Any] = {
        "checkers": {n: f"{c.name} {c.version}" for n, c in loaded.items()},
        "demo": _demo(loaded, cache),
        "probes": probe_table(score_probes(loaded, probes, cache.parse), probes),
    }
    result["seconds"] = round(time.monotonic() - started)
    return result


def format_tables(result: dict[str, Any]) -> str:
    """The result as plain-text tables, one row per checker."""
    names = list(result["checkers"])
    lines = []

    def table(title: str, cols: list[str], rows: list[list[str]]) -> None:
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        lines.append(title)
        lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows)
        lines.append("")

    def pct(x: float | None) -> str:
        return "—" if x is None or x != x else f"{100 * x:.1f}"

    def pct_sd(d: dict[str, float], key: str) -> str:
        sd = d.get(f"{key}_sd")
        return pct(d[key]) + ("" if sd is None else f" ± {100 * sd:.1f}")

    if "arc_level" in result:
        arc = result["arc_level"]
        xs = result["xsumfaith_token"]
        fr = result["frank"]
        se = result["summeval"]
        rows = []
        for n in names:
            a = arc.get(n, {})
            rows.append(
                [
                    n,
                    pct(a.get("accuracy")),
                    pct(a.get("f1_not_entailed")),
                    pct(xs[n]["f1"]),
                    pct_sd(fr[n], "balanced_accuracy_cv"),
                    f"{fr[n]['partial_pearson']:.3f}",
                    pct_sd(se[n], "balanced_accuracy_cv"),
                    pct(result["ranking"][n]["all"][0]),
                ]
            )
        any_n = names[0]
        note = (
            ""
            if result.get("limit") is None
            else f" (sampled: at most {result['limit']} items per set)"
        )
        table(
            f"Quality on held-out shared data{note}",
            [
                "checker",
                f"arc acc (n={next(iter(arc.values()))['arcs'] if arc else 0})",
                "arc F1 (not ent.)",
                f"XSumFaith token F1 (n={xs[any_n]['tokens']})",
                f"FRANK BA-cv (n={fr[any_n]['n']}, mean ± sd)",
                "FRANK partial r",
                f"SummEval BA-cv (n={se[any_n]['n']}, mean ± sd)",
                f"ranking (pairs={result['ranking'][any_n]['all'][1]})",
            ],
            rows,
        )
        sets = [k for k in result["ranking"][any_n] if k != "all"]
        by_errors = result.get("ranking_consistency")
        extra_cols = (
            [
                f"polytope, consistency errors ({by_errors[any_n]['polytope'][1]})",
                f"all so ({by_errors[any_n]['all'][1]})",
            ]
            if by_errors
            else []
        )
        table(
            "Ranking accuracy by set (faithful above unfaithful, same source; Polytope by its "
            "accuracy label, then by its consistency errors alone)",
            ["checker", *[f"{s} ({result['ranking'][any_n][s][1]})" for s in sets], *extra_cols],
            [
                [
                    n,
                    *[pct(result["ranking"][n][s][0]) for s in sets],
                    *(
                        [pct(by_errors[n]["polytope"][0]), pct(by_errors[n]["all"][0])]
                        if by_errors
                        else []
                    ),
                ]
                for n in names
            ],
        )
    if "ranking_lost" in result:
        lost = result["ranking_lost"]
        places = list(next(iter(lost.values())))
        table(
            "Where the ranking pairs ordered wrong lie, in points of the ranking (both outputs "
            "scored 0.8 or more; the faithful one below 0.5; between)",
            ["checker", *places],
            [[n, *[pct(lost[n][p]) for p in places]] for n in names],
        )
    if "demo" in result:
        dm = result["demo"]
        table(
            "Demo project (resources/demo; threshold 0.5)",
            ["checker", "AUC", "faithful flagged", "unfaithful caught"],
            [
                [
                    n,
                    f"{dm[n]['auc']:.2f}",
                    f"{dm[n]['faithful_flagged']}/{dm[n]['faithful']}",
                    f"{dm[n]['unfaithful_caught']}/{dm[n]['unfaithful']}",
                ]
                for n in names
            ],
        )
    if "qa" in result:
        lines.append(format_qa_table(result["qa"]))
    if "probes" in result:
        from models.probes import format_probe_table

        lines.append("Probe set of hard cases (resources/probes; threshold 0.5)")
        lines.append(format_probe_table(result["probes"]))
        lines.append("")
    if "nli" in result:
        lines.append(format_nli_table(result["nli"]))
    lines.append("checkers: " + "; ".join(f"{k} = {v}" for k, v in result["checkers"].items()))
    lines.append(f"evaluation time: {result.get('seconds', 0)} s")
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """Option errors as a one-line :class:`UsageError` (the CLI prints it, as JSON with --json)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def main(argv: Sequence[str] | None = None) -> int:
    """``factdesk eval [--json] [--data DIR] [--limit N] [--checkers ...] [--model-dir DIR]
    [--qa-only | --nli-only | --demo-only]``."""
    from models.training.data import default_data_dir

    parser = _Parser(prog="factdesk eval")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--limit", type=int, default=None, help="at most N items per data set")
    parser.add_argument("--checkers", nargs="*", default=None)
    parser.add_argument(
        "--model-dir", type=Path, default=None, help="an arc/support model directory to evaluate"
    )
    parser.add_argument(
        "--qa-only", action="store_true", help="only the QA row (answers read with their question)"
    )
    parser.add_argument(
        "--nli-only",
        action="store_true",
        help="only the NLI model's accuracy on MultiNLI dev-matched, SNLI test and ANLI",
    )
    parser.add_argument(
        "--demo-only",
        action="store_true",
        help="only the demo project and the probe set (bundled; no shared data needed)",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    log = None if args.json else (lambda m: print(m, file=sys.stderr, flush=True))
    if args.demo_only:
        result = demo_and_probes(_checkers(args.checkers, args.model_dir))
        print(json.dumps(result, indent=2) if args.json else format_tables(result))
        return 0
    if args.nli_only:
        nli = nli_benchmarks(args.data, args.limit)
        print(json.dumps({"nli": nli}, indent=2) if args.json else format_nli_table(nli))
        return 0
    if args.qa_only:
        from models.training.examples import ParseCache

        names = args.checkers
        if names is None:
            from models.checkers.nli import bundled_available as nli_available
            from models.registry import default_checkers

            # The three-way NLI model judges the combined score's yes/no answers: its own row.
            if nli_available():
                names = [n for n in default_checkers() if n != "lexical"] + ["nli"]
        loaded = _checkers(names, args.model_dir)
        qa = evaluate_qa(
            qa_items(args.data, args.limit),
            loaded,
            ParseCache(DEFAULT_WORK / "parse_cache.pkl"),
            log,
        )
        checkers = {n: f"{c.name} {c.version}" for n, c in loaded.items()}
        print(
            json.dumps({"qa": qa, "checkers": checkers}, indent=2)
            if args.json
            else format_qa_table(qa)
        )
        return 0
    result = run_evaluation(
        args.data,
        checkers=args.checkers,
        limit=args.limit,
        progress=log,
        model_dir=args.model_dir,
    )
    print(json.dumps(result, indent=2) if args.json else format_tables(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
