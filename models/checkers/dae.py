"""Arc entailment (DAE): each content arc of an output sentence scored against its evidence.

Goyal & Durrett's dependency arc entailment: the evidence window and the output sentence are
encoded together, each arc is classified from the states of its head and child words' *first*
word-pieces and a learned label embedding. Sentence score = mean arc score (as the paper), the
minimum is reported beside it; the pair score is the lowest sentence score. A word is flagged
when all its arcs are below 0.5 (see :func:`flagged_words`).
"""

from __future__ import annotations

from collections.abc import Sequence

from models.arc_runtime import Prediction
from models.checkers.base import (
    ArcScore,
    Grain,
    PairInput,
    PairScore,
    arc_sentence_score,
    pair_score,
)
from models.checkers.multitask import MultiTaskChecker
from models.document import Sentence
from models.evidence import Evidence


def flagged_words(
    sentence: Sentence, scores: Sequence[float | None], threshold: float = 0.5
) -> list[int]:
    """Token indices whose every scored arc is below ``threshold`` (the DAE paper's rule)."""
    per_word: dict[int, list[float]] = {}
    for arc, value in zip(sentence.arcs, scores, strict=True):
        if value is None:
            continue
        for i in (arc.head, arc.child):
            per_word.setdefault(i, []).append(value)
    return sorted(i for i, vals in per_word.items() if vals and max(vals) < threshold)


class DAEChecker(MultiTaskChecker):
    """The bundled (or a user's trained) arc-entailment model."""

    short_name = "dae"
    display_name = "arc entailment (DAE)"
    grain: Grain = "arc"

    def assemble(
        self, item: PairInput, windows: Sequence[Evidence], preds: dict[int, Prediction]
    ) -> PairScore:
        sentences, arcs = [], []
        for s, ev in zip(item.output.sentences, windows, strict=True):
            values: list[float] = []
            if s.index in preds:
                for k, v in enumerate(preds[s.index][0]):
                    if v is not None:
                        arcs.append(ArcScore(s.index, k, v))
                        values.append(v)
            sentences.append(arc_sentence_score(s.index, values, ev))
        return pair_score(item.key, self, sentences, arcs)
