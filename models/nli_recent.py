"""NLI class probabilities already computed, by (model version, premise, hypothesis).

The combined score runs the NLI checker as a feature right after (or before) the same checker
runs on its own, and the bundled NLI graph also holds the arc and support heads
(:mod:`models.training.shared_encoder`): a pass the arc/support model makes over (evidence,
sentence) gives that pair's NLI probabilities as well. Whoever computes a row keeps it here and
the next reader of the same input takes it: the same inputs give the same row. Bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

_SIZE = 4096
_ROWS: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_LOCK = threading.Lock()


def recall(version: str, premise: str, hypothesis: str) -> np.ndarray | None:
    """The probabilities kept for this input of this model (a copy), else None."""
    key = (version, premise, hypothesis)
    with _LOCK:
        row = _ROWS.get(key)
        if row is None:
            return None
        _ROWS.move_to_end(key)
        return row.copy()


def remember(version: str, premise: str, hypothesis: str, row: np.ndarray) -> None:
    """Keep the probabilities of one input; the oldest go beyond the bound."""
    with _LOCK:
        _ROWS[(version, premise, hypothesis)] = np.array(row, np.float32)
        _ROWS.move_to_end((version, premise, hypothesis))
        while len(_ROWS) > _SIZE:
            _ROWS.popitem(last=False)


def forget() -> None:
    """Drop everything kept (tests compare a fresh reading with a kept one)."""
    with _LOCK:
        _ROWS.clear()
