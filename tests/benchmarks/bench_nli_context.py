"""How well the NLI model reads a premise among unrelated sentences (prints a table).

    python tests/benchmarks/bench_nli_context.py [--pairs N] [--model-dir DIR ...]

The app reads each claim against a window of up to five source sentences, most of which say
nothing about it. This takes N MultiNLI dev-matched pairs (held out: never trained on; seeded)
and puts k other dev-matched premises around each premise, at a random place (k = 0, 2, 4);
the label holds, since the added text is about something else. For each exported model
(default: the bundled one, ``resources/models/nli``) it prints three-way accuracy and the
entailed-vs-rest AUC of P(entailment) and of P(entailment) - P(contradiction) per k. About a
minute per model for 400 pairs on 2 cores.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

ADDED = (0, 2, 4)


def main() -> int:
    from models.checkers.nli import BUNDLED_DIR, OnnxNLI
    from models.evaluation import auc
    from models.training.data import default_data_dir
    from models.training.nli_data import BENCHMARK_MNLI, LABELS, held_out

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--model-dir", type=Path, nargs="*", default=[BUNDLED_DIR])
    args = ap.parse_args()
    data = default_data_dir()
    pairs = held_out(data, BENCHMARK_MNLI, n=args.pairs, seed=1)
    pool = [p.premise for p in held_out(data, BENCHMARK_MNLI, n=3000, seed=7)]
    y = np.array([LABELS.index(p.label) for p in pairs])
    print(f"MultiNLI dev-matched, {len(pairs)} pairs, k unrelated premises around each premise")
    print(f"{'model':<40} {'k':>2} {'accuracy':>9} {'AUC P(e)':>9} {'AUC P(e)-P(c)':>14}")
    for model_dir in args.model_dir:
        runtime = OnnxNLI(model_dir)
        e, c = LABELS.index("entailment"), LABELS.index("contradiction")
        columns = {name: i for i, name in runtime.id2label.items()}
        rng = random.Random(0)
        for k in ADDED:
            premises = []
            for p in pairs:
                added = [q for q in rng.sample(pool, k + 1) if q != p.premise][:k]
                at = rng.randint(0, len(added))
                premises.append(" ".join([*added[:at], p.premise, *added[at:]]))
            probs = runtime.predict(premises, [p.hypothesis for p in pairs])
            # the model's columns in LABELS order
            probs = probs[:, [columns[name] for name in LABELS]]
            entailed = (y == e).astype(int)
            print(
                f"{str(model_dir)[-40:]:<40} {k:>2} {100 * (probs.argmax(1) == y).mean():>9.1f} "
                f"{auc(probs[:, e], entailed):>9.3f} "
                f"{auc(probs[:, e] - probs[:, c], entailed):>14.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
