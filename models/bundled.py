"""Registers the bundled checkers ("dae", "support", "align", "combined") as the app's defaults.

Imported by :mod:`models.registry`. Both are available only when their files are present in
``resources/models``; the lexical baseline stays selectable. With ``model_dir`` they load a
user's directory instead: for "dae" one saved by our trainer (torch ``model.pt`` or
``model.onnx``), for "support" the same or any Hugging Face NLI sequence classifier.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from models.arc_runtime import BUNDLED_DIR, Runtime, bundled_available, model_files, read_config
from models.checkers.base import Checker
from models.errors import FactDeskError
from models.registry import CHECKERS, CheckerEntry, register
from models.resources import resources_dir
from models.runtime import DevicePref

#: The fast path's arc/support model: all-MiniLM-L6-v2 fine-tuned with both heads (the model the
#: defaults used before their heads moved onto the NLI model's encoder).
FAST_ARC_DIR = resources_dir() / "models" / "arc_support_fast"


def _runtime_for(model_dir: Path | None) -> Runtime:
    # A trainer directory with only torch weights runs through torch (its config may name a
    # graph elsewhere, as the bundled heads on the NLI model's encoder do).
    if model_dir is None:
        return "onnx"
    config = model_dir / "config.json"
    named = json.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
    graph, _ = model_files(model_dir, named)
    return "onnx" if graph.is_file() else "torch"


def _arc_graphs(model_dir: Path | None, bundled: Path = BUNDLED_DIR) -> list[Path]:
    """The graph the arc/support model reads (the bundled heads: the NLI model's graph)."""
    path = model_dir or bundled
    try:
        return [model_files(path, read_config(path))[0]]
    except FactDeskError:
        return []


def _dae(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.dae import DAEChecker

    return DAEChecker(model_dir, device=device, runtime=_runtime_for(model_dir))


def _support(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.support import load_support

    return load_support(model_dir, device, _runtime_for(model_dir))


register(
    CheckerEntry(
        "dae",
        "arc entailment (DAE)",
        "arc",
        _dae,
        available=bundled_available,
        default=True,
        graphs=_arc_graphs,
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
        graphs=_arc_graphs,
    )
)


def _fast(short: str, display: str) -> Callable[[DevicePref, Path | None], Checker]:
    """A loader for the fast path's own ``dae``/``support``: the MiniLM model's heads."""

    def load(device: DevicePref, model_dir: Path | None) -> Checker:
        checker = (_dae if short == "dae" else _support)(device, model_dir or FAST_ARC_DIR)
        if model_dir is None:
            checker.name, checker.display_name = f"{short}-fast", display  # type: ignore[misc]
        return checker

    return load


def _fast_arc_available() -> bool:
    return bundled_available(FAST_ARC_DIR)


def _fast_arc_graphs(model_dir: Path | None) -> list[Path]:
    return _arc_graphs(model_dir, FAST_ARC_DIR)


# The fast path's arc/support scores (selectable, not defaults): what `combined-fast` reads.
register(
    CheckerEntry(
        "dae-fast",
        "arc entailment (DAE, fast)",
        "arc",
        _fast("dae", "arc entailment (DAE, fast)"),
        available=_fast_arc_available,
        graphs=_fast_arc_graphs,
    )
)
register(
    CheckerEntry(
        "support-fast",
        "sentence support (fast)",
        "sentence",
        _fast("support", "sentence support (fast)"),
        available=_fast_arc_available,
        graphs=_fast_arc_graphs,
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


#: The fast path's checkers in the combined score's slots: the MiniLM NLI model, and the MiniLM
#: arc/support model, since the bundled heads read the MPNet encoder, which the fast path avoids.
FAST_IN_PLACE = {"nli": "nli-fast", "dae": "dae-fast", "support": "support-fast"}


def _parts_graphs(fast: bool) -> Callable[[Path | None], list[Path]]:
    """The graphs of a combined score: its components' (as its loader below loads them)."""

    def graphs(model_dir: Path | None) -> list[Path]:
        from models.checkers.combined import FAST_FILE, load_combiner

        try:
            names = load_combiner(FAST_FILE) if fast else load_combiner()
        except FactDeskError:
            return []
        in_place = {} if not fast else FAST_IN_PLACE if model_dir is None else {"nli": "nli-fast"}
        return [
            path
            for name in names.components
            if (entry := CHECKERS.get(in_place.get(name, name))) is not None
            for path in entry.graphs(model_dir if name in ("dae", "support", "grounding") else None)
        ]

    return graphs


def _combined_fast(device: DevicePref, model_dir: Path | None) -> Checker:
    from models.checkers.combined import FAST_FILE, FastCombinedChecker, load_combiner
    from models.registry import load_checker

    combiner = load_combiner(FAST_FILE)
    # The fast path keeps its own MiniLM arc/support model: the bundled heads read the MPNet
    # encoder, which is what the fast path avoids (its weights were fitted on these scores).
    # a user's arc/support model replaces the fast path's, as elsewhere
    in_place = FAST_IN_PLACE if model_dir is None else {"nli": FAST_IN_PLACE["nli"]}
    parts = {
        name: load_checker(
            in_place.get(name, name),
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

    return (
        _combined_available()
        and FAST_FILE.is_file()
        and nli_available(FAST_DIR)
        and bundled_available(FAST_ARC_DIR)
    )


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


def _align_graphs(model_dir: Path | None) -> list[Path]:
    from models.aligner import BUNDLED_DIR as ALIGNER_DIR
    from models.aligner import MODEL_FILE

    return [ALIGNER_DIR / MODEL_FILE]


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
        graphs=_align_graphs,
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
        graphs=_parts_graphs(fast=True),
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
        graphs=_parts_graphs(fast=False),
    )
)
