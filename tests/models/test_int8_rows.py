"""The int8-rows form (models.training.int8_rows): each product's input rounded to int8 row by
row and multiplied in the integer kernel, its outlier channels in float from the same int8
weights; exact on CPUs without VNNI through onnxruntime's u8u8 kernel; a graph file converted
in place with channels chosen on what the app fed it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import models.runtime as runtime  # noqa: E402
from models.training import int8_rows as rows  # noqa: E402

CPU = ["CPUExecutionProvider"]


def weight_only(q: np.ndarray, scale: np.ndarray) -> object:
    """x -> (x @ W, x @ W) with W = DequantizeLinear of uint8 weights around 128, read twice
    (the bundled graphs' weight-only int8 products)."""
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


def case(seed: int, rows_: int, cols: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """A generator, int8 weights and their per-column scales."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-127, 128, (rows_, cols)).astype(np.int8)
    return rng, q, rng.uniform(0.01, 0.02, cols).astype(np.float32)


def run(model: object, x: np.ndarray) -> list[np.ndarray]:
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=CPU)
    return session.run(None, {"x": x})


def test_int8_rows_round_each_row_on_its_own_scale_once_per_input() -> None:
    rng, q, scale = case(2, 16, 3)
    model = weight_only(q, scale)
    assert rows.int8_rows(model) == 2
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("ReduceMax") == 1 and kinds.count("MatMulInteger") == 2
    assert "DequantizeLinear" not in kinds
    x = rng.normal(size=(5, 16)).astype(np.float32)
    x[0] *= 1000.0  # one scale over the tensor would flatten the other rows
    y, z = run(model, x)
    step = np.abs(x).max(axis=-1, keepdims=True).astype(np.float64) / rows.ACTIVATION_LEVELS
    want = (np.rint(x / step) @ q.astype(np.float64)) * step * scale
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y, z)
    # a row alone gives the same numbers as beside the large one
    np.testing.assert_array_equal(run(model, x[1:2])[0][0], y[1])


def outlier_case() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Weights, scales, an input with one channel far larger than the rest in every row (as in
    transformers), and calibration maxima that pick that channel and one more."""
    rng, q, scale = case(6, 16, 3)
    x = rng.normal(size=(5, 16)).astype(np.float32)
    x[:, 5] *= 400.0
    maxima = {"x": np.abs(x).max(axis=0) + np.eye(16, dtype=np.float32)[11] * 1e3}
    return q, scale, x, maxima


def test_outlier_channels_come_in_float_and_the_rest_in_int8_rows() -> None:
    q, scale, x, maxima = outlier_case()
    model = weight_only(q, scale)
    assert rows.outliers_in_float(model, maxima, share=2 / 16) == 2
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("MatMulInteger") == 2
    assert kinds.count("Gather") == 2  # the input's two channels, and the weight's two rows
    y, z = run(model, x)
    channels = [5, 11]
    rest = x.astype(np.float64).copy()
    rest[:, channels] = 0.0
    step = np.abs(rest).max(axis=-1, keepdims=True) / rows.ACTIVATION_LEVELS
    weights = q.astype(np.float64) * scale
    want = (np.rint(rest / step) @ q.astype(np.float64)) * step * scale
    want += x[:, channels].astype(np.float64) @ weights[channels]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(y, z)
    # the point of it: far closer to the float product than rows rounded with the outlier in
    exact = x.astype(np.float64) @ weights
    plain = weight_only(q, scale)
    rows.int8_rows(plain)
    rows_error = np.abs(run(plain, x)[0] - exact).max()
    assert np.abs(y - exact).max() < rows_error / 20


def test_the_outlier_rows_are_read_from_the_int8_weights_not_stored_again() -> None:
    q, scale, _, maxima = outlier_case()
    model = weight_only(q, scale)
    before = sum(len(t.SerializeToString()) for t in model.graph.initializer)
    rows.outliers_in_float(model, maxima, share=2 / 16)
    floats = [
        t for t in model.graph.initializer if t.data_type == TensorProto.FLOAT and t.dims != [3]
    ]
    assert all(np.prod(t.dims) <= 1 for t in floats)  # the scales and scalar constants only
    after = sum(len(t.SerializeToString()) for t in model.graph.initializer)
    assert after - before < 200  # channel numbers and a few scalars


def test_a_calibrated_input_is_needed() -> None:
    _, q, scale = case(1, 8, 2)
    with pytest.raises(ValueError, match="no calibration maxima"):
        rows.outliers_in_float(weight_only(q, scale), {"other": np.ones(8)}, share=0.25)


def kernel_weights(model_file: Path, exact: bool, tmp_path: Path) -> tuple[list[int], np.ndarray]:
    """The element types of the integer products' weights in the session onnxruntime builds
    (its optimised graph, saved), and its output for a fixed input."""
    runtime.exact_int8_products.cache_clear()
    saved = tmp_path / f"optimised-{exact}.onnx"
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(runtime, "exact_int8_products", lambda: exact)
            session = runtime._new_session(model_file, CPU, save=saved)
    finally:
        runtime.exact_int8_products.cache_clear()
    optimised = onnx.load(str(saved))
    inits = {t.name: t.data_type for t in optimised.graph.initializer}
    types = [
        inits[n.input[1]]
        for n in optimised.graph.node
        if n.op_type in {"MatMulInteger", "MatMulIntegerToFloat", "DynamicQuantizeMatMul"}
        and n.input[1] in inits
    ]
    x = np.random.default_rng(3).normal(size=(4, 64)).astype(np.float32) * 3
    return types, session.run(None, {"x": x})[0]


def test_cpus_without_vnni_multiply_on_uint8_weights_with_the_same_numbers(
    tmp_path: Path,
) -> None:
    rng, q, scale = case(9, 64, 48)
    model = weight_only(q, scale)
    rows.int8_rows(model)
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    fast_types, fast = kernel_weights(path, False, tmp_path)
    exact_types, exact = kernel_weights(path, True, tmp_path)
    assert fast_types and set(fast_types) == {TensorProto.INT8}  # u8s8: VNNI, AMX
    assert exact_types and set(exact_types) == {TensorProto.UINT8}  # u8u8: exact everywhere
    np.testing.assert_array_equal(exact, fast)


@pytest.mark.parametrize(
    ("machine", "flags", "exact"),
    [
        ("x86_64", "fpu sse4_2 avx2 avx512f avx512bw", True),  # Skylake-SP, Zen 3
        ("x86_64", "fpu avx2 avx512f avx512_vnni", False),  # Cascade Lake, Zen 4
        ("x86_64", "fpu avx2 avx_vnni", False),  # Alder Lake
        ("x86_64", "fpu avx512f amx_int8 amx_tile", False),  # Sapphire Rapids
        ("AMD64", "", True),  # Windows: the flags are not read
        ("x86_64", "SMEP ERMS AVX512VNNI", False),  # macOS sysctl spelling
        ("arm64", "", False),  # the setting only concerns x86
    ],
)
def test_the_exact_kernel_is_asked_for_where_vnni_is_not_seen(
    monkeypatch: pytest.MonkeyPatch, machine: str, flags: str, exact: bool
) -> None:
    import platform

    monkeypatch.setattr(platform, "machine", lambda: machine)
    monkeypatch.setattr(runtime, "_cpu_flags", lambda: flags)
    runtime.exact_int8_products.cache_clear()
    try:
        assert runtime.exact_int8_products() is exact
    finally:
        runtime.exact_int8_products.cache_clear()


def test_the_app_inputs_are_recorded_per_graph_file_and_conversion_uses_them(
    tmp_path: Path,
) -> None:
    rng, q, scale = case(4, 64, 48)
    path = tmp_path / "model.onnx"
    onnx.save(weight_only(q, scale), str(path))
    x = rng.normal(size=(6, 64)).astype(np.float32)
    x[:, 7] *= 300.0
    keep = runtime.KEEP_OPTIMISED_BYTES
    with rows.recorded_inputs() as seen:
        assert runtime.KEEP_OPTIMISED_BYTES > 1 << 40  # sessions from the file itself
        before = runtime._session(path, CPU).run(None, {"x": x})[0]
    assert runtime.KEEP_OPTIMISED_BYTES == keep
    assert list(seen) == [path.resolve()] and len(seen[path.resolve()]) == 1
    np.testing.assert_array_equal(seen[path.resolve()][0]["x"], x)
    assert rows.convert(path, seen[path.resolve()], share=1 / 64) == 2
    converted = onnx.load(str(path))
    gathered = [n for n in converted.graph.node if n.op_type == "Gather" and n.input[0] == "x"]
    channels = {t.name: numpy_helper.to_array(t) for t in converted.graph.initializer}
    assert [channels[g.input[1]].tolist() for g in gathered] == [[7]]  # the outlier channel
    after = ort.InferenceSession(str(path), providers=CPU).run(None, {"x": x})[0]
    assert np.abs(after - before).max() < 0.01 * np.abs(before).max()
    assert rows.convert(path, seen[path.resolve()], share=1 / 64) == 0  # nothing left to rewrite
    assert not list(tmp_path.glob("*.part"))
