"""ONNX export and int8 dynamic quantisation of the arc/support model and the embedder."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from models.arc_model import CONFIG_FILE, INPUT_NAMES, ONNX_FILE, OUTPUT_NAMES, TOKENIZER_FILE


def file_hash(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def _export(
    module: Any,
    args: tuple,
    path: Path,
    inputs: list[str],
    outputs: list[str],
    dynamic: dict[str, dict[int, str]],
) -> None:
    import warnings

    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    # Eager attention exports as MatMul + Add + Softmax. The default SDPA attention exports with
    # Where/IsNaN guards over every attention matrix, about a fifth of the CPU inference time.
    for part in module.modules():
        if hasattr(part, "set_attn_implementation"):
            part.set_attn_implementation("eager")
    # The TorchScript-based exporter handles named dynamic axes (batch, length, arc count)
    # without shape guards; its deprecation notice and tracer warnings are expected here.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            args,
            str(path),
            input_names=inputs,
            output_names=outputs,
            dynamic_axes=dynamic,
            opset_version=17,
            dynamo=False,
        )


def quantize_int8(src: Path, dst: Path, keep_fp32: tuple[str, ...] = ()) -> None:
    """Dynamic int8 quantisation of MatMul/Gemm weights and of the embedding Gathers.

    The word-embedding matrix alone is ~47 MB in fp32; quantising the Gather keeps it at ~12 MB.
    Weights are quantised per output channel, and the two small heads (and the label
    embedding) stay fp32: quantising the heads' mixed-scale input moved single arc
    probabilities by up to 0.38, per-channel with fp32 heads by under 0.1. Nodes whose names
    hold any of ``keep_fp32`` (another model's head) stay fp32 too.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(src), load_external_data=False).graph
    heads = [
        n.name
        for n in graph.node
        if any(k in n.name for k in ("arc_out", "support_out", "label_embedding", *keep_fp32))
    ]
    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul", "Gemm", "Gather"],
        nodes_to_exclude=heads,
        extra_options={"EnableSubgraph": False},
    )
    unsigned_weights(dst)
    weight_only(dst)


def weight_only(path: Path) -> int:
    """Read a dynamically quantised graph's int8 matrices as weight-only int8; returns how many
    products were changed.

    Dynamic quantisation rounds both sides of each matrix product to 8 bits: the weights once,
    per output channel, and each input tensor at run time, with one scale over the whole
    tensor. That second rounding costs accuracy (the bundled NLI model, held out: MultiNLI
    dev-matched 82.3% with it and 82.5% without, SNLI test 86.0% and 86.9%, ANLI 34.1% and
    35.1%; README) and makes a sentence's numbers depend on what it is batched with. Each
    ``DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(scales)`` block becomes
    ``DequantizeLinear(weight) -> MatMul`` on the float input: the file keeps its int8 weights
    and its size. The pinned onnxruntime (1.32) runs the pair as one 8-bit ``MatMulNBits``,
    which rounds its input per block of 32 values of one row, not over the tensor: as fast,
    about as small in memory, closer to the float model, and a row's numbers do not depend on
    the rows beside it (an onnxruntime without that fusion expands the weights to float once
    at load: exact, more memory). A block that does not read as that pattern is left as it is.
    """
    import onnx
    from onnx import helper

    model = onnx.load(str(path))
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    made_by = {out: n for n in graph.node for out in n.output}
    used_by: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            used_by.setdefault(name, []).append(node)

    def only_user(name: str, op: str) -> Any:
        users = used_by.get(name, [])
        return users[0] if len(users) == 1 and users[0].op_type == op else None

    replaced: dict[int, list[Any]] = {}  # first node of a block -> what takes its place
    dropped: set[int] = set()
    for node in graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) != 4:
            continue
        quantised, weight, _, weight_zero = node.input
        source = made_by.get(quantised)
        cast = only_user(node.output[0], "Cast")
        scale = only_user(cast.output[0], "Mul") if cast is not None else None
        if source is None or source.op_type != "DynamicQuantizeLinear" or scale is None:
            continue
        scales = made_by.get(next((i for i in scale.input if i != cast.output[0]), ""))
        weight_scale = (
            next((i for i in scales.input if i in inits), None)
            if scales is not None and scales.op_type == "Mul"
            else None
        )
        if weight not in inits or weight_zero not in inits or weight_scale is None:
            continue
        per_channel = len(inits[weight_scale].dims) == 1 and inits[weight_scale].dims[0] > 1
        dense = f"{weight}_float"
        replaced[id(node)] = [
            helper.make_node(
                "DequantizeLinear",
                [weight, weight_scale, weight_zero],
                [dense],
                name=f"{node.name}_weight",
                **({"axis": 1} if per_channel else {}),
            ),
            helper.make_node(
                "MatMul", [source.input[0], dense], [scale.output[0]], name=f"{node.name}_float"
            ),
        ]
        dropped.update({id(cast), id(scale)})
    if not replaced:
        return 0
    nodes = [
        new
        for node in graph.node
        if id(node) not in dropped
        for new in replaced.get(id(node), [node])
    ]
    # what fed only the replaced blocks (input quantisers, scale products) goes too
    outputs = {o.name for o in graph.output}
    while True:
        needed = outputs | {name for n in nodes for name in n.input}
        alive = [n for n in nodes if any(out in needed for out in n.output)]
        if len(alive) == len(nodes):
            break
        nodes = alive
    # each block's replacement stands where its product stood: the graph stays in order
    del graph.node[:]
    graph.node.extend(nodes)
    needed = {name for n in nodes for name in n.input}
    kept = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return len(replaced)


def unsigned_weights(path: Path) -> int:
    """Store the int8 matrix weights of a quantised graph as uint8, exactly; returns how many.

    Dynamic quantisation feeds ``MatMulInteger`` uint8 activations. With int8 weights
    onnxruntime picks its u8s8 kernel, which on CPUs without VNNI (AVX2 and AVX-512 before
    Cascade Lake, AMD before Zen 4) adds pairs of products in saturating 16-bit lanes: on such
    a machine the bundled NLI model gave every pair about (0.33, 0.33, 0.33). The same weights
    as uint8 with the zero point moved by 128 (w + 128, zp + 128) are the same numbers
    (w - zp is unchanged) and run on the u8u8 kernel, which widens before adding and is exact
    on every CPU.
    """
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    inits = {t.name: t for t in model.graph.initializer}
    changed = 0
    for node in model.graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) < 4:
            continue
        weight, zero = inits.get(node.input[1]), inits.get(node.input[3])
        if weight is None or zero is None or weight.data_type != onnx.TensorProto.INT8:
            continue  # uint8 already (a weight two nodes share is shifted once)
        if zero.data_type != onnx.TensorProto.INT8:
            raise ValueError(f"{path}: {node.name}: int8 weights with a non-int8 zero point")
        for tensor in (weight, zero):
            shifted = numpy_helper.to_array(tensor).astype(np.int16) + 128
            tensor.CopyFrom(numpy_helper.from_array(shifted.astype(np.uint8), tensor.name))
        changed += 1
    if changed:
        onnx.save(model, str(path))
    return changed


def export_arc_model(
    module: Any,
    config: dict[str, Any],
    tokenizer_json: Path,
    out_dir: Path,
    *,
    quantize: bool = True,
) -> Path:
    """Write ``model.onnx`` (int8 unless ``quantize`` is False), tokenizer and config.

    The config's ``version`` becomes the ONNX file's content hash, so scores from new weights
    are told apart from old ones.
    """
    import torch

    module = module.eval().cpu()
    out_dir.mkdir(parents=True, exist_ok=True)
    # Trace inputs are ordinary word-pieces of any vocabulary (BERT's or MPNet's, tiny or not).
    vocab = int(module.encoder.config.vocab_size)
    ids = torch.randint(min(1000, vocab // 2), min(2000, vocab), (2, 24))
    args = (
        ids,
        torch.ones_like(ids),
        torch.zeros_like(ids),
        torch.tensor([[1, 2, 3], [4, 5, 0]]),
        torch.tensor([[2, 3, 1], [6, 7, 0]]),
        torch.tensor([[1, 2, 3], [4, 0, 0]]),
    )
    dynamic = {n: {0: "batch", 1: "seq" if n in INPUT_NAMES[:3] else "arcs"} for n in INPUT_NAMES}
    dynamic.update({"arc_prob": {0: "batch", 1: "arcs"}, "support_prob": {0: "batch"}})
    fp32 = out_dir / "model.fp32.onnx"
    _export(module, args, fp32, list(INPUT_NAMES), list(OUTPUT_NAMES), dynamic)
    _restore_inputs(fp32, dynamic)
    final = out_dir / ONNX_FILE
    if quantize:
        quantize_int8(fp32, final)
        fp32.unlink()
    else:
        fp32.replace(final)
    _drop_external_data(out_dir)
    shutil.copyfile(tokenizer_json, out_dir / TOKENIZER_FILE)
    config = dict(config, version=file_hash(final), onnx_int8=quantize)
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return final


def export_encoder_graph(
    module: Any,
    base_dir: Path,
    out_dir: Path,
    output: str,
    output_axes: dict[int, str],
    *,
    quantize: bool = True,
    keep_fp32: tuple[str, ...] = (),
) -> Path:
    """Export a module over a base encoder's (ids, mask, types) to ``model.onnx`` (int8 unless
    ``quantize`` is False; nodes named with any of ``keep_fp32`` stay fp32) with the base's
    ``tokenizer.json`` beside it; returns the model file."""
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    ids = torch.randint(1000, 2000, (2, 12))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dynamic = {n: {0: "batch", 1: "seq"} for n in names} | {output: output_axes}
    fp32 = out_dir / "model.fp32.onnx"
    _export(
        module, (ids, torch.ones_like(ids), torch.zeros_like(ids)), fp32, names, [output], dynamic
    )
    final = out_dir / "model.onnx"
    if quantize:
        quantize_int8(fp32, final, keep_fp32)
        fp32.unlink()
    else:
        fp32.replace(final)
    _drop_external_data(out_dir)
    shutil.copyfile(base_dir / "tokenizer.json", out_dir / "tokenizer.json")
    return final


def export_embedder(base_dir: Path, out_dir: Path, *, quantize: bool = True) -> Path:
    """Export all-MiniLM-L6-v2 with mean pooling and L2 normalisation inside the graph."""
    import torch
    from transformers import AutoModel

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    encoder = AutoModel.from_pretrained(str(base_dir), local_files_only=True).eval()

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            states = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=-1)

    final = export_encoder_graph(
        Pooled().eval(), base_dir, out_dir, "embedding", {0: "batch"}, quantize=quantize
    )
    (out_dir / "config.json").write_text(
        json.dumps(
            {
                "kind": "factdesk-embedder",
                "base": "sentence-transformers/all-MiniLM-L6-v2",
                "pooling": "mean, L2-normalised",
                "version": file_hash(final),
                "onnx_int8": quantize,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return final


def _restore_inputs(path: Path, dynamic: dict[str, dict[int, str]]) -> None:
    """Put back the model inputs the exporter pruned because the graph never reads them.

    MPNet has no segment embedding, so ``token_type_ids`` is unused and would vanish from the
    graph; every arc model keeps the same six int64 inputs, so one runtime feeds them all.
    """
    import onnx

    model = onnx.load(str(path))
    present = {i.name for i in model.graph.input}
    missing = [n for n in INPUT_NAMES if n not in present]
    if not missing:
        return
    for name in missing:
        axes = dynamic[name]
        shape = [axes[k] for k in sorted(axes)]
        model.graph.input.append(
            onnx.helper.make_tensor_value_info(name, onnx.TensorProto.INT64, shape)
        )
    onnx.save(model, str(path))


def _drop_external_data(out_dir: Path) -> None:
    for f in out_dir.glob("*.data"):
        f.unlink()


def make_portable(model_dir: Path) -> bool:
    """Give an exported model directory uint8 weights (:func:`unsigned_weights`), products on
    unrounded activations (:func:`weight_only`) and a new version (:func:`renew_versions`), so
    projects scored with the old graph are scored again. Returns whether anything changed."""
    model_file = model_dir / "model.onnx"
    old = versions_of(model_dir)
    if not unsigned_weights(model_file) + weight_only(model_file):
        return False
    renew_versions(model_dir, old)
    return True


def versions_of(model_dir: Path) -> list[str]:
    """A model folder's versions before a change to its graph: the file's hash, and its
    config's own version (heads added to a graph keep theirs)."""
    own = json.loads((model_dir / "config.json").read_text(encoding="utf-8")).get("version")
    return [v for v in (file_hash(model_dir / "model.onnx"), own) if isinstance(v, str) and v]


def renew_versions(model_dir: Path, old: list[str]) -> None:
    """After ``model.onnx`` changed: the new file's hash in place of the ``old`` version
    (:func:`versions_of`) in the folder's ``config.json``, keeping what follows it, and in the
    configs of heads kept in this graph (a folder beside it whose config's ``model_file``
    names it: ``arc_support``)."""
    model_file = model_dir / "model.onnx"
    config_file = model_dir / "config.json"
    new = file_hash(model_file)
    beside = [f for f in model_dir.parent.glob("*/config.json") if f.parent != model_dir]
    for file in [config_file, *beside]:
        config = json.loads(file.read_text(encoding="utf-8"))
        if file is not config_file and (
            not isinstance(config, dict)
            or (file.parent / str(config.get("model_file", ""))).resolve() != model_file.resolve()
        ):
            continue
        version = str(config.get("version", ""))
        kept = next((version[len(o) :] for o in old if version.startswith(o)), "")
        config["version"] = new + kept
        file.write_text(json.dumps(config, indent=2), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m models.training.export",
        description="Store an exported int8 model's weights as uint8 and multiply by them on "
        "unrounded activations (exact on every CPU; more accurate), and give it a new version.",
    )
    ap.add_argument("model_dirs", nargs="+", type=Path, help="folders with model.onnx")
    args = ap.parse_args(argv)
    for folder in args.model_dirs:
        changed = make_portable(folder)
        print(f"{folder}: {'weight-only int8, new version' if changed else 'already portable'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
