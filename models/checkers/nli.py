"""Sentence support from an NLI sequence classifier: the bundled three-way model or a user's.

The label mapping is read from the model's ``id2label``: the entailment probability is the
support score. Each output sentence is judged against its evidence window (premise = evidence,
hypothesis = sentence, or the sentence's claim when an answer is read with its question, see
:mod:`models.claims`); a "No." is judged by the contradiction probability of the claim it
denies when the model is three-way.

Two runtimes: the bundled model (``resources/models/nli``, trained by
:mod:`models.training.nli_model`: all-MiniLM-L6-v2 with a three-way head, int8 ONNX) runs through
onnxruntime with the ``tokenizers`` package, without torch; a user's Hugging Face directory runs
through torch (CUDA when available, else CPU), imported only when such a checker is loaded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.checkers.base import (
    QA_REVISION,
    Grain,
    PairInput,
    PairScore,
    Progress,
    SentenceScore,
    ShouldStop,
    check_stop,
    pair_score,
    skipped_sentence,
)
from models.errors import ModelLoadError, ModelNotFoundError
from models.evidence import Retriever, build_windows
from models.resources import resources_dir
from models.runtime import DevicePref, onnx_session, torch_device

BUNDLED_DIR = resources_dir() / "models" / "nli"
#: ``kind`` in the config of a model exported by :mod:`models.training.nli_model`.
KIND = "factdesk-nli"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"


def bundled_available(path: Path = BUNDLED_DIR) -> bool:
    """Whether the bundled three-way model's files are installed."""
    return all((path / f).is_file() for f in (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE))


def is_onnx_dir(path: Path) -> bool:
    """Whether a directory holds an exported model of ours (else: a Hugging Face directory)."""
    if not bundled_available(path):
        return False
    try:
        config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    return isinstance(config, dict) and config.get("kind") == KIND


def entailment_index(id2label: dict[Any, str]) -> int:
    """Index of the entailment class in a model's ``id2label``.

    Raises:
        ModelLoadError: when no label names entailment (or support).
    """
    for idx, label in id2label.items():
        name = str(label).lower()
        if "entail" in name and not name.startswith(("not", "non")):
            return int(idx)
    for idx, label in id2label.items():
        if str(label).lower() in {"supported", "support", "consistent", "faithful"}:
            return int(idx)
    raise ModelLoadError(
        f"The model's id2label {dict(id2label)} names no entailment class; "
        "expected a label containing 'entail'."
    )


def contradiction_index(id2label: dict[Any, str]) -> int | None:
    """Index of the contradiction class in a model's ``id2label``; None for two-way models."""
    for idx, label in id2label.items():
        if "contradict" in str(label).lower():
            return int(idx)
    return None


class OnnxNLI:
    """An exported NLI classifier (:mod:`models.training.nli_model`) run by onnxruntime.

    The graph takes ``input_ids``, ``attention_mask`` and ``token_type_ids`` and returns the
    class probabilities ``probs``; the config names the classes (``id2label``), the input length
    (``max_length``) and the version (the ONNX file's content hash).
    """

    def __init__(self, model_dir: str | Path, device: DevicePref = "auto") -> None:
        from models.encoding import load_tokenizer

        path = Path(model_dir)
        if not bundled_available(path):
            raise ModelNotFoundError(
                f"{path}: no {MODEL_FILE}, {TOKENIZER_FILE} and {CONFIG_FILE} here."
            )
        try:
            config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            self.id2label = {int(k): str(v) for k, v in config["id2label"].items()}
            self.max_length = int(config["max_length"])
            self.version = str(config["version"])
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelLoadError(
                f"{path / CONFIG_FILE}: not an NLI model config (needs id2label, max_length, "
                f"version): {exc}"
            ) from exc
        self._session = onnx_session(path / MODEL_FILE, device)
        self._inputs = {i.name for i in self._session.get_inputs()}
        # One tokenizer counts (untruncated, so a sentence too long for the model is reported,
        # not cut), one encodes pairs for the model, truncated to its input length.
        self._counter = load_tokenizer(path / TOKENIZER_FILE)
        self._tokenizer = load_tokenizer(path / TOKENIZER_FILE)
        self._tokenizer.enable_truncation(self.max_length, strategy="longest_first")

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def predict(
        self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int = 16
    ) -> np.ndarray:
        """Class probabilities, one row per (premise, hypothesis), columns as ``id2label``."""
        n = len(premises)
        out = np.zeros((n, len(self.id2label)), np.float32)
        # Length-sorted batches waste less padding; rows go back to their places.
        order = sorted(range(n), key=lambda i: len(premises[i]) + len(hypotheses[i]))
        for lo in range(0, n, batch_size):
            idx = order[lo : lo + batch_size]
            encs = self._tokenizer.encode_batch([(premises[i], hypotheses[i]) for i in idx])
            width = max(len(e.ids) for e in encs)
            ids = np.zeros((len(encs), width), np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros_like(ids)
            for r, e in enumerate(encs):
                ids[r, : len(e.ids)] = e.ids
                types[r, : len(e.ids)] = e.type_ids
                mask[r, : len(e.ids)] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            feed = {k: v for k, v in feed.items() if k in self._inputs}
            out[np.asarray(idx)] = self._session.run(None, feed)[0]
        return out


class NLISentenceChecker:
    """Sentence-level checker over an NLI classifier: the bundled ONNX model (``model_dir``
    None), an exported one of ours, or a local Hugging Face sequence-classification directory."""

    display_name = "NLI sentence support"
    grain: Grain = "sentence"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        device: DevicePref = "auto",
        max_tokens: int = 512,
        retriever: Retriever | None = None,
    ) -> None:
        path = Path(model_dir) if model_dir is not None else BUNDLED_DIR
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(f"{path}: not a model directory (no config.json).")
        self._retriever = retriever
        self._onnx: OnnxNLI | None = None
        if is_onnx_dir(path):
            self._onnx = OnnxNLI(path, device)
            self._entail = entailment_index(self._onnx.id2label)
            self._contradict = contradiction_index(self._onnx.id2label)
            self.max_tokens = min(max_tokens, self._onnx.max_length)
            bundled = model_dir is None
            self.name = "nli" if bundled else f"nli:{path.name}"
            self.version = f"{self._onnx.version}+{QA_REVISION}"
            return
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ModelLoadError(
                "Loading a Hugging Face model directory needs torch and transformers: "
                "pip install 'factdesk[torch]'."
            ) from exc
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            self._model = AutoModelForSequenceClassification.from_pretrained(
                str(path), local_files_only=True
            )
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"{path}: cannot load the model: {exc}") from exc
        self._torch = torch
        self._device = torch_device(device)
        self._model.to(self._device).eval()
        self.runs_on = f"{self._device} fp32 (torch)"
        self._entail = entailment_index(self._model.config.id2label)
        self._contradict = contradiction_index(self._model.config.id2label)
        limit = getattr(self._tokenizer, "model_max_length", max_tokens) or max_tokens
        limit = min(limit, max_tokens, getattr(self._model.config, "max_position_embeddings", 512))
        self.max_tokens = int(limit)
        self.name = f"nli:{path.name}"
        self.version = f"{path.name}@{_fingerprint(path)}+{QA_REVISION}"

    def count_tokens(self, text: str) -> int:
        if self._onnx is not None:
            return self._onnx.count_tokens(text)
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        # Flatten every (evidence, sentence) pair of the batch, score them in model batches.
        jobs: list[tuple[int, int, str, str]] = []
        windows = []
        for p, item in enumerate(batch):
            judged = item.judged
            evidence = build_windows(
                item.source,
                judged,
                max_tokens=self.max_tokens,
                count_tokens=self.count_tokens,
                retriever=self._retriever,
            )
            windows.append(evidence)
            for s, ev in zip(item.output.sentences, evidence, strict=True):
                if ev.not_checked is None and item.checkable(s):
                    claim = item.claim(s.index)
                    said = claim.denies if claim is not None and claim.denies is not None else None
                    jobs.append((p, s.index, ev.text, (said or judged[s.index]).text))
        probs: dict[tuple[int, int], tuple[float, float | None]] = {}
        for lo in range(0, len(jobs), batch_size):
            check_stop(should_stop)
            chunk = jobs[lo : lo + batch_size]
            for (p, s_index, _, _), got in zip(chunk, self._predict(chunk), strict=True):
                probs[(p, s_index)] = got
            if progress is not None:
                progress(min(lo + batch_size, len(jobs)), len(jobs))
        results = []
        for p, item in enumerate(batch):
            sentences = []
            for s, ev in zip(item.output.sentences, windows[p], strict=True):
                if (p, s.index) not in probs:
                    sentences.append(skipped_sentence(s.index, ev))
                else:
                    claim = item.claim(s.index)
                    value, contradicted = probs[(p, s.index)]
                    if claim is not None and claim.denies is not None:
                        # A "No" is supported when the evidence contradicts what it denies
                        # (a two-way model: when it does not entail it).
                        value = 1.0 - value if contradicted is None else contradicted
                    sentences.append(
                        SentenceScore(s.index, value, None, ev.sentence_indices, ev.omitted)
                    )
            results.append(pair_score(item.key, self, sentences))
        return results

    def _predict(
        self, chunk: Sequence[tuple[int, int, str, str]]
    ) -> list[tuple[float, float | None]]:
        """Entailment and (three-way models) contradiction probability of each job."""
        if self._onnx is not None:
            probs = self._onnx.predict([c[2] for c in chunk], [c[3] for c in chunk], len(chunk))
            entail = probs[:, self._entail].astype(float).tolist()
            if self._contradict is None:
                return [(e, None) for e in entail]
            contra = probs[:, self._contradict].astype(float).tolist()
            return list(zip(entail, contra, strict=True))
        torch = self._torch
        enc = self._tokenizer(
            [c[2] for c in chunk],
            [c[3] for c in chunk],
            truncation="only_first",
            max_length=self.max_tokens,
            padding=True,
            return_tensors="pt",
        ).to(self._device)
        with torch.inference_mode():
            logits = self._model(**enc).logits
        probs = torch.softmax(logits.float(), dim=-1)
        entail = probs[:, self._entail].tolist()
        if self._contradict is None:
            return [(e, None) for e in entail]
        return list(zip(entail, probs[:, self._contradict].tolist(), strict=True))


def _fingerprint(path: Path) -> str:
    """A short content hash of a model directory's weights and configs, so a re-trained model
    re-scores and a copied one (new mtimes, same bytes) does not."""
    import hashlib

    digest = hashlib.sha1()
    for f in sorted(path.glob("*")):
        if f.is_file() and f.suffix in {".bin", ".safetensors", ".onnx", ".json"}:
            digest.update(f"{f.name}:{f.stat().st_size}:".encode())
            with f.open("rb") as fh:
                digest.update(hashlib.file_digest(fh, "sha1").digest())
    return digest.hexdigest()[:10]
