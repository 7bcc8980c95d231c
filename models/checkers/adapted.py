"""The combined score adapted to one project: a small head over the bundled combined score.

The head reads, per output sentence, the logit of the bundled combined probability and the
standardised logits of the components the combiner weighs (the DAE sentence score and lowest
arc, sentence support, alignment, the claims' NLI judgment), and gives a new probability that the
sentence is supported: ``σ(w · [logit p, z_dae, z_dae_min, z_support, z_align, z_nli] + b)``.
With ``w = (1, 0, 0, 0, 0, 0)`` and
``b = 0`` it is the bundled model exactly, which is where fitting starts and what its penalty
pulls towards (:mod:`models.training.adapt`). The lexical rule enters through the bundled
probability only: its scores are not stored in a project, and the head must be computable from
stored scores so that re-scoring a project needs no model run.

An optional arc head recalibrates the arc scores (the DAE model's, which the combined score
shows) on the editor's arc judgments: ``σ(a · logit p + b)``, identity when ``a = 1, b = 0``;
the sentences' lowest arc follows (the map is increasing).

The head's spec is a small JSON object kept inside the project file; its version is the
bundled combined score's version plus a hash of the head's weights.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from models.checkers.base import ArcScore, PairInput, PairScore, SentenceScore, pair_score
from models.checkers.combined import CombinedChecker, Combiner, logit, sentence_features
from models.errors import ModelLoadError

KIND = "factdesk-project-head"
#: Component features the head reads beside the bundled probability (all stored in projects).
HEAD_FEATURES = ("dae", "dae_min", "support", "align", "nli")


class Head:
    """A fitted head: weights over [logit(bundled p), standardised component logits]."""

    def __init__(self, spec: dict[str, Any]) -> None:
        if spec.get("kind") != KIND:
            raise ModelLoadError(f"not a project head (kind {KIND!r} expected)")
        self.spec = spec
        self.features: list[str] = list(spec["features"])
        self.mean = np.asarray(spec["mean"], np.float64)
        self.sd = np.asarray(spec["sd"], np.float64)
        self.weights = np.asarray(spec["weights"], np.float64)
        self.bias = float(spec["bias"])
        if len(self.weights) != len(self.features) + 1:
            raise ModelLoadError("project head: weights do not match its features")
        #: The arc head (``a``, ``b``), or None: arc scores as the bundled model gives them.
        self.arc: dict[str, float] | None = spec.get("arc")
        digest = json.dumps(
            [self.features, spec["mean"], spec["sd"], spec["weights"], self.bias, spec["base"]]
            + ([[self.arc["a"], self.arc["b"]]] if self.arc else [])
        )
        self.hash = hashlib.sha1(digest.encode()).hexdigest()[:8]
        self.base_version: str = str(spec["base"])
        self.version = f"{self.base_version}+p{self.hash}"

    def design(self, base: np.ndarray, comps: np.ndarray) -> np.ndarray:
        """The head's inputs: (n,) bundled probabilities and (n, k) raw component values
        (NaN where a component did not check the sentence: the standardised value is 0)."""
        comps = np.asarray(comps, np.float64).reshape(len(base), len(self.features))
        z = (logit(np.where(np.isnan(comps), 0.5, comps)) - self.mean) / self.sd
        z = np.where(np.isnan(comps), 0.0, z)
        return np.concatenate([logit(np.asarray(base, np.float64))[:, None], z], 1)

    def predict(self, base: np.ndarray, comps: np.ndarray) -> np.ndarray:
        if not len(base):
            return np.zeros(0)
        return 1.0 / (1.0 + np.exp(-(self.design(base, comps) @ self.weights + self.bias)))

    def arc_score(self, p: float | None) -> float | None:
        """An arc score (or a sentence's lowest arc) through the arc head."""
        if p is None or self.arc is None:
            return p
        z = float(logit(np.array([p]))[0])
        return 1.0 / (1.0 + float(np.exp(-(self.arc["a"] * z + self.arc["b"]))))


def identity_spec(combiner: Combiner, base_version: str) -> dict[str, Any]:
    """The head that reproduces the bundled model (the start and the prior of a fit)."""
    idx = [combiner.features.index(f) for f in HEAD_FEATURES]
    return {
        "kind": KIND,
        "base": base_version,
        "features": list(HEAD_FEATURES),
        "mean": [float(combiner.mean[i]) for i in idx],
        "sd": [float(combiner.sd[i]) for i in idx],
        "weights": [1.0] + [0.0] * len(HEAD_FEATURES),
        "bias": 0.0,
    }


def component_values(
    results: dict[str, PairScore], sentence: int, features: Sequence[str]
) -> list[float]:
    """One sentence's raw component values for the head (NaN: not checked)."""
    return [np.nan if v is None else v for v in sentence_features(features, results, sentence)]


class AdaptedCombinedChecker(CombinedChecker):
    """The bundled combined score with a project head on top (same name, its own version)."""

    display_name = "combined score (adapted to this project)"

    def __init__(self, base: CombinedChecker, head: Head) -> None:
        super().__init__(base._combiner, base._components, base._answers)
        if head.base_version != base.version:
            raise ModelLoadError(
                f"the project model adapts combined score {head.base_version}, "
                f"but the bundled one is {base.version}: adapt again"
            )
        self.head = head
        self.base_version = base.version
        self.version = head.version

    def combine(
        self,
        item: PairInput,
        results: dict[str, PairScore],
        answers: PairScore | None = None,
    ) -> PairScore:
        base = super().combine(item, results, answers)
        sentences = list(base.sentences)
        checked = [k for k, ss in enumerate(sentences) if ss.score is not None]
        if checked:
            probs = self.head.predict(
                np.array([sentences[k].score for k in checked], np.float64),
                np.array(
                    [
                        component_values(results, sentences[k].sentence, self.head.features)
                        for k in checked
                    ],
                    np.float64,
                ),
            )
            for k, p in zip(checked, probs.tolist(), strict=True):
                ss = sentences[k]
                sentences[k] = SentenceScore(
                    ss.sentence,
                    p,
                    self.head.arc_score(ss.min_arc),
                    ss.evidence,
                    ss.omitted,
                    ss.not_checked,
                )
        arcs = base.arcs
        if self.head.arc is not None:
            arcs = tuple(
                ArcScore(a.sentence, a.arc, self.head.arc_score(a.score) or 0.0) for a in arcs
            )
        return pair_score(item.key, self, sentences, arcs)
