"""Where bundled resources live: see :func:`models.resources.resources_dir`.

A checkout reads its top-level ``resources/``, an installed wheel the package data
``factdesk_resources`` (through :mod:`importlib.resources`), a frozen app its ``sys._MEIPASS`` copy.
"""

from __future__ import annotations

from pathlib import Path

from models.resources import resources_dir

__all__ = ["demo_pairs_file", "resources_dir"]


def demo_pairs_file() -> Path:
    return resources_dir() / "demo" / "demo_pairs.jsonl"
