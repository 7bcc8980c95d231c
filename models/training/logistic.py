"""L2-regularised logistic regression by Newton steps (numpy only; a handful of features)."""

from __future__ import annotations

import numpy as np


def fit(
    x: np.ndarray,
    y: np.ndarray,
    *,
    l2: float = 1e-2,
    steps: int = 100,
    balanced: bool = False,
) -> tuple[np.ndarray, float]:
    """Weights and bias of ``P(y=1) = σ(x·w + b)``; the bias is not penalised.

    Args:
        x: (n, k) features (standardise them first so one ``l2`` fits all).
        y: (n,) labels in {0, 1}.
        l2: penalty on the weights, per example.
        balanced: weigh each class by the inverse of its frequency, so that 0.5 is the point
            where a flag is as likely to be a miss as a false alarm whatever the base rate.
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    n, k = x.shape
    design = np.concatenate([np.ones((n, 1)), x], 1)
    penalty = np.diag([0.0] + [l2 * n] * k) + 1e-9 * np.eye(k + 1)
    sample = np.ones(n)
    if balanced:
        positives = max(float(y.sum()), 1.0)
        negatives = max(float(n - y.sum()), 1.0)
        sample = np.where(y == 1, n / (2 * positives), n / (2 * negatives))
    w = np.zeros(k + 1)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        grad = design.T @ (sample * (y - p)) - penalty @ w
        hess = (design * (sample * p * (1 - p))[:, None]).T @ design + penalty
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-10:
            break
    return w[1:], float(w[0])
