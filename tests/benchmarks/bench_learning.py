"""Learning from the editor, measured by simulation (issue 14).

``python tests/benchmarks/bench_learning.py [--data ../shared/data] [--per-set 300]``

A simulated editor judges pairs of ``summeval``, ``frank_valid`` and ``xsumfaith`` with their
gold labels (pair level: supported = faithful), once in import order and once in the queue's
order (:mod:`app.learning.queue`). For N = 25, 50, 100, 200 judged pairs it prints balanced
accuracy and AUC of the default checker (the combined score) on the pairs whose documents were
*not* seen in judging: the bundled model at its default threshold (0.5), after calibration
(threshold fitted on the N judgments), after adaptation (:mod:`models.training.adapt`, threshold
0.5 and calibrated), and how many unfaithful pairs each order found in the first N.

Only held-out documents are used (never a document the combiner was fitted on): the FRANK and
SummEval documents that are not training documents, and the dev split of XSumFaith. Scoring
thousands of pairs with the default checkers on a 2-core machine is slow, so each set is
subsampled by whole documents (seeded; ``--per-set``) and the component checkers' sentence
scores are cached under ``build/learning/`` (the second run takes seconds). onnxruntime and
torch run on one thread, to leave the machine to others.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

CACHE = ROOT / "build" / "learning"
SETS = ("summeval", "frank_valid", "xsumfaith")
NS = (25, 50, 100, 200)


@dataclass
class Pair:
    dataset: str
    doc: str  # document fingerprint
    faithful: int
    sentences: list[list[float | None]]  # per output sentence: combiner feature values


def _one_thread() -> None:
    """onnxruntime and torch on one thread each (the machine is shared)."""
    import onnxruntime as ort

    base = ort.SessionOptions

    class OneThread(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.intra_op_num_threads = 1
            self.inter_op_num_threads = 1

    ort.SessionOptions = OneThread  # type: ignore[misc]
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def held_out_records(data_dir: Path, dataset: str, per_set: int, seed: int = 0) -> list:
    """Held-out labelled records of one set, whole documents sampled, in file order."""
    from models.training import data as D
    from models.training.examples import fingerprint, training_fingerprints

    train = training_fingerprints(data_dir)
    if dataset == "summeval":
        recs = [r for r in D.read_summeval(data_dir) if fingerprint(r.document) not in train]
    elif dataset == "frank_valid":
        recs = [r for r in D.read_frank(data_dir) if fingerprint(r.document) not in train]
    else:
        recs = [r for r in D.read_xsumfaith(data_dir) if D.split_of(r.doc_id) == "dev"]
    recs = [r for r in recs if r.faithful is not None]
    docs = list(dict.fromkeys(fingerprint(r.document) for r in recs))
    random.Random(seed).shuffle(docs)
    chosen: set[str] = set()
    count = 0
    by_doc: dict[str, int] = {}
    for r in recs:
        by_doc[fingerprint(r.document)] = by_doc.get(fingerprint(r.document), 0) + 1
    for d in docs:
        if count >= per_set:
            break
        chosen.add(d)
        count += by_doc[d]
    return [r for r in recs if fingerprint(r.document) in chosen]


def pair_key(r: object) -> str:
    return hashlib.sha1(
        (r.document + "\x00" + r.summary).encode()  # type: ignore[attr-defined]
    ).hexdigest()[:16]


def scored_pairs(data_dir: Path, dataset: str, per_set: int, log=print) -> list[Pair]:
    """The set's pairs with their component features, from the cache or scored now.

    The cache (``build/learning/<set>_<versions>.jsonl``, named by the combined score's version
    and its components') holds one line per scored pair, keyed by its texts, so a larger sample
    scores only the pairs it adds and a killed run resumes.
    """
    from models.checkers.combined import load_combiner
    from models.registry import load_checker
    from models.training.examples import fingerprint

    recs = held_out_records(data_dir, dataset, per_set)
    # every checker the bundled combined score reads, and the cache named by their versions:
    # a new model or combiner scores the pairs again instead of reading stale features
    _one_thread()  # before the checkers load: their sessions take it
    combiner = load_combiner()
    checkers = {n: load_checker(n, device="cpu") for n in combiner.components}
    versions = [combiner.version, *(f"{n}={c.version}" for n, c in sorted(checkers.items()))]
    key = hashlib.sha1(json.dumps(versions).encode()).hexdigest()[:12]
    path = CACHE / f"{dataset}_{key}.jsonl"
    done: dict[str, list] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a killed run
            done[d["key"]] = d["sentences"]
    todo = [r for r in recs if pair_key(r) not in done]
    if todo:
        done.update(_score(todo, path, log, dataset, combiner, checkers))
    return [
        Pair(dataset, fingerprint(r.document), int(r.faithful), done[pair_key(r)]) for r in recs
    ]


def _score(
    recs: list, path: Path, log, dataset: str, combiner: Any, checkers: dict[str, Any]
) -> dict[str, list]:
    from models.checkers.base import PairInput
    from models.checkers.combined import sentence_features
    from models.parsing import parse_many

    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    out: dict[str, list] = {}
    with path.open("a", encoding="utf-8") as fh:
        for k in range(0, len(recs), 16):
            chunk = recs[k : k + 16]
            parsed = parse_many([t for r in chunk for t in (r.document, r.summary)])
            batch = [PairInput(i, parsed[2 * i], parsed[2 * i + 1]) for i in range(len(chunk))]
            results = {n: c.score(batch, batch_size=16) for n, c in checkers.items()}
            for i, item in enumerate(batch):
                per = {n: r[i] for n, r in results.items()}
                rows = [
                    sentence_features(combiner.features, per, s.index)
                    for s in item.output.sentences
                ]
                out[pair_key(chunk[i])] = rows
                fh.write(json.dumps({"key": pair_key(chunk[i]), "sentences": rows}) + "\n")
            fh.flush()
            n = min(k + 16, len(recs))
            log(
                f"  {dataset}: scored {n}/{len(recs)} pairs ({(time.monotonic() - started) / n:.2f} s/pair)"
            )
    return out


def bench_adapt_project(pairs: int, judged: int) -> None:
    """Wall time of ``adapt_project`` (fit, store, re-score every pair from stored scores) on a
    project of ``pairs`` analysed pairs with ``judged`` pair judgments (fake component scores:
    the time is the store's, not the models')."""
    import tempfile

    sys.path.insert(0, str(ROOT / "tests" / "app"))
    import learning_fixture as F

    from app.learning.adapt import adapt_project

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        project = F.build(Path(tmp) / "adapt.factdesk", pairs=pairs, judge=judged)
        setup = time.perf_counter() - t
        t = time.perf_counter()
        report = adapt_project(project)
        wall = time.perf_counter() - t
        project.close()
    print(
        f"\nadapt a {pairs}-pair project with {judged} judgments (fit, store, re-score "
        f"{report.rescored_pairs} pairs from stored scores): {wall:.2f} s wall "
        f"(target < 300 s; project built in {setup:.0f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=default_data_dir())
    ap.add_argument("--per-set", type=int, default=300)
    ap.add_argument("--summeval", type=int, default=640, help="pairs sampled from SummEval")
    ap.add_argument("--score-only", action="store_true")
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    ap.add_argument("--adapt-pairs", type=int, default=2000, help="project size for the timing")
    args = ap.parse_args(argv)
    sizes = {"summeval": args.summeval, "frank_valid": args.per_set, "xsumfaith": args.per_set}
    pairs = {s: scored_pairs(args.data, s, sizes[s]) for s in args.sets}
    if args.score_only:
        return 0
    simulate(pairs)
    bench_adapt_project(args.adapt_pairs, 200)
    return 0


# ---------------------------------------------------------------------- the simulation
@dataclass
class Scored:
    """A set's pairs as arrays: bundled pair score, label, document, per-sentence rows."""

    score: np.ndarray  # bundled combined pair score (lowest checked sentence)
    y: np.ndarray  # 1 faithful
    docs: list[str]
    sent_base: list[np.ndarray]  # per pair: bundled probability per checked sentence
    sent_comps: list[np.ndarray]  # per pair: (sentences, len(HEAD_FEATURES)) raw head features
    disagree: list[tuple[int, ...]]  # per pair: sentences where dae and support disagree


def prepare(pairs: list[Pair]) -> Scored:
    from models.checkers.adapted import HEAD_FEATURES
    from models.checkers.combined import load_combiner

    combiner = load_combiner()
    idx = [combiner.features.index(f) for f in HEAD_FEATURES]
    score, base, comps, disagree = [], [], [], []
    for p in pairs:
        rows = [r for r in p.sentences if any(v is not None for v in r)]
        probs = combiner.predict(rows) if rows else np.zeros(0)
        score.append(float(probs.min()) if len(probs) else 0.5)
        base.append(probs)
        comps.append(
            np.array(
                [[np.nan if r[i] is None else r[i] for i in idx] for r in rows], np.float64
            ).reshape(len(rows), len(idx))
        )
        dae_min = combiner.features.index("dae_min")
        sup = combiner.features.index("support")
        disagree.append(
            tuple(
                n + 1
                for n, r in enumerate(rows)
                if r[dae_min] is not None
                and r[sup] is not None
                and (r[dae_min] < 0.5) != (r[sup] < 0.5)
            )
        )
    return Scored(
        np.array(score),
        np.array([p.faithful for p in pairs]),
        [p.doc for p in pairs],
        base,
        comps,
        disagree,
    )


def queue_order(sc: Scored, threshold: float = 0.5) -> list[int]:
    """The window's queue (app.learning.queue.rank) over the set, from the bundled model."""
    from app.learning.queue import Signals, rank

    sigs = [Signals(k, float(sc.score[k]), False, sc.disagree[k]) for k in range(len(sc.y))]
    return [item.output_id for item in rank(sigs, threshold)]


def adapted_scores(sc: Scored, judged: list[int]) -> tuple[np.ndarray, float]:
    """Pair scores of the whole set under a head adapted to the judged pairs; fit seconds."""
    from models.checkers.adapted import HEAD_FEATURES
    from models.checkers.combined import load_combiner
    from models.training.adapt import Rows, adapt

    combiner = load_combiner()
    width = len(HEAD_FEATURES)
    base, comps = [], []
    for k in judged:  # a pair judgment: the pair's lowest value per signal
        base.append(float(sc.sent_base[k].min()) if len(sc.sent_base[k]) else 0.5)
        c = sc.sent_comps[k]
        with np.errstate(all="ignore"):
            comps.append(
                [np.nan if np.isnan(col).all() else float(np.nanmin(col)) for col in c.T]
                if len(c)
                else [np.nan] * width
            )
    rows = Rows(
        np.array(base),
        np.array(comps).reshape(len(base), width),
        sc.y[judged].astype(float),
        np.ones(len(judged)),
    )
    t = time.perf_counter()
    head = adapt(combiner, "bench", rows)
    fit_s = time.perf_counter() - t
    out = np.array(
        [
            float(head.predict(sc.sent_base[k], sc.sent_comps[k]).min())
            if len(sc.sent_base[k])
            else 0.5
            for k in range(len(sc.y))
        ]
    )
    return out, fit_s


def measure(sc: Scored, order: list[int], evaluate: np.ndarray, n: int) -> dict[str, float]:
    """Figures after the first ``n`` pairs of ``order`` were judged, on the ``evaluate`` pairs
    (other documents)."""
    from app.learning.calibration import balanced_accuracy, best_threshold
    from models.evaluation import auc

    judged = order[:n]
    assert not {sc.docs[k] for k in judged} & {sc.docs[k] for k in evaluate}
    y, s = sc.y[evaluate], sc.score[evaluate]
    jy, js = sc.y[judged], sc.score[judged]
    out = {"found": float((jy == 0).sum())}
    out["ba_before"] = balanced_accuracy(s, y, 0.5)
    out["auc_before"] = auc(s, y)
    t_cal = best_threshold(js, jy) if len(set(jy)) == 2 else 0.5
    out["ba_calibrated"] = balanced_accuracy(s, y, t_cal)
    adapted, fit_s = adapted_scores(sc, judged)
    out["fit_s"] = fit_s
    out["ba_adapted"] = balanced_accuracy(adapted[evaluate], y, 0.5)
    ja = adapted[judged]
    t_ad = best_threshold(ja, jy) if len(set(jy)) == 2 else 0.5
    out["ba_adapted_calibrated"] = balanced_accuracy(adapted[evaluate], y, t_ad)
    out["auc_adapted"] = auc(adapted[evaluate], y)
    return out


def _cell(m: dict[str, float], key: str, pct: bool = True) -> str:
    if key not in m:
        return "—"
    return f"{100 * m[key]:.1f}" if pct else f"{m[key]:.3f}"


def _mean(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in runs])) for k in runs[0] if all(k in r for r in runs)}


def simulate(pairs: dict[str, list[Pair]], splits: int = 3, seeds: int = 5) -> int:
    """Print the figures: per set, each document split in half (judging side, evaluation side),
    ``splits`` times; the editor judges the judging side in import, queue or random order."""
    print(
        "Simulated editor: gold pair labels; the documents of each set are split in half "
        f"({splits} seeded splits, figures averaged): the editor judges pairs of one half, "
        "the figures are on the other half (documents never seen in judging).\n"
        "found = unfaithful pairs among the N judged; BA = balanced accuracy (%) on the "
        "evaluation half: bundled model at 0.5 (before), at the threshold calibrated on the "
        "N judgments, adapted (at 0.5), adapted + calibrated; AUC of the pair score. "
        f"random = mean of {seeds} random orders."
    )
    fit_times = []
    for name, plist in pairs.items():
        sc = prepare(plist)
        docs = sorted(set(sc.docs))
        print(
            f"\n{name}: {len(sc.y)} held-out pairs of {len(docs)} documents (subsampled by "
            f"document), {int((sc.y == 0).sum())} unfaithful"
        )
        print(
            f"{'order':<8} {'N':>4} {'found':>6} {'BA before':>9} {'BA calib':>8} "
            f"{'BA adapt':>8} {'BA ad+cal':>9} {'AUC before':>10} {'AUC adapt':>9}"
        )
        table: dict[tuple[str, int], list[dict[str, float]]] = {}
        sizes = []
        for split in range(splits):
            order_docs = list(docs)
            random.Random(100 + split).shuffle(order_docs)
            judge_docs = set(order_docs[: len(order_docs) // 2])
            side = [k for k in range(len(sc.y)) if sc.docs[k] in judge_docs]
            evaluate = np.array([k for k in range(len(sc.y)) if sc.docs[k] not in judge_docs])
            sizes.append((len(side), len(evaluate)))
            sub = Scored(
                sc.score[side],
                sc.y[side],
                [sc.docs[k] for k in side],
                [sc.sent_base[k] for k in side],
                [sc.sent_comps[k] for k in side],
                [sc.disagree[k] for k in side],
            )
            orders = {"import": side, "queue": [side[k] for k in queue_order(sub)]}
            rng = np.random.default_rng(split)
            for n in NS:
                if n > len(side):
                    continue
                for o, order in orders.items():
                    table.setdefault((o, n), []).append(measure(sc, order, evaluate, n))
                rand = [
                    measure(sc, [side[k] for k in rng.permutation(len(side))], evaluate, n)
                    for _ in range(seeds)
                ]
                table.setdefault(("random", n), []).append(_mean(rand))
        for n in NS:
            for o in ("import", "queue", "random"):
                if (o, n) not in table:
                    continue
                m = _mean(table[(o, n)])
                if n == 200:
                    fit_times.append(m["fit_s"])
                f = functools.partial(_cell, m)
                print(
                    f"{o:<8} {n:>4} {m['found']:>6.1f} {f('ba_before'):>9} "
                    f"{f('ba_calibrated'):>8} {f('ba_adapted'):>8} "
                    f"{f('ba_adapted_calibrated'):>9} {f('auc_before', False):>10} "
                    f"{f('auc_adapted', False):>9}"
                )
        judged, evaluated = np.mean(sizes, 0)
        print(f"(judging half {judged:.0f} pairs, evaluation half {evaluated:.0f} pairs, mean)")
    if fit_times:
        print(f"\nhead fit on 200 judgments + 300 replayed rows: {1000 * max(fit_times):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
