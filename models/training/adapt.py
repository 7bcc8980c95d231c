"""Fit a project head (:mod:`models.checkers.adapted`) on an editor's judgments, CPU only.

The head starts as the bundled combined score and is refitted on the project's judgments plus
the combiner's own 300 training rows replayed (``resources/models/combiner_replay.json``): the
replayed rows weigh as much as :data:`REPLAY_WEIGHT` judgments together, and a penalty pulls the
weights towards the bundled model, so a few judgments move the model without erasing it. Both
parts are class-balanced, so 0.5 stays the point where a flag is as likely to be a miss as a
false alarm. A Newton fit over one weight per feature: milliseconds, whatever the project
size.

``python -m models.training.adapt --build-replay [--data DIR] [--work DIR]`` writes the replay
file from the combiner stage's cached scores (:mod:`models.training.combine`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.checkers.adapted import HEAD_FEATURES, Head, identity_spec
from models.checkers.combined import Combiner, load_combiner
from models.errors import Cancelled, ModelLoadError, ModelNotFoundError
from models.resources import resources_dir

REPLAY_FILE = resources_dir() / "models" / "combiner_replay.json"
REPLAY_KIND = "factdesk-combiner-replay"
#: The replayed training rows together weigh as much as this many judgments.
REPLAY_WEIGHT = 100.0
#: Penalty pulling the head's weights towards the bundled model (per unit of total weight).
PRIOR = 0.01


@dataclass(frozen=True)
class Rows:
    """Training rows of a head: bundled probability, raw component values (NaN: unchecked),
    label (1 supported) and a weight."""

    base: np.ndarray
    comps: np.ndarray
    y: np.ndarray
    weight: np.ndarray

    def __len__(self) -> int:
        return len(self.y)


def balanced_weights(y: np.ndarray, total: float) -> np.ndarray:
    """Per-row weights: each class present gets an equal share of ``total``."""
    y = np.asarray(y)
    out = np.zeros(len(y))
    classes = [c for c in (0, 1) if (y == c).any()]
    for c in classes:
        out[y == c] = total / len(classes) / (y == c).sum()
    return out


def load_replay(combiner: Combiner, path: Path = REPLAY_FILE) -> Rows:
    """The combiner's training rows as head rows, weighing :data:`REPLAY_WEIGHT` in all."""
    if not path.is_file():
        raise ModelNotFoundError(f"{path}: no replay file here.")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: cannot read: {exc}") from exc
    if spec.get("kind") != REPLAY_KIND or spec.get("features") != combiner.features:
        raise ModelLoadError(f"{path}: not replay rows of this combiner's features")
    x = np.array([[np.nan if v is None else v for v in r] for r in spec["x"]], np.float64)
    y = np.asarray(spec["y"], np.float64)
    rows = [[None if np.isnan(v) else float(v) for v in r] for r in x]
    base = combiner.predict(rows)
    comps = x[:, [combiner.features.index(f) for f in HEAD_FEATURES]]
    return Rows(base, comps, y, balanced_weights(y, REPLAY_WEIGHT))


def fit_head(
    start: dict[str, Any],
    judged: Rows,
    replay: Rows | None,
    *,
    prior: float = PRIOR,
    steps: int = 50,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """A head spec fitted on the judged rows (and replayed rows), penalised towards ``start``.

    Raises:
        Cancelled: ``should_stop`` returned True between two Newton steps.
    """
    head = Head(start)
    parts = [judged] + ([replay] if replay is not None and len(replay) else [])
    x = np.concatenate([head.design(p.base, p.comps) for p in parts])
    y = np.concatenate([p.y for p in parts]).astype(np.float64)
    sw = np.concatenate([p.weight for p in parts])
    design = np.concatenate([np.ones((len(y), 1)), x], 1)
    w0 = np.concatenate([[head.bias], head.weights])
    k = design.shape[1]
    # The bias is pulled less: a project's base rate may differ from the training side's.
    penalty = prior * sw.sum() * np.diag([0.1] + [1.0] * (k - 1))
    w = w0.copy()
    for step in range(steps):
        if should_stop is not None and should_stop():
            raise Cancelled("adaptation cancelled")
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        grad = design.T @ (sw * (y - p)) - penalty @ (w - w0)
        hess = (design * (sw * p * (1 - p))[:, None]).T @ design + penalty + 1e-9 * np.eye(k)
        delta = np.linalg.solve(hess, grad)
        w += delta
        if progress is not None:
            progress(step + 1, steps)
        if np.abs(delta).max() < 1e-9:
            break
    if progress is not None:
        progress(steps, steps)
    spec = dict(start)
    spec["bias"] = float(w[0])
    spec["weights"] = [float(v) for v in w[1:]]
    spec["trained_on"] = {
        "judgments": int(len(judged)),
        "judged_supported": int(judged.y.sum()),
        "replayed": 0 if replay is None else int(len(replay)),
        "replay_weight": 0.0 if replay is None else float(replay.weight.sum()),
        "prior": prior,
    }
    return spec


def adapt(
    combiner: Combiner,
    base_version: str,
    judged: Rows,
    *,
    replay: bool = True,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Head:
    """The project head for these judged rows (replaying the bundled training rows)."""
    judged = Rows(judged.base, judged.comps, judged.y, balanced_weights(judged.y, len(judged.y)))
    return Head(
        fit_head(
            identity_spec(combiner, base_version),
            judged,
            load_replay(combiner) if replay else None,
            progress=progress,
            should_stop=should_stop,
        )
    )


#: Fewer arc judgments than this (or none of one kind) and the arc scores are left as they are.
MIN_ARC_JUDGMENTS = 8


def fit_arc_head(
    scores: np.ndarray, y: np.ndarray, *, prior: float = 0.05, steps: int = 50
) -> dict[str, float] | None:
    """``a, b`` of ``σ(a · logit p + b)`` on judged arcs (class-balanced, pulled towards the
    identity ``a = 1, b = 0``); None with too few judgments to move anything."""
    from models.checkers.combined import logit

    y = np.asarray(y, np.float64)
    if len(y) < MIN_ARC_JUDGMENTS or not (y == 1).any() or not (y == 0).any():
        return None
    design = np.stack([np.ones(len(y)), logit(np.asarray(scores, np.float64))], 1)
    sw = balanced_weights(y, float(len(y)))
    w0 = np.array([0.0, 1.0])
    penalty = prior * len(y) * np.diag([0.1, 1.0])
    w = w0.copy()
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        grad = design.T @ (sw * (y - p)) - penalty @ (w - w0)
        hess = (design * (sw * p * (1 - p))[:, None]).T @ design + penalty + 1e-9 * np.eye(2)
        delta = np.linalg.solve(hess, grad)
        w += delta
        if np.abs(delta).max() < 1e-9:
            break
    return {"a": float(w[1]), "b": float(w[0]), "judgments": int(len(y))}


# ---------------------------------------------------------------------- the replay file
def build_replay(data_dir: Path, work: Path, out: Path = REPLAY_FILE) -> dict[str, Any]:
    """Write the combiner's training rows (pair features, labels): the rows
    :func:`models.training.combine.collect` fits on, from the scores it keeps in ``work`` (the
    bundled components are loaded to name them; an output not scored yet is scored)."""
    from models.training.combine import collect, load_components

    combiner = load_combiner()
    checkers = load_components(combiner.features)
    wanted = combiner.spec.get("components", {})
    stale = [n for n, c in checkers.items() if wanted.get(n) not in (None, c.version)]
    if stale:
        raise ModelNotFoundError(
            f"the combiner was fitted on other versions of {', '.join(stale)}: "
            "run python -m models.training.combine first"
        )
    nli_rows = int(combiner.spec.get("trained_on", {}).get("nli_pairs", 0))
    x, y = collect(data_dir, work, checkers, combiner.features, lambda _: None, nli_rows)
    spec = {
        "kind": REPLAY_KIND,
        "combiner": combiner.version,
        "features": combiner.features,
        "x": [[None if np.isnan(v) else float(v) for v in row] for row in x],
        "y": [int(v) for v in y],
        "note": "pair features (lowest sentence value per signal) and labels of the "
        "training-side rows the combiner was fitted on (models.training.combine)",
    }
    out.write_text(json.dumps(spec), encoding="utf-8")
    return spec


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.adapt")
    parser.add_argument("--build-replay", action="store_true", required=True)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--work", type=Path, default=Path("build/training"))
    parser.add_argument("--out", type=Path, default=REPLAY_FILE)
    args = parser.parse_args(argv)
    spec = build_replay(args.data, args.work, args.out)
    print(f"{args.out}: {len(spec['y'])} rows ({sum(spec['y'])} faithful)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
