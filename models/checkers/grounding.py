"""Grounding by factual ablation: how much of the arc model's verdict comes from the source.

Text that is grounded in its source should become less likely once the source is removed; the
difference is a pointwise-mutual-information signal of grounding. Our models are classifiers,
not language models, so the same idea is read off the arc model: each output sentence is scored
twice, with its evidence window (the DAE score) and with the evidence removed (the sentence
alone: ``[CLS] [SEP] sentence [SEP]``). Per sentence

    grounding = sigmoid((logit(DAE with the source) - logit(DAE without it)) / 2)

(halved so that it spans the score range without saturating: the model is confident either
way) is high when the source is what makes the sentence entailed, 0.5 when the model says the same
with or without it, and low when the sentence reads as entailed on its own but not against its
source: plausible-sounding text the source does not back, the errors that are easiest to believe.
On the training side's 300 labelled unseen outputs the score without the source ranks faithful
outputs *below* unfaithful ones (AUC 0.36): what the model accepts without the source is more
often a hallucination. The sentence's ``detail`` states both scores.

Pairs are scored exactly as the DAE checker scores them (same windows, claims, batches); the
second pass reads only the sentences, so it costs a fraction of the first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from models.checkers.base import (
    Grain,
    PairInput,
    PairScore,
    Progress,
    SentenceScore,
    ShouldStop,
    pair_score,
)
from models.checkers.dae import DAEChecker
from models.checkers.multitask import Reading
from models.document import Sentence
from models.evidence import Evidence

REVISION = "ablation1"


class SourceRemoved(DAEChecker):
    """The arc model reading each output sentence (or claim) with no source at all."""

    short_name = "dae-no-source"
    display_name = "arc entailment without the source"

    @staticmethod
    def reading(item: PairInput, sentence: Sentence, evidence: Evidence) -> Reading:
        read = DAEChecker.reading(item, sentence, evidence)
        return replace(read, job=("", *read.job[1:]))


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def describe(with_source: float, without: float) -> str:
    """The detail line: both scores and what their difference says."""
    head = f"arc entailment with the source {with_source:.2f}, without it {without:.2f}: "
    if with_source >= 0.5 and without < 0.5:
        return head + "the source is what supports it"
    if with_source >= 0.5:
        return head + "the source adds little; the sentence reads as entailed on its own"
    if without >= 0.5:
        return head + "entailed on its own but not by the source: plausible, not backed"
    return head + "entailed neither way"


class GroundingChecker:
    """Sentence grounding: the DAE score against the DAE score with the source removed."""

    name = "grounding"
    display_name = "grounding (source ablation)"
    grain: Grain = "sentence"

    def __init__(self, model_dir: str | Path | None = None, **options: Any) -> None:
        """``options``: the DAE checker's (device, runtime, retriever)."""
        self._with = DAEChecker(model_dir, **options)
        self._without = SourceRemoved(model_dir, **options)
        if model_dir is not None:
            self.name = f"grounding:{Path(model_dir).name}"
        self.version = f"{self._with.version}+{REVISION}"
        self.runs_on = self._with.runs_on

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        # The first pass hits the runner's cache when the DAE checker has just read the same pairs.
        full = self._with.score(batch, batch_size=batch_size, should_stop=should_stop)
        alone = self._without.score(batch, batch_size=batch_size, should_stop=should_stop)
        out = [self._combine(item, f, a) for item, f, a in zip(batch, full, alone, strict=True)]
        if progress is not None:
            progress(len(batch), len(batch))
        return out

    def _combine(self, item: PairInput, full: PairScore, alone: PairScore) -> PairScore:
        sentences = []
        for f, a in zip(full.sentences, alone.sentences, strict=True):
            if f.score is None or a.score is None:
                sentences.append(f)  # not checked: the DAE checker's reason
                continue
            pmi = (_logit(f.score) - _logit(a.score)) / 2
            sentences.append(
                SentenceScore(
                    f.sentence,
                    1.0 / (1.0 + math.exp(-pmi)),
                    None,
                    f.evidence,
                    f.omitted,
                    detail=describe(f.score, a.score),
                )
            )
        return pair_score(item.key, self, sentences)
