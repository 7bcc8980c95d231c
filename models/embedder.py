"""Evidence retrieval with all-MiniLM-L6-v2 used as the sentence embedder it was trained to be.

Sentences are embedded by mean pooling over word-pieces, L2-normalised, and source sentences
are ranked by cosine similarity with each output sentence. The model runs from its exported
(int8) ONNX file with the ``tokenizers`` package; nothing here imports torch.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from models.document import ParsedText, Sentence
from models.encoding import shared_tokenizer
from models.errors import ModelNotFoundError
from models.resources import resources_dir
from models.runtime import DevicePref, onnx_model

BUNDLED_DIR = resources_dir() / "models" / "embedder"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


def bundled_available(path: Path = BUNDLED_DIR) -> bool:
    return (path / MODEL_FILE).is_file() and (path / TOKENIZER_FILE).is_file()


def _config_version(path: Path) -> str:
    """The ``version`` in a model folder's ``config.json``; empty when it has none."""
    import json

    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    version = config.get("version") if isinstance(config, dict) else None
    return str(version) if version else ""


class SentenceEmbedder:
    """Mean-pooled, normalised sentence embeddings from an exported encoder."""

    def __init__(
        self,
        model_dir: str | Path = BUNDLED_DIR,
        *,
        device: DevicePref = "auto",
        max_length: int = 256,
        cache_size: int = 4096,
    ) -> None:
        path = Path(model_dir)
        if not bundled_available(path):
            raise ModelNotFoundError(f"{path}: no {MODEL_FILE} and {TOKENIZER_FILE} here.")
        self._session, choice = onnx_model(path, device, MODEL_FILE)
        self.runs_on = choice.runs_on  # device and precision, recorded with each run
        #: The export's version (its config's), part of the versions of checkers ranking by it.
        self.version = _config_version(path)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = shared_tokenizer(path / TOKENIZER_FILE, max_length)
        self.max_length = max_length
        # Recent texts' embeddings: a source is ranked once per output (and per checker), and
        # several outputs of one source usually come together.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings, one row per text, unit length.

        Each text runs on its own, unpadded: a dynamically quantised graph (exports before
        weight-only int8) scales activations over the whole input tensor, so a text batched
        with others would embed differently from the same text alone, and the evidence ranks
        (and windows) of a pair would depend on what else is analysed with it. A text's
        embedding is thus a function of the text alone, and recent ones are kept.

        Two texts run at a time (:func:`_calls`): a sentence of about 20 word-pieces is too
        small to keep both cores busy inside one run, and two runs side by side embedded the
        36 sentences of a pair of ``tests/benchmarks/bench_models.py`` in 127-194 ms instead of
        237-266 (the same numbers to the last bit).
        """
        if len(texts) == 1:
            rows = [self._embed_one(texts[0])]
        else:
            rows = list(_calls().map(self._embed_one, texts))
        if not rows:
            return np.zeros((0, 384), np.float32)
        return np.stack(rows)

    def _embed_one(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._recent.get(text)
            if hit is not None:
                self._recent.move_to_end(text)
                return hit
        ids = np.asarray([self._tokenizer.encode(text).ids], np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        vector = self._session.run(None, feed)[0][0]
        with self._lock:
            self._recent[text] = vector
            while len(self._recent) > self._cache_size:
                self._recent.popitem(last=False)
        return vector


@functools.cache
def _calls() -> ThreadPoolExecutor:
    """The threads that run the embedder's texts two at a time (onnxruntime lets go of Python
    during a run)."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="factdesk-embed")


class EmbeddingRetriever:
    """A :class:`models.evidence.Retriever` ranking source sentences by embedding cosine."""

    name = "minilm-embedding"

    def __init__(self, embedder: SentenceEmbedder) -> None:
        self._embedder = embedder
        self.version = str(getattr(embedder, "version", "") or "")

    def rank(self, source: ParsedText, sentences: Sequence[Sentence]) -> list[list[float]]:
        if not source.sentences or not sentences:
            return [[] for _ in sentences]
        src = self._embedder.embed([s.text for s in source.sentences])
        out = self._embedder.embed([s.text for s in sentences])
        # Cosine similarity mapped to [0, 1] so that "relevant" keeps meaning "score > 0".
        sims = (out @ src.T + 1.0) / 2.0
        return sims.astype(float).tolist()


@functools.cache
def bundled_retriever(device: DevicePref = "auto") -> Any:
    """The bundled embedding retriever when its files are installed, else None."""
    if not bundled_available():
        return None
    return EmbeddingRetriever(SentenceEmbedder(BUNDLED_DIR, device=device))
