"""The File menu: new, open, recent and demo projects, import, export, merge, the report.

:class:`FileMenu` asks for paths (file dialogs) and hands them to the review session, the
import and export dialogs (:mod:`app.gui.dialogs`), the merge (:mod:`app.gui.merging`) or the
report job (:mod:`app.gui.report`). Every error goes through the session's one handler.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMenu

from app import settings as S
from app.gui.analysis import AnalysisPanel
from app.gui.merging import Merging
from app.gui.plaintext import menu_text
from app.gui.session import ReviewSession
from app.store import Project

#: The project files' filter in the file dialogs.
PROJECTS = "FactDesk projects (*.factdesk)"


class FileMenu:
    """The File menu's slots.

    Args:
        session: the review session (opens projects; the host of the merge and the report).
        analysis: the analysis job wiring (the demo project is analysed on first use).
    """

    def __init__(self, session: ReviewSession, analysis: AnalysisPanel) -> None:
        self.session = session
        self.analysis = analysis
        self.merging = Merging(session)

    def new_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.session.window(), "New project", "", PROJECTS)
        if path:
            try:
                Project.create(path).close()
                self.session.open_project(
                    path if path.endswith(".factdesk") else path + ".factdesk"
                )
            except Exception as err:  # noqa: BLE001 - one handler shows every error
                self.session.show_error(err)

    def open_project(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.session.window(), "Open project", "", PROJECTS)
        if path:
            self.open_guarded(path)

    def open_guarded(self, path: str) -> None:
        """Open ``path``; an error is shown, not raised."""
        try:
            self.session.open_project(path)
        except Exception as err:  # noqa: BLE001 - one handler shows every error
            self.session.show_error(err)

    def fill_recent(self, menu: QMenu) -> None:
        """File ▸ Open recent, as it is about to show."""
        menu.clear()
        for p in self.session.settings.get(S.RECENT):

            def open_recent(path: str = p) -> None:
                self.open_guarded(path)

            menu.addAction(menu_text(p), open_recent)
        if menu.isEmpty():
            menu.addAction("(none)").setEnabled(False)

    def open_demo(self) -> None:
        from app.demo import demo_project_path

        self.analysis.prepare_demo(str(demo_project_path()), self.open_guarded)

    def import_(self) -> None:
        session = self.session
        if session.project is None:
            return
        from app.gui.dialogs import ImportDialog

        ImportDialog(
            str(session.project.path), session.runner, self._after_import, session.window()
        ).exec()

    def _after_import(self) -> None:
        """New pairs were imported: new filter choices and rows."""
        self.session.pairs_changed()
        if self.session.judging.bundle is None:
            self.session.pairs.select_first()

    def export(self) -> None:
        session = self.session
        if session.project is None:
            return
        from app.gui.dialogs import ExportDialog

        ExportDialog(str(session.project.path), session.runner, session.window()).exec()

    def export_report(self) -> None:
        from app.gui.report import export_report

        export_report(self.session)
