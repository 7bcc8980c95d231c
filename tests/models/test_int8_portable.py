"""The int8 models give the same numbers on every x86 CPU, with or without VNNI.

onnxruntime's u8s8 kernel (uint8 activations, int8 weights) adds pairs of products in saturating
16-bit lanes on CPUs without VNNI; there the bundled NLI model once answered about
(0.33, 0.33, 0.33) for every pair. Our exports store the weights as uint8 (exactly the same
numbers) and multiply by them on float activations (weight-only int8): no integer kernel runs,
and a row's numbers do not depend on the rows it is batched with. The bundled graphs are then
converted to int8 rows (``models.training.int8_rows``: each input row rounded on its own scale),
whose int8 weights onnxruntime stores as uint8 where the CPU lacks VNNI
(``models.runtime.exact_int8_products``; tested in ``test_int8_rows.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models.resources import resources_dir  # noqa: E402
from models.training.export import (  # noqa: E402
    make_portable,
    quantize_int8,
    unsigned_weights,
    weight_only,
)

# arc_support has no graph of its own: its heads are in the NLI model's (shared_encoder).
BUNDLED = ("nli", "nli_fast", "aligner", "embedder")


def _ops(path: Path) -> set[str]:
    return {n.op_type for n in onnx.load(str(path)).graph.node}


def _int8_weights(path: Path) -> list[str]:
    """The MatMulInteger nodes of a graph whose weight is stored as int8."""
    model = onnx.load(str(path))
    inits = {t.name: t for t in model.graph.initializer}
    return [
        n.name
        for n in model.graph.node
        if n.op_type == "MatMulInteger"
        and n.input[1] in inits
        and inits[n.input[1]].data_type == TensorProto.INT8
    ]


def _row_rounded(made: dict[str, Any], tensor: str) -> bool:
    """Whether ``tensor`` is a ``QuantizeLinear`` of its input divided by a scale that comes from
    a ``ReduceMax`` over the last axis (each row on its own largest value); ``made`` maps each
    tensor to the node that makes it."""
    quantise = made.get(tensor)
    if quantise is None or quantise.op_type != "QuantizeLinear":
        return False
    divide = made.get(quantise.input[0])
    seen, todo = set(), [divide.input[1]] if divide and divide.op_type == "Div" else []
    while todo:  # the divisor's own inputs, back to the reduction that sets it
        node = made.get(todo.pop())
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.op_type == "ReduceMax":
            axes = next((list(a.ints) for a in node.attribute if a.name == "axes"), [])
            return axes == [-1]
        todo.extend(node.input)
    return False


def _run(path: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feed)[0]


def _float_matmul(path: Path, weight: np.ndarray) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", weight.shape[0]])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", weight.shape[1]])
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="dense")],
        "dense",
        [x],
        [y],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))


def test_a_quantised_export_is_exact_where_the_u8s8_kernel_saturates(tmp_path: Path) -> None:
    # All-positive inputs quantise to uint8 values near 255 and same-signed weights to +-127:
    # each pair of products (about 64,800) overflows a signed 16-bit lane.
    rng = np.random.default_rng(7)
    weight = rng.uniform(0.5, 1.0, (256, 8)).astype(np.float32)
    weight[:, ::2] *= -1
    _float_matmul(tmp_path / "fp32.onnx", weight)
    quantize_int8(tmp_path / "fp32.onnx", tmp_path / "int8.onnx")
    assert _int8_weights(tmp_path / "int8.onnx") == []
    x = rng.uniform(0.9, 1.0, (4, 256)).astype(np.float32)
    got = _run(tmp_path / "int8.onnx", {"x": x})
    want = x @ weight
    # int8 rounding costs well under 1%; saturation would cost about half of each output
    assert np.abs(got - want).max() <= 0.01 * np.abs(want).max()


def test_uint8_weights_are_the_same_numbers(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    weight = rng.integers(-127, 128, (64, 5)).astype(np.int8)
    zero = rng.integers(-3, 4, (5,)).astype(np.int8)
    a = helper.make_tensor_value_info("a", TensorProto.UINT8, ["n", 64])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, ["n", 5])
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w", "az", "wz"], ["y"], name="mm")],
        "mm",
        [a],
        [y],
        [
            numpy_helper.from_array(weight, "w"),
            numpy_helper.from_array(np.uint8(0), "az"),
            numpy_helper.from_array(zero, "wz"),
        ],
    )
    path = tmp_path / "mm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    assert unsigned_weights(path) == 1
    assert unsigned_weights(path) == 0  # converting twice changes nothing
    acts = rng.integers(200, 256, (3, 64)).astype(np.uint8)
    want = acts.astype(np.int64) @ (weight.astype(np.int64) - zero.astype(np.int64))
    np.testing.assert_array_equal(_run(path, {"a": acts}), want)


def test_int8_weights_are_read_on_unrounded_activations(tmp_path: Path) -> None:
    # Dynamic quantisation rounds each input tensor to uint8 with one scale over the tensor, so
    # a small row batched with a large one loses its precision; weight-only int8 does not.
    rng = np.random.default_rng(11)
    weight = rng.normal(size=(64, 6)).astype(np.float32)
    _float_matmul(tmp_path / "fp32.onnx", weight)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(tmp_path / "fp32.onnx"),
        str(tmp_path / "dynamic.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
    )
    small = rng.normal(scale=0.01, size=(1, 64)).astype(np.float32)
    large = rng.normal(scale=100.0, size=(1, 64)).astype(np.float32)
    both = np.concatenate([large, small])
    dynamic = tmp_path / "dynamic.onnx"
    assert "DynamicQuantizeLinear" in _ops(dynamic)
    # the old graph: the small row alone and beside the large one disagree
    assert not np.allclose(_run(dynamic, {"x": small})[0], _run(dynamic, {"x": both})[1])

    assert weight_only(dynamic) == 1
    assert weight_only(dynamic) == 0  # converting twice changes nothing
    assert _ops(dynamic) == {"DequantizeLinear", "MatMul"}
    alone, beside = _run(dynamic, {"x": small})[0], _run(dynamic, {"x": both})[1]
    np.testing.assert_allclose(alone, beside, rtol=1e-5, atol=1e-7)
    # the product is the input times the stored int8 weights (onnxruntime rounds the input per
    # block of 32 values of the row, not over the tensor)
    (dq,) = [n for n in onnx.load(str(dynamic)).graph.node if n.op_type == "DequantizeLinear"]
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(dynamic)).graph.initializer}
    q, scale, zero = (inits[name] for name in dq.input)
    stored = (q.astype(np.float32) - zero.astype(np.float32)) * scale
    assert np.abs(stored - weight).max() <= np.abs(weight).max() / 100  # int8 rounding
    want = (small @ stored)[0]
    assert np.abs(alone - want).max() <= 0.02 * np.abs(want).max()


def test_an_export_reads_its_int8_weights_on_float_activations(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    _float_matmul(tmp_path / "fp32.onnx", rng.normal(size=(32, 4)).astype(np.float32))
    quantize_int8(tmp_path / "fp32.onnx", tmp_path / "int8.onnx")
    assert _ops(tmp_path / "int8.onnx") == {"DequantizeLinear", "MatMul"}


def test_make_portable_gives_a_new_version_and_keeps_a_suffix(tmp_path: Path) -> None:
    import json

    from models.training.export import file_hash

    rng = np.random.default_rng(1)
    _float_matmul(tmp_path / "fp32.onnx", rng.normal(size=(16, 4)).astype(np.float32))
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # an export from before: int8 weights
    quantize_dynamic(
        str(tmp_path / "fp32.onnx"),
        str(tmp_path / "model.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
    )
    assert _int8_weights(tmp_path / "model.onnx")
    old = file_hash(tmp_path / "model.onnx")
    (tmp_path / "config.json").write_text(json.dumps({"version": f"{old}-calib1"}))
    # heads kept in this graph, in a folder beside it, and a model of its own beside it
    heads, other = (
        tmp_path.parent / f"{tmp_path.name}-heads",
        tmp_path.parent / f"{tmp_path.name}-x",
    )
    heads.mkdir()
    other.mkdir()
    names = {"model_file": f"../{tmp_path.name}/model.onnx"}
    (heads / "config.json").write_text(json.dumps({**names, "version": f"{old}-calib1-h7"}))
    (other / "config.json").write_text(json.dumps({"version": f"{old}-calib1-z"}))
    assert make_portable(tmp_path)
    new = file_hash(tmp_path / "model.onnx")
    version = json.loads((tmp_path / "config.json").read_text())["version"]
    assert version == f"{new}-calib1" and not version.startswith(old)
    assert json.loads((heads / "config.json").read_text())["version"] == f"{new}-calib1-h7"
    assert json.loads((other / "config.json").read_text())["version"] == f"{old}-calib1-z"
    assert _ops(tmp_path / "model.onnx") == {"DequantizeLinear", "MatMul"}
    assert not make_portable(tmp_path)


@pytest.mark.parametrize("name", BUNDLED + ("arc_support_fast",))
def test_bundled_graphs_round_no_input_over_its_tensor(name: str) -> None:
    # weight-only int8 or int8 rows: no product input is rounded on one scale over the whole
    # batch, so a pair's numbers never depend on what is analysed with it (docs/history.md,
    # twenty-first and thirty-fourth sessions)
    path = resources_dir() / "models" / name / "model.onnx"
    if not path.is_file():
        pytest.skip(f"{name} is not bundled in this checkout")
    model = onnx.load(str(path))
    assert "DynamicQuantizeLinear" not in {n.op_type for n in model.graph.node}
    assert any(n.op_type in {"MatMulInteger", "MatMul"} for n in model.graph.node)
    # every integer product reads its input rounded on each row's own largest value
    made = {out: n for n in model.graph.node for out in n.output}
    integer = [n for n in model.graph.node if n.op_type == "MatMulInteger"]
    assert all(_row_rounded(made, n.input[0]) for n in integer)
