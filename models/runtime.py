"""One place that picks the device, the model file and the runtime.

onnxruntime serves inference by default (CUDA provider when present, else CPU); torch is used on
request and is imported only then, so the window starts without it.

The bundled models are int8 (dynamic quantisation: ``DynamicQuantizeLinear`` and
``MatMulInteger``), which onnxruntime's CUDA provider mostly leaves to the CPU. A model
directory may therefore hold a GPU export of the same weights beside ``model.onnx``:
``model.fp16.onnx`` or ``model.fp32.onnx``, picked when the model runs on CUDA. Without one,
``auto`` keeps an int8 model on the CPU. The fp32 weights cannot be derived from the int8 file
(quantisation keeps 8 bits of each weight and one scale per tensor), so a GPU export comes from
training (``models.training.export`` writes ``model.fp32.onnx`` before it quantises) or from
the user's own model directory. Every loaded model says where and how it runs (``runs_on``,
e.g. "cpu int8", "cuda fp16"), and each analysis run records it.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from models.errors import ModelLoadError

DevicePref = Literal["auto", "cpu", "cuda"]
#: Part of the version of the checkers on our ONNX models (dae, support, grounding, align): since
#: this revision each input runs on its own, unpadded, so its scores no longer move with what
#: shares its batch (int8 dynamic quantisation scales activations over the whole input tensor);
#: a project analysed before re-scores once.
ALONE_REVISION = "alone1"
MODEL_FILE = "model.onnx"
# GPU exports of the same weights, in order of preference.
GPU_FILES = (("model.fp16.onnx", "fp16"), ("model.fp32.onnx", "fp32"))
# Operators that only a quantised graph holds (their names are plain bytes in the file); a graph
# with int8 weights read on float activations (models.training.export.weight_only) holds only
# DequantizeLinear.
_INT8_OPS = (
    b"MatMulInteger",
    b"DynamicQuantizeLinear",
    b"QLinearMatMul",
    b"ConvInteger",
    b"DequantizeLinear",
)


@dataclass(frozen=True)
class OnnxChoice:
    """Which file of a model directory runs, on which providers, at which precision."""

    path: Path
    providers: tuple[str, ...]
    precision: str  # int8, fp16 or fp32

    @property
    def device(self) -> str:
        return "cuda" if self.providers[0] == "CUDAExecutionProvider" else "cpu"

    @property
    def runs_on(self) -> str:
        """Device and precision, as recorded with each analysis run: "cuda fp16"."""
        return f"{self.device} {self.precision}"


def onnx_precision(path: str | Path) -> str:
    """int8 for a quantised graph, fp16 for a ``*.fp16.onnx``, else fp32 (read, not guessed)."""
    path = Path(path)
    if path.name.endswith(".fp16.onnx"):
        return "fp16"
    try:
        key = _file_key(path)
        if key in _PRECISIONS:
            return _PRECISIONS[key]
        data = path.read_bytes()
    except OSError as exc:
        raise ModelLoadError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    _PRECISIONS[key] = "int8" if any(op in data for op in _INT8_OPS) else "fp32"
    return _PRECISIONS[key]


def choose_onnx(
    model_dir: str | Path, device: DevicePref = "auto", file: str = MODEL_FILE
) -> OnnxChoice:
    """The model file and providers for a device preference.

    On CUDA a GPU export (``model.fp16.onnx``, then ``model.fp32.onnx``) is preferred. With
    only an int8 file, ``auto`` runs it on the CPU (under the CUDA provider most of its nodes
    would fall back to the CPU, with copies between the two), ``cuda`` runs it as asked.

    Raises:
        ModelLoadError: when CUDA is asked for and onnxruntime has no CUDA provider.
    """
    model_dir = Path(model_dir)
    providers = tuple(onnx_providers(device))
    if providers[0] == "CUDAExecutionProvider":
        if file == MODEL_FILE:
            for name, precision in GPU_FILES:
                if (model_dir / name).is_file():
                    return OnnxChoice(model_dir / name, providers, precision)
        precision = onnx_precision(model_dir / file)
        if precision == "int8" and device == "auto":
            return OnnxChoice(model_dir / file, ("CPUExecutionProvider",), precision)
        return OnnxChoice(model_dir / file, providers, precision)
    return OnnxChoice(model_dir / file, providers, onnx_precision(model_dir / file))


def onnx_model(
    model_dir: str | Path, device: DevicePref = "auto", file: str = MODEL_FILE
) -> tuple[Any, OnnxChoice]:
    """A session for the file :func:`choose_onnx` picks, and the choice (for ``runs_on``)."""
    choice = choose_onnx(model_dir, device, file)
    return _session(choice.path, list(choice.providers)), choice


def onnx_providers(device: DevicePref = "auto") -> list[str]:
    """onnxruntime execution providers for a device preference.

    Raises:
        ModelLoadError: when CUDA is asked for and onnxruntime has no CUDA provider.
    """
    import onnxruntime as ort

    available = ort.get_available_providers()
    has_cuda = "CUDAExecutionProvider" in available
    if device == "cuda" and not has_cuda:
        raise ModelLoadError("CUDA was requested but onnxruntime has no CUDA provider here.")
    if device in ("auto", "cuda") and has_cuda:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


#: Loaded sessions by file and providers, for as long as something holds them. One graph can
#: serve several checkers (the bundled NLI graph holds the arc and support heads too: nli, dae
#: and support read it), and then it is loaded once. A file is known by its resolved path, size
#: and modification time, so a model written again in place loads anew. onnxruntime runs one
#: session from several threads.
_SESSIONS: weakref.WeakValueDictionary[tuple[str, int, int, tuple[str, ...]], Any] = (
    weakref.WeakValueDictionary()
)
_SESSIONS_LOCK = threading.Lock()
_PRECISIONS: dict[tuple[str, int, int], str] = {}


def _file_key(path: Path) -> tuple[str, int, int]:
    """A file's resolved path, size and modification time (raises OSError when it is missing)."""
    resolved = path.resolve()
    stat = resolved.stat()
    return str(resolved), stat.st_size, stat.st_mtime_ns


def _session(path: str | Path, providers: list[str]) -> Any:
    """The session of a file on these providers: the one already loaded, else a new one."""
    try:
        key = (*_file_key(Path(path)), tuple(providers))
    except OSError:
        return _load_session(path, providers)  # says what is wrong with the file
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is None:
            session = _load_session(path, providers)
            _SESSIONS[key] = session
    return session


def _load_session(path: str | Path, providers: list[str]) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    # Idle worker threads sleep instead of spinning. Several sessions run in turn in one
    # process (embedder, arc model, aligner, NLI), and a session's spinning threads took the
    # cores from the next one: the default path's time per pair on 2 shared cores went from
    # 0.66-1.44 s to 0.43 s (tests/benchmarks/bench_models.py).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=providers)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelLoadError(f"{path}: cannot load: {exc}") from exc


def torch_device(device: DevicePref = "auto") -> str:
    """The torch device string for a preference; imports torch.

    Raises:
        ModelLoadError: when CUDA is asked for and torch sees no GPU.
    """
    import torch

    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise ModelLoadError("CUDA was requested but torch sees no GPU here.")
    return "cuda" if device in ("auto", "cuda") and has_cuda else "cpu"
