"""One place that picks the device, the model file and the runtime.

onnxruntime serves inference by default (CUDA provider when present, else CPU); torch is used on
request and is imported only then, so the window starts without it.

The bundled models are int8 (dynamic quantisation: ``DynamicQuantizeLinear`` and
``MatMulInteger``), which onnxruntime's CUDA provider mostly leaves to the CPU. A model
directory may therefore hold a GPU export of the same weights beside ``model.onnx``:
``model.fp16.onnx`` or ``model.fp32.onnx``, picked when the model runs on CUDA. Without one,
``auto`` keeps an int8 model on the CPU. The fp32 weights cannot be derived from the int8 file
(quantisation keeps 8 bits of each weight and one scale per tensor), so a GPU export comes from
training (``models.training.export`` writes ``model.fp32.onnx`` before it quantises) or from
the user's own model directory. Every loaded model says where and how it runs (``runs_on``,
e.g. "cpu int8", "cuda fp16"), and each analysis run records it.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from models.errors import ModelLoadError

DevicePref = Literal["auto", "cpu", "cuda"]
#: Part of the version of the checkers on our ONNX models (dae, support, grounding, align): since
#: this revision each input runs on its own, unpadded, so its scores no longer move with what
#: shares its batch (int8 dynamic quantisation scales activations over the whole input tensor);
#: a project analysed before re-scores once.
ALONE_REVISION = "alone1"
MODEL_FILE = "model.onnx"
# GPU exports of the same weights, in order of preference.
GPU_FILES = (("model.fp16.onnx", "fp16"), ("model.fp32.onnx", "fp32"))
# Operators that only a quantised graph holds (their names are plain bytes in the file); a graph
# with int8 weights read on float activations (models.training.export.weight_only) holds only
# DequantizeLinear.
_INT8_OPS = (
    b"MatMulInteger",
    b"DynamicQuantizeLinear",
    b"QLinearMatMul",
    b"ConvInteger",
    b"DequantizeLinear",
)


@dataclass(frozen=True)
class OnnxChoice:
    """Which file of a model directory runs, on which providers, at which precision."""

    path: Path
    providers: tuple[str, ...]
    precision: str  # int8, fp16 or fp32

    @property
    def device(self) -> str:
        return "cuda" if self.providers[0] == "CUDAExecutionProvider" else "cpu"

    @property
    def runs_on(self) -> str:
        """Device and precision, as recorded with each analysis run: "cuda fp16"."""
        return f"{self.device} {self.precision}"


def onnx_precision(path: str | Path) -> str:
    """int8 for a quantised graph, fp16 for a ``*.fp16.onnx``, else fp32 (read, not guessed).

    The file is read in pieces until an int8 operator's name turns up: a graph's nodes are
    written before its weights, so a quantised graph is known from its first piece (the bundled
    NLI graph took 0.3 s to read and search whole, a third of loading the checkers)."""
    path = Path(path)
    if path.name.endswith(".fp16.onnx"):
        return "fp16"
    try:
        key = _file_key(path)
        if key in _PRECISIONS:
            return _PRECISIONS[key]
        found = _holds_any(path, _INT8_OPS)
    except OSError as exc:
        raise ModelLoadError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    _PRECISIONS[key] = "int8" if found else "fp32"
    return _PRECISIONS[key]


def _holds_any(path: Path, needles: Sequence[bytes], piece: int = 1 << 20) -> bool:
    """Whether a file holds any of these byte strings, read a piece at a time (each piece
    searched with the end of the one before, so a name split between two is found)."""
    overlap = max(len(n) for n in needles) - 1
    tail = b""
    with path.open("rb") as fh:
        while chunk := fh.read(piece):
            data = tail + chunk
            if any(n in data for n in needles):
                return True
            tail = data[-overlap:]
    return False


def choose_onnx(
    model_dir: str | Path, device: DevicePref = "auto", file: str = MODEL_FILE
) -> OnnxChoice:
    """The model file and providers for a device preference.

    On CUDA a GPU export (``model.fp16.onnx``, then ``model.fp32.onnx``) is preferred. With
    only an int8 file, ``auto`` runs it on the CPU (under the CUDA provider most of its nodes
    would fall back to the CPU, with copies between the two), ``cuda`` runs it as asked.

    Raises:
        ModelLoadError: when CUDA is asked for and onnxruntime has no CUDA provider.
    """
    model_dir = Path(model_dir)
    providers = tuple(onnx_providers(device))
    if providers[0] == "CUDAExecutionProvider":
        if file == MODEL_FILE:
            for name, precision in GPU_FILES:
                if (model_dir / name).is_file():
                    return OnnxChoice(model_dir / name, providers, precision)
        precision = onnx_precision(model_dir / file)
        if precision == "int8" and device == "auto":
            return OnnxChoice(model_dir / file, ("CPUExecutionProvider",), precision)
        return OnnxChoice(model_dir / file, providers, precision)
    return OnnxChoice(model_dir / file, providers, onnx_precision(model_dir / file))


def onnx_model(
    model_dir: str | Path, device: DevicePref = "auto", file: str = MODEL_FILE
) -> tuple[Any, OnnxChoice]:
    """A session for the file :func:`choose_onnx` picks, and the choice (for ``runs_on``)."""
    choice = choose_onnx(model_dir, device, file)
    return _session(choice.path, list(choice.providers)), choice


def onnx_providers(device: DevicePref = "auto") -> list[str]:
    """onnxruntime execution providers for a device preference.

    Raises:
        ModelLoadError: when CUDA is asked for and onnxruntime has no CUDA provider.
    """
    import onnxruntime as ort

    available = ort.get_available_providers()
    has_cuda = "CUDAExecutionProvider" in available
    if device == "cuda" and not has_cuda:
        raise ModelLoadError("CUDA was requested but onnxruntime has no CUDA provider here.")
    if device in ("auto", "cuda") and has_cuda:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


#: Loaded sessions by file and providers, for as long as something holds them. One graph can
#: serve several checkers (the bundled NLI graph holds the arc and support heads too: nli, dae
#: and support read it), and then it is loaded once. A file is known by its resolved path, size
#: and modification time, so a model written again in place loads anew. onnxruntime runs one
#: session from several threads.
_SESSIONS: weakref.WeakValueDictionary[tuple[str, int, int, tuple[str, ...]], Any] = (
    weakref.WeakValueDictionary()
)
#: Sessions being created now, by the same keys: whoever asks for one waits for it.
_LOADING: dict[tuple[str, int, int, tuple[str, ...]], Future[Any]] = {}
_SESSIONS_LOCK = threading.Lock()
_PRECISIONS: dict[tuple[str, int, int], str] = {}


def _file_key(path: Path) -> tuple[str, int, int]:
    """A file's resolved path, size and modification time (raises OSError when it is missing)."""
    resolved = path.resolve()
    stat = resolved.stat()
    return str(resolved), stat.st_size, stat.st_mtime_ns


def _session(path: str | Path, providers: list[str]) -> Any:
    """The session of a file on these providers: the one already loaded, the one being created
    (waited for), else a new one. Two callers asking for one file get one session."""
    try:
        key = (*_file_key(Path(path)), tuple(providers))
    except OSError:
        return _load_session(path, providers)  # says what is wrong with the file
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is not None:
            return session
        loading = _LOADING.get(key)
        if loading is None:
            loading = _LOADING[key] = Future()
            mine = True
        else:
            mine = False
    if mine:
        _create(key, loading, path, providers)
    return loading.result()  # raises the ModelLoadError of a failed load


def _create(
    key: tuple[str, int, int, tuple[str, ...]],
    loading: Future[Any],
    path: str | Path,
    providers: list[str],
) -> None:
    """Create the session that ``loading`` stands for and keep it under ``key``."""
    try:
        session = _load_session(path, providers)
    except BaseException as exc:
        with _SESSIONS_LOCK:
            _LOADING.pop(key, None)
        loading.set_exception(exc)
        return
    with _SESSIONS_LOCK:
        _SESSIONS[key] = session
        _LOADING.pop(key, None)
    loading.set_result(session)
    if threading.current_thread() is not threading.main_thread():
        _give_back_freed_memory()


def _give_back_freed_memory() -> None:
    """Return the C heap's free pages to the system (glibc ``malloc_trim``; elsewhere nothing).

    A session built in a worker thread parses its graph in that thread's own malloc arena, and
    what it frees there (the parsed file, once the weights are packed) stays counted against the
    process: building the bundled graphs in the background raised the peak memory of
    ``tests/benchmarks/bench_models.py`` from 658 to 815-822 MB; trimmed, 659 MB."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc; Windows has no CDLL(None)
        return
    trim(0)


@contextlib.contextmanager
def sessions_ahead(choices: Sequence[OnnxChoice]) -> Iterator[None]:
    """Create these files' sessions in background threads while the block runs (its own
    requests for them wait for these): onnxruntime lets go of Python while it builds a session,
    so the NLI graph's 0.7 s overlap the rest of loading the checkers (tokenizers, the smaller
    graphs, Python imports). A file that cannot be read is left to the loader that needs it,
    which says what is wrong; a session nothing took by the end of the block is dropped."""
    held: list[Future[Any]] = []
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="factdesk-load") as pool:
        for choice in choices:
            providers = list(choice.providers)
            try:
                key = (*_file_key(Path(choice.path)), tuple(providers))
            except OSError:
                continue
            with _SESSIONS_LOCK:
                if key in _SESSIONS or key in _LOADING:
                    continue
                loading = _LOADING[key] = Future()
            held.append(loading)
            pool.submit(_create, key, loading, choice.path, providers)
        yield
    for loading in held:
        loading.exception()  # finished: a failure belongs to the loader that asked, if any


def _load_session(path: str | Path, providers: list[str]) -> Any:
    """A new session of a file; a large graph on the CPU is read from its optimised copy in the
    user's cache when there is one, else optimised and the copy kept (:func:`kept_graph`)."""
    kept = kept_graph(Path(path), providers)
    if kept is not None and kept.is_file():
        try:
            session = _new_session(kept, providers, optimise=False)
        except Exception:  # noqa: BLE001 - a damaged or foreign copy: made again below
            kept.unlink(missing_ok=True)
        else:
            with contextlib.suppress(OSError):
                kept.touch()  # used now: the last to go (KEPT_COPIES)
            return session
    if kept is not None:
        try:
            return _optimise_and_keep(Path(path), providers, kept)
        except Exception:  # noqa: BLE001 - the cache cannot be written, or the file is bad
            pass  # either way the file is loaded as it is, which says what is wrong with it
    try:
        return _new_session(path, providers)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelLoadError(f"{path}: cannot load: {exc}") from exc


def _new_session(
    path: str | Path, providers: list[str], *, optimise: bool = True, save: Path | None = None
) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    # Idle worker threads sleep instead of spinning. Several sessions run in turn in one
    # process (embedder, arc model, aligner, NLI), and a session's spinning threads took the
    # cores from the next one: the default path's time per pair on 2 shared cores went from
    # 0.66-1.44 s to 0.43 s (tests/benchmarks/bench_models.py).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if exact_int8_products():
        opts.add_session_config_entry("session.x64quantprecision", "1")
    if not optimise:  # an optimised copy: its fusions are made already
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if save is not None:
        opts.optimized_model_filepath = str(save)
    return ort.InferenceSession(str(path), opts, providers=providers)


#: Graphs at least this large keep an optimised copy in the user's cache: the bundled NLI
#: graph (111 MB) took 0.7-0.9 s to build a session from, of which 0.5 s went on onnxruntime's
#: fusions (its int8 products into ``MatMulNBits``, attention, layer norms); from the optimised
#: copy 0.2-0.35 s, with the same numbers to the last bit. Smaller graphs take 0.1 s: not worth
#: the disk.
KEEP_OPTIMISED_BYTES = 64 << 20
#: How many optimised copies the cache keeps, the most recently used: a model moved or replaced
#: (evaluations of exported models, a new release) leaves its old copy behind otherwise.
KEPT_COPIES = 4


def graph_cache_dir() -> Path:
    """Where optimised copies of large graphs are kept: ``$FACTDESK_CACHE_DIR/graphs``, else the
    user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``; ``%LOCALAPPDATA%`` on Windows)
    under ``factdesk/graphs``. Deleting it costs the next start half a second, nothing else."""
    import os

    own = os.environ.get("FACTDESK_CACHE_DIR")
    if own:
        return Path(own) / "graphs"
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "factdesk" / "cache" / "graphs"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "factdesk" / "graphs"


def kept_graph(path: Path, providers: list[str]) -> Path | None:
    """The cache file of a graph's optimised copy (there or not), or None for a graph that keeps
    none: one under :data:`KEEP_OPTIMISED_BYTES`, or run on more than the CPU. The name holds
    the file (resolved path, size, modification time), onnxruntime's version and the CPU: a
    copy is only read back by what wrote it."""
    import hashlib
    import json

    import onnxruntime as ort

    if list(providers) != ["CPUExecutionProvider"]:
        return None
    try:
        resolved, size, mtime = _file_key(path)
    except OSError:
        return None
    if size < KEEP_OPTIMISED_BYTES:
        return None
    key = json.dumps(
        [resolved, size, mtime, ort.__version__, _cpu_signature(), exact_int8_products()]
    )
    place = hashlib.sha1(resolved.encode()).hexdigest()[:10]
    return graph_cache_dir() / f"{place}-{hashlib.sha1(key.encode()).hexdigest()[:16]}.onnx"


def _optimise_and_keep(path: Path, providers: list[str], kept: Path) -> Any:
    """A session of ``path``, its optimised graph written to ``kept`` on the way (under another
    name first, so that a copy is whole or absent) and older copies of the same file removed.
    Raises whatever stops it: the caller then loads the file as it is."""
    import os

    kept.parent.mkdir(parents=True, exist_ok=True)
    part = kept.with_name(f".{kept.stem}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        session = _new_session(path, providers, save=part)
        os.replace(part, kept)
    finally:
        part.unlink(missing_ok=True)
    copies = sorted(kept.parent.glob("*-*.onnx"), key=_used, reverse=True)
    for number, old in enumerate(copies):
        same_file = old.name.split("-")[0] == kept.name.split("-")[0]
        if old != kept and (same_file or number >= KEPT_COPIES):
            old.unlink(missing_ok=True)
    return session


def _used(path: Path) -> float:
    """When a kept copy was last written or read (0 for one another process removed)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


@functools.cache
def _cpu_signature() -> str:
    """What the CPU is and can do (Linux: its model and feature flags; elsewhere: what Python
    reports), for the names of optimised graphs."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            lines = {line for line in fh if line.startswith(("model name", "flags"))}
    except OSError:
        lines = set()
    return "".join(sorted(lines)) or f"{platform.machine()} {platform.processor()}"


@functools.cache
def exact_int8_products() -> bool:
    """Whether sessions should multiply int8 by int8 on onnxruntime's u8u8 kernel: on x86 CPUs
    not known to have VNNI or AMX (AVX2, AVX-512 before Cascade Lake, AMD before Zen 4). Its
    faster u8s8 kernel adds pairs of products in saturating 16-bit lanes there, which turns the
    int8-rows graphs' numbers (:mod:`models.training.int8_rows`) to noise; with VNNI or AMX it
    is exact and four to six times faster than u8u8. onnxruntime's
    ``session.x64quantprecision`` stores such weights as uint8 when it builds the session (the
    same numbers), and it would do so on VNNI machines too, so it is asked for only where VNNI
    is not seen: Linux reads the CPU's flags, macOS its ``sysctl`` features; elsewhere (Windows)
    the exact kernel is used. Other CPUs (ARM) are not affected by the setting."""
    import platform

    if platform.machine().lower() not in {"x86_64", "amd64", "i386", "i686", "x86"}:
        return False
    seen = set(_cpu_flags().lower().replace("_", "").split())
    return not seen & {"avx512vnni", "avxvnni", "amxint8"}


def _cpu_flags() -> str:
    """The CPU's feature flags as the system lists them (Linux ``/proc/cpuinfo``, macOS
    ``sysctl``); empty where they cannot be read."""
    import platform
    import subprocess

    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            return " ".join(line for line in fh if line.startswith("flags"))
    if platform.system() == "Darwin":
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            return subprocess.run(
                ["sysctl", "-n", "machdep.cpu.leaf7_features"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            ).stdout
    return ""


def torch_device(device: DevicePref = "auto") -> str:
    """The torch device string for a preference; imports torch.

    Raises:
        ModelLoadError: when CUDA is asked for and torch sees no GPU.
    """
    import torch

    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise ModelLoadError("CUDA was requested but torch sees no GPU here.")
    return "cuda" if device in ("auto", "cuda") and has_cuda else "cpu"
