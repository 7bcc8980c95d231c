"""Judging keys wherever focus is in the window, except in text fields; refusals say why."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from app.gui.main import MainWindow


def focus(qtbot, widget: QWidget) -> None:  # type: ignore[no-untyped-def]
    widget.window().activateWindow()
    widget.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=2000)


def type_key(qtbot, k: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    """A key press as the user makes it: to whatever has the keyboard focus."""
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClick(target, k)


def test_keys_judge_after_choosing_a_checker_in_the_toolbar(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    focus(qtbot, w.checker_box)
    w.checker_box.setCurrentIndex(0)
    w.checker_box.activated.emit(0)
    unit = w.judging.current_unit()
    assert unit is not None
    type_key(qtbot, Qt.Key.Key_A)
    assert w.undo_stack.count() == 1
    assert w.session.project.judgment(unit.key).label == "supported"
    type_key(qtbot, Qt.Key.Key_Down)  # the judging "next", not the combo's next entry
    assert w.checker_box.currentIndex() == 0


def test_keys_judge_after_clicking_cancel(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    focus(qtbot, w.output_view)
    w.cancel_button.show()
    w.progress.show()
    qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    w.analysis._finished(True)  # what the runner reports once the run has stopped
    assert not w.cancel_button.isVisible()
    type_key(qtbot, Qt.Key.Key_A)
    assert w.search.text() == ""
    assert w.undo_stack.count() == 1


def test_keys_work_in_the_pair_list_but_not_in_text_fields(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    focus(qtbot, w.table)
    type_key(qtbot, Qt.Key.Key_A)
    assert w.undo_stack.count() == 1
    focus(qtbot, w.search)
    type_key(qtbot, Qt.Key.Key_X)
    assert w.search.text() == "x" and w.undo_stack.count() == 1
    type_key(qtbot, Qt.Key.Key_Escape)  # back to judging
    assert QApplication.focusWidget() is w.output_view


def test_a_swallowed_key_says_why(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    focus(qtbot, w.output_view)
    w.threshold.setValue(0.0)
    w.session.apply_threshold()
    w.judging.set_level("arc")
    type_key(qtbot, Qt.Key.Key_X)
    assert w.undo_stack.count() == 0
    assert "no non-entailed arcs" in w.statusBar().currentMessage()
    w.judging.set_level("sentence")
    type_key(qtbot, Qt.Key.Key_I)  # AIS mode
    assert w.judging.ais_mode
    type_key(qtbot, Qt.Key.Key_3)
    assert w.undo_stack.count() == 0
    assert "AIS stage 1" in w.statusBar().currentMessage()
    type_key(qtbot, Qt.Key.Key_I)
    focus(qtbot, w.threshold)
    type_key(qtbot, Qt.Key.Key_A)
    assert w.undo_stack.count() == 0
    assert "Flagging threshold field" in w.statusBar().currentMessage()
