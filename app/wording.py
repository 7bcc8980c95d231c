"""Counts in the words an editor reads: "1 pair", "2 pairs", "1,204 sentences"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun plural unless ``n`` is 1 (``plural``, else ``noun`` + "s"),
    thousands grouped."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
