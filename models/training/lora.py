"""Low-rank adaptation (LoRA, Hu et al. 2021) of a Hugging Face classifier, and its adapter file.

Used where the fine-tuned weights cannot travel back whole: a lent GPU machine returns at most
64 MiB of files, and a fine-tuned MPNet-base is ~420 MB. Every ``nn.Linear`` of the encoder gets
a trainable ``B @ A`` beside its frozen weight (``A`` rank × in, ``B`` out × rank, ``B`` starting
at zero, so training starts from the base model); the biases, the layer norms and the
classification head train in full. The adapter holds only what trained (~6 M numbers for MPNet
at rank 32) and :func:`merge_lora` folds it into plain ``nn.Linear`` weights, so the merged
model exports and runs like any fine-tuned one.

The adapter is written as a safetensors blob cut into parts (each returned file is limited in
size), with ``adapter.json`` naming the rank, the scale and the parts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from models.errors import ModelLoadError, ModelNotFoundError

ADAPTER_MANIFEST = "adapter.json"
ADAPTER_WEIGHTS = "adapter.safetensors"
#: Parameters that train in full beside the low-rank matrices (matched on the name).
FULL_PARTS = ("bias", "LayerNorm", "layer_norm", "classifier", "relative_attention_bias")


def _lora_linear_class() -> Any:
    import torch

    class LoRALinear(torch.nn.Module):
        """A frozen ``nn.Linear`` plus ``scale * B @ A``."""

        def __init__(self, base: torch.nn.Linear, rank: int, alpha: float) -> None:
            super().__init__()
            self.base = base
            self.scale = alpha / rank
            self.lora_A = torch.nn.Parameter(torch.empty(rank, base.in_features))
            self.lora_B = torch.nn.Parameter(torch.zeros(base.out_features, rank))
            torch.nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

        def forward(self, x: Any) -> Any:
            return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale

        def merged(self) -> torch.nn.Linear:
            out = torch.nn.Linear(
                self.base.in_features, self.base.out_features, bias=self.base.bias is not None
            )
            with torch.no_grad():
                delta = (self.lora_B.float() @ self.lora_A.float()) * self.scale
                out.weight.copy_(self.base.weight.float() + delta)
                if self.base.bias is not None:
                    out.bias.copy_(self.base.bias.float())
            return out

    return LoRALinear


def _is_full(name: str) -> bool:
    return any(part in name for part in FULL_PARTS)


def add_lora(model: Any, rank: int, alpha: float | None = None) -> list[str]:
    """Wrap every ``nn.Linear`` outside the classification head in a LoRA layer, in place.

    Freezes everything but the low-rank matrices and the :data:`FULL_PARTS`. Returns the wrapped
    modules' names.
    """
    import torch

    if rank < 1:
        raise ValueError(f"LoRA rank must be at least 1, not {rank}")
    lora_linear = _lora_linear_class()
    targets = [
        name
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and "classifier" not in name
    ]
    for name in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, lora_linear(getattr(parent, child), rank, alpha or float(rank)))
    for name, param in model.named_parameters():
        param.requires_grad = "lora_" in name or _is_full(name)
    return targets


def merge_lora(model: Any) -> int:
    """Replace each LoRA layer by a plain ``nn.Linear`` holding ``W + scale * B @ A``, in place.

    Returns how many layers were merged.
    """
    merged = 0
    for name, module in list(model.named_modules()):
        if hasattr(module, "lora_A"):
            parent_name, _, child = name.rpartition(".")
            parent = model.get_submodule(parent_name) if parent_name else model
            setattr(parent, child, module.merged())
            merged += 1
    for param in model.parameters():
        param.requires_grad = True
    return merged


def trained_state(model: Any) -> dict[str, Any]:
    """What training changed: the low-rank matrices and the parameters trained in full."""
    return {
        name: param.detach().float().cpu().contiguous()
        for name, param in model.named_parameters()
        if param.requires_grad
    }


def save_adapter(model: Any, dst: Path, meta: dict[str, Any], *, part_mib: float = 15.0) -> None:
    """Write :func:`trained_state` as safetensors parts of at most ``part_mib`` MiB, with
    ``adapter.json`` (``meta`` plus the rank, the scale and the parts)."""
    from safetensors.torch import save

    layers = [m for m in model.modules() if hasattr(m, "lora_A")]
    if not layers:
        raise ValueError("the model has no LoRA layers (add_lora first)")
    blob = save(trained_state(model))
    dst.mkdir(parents=True, exist_ok=True)
    step = max(1, int(part_mib * (1 << 20)))
    parts = []
    for n, lo in enumerate(range(0, len(blob), step)):
        name = f"{ADAPTER_WEIGHTS}.{n:03d}"
        (dst / name).write_bytes(blob[lo : lo + step])
        parts.append(name)
    manifest = {
        **meta,
        "rank": int(layers[0].lora_A.shape[0]),
        "scale": float(layers[0].scale),
        "parts": parts,
        "bytes": len(blob),
    }
    (dst / ADAPTER_MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def read_adapter(src: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(manifest, tensors) of an adapter folder.

    Raises:
        ModelNotFoundError: the manifest or a part is missing (named).
        ModelLoadError: the parts do not join into the saved tensors.
    """
    from safetensors import SafetensorError
    from safetensors.torch import load

    manifest_path = src / ADAPTER_MANIFEST
    if not manifest_path.is_file():
        raise ModelNotFoundError(f"{src}: no {ADAPTER_MANIFEST} (not a LoRA adapter folder).")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    missing = [name for name in manifest["parts"] if not (src / name).is_file()]
    if missing:
        raise ModelNotFoundError(f"{src}: the adapter lacks {', '.join(missing)}.")
    blob = b"".join((src / name).read_bytes() for name in manifest["parts"])
    if len(blob) != manifest["bytes"]:
        raise ModelLoadError(f"{src}: the parts hold {len(blob)} bytes, not {manifest['bytes']}.")
    try:
        return manifest, load(blob)
    except SafetensorError as exc:
        raise ModelLoadError(f"{src}: the joined parts are not an adapter: {exc}") from exc


def apply_adapter(model: Any, src: Path) -> dict[str, Any]:
    """Load an adapter into a freshly built classifier and merge it; returns the manifest.

    Raises:
        ModelLoadError: the adapter's names or shapes do not fit the model (a different base).
    """
    import torch

    manifest, tensors = read_adapter(src)
    add_lora(model, int(manifest["rank"]), float(manifest["scale"]) * int(manifest["rank"]))
    params = dict(model.named_parameters())
    unknown = sorted(set(tensors) - set(params))
    untrained = sorted(n for n, p in params.items() if p.requires_grad and n not in tensors)
    if unknown or untrained:
        raise ModelLoadError(
            f"{src}: the adapter does not fit this base model "
            f"(unknown: {unknown[:3]}, missing: {untrained[:3]})."
        )
    with torch.no_grad():
        for name, value in tensors.items():
            if params[name].shape != value.shape:
                raise ModelLoadError(
                    f"{src}: {name} has shape {tuple(value.shape)}, the model "
                    f"{tuple(params[name].shape)}."
                )
            params[name].copy_(value)
    merge_lora(model)
    return manifest
