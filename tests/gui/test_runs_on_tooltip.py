"""The checker box says which device and precision scored the shown checker's pairs."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_checker_box_tooltip_says_where_it_scored(window) -> None:  # type: ignore[no-untyped-def]
    box = window.checker_box
    i = box.findData("lexical")
    tip = box.itemData(i, Qt.ItemDataRole.ToolTipRole)
    n = window.session.project.count_pairs()
    assert tip == f"scored on cpu ({n} pairs)"
