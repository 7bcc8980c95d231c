"""Word-piece alignment between an output and its source (BERTScore-style precision).

Every output word-piece is matched to its most similar source word-piece by the cosine of their
contextual states at a middle layer of a sentence encoder (all-MiniLM-L6-v2, int8 ONNX). A piece
with no close counterpart anywhere in the source is what an editor should look at; the source
sentence holding its best match is the evidence for it. No training: the layer, the idf weights
and the two calibration maps (sentence and word) are chosen on training-side data only
(:mod:`models.training.combine`) and stored in the model's ``config.json``.

Long texts are encoded in overlapping windows; each piece keeps the state from the window where
it sits furthest from an edge, so every piece has context on both sides where the text allows.
Nothing here imports torch.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.encoding import shared_tokenizer
from models.errors import ModelLoadError, ModelNotFoundError
from models.resources import resources_dir
from models.runtime import DevicePref, onnx_model

BUNDLED_DIR = resources_dir() / "models" / "aligner"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
IDF_FILE = "idf.npy"
KIND = "factdesk-aligner"


def bundled_available(path: Path = BUNDLED_DIR) -> bool:
    return all((path / f).is_file() for f in (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE))


@dataclass(frozen=True, slots=True)
class Encoded:
    """One text's word-pieces: ids, character offsets into the text, unit-length states."""

    ids: np.ndarray  # (n,) int64
    offsets: np.ndarray  # (n, 2) int64, [start, end) in the text
    states: np.ndarray  # (n, d) float32, L2-normalised


def window_starts(n: int, window: int, stride: int) -> list[int]:
    """Start offsets of overlapping windows covering ``n`` pieces (the last one ends at ``n``)."""
    if n <= window:
        return [0]
    starts = list(range(0, n - window, stride))
    starts.append(n - window)
    return starts


def central_owner(n: int, starts: Sequence[int], window: int) -> np.ndarray:
    """For each piece, the window in which it lies furthest from either edge."""
    owner = np.zeros(n, np.int64)
    best = np.full(n, -1)
    pos = np.arange(n)
    for w, s in enumerate(starts):
        inside = (pos >= s) & (pos < s + window)
        margin = np.minimum(pos - s, s + window - 1 - pos)
        better = inside & (margin > best)
        owner[better] = w
        best[better] = margin[better]
    return owner


class TokenEncoder:
    """Contextual word-piece states from an exported encoder (one output: ``token_states``)."""

    def __init__(self, model_dir: str | Path = BUNDLED_DIR, *, device: DevicePref = "auto") -> None:
        path = Path(model_dir)
        if not bundled_available(path):
            raise ModelNotFoundError(
                f"{path}: no aligner model here ({MODEL_FILE}, {TOKENIZER_FILE}, {CONFIG_FILE})."
            )
        try:
            self.config: dict[str, Any] = json.loads((path / CONFIG_FILE).read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ModelLoadError(f"{path / CONFIG_FILE}: cannot read: {exc}") from exc
        if self.config.get("kind") != KIND:
            raise ModelLoadError(f"{path / CONFIG_FILE}: not an aligner model (kind {KIND!r}).")
        self._session, choice = onnx_model(path, device, MODEL_FILE)
        self.runs_on = choice.runs_on  # device and precision, recorded with each run
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = shared_tokenizer(path / TOKENIZER_FILE)
        self.window = int(self.config.get("window", 254))
        self.stride = int(self.config.get("stride", 192))
        self.cls_id = int(self.config.get("cls_id", 101))
        self.sep_id = int(self.config.get("sep_id", 102))
        self.version = str(self.config.get("version", "unversioned"))
        idf_path = path / IDF_FILE
        self.idf: np.ndarray | None = (
            np.load(idf_path).astype(np.float32) if idf_path.is_file() else None
        )

    def encode(self, text: str) -> Encoded:
        """States of every word-piece of ``text`` (no special tokens).

        Each window runs on its own: int8 dynamic quantisation scales activations over the whole
        input tensor, so a window batched with others would give other states than alone.
        """
        enc = self._tokenizer.encode(text, add_special_tokens=False)
        ids = np.asarray(enc.ids, np.int64)
        offsets = np.asarray(enc.offsets, np.int64).reshape(-1, 2)
        n = len(ids)
        if n == 0:
            return Encoded(ids, offsets, np.zeros((0, 0), np.float32))
        starts = window_starts(n, self.window, self.stride)
        owner = central_owner(n, starts, self.window)
        states: np.ndarray | None = None
        for w, s in enumerate(starts):
            piece = ids[s : s + self.window]
            window = np.asarray([[self.cls_id, *piece, self.sep_id]], np.int64)
            feed = {"input_ids": window, "attention_mask": np.ones_like(window)}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(window)
            out = self._session.run(["token_states"], feed)[0][0]
            if states is None:
                states = np.zeros((n, out.shape[-1]), np.float32)
            mine = np.nonzero(owner == w)[0]
            states[mine] = out[1 + mine - s]
        assert states is not None
        return Encoded(ids, offsets, states)

    def weights(self, ids: np.ndarray) -> np.ndarray:
        """Idf weight of each piece (1.0 everywhere when the model has no idf table)."""
        if self.idf is None or not self.config.get("use_idf", False):
            return np.ones(len(ids), np.float32)
        return self.idf[np.clip(ids, 0, len(self.idf) - 1)]


def best_matches(output: Encoded, source: Encoded) -> tuple[np.ndarray, np.ndarray]:
    """Per output piece: the best cosine to any source piece, and that source piece's index."""
    if len(output.ids) == 0 or len(source.ids) == 0:
        return np.zeros(len(output.ids), np.float32), np.zeros(len(output.ids), np.int64)
    # numpy's own loop, not BLAS: a multi-threaded BLAS rounds differently with its thread
    # count (a Ray worker has one), and a pair's scores must not depend on where it ran
    sims = np.einsum("ik,jk->ij", output.states, source.states)
    best = sims.argmax(1)
    return sims[np.arange(len(best)), best].astype(np.float32), best


def calibrate(raw: float | np.ndarray, scale: float, centre: float) -> Any:
    """Map a cosine-based similarity to [0, 1]: 0.5 at ``centre``, slope ``scale``."""
    return 1.0 / (1.0 + np.exp(-scale * (np.asarray(raw, np.float64) - centre)))


class SourceCache:
    """Encoded sources of the last few documents (several outputs of one source come together)."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[str, Encoded] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, text: str, encoder: TokenEncoder) -> Encoded:
        with self._lock:
            hit = self._items.get(text)
            if hit is not None:
                self._items.move_to_end(text)
                return hit
        value = encoder.encode(text)
        with self._lock:
            self._items[text] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value
