"""Every kind of decision moves a pair out of "unjudged" in the pair list."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.gui.main import MainWindow
from app.item_models import COL_STATUS
from app.store import JudgmentKey


def status_of(w: MainWindow, oid: int) -> str:
    row = w.model.row_by_id(oid)
    assert row is not None
    return row.status


def test_arc_level_decision_puts_the_pair_in_progress(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    oid = w.session.current_output_id()
    assert oid is not None and status_of(w, oid) == "unjudged"
    w.judging.set_level("arc")
    unit = w.judging.current_unit()
    assert unit is not None and unit.key.target == "arc"
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)
    assert w.session.project.judgment(unit.key).label == "supported"
    assert status_of(w, oid) == "in progress"
    i = w.model.index(w.model.row_for(oid), COL_STATUS)
    assert "1 arcs judged" in w.model.data(i, Qt.ItemDataRole.ToolTipRole)
    w.status_filter.setCurrentText("in progress")
    assert w.proxy.rowCount() == 1
    # still so after a full reload (a new threshold or checker reloads every row)
    w.status_filter.setCurrentIndex(0)
    w.session.reload_rows()
    assert status_of(w, oid) == "in progress"


def test_not_interpretable_in_ais_stage_one_finishes_the_pair(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    first = w.session.current_output_id()
    assert first is not None
    qtbot.keyClick(w.output_view, Qt.Key.Key_I)  # AIS mode
    qtbot.keyClick(w.output_view, Qt.Key.Key_X)  # not interpretable: next pair
    assert (
        w.session.project.judgment(JudgmentKey(first, "pair", aspect="interpretable")).label == "no"
    )
    assert status_of(w, first) == "done"
    second = w.session.current_output_id()
    assert second is not None and second != first
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)  # interpretable: stage two, not yet rated
    assert status_of(w, second) == "in progress"
