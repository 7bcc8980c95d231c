"""Arc entailment (DAE): each content arc of an output sentence scored against its evidence.

Goyal & Durrett's dependency arc entailment: the evidence window and the output sentence are
encoded together, each arc is classified from the states of its head and child words' *first*
word-pieces and a learned label embedding. Sentence score = mean arc score (as the paper), the
minimum is reported beside it; the pair score is the lowest sentence score. A word is flagged
when all its arcs are below 0.5 (see :func:`flagged_words`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from models.arc_runtime import BUNDLED_DIR, Runtime, default_retriever, get_runner
from models.checkers.base import (
    ArcScore,
    Grain,
    PairInput,
    PairScore,
    Progress,
    ShouldStop,
    arc_sentence_score,
    pair_score,
)
from models.document import Sentence
from models.encoding import ArcSlot
from models.evidence import Retriever
from models.runtime import DevicePref

_DEFAULT = object()


def arc_slots(sentence: Sentence) -> tuple[ArcSlot, ...]:
    """Arc word spans relative to the sentence text (what the model input holds)."""
    off = sentence.start
    return tuple(
        ArcSlot(
            (a.head_start - off, a.head_end - off),
            (a.child_start - off, a.child_end - off),
            a.label,
        )
        for a in sentence.arcs
    )


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


class DAEChecker:
    """The bundled (or a user's trained) arc-entailment model."""

    display_name = "arc entailment (DAE)"
    grain: Grain = "arc"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        device: DevicePref = "auto",
        runtime: Runtime = "onnx",
        retriever: Retriever | None | object = _DEFAULT,
    ) -> None:
        path = Path(model_dir) if model_dir is not None else BUNDLED_DIR
        self._runner = get_runner(path, runtime, device)
        self._retriever: Retriever | None = (
            default_retriever(device) if retriever is _DEFAULT else retriever  # type: ignore[assignment]
        )
        bundled = path.resolve() == BUNDLED_DIR.resolve()
        self.name = "dae" if bundled else f"dae:{path.name}"
        self.version = f"{self._runner.version}+{runtime}"
        self.max_tokens = self._runner.max_length

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        results: list[PairScore] = []
        for n, item in enumerate(batch):
            windows = self._runner.windows(item, self._retriever)
            jobs, where = [], []
            for s, ev in zip(item.output.sentences, windows, strict=True):
                if ev.not_checked is None and s.arcs:
                    jobs.append((ev.text, s.text, arc_slots(s)))
                    where.append(s.index)
            preds = dict(
                zip(
                    where,
                    self._runner.predict(jobs, batch_size=batch_size, should_stop=should_stop),
                    strict=True,
                )
            )
            sentences, arcs = [], []
            for s, ev in zip(item.output.sentences, windows, strict=True):
                values: list[float] = []
                if s.index in preds:
                    for k, v in enumerate(preds[s.index][0]):
                        if v is not None:
                            arcs.append(ArcScore(s.index, k, v))
                            values.append(v)
                sentences.append(arc_sentence_score(s.index, values, ev))
            results.append(pair_score(item.key, self, sentences, arcs))
            if progress is not None:
                progress(n + 1, len(batch))
        return results
