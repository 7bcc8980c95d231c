"""Where bundled resources live (the repository's ``resources/`` or a frozen app's copy)."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parents[1] / "resources"


def demo_pairs_file() -> Path:
    return resources_dir() / "demo" / "demo_pairs.jsonl"
