"""Which evidence windows the `nli` checker should read each claim against (prints a table).

    python tests/benchmarks/bench_evidence_windows.py [--sets summaries,probes,demo] [--limit N]

Every claim the bundled `nli` checker judges (its own claims, hedged figures restated as it reads
them) is read against windows of the 1, 2, 3 and 5 most relevant source sentences (joined in
source order, as `models.evidence.build_windows(size=k)` builds them) and against the one window
that fills the model input (`size=None`, what the checker read before). A policy reads a claim
across its windows as the checker does (`NLISentenceChecker._reading`: as entailed as its
best-entailing window, as contradicted as its most-contradicting one); a sentence is its weakest
claim, a pair its weakest sentence, as in the checker. For each policy and set: pair AUC (faithful above unfaithful) and the faithful
pairs flagged (score < 0.5). A second table keeps the shipped windows and changes the rule that
reads a claim across them (:data:`RULES`: the shipped one, the best window's margin, the widest or
the narrowest window alone, the widest window's contradiction, the mean contradiction, the narrow
window's contradiction only where the widest does not entail).

Sets: the training-side summaries the combined score is fitted on (FRANK, SummEval and Polytope
outputs of training-side documents: choose the policy here), the probe set and the demo (read
with their questions, as the app reads them). Minutes on 2 cores: about 5 for the summaries, 2
for the rest.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SIZES: tuple[int | None, ...] = (None, 1, 2, 3, 5)


def _summaries(limit: int | None) -> list[tuple[object, int]]:
    from models.checkers.base import PairInput
    from models.parsing import parse_many
    from models.training.calibration_data import training_side_records
    from models.training.combine import UNSEEN
    from models.training.data import default_data_dir

    recs = [
        r
        for r in training_side_records(default_data_dir())
        if r.faithful is not None and r.dataset in UNSEEN
    ][:limit]
    docs = parse_many([r.document for r in recs])
    outs = parse_many([r.summary for r in recs])
    return [
        (PairInput(i, d, o), int(bool(r.faithful)))
        for i, (r, d, o) in enumerate(zip(recs, docs, outs, strict=True))
    ]


def _probes(limit: int | None) -> list[tuple[object, int]]:
    from models.checkers.base import PairInput
    from models.parsing import parse_many
    from models.probes import load_probes

    probes = load_probes()[:limit]
    texts = list(dict.fromkeys(t for p in probes for t in (p.source, p.output)))
    parsed = dict(zip(texts, parse_many(texts), strict=True))
    return [(PairInput(p.id, parsed[p.source], parsed[p.output]), int(p.faithful)) for p in probes]


def _demo(limit: int | None) -> list[tuple[object, int]]:
    from models.claims import pair_input
    from models.parsing import parse_many
    from models.resources import resources_dir

    path = resources_dir() / "demo" / "demo_pairs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    rows = rows[:limit]
    docs = parse_many([r["source"] for r in rows])
    outs = parse_many([r["output"] for r in rows])
    return [
        (pair_input(i, d, o, r.get("context"), parse=parse_many), int(r["expected"]["faithful"]))
        for i, (r, d, o) in enumerate(zip(rows, docs, outs, strict=True))
    ]


def readings(checker, item) -> list[tuple[int, bool, dict[int | None, object]]]:
    """(owner sentence, denies, {window size: the model's class probabilities}) of each claim."""
    from models.checkers.nli import NO_EVIDENCE
    from models.evidence import build_windows

    plan = checker._plan(item)
    out = []
    per_size = {
        size: build_windows(
            item.source,
            plan.units,
            max_tokens=checker.max_tokens,
            count_tokens=checker.count_tokens,
            retriever=checker._retriever,
            size=size,
        )
        for size in SIZES
    }
    for u, restated in enumerate(plan.read):
        text = restated.text
        deny = plan.owners[u] in plan.denies
        rows = {}
        # each reading less what the model reads into the claim with no evidence, as the checker
        # reads it (NLISentenceChecker._debiased)
        alone = checker._probs([NO_EVIDENCE], [text])[0] if checker._neutral is not None else None
        for size, windows in per_size.items():
            w = windows[u]
            if w.not_checked is None:
                rows[size] = checker._debiased(checker._probs([w.text], [text])[0], alone)
        out.append((plan.owners[u], deny, rows))
    return out


def _rule(pick):
    """A reading rule from ``pick(entail, contra) -> (E, C)`` over the windows, narrow first."""

    def read(checker, rows, deny: bool) -> float:
        from models.checkers.nli import support_margin

        e = [float(r[checker._entail]) for r in rows]
        c = [float(r[checker._contradict]) for r in rows]
        entail, contra = pick(e, c)
        return support_margin(contra, entail) if deny else support_margin(entail, contra)

    return read


def _best_margin(e: list[float], c: list[float]) -> tuple[float, float]:
    k = max(range(len(e)), key=lambda w: e[w] - c[w])
    return e[k], c[k]


#: How a claim is read across its windows (three-way models only); None: the checker's own rule.
RULES = {
    "shipped: best entailment, worst contradiction": None,
    "best window's margin": _rule(_best_margin),
    "widest window alone": _rule(lambda e, c: (e[-1], c[-1])),
    "narrowest window alone": _rule(lambda e, c: (e[0], c[0])),
    "best entailment, widest's contradiction": _rule(lambda e, c: (max(e), c[-1])),
    "best entailment, mean contradiction": _rule(lambda e, c: (max(e), sum(c) / len(c))),
    # the wider window holds the narrow one: where it entails, the narrow window's contradiction
    # is taken for missing context (an unresolved "they") and the widest's counts
    "best entailment, narrow contradiction unless the widest entails": _rule(
        lambda e, c: (max(e), c[-1] if e[-1] >= c[-1] else max(c))
    ),
}


def pair_value(checker, claims, policy: tuple[int | None, ...], rule=None) -> float | None:
    by: dict[int, list[float]] = {}
    for owner, deny, rows in claims:
        got = [rows[s] for s in policy if s in rows]
        if got:
            value = (
                checker._reading(got, deny=deny)[0] if rule is None else rule(checker, got, deny)
            )
            by.setdefault(owner, []).append(value)
    return min(min(v) for v in by.values()) if by else None


def _cells(checker, sets, policy, rule=None) -> str:
    cells = []
    for name, rows in sets.items():
        values = [(pair_value(checker, c, policy, rule), g) for c, g in rows]
        values = [(v, g) for v, g in values if v is not None]
        flagged = sum(v < 0.5 for v, g in values if g)
        cells.append(f"{name} {auc_of(values):.3f} {flagged}/{sum(g for _, g in values)}")
    return "   ".join(cells)


def auc_of(values: list[tuple[float, int]]) -> float:
    from models.evaluation import auc

    return auc([v for v, _ in values], [g for _, g in values])


def main() -> int:
    from models.checkers.nli import WINDOW_SIZES
    from models.registry import load_checker

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sets", default="summaries,probes,demo")
    ap.add_argument("--limit", type=int, default=None, help="at most this many pairs per set")
    args = ap.parse_args()
    checker = load_checker("nli")
    loaders = {"summaries": _summaries, "probes": _probes, "demo": _demo}
    sets = {}
    for name in args.sets.split(","):
        started = time.monotonic()
        items = loaders[name](args.limit)
        sets[name] = [(readings(checker, item), gold) for item, gold in items]
        print(f"{name}: {len(items)} pairs read in {time.monotonic() - started:.0f} s", flush=True)
    policies = [(s,) for s in SIZES] + [
        p for n in (2, 3) for p in itertools.combinations(SIZES[1:], n)
    ]
    print()
    print(
        f"nli pair AUC / faithful flagged at 0.5, by the windows a claim is read against "
        f"(shipped: {WINDOW_SIZES}; None = one window filling the model input)"
    )
    for policy in policies:
        mark = " <- shipped" if policy == tuple(WINDOW_SIZES) else ""
        print(f"{str(policy):<16}" + _cells(checker, sets, policy) + mark)
    if checker._contradict is not None:
        print()
        print(f"the same, windows {WINDOW_SIZES}, by the rule that reads a claim across them")
        for label, rule in RULES.items():
            print(f"{label:<48}" + _cells(checker, sets, tuple(WINDOW_SIZES), rule))
    return 0


if __name__ == "__main__":
    sys.exit(main())
