"""Which checkers exist and how to load one by name.

``lexical`` (the DAE paper's lexical arc-match baseline) is always there and always selectable;
it is a default only when no bundled model is installed. ``questions`` (questions on the
output's names and figures, answered from the source's parse; no model files) is always a
default. ``nli`` judges each output sentence claim by claim against joined evidence with the
bundled three-way NLI model (a default when it is installed, and a feature of the combined
score), or with the user's own Hugging Face NLI directory (``model_dir``); ``nli-fast`` is the same
checker on the bundled MiniLM-L6 model (the fast path; selectable, not a default). The bundled trained checkers (``dae``, ``support``)
register themselves from :mod:`models.bundled` and are the defaults when their files are present.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from models.checkers.base import Checker
from models.errors import ModelLoadError, UnknownCheckerError
from models.runtime import MODEL_FILE, DevicePref, OnnxChoice, choose_onnx

Loader = Callable[[DevicePref, "Path | None"], Checker]
#: The ONNX files a loader reads, for a model directory or None (the bundled models): what
#: :func:`graphs_ahead` lists. A file missing from the list loads as before, only later.
Graphs = Callable[["Path | None"], Sequence[Path]]


def _no_graphs(model_dir: Path | None) -> Sequence[Path]:
    return ()


@dataclass(frozen=True)
class CheckerEntry:
    name: str
    display_name: str
    grain: str
    load: Loader
    needs_model_dir: bool = False
    available: Callable[[], bool] = lambda: True
    default: bool = False
    #: Runs without model files (a rule over the parse): as a default it goes with the models,
    #: or with the lexical baseline when no model is installed.
    model_free: bool = False
    graphs: Graphs = _no_graphs


def _lexical(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.lexical import LexicalArcChecker

    return LexicalArcChecker()


def _questions(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.questions import QuestionChecker

    return QuestionChecker()


def _nli(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.arc_runtime import default_retriever
    from models.checkers.nli import NLISentenceChecker, bundled_available

    if model_dir is None and not bundled_available():
        raise UnknownCheckerError("The 'nli' checker needs a model directory (--model-dir).")
    # A user's model reads the same evidence as the bundled one (the embedder's ranking).
    return NLISentenceChecker(model_dir, device=device, retriever=default_retriever(device))


def _nli_graphs(model_dir: Path | None) -> Sequence[Path]:
    from models.checkers.nli import BUNDLED_DIR, is_onnx_dir

    path = model_dir or BUNDLED_DIR
    return [*([path / MODEL_FILE] if is_onnx_dir(path) else []), *retriever_graphs()]


def _nli_fast_graphs(model_dir: Path | None) -> Sequence[Path]:
    from models.checkers.nli import FAST_DIR

    return [FAST_DIR / MODEL_FILE, *retriever_graphs()]


def retriever_graphs() -> Sequence[Path]:
    """The graph of the bundled embedder, which ranks evidence for the NLI checkers."""
    from models.embedder import BUNDLED_DIR

    return [BUNDLED_DIR / MODEL_FILE]


def _nli_bundled() -> bool:
    from models.checkers.nli import bundled_available

    return bundled_available()


def _nli_fast(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.arc_runtime import default_retriever
    from models.checkers.nli import FAST_DIR, NLISentenceChecker, bundled_available

    if not bundled_available(FAST_DIR):
        raise UnknownCheckerError(f"The 'nli-fast' checker's model is not installed ({FAST_DIR}).")
    return NLISentenceChecker(
        FAST_DIR,
        device=device,
        retriever=default_retriever(device),
        name="nli-fast",
        display_name=FAST_DISPLAY,
        read_alone=False,  # the MiniLM model reads the held-out summaries worse with it
    )


def _nli_fast_bundled() -> bool:
    from models.checkers.nli import FAST_DIR, bundled_available

    return bundled_available(FAST_DIR)


#: The fast path's name in lists and menus.
FAST_DISPLAY = "claims vs source (fast NLI)"


CHECKERS: dict[str, CheckerEntry] = {
    "lexical": CheckerEntry("lexical", "lexical baseline", "arc", _lexical),
    "questions": CheckerEntry(
        "questions", "question-based check", "sentence", _questions, default=True, model_free=True
    ),
    "nli": CheckerEntry(
        "nli",
        "claims vs source (NLI)",
        "sentence",
        _nli,
        available=_nli_bundled,
        default=True,
        graphs=_nli_graphs,
    ),
    "nli-fast": CheckerEntry(
        "nli-fast",
        FAST_DISPLAY,
        "sentence",
        _nli_fast,
        available=_nli_fast_bundled,
        graphs=_nli_fast_graphs,
    ),
}


def register(entry: CheckerEntry) -> None:
    """Add or replace a checker entry."""
    CHECKERS[entry.name] = entry


def default_checkers() -> list[str]:
    """Names of the checkers run when none is named: the bundled models whose files are present
    and the question-based check, else the lexical baseline and the question-based check."""
    _load_bundled()
    names = [e.name for e in CHECKERS.values() if e.default and e.available()]
    if all(CHECKERS[n].model_free for n in names):
        names = ["lexical", *names]
    return names


def load_checker(
    name: str, *, device: DevicePref = "auto", model_dir: str | Path | None = None
) -> Checker:
    """Load a checker by registry name.

    Raises:
        UnknownCheckerError: for a name no entry knows.
    """
    _load_bundled()
    entry = CHECKERS.get(name)
    if entry is None:
        known = ", ".join(sorted(CHECKERS))
        raise UnknownCheckerError(f"Unknown checker '{name}'; known checkers: {known}.")
    return entry.load(device, Path(model_dir) if model_dir is not None else None)


def graphs_ahead(
    names: Sequence[str], device: DevicePref = "auto", model_dir: str | Path | None = None
) -> list[OnnxChoice]:
    """The ONNX files (and providers) that loading these checkers reads, each once: what
    :func:`models.runtime.sessions_ahead` builds while the checkers load. Unknown names and
    files that cannot be read are left out (loading them says what is wrong)."""
    _load_bundled()
    folder = Path(model_dir) if model_dir is not None else None
    files = dict.fromkeys(
        path.resolve()
        for name in names
        if (entry := CHECKERS.get(name)) is not None
        for path in entry.graphs(folder)
    )
    choices = []
    for path in files:
        try:
            choices.append(choose_onnx(path.parent, device, path.name))
        except ModelLoadError:
            continue
    return choices


def _load_bundled() -> None:
    """Import the bundled-model module if it exists, which registers its checkers."""
    try:
        import models.bundled  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name != "models.bundled":
            raise
