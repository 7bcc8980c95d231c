"""The NLI graph's matrix products in three forms on this CPU: speed, and what each does to the
model's probabilities (prints).

    python tests/benchmarks/bench_int8_kernels.py [--pairs 300] [--model-dir DIR] [--repeats 7]

The bundled graphs are weight-only int8 (``models.training.export.weight_only``): int8 weights
times float inputs, which onnxruntime fuses into its 8-bit ``MatMulNBits`` kernel (the input
rounded per block of 32 values of a row). Beside that reference, two forms of the same weights
are built in a temporary folder and timed on one unpadded input of 40 and of 250 word-pieces
(the app's shapes: claims alone, and evidence windows), median of ``--repeats``:

- fp32: the int8 weights expanded to float once (the float model on the int8-rounded weights);
- int8 rows: each product's input rounded to int8 row by row, on its own scale (max |x| / 127),
  and multiplied in the integer kernel (``MatMulInteger``, u8s8, exact with VNNI or AMX). A
  row's numbers stay its own, as with the bundled graph.

Then ``--pairs`` MultiNLI dev-matched pairs (never trained on) through each form, one at a time
as the app reads them: three-way accuracy, and how far the probabilities move from the bundled
graph's (mean and largest |dP|, how often the top class changes). The figures decide whether a
faster kernel is worth what it moves; docs/history.md (thirtieth session) has the runs, where
int8 rows ran twice as fast on an Intel Xeon with AMX and cost the held-out summary ranking 1.7
points on the 300-item samples (`bench_combiner.py --limit 300`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

LEVELS = 127  # int8 rows: levels each side of zero
ZERO_CODE = 128  # the uint8 code of zero


def _stored_weights(model: Any) -> dict[str, tuple[str, str, str, Any]]:
    """Per ``MatMul`` whose weight is ``DequantizeLinear`` of stored int8: (weight, scale,
    zero point, the DequantizeLinear node), by the product's output."""
    inits = {t.name for t in model.graph.initializer}
    made_by = {out: n for n in model.graph.node for out in n.output}
    out = {}
    for node in model.graph.node:
        dq = made_by.get(node.input[1]) if node.op_type == "MatMul" else None
        if dq is not None and dq.op_type == "DequantizeLinear" and set(dq.input) <= inits:
            out[node.output[0]] = (*dq.input, dq)
    return out


def expanded_fp32(model: Any) -> int:
    """Replace each stored int8 weight's ``DequantizeLinear`` by the float weight (in place)."""
    from onnx import numpy_helper

    inits = {t.name: t for t in model.graph.initializer}
    dqs = {id(dq): dq for *_, dq in _stored_weights(model).values()}
    for dq in dqs.values():
        weight, scale, zero = (numpy_helper.to_array(inits[n]) for n in dq.input)
        value = (weight.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)
        model.graph.initializer.append(numpy_helper.from_array(value, dq.output[0]))
    kept = [n for n in model.graph.node if id(n) not in dqs]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    return len(dqs)


def int8_rows(model: Any) -> int:
    """Rewrite each stored-int8 product as ``MatMulInteger`` on its input rounded to int8 row by
    row (in place); products reading one input share its rounding. Returns how many."""
    from onnx import TensorProto, helper, numpy_helper

    inits = {t.name: t for t in model.graph.initializer}
    products = _stored_weights(model)
    for weight, _, zero, _ in {w[0]: w for w in products.values()}.values():
        w = numpy_helper.to_array(inits[weight]).astype(np.int16)
        zw = numpy_helper.to_array(inits[zero]).astype(np.int16)
        centred = w - (zw.reshape(1, -1) if zw.size > 1 else zw)
        inits[weight].CopyFrom(numpy_helper.from_array(centred.astype(np.int8), weight))
        inits[zero].CopyFrom(numpy_helper.from_array(np.zeros(zw.shape, np.int8), zero))
    consts = {
        "rows_levels": np.array(float(LEVELS), np.float32),
        "rows_tiny": np.array(1e-30, np.float32),
        "rows_unit": np.array(1.0, np.float32),
        "rows_zero": np.array(ZERO_CODE, np.uint8),
    }
    model.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in consts.items())
    dropped = {id(dq) for *_, dq in products.values()}
    rounded: dict[str, tuple[str, str]] = {}
    nodes: list[Any] = []
    for k, node in enumerate(model.graph.node):
        if id(node) in dropped:
            continue
        if node.output[0] not in products:
            nodes.append(node)
            continue
        weight, scale, zero, _ = products[node.output[0]]
        x = node.input[0]
        if x not in rounded:
            p = f"rows{len(rounded)}"
            nodes += [
                helper.make_node("Abs", [x], [f"{p}a"]),
                helper.make_node("ReduceMax", [f"{p}a"], [f"{p}m"], axes=[-1], keepdims=1),
                helper.make_node("Max", [f"{p}m", "rows_tiny"], [f"{p}t"]),
                helper.make_node("Div", [f"{p}t", "rows_levels"], [f"{p}s"]),
                helper.make_node("Div", [x, f"{p}s"], [f"{p}u"]),
                helper.make_node("QuantizeLinear", [f"{p}u", "rows_unit", "rows_zero"], [f"{p}q"]),
            ]
            rounded[x] = (f"{p}q", f"{p}s")
        q, row_scale = rounded[x]
        p = f"rowp{k}"
        nodes += [
            helper.make_node("MatMulInteger", [q, weight, "rows_zero", zero], [f"{p}i"]),
            helper.make_node("Cast", [f"{p}i"], [f"{p}f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{p}f", row_scale], [f"{p}r"]),
            helper.make_node("Mul", [f"{p}r", scale], list(node.output), name=node.name),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return len(products)


def build_forms(model_file: Path, folder: Path) -> dict[str, Path]:
    import onnx

    forms = {"weight-only int8 (bundled)": model_file}
    for name, rewrite in (("fp32", expanded_fp32), ("int8 rows", int8_rows)):
        model = onnx.load(str(model_file))
        count = rewrite(model)
        onnx.checker.check_model(model)
        forms[f"{name} ({count} products)"] = folder / f"{name.replace(' ', '_')}.onnx"
        onnx.save(model, str(forms[f"{name} ({count} products)"]))
    return forms


def _feed(session: Any, ids: list[int], types: list[int]) -> dict[str, np.ndarray]:
    arr = np.asarray([ids], np.int64)
    feed = {
        "input_ids": arr,
        "attention_mask": np.ones_like(arr),
        "token_type_ids": np.asarray([types], np.int64),
    }
    wanted = {i.name for i in session.get_inputs()}
    return {k: v for k, v in feed.items() if k in wanted}


def main(argv: list[str] | None = None) -> int:
    from tokenizers import Tokenizer

    from models.readable import readable
    from models.runtime import _load_session
    from models.training.data import default_data_dir
    from models.training.nli_data import BENCHMARK_MNLI, held_out

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, default=REPO / "resources" / "models" / "nli")
    ap.add_argument("--pairs", type=int, default=300, help="MultiNLI dev-matched pairs (0: none)")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    model_file = args.model_dir / "model.onnx"
    if not model_file.is_file():
        print(f"{model_file}: no NLI model here")
        return 1
    config = json.loads((args.model_dir / "config.json").read_text(encoding="utf-8"))
    labels = {str(v).lower(): int(k) for k, v in config["id2label"].items()}
    tokenizer = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    with tempfile.TemporaryDirectory() as tmp:
        # the optimised copies of these temporary graphs go with them, not to the user's cache
        os.environ["FACTDESK_CACHE_DIR"] = str(Path(tmp) / "cache")
        forms = build_forms(model_file, Path(tmp))
        sessions = {
            name: _load_session(path, ["CPUExecutionProvider"]) for name, path in forms.items()
        }
        names = [o.name for o in next(iter(sessions.values())).get_outputs()]
        output = "probs" if "probs" in names else names[0]
        rng = np.random.default_rng(0)
        print(f"{model_file}: one unpadded input at a time, median of {args.repeats} (ms)")
        print(f"{'form':44} {'40 word-pieces':>15} {'250 word-pieces':>16}")
        reference: list[float] = []
        for name, session in sessions.items():
            row = []
            for length in (40, 250):
                ids = [0, *rng.integers(1000, 20000, length - 2).tolist(), 2]
                feed = _feed(session, ids, [0] * length)
                session.run([output], feed)
                times = []
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    session.run([output], feed)
                    times.append(1000 * (time.perf_counter() - t))
                row.append(statistics.median(times))
            reference = reference or row
            ratio = " / ".join(f"{r / b:.2f}" for r, b in zip(row, reference, strict=True))
            print(
                f"{name:44} {row[0]:15.0f} {row[1]:16.0f}   (time {ratio} of the bundled graph's)"
            )
        if not args.pairs:
            return 0
        pairs = held_out(default_data_dir(), BENCHMARK_MNLI, args.pairs, 7)
        gold = np.array([labels[p.label] for p in pairs])
        probs: dict[str, np.ndarray] = {}
        for name, session in sessions.items():
            rows = []
            for p in pairs:
                e = tokenizer.encode(readable(p.premise), readable(p.hypothesis))
                rows.append(session.run([output], _feed(session, e.ids, e.type_ids))[0][0])
            probs[name] = np.array(rows)
        base = probs[next(iter(probs))]
        print(f"\n{len(pairs)} MultiNLI dev-matched pairs (reference: the bundled graph)")
        for name, p in probs.items():
            moved = np.abs(p - base)
            print(
                f"{name:44} accuracy {100 * (p.argmax(1) == gold).mean():.2f}   "
                f"|dP| mean {moved.mean():.4f} max {moved.max():.3f}   "
                f"top class changed {100 * (p.argmax(1) != base.argmax(1)).mean():.1f}%"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
