"""Which evidence windows the `nli` checker should read each claim against (prints a table).

    python tests/benchmarks/bench_evidence_windows.py [--sets summaries,probes,demo] [--limit N]

Every claim the bundled `nli` checker judges (its own claims, hedged figures restated as it reads
them) is read against windows of the 1, 2, 3 and 5 most relevant source sentences (joined in
source order, as `models.evidence.build_windows(size=k)` builds them) and against the one window
that fills the model input (`size=None`, what the checker read before). A policy reads a claim
across its windows as the checker does (`NLISentenceChecker._reading`: as entailed as its
best-entailing window, as contradicted as its most-contradicting one); a sentence is its weakest
claim, a pair its weakest sentence, as in the checker. For each policy and set: pair AUC (faithful above unfaithful) and the faithful
pairs flagged (score < 0.5).

Sets: the training-side summaries the combined score is fitted on (FRANK, SummEval and Polytope
outputs of training-side documents: choose the policy here), the probe set and the demo (read
with their questions, as the app reads them). Minutes on 2 cores: about 8 for the summaries, 2
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
        for size, windows in per_size.items():
            w = windows[u]
            if w.not_checked is None:
                rows[size] = checker._probs([w.text], [text])[0]
        out.append((plan.owners[u], deny, rows))
    return out


def pair_value(checker, claims, policy: tuple[int | None, ...]) -> float | None:
    by: dict[int, list[float]] = {}
    for owner, deny, rows in claims:
        got = [rows[s] for s in policy if s in rows]
        if got:
            by.setdefault(owner, []).append(checker._reading(got, deny=deny)[0])
    return min(min(v) for v in by.values()) if by else None


def main() -> int:
    from models.checkers.nli import WINDOW_SIZES
    from models.evaluation import auc
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
        cells = []
        for name, rows in sets.items():
            values = [(pair_value(checker, c, policy), g) for c, g in rows]
            values = [(v, g) for v, g in values if v is not None]
            flagged = sum(v < 0.5 for v, g in values if g)
            cells.append(
                f"{name} {auc([v for v, _ in values], [g for _, g in values]):.3f} "
                f"{flagged}/{sum(g for _, g in values)}"
            )
        mark = " <- shipped" if policy == tuple(WINDOW_SIZES) else ""
        print(f"{str(policy):<16}" + "   ".join(cells) + mark)
    return 0


if __name__ == "__main__":
    sys.exit(main())
