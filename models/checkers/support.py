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
from models.arc_runtime import BUNDLED_DIR, Runtime, default_retriever, get_runner
from models.checkers.base import (
    Grain,
    PairInput,
    PairScore,
    Progress,
    SentenceScore,
    ShouldStop,
    pair_score,
)
from models.checkers.dae import arc_slots
from models.evidence import Retriever
from models.runtime import DevicePref

_DEFAULT = object()


class SupportChecker:
    """Sentence support from the bundled (or a user's trained) multi-task model."""

    display_name = "sentence support"
    grain: Grain = "sentence"

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
        self.name = "support" if bundled else f"support:{path.name}"
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
        results = []
        for n, item in enumerate(batch):
            windows = self._runner.windows(item, self._retriever)
            # Arcs go along so that the input (and the cache key) equals the DAE checker's.
            jobs = [
                (ev.text, s.text, arc_slots(s))
                for s, ev in zip(item.output.sentences, windows, strict=True)
                if ev.not_checked is None
            ]
            preds = iter(self._runner.predict(jobs, batch_size=batch_size, should_stop=should_stop))
            sentences = []
            for s, ev in zip(item.output.sentences, windows, strict=True):
                if ev.not_checked is not None:
                    sentences.append(
                        SentenceScore(s.index, None, None, (), ev.omitted, ev.not_checked)
                    )
                else:
                    sentences.append(
                        SentenceScore(
                            s.index, next(preds)[1], None, ev.sentence_indices, ev.omitted
                        )
                    )
            results.append(pair_score(item.key, self, sentences))
            if progress is not None:
                progress(n + 1, len(batch))
        return results


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
