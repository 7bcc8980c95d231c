"""Rebuild a trainable Hugging Face classifier from an exported NLI model (int8 or fp32 ONNX).

    python -m models.training.unexport resources/models/nli OUT_DIR --base mpnet

A bundled NLI model ships only as ONNX: its training weights stay on the machine that trained
it (for the bundled MPNet model, a lent GPU machine that is gone). To train it further, this
reads every weight the export stored and writes a Hugging Face directory that
:mod:`models.training.nli_model` takes as ``--base`` (its three-way head included, so training
goes on from the shipped model rather than from a fresh head).

How the export is read: named initialisers keep their module names (``model.<name>``, biases,
layer norms, the embeddings); a matrix quantised by onnxruntime's dynamic quantisation is
``<weight>_quantized`` with ``_scale`` and ``_zero_point`` (per output column for ``MatMul`` and
``Gemm``, per tensor for the embedding ``Gather``), and ``MatMul`` weights are anonymous
(``onnx::MatMul_N``): their module is named by the node's output path
(``/model/mpnet/encoder/layer.0/attention/attn/q/MatMul_…`` → ``mpnet.encoder.layer.0.
attention.attn.q``); equal tensors stored once are named again through ``Identity`` nodes. A
quantised weight comes back as ``(q - zero_point) * scale``: the values
the int8 model computes with, so the rebuilt model reproduces the shipped one up to the
activation rounding of dynamic quantisation.

The architecture (layer count, heads, vocabulary) comes from the base encoder's own
``config.json`` (``--base``: ``mpnet``, ``minilm`` or a directory); the label names from the
export's ``config.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.errors import ModelLoadError

#: Suffixes onnxruntime's dynamic quantisation gives a weight's parts.
QUANTIZED, SCALE, ZERO = "_quantized", "_scale", "_zero_point"
#: The export's wrapper module holds the classifier as ``self.model``.
PREFIX = "model."
#: Written beside the rebuilt weights: the export's version, base, training record and held-out
#: figures (:mod:`models.training.nli_model` copies it into the record of a run that goes on).
ORIGIN_FILE = "rebuilt_from.json"
_MODULE_PATH = re.compile(r"^/model/(.+)/(MatMul|Gemm)[^/]*$")


def _module_of(output: str) -> str | None:
    """``/model/mpnet/encoder/layer.0/attention/attn/q/MatMul_output_0_output_quantized`` →
    ``mpnet.encoder.layer.0.attention.attn.q``."""
    m = _MODULE_PATH.match(output)
    return m.group(1).replace("/", ".") if m else None


def _dequantise(q: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """Real values of a quantised tensor; ``scale``/``zero`` scalars or one per column."""
    return ((q.astype(np.int32) - zero.astype(np.int32)) * scale).astype(np.float32)


#: Initialisers of the arc/support heads that :mod:`models.training.shared_encoder` adds.
HEADS_PREFIX = "heads."


def weights_of(onnx_path: Path) -> dict[str, np.ndarray]:
    """Every parameter of the exported classifier by its Hugging Face name (torch layout)."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(onnx_path)).graph
    except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError) as exc:  # type: ignore[attr-defined]
        raise ModelLoadError(f"{onnx_path}: cannot read the ONNX model: {exc}") from exc
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    # the exporter stores equal tensors once (freshly initialised zero biases, say) and names
    # the others through Identity nodes
    for node in graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            inits[node.output[0]] = inits[node.input[0]]
    out: dict[str, np.ndarray] = {}

    def real(name: str) -> np.ndarray:
        """An initialiser's values, dequantised when ``name`` names a quantised one."""
        if name.endswith(QUANTIZED):
            stem = name[: -len(QUANTIZED)]
            return _dequantise(inits[name], inits[stem + SCALE], inits[stem + ZERO])
        return inits[name].astype(np.float32)

    # a weight-only int8 graph (models.training.export.weight_only) multiplies by the output
    # of a DequantizeLinear of the stored weight
    stored = {
        n.output[0]: n.input[0]
        for n in graph.node
        if n.op_type == "DequantizeLinear" and n.input[0] in inits
    }
    for node in graph.node:
        if node.op_type not in ("MatMulInteger", "MatMul", "Gemm"):
            continue
        weight = stored.get(node.input[1], node.input[1]) if len(node.input) > 1 else None
        if weight not in inits:
            weight = None
        if weight is None or weight.startswith(HEADS_PREFIX):
            continue  # the arc/support heads added beside the classifier are not its layers
        module = _module_of(node.output[0])
        if module is None:
            raise ModelLoadError(f"{onnx_path}: cannot tell which layer {weight} belongs to.")
        matrix = real(weight)
        if node.op_type == "Gemm" and any(a.name == "transB" and a.i for a in node.attribute):
            matrix = matrix.T
        out[f"{module}.weight"] = np.ascontiguousarray(matrix.T)  # torch Linear: (out, in)
    for name in inits:
        if name.endswith((SCALE, ZERO)) or not name.startswith(PREFIX):
            continue
        stem = name[: -len(QUANTIZED)] if name.endswith(QUANTIZED) else name
        if stem.endswith("_Transposed"):  # a Gemm weight quantised with its transpose
            out[stem[len(PREFIX) : -len("_Transposed")]] = np.ascontiguousarray(real(name).T)
        else:
            out[stem[len(PREFIX) :]] = real(name)
    return out


def rebuild(export_dir: Path, out_dir: Path, base_dir: Path, base_name: str | None = None) -> Path:
    """Write a Hugging Face sequence classifier with the export's weights to ``out_dir``.

    ``base_name``: how the base encoder was given (``mpnet``, ``minilm`` or a directory),
    recorded in :data:`ORIGIN_FILE` by :func:`models.training.base_encoders.describe`, so the
    record names the encoder, not the path it had on this machine.

    Raises:
        ModelLoadError: when the export lacks a file, a parameter of the architecture has no
            weight in it, or a weight's shape differs from the architecture's.
    """
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    spec_path = export_dir / "config.json"
    try:
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{spec_path}: cannot read the export's config: {exc}") from exc
    id2label = {int(k): v for k, v in spec["id2label"].items()}
    config = AutoConfig.from_pretrained(
        str(base_dir),
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        local_files_only=True,
    )
    model = AutoModelForSequenceClassification.from_config(config)
    weights = weights_of(export_dir / "model.onnx")
    state = model.state_dict()
    missing = [
        k for k in state if k not in weights and not k.endswith(("position_ids", "token_type_ids"))
    ]
    if missing:
        raise ModelLoadError(
            f"{export_dir}: the export holds no weight for {len(missing)} parameters of "
            f"{config.model_type} (first: {missing[0]}); is --base the encoder it was trained on?"
        )
    loaded = {}
    for key, value in state.items():
        if key not in weights:
            continue
        if tuple(weights[key].shape) != tuple(value.shape):
            raise ModelLoadError(
                f"{export_dir}: {key} has shape {weights[key].shape} in the export and "
                f"{tuple(value.shape)} in {config.model_type}; is --base the encoder it was trained on?"
            )
        loaded[key] = torch.from_numpy(weights[key].copy())
    model.load_state_dict(loaded, strict=False)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out_dir))
    # the export's tokenizer is the one the model was trained with
    for name in ("tokenizer.json",):
        shutil.copy2(export_dir / name, out_dir / name)
    for name in ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (base_dir / name).is_file():
            shutil.copy2(base_dir / name, out_dir / name)
    # what the shipped model was: a run that trains on goes on from it, and its card says so
    origin = {key: spec.get(key) for key in ("version", "base", "training", "held_out")}
    from models.training.base_encoders import describe  # it imports this module

    origin |= {"export": _shown(export_dir), "rebuilt_on": describe(base_name or base_dir)}
    (out_dir / ORIGIN_FILE).write_text(json.dumps(origin, indent=2), encoding="utf-8")
    return out_dir


def _shown(path: Path) -> str:
    """A folder as a record names it: relative to the working directory when inside it (as
    ``resources/models/nli``), else by its name, never by a path of this machine."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path.name


def main(argv: Sequence[str] | None = None) -> int:
    from models.training.base_encoders import resolve_base

    ap = argparse.ArgumentParser(prog="python -m models.training.unexport", description=__doc__)
    ap.add_argument("export_dir", type=Path, help="an exported NLI model (model.onnx, config.json)")
    ap.add_argument("out_dir", type=Path, help="where the Hugging Face directory goes")
    ap.add_argument("--base", default="mpnet", help="the base encoder: mpnet, minilm or a dir")
    args = ap.parse_args(argv)
    out = rebuild(args.export_dir, args.out_dir, resolve_base(args.base), args.base)
    print(f"rebuilt {args.export_dir} as {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__: list[Any] = ["rebuild", "weights_of"]
