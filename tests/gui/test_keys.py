"""The keyboard dialog, remapping from the window, and which checker's columns are shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialogButtonBox

from app.gui.keys import KeysDialog, key_problems
from app.gui.main import MainWindow
from app.item_models import COL_ARCS
from app.settings import DEFAULT_KEYS


def test_key_problems_name_clashes_reserved_digits_and_gaps() -> None:
    assert key_problems(dict(DEFAULT_KEYS)) == []
    clash = dict(DEFAULT_KEYS, reject="A")
    assert any("share the key A" in p for p in key_problems(clash))
    assert any("error type" in p for p in key_problems(dict(DEFAULT_KEYS, skip="3")))
    assert any("'flag' has no key" in p for p in key_problems(dict(DEFAULT_KEYS, flag="")))


def test_dialog_blocks_ok_on_a_clash_and_resets(qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = KeysDialog(dict(DEFAULT_KEYS))
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok.isEnabled()
    dialog.editors["reject"].setKeySequence(QKeySequence("A"))
    assert not ok.isEnabled() and "share the key A" in dialog.problems.text()
    dialog.editors["reject"].setKeySequence(QKeySequence("R"))
    assert ok.isEnabled() and dialog.keys()["reject"] == "R"
    dialog.reset()
    assert dialog.keys() == DEFAULT_KEYS


def test_remapped_keys_take_effect_at_once_and_persist(qtbot, window, settings) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.review_menu.remap_keys(dict(DEFAULT_KEYS, accept="Y"))
    assert "Y supported" in w.view.keys_hint.full_text
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)  # the old key does nothing now
    assert w.undo_stack.count() == 0
    qtbot.keyClick(w.output_view, Qt.Key.Key_Y)
    assert w.undo_stack.count() == 1
    assert settings.keymap()["accept"] == "Y"


def test_sentence_level_checker_leaves_the_arcs_column_empty(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    grains = w.session.project.checker_grains()  # type: ignore[union-attr]
    assert grains == {"lexical": "arc"}
    assert w.session.checker == "lexical" and w.model.arcs_shown
    cell = w.model.index(0, COL_ARCS)
    assert w.model.data(cell) != "—"
    w.model.arcs_shown = False  # what choosing a sentence-level checker sets
    assert w.model.data(cell) == "—"
    assert "not arcs" in w.model.data(cell, Qt.ItemDataRole.ToolTipRole)
