"""Text from a project file is drawn as plain text: labels, tooltips, menus (issue 13, item 9)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QTextCursor, QTextDocument
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtWidgets import QApplication, QLabel, QToolTip, QWidget
from sqlalchemy import select, update

from app.gui.main import MainWindow
from app.item_models import COL_ARCS, COL_ID
from app.settings import Settings
from app.store import Project
from app.store.schema import ArcRow, Output, Run, SentenceRow

BAD = "<img src=x>"


def rendered(text: str) -> str:
    """What a Qt tooltip or AutoText label shows for ``text``."""
    doc = QTextDocument()
    if QtGuiNamespace.mightBeRichText(text):
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    return doc.toPlainText()


def label_shows(label: QLabel) -> str:
    if label.textFormat() == Qt.TextFormat.PlainText:
        return label.text()
    return rendered(label.text())


def tooltip_at(widget: QWidget, pos: QPoint) -> str:
    QToolTip.hideText()
    event = QHelpEvent(QEvent.Type.ToolTip, pos, widget.mapToGlobal(pos))
    QApplication.sendEvent(widget, event)
    return rendered(QToolTip.text())


@pytest.fixture
def crafted(demo_path: Path) -> Path:
    """The demo project with markup in a checker name, an id, a system, arc labels, a taxonomy."""
    with Project.open(demo_path) as p:
        first = min(r.output_id for r in p.pair_rows())
        taxonomy = p.taxonomy()
        taxonomy[0] = dict(taxonomy[0], key=f"err{BAD}", name=f"name{BAD}")
        p.set_setting("taxonomy", taxonomy)
        with p.session() as s:
            s.execute(update(Run).values(display_name=f"checker{BAD}"))
            s.execute(
                update(Output)
                .where(Output.id == first)
                .values(external_id=f"id{BAD}", system=f"sys{BAD}")
            )
            sids = select(SentenceRow.id).where(SentenceRow.output_id == first)
            s.execute(update(ArcRow).where(ArcRow.sentence_id.in_(sids)).values(label=f"l{BAD}"))
            s.commit()
    return demo_path


@pytest.fixture
def win(qtbot, settings: Settings, crafted: Path):  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(crafted)
    w.output_view.setFocus()
    yield w
    w.close()


def test_labels_show_data_as_plain_text(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = win
    assert f"id{BAD}" in label_shows(w.header) and f"sys{BAD}" in label_shows(w.header)
    assert f"checker{BAD}" in label_shows(w.checker_note)
    qtbot.keyClick(w.output_view, Qt.Key.Key_1)  # error type 1: the crafted one
    w.judging.prev_item()
    assert f"err{BAD}" in label_shows(w.prompt)
    w.judging.set_level("arc")
    assert f"l{BAD}" in label_shows(w.prompt)


def test_tooltips_show_data_as_plain_text(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = win
    # the pair list: the Arcs header names the checker
    header = w.table.horizontalHeader()
    x = header.sectionViewportPosition(COL_ARCS) + 5
    assert f"checker{BAD}" in tooltip_at(header.viewport(), QPoint(x, 5))
    # an id cell: the full id
    rect = w.table.visualRect(w.proxy.index(0, COL_ID))
    assert f"id{BAD}" in tooltip_at(w.table.viewport(), rect.center())
    # the arc diagram: an arc's tooltip has its label
    w.threshold.setValue(1.0)
    w.session.apply_threshold()
    w.judging.set_level("arc")  # the diagram shows the sentence of the first flagged arc
    d = w.arc_view.diagram
    assert d.geometry_
    g = d.geometry_[0]
    w.arc_view.scroll_area.ensureVisible(
        int(g.label_rect.center().x()), int(g.label_rect.center().y())
    )
    assert f"l{BAD}" in tooltip_at(d, g.label_rect.center().toPoint())
    # the output: a flagged arc's words carry its label and the checker's name
    view = w.output_view
    at = next(i for i in range(view.document().characterCount()) if f"l{BAD}" in view.tooltip_at(i))
    cursor = QTextCursor(view.document())
    cursor.setPosition(at)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    rect = view.cursorRect(cursor)  # the caret before the character: its left half
    pos = QPoint(rect.left() + 1, rect.center().y())
    tip = tooltip_at(view.viewport(), pos)
    assert f"l{BAD}" in tip and f"checker{BAD}" in tip


def test_plot_labels_from_data_are_not_mathtext(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    from app.gui.stats import errors_by_system

    fig = Figure()
    errors_by_system(fig, [("sys$\\undefinedcmd$", "err$\\alsobad$", 2)])
    fig.savefig(tmp_path / "plot.png")  # mathtext would fail on the unknown commands
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["err\\$\\alsobad\\$"]
