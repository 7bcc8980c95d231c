"""Arc entailment (DAE): each content arc of an output sentence scored against its evidence.

Goyal & Durrett's dependency arc entailment: the evidence window and the output sentence are
encoded together, each arc is classified from the states of its head and child words' *first*
word-pieces and a learned label embedding. Sentence score = mean arc score (as the paper), the
minimum is reported beside it; the pair score is the lowest sentence score. A word is flagged
when all its arcs are below 0.5 (see :func:`flagged_words`). An answer sentence read as its claim
(:mod:`models.claims`) gets the mean over the claim's arcs; its own arcs keep their scores from
the same input wherever the claim copies their words.
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
from models.checkers.multitask import MultiTaskChecker, Reading
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
        self,
        item: PairInput,
        windows: Sequence[Evidence],
        preds: dict[int, tuple[Reading, Prediction]],
    ) -> PairScore:
        sentences, arcs = [], []
        for s, ev in zip(item.output.sentences, windows, strict=True):
            values: list[float] = []
            if s.index in preds:
                read, (probs, _support) = preds[s.index]
                values = [v for v in (probs[k] for k in read.own) if v is not None]
                claim = item.claim(s.index)
                if claim is not None and claim.denies is not None:
                    # A "No": each arc of the denied claim entailed counts against it.
                    values = [1.0 - v for v in values]
                for k, slot in enumerate(read.placed):
                    if slot is not None and probs[slot] is not None:
                        arcs.append(ArcScore(s.index, k, probs[slot]))  # type: ignore[arg-type]
            sentences.append(arc_sentence_score(s.index, values, ev, s))
        return pair_score(item.key, self, sentences, arcs)
