"""Int8 rows: the bundled graphs' int8 products multiplied in onnxruntime's integer kernel.

Exports are weight-only int8 (:func:`models.training.export.weight_only`): int8 weights times
float inputs, which onnxruntime fuses into its 8-bit ``MatMulNBits`` kernel. On the Intel Xeon
with AMX the issue names that kernel is slow (docs/history.md, thirtieth session), and the
bundled graphs were converted by this module (thirty-fourth session). It rewrites each such
product so that its input is rounded to integers row by row, on the row's own scale, and
multiplied by the same int8 weights in ``MatMulInteger`` (the integer kernel, which uses VNNI
and AMX where the CPU has them):

- a row (one word-piece's vector) is rounded on its own largest value, so its numbers never
  depend on the rows batched beside it;
- each product input's few *outlier channels* (the share with the largest values on
  calibration inputs: transformer inputs carry a handful of channels far larger than the rest)
  are taken out of the rounding and multiplied in float by their rows of the same weights,
  dequantised once when the session is built (the file stores only which channels);
- the rounded rows use 8 bits (127 levels each side of zero) and run on onnxruntime's u8s8
  kernel, exact where the CPU has VNNI or AMX; elsewhere on x86 that kernel adds pairs of
  products in saturating 16-bit lanes, and :func:`models.runtime.exact_int8_products` has
  onnxruntime store the weights as uint8 when it builds the session (its u8u8 kernel: the same
  numbers, about as fast as the weight-only graphs). 7-bit rows would fit the 16-bit lanes
  everywhere but moved the NLI model's probabilities twice as far (docs/history.md,
  thirty-second session).

``python -m models.training.int8_rows DIR ...`` converts exported model folders in place and
renews their versions; ``tests/benchmarks/bench_int8_kernels.py`` times the forms and measures
what each moves.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Levels each side of zero of a rounded input row.
ACTIVATION_LEVELS = 127
#: The uint8 code of zero in a rounded input row (its codes run 1..255).
ACTIVATION_ZERO = 128
#: The share of each product input's channels read in float (0.5%: 4 of 768, 15 of 3,072).
OUTLIER_SHARE = 0.005


def stored_weights(model: Any) -> dict[str, tuple[str, str, str, Any]]:
    """Per ``MatMul`` whose weight is ``DequantizeLinear`` of stored int8 or uint8: (weight,
    scale, zero point, the DequantizeLinear node), by the product's output."""
    inits = {t.name for t in model.graph.initializer}
    made_by = {out: n for n in model.graph.node for out in n.output}
    out = {}
    for node in model.graph.node:
        dq = made_by.get(node.input[1]) if node.op_type == "MatMul" else None
        if dq is not None and dq.op_type == "DequantizeLinear" and set(dq.input) <= inits:
            out[node.output[0]] = (*dq.input, dq)
    return out


def _centre_weights(model: Any, products: dict[str, tuple[str, str, str, Any]]) -> None:
    """Store each product weight as int8 around a zero point of 0 (the same numbers)."""
    from onnx import numpy_helper

    inits = {t.name: t for t in model.graph.initializer}
    for weight, _, zero, _ in {w[0]: w for w in products.values()}.values():
        w = numpy_helper.to_array(inits[weight]).astype(np.int16)
        zw = numpy_helper.to_array(inits[zero]).astype(np.int16)
        centred = w - (zw.reshape(1, -1) if zw.size > 1 else zw)
        if centred.min() < -128 or centred.max() > 127:
            raise ValueError(f"{weight}: weights do not fit int8 around their zero point")
        inits[weight].CopyFrom(numpy_helper.from_array(centred.astype(np.int8), weight))
        inits[zero].CopyFrom(numpy_helper.from_array(np.zeros(zw.shape, np.int8), zero))


def int8_rows(model: Any, levels: int = ACTIVATION_LEVELS, zero_code: int = ACTIVATION_ZERO) -> int:
    """Rewrite each stored-int8 product as ``MatMulInteger`` on its input rounded row by row to
    ``levels`` each side of ``zero_code`` (in place); products reading one input share its
    rounding. Returns how many products."""
    from onnx import TensorProto, helper, numpy_helper

    products = stored_weights(model)
    _centre_weights(model, products)
    consts: dict[str, np.ndarray] = {
        "rows_levels": np.array(float(levels), np.float32),
        "rows_tiny": np.array(1e-30, np.float32),
        "rows_unit": np.array(1.0, np.float32),
        "rows_zero": np.array(zero_code, np.uint8),
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
    needed = {name for n in nodes for name in n.input}
    kept = [t for t in model.graph.initializer if t.name in needed]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    return len(products)


def input_maxima(model: Any, feeds: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The largest |x| of each channel of each stored-int8 product's input over ``feeds``."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    probe = type(model)()
    probe.CopyFrom(model)
    products = stored_weights(probe)
    inputs = sorted({n.input[0] for n in probe.graph.node if n.output[0] in products})
    given = {o.name for o in probe.graph.output}
    probe.graph.output.extend(
        helper.make_tensor_value_info(x, TensorProto.FLOAT, None) for x in inputs if x not in given
    )
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    session = ort.InferenceSession(
        probe.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    wanted = {i.name for i in session.get_inputs()}
    top: dict[str, np.ndarray] = {}
    for feed in feeds:
        values = session.run(inputs, {k: v for k, v in feed.items() if k in wanted})
        for x, v in zip(inputs, values, strict=True):
            m = np.abs(v).reshape(-1, v.shape[-1]).max(axis=0)
            top[x] = np.maximum(top[x], m) if x in top else m
    if not top:
        raise ValueError("no calibration inputs: the outlier channels cannot be chosen")
    return top


def outliers_in_float(
    model: Any,
    maxima: dict[str, np.ndarray],
    share: float = OUTLIER_SHARE,
    levels: int = ACTIVATION_LEVELS,
    zero_code: int = ACTIVATION_ZERO,
) -> int:
    """Int8 rows (:func:`int8_rows`) with each product input's largest channels read in float
    (in place): the ``share`` of its channels with the largest ``maxima`` are zeroed in the
    rounded rows (which then round on the other channels' scale) and multiplied in float by
    their rows of the same int8 weights, gathered and dequantised in the graph (constants:
    onnxruntime computes them once, when it builds the session). Returns how many products."""
    from onnx import TensorProto, helper, numpy_helper

    products = stored_weights(model)
    split: dict[str, tuple[str, str, np.ndarray, str]] = {}  # input -> rest, outliers, channels
    read_with: dict[str, bytes] = {}  # weight -> the channels its products read in float
    nodes: list[Any] = []
    for node in model.graph.node:
        if node.output[0] not in products:
            nodes.append(node)
            continue
        weight, scale, zero, dq = products[node.output[0]]
        x = node.input[0]
        if x not in split:
            if x not in maxima:
                raise ValueError(f"{x}: no calibration maxima for this product input")
            p = f"outl{len(split)}"
            k = max(1, round(share * len(maxima[x])))
            channels = np.sort(np.argsort(-maxima[x], kind="stable")[:k]).astype(np.int64)
            model.graph.initializer.extend(
                [
                    numpy_helper.from_array(channels, f"{p}c"),
                    numpy_helper.from_array(np.array([len(maxima[x])], np.int64), f"{p}n"),
                    numpy_helper.from_array(np.array([k], np.int64), f"{p}k"),
                ]
            )
            one, zero_ = (numpy_helper.from_array(np.array([v], np.float32)) for v in (1, 0))
            # the mask (1 but on the outlier channels) is made from constants, not stored
            nodes += [
                helper.make_node("ConstantOfShape", [f"{p}n"], [f"{p}1"], value=one),
                helper.make_node("ConstantOfShape", [f"{p}k"], [f"{p}0"], value=zero_),
                helper.make_node("ScatterElements", [f"{p}1", f"{p}c", f"{p}0"], [f"{p}m"]),
                helper.make_node("Mul", [x, f"{p}m"], [f"{p}rest"]),
                helper.make_node("Gather", [x, f"{p}c"], [f"{p}out"], axis=-1),
            ]
            split[x] = (f"{p}rest", f"{p}out", channels, f"{p}c")
        rest, out, channels, named = split[x]
        if weight not in read_with:
            axis = {a.name: helper.get_attribute_value(a) for a in dq.attribute}.get("axis", 1)
            if axis not in (1, -1) and _size(model, scale) > 1:
                raise ValueError(f"{weight}: scales along axis {axis}, not per output column")
            # Cast, Sub and Mul rather than DequantizeLinear: onnxruntime folds these constants
            # when it builds the session, and leaves a DequantizeLinear to run every time
            w = f"{weight}_out"
            nodes += [
                helper.make_node("Gather", [weight, named], [f"{w}q"], axis=0),
                helper.make_node("Cast", [f"{w}q"], [f"{w}f"], to=TensorProto.FLOAT),
                helper.make_node("Cast", [zero], [f"{w}z"], to=TensorProto.FLOAT),
                helper.make_node("Sub", [f"{w}f", f"{w}z"], [f"{w}c"]),
                helper.make_node("Mul", [f"{w}c", scale], [w]),
            ]
            read_with[weight] = channels.tobytes()
        elif read_with[weight] != channels.tobytes():
            raise ValueError(f"{weight}: read by products whose inputs differ in outliers")
        y = node.output[0]
        nodes += [
            helper.make_node("MatMul", [rest, node.input[1]], [f"{y}_rest"], name=node.name),
            helper.make_node("MatMul", [out, f"{weight}_out"], [f"{y}_out"]),
            helper.make_node("Add", [f"{y}_rest", f"{y}_out"], [y]),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return int8_rows(model, levels, zero_code)


def _size(model: Any, name: str) -> int:
    tensor = next(t for t in model.graph.initializer if t.name == name)
    return int(np.prod(tensor.dims))


@contextlib.contextmanager
def recorded_inputs() -> Iterator[dict[Path, list[dict[str, np.ndarray]]]]:
    """While the block runs, every ONNX session run is recorded: {graph file: [its feeds]}.
    Sessions are built from the files themselves (no optimised copies), and sessions of the
    same files built before the block are not reused, so that every run is seen."""
    import onnxruntime as ort

    from models import runtime

    seen: dict[Path, list[dict[str, np.ndarray]]] = {}
    plain_run = ort.InferenceSession.run

    def run(self: Any, names: Any, feed: dict[str, Any], *args: Any, **kw: Any) -> Any:
        path = getattr(self, "_model_path", None)
        if path:
            seen.setdefault(Path(path).resolve(), []).append(
                {k: np.array(v, copy=True) for k, v in feed.items()}
            )
        return plain_run(self, names, feed, *args, **kw)

    keep, runtime.KEEP_OPTIMISED_BYTES = runtime.KEEP_OPTIMISED_BYTES, 1 << 62
    with runtime._SESSIONS_LOCK:
        held = dict(runtime._SESSIONS)
        runtime._SESSIONS.clear()
    ort.InferenceSession.run = run  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        ort.InferenceSession.run = plain_run  # type: ignore[method-assign]
        runtime.KEEP_OPTIMISED_BYTES = keep
        with runtime._SESSIONS_LOCK:
            runtime._SESSIONS.update(held)


def app_inputs(
    checkers: Sequence[str], pairs: Sequence[tuple[str, str]]
) -> dict[Path, list[dict[str, np.ndarray]]]:
    """What the app feeds each graph when ``checkers`` score ``pairs`` (source, output) as
    analysis does (parsed, then each checker on the whole batch): {graph file: [feeds]}."""
    from models.claims import pair_input
    from models.parsing import parse_many
    from models.registry import load_checker

    with recorded_inputs() as seen:
        loaded = [load_checker(name, device="cpu") for name in checkers]
        parsed = parse_many([text for pair in pairs for text in pair])
        batch = [pair_input(i, parsed[2 * i], parsed[2 * i + 1]) for i in range(len(pairs))]
        for checker in loaded:
            checker.score(batch)
    return seen


def calibration_pairs(data_dir: Path, count: int, seed: int = 32) -> list[tuple[str, str]]:
    """``count`` source/output pairs from the training side of the summary sets (never
    evaluated on), as the calibration text."""
    import random

    from models.training.calibration_data import training_side_records

    records = training_side_records(data_dir)
    if not records:
        raise ValueError(f"{data_dir}: no training-side summary pairs to calibrate on")
    picked = random.Random(seed).sample(records, min(count, len(records)))
    return [(r.document, r.summary) for r in picked]


def convert(model_file: Path, feeds: list[dict[str, np.ndarray]], share: float) -> int:
    """Rewrite one graph file in place in the int8-rows form with outliers in float, its
    outlier channels chosen on ``feeds``; returns how many products (0: none to rewrite)."""
    import onnx

    model = onnx.load(str(model_file))
    if not stored_weights(model):
        return 0
    count = outliers_in_float(model, input_maxima(model, feeds), share)
    onnx.checker.check_model(model)
    part = model_file.with_name(model_file.name + ".part")
    onnx.save(model, str(part))
    part.replace(model_file)
    return count


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from models.registry import default_checkers
    from models.training.data import default_data_dir
    from models.training.export import file_hash, renew_versions, versions_of

    ap = argparse.ArgumentParser(
        prog="python -m models.training.int8_rows",
        description="Rewrite exported model folders' weight-only int8 products as int8 rows "
        "with outlier channels in float (in place, new versions), the channels chosen on what "
        "the app feeds each graph for training-side summary pairs.",
    )
    ap.add_argument("model_dirs", nargs="+", type=Path, help="folders with model.onnx")
    ap.add_argument("--pairs", type=int, default=16, help="training-side pairs (default 16)")
    ap.add_argument("--share", type=float, default=OUTLIER_SHARE, help="channels in float")
    ap.add_argument("--data-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    files = {d: (d / "model.onnx").resolve() for d in args.model_dirs}
    for folder, file in files.items():
        if not file.is_file():
            ap.error(f"{folder}: no model.onnx")
    names = default_checkers()
    if "combined-fast" not in names:
        from models.registry import CHECKERS

        if "combined-fast" in CHECKERS and CHECKERS["combined-fast"].available():
            names.append("combined-fast")  # the fast path's graphs too
    pairs = calibration_pairs(args.data_dir or default_data_dir(), args.pairs)
    seen = app_inputs(names, pairs)
    for folder, file in files.items():
        if not seen.get(file):
            print(f"{folder}: not read by the default or the fast path; left as it is")
            continue
        old = versions_of(folder)
        count = convert(file, seen[file], args.share)
        if count:
            renew_versions(folder, old)
        print(
            f"{folder}: {count} products rewritten, calibrated on {len(seen[file])} inputs"
            + (f", version {file_hash(file)}" if count else " (no weight-only int8 products)")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
