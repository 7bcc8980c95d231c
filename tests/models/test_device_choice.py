"""Which model file runs where: a GPU export on CUDA, int8 on the CPU; each model says which
device and precision it runs on (a fake provider list stands in for a GPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from models.errors import ModelLoadError
from models.runtime import choose_onnx, onnx_model, onnx_precision

CUDA = ["CUDAExecutionProvider", "CPUExecutionProvider"]
CPU = ["CPUExecutionProvider"]


def tiny_graph(path: Path) -> Path:
    """A MatMul with a 64x64 fp32 weight, written with onnx."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.random.default_rng(0).normal(size=(64, 64)).astype("f4"), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 64])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """A directory as the trainer leaves it: int8 model.onnx beside its fp32 source."""
    from onnxruntime.quantization import quantize_dynamic

    fp32 = tiny_graph(tmp_path / "model.fp32.onnx")
    quantize_dynamic(str(fp32), str(tmp_path / "model.onnx"))
    return tmp_path


def providers(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> None:
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: list(names))


def test_precision_is_read_from_the_graph(model_dir: Path) -> None:
    assert onnx_precision(model_dir / "model.onnx") == "int8"
    assert onnx_precision(model_dir / "model.fp32.onnx") == "fp32"
    from models.arc_model import read_config
    from models.arc_runtime import BUNDLED_DIR, model_files

    graph, _ = model_files(BUNDLED_DIR, read_config(BUNDLED_DIR))  # the NLI model's graph
    assert onnx_precision(graph) == "int8"  # the bundled model


def test_cuda_picks_the_gpu_export(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    providers(monkeypatch, CUDA)
    for device in ("auto", "cuda"):
        c = choose_onnx(model_dir, device)  # type: ignore[arg-type]
        assert c.path.name == "model.fp32.onnx" and c.runs_on == "cuda fp32"
        assert c.providers[0] == "CUDAExecutionProvider"
    (model_dir / "model.fp16.onnx").write_bytes((model_dir / "model.fp32.onnx").read_bytes())
    assert choose_onnx(model_dir).runs_on == "cuda fp16"  # fp16 first
    # --device cpu on a GPU machine: the int8 file on the CPU, the GPU exports untouched
    c = choose_onnx(model_dir, "cpu")
    assert c.path.name == "model.onnx" and c.runs_on == "cpu int8" and c.providers == tuple(CPU)


def test_int8_only_stays_on_the_cpu_unless_cuda_is_asked(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (model_dir / "model.fp32.onnx").unlink()
    providers(monkeypatch, CUDA)
    auto = choose_onnx(model_dir, "auto")
    assert auto.runs_on == "cpu int8" and auto.providers == tuple(CPU)
    asked = choose_onnx(model_dir, "cuda")
    assert asked.runs_on == "cuda int8" and asked.providers[0] == "CUDAExecutionProvider"


def test_no_cuda_runs_model_onnx_on_the_cpu(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    providers(monkeypatch, CPU)
    c = choose_onnx(model_dir, "auto")
    assert c.path.name == "model.onnx" and c.runs_on == "cpu int8"
    with pytest.raises(ModelLoadError, match="CUDA was requested"):
        choose_onnx(model_dir, "cuda")
    session, choice = onnx_model(model_dir)
    x = np.ones((2, 64), np.float32)
    assert session.run(None, {"x": x})[0].shape == (2, 64) and choice.runs_on == "cpu int8"


def test_bundled_checkers_say_where_they_run() -> None:
    from app.analysis import load_checkers, runs_on

    names = ["lexical", "nli", "dae", "align", "combined"]
    checkers = {c.name: c for c in load_checkers(names)}
    assert runs_on(checkers["lexical"]) == "cpu"
    assert {runs_on(checkers[n]) for n in names[1:]} == {"cpu int8"}


def test_a_graph_is_loaded_once_for_every_model_that_reads_it(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    providers(monkeypatch, CPU)
    first, _ = onnx_model(model_dir)
    # the same file reached by another path (as the bundled heads reach the NLI graph)
    (model_dir / "heads").mkdir()
    again, _ = onnx_model(model_dir / "heads", file="../model.onnx")
    assert again is first
    (model_dir / "model.fp32.onnx").unlink()  # so that CUDA runs the same file
    providers(monkeypatch, CUDA)
    on_cuda, choice = onnx_model(model_dir, "cuda")
    assert choice.path == model_dir / "model.onnx" and on_cuda is not first  # its own session
    providers(monkeypatch, CPU)
    # a model written again in place is loaded anew
    tiny_graph(model_dir / "model.onnx")
    rewritten, choice = onnx_model(model_dir)
    assert rewritten is not first and choice.runs_on == "cpu fp32"


def test_the_bundled_nli_dae_and_support_checkers_share_one_session() -> None:
    from app.analysis import load_checkers
    from models.checkers.nli import bundled_available

    if not bundled_available():
        pytest.skip("the bundled NLI model is not installed")
    checkers = {c.name: c for c in load_checkers(["nli", "dae", "support"])}
    nli = checkers["nli"]._onnx.session
    assert checkers["dae"]._runner.runs_session(nli)
    assert checkers["support"]._runner.runs_session(nli)
    assert checkers["nli"]._heads is checkers["dae"]._runner  # one pass can serve all three


def test_a_session_nothing_holds_is_let_go(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc
    import weakref

    providers(monkeypatch, CPU)
    session, _ = onnx_model(model_dir)
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None  # the cache does not keep a model in memory on its own
