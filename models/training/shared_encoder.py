"""One ONNX file for the NLI model and the arc/support heads fitted on its encoder.

    python -m models.training.shared_encoder NLI_EXPORT HEADS_DIR --nli-out DIR --arc-out DIR

The heads of :mod:`models.training.nli_heads` read the NLI encoder's last states, unchanged. An
export of their own would carry a second copy of the encoder (110 MB); instead they are added
to the NLI model's graph as three small fp32 branches off its last hidden states: the NLI part
stays byte for byte what it was, so its scores do not move. The new inputs (``token_type_ids``,
``arc_head``, ``arc_child``, ``arc_label``) carry default values, so the NLI runtime still feeds
only ``input_ids`` and ``attention_mask`` and asks for ``probs``; the arc runtime feeds its six
inputs and asks for ``arc_prob`` and ``support_prob``. onnxruntime computes only what the asked
outputs need.

``--nli-out`` receives the shared ``model.onnx`` beside the NLI ``config.json`` (version
unchanged: its scores are the same) and ``tokenizer.json``; ``--arc-out`` receives the heads'
arc/support ``config.json``, whose ``model_file`` and ``tokenizer_file`` point at those files
(read by :class:`models.arc_runtime.ArcSupportRunner`). The bundled models were built with

    python -m models.training.shared_encoder resources/models/nli HEADS \\
        --nli-out resources/models/nli --arc-out resources/models/arc_support \\
        --window-sentences 5

``--window-sentences N``: the heads read the N most relevant source sentences rather than as
many as fit; with N the NLI checker's widest window (:data:`models.checkers.nli.WINDOW_SIZES`)
the NLI checker's reading of a one-claim sentence and the heads' input are the same, and one
pass serves ``nli``, ``dae`` and ``support`` (:mod:`models.arc_runtime`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.arc_model import INPUT_NAMES, OUTPUT_NAMES

#: The classifier's read of the first position: its input is the encoder's last hidden states.
CLS_GATHER = "/model/classifier/Gather"


def _last_states(graph: Any) -> tuple[str, str]:
    """Names of the last hidden states (batch, seq, hidden) and of their first position."""
    for node in graph.node:
        if node.name == CLS_GATHER and node.op_type == "Gather":
            return node.input[0], node.output[0]
    raise ValueError(f"no {CLS_GATHER} node: not an NLI export of models.training.nli_model")


def attach_heads(nli_onnx: Path, heads: dict[str, np.ndarray], out: Path) -> None:
    """Write ``nli_onnx`` with the arc and support heads added (see the module docstring).

    ``heads``: ``label_embedding.weight`` (labels, d), ``arc_out.weight`` (2, 2h + d),
    ``arc_out.bias`` (2), ``support_out.weight`` (2, h), ``support_out.bias`` (2).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(nli_onnx))
    graph = model.graph
    states, first = _last_states(graph)
    have = {i.name for i in graph.input}
    taken = [n for n in INPUT_NAMES[2:] if n in have]
    if taken:
        raise ValueError(f"{nli_onnx}: already has inputs {taken}")

    def init(name: str, array: np.ndarray) -> None:
        graph.initializer.append(numpy_helper.from_array(array, name))

    # Inputs with default values (an initialiser of the same name): optional to feed.
    for name in INPUT_NAMES[2:]:
        dims = ["batch", "seq" if name == "token_type_ids" else "arcs"]
        graph.input.append(helper.make_tensor_value_info(name, TensorProto.INT64, dims))
        init(name, np.zeros((1, 1), np.int64))
    f32 = np.float32
    init("heads.label_embedding", heads["label_embedding.weight"].astype(f32))
    init("heads.arc_w", heads["arc_out.weight"].T.astype(f32).copy())
    init("heads.arc_b", heads["arc_out.bias"].astype(f32))
    init("heads.support_w", heads["support_out.weight"].T.astype(f32).copy())
    init("heads.support_b", heads["support_out.bias"].astype(f32))
    init("heads.minus_one", np.array([-1], np.int64))
    init("heads.one", np.array(1, np.int64))
    node = helper.make_node
    graph.node.extend(
        [
            # (batch, arcs) -> (batch, arcs, 1): GatherND over each row's own positions.
            node("Unsqueeze", ["arc_head", "heads.minus_one"], ["heads.head_idx"]),
            node("Unsqueeze", ["arc_child", "heads.minus_one"], ["heads.child_idx"]),
            node("GatherND", [states, "heads.head_idx"], ["heads.head"], batch_dims=1),
            node("GatherND", [states, "heads.child_idx"], ["heads.child"], batch_dims=1),
            node("Gather", ["heads.label_embedding", "arc_label"], ["heads.label"]),
            node("Concat", ["heads.head", "heads.child", "heads.label"], ["heads.arc_in"], axis=-1),
            node("MatMul", ["heads.arc_in", "heads.arc_w"], ["heads.arc_mm"]),
            node("Add", ["heads.arc_mm", "heads.arc_b"], ["heads.arc_logits"]),
            node("Softmax", ["heads.arc_logits"], ["heads.arc_soft"], axis=-1),
            node("Gather", ["heads.arc_soft", "heads.one"], [OUTPUT_NAMES[0]], axis=-1),
            node("MatMul", [first, "heads.support_w"], ["heads.sup_mm"]),
            node("Add", ["heads.sup_mm", "heads.support_b"], ["heads.sup_logits"]),
            node("Softmax", ["heads.sup_logits"], ["heads.sup_soft"], axis=-1),
            node("Gather", ["heads.sup_soft", "heads.one"], [OUTPUT_NAMES[1]], axis=-1),
        ]
    )
    graph.output.append(
        helper.make_tensor_value_info(OUTPUT_NAMES[0], TensorProto.FLOAT, ["batch", "arcs"])
    )
    graph.output.append(
        helper.make_tensor_value_info(OUTPUT_NAMES[1], TensorProto.FLOAT, ["batch"])
    )
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))


#: The heads' initialisers in a shared graph and the state names they come from (the matrices
#: stored transposed, as the graph multiplies by them).
_HEAD_TENSORS = {
    "heads.label_embedding": ("label_embedding.weight", False),
    "heads.arc_w": ("arc_out.weight", True),
    "heads.arc_b": ("arc_out.bias", False),
    "heads.support_w": ("support_out.weight", True),
    "heads.support_b": ("support_out.bias", False),
}


def read_heads(shared_onnx: Path) -> dict[str, np.ndarray]:
    """The heads a shared graph carries, as :func:`attach_heads` takes them (its inverse)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(shared_onnx))
    stored = {i.name: i for i in model.graph.initializer if i.name in _HEAD_TENSORS}
    missing = sorted(set(_HEAD_TENSORS) - set(stored))
    if missing:
        raise ValueError(f"{shared_onnx}: no arc/support heads in the graph (missing {missing})")
    out = {}
    for name, (key, transposed) in _HEAD_TENSORS.items():
        array = numpy_helper.to_array(stored[name])
        out[key] = array.T.copy() if transposed else array
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.training.shared_encoder",
        description="Add arc/support heads fitted on the NLI encoder to the NLI model's graph.",
    )
    ap.add_argument("nli_export", type=Path, help="exported NLI model folder (model.onnx)")
    ap.add_argument("heads_dir", type=Path, help="nli_heads output (config.json, model.pt)")
    ap.add_argument("--nli-out", type=Path, required=True, help="folder for the shared graph")
    ap.add_argument("--arc-out", type=Path, required=True, help="folder for the heads' config")
    ap.add_argument(
        "--window-sentences",
        type=int,
        default=None,
        help="the heads read the N most relevant source sentences (the NLI checker's widest "
        "window, 5, makes one pass serve nli, dae and support); default: as many as fit",
    )
    args = ap.parse_args(argv)
    if args.window_sentences is not None and args.window_sentences < 1:
        ap.error("--window-sentences must be at least 1")

    import torch

    from models.arc_model import read_config
    from models.training.export import file_hash

    heads_config = read_config(args.heads_dir)
    state = torch.load(args.heads_dir / "model.pt", map_location="cpu", weights_only=True)
    heads = {
        k: v.numpy()
        for k, v in state.items()
        if k.split(".")[0] in {"label_embedding", "arc_out", "support_out"}
    }
    args.nli_out.mkdir(parents=True, exist_ok=True)
    staged = args.nli_out / "model.onnx.new"
    attach_heads(args.nli_export / "model.onnx", heads, staged)
    for name in ("config.json", "tokenizer.json"):
        if args.nli_export.resolve() != args.nli_out.resolve():
            shutil.copyfile(args.nli_export / name, args.nli_out / name)
    staged.replace(args.nli_out / "model.onnx")
    nli_version = json.loads((args.nli_out / "config.json").read_text(encoding="utf-8"))["version"]
    args.arc_out.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):  # the heads read the NLI model's files
        (args.arc_out / name).unlink(missing_ok=True)
    to_nli = Path(os.path.relpath(args.nli_out, args.arc_out))
    heads_config = dict(
        heads_config,
        model_file=str(to_nli / "model.onnx"),
        tokenizer_file=str(to_nli / "tokenizer.json"),
        onnx_int8=True,
        version=f"{nli_version}-{file_hash(args.heads_dir / 'model.pt')[:6]}",
    )
    if args.window_sentences is not None:
        heads_config["window_sentences"] = args.window_sentences
    (args.arc_out / "config.json").write_text(json.dumps(heads_config, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
