"""A weight-space average of two NLI models of one lineage (a "model soup", WiSE-FT).

    python -m models.training.soup EARLIER LATER --weight 0.5 --out OUT [--heads NLI ARC]

``EARLIER`` and ``LATER`` are Hugging Face directories of the same architecture, the later
trained on from the earlier (rebuild a shipped model with :mod:`models.training.unexport`). A
model trained on further for one goal (here: the arc and support heads, in-domain summary
claims) drifts on the others; every weight taken as ``(1 - w) * earlier + w * later`` keeps
some of what each learned; such averages of fine-tuned models of one lineage can read held-out
data better than either end (measured here: better on the NLI sets, worse on the summaries, whose
heads were trained with the later encoder; docs/history.md).

Writes ``OUT/hf`` (the averaged model, ``LATER``'s tokenizer and config) and
``OUT/training.json`` (``LATER``'s training record with ``soup``: both ends and the weight), so
``python -m models.training.nli_model --export-only --out OUT`` exports and evaluates it.
``--heads NLI ARC`` also writes ``OUT/heads`` (``model.pt`` and ``config.json``): the arc and
support heads of a shared graph (``NLI/model.onnx``, the heads' config in ``ARC``), for
:mod:`models.training.shared_encoder` to attach to the export.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.training.unexport import ORIGIN_FILE

WEIGHTS_FILE = "model.safetensors"


def average(earlier: dict[str, np.ndarray], later: dict[str, np.ndarray], weight: float) -> dict:
    """``(1 - weight) * earlier + weight * later`` for every floating tensor (the others, such
    as position ids, are the later model's). The two must hold the same tensors."""
    if earlier.keys() != later.keys():
        missing = sorted(earlier.keys() ^ later.keys())[:5]
        raise ValueError(f"the two models hold different tensors (for example {missing})")
    out = {}
    for name, b in later.items():
        a = earlier[name]
        if a.shape != b.shape:
            raise ValueError(f"{name}: shape {a.shape} against {b.shape}")
        if b.dtype.kind == "f":
            mixed = (1.0 - weight) * a.astype(np.float32) + weight * b.astype(np.float32)
            out[name] = mixed.astype(b.dtype)
        else:
            out[name] = b
    return out


def _origin(model_dir: Path) -> Any:
    path = model_dir / ORIGIN_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else str(model_dir)


def write_soup(earlier: Path, later: Path, weight: float, out: Path) -> Path:
    """Write the average to ``out/hf`` and its record to ``out/training.json``; returns out/hf."""
    from safetensors.numpy import load_file, save_file

    for d in (earlier, later):
        if not (d / WEIGHTS_FILE).is_file():
            raise FileNotFoundError(f"{d}: no {WEIGHTS_FILE} (a Hugging Face model directory)")
    mixed = average(load_file(earlier / WEIGHTS_FILE), load_file(later / WEIGHTS_FILE), weight)
    hf = out / "hf"
    if hf.exists():
        shutil.rmtree(hf)
    shutil.copytree(later, hf)
    save_file(mixed, hf / WEIGHTS_FILE)
    later_origin = _origin(later)
    record = dict(later_origin.get("training", {})) if isinstance(later_origin, dict) else {}
    record["soup"] = {
        "earlier": _version(_origin(earlier)),
        "later": _version(later_origin),
        "weight_of_later": weight,
    }
    (out / "training.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return hf


def _version(origin: Any) -> Any:
    return origin.get("version", origin) if isinstance(origin, dict) else origin


def write_heads(nli_dir: Path, arc_dir: Path, out: Path) -> Path:
    """The arc and support heads of a shared graph as an ``nli_heads`` folder (``model.pt``,
    ``config.json``) for :mod:`models.training.shared_encoder`."""
    import torch

    from models.training.shared_encoder import read_heads

    heads = read_heads(nli_dir / "model.onnx")
    out.mkdir(parents=True, exist_ok=True)
    torch.save({k: torch.from_numpy(v) for k, v in heads.items()}, out / "model.pt")
    shutil.copyfile(arc_dir / "config.json", out / "config.json")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.training.soup", description=__doc__)
    ap.add_argument("earlier", type=Path, help="Hugging Face directory of the earlier model")
    ap.add_argument("later", type=Path, help="Hugging Face directory of the later model")
    ap.add_argument("--weight", type=float, default=0.5, help="share of the later model")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--heads", type=Path, nargs=2, metavar=("NLI", "ARC"), help="write OUT/heads from a graph"
    )
    args = ap.parse_args(argv)
    if not 0.0 <= args.weight <= 1.0:
        ap.error("--weight must be between 0 and 1")
    try:
        hf = write_soup(args.earlier, args.later, args.weight, args.out)
        print(f"wrote {hf} ({args.weight:g} of {args.later}, the rest {args.earlier})")
        if args.heads:
            print(f"wrote {write_heads(*args.heads, args.out / 'heads')}")
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
