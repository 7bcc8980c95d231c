"""Combined-score candidates on the held-out sets, from one scoring of their components (prints).

    python tests/benchmarks/bench_combiner.py [--limit 300] [--candidate FILE ...] [--fast]

A combiner file (`python -m models.training.combine --out FILE ...`) changes only how the
components' sentence scores are weighed, so the components score each held-out set once (the
same samples as `factdesk eval --limit N`; kept in `build/training`, a file per component and
version, so a second run reads them back and a new version of one component re-scores that one)
and every combiner is applied to those scores without a model run. `--fast` measures the fast
path: its combiner (`combined-fast`) first, with `nli-fast`, `dae-fast` and `support-fast` in
the `nli`, `dae` and `support` slots (candidates are applied to the same checkers).
Per combiner (the bundled one first), and per component alone (`--components`): FRANK balanced
accuracy (threshold by cross-validation) and partial r, SummEval balanced accuracy, ranking
accuracy over all sets and per set, where the pairs it orders wrong lie (both outputs read as
supported, at 0.8 or more; the faithful one flagged; between), pair AUC within each set, and on
the demo, the probes and 600 MultiNLI dev-matched pairs the AUC, the faithful pairs flagged at
0.5 and the balanced accuracy at 0.5. Two columns guard against a combiner that wins by reading
which data set a pair comes from rather than what it says: the AUC within each set, and within
FRANK's multi-sentence outputs alone ("FRANK multi"; FRANK mixes one-sentence BBC outputs,
mostly unfaithful, with CNN/DM ones of three and more sentences).

Minutes on 2 cores: about 20 for the first scoring at `--limit 300`, seconds after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def inputs(limit: int | None) -> dict[str, tuple[list[Any], list[Any]]]:
    """Per set: the pairs as the app reads them and their records (summary sets) or labels
    (``{"faithful": 0/1}``: the demo, the probes, MultiNLI)."""
    from models.checkers.base import PairInput
    from models.claims import pair_input
    from models.evaluation import DEFAULT_WORK, held_out_summaries
    from models.probes import load_probes
    from models.resources import resources_dir
    from models.training.data import default_data_dir
    from models.training.examples import ParseCache
    from models.training.nli_data import BENCHMARK_MNLI, held_out

    cache = ParseCache(DEFAULT_WORK / "parse_cache.pkl")

    def pairs(sources: list[str], outputs: list[str]) -> list[Any]:
        docs, outs = cache.parse(sources), cache.parse(outputs)
        return [PairInput(i, d, o) for i, (d, o) in enumerate(zip(docs, outs, strict=True))]

    out: dict[str, tuple[list[Any], list[Any]]] = {}
    for name, recs in held_out_summaries(default_data_dir(), limit).items():
        out[name] = (pairs([r.document for r in recs], [r.summary for r in recs]), recs)
    rows = [
        json.loads(line)
        for line in (resources_dir() / "demo" / "demo_pairs.jsonl").read_text().splitlines()
        if line
    ]
    docs, outs = cache.parse([r["source"] for r in rows]), cache.parse([r["output"] for r in rows])
    out["demo"] = (
        [
            pair_input(i, d, o, r.get("context"), parse=cache.parse)
            for i, (r, d, o) in enumerate(zip(rows, docs, outs, strict=True))
        ],
        [{"faithful": int(bool(r["expected"]["faithful"]))} for r in rows],
    )
    probes = load_probes()
    out["probes"] = (
        pairs([p.source for p in probes], [p.output for p in probes]),
        [{"faithful": int(p.faithful)} for p in probes],
    )
    mnli = held_out(default_data_dir(), BENCHMARK_MNLI, 600, 7)
    out["mnli"] = (
        pairs([p.premise for p in mnli], [p.hypothesis for p in mnli]),
        [{"faithful": int(p.label == "entailment")} for p in mnli],
    )
    cache.save()
    return out


def component_scores(
    sets: dict[str, tuple[list[Any], list[Any]]], parts: dict[str, Any], limit: int | None
) -> dict[str, dict[str, list[Any]]]:
    """Each component's pair results on each set (by set, then by feature slot: ``parts`` maps a
    slot such as ``nli`` to the checker in it, ``nli-fast`` on the fast path), kept on disk one
    file per checker, version and parser version: a new version of one component re-scores that
    one alone."""
    from models.evaluation import DEFAULT_WORK
    from models.parsing import pipeline_version

    def path(checker: Any) -> Path:
        key = hashlib.sha1(
            json.dumps([limit, checker.name, checker.version, pipeline_version()]).encode()
        )
        return DEFAULT_WORK / f"bench_combiner_{checker.name}_{key.hexdigest()[:12]}.pkl"

    stored: dict[str, dict[str, list[Any]]] = {}
    for slot, checker in parts.items():
        if path(checker).is_file():
            with path(checker).open("rb") as fh:
                stored[slot] = pickle.load(fh)
    missing = {slot: c for slot, c in parts.items() if slot not in stored}
    for slot in missing:
        stored[slot] = {}
    for label, (batch, _) in sets.items() if missing else ():
        started = time.monotonic()
        for slot in missing:
            stored[slot][label] = []
        # every missing component on a chunk in turn: the heads on the NLI model's encoder reuse
        # the pass that the NLI checker made on it
        for lo in range(0, len(batch), 32):
            for slot, checker in missing.items():
                stored[slot][label] += checker.score(batch[lo : lo + 32], batch_size=16)
        print(f"{label}: {len(batch)} pairs scored in {time.monotonic() - started:.0f} s")
    for slot, checker in missing.items():
        file = path(checker)
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump(stored[slot], fh)
        tmp.replace(file)
    return {label: {slot: stored[slot][label] for slot in parts} for label in sets}


def combined_values(
    combined: Any,
    sets: dict[str, tuple[list[Any], list[Any]]],
    scores: dict[str, dict[str, list[Any]]],
) -> dict[str, np.ndarray]:
    """One combined checker's pair scores on every set, from its components' stored results."""
    from models import evaluation as E
    from models.checkers.combined import has_yes_no

    values: dict[str, np.ndarray] = {}
    for label, (batch, _) in sets.items():
        got = scores[label]
        values[label] = np.array(
            [
                E._pair_value(
                    combined.combine(
                        item,
                        {n: got[n][k] for n in combined._combiner.components},
                        # the NLI checker's reading of a yes/no claim, blended in only where
                        # the combiner does not weigh it already (as the app does)
                        got["nli"][k]
                        if combined._answers is not None and has_yes_no(item)
                        else None,
                    )
                )
                for k, item in enumerate(batch)
            ]
        )
    return values


def measure(
    values: dict[str, np.ndarray], sets: dict[str, tuple[list[Any], list[Any]]]
) -> dict[str, Any]:
    """The figures of one checker's pair scores (``values``, by set)."""
    from models import evaluation as E

    def meta(label: str, field: str) -> list[Any]:
        return [m[field] if isinstance(m, dict) else getattr(m, field) for m in sets[label][1]]

    out: dict[str, Any] = {}
    frank = sets["frank"][1]
    frank_y = meta("frank", "faithful")
    out["FRANK BA"] = 100 * E.cv_balanced_accuracy(values["frank"].tolist(), frank_y)[0]
    out["FRANK r"] = E.partial_correlation(
        values["frank"],
        meta("frank", "score"),
        [meta("frank", "system"), [r.extra["dataset"] for r in frank]],
    )
    out["SummEval BA"] = (
        100 * E.cv_balanced_accuracy(values["summeval"].tolist(), meta("summeval", "faithful"))[0]
    )
    ranking = E.ranking_by_set(
        {label: sets[label][1] for label in E.SUMMARY_SETS},
        {label: values[label] for label in E.SUMMARY_SETS},
    )
    for label in E.SUMMARY_SETS:
        out[f"ranking {label}"] = 100 * ranking[label][0]
    out["ranking"] = 100 * ranking["all"][0]
    out["ranking pairs"] = f"{ranking['all'][1]:,}"
    # where the pairs ordered wrong lie, in points of the ranking (they add up to 100 - ranking)
    lost = E.losses_by_place(
        {label: sets[label][1] for label in E.SUMMARY_SETS},
        {label: values[label] for label in E.SUMMARY_SETS},
    )
    for place, share in lost.items():
        out[f"ranking lost, {place}"] = 100 * share
    # Polytope by its consistency errors alone (its accuracy label counts omissions too)
    consistent = E.by_consistency({label: sets[label][1] for label in E.SUMMARY_SETS})
    by_errors = E.ranking_by_set(consistent, {label: values[label] for label in E.SUMMARY_SETS})
    out["ranking polytope consistency"] = 100 * by_errors["polytope"][0]
    out["ranking, Polytope so"] = 100 * by_errors["all"][0]
    out["ranking pairs so"] = f"{by_errors['all'][1]:,}"
    for label in E.SUMMARY_SETS:
        y = np.array([-1 if f is None else f for f in meta(label, "faithful")])
        out[f"AUC {label}"] = E.auc(values[label][y >= 0], y[y >= 0])
    y = np.array([r.faithful for r in consistent["polytope"]])
    out["AUC polytope consistency"] = E.auc(values["polytope"], y)
    multi = np.array([len(item.output.sentences) > 1 for item in sets["frank"][0]])
    out["AUC FRANK multi"] = E.auc(values["frank"][multi], np.array(frank_y)[multi])
    for label in ("demo", "probes", "mnli"):
        y = np.array(meta(label, "faithful"))
        v = values[label]
        out[f"{label} AUC"] = E.auc(v, y)
        out[f"{label} flagged"] = f"{int(((v < 0.5) & (y == 1)).sum())}/{int(y.sum())}"
        out[f"{label} BA@0.5"] = 100 * E.balanced_accuracy(1 - y, (v < 0.5).astype(int))
    return out


def conflicts(
    sets: dict[str, tuple[list[Any], list[Any]]], scores: dict[str, dict[str, list[Any]]]
) -> dict[str, tuple[int, int]]:
    """Per set: pairs where the question-based check finds a conflict (a sentence it scores 0,
    as the combined score's conflict flag reads it), and how many of them are faithful."""
    out = {}
    for label, (_, meta) in sets.items():
        hit = [
            m["faithful"] if isinstance(m, dict) else m.faithful
            for m, result in zip(meta, scores[label]["questions"], strict=True)
            if any(s.score == 0.0 for s in result.sentences)
        ]
        out[label] = (len(hit), sum(1 for f in hit if f == 1))
    return out


def main() -> int:
    from models import evaluation as E
    from models.bundled import FAST_IN_PLACE
    from models.checkers.combined import BUNDLED_FILE, FAST_FILE, CombinedChecker, load_combiner
    from models.registry import default_checkers, load_checker

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=300, help="items per held-out set (0: all)")
    ap.add_argument("--candidate", type=Path, nargs="*", default=[], help="combiner files")
    ap.add_argument(
        "--components",
        nargs="*",
        default=["nli", "dae", "support"],
        help="components also measured alone, by their own pair scores",
    )
    ap.add_argument(
        "--fast",
        action="store_true",
        help="the fast path: its combiner (combined-fast) and its checkers in the nli, dae and "
        "support slots (nli-fast, dae-fast, support-fast)",
    )
    args = ap.parse_args()
    limit = args.limit or None
    files = [FAST_FILE if args.fast else BUNDLED_FILE, *args.candidate]
    combiners = [load_combiner(f) for f in files]
    slots = sorted({"nli", *args.components, *(n for c in combiners for n in c.components)})
    default_checkers()  # registers the bundled checkers
    in_place = FAST_IN_PLACE if args.fast else {}
    parts = {slot: load_checker(in_place.get(slot, slot)) for slot in slots}
    sets = inputs(limit)
    scores = component_scores(sets, parts, limit)
    table: dict[str, dict[str, Any]] = {}
    for f, c in zip(files, combiners, strict=True):
        checker = CombinedChecker(c, parts, None if "nli" in c.components else parts["nli"])
        name = str(f.relative_to(REPO) if f.is_relative_to(REPO) else f)
        table[name] = measure(combined_values(checker, sets, scores), sets)
    for slot in args.components:
        own = {
            label: np.array([E._pair_value(p) for p in got[slot]]) for label, got in scores.items()
        }
        table[parts[slot].name] = measure(own, sets)
    print(
        f"held-out sets at most {limit or 'all'} items each; targets FRANK 75 / 0.30, SummEval 74,"
    )
    print(
        "ranking 80, demo AUC 0.85 with <= 1/8 flagged, probes <= 6/65 flagged, MultiNLI 0.93 / 85"
    )
    width = max(len(k) for k in next(iter(table.values())))
    print(f"{'':<{width}}  " + "  ".join(f"{name[-24:]:>24}" for name in table))
    for row in next(iter(table.values())):
        cells = []
        for figures in table.values():
            v = figures[row]
            cells.append(f"{v:>24}" if isinstance(v, str) else f"{v:>24.3f}")
        print(f"{row:<{width}}  " + "  ".join(cells))
    if "questions" in scores[next(iter(scores))]:
        found = conflicts(sets, scores)
        print(
            "question-based check, pairs with a conflict (faithful among them): "
            + ", ".join(f"{label} {n} ({f})" for label, (n, f) in found.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
