"""Small things that were wrong in the window (issue 13, item 22)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QToolButton

from app import item_models
from app.gui.main import MainWindow
from app.settings import DEFAULT_KEYS, Settings
from app.tasks import Job


def test_export_and_import_dialogs_label_their_file_fields(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from app.gui.dialogs import ExportDialog, ImportDialog

    w: MainWindow = window
    export = ExportDialog(str(w.session.project.path), w.runner, w)
    qtbot.addWidget(export)
    labels = export.findChildren(QLabel)
    assert not any(label.text() == "&File" and label.buddy() is None for label in labels)
    assert any(label.buddy() is export.path for label in labels)
    imp = ImportDialog(str(w.session.project.path), w.runner, w.session.reload_rows, w)
    qtbot.addWidget(imp)
    assert any(label.buddy() is imp.path for label in imp.findChildren(QLabel))


def test_analyse_with_no_project_or_during_a_run_says_so(qtbot, settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    jobs: list[Job] = []
    monkeypatch.setattr(w.runner, "submit", jobs.append)
    w.analyse_action.trigger()
    assert jobs == [] and "open one first" in w.statusBar().currentMessage()
    w.close()


def test_ctrl_r_during_a_run_does_not_restart_it(qtbot, window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    jobs: list[Job] = []
    monkeypatch.setattr(w.runner, "submit", jobs.append)
    monkeypatch.setattr(w.runner, "is_busy", lambda lane: lane == "model")
    w.analyse_action.trigger()
    assert jobs == [] and "already running" in w.statusBar().currentMessage()


def test_review_menu_shows_the_judging_keys(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    assert w.blind_action.text().endswith("\tB")
    assert w.ais_action.text().endswith("\tI")
    relabel = w.actions_["relabel"]
    assert relabel.text().endswith("\tE")
    w.review_menu.remap_keys(dict(DEFAULT_KEYS, blind="Shift+B"))
    assert w.blind_action.text().endswith("\tShift+B")
    assert "\t" not in w.blind_action.iconText()  # the toolbar button keeps its plain name


def test_count_follows_rows_fetched_by_scrolling(qtbot, settings, demo_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(item_models, "FETCH_BATCH", 10)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    assert w.count_label.text() == "10 shown of 32 pairs"
    w.model.fetch_all()
    assert w.count_label.text() == "32 shown of 32 pairs"
    w.close()


def test_undo_of_a_decision_on_another_pair_shows_that_pair(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    first = w.session.current_output_id()
    unit = w.judging.current_unit()
    assert first is not None and unit is not None
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)
    qtbot.keyClick(w.output_view, Qt.Key.Key_L)  # next pair
    assert w.session.current_output_id() != first
    qtbot.keyClick(w.output_view, Qt.Key.Key_U)  # undo
    assert w.session.project.judgment(unit.key) is None
    assert w.session.current_output_id() == first
    assert w.judging.current_unit() == unit


def test_reopening_a_project_returns_to_the_last_pair(
    qtbot, settings: Settings, demo_path: Path
) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    for _ in range(3):
        qtbot.keyClick(w.output_view, Qt.Key.Key_L)
    there = w.session.current_output_id()
    assert there != w.model.list_row(0).row.output_id
    w.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    again.show()
    again.session.open_project(demo_path)
    assert again.session.current_output_id() == there
    again.close()


def test_checker_box_is_wide_enough_for_its_entry_after_a_decision(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)
    qtbot.wait(50)
    text = w.checker_box.currentText()
    assert text
    assert w.checker_box.width() >= w.checker_box.fontMetrics().horizontalAdvance(text)
    toolbar_texts = [b.text() for b in w.findChildren(QToolButton)]
    assert "Undo" in toolbar_texts and not any(t.startswith("Undo ") for t in toolbar_texts)


def test_count_axes_have_whole_ticks_and_the_legend_clears_the_bars() -> None:
    from app.gui.stats import errors_by_system, score_distribution

    fig = Figure(figsize=(7, 5), layout="tight")
    FigureCanvasAgg(fig)
    errors_by_system(fig, [("a", "entity", 1), ("b", "circumstance", 2), ("b", "entity", 1)])
    fig.canvas.draw()
    ax = fig.axes[0]
    assert all(float(t).is_integer() for t in ax.get_yticks())
    legend = ax.get_legend()
    assert legend is not None
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1
    fig = Figure(figsize=(7, 5), layout="tight")
    FigureCanvasAgg(fig)
    score_distribution(fig, [0.1, 0.2, 0.9], "lexical", 0.5)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert all(float(t).is_integer() for t in ax.get_yticks())
    legend = ax.get_legend()
    assert legend is not None
    assert legend.get_window_extent().y0 >= ax.get_window_extent().y1


def test_switching_the_theme_keeps_the_text_size(qtbot, settings, demo_path) -> None:  # type: ignore[no-untyped-def]
    from typing import cast

    from PySide6.QtWidgets import QApplication

    from app.gui import theme

    app = cast(QApplication, QApplication.instance())
    theme.apply(app, False)  # as run() does before the window opens
    try:
        w = MainWindow(settings)
        qtbot.addWidget(w)
        w.show()
        w.session.open_project(demo_path)
        w.prefs.zoom(+2)
        sizes = (w.output_view.font().pointSize(), w.arc_view.diagram.font().pointSize())
        for dark in (True, False):
            w.dark_action.setChecked(dark)
            w.prefs.toggle_dark()
            assert (
                w.output_view.font().pointSize(),
                w.arc_view.diagram.font().pointSize(),
            ) == sizes
            assert w.output_view.document().defaultFont().pointSize() == sizes[0]
        w.close()
    finally:
        app.setStyleSheet("")


def test_key_hint_is_one_line_that_never_wraps(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.resize(900, 700)
    qtbot.wait(50)
    hint = w.view.keys_hint
    assert "F1 all keys" in hint.full_text and hint.toolTip() == hint.full_text
    assert "\n" not in w.prompt.text() and "F1" not in w.prompt.text()
    assert not hint.wordWrap()
    assert hint.fontMetrics().horizontalAdvance(hint.text()) <= hint.contentsRect().width()
    assert hint.text().endswith("…")  # cut to the narrow window, not wrapped
    w.resize(2400, 800)
    qtbot.waitUntil(lambda: hint.text() == hint.full_text, timeout=2000)


def test_long_ids_keep_their_distinguishing_end(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    assert w.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert (
        w.model.data(w.model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
        == w.model.list_row(0).row.external_id
    )
