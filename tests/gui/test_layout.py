"""Issue 25, items 9 and 10: room for the arc diagram and the plots, kept between sessions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtWidgets import QApplication, QSplitter

from app import settings as S
from app.gui.main import MainWindow
from app.settings import Settings


def open_window(qtbot, settings: Settings, path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    qtbot.waitExposed(w)
    QApplication.processEvents()
    return w


# ---------------------------------------------------------------------- item 9
def test_the_arc_diagram_gets_a_sensible_default_height(qtbot, settings, demo_path) -> None:  # type: ignore[no-untyped-def]
    w = open_window(qtbot, settings, demo_path)
    assert settings.get(S.GEOMETRY).isEmpty()  # the first session: 1400 x 850
    texts, arcs = w.view.arc_split.sizes()
    assert arcs >= 0.35 * (texts + arcs)  # not the ~110 px of a few lines
    assert arcs >= 8 * w.arc_view.diagram._metrics()[1]  # room for the words and their arcs
    w.close()


def test_splitter_positions_are_kept_between_sessions(qtbot, settings, demo_path) -> None:  # type: ignore[no-untyped-def]
    w = open_window(qtbot, settings, demo_path)
    w.view.arc_split.setSizes([250, 350])
    w.main_split.setSizes([600, 800])
    w.text_split.setSizes([300, 500])
    arc, main, text = (s.sizes() for s in (w.view.arc_split, w.main_split, w.text_split))
    w.close()
    # written to the test's own file, never to the user's configuration
    assert Path(settings.q.fileName()).is_relative_to(Path(demo_path).parents[1])
    # the offscreen screen is smaller than the window: a restored geometry would be cut to it
    settings.set(S.GEOMETRY, QByteArray())
    again = open_window(qtbot, Settings(settings.q), demo_path)
    assert again.view.arc_split.sizes() == arc
    assert again.main_split.sizes() == main
    assert again.text_split.sizes() == text
    again.close()


# ---------------------------------------------------------------------- item 10
def stats(window: MainWindow):  # type: ignore[no-untyped-def]
    return window.review_menu.stats_dialog()


def test_the_statistics_window_shows_every_page_title_whole(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.resize(760, 700)  # within the offscreen screen (800 x 800)
    dialog = stats(w)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    QApplication.processEvents()
    screen = dialog.screen().availableGeometry()
    assert dialog.width() >= min(900, screen.width()) and dialog.height() >= 0.8 * w.height()
    titles = dialog.tabs.titles
    assert titles.count() == dialog.tabs.count() >= 7
    assert dialog.tabs.tabText(dialog.tabs.count() - 1) == "Entity familiarity"
    for i in range(titles.count()):  # every title whole, none behind scroll arrows
        rect = titles.visualItemRect(titles.item(i))
        assert titles.viewport().rect().contains(rect), titles.item(i).text()
        assert titles.fontMetrics().horizontalAdvance(titles.item(i).text()) <= rect.width()
    # the page beside the titles is resizable and the window can be maximised
    split = dialog.tabs
    assert split.orientation() == Qt.Orientation.Horizontal and not split.childrenCollapsible()
    assert dialog.windowFlags() & Qt.WindowType.WindowMaximizeButtonHint
    dialog.tabs.setCurrentIndex(2)
    assert dialog.tabs.currentIndex() == 2 and dialog.tabs.stack.currentIndex() == 2
    dialog.close()


def test_plots_and_tables_share_resizable_room(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    dialog = stats(w)
    qtbot.addWidget(dialog)
    dialog.show()
    tab = dialog.agreement_tab
    assert tab.summary.wordWrap()  # the figures above the table are never cut
    split = tab.canvas.parentWidget()
    assert isinstance(split, QSplitter) and split.orientation() == Qt.Orientation.Vertical
    assert split.indexOf(tab.table) >= 0 and not split.childrenCollapsible()
    split.setSizes([100, 500])
    QApplication.processEvents()
    assert abs(tab.canvas.height() - split.sizes()[1]) <= 2
    familiar = dialog.tabs.widget(dialog.tabs.count() - 1)
    familiar.compute() if not familiar._started else None
    qtbot.waitUntil(lambda: familiar.plot is not None, timeout=30000)
    split = familiar.plot.parentWidget()
    assert isinstance(split, QSplitter) and split.indexOf(familiar.table) >= 0
    dialog.close()
