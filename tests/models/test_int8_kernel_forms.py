"""The form tests/benchmarks/bench_int8_kernels.py adds to the int8-rows forms
(tests/models/test_int8_rows.py) computes what it says: the float product of the int8
weights."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from tests.models.test_int8_rows import case, run, weight_only  # noqa: E402

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_int8_kernels.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_int8_kernels", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fp32_expands_the_int8_weights_to_floats() -> None:
    bench = _bench()
    rng, q, scale = case(4, 8, 4)
    model = weight_only(q, scale)
    assert bench.expanded_fp32(model) == 1  # one weight, read by both products
    assert {n.op_type for n in model.graph.node} == {"MatMul"}
    x = rng.normal(size=(3, 8)).astype(np.float32)
    y, _ = run(model, x)
    np.testing.assert_allclose(y, x @ (q.astype(np.float32) * scale), rtol=1e-5, atol=1e-6)
