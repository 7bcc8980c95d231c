"""What the bundled models are, read from their files at run time (Help ▸ About).

Each model folder's ``config.json`` (and ``combiner.json``) names its kind and version; the model
card (``MODEL_CARD.md``) holds the measured quality as the evaluation printed it. Nothing here is
written by hand, so the About box stays true when the models are retrained and the card
rewritten. No model is loaded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from models.resources import resources_dir

#: What each kind of bundled file does, in the words the window uses.
ROLES = {
    "factdesk-arc-support": "arc entailment and sentence support",
    "factdesk-embedder": "sentence embedder that picks the evidence windows",
    "factdesk-aligner": "word alignment",
    "factdesk-nli": "three-way NLI: claims against the source",
    "factdesk-combiner": "combined score",
}
#: The checkers each bundled folder or file serves, as ``--checker`` and the window name them.
CHECKERS = {
    "nli": "nli",
    "nli_fast": "nli-fast, the fast path",
    "arc_support": "dae and support, on the nli model's encoder",
    "arc_support_fast": "dae-fast and support-fast, the fast path",
    "aligner": "align",
    "combiner.json": "combined, the score shown by default",
    "combiner_fast.json": "combined-fast, the fast path",
}

#: Columns of the card's quality table that make its headline, matched by their start.
HEADLINE = ("ranking", "FRANK BA", "SummEval BA", "XSumFaith token F1", "arc acc")


@dataclass(frozen=True)
class BundledModel:
    """One bundled model file or folder."""

    name: str  # folder or file name under resources/models
    role: str
    version: str
    base: str | None = None


@dataclass(frozen=True)
class CardFigures:
    """The headline columns of the model card's quality table, as printed there."""

    measured: str | None  # the date the card gives for the measurement
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (checker, one value per column)


def models_dir() -> Path:
    """The bundled models' folder (``resources/models``)."""
    return resources_dir() / "models"


def bundled_models(folder: Path | None = None) -> list[BundledModel]:
    """Every bundled model with a readable config, folders first, in name order.

    Args:
        folder: the models folder; the bundled one when None.
    """
    from models.checkers.combined import BUNDLED_FILE, FAST_FILE, Combiner

    folder = models_dir() if folder is None else folder
    found: list[BundledModel] = []
    for config in sorted(folder.glob("*/config.json")):
        spec = read_json(config)
        if spec is None:
            continue
        kind = str(spec.get("kind", ""))
        found.append(
            BundledModel(
                config.parent.name,
                _role(config.parent.name, ROLES.get(kind, kind or "unknown kind")),
                str(spec.get("version", "unversioned")),
                str(spec["base"]) if spec.get("base") else None,
            )
        )
    for name in (BUNDLED_FILE.name, FAST_FILE.name):
        spec = read_json(folder / name)
        if spec is None:
            continue
        try:
            version = Combiner(spec).version
        except Exception:  # noqa: BLE001 - an unreadable combiner is listed, not fatal here
            version = "unreadable"
        found.append(BundledModel(name, _role(name, ROLES["factdesk-combiner"]), version))
    return found


def _role(name: str, does: str) -> str:
    """What a bundled file does and, where known, the checkers it serves."""
    return f"{does} ({CHECKERS[name]})" if name in CHECKERS else does


def read_json(path: Path) -> dict | None:
    """A JSON object from ``path``; None when it is missing, unreadable or not an object."""
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return spec if isinstance(spec, dict) else None


def card_text(folder: Path | None = None) -> str | None:
    """The model card's text, or None when there is none."""
    path = (models_dir() if folder is None else folder) / "MODEL_CARD.md"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def headline_figures(card: str) -> CardFigures | None:
    """The headline columns of the first quality table in the card's Quality section.

    The table is the evaluation's fixed-width print (a ``checker`` header line, a line of
    dashes, one line per checker, columns two or more spaces apart). Returns None when the card
    has no such table.
    """
    lines = card.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("## Quality")), None)
    if start is None:
        return None
    measured = None
    for i in range(start, len(lines)):
        date = re.search(r"Measured (\d{4}-\d{2}-\d{2})", lines[i])
        if date and measured is None:
            measured = date.group(1)
        if not lines[i].startswith("checker "):
            continue
        header = _cells(lines[i])
        if i + 1 >= len(lines) or not set(lines[i + 1].replace(" ", "")) <= {"-"}:
            continue
        body = []
        for line in lines[i + 2 :]:
            cells = _cells(line)
            if len(cells) != len(header):
                break
            body.append(cells)
        wanted = [k for key in HEADLINE for k, name in enumerate(header) if name.startswith(key)]
        if not body or not wanted:
            return None
        return CardFigures(
            measured,
            tuple(_short(header[k]) for k in wanted),
            tuple((row[0], tuple(row[k] for k in wanted)) for row in body),
        )
    return None


def _cells(line: str) -> list[str]:
    return [c for c in re.split(r"\s{2,}", line.strip()) if c]


def _short(column: str) -> str:
    """A column's name without its count ("FRANK BA-cv (n=415, mean ± sd)" -> "FRANK BA-cv")."""
    return re.sub(r"\s*\(.*\)$", "", column)
