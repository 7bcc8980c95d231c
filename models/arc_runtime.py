"""Runs the multi-task arc/support model: onnxruntime by default, torch on request.

The DAE and sentence-support checkers share one loaded model per (directory, runtime, device),
and one forward pass gives both an output sentence's arc scores and its support, so a recent
result is kept for the other checker (a small cache keyed by the exact input). Each input runs
on its own (:meth:`ArcSupportRunner.predict`), so a sentence's scores never depend on what else
is analysed with it.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from models.arc_model import ONNX_FILE, OUTPUT_NAMES, TOKENIZER_FILE, TORCH_FILE, read_config
from models.checkers.base import PairInput, ShouldStop, check_stop
from models.encoding import ArcSlot, LabelVocab, collate, encode_pair, load_tokenizer
from models.errors import ModelLoadError, ModelNotFoundError
from models.evidence import Evidence, Retriever, build_windows
from models.resources import resources_dir
from models.runtime import DevicePref, onnx_model, torch_device

Runtime = Literal["onnx", "torch"]
BUNDLED_DIR = resources_dir() / "models" / "arc_support"
Job = tuple[str, str, tuple[ArcSlot, ...]]
Prediction = tuple[tuple[float | None, ...], float]


def model_files(path: Path, config: dict[str, Any]) -> tuple[Path, Path]:
    """The ONNX graph and tokenizer a model directory's config points at.

    A directory holds its own ``model.onnx`` and ``tokenizer.json`` unless its config names
    others (``model_file``, ``tokenizer_file``, relative to the directory): the bundled heads
    live in the NLI model's graph and read its encoder (:mod:`models.training.shared_encoder`).
    """
    return (
        path / str(config.get("model_file", ONNX_FILE)),
        path / str(config.get("tokenizer_file", TOKENIZER_FILE)),
    )


def bundled_available(path: Path = BUNDLED_DIR) -> bool:
    if not (path / "config.json").is_file():
        return False
    try:
        config = read_config(path)
    except (ModelLoadError, ModelNotFoundError):
        return False
    return all(f.is_file() for f in model_files(path, config))


class ArcSupportRunner:
    """A loaded arc/support model and its tokenizer."""

    def __init__(
        self,
        model_dir: str | Path = BUNDLED_DIR,
        *,
        runtime: Runtime = "onnx",
        device: DevicePref = "auto",
        cache_size: int = 8192,
    ) -> None:
        path = Path(model_dir)
        self.config = read_config(path)
        self.path = path
        self.runtime = runtime
        self.max_length = int(self.config["max_length"])
        self.version = str(self.config.get("version", "unversioned"))
        self.vocab = LabelVocab(self.config["labels"])
        onnx_file, tokenizer_file = model_files(path, self.config)
        self._tokenizer = load_tokenizer(tokenizer_file)
        self._cache: OrderedDict[Job, Prediction] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        if runtime == "onnx":
            if not onnx_file.is_file():
                raise ModelNotFoundError(
                    f"{path}: no {onnx_file.name}; use runtime='torch' for {TORCH_FILE} weights."
                )
            self._session: Any
            self._session, choice = onnx_model(onnx_file.parent, device, onnx_file.name)
            self.runs_on = choice.runs_on  # device and precision, recorded with each run
        elif runtime == "torch":
            from models.arc_model import load_torch

            self._device = torch_device(device)
            self._module, _ = load_torch(path, self._device)
            self.runs_on = f"{self._device} fp32 (torch)"
        else:
            raise ModelLoadError(f"unknown runtime {runtime!r}; expected 'onnx' or 'torch'.")

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def windows(self, item: PairInput, retriever: Retriever | None) -> list[Evidence]:
        return build_windows(
            item.source,
            item.judged,
            max_tokens=self.max_length,
            count_tokens=self.count_tokens,
            retriever=retriever,
        )

    def predict(
        self, jobs: Sequence[Job], *, batch_size: int = 16, should_stop: ShouldStop | None = None
    ) -> list[Prediction]:
        """Arc probabilities (None for an arc not found in the input) and support, per job.

        Each job runs on its own, unpadded: int8 dynamic quantisation scales activations over
        the whole input tensor, so a sentence batched with others (and padded to their length)
        would score differently from the same sentence alone, and a pair's scores would depend
        on what else is analysed with it. On a CPU one sequence at a time costs no more than
        padded batches. ``batch_size`` is how many jobs run between two stop checks.
        """
        out: list[Prediction | None] = [None] * len(jobs)
        for n, job in enumerate(jobs):
            if n % batch_size == 0:
                check_stop(should_stop)
            with self._lock:
                hit = self._cache.get(job)
            if hit is None:
                hit = self._predict_one(job)
                with self._lock:
                    self._cache[job] = hit
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
            out[n] = hit
        return out  # type: ignore[return-value]

    def _predict_one(self, job: Job) -> Prediction:
        e = encode_pair(self._tokenizer, job[0], job[1], job[2], self.vocab, self.max_length)
        arc_prob, support = self._run(collate([e]))
        arcs = tuple(
            float(arc_prob[0, k]) if e.arc_head[k] >= 0 and e.arc_child[k] >= 0 else None
            for k in range(len(e.arc_head))
        )
        return arcs, float(support[0])

    def _run(self, feed: dict[str, Any]) -> tuple[Any, Any]:
        if self.runtime == "onnx":
            # By name: a graph shared with the NLI model has its probabilities as well.
            arc_prob, support = self._session.run(list(OUTPUT_NAMES), feed)
            return arc_prob, support
        import torch

        with torch.inference_mode():
            tensors = [
                torch.from_numpy(feed[k]).to(self._device)
                for k in (
                    "input_ids",
                    "attention_mask",
                    "token_type_ids",
                    "arc_head",
                    "arc_child",
                    "arc_label",
                )
            ]
            arc_prob, support = self._module(*tensors)
        return arc_prob.float().cpu().numpy(), support.float().cpu().numpy()


@functools.lru_cache(maxsize=4)
def get_runner(
    model_dir: Path = BUNDLED_DIR, runtime: Runtime = "onnx", device: DevicePref = "auto"
) -> ArcSupportRunner:
    """One shared runner per model directory, runtime and device."""
    return ArcSupportRunner(model_dir, runtime=runtime, device=device)


def default_retriever(device: DevicePref = "auto") -> Retriever | None:
    """The bundled embedding retriever when installed; None means the core's lexical one."""
    from models.embedder import bundled_retriever

    return bundled_retriever(device)
