"""Loading the checkers builds their ONNX sessions in background threads: each file once, the
session a loader gets is the one built ahead, a failure reaches the loader that asked, and the
list of files built ahead is the list the checkers' loaders read."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

import models.runtime as runtime
from models.errors import ModelLoadError
from models.runtime import choose_onnx, onnx_model, sessions_ahead
from tests.models.test_device_choice import model_dir, providers  # noqa: F401 - a fixture

CPU = ["CPUExecutionProvider"]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every session built: (file, the thread that built it), on the CPU provider alone."""
    providers(monkeypatch, CPU)
    made: list[tuple[str, str]] = []
    load = runtime._load_session

    def recorded(path: str | Path, names: list[str]) -> object:
        made.append((str(Path(path).resolve()), threading.current_thread().name))
        return load(path, names)

    monkeypatch.setattr(runtime, "_load_session", recorded)
    return made


def test_the_loader_gets_the_session_built_ahead(
    model_dir: Path,  # noqa: F811
    builds: list[tuple[str, str]],
) -> None:
    with sessions_ahead([choose_onnx(model_dir)]):
        first, choice = onnx_model(model_dir)
        again, _ = onnx_model(model_dir)
    assert again is first and choice.runs_on == "cpu int8"
    assert len(builds) == 1  # built once, ahead, not again by the loader
    assert builds[0][0] == str((model_dir / "model.onnx").resolve())
    assert builds[0][1] != threading.main_thread().name
    assert first.run(None, {"x": np.ones((2, 64), "f4")})[0].shape == (2, 64)


def test_a_session_nothing_took_is_let_go(
    model_dir: Path,  # noqa: F811
    builds: list[tuple[str, str]],
) -> None:
    with sessions_ahead([choose_onnx(model_dir)]):
        pass
    assert len(builds) == 1
    key = (*runtime._file_key(model_dir / "model.onnx"), tuple(CPU))
    gc.collect()
    assert key not in runtime._SESSIONS and key not in runtime._LOADING
    session, _ = onnx_model(model_dir)  # asked later: built again, in this thread
    assert builds[-1][1] == threading.main_thread().name
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None


def test_a_file_that_cannot_load_fails_for_the_loader_that_asks(
    tmp_path: Path, builds: list[tuple[str, str]]
) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"DequantizeLinear, then nothing an ONNX graph holds")
    with sessions_ahead([choose_onnx(tmp_path)]):  # leaving the block raises nothing
        with pytest.raises(ModelLoadError, match=r"model\.onnx: cannot load"):
            onnx_model(tmp_path)  # the failed build's error, or its own if that came first
    first = len(builds)
    assert first in (1, 2) and builds[0][1] != threading.main_thread().name
    with sessions_ahead([choose_onnx(tmp_path)]):  # nobody asks: nothing is raised
        pass
    assert len(builds) == first + 1 and not runtime._LOADING


def test_an_int8_operator_is_found_across_the_pieces_a_file_is_read_in(tmp_path: Path) -> None:
    path = tmp_path / "graph.bin"
    path.write_bytes(b"x" * 10 + b"MatMulInteger" + b"y" * 40)
    for piece in (4, 16, 17, 1 << 20):  # the name split between two pieces, or whole in one
        assert runtime._holds_any(path, (b"MatMulInteger", b"QLinearMatMul"), piece)
    assert not runtime._holds_any(path, (b"QLinearMatMul", b"ConvInteger"), 16)


def _bundled() -> None:
    from models.checkers.nli import bundled_available

    if not bundled_available():
        pytest.skip("the bundled NLI model is not installed")


@pytest.mark.parametrize("fast", [False, True])
def test_the_files_built_ahead_are_the_files_the_checkers_read(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every graph a default (or fast-path) checker's loader asks for was listed ahead, and
    the list holds the models of that path: a loader that comes to read another file fails
    this. (A graph another test loaded may be held by a module's cache and not asked again.)"""
    _bundled()
    from app.analysis import load_checkers
    from models.registry import default_checkers, graphs_ahead
    from tests.benchmarks.bench_models import fast_checkers

    names = fast_checkers() if fast else default_checkers()
    asked: set[str] = set()
    session = runtime._session

    def recorded(path: str | Path, names: list[str]) -> object:
        asked.add(str(Path(path).resolve()))
        return session(path, names)

    monkeypatch.setattr(runtime, "_session", recorded)
    checkers = load_checkers(names)
    listed = {str(c.path.resolve()): c.path.resolve().parent.name for c in graphs_ahead(names)}
    assert checkers and asked and asked <= set(listed)
    models = {"embedder", "aligner", *(("nli_fast", "arc_support_fast") if fast else ("nli",))}
    assert sorted(listed.values()) == sorted(models)
