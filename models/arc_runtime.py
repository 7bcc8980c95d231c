"""Runs the multi-task arc/support model: onnxruntime by default, torch on request.

The DAE and sentence-support checkers share one loaded model per (directory, runtime, device),
and one forward pass gives both an output sentence's arc scores and its support, so a recent
result is kept for the other checker (a small cache keyed by the exact input). Each input runs
on its own (:meth:`ArcSupportRunner.predict`), so a sentence's scores never depend on what else
is analysed with it.

The bundled heads sit in the NLI model's graph (:mod:`models.training.shared_encoder`), so the
same pass gives the NLI model's probabilities of (evidence, sentence): the runner keeps them
(:mod:`models.nli_recent`) and the NLI checker, which reads a one-claim sentence against the
same evidence (a model folder's ``window_sentences``: the most relevant sentences, as the NLI
checker's widest window), makes one pass for all three checkers (:func:`heads_on`).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from models import nli_recent
from models.arc_model import ONNX_FILE, OUTPUT_NAMES, TOKENIZER_FILE, TORCH_FILE, read_config
from models.checkers.base import PairInput, ShouldStop, check_stop
from models.encoding import (
    ArcSlot,
    LabelVocab,
    TokenCounter,
    collate,
    encode_pair,
    shared_tokenizer,
)
from models.errors import ModelLoadError, ModelNotFoundError
from models.evidence import Evidence, Retriever, build_windows
from models.readable import readable
from models.resources import resources_dir
from models.runtime import DevicePref, onnx_model, torch_device

Runtime = Literal["onnx", "torch"]
BUNDLED_DIR = resources_dir() / "models" / "arc_support"
Job = tuple[str, str, tuple[ArcSlot, ...]]
Prediction = tuple[tuple[float | None, ...], float]
#: The NLI model's output in a graph shared with it.
NLI_OUTPUT = "probs"


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
        #: How many source sentences (the most relevant) each window holds; None: as many as fit.
        self.window = _window_sentences(path, self.config)
        #: The version and input length of the NLI model whose graph holds these heads (its
        #: probabilities come with each pass), else None.
        self.nli: tuple[str, int] | None = None
        self.vocab = LabelVocab(self.config["labels"])
        onnx_file, tokenizer_file = model_files(path, self.config)
        self._tokenizer = shared_tokenizer(tokenizer_file)
        self._counter = TokenCounter(self._tokenizer)
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
            self.nli = _nli_model(choice.path, self._session)
        elif runtime == "torch":
            from models.arc_model import load_torch

            self._device = torch_device(device)
            self._module, _ = load_torch(path, self._device)
            self.runs_on = f"{self._device} fp32 (torch)"
        else:
            raise ModelLoadError(f"unknown runtime {runtime!r}; expected 'onnx' or 'torch'.")

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    def runs_session(self, session: Any) -> bool:
        """Whether this runner runs that onnxruntime session (one loaded graph)."""
        return self.runtime == "onnx" and self._session is session

    def windows(self, item: PairInput, retriever: Retriever | None) -> list[Evidence]:
        return build_windows(
            item.source,
            item.judged,
            max_tokens=self.max_length,
            count_tokens=self.count_tokens,
            retriever=retriever,
            size=self.window,
        )

    def predict(
        self, jobs: Sequence[Job], *, batch_size: int = 16, should_stop: ShouldStop | None = None
    ) -> list[Prediction]:
        """Arc probabilities (None for an arc not found in the input) and support, per job.

        Each job runs on its own, unpadded: a graph quantised dynamically (exports before
        weight-only int8, :func:`models.training.export.weight_only`) scales activations over
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
        # the NLI model reads an input it would not cut token for token as the heads do
        whole = self.nli is not None and len(e.ids) < min(self.max_length, self.nli[1])
        arc_prob, support = self._run(collate([e]), job if whole else None)
        arcs = tuple(
            float(arc_prob[0, k]) if e.arc_head[k] >= 0 and e.arc_child[k] >= 0 else None
            for k in range(len(e.arc_head))
        )
        return arcs, float(support[0])

    def _run(self, feed: dict[str, Any], job: Job | None = None) -> tuple[Any, Any]:
        """Arc and support probabilities of one input; a graph shared with the NLI model gives
        its probabilities too, kept for the NLI checker when ``job`` is given (the input as the
        NLI model would read it)."""
        if self.runtime == "onnx":
            # By name: a graph shared with the NLI model has its probabilities as well.
            if self.nli is None or job is None:
                arc_prob, support = self._session.run(list(OUTPUT_NAMES), feed)
                return arc_prob, support
            arc_prob, support, probs = self._session.run([*OUTPUT_NAMES, NLI_OUTPUT], feed)
            # under the texts the NLI model reads (encode_pair read them the same way)
            nli_recent.remember(self.nli[0], readable(job[0]), readable(job[1]), probs[0])
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


def _window_sentences(path: Path, config: dict[str, Any]) -> int | None:
    """A model folder's ``window_sentences`` (a positive whole number), else None."""
    value = config.get("window_sentences")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ModelLoadError(
            f"{path / 'config.json'}: window_sentences must be a whole number of at least 1, "
            f"not {value!r}."
        )
    return value


def _nli_model(graph: Path, session: Any) -> tuple[str, int] | None:
    """The version and input length of the NLI model whose graph this is (its config beside
    it, its ``probs`` output), else None."""
    import json

    from models.checkers.nli import KIND

    if NLI_OUTPUT not in {o.name for o in session.get_outputs()}:
        return None
    try:
        config = json.loads((graph.parent / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict) or config.get("kind") != KIND or not config.get("version"):
        return None
    try:
        return str(config["version"]), int(config["max_length"])
    except (KeyError, TypeError, ValueError):
        return None


def heads_on(graph: Path, device: DevicePref = "auto") -> ArcSupportRunner | None:
    """The bundled arc/support runner when its heads are in this NLI graph, else None."""
    if not bundled_available(BUNDLED_DIR):
        return None
    onnx_file, _ = model_files(BUNDLED_DIR, read_config(BUNDLED_DIR))
    if onnx_file.resolve() != Path(graph).resolve():
        return None
    return get_runner(BUNDLED_DIR, "onnx", device)


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
