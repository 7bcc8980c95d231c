"""Blind mode and AIS mode hide the model's scores in the pair list too."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.gui.main import MainWindow
from app.item_models import COL_ARCS, COL_LOWEST, OutputIdRole


def score_cells(w: MainWindow) -> list[str]:
    return [
        str(w.proxy.index(r, c).data())
        for r in range(w.proxy.rowCount())
        for c in (COL_LOWEST, COL_ARCS)
    ]


def lowest_order(w: MainWindow) -> list[int]:
    w.table.sortByColumn(COL_LOWEST, Qt.SortOrder.AscendingOrder)
    return [w.proxy.index(r, 0).data(OutputIdRole) for r in range(w.proxy.rowCount())]


def test_blind_mode_hides_lowest_and_arcs(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    shown = score_cells(w)
    assert any(c[0].isdigit() for c in shown)
    by_score = lowest_order(w)
    w.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    qtbot.keyClick(w.output_view, Qt.Key.Key_B)
    assert w.judging.blind
    assert not any(ch.isdigit() for c in score_cells(w) for ch in c)
    tip = w.proxy.index(0, COL_LOWEST).data(Qt.ItemDataRole.ToolTipRole)
    assert "hidden" in tip and not any(ch.isdigit() for ch in tip)
    # sorting by the hidden column reveals no order either
    assert lowest_order(w) == sorted(by_score)
    # nor does the score filter
    assert not w.score_max.isEnabled()
    qtbot.keyClick(w.output_view, Qt.Key.Key_B)
    w.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert score_cells(w) == shown
    assert w.score_max.isEnabled()


def test_ais_mode_hides_lowest_and_arcs(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    qtbot.keyClick(w.output_view, Qt.Key.Key_I)
    assert w.judging.ais_mode and w.judging.ais_stage == 1
    assert not any(ch.isdigit() for c in score_cells(w) for ch in c)
    qtbot.keyClick(w.output_view, Qt.Key.Key_I)
    assert any(c[0].isdigit() for c in score_cells(w))
