"""The two forms tests/benchmarks/bench_int8_kernels.py compares with the bundled weight-only
int8 graph compute what they say: the float product of the int8 weights, and the product with
each input row rounded to int8 on its own scale."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_int8_kernels.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_int8_kernels", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _weight_only(q: np.ndarray, scale: np.ndarray) -> object:
    """x -> (x @ W, x @ W) with W = DequantizeLinear of uint8 weights around 128, read twice."""
    inits = [
        numpy_helper.from_array((q.astype(np.int16) + 128).astype(np.uint8), "w"),
        numpy_helper.from_array(scale, "ws"),
        numpy_helper.from_array(np.full(q.shape[1], 128, np.uint8), "wz"),
    ]
    nodes = [
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=1),
        helper.make_node("MatMul", ["x", "wf"], ["y"], name="first"),
        helper.make_node("MatMul", ["x", "wf"], ["z"], name="second"),
    ]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["n", q.shape[1]]) for n in "yz"]
    graph = helper.make_graph(
        nodes,
        "two",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", q.shape[0]])],
        outputs,
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _case(seed: int, rows: int, cols: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """A generator, int8 weights and their per-column scales."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-127, 128, (rows, cols)).astype(np.int8)
    return rng, q, rng.uniform(0.01, 0.02, cols).astype(np.float32)


def _run(model: object, x: np.ndarray) -> list[np.ndarray]:
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})


def test_int8_rows_round_each_row_on_its_own_scale_once_per_input() -> None:
    bench = _bench()
    rng, q, scale = _case(2, 16, 3)
    model = _weight_only(q, scale)
    assert bench.int8_rows(model) == 2
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("ReduceMax") == 1 and kinds.count("MatMulInteger") == 2
    assert "DequantizeLinear" not in kinds
    x = rng.normal(size=(5, 16)).astype(np.float32)
    x[0] *= 1000.0  # one scale over the tensor would flatten the other rows
    y, z = _run(model, x)
    step = np.abs(x).max(axis=-1, keepdims=True).astype(np.float64) / bench.LEVELS
    want = (np.rint(x / step) @ q.astype(np.float64)) * step * scale
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y, z)
    # a row alone gives the same numbers as beside the large one
    np.testing.assert_array_equal(_run(model, x[1:2])[0][0], y[1])


def test_fp32_expands_the_int8_weights_to_floats() -> None:
    bench = _bench()
    rng, q, scale = _case(4, 8, 4)
    model = _weight_only(q, scale)
    assert bench.expanded_fp32(model) == 1  # one weight, read by both products
    assert {n.op_type for n in model.graph.node} == {"MatMul"}
    x = rng.normal(size=(3, 8)).astype(np.float32)
    y, _ = _run(model, x)
    np.testing.assert_allclose(y, x @ (q.astype(np.float32) * scale), rtol=1e-5, atol=1e-6)


def test_outlier_channels_come_in_float_and_the_rest_in_int8_rows() -> None:
    bench = _bench()
    rng, q, scale = _case(6, 16, 3)
    x = rng.normal(size=(5, 16)).astype(np.float32)
    x[:, 5] *= 400.0  # a channel far larger than the rest in every row, as in transformers
    maxima = {"x": np.abs(x).max(axis=0) + np.eye(16, dtype=np.float32)[11] * 1e3}
    model = _weight_only(q, scale)
    assert bench.outliers_in_float(model, maxima, share=2 / 16) == 2
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("Gather") == 1 and kinds.count("MatMulInteger") == 2
    y, z = _run(model, x)
    channels = [5, 11]
    rest = x.astype(np.float64).copy()
    rest[:, channels] = 0.0
    step = np.abs(rest).max(axis=-1, keepdims=True) / bench.LEVELS
    weights = q.astype(np.float64) * scale
    want = (np.rint(rest / step) @ q.astype(np.float64)) * step * scale
    want += x[:, channels].astype(np.float64) @ weights[channels]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(y, z)
    # the point of it: far closer to the float product than rows rounded with the outlier in
    exact = x.astype(np.float64) @ weights
    plain = _weight_only(q, scale)
    bench.int8_rows(plain)
    rows_error = np.abs(_run(plain, x)[0] - exact).max()
    assert np.abs(y - exact).max() < rows_error / 20
