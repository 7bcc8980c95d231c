"""Held-out MultiNLI dev-matched pairs through the app: import -> analyze -> export (prints).

    python tests/benchmarks/bench_nli_pipeline.py [--pairs 1000] [--checker NAME ...]

A seeded sample of MultiNLI dev-matched (never trained on: ``models.training.nli_data``) becomes
a JSON Lines file (premise = source, hypothesis = output, the gold label as metadata); the
``factdesk`` command line imports it into a fresh project, analyses it with the default checkers
(or those named) and exports it. From the export: for each checker's pair score (and the shown
one, ``combined``), entailed-vs-rest AUC and balanced accuracy at 0.5, beside the targets of
issue 27 (AUC >= 0.93, BA >= 85). Three-way accuracy of the NLI model itself is in
``factdesk eval`` and the model card.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def main() -> int:
    import numpy as np

    from models.evaluation import auc, balanced_accuracy
    from models.training.data import default_data_dir
    from models.training.nli_data import BENCHMARK_MNLI, held_out

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--checker", action="append", default=None)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    pairs = held_out(default_data_dir(), BENCHMARK_MNLI, args.pairs, args.seed)
    cli = [sys.executable, "-m", "app.cli"]
    with tempfile.TemporaryDirectory(prefix="factdesk-mnli-") as tmp:
        data = Path(tmp) / "mnli.jsonl"
        with data.open("w", encoding="utf-8") as fh:
            for n, p in enumerate(pairs):
                record = {"id": f"mnli-{n}", "source": p.premise, "output": p.hypothesis}
                fh.write(json.dumps(record | {"gold": p.label}) + "\n")
        project = Path(tmp) / "mnli.factdesk"
        out = Path(tmp) / "out.jsonl"
        run = [*cli, "analyze", str(project)]
        for name in args.checker or []:
            run += ["--checker", name]
        started = time.monotonic()
        for step in (
            [*cli, "new", str(project)],
            [*cli, "import", str(project), str(data)],
            run,
            [*cli, "export", str(project), str(out)],
        ):
            subprocess.run(step, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        seconds = time.monotonic() - started
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    gold = {f"mnli-{n}": p.label == "entailment" for n, p in enumerate(pairs)}
    names = sorted({n for r in records for n in r.get("checkers", {})})
    print(
        f"MultiNLI dev-matched, {len(records)} pairs, import -> analyze -> export: {seconds:.0f} s"
    )
    print(f"{'checker':<12} {'AUC':>6} {'BA@0.5':>7}   (targets for the shown score: 0.93, 85)")
    for name in names:
        ys, xs = [], []
        for r in records:
            score = r.get("checkers", {}).get(name, {}).get("score")
            ys.append(int(gold[r["id"]]))
            xs.append(0.0 if score is None else float(score))
        y, x = np.asarray(ys), np.asarray(xs)
        print(f"{name:<12} {auc(x, y):6.3f} {100 * balanced_accuracy(y, x >= 0.5):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
