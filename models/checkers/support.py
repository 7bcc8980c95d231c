"""Sentence support: is this output sentence fully supported by its evidence window?

The [CLS] head of the bundled multi-task model (one forward pass with the DAE arcs). Document
score SummaC-style: each output sentence is scored on its best evidence window (the retriever's
best-ranked packing of source sentences) and the pair score is the *minimum* over sentences.
A ``model_dir`` may be a directory saved by our trainer, or any Hugging Face NLI sequence
classifier, which is delegated to :class:`models.checkers.nli.NLISentenceChecker`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.arc_model import KIND
from models.arc_runtime import Prediction, Runtime, default_retriever
from models.checkers.base import (
    Grain,
    PairInput,
    PairScore,
    SentenceScore,
    pair_score,
    skipped_sentence,
)
from models.checkers.multitask import MultiTaskChecker, Reading
from models.evidence import Evidence
from models.runtime import DevicePref


class SupportChecker(MultiTaskChecker):
    """Sentence support from the bundled (or a user's trained) multi-task model."""

    short_name = "support"
    display_name = "sentence support"
    grain: Grain = "sentence"

    def assemble(
        self,
        item: PairInput,
        windows: Sequence[Evidence],
        preds: dict[int, tuple[Reading, Prediction]],
    ) -> PairScore:
        sentences = []
        for s, ev in zip(item.output.sentences, windows, strict=True):
            if s.index in preds:
                claim = item.claim(s.index)
                value = preds[s.index][1][1]
                if claim is not None and claim.denies is not None:
                    value = 1.0 - value  # a "No": supported as far as what it denies is not
                sentences.append(
                    SentenceScore(s.index, value, None, ev.sentence_indices, ev.omitted)
                )
            else:
                sentences.append(skipped_sentence(s.index, ev, s))
        return pair_score(item.key, self, sentences)


def load_support(
    model_dir: Path | None, device: DevicePref = "auto", runtime: Runtime = "onnx"
) -> Any:
    """The support checker for a directory: ours, or any HF NLI classifier (delegated)."""
    if model_dir is not None:
        config_path = Path(model_dir) / "config.json"
        kind = None
        if config_path.is_file():
            try:
                kind = json.loads(config_path.read_text(encoding="utf-8")).get("kind")
            except (OSError, json.JSONDecodeError):
                kind = None
        if kind != KIND:
            from models.checkers.nli import NLISentenceChecker

            return NLISentenceChecker(model_dir, device=device, retriever=default_retriever(device))
    return SupportChecker(model_dir, device=device, runtime=runtime)
