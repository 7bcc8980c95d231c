"""View preferences kept between sessions: font size (zoom), dark theme, geometry, splitters.

:class:`ViewPrefs` applies them when the window opens (:meth:`ViewPrefs.restore`), changes
them from the View menu, and saves them when it closes (:meth:`ViewPrefs.save`); they live in
the user's settings (:mod:`app.settings`), never in a project.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QApplication, QMainWindow, QSplitter

from app import settings as S
from app.gui import theme
from app.gui.session import ReviewSession


class ViewPrefs:
    """Zoom, dark theme, window geometry and splitter positions.

    Args:
        window: the main window (its geometry is kept).
        session: the review session (its pair view and list are zoomed, the pair redrawn).
        main_split: the splitter between the pair list and the texts.
    """

    def __init__(self, window: QMainWindow, session: ReviewSession, main_split: QSplitter) -> None:
        self.window = window
        self.session = session
        self.settings = session.settings
        self.main_split = main_split

    def splitters(self) -> tuple[tuple[S.Setting[QByteArray], QSplitter], ...]:
        """The splitters whose positions are kept between sessions, with their settings."""
        view = self.session.view
        return (
            (S.SPLITTER, view.text_split),
            (S.ARC_SPLITTER, view.arc_split),
            (S.MAIN_SPLITTER, self.main_split),
        )

    def restore(self) -> None:
        """The font size, geometry and splitter positions the editor left."""
        self.apply_font_size(self.settings.get(S.FONT_SIZE))
        geometry = self.settings.get(S.GEOMETRY)
        if not geometry.isEmpty():
            self.window.restoreGeometry(geometry)
        else:
            self.window.resize(1400, 850)
        # Where the editor left the splitters (the arc pane's default height otherwise).
        view = self.session.view
        for setting, splitter in self.splitters():
            state = self.settings.get(setting)
            if not state.isEmpty() and splitter.restoreState(state) and splitter is view.arc_split:
                view.arc_height_restored()

    def save(self) -> None:
        """Keep the geometry and the splitter positions (the window closes)."""
        self.settings.set(S.GEOMETRY, self.window.saveGeometry())
        for setting, splitter in self.splitters():
            self.settings.set(setting, splitter.saveState())
        self.settings.sync()

    def zoom(self, step: int) -> None:
        self.apply_font_size(max(6, min(40, self.settings.get(S.FONT_SIZE) + step)))

    def apply_font_size(self, size: int) -> None:
        self.settings.set(S.FONT_SIZE, size)
        self.session.view.set_font_size(size)
        table = self.session.pairs.table
        font = table.font()
        font.setPointSize(max(6, size - 1))
        table.setFont(font)
        if self.session.judging.bundle is not None:
            self.session.redraw()

    def toggle_dark(self) -> None:
        on = self.session.action("dark").isChecked()
        self.settings.set(S.DARK, on)
        # The running application is a QApplication; instance() is typed as its QCoreApplication base.
        theme.apply(cast(QApplication, QApplication.instance()), on)
        # A new style and style sheet give every widget the application font again.
        self.apply_font_size(self.settings.get(S.FONT_SIZE))
