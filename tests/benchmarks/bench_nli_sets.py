"""An NLI model as the `nli` checker reads it, on the sets that decide whether to ship it.

    python tests/benchmarks/bench_nli_sets.py [--model-dir DIR ...] [--sets summaries,probes,demo]

For each model directory (default: the bundled `nli` model), the `nli` checker with that model
and the bundled retriever scores three sets, and the table gives per set the pair AUC (faithful
above unfaithful), the faithful pairs it flags (score < 0.5) and the unfaithful ones it catches:

* summaries: the FRANK, SummEval and Polytope outputs of training-side documents, which no model
  here trains on (the combined score is fitted on them);
* probes: the probe set (`resources/probes`), paraphrases, fusions and one-detail errors;
* demo: the demo project's pairs, answers read with their questions.

Compare a candidate with the shipped model in one run (`--model-dir resources/models/nli DIR`):
the same parses, the same retrieval, only the model differs. Minutes on 2 cores (AVX2, no VNNI):
about 10 per model for the summaries, 2 for the rest.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def figures(checker, items: list[tuple[object, int]]) -> str:
    """``AUC flagged/faithful caught/unfaithful`` of the checker's pair scores on ``items``."""
    from models.evaluation import auc

    scores = checker.score([item for item, _ in items])
    values = [(s.score, g) for s, (_, g) in zip(scores, items, strict=True) if s.score is not None]
    flagged = sum(1 for v, g in values if g and v < 0.5)
    caught = sum(1 for v, g in values if not g and v < 0.5)
    faithful = sum(g for _, g in values)
    return (
        f"{auc([v for v, _ in values], [g for _, g in values]):.3f} "
        f"{flagged}/{faithful} {caught}/{len(values) - faithful}"
    )


def main() -> int:
    from bench_evidence_windows import _demo, _probes, _summaries

    from models.arc_runtime import default_retriever
    from models.checkers.nli import BUNDLED_DIR, NLISentenceChecker

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model-dir", type=Path, nargs="*", default=[BUNDLED_DIR])
    ap.add_argument("--sets", default="summaries,probes,demo")
    ap.add_argument("--limit", type=int, default=None, help="at most N pairs per set")
    args = ap.parse_args()
    loaders = {"summaries": _summaries, "probes": _probes, "demo": _demo}
    names = [n for n in args.sets.split(",") if n]
    sets = {n: loaders[n](args.limit) for n in names}
    print("AUC (faithful above unfaithful), faithful flagged, unfaithful caught (score < 0.5)")
    print(f"{'model':<28}" + "".join(f"{n:>26}" for n in names))
    for model_dir in args.model_dir:
        checker = NLISentenceChecker(model_dir, device="cpu", retriever=default_retriever("cpu"))
        started = time.monotonic()
        cells = [figures(checker, sets[n]) for n in names]
        label = f"{model_dir.name} ({checker.version.split('+')[0][:12]})"
        print(f"{label:<28}" + "".join(f"{c:>26}" for c in cells), flush=True)
        print(f"  {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
