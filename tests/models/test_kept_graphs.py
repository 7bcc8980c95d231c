"""Large graphs keep an optimised copy in the user's cache: a later load reads it and gets the
same numbers; a damaged copy, a rewritten model or a cache that cannot be written costs time
only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import models.runtime as runtime
from models.runtime import graph_cache_dir, kept_graph
from tests.models.test_device_choice import model_dir, tiny_graph  # noqa: F401 - a fixture

CPU = ["CPUExecutionProvider"]
X = {"x": np.linspace(-2, 2, 128, dtype=np.float32).reshape(2, 64)}


@pytest.fixture
def reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Every session made: (file, whether onnxruntime optimised it); any graph keeps a copy,
    in a cache folder of this test's own."""
    monkeypatch.setenv("FACTDESK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runtime, "KEEP_OPTIMISED_BYTES", 0)
    made: list[tuple[str, bool]] = []
    new = runtime._new_session

    def recorded(path: str | Path, providers: list[str], **kw: object) -> object:
        made.append((str(path), bool(kw.get("optimise", True))))
        return new(path, providers, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime, "_new_session", recorded)
    return made


def test_a_later_load_reads_the_kept_copy_with_the_same_numbers(
    model_dir: Path,  # noqa: F811
    reads: list[tuple[str, bool]],
) -> None:
    graph = model_dir / "model.onnx"
    first = runtime._load_session(graph, CPU)
    kept = kept_graph(graph, CPU)
    assert kept is not None and kept.is_file() and kept.parent == graph_cache_dir()
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]  # no part file left
    again = runtime._load_session(graph, CPU)
    assert reads == [(str(graph), True), (str(kept), False)]
    np.testing.assert_array_equal(again.run(None, X)[0], first.run(None, X)[0])


def test_a_damaged_copy_is_made_again(
    model_dir: Path,  # noqa: F811
    reads: list[tuple[str, bool]],
) -> None:
    graph = model_dir / "model.onnx"
    good = runtime._load_session(graph, CPU).run(None, X)[0]
    kept = kept_graph(graph, CPU)
    assert kept is not None
    kept.write_bytes(kept.read_bytes()[:100])  # cut short, as by a full disk
    session = runtime._load_session(graph, CPU)
    np.testing.assert_array_equal(session.run(None, X)[0], good)
    assert reads[-1] == (str(graph), True) and kept.stat().st_size > 100
    runtime._load_session(graph, CPU)
    assert reads[-1] == (str(kept), False)


def test_a_rewritten_model_gets_a_new_copy_and_the_old_one_goes(
    model_dir: Path,  # noqa: F811
    reads: list[tuple[str, bool]],
) -> None:
    graph = model_dir / "model.onnx"
    runtime._load_session(graph, CPU)
    old = kept_graph(graph, CPU)
    tiny_graph(graph)  # written again in place: fp32 now
    new = kept_graph(graph, CPU)
    assert new != old
    session = runtime._load_session(graph, CPU)
    w = np.random.default_rng(0).normal(size=(64, 64)).astype("f4")
    np.testing.assert_allclose(session.run(None, X)[0], X["x"] @ w, rtol=1e-5, atol=1e-5)
    assert sorted(p.name for p in graph_cache_dir().iterdir()) == [new.name]  # type: ignore[union-attr]


def test_a_cache_that_cannot_be_written_costs_nothing_but_time(
    model_dir: Path,  # noqa: F811
    reads: list[tuple[str, bool]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("FACTDESK_CACHE_DIR", str(blocked))
    graph = model_dir / "model.onnx"
    assert runtime._load_session(graph, CPU).run(None, X)[0].shape == (2, 64)
    assert reads[-1] == (str(graph), True)


def test_small_graphs_and_gpu_sessions_keep_no_copy(
    model_dir: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graph = model_dir / "model.onnx"
    assert kept_graph(graph, CPU) is None  # under the size that pays
    monkeypatch.setattr(runtime, "KEEP_OPTIMISED_BYTES", 0)
    assert kept_graph(graph, CPU) is not None
    assert kept_graph(graph, ["CUDAExecutionProvider", "CPUExecutionProvider"]) is None
    assert kept_graph(model_dir / "missing.onnx", CPU) is None


def test_the_cache_keeps_only_the_most_recently_used_copies(
    tmp_path: Path,
    reads: list[tuple[str, bool]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os
    import time

    monkeypatch.setattr(runtime, "KEPT_COPIES", 3)
    graphs = [tiny_graph(tmp_path / f"m{i}.onnx") for i in range(4)]

    def copy(graph: Path) -> str:
        kept = kept_graph(graph, CPU)
        assert kept is not None
        return kept.name

    for age, graph in enumerate(graphs[:3]):  # m0 the oldest, m2 the newest
        runtime._load_session(graph, CPU)
        os.utime(graph_cache_dir() / copy(graph), (time.time() - 100 + age,) * 2)
    runtime._load_session(graphs[0], CPU)  # read back: m0 the most recently used now
    assert reads[-1] == (str(graph_cache_dir() / copy(graphs[0])), False)
    runtime._load_session(graphs[3], CPU)  # a fourth copy: the least used (m1) goes
    left = {p.name for p in graph_cache_dir().iterdir()}
    assert left == {copy(graphs[0]), copy(graphs[2]), copy(graphs[3])}
