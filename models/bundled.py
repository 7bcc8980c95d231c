"""Registers the bundled checkers ("dae", "support", "align", "combined") as the app's defaults.

Imported by :mod:`models.registry`. Both are available only when their files are present in
``resources/models``; the lexical baseline stays selectable. With ``model_dir`` they load a
user's directory instead: for "dae" one saved by our trainer (torch ``model.pt`` or
``model.onnx``), for "support" the same or any Hugging Face NLI sequence classifier.
"""

from __future__ import annotations

from pathlib import Path

from models.arc_runtime import Runtime, bundled_available
from models.checkers.base import Checker
from models.registry import CheckerEntry, register
from models.runtime import DevicePref


def _runtime_for(model_dir: Path | None) -> Runtime:
    # A trainer directory with only torch weights runs through torch.
    if model_dir is not None and not (model_dir / "model.onnx").is_file():
        return "torch"
    return "onnx"


def _dae(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.dae import DAEChecker

    return DAEChecker(model_dir, device=device, runtime=_runtime_for(model_dir))


def _support(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.support import load_support

    return load_support(model_dir, device, _runtime_for(model_dir))


register(
    CheckerEntry(
        "dae", "arc entailment (DAE)", "arc", _dae, available=bundled_available, default=True
    )
)
register(
    CheckerEntry(
        "support",
        "sentence support",
        "sentence",
        _support,
        available=bundled_available,
        default=True,
    )
)


def _grounding(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.grounding import GroundingChecker

    return GroundingChecker(model_dir, device=device, runtime=_runtime_for(model_dir))


register(
    CheckerEntry(
        "grounding",
        "grounding (source ablation)",
        "sentence",
        _grounding,
        available=bundled_available,
    )
)


def _align(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.align import AlignChecker

    return AlignChecker(model_dir, device=device)


def _combined(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.combined import CombinedChecker, load_combiner
    from models.registry import load_checker

    combiner = load_combiner()
    parts = {
        name: load_checker(
            name,
            device=device,
            model_dir=model_dir if name in ("dae", "support", "grounding") else None,
        )
        for name in combiner.components
    }
    # With the NLI checker among the features it judges yes/no claims itself (a "No" by the
    # contradiction of what it denies); else it is blended into yes/no sentences only.
    answers = None if "nli" in combiner.components else _answers(device)
    return CombinedChecker(combiner, parts, answers)


def _combined_fast(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.combined import FAST_FILE, FastCombinedChecker, load_combiner
    from models.registry import load_checker

    combiner = load_combiner(FAST_FILE)
    parts = {
        name: load_checker(
            "nli-fast" if name == "nli" else name,
            device=device,
            model_dir=model_dir if name in ("dae", "support", "grounding") else None,
        )
        for name in combiner.components
    }
    return FastCombinedChecker(combiner, parts, None if "nli" in parts else _answers(device))


def _combined_fast_available() -> bool:
    from models.checkers.combined import FAST_FILE
    from models.checkers.nli import FAST_DIR
    from models.checkers.nli import bundled_available as nli_available

    return _combined_available() and FAST_FILE.is_file() and nli_available(FAST_DIR)


def _answers(device: DevicePref) -> Checker | None:
    """The bundled three-way NLI checker that judges yes/no answers, when it is installed."""
    from models.arc_runtime import default_retriever
    from models.checkers.nli import NLISentenceChecker
    from models.checkers.nli import bundled_available as nli_available

    if not nli_available():
        return None
    return NLISentenceChecker(device=device, retriever=default_retriever(device))


def _combined_available() -> bool:
    from models.aligner import bundled_available as aligner_available
    from models.checkers.combined import bundled_available as combiner_available

    return bundled_available() and aligner_available() and combiner_available()


def _align_available() -> bool:
    from models.aligner import bundled_available as aligner_available

    return aligner_available()


register(
    CheckerEntry(
        "align",
        "alignment (word match)",
        "arc",
        _align,
        available=_align_available,
        default=True,
    )
)
# The fast path's shown score: selectable, never a default (it misses more).
register(
    CheckerEntry(
        "combined-fast",
        "combined score (fast NLI)",
        "arc",
        _combined_fast,
        available=_combined_fast_available,
    )
)
# Registered last: the window shows the latest arc-level checker first, and this is the best one.
register(
    CheckerEntry(
        "combined",
        "combined score",
        "arc",
        _combined,
        available=_combined_available,
        default=True,
    )
)
