"""The combined score: one calibrated judgment from the arc, sentence, alignment and lexical signals.

Each signal misses different errors (the arc model checks relations, the alignment checker finds
words with no counterpart, the lexical rule is exact); a logistic regression fitted on
training-side labelled summaries only (:mod:`models.training.combine`) weighs them. Per output
sentence the features are each checker's sentence score (and the lowest DAE arc); the result is
the probability that the sentence is supported, so 0.5 is a meaningful default threshold. The
arcs shown are the DAE model's; the evidence is the support checker's window. A signal that did
not check a sentence is replaced by its training mean; a sentence no signal checked is not
checked, with the first reason given.

A yes/no answer's claim is also judged by a three-way NLI model when one is installed
(``answers``, :mod:`models.checkers.nli`): the arc/support signals are binary and cannot tell a
passage that contradicts a claim (a supported "No.") from one that says nothing about it (an
unsupported "No."). The NLI checker scores "Yes." by the entailment probability of the claim and
"No." by the contradiction probability of the claim it denies; the sentence's score is the mean
of that and the combined probability in logit space (:func:`blend`). The NLI model runs only on
pairs with a yes/no claim, so summaries and other pairs are scored exactly as without it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.checkers.base import (
    Checker,
    Grain,
    PairInput,
    PairScore,
    Progress,
    SentenceScore,
    ShouldStop,
    pair_score,
)
from models.errors import ModelLoadError, ModelNotFoundError
from models.resources import resources_dir

BUNDLED_FILE = resources_dir() / "models" / "combiner.json"
#: The fast path's combiner: the same features, fitted with ``nli-fast`` giving ``nli``.
FAST_FILE = BUNDLED_FILE.with_name("combiner_fast.json")
KIND = "factdesk-combiner"

#: Feature name -> (component checker, which value of its sentence score).
FEATURES: dict[str, tuple[str, str]] = {
    "dae": ("dae", "score"),
    "dae_min": ("dae", "min_arc"),
    "support": ("support", "score"),
    "align": ("align", "score"),
    "lexical": ("lexical", "score"),
    "questions": ("questions", "score"),
    "grounding": ("grounding", "score"),
    # the claims of the sentence judged against joined evidence by the NLI model
    "nli": ("nli", "score"),
    # 1 where the question-based check finds a name or figure the source answers otherwise
    "questions_conflict": ("questions", "conflict"),
}


#: Features that speak against support (1 = a name or figure the source answers otherwise): the
#: monotone fit keeps their weight at or below 0, the others' at or above.
AGAINST = frozenset({"questions_conflict"})


#: Components that only match words. A yes/no answer's claim takes its words from the question,
#: so their match says how the question was worded, not whether the answer is supported: for
#: such claims they are left out (as a signal that did not check the sentence is).
WORD_MATCH = frozenset({"lexical", "align", "questions"})


def blend(combined: float | None, nli: float) -> float:
    """A yes/no sentence's score from the combined probability and the NLI checker's: the mean
    of their logits, equal weights (no weight fitted on QA items); the NLI score alone when no
    combined feature checked the sentence.

    Of three designs measured on the held-out yes/no QA items this one was kept: the NLI score
    instead of the combined one, and "No." as the entailment of the negated claim, both did worse
    with the bundled-size model (README, QA row).
    """
    if combined is None:
        return nli
    z = (logit(np.asarray(combined)) + logit(np.asarray(nli))) / 2.0
    return float(1.0 / (1.0 + np.exp(-z)))


def has_yes_no(item: PairInput) -> bool:
    """Whether any sentence of a pair is a yes/no answer read as a claim."""
    return any(c is not None and c.kind == "yes/no" for c in item.claims)


def bundled_available(path: Path = BUNDLED_FILE) -> bool:
    return path.is_file()


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def sentence_features(
    names: Sequence[str], results: dict[str, PairScore], sentence: int
) -> list[float | None]:
    """One output sentence's feature values (None where that checker did not check it)."""
    values: list[float | None] = []
    for name in names:
        checker, field = FEATURES[name]
        ss = results[checker].sentences[sentence]
        if field == "conflict":
            # a conflict is the question-based check's 0; any other answer is no conflict
            v = None if ss.score is None else (1.0 if ss.score == 0.0 else 0.0)
        else:
            v = ss.score if field == "score" else ss.min_arc
        values.append(None if v is None or ss.not_checked is not None else float(v))
    return values


class Combiner:
    """The fitted model: standardised logits of the features → logistic regression."""

    def __init__(self, spec: dict[str, Any]) -> None:
        if spec.get("kind") != KIND:
            raise ModelLoadError(f"not a combiner file (kind {KIND!r} expected)")
        self.spec = spec
        self.features: list[str] = list(spec["features"])
        unknown = [f for f in self.features if f not in FEATURES]
        if unknown:
            raise ModelLoadError(f"combiner: unknown features {unknown}")
        self.mean = np.asarray(spec["mean"], np.float64)
        self.sd = np.asarray(spec["sd"], np.float64)
        self.weights = np.asarray(spec["weights"], np.float64)
        self.bias = float(spec["bias"])
        digest = json.dumps([self.features, spec["mean"], spec["sd"], spec["weights"], self.bias])
        self.version = hashlib.sha1(digest.encode()).hexdigest()[:8]

    @property
    def components(self) -> list[str]:
        return list(dict.fromkeys(FEATURES[f][0] for f in self.features))

    def predict(self, rows: Sequence[Sequence[float | None]]) -> np.ndarray:
        """Support probability per row; a missing value takes the training mean."""
        if not rows:
            return np.zeros(0)
        x = np.array([[np.nan if v is None else v for v in r] for r in rows], np.float64)
        z = (logit(np.where(np.isnan(x), 0.5, x)) - self.mean) / self.sd
        z = np.where(np.isnan(x), 0.0, z)
        return 1.0 / (1.0 + np.exp(-(z @ self.weights + self.bias)))


def load_combiner(path: Path = BUNDLED_FILE) -> Combiner:
    if not path.is_file():
        raise ModelNotFoundError(f"{path}: no combiner file here.")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: cannot read: {exc}") from exc
    return Combiner(spec)


class CombinedChecker:
    """Runs its component checkers and combines their sentence scores."""

    name = "combined"
    display_name = "combined score"
    grain: Grain = "arc"

    def __init__(
        self,
        combiner: Combiner,
        components: dict[str, Checker],
        answers: Checker | None = None,
    ) -> None:
        """``answers``: the three-way NLI checker that judges yes/no claims (None: the
        combined features judge them too)."""
        missing = [c for c in combiner.components if c not in components]
        if missing:
            raise ModelLoadError(f"combined score: component checkers missing: {missing}")
        self._combiner = combiner
        self._components = {n: components[n] for n in combiner.components}
        self._answers = answers
        # Short enough to read in the window; it changes when the weights or any component do
        # (each component's own scores keep their full versions).
        parts = "+".join(f"{n}={c.version}" for n, c in self._components.items())
        if answers is not None:
            parts += f"+answers={answers.version}"
        self.version = f"{combiner.version}.{hashlib.sha1(parts.encode()).hexdigest()[:6]}"
        # Where its models ran: "cpu int8", or each place when they differ (rules run anywhere).
        places = [getattr(c, "runs_on", None) for c in self._components.values()]
        self.runs_on = ", ".join(dict.fromkeys(p for p in places if p)) or "cpu"

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        results = {
            n: c.score(batch, batch_size=batch_size, should_stop=should_stop)
            for n, c in self._components.items()
        }
        answered: dict[int, PairScore] = {}
        asked = [k for k, item in enumerate(batch) if has_yes_no(item)]
        if self._answers is not None and asked:
            scored = self._answers.score(
                [batch[k] for k in asked], batch_size=batch_size, should_stop=should_stop
            )
            answered = dict(zip(asked, scored, strict=True))
        out = [
            self.combine(item, {n: r[k] for n, r in results.items()}, answered.get(k))
            for k, item in enumerate(batch)
        ]
        if progress is not None:
            progress(len(batch), len(batch))
        return out

    def combine(
        self,
        item: PairInput,
        results: dict[str, PairScore],
        answers: PairScore | None = None,
    ) -> PairScore:
        """One pair's combined result from its components' results (and, for a pair with a
        yes/no claim, the NLI checker's result ``answers``)."""
        names = self._combiner.features
        # A sentence is scored when a feature that carries weight read it: one read only by
        # weightless features (align, say, where the models' input is too short for it) would
        # get the bias alone, a score that says nothing about it.
        weighed = [w != 0 for w in self._combiner.weights]
        rows, checked = [], []
        for s in item.output.sentences:
            values = sentence_features(names, results, s.index)
            claim = item.claim(s.index)
            if claim is not None and claim.kind == "yes/no":
                values = [
                    None if FEATURES[n][0] in WORD_MATCH else v
                    for n, v in zip(names, values, strict=True)
                ]
            if any(v is not None and w for v, w in zip(values, weighed, strict=True)):
                rows.append(values)
                checked.append(s.index)
        probs = dict(zip(checked, self._combiner.predict(rows).tolist(), strict=True))
        if answers is not None:
            for s in item.output.sentences:
                claim = item.claim(s.index)
                value = answers.sentences[s.index].score
                if claim is not None and claim.kind == "yes/no" and value is not None:
                    probs[s.index] = blend(probs.get(s.index), value)
        arcs_from = results.get("dae") or next(iter(results.values()))
        window_from = results.get("support") or arcs_from
        sentences = []
        for s in item.output.sentences:
            base = window_from.sentences[s.index]
            arc_ss = arcs_from.sentences[s.index]
            if s.index in probs:
                # A flagged sentence says why in the NLI checker's words (which claim, and
                # which source sentence contradicts it or that the source does not say it).
                why = results["nli"].sentences[s.index].detail if "nli" in results else None
                sentences.append(
                    SentenceScore(
                        s.index,
                        probs[s.index],
                        arc_ss.min_arc,
                        base.evidence,
                        base.omitted,
                        None,
                        why if probs[s.index] < 0.5 else None,
                    )
                )
            else:
                reason = next(
                    (
                        r.sentences[s.index].not_checked
                        for r in results.values()
                        if r.sentences[s.index].not_checked
                    ),
                    "no checker could check this sentence",
                )
                sentences.append(
                    SentenceScore(s.index, None, None, base.evidence, base.omitted, reason)
                )
        return pair_score(item.key, self, sentences, arcs_from.arcs)


class FastCombinedChecker(CombinedChecker):
    """The fast path's combined score: the fast NLI model (``nli-fast``) in the ``nli`` slot,
    weighed by its own fit (:data:`FAST_FILE`): the bundled weights were fitted on the MPNet
    model's scores, and the MiniLM model's scores are spread differently."""

    name = "combined-fast"
    display_name = "combined score (fast NLI)"
