"""The checker box names each checker as an editor knows it; its tooltip says which version, device
and precision scored the pairs."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_checker_box_tooltip_says_where_it_scored(window) -> None:  # type: ignore[no-untyped-def]
    box = window.checker_box
    i = box.findData("lexical")
    tip = box.itemData(i, Qt.ItemDataRole.ToolTipRole)
    n = window.session.project.count_pairs()
    version = window.session.project.current_versions()["lexical"]
    assert tip == f"version {version}; scored on cpu ({n} pairs)"
    assert box.itemText(i) == window.session.project.checker_names()["lexical"]
