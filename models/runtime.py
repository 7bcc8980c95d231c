"""One place that picks the device and the runtime.

onnxruntime serves inference by default (CUDA provider when present, else CPU); torch is used on
request and is imported only then, so the window starts without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from models.errors import ModelLoadError

DevicePref = Literal["auto", "cpu", "cuda"]


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


def onnx_session(path: str | Path, device: DevicePref = "auto") -> Any:
    """An onnxruntime session for a model file on the chosen device, quiet.

    Raises:
        ModelLoadError: when the file cannot be loaded (onnxruntime raises untyped errors).
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), opts, providers=onnx_providers(device))
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
