"""The review session: the open project, the checker and threshold shown, the pair on screen.

:class:`ReviewSession` holds no widgets of its own; it steers the rooms the window built (the
pair list, the pair view, the checker box and threshold box) and the judging controller:

- opening and closing a project, and coming back to the pair the editor left off at;
- the checker box (filled from the project's runs) and the threshold (applied after a pause);
- which pair is selected and shown, and redrawing it;
- the error handler the whole window shares.

It is the host the panels are given (:class:`app.gui.host.ListHost`), so a panel moves the
window on through it and never through the window's class.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QMainWindow,
    QMessageBox,
    QStatusBar,
    QWidget,
)

from app import settings as S
from app.gui.actions import Actions
from app.gui.claims import ClaimFetcher
from app.gui.judging import JudgingController
from app.gui.pairlist import ListColumn, PairList
from app.gui.pairview import PairView
from app.gui.reviewer import reviewer_name
from app.settings import Settings
from app.store import Project
from app.tasks import TaskRunner

#: Project setting: the output id on screen when the project was closed.
LAST_PAIR = "review/last_pair"


class ReviewSession(QObject):
    """The open project and what the window shows of it (see the module doc).

    Args:
        window: the main window (title, status bar, parent of dialogs).
        settings: the user's settings.
        runner: the window's task runner.
        judging: the judging controller.
        column: the pair list's column.
        view: the pair view.
        checker_box: the toolbar's "Checker shown" box.
        threshold_box: the toolbar's threshold box.
    """

    #: The threshold box's new value, as the editor changes it.
    threshold_edited = Signal(float)

    def __init__(
        self,
        window: QMainWindow,
        settings: Settings,
        runner: TaskRunner,
        judging: JudgingController,
        column: ListColumn,
        view: PairView,
        checker_box: QComboBox,
        threshold_box: QDoubleSpinBox,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._settings = settings
        self._runner = runner
        self._judging = judging
        self.column = column
        self.pairs: PairList = column.pairs
        self.view = view
        self.checker_box = checker_box
        self.threshold_box = threshold_box
        self._actions: Actions | None = None  # built after the rooms (they need their slots)
        self.claims = ClaimFetcher(runner, judging, self.redraw_header)
        self._threshold_timer = QTimer(self, singleShot=True, interval=200)
        self._threshold_timer.timeout.connect(self.apply_threshold)
        judging.step_pair = self.pairs.step

    # ================================================================== the host protocol
    @property
    def judging(self) -> JudgingController:
        return self._judging

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def project(self) -> Project | None:
        return self._judging.project

    @property
    def pair_list(self) -> ListColumn:
        return self.column

    @property
    def checker(self) -> str | None:
        return self._judging.checker

    @property
    def version(self) -> str | None:
        return self._judging.version

    @property
    def threshold(self) -> float:
        return self.threshold_box.value()

    def current_output_id(self) -> int | None:
        return self._judging.current_output_id()

    def statusBar(self) -> QStatusBar:  # noqa: N802 - Qt's name
        return self._window.statusBar()

    def window(self) -> QWidget:
        return self._window

    def use_actions(self, actions: Actions) -> None:
        """The window's actions, once built (they are built from the rooms' slots)."""
        self._actions = actions

    @property
    def actions(self) -> Actions:
        assert self._actions is not None, "the window's actions are not built yet"
        return self._actions

    def action(self, name: str) -> QAction:
        return self.actions[name]

    def focus_judging(self) -> None:
        self.view.output_view.setFocus()

    def show_error(self, err: BaseException) -> None:
        """The one place errors reach the user."""
        self.statusBar().showMessage(f"Error: {err}", 10000)
        if QApplication.platformName() != "offscreen":
            box = QMessageBox(QMessageBox.Icon.Warning, "FactDesk", str(err), parent=self._window)
            box.setTextFormat(Qt.TextFormat.PlainText)  # messages quote paths, ids and fields
            box.exec()

    # ================================================================== project
    def open_project(self, path: str | Path) -> None:
        """Open a project file in the window (closing the current one)."""
        self.close_project()
        project = Project.open(path)
        project.set_annotator(reviewer_name(self._settings))
        self._settings.add_recent(str(Path(path).resolve()))
        self._window.setWindowTitle(f"FactDesk — {Path(path).name}")
        self._judging.attach(project)
        self.pairs.set_project(project)
        self.refresh_checkers()
        self.reload_rows()
        last = project.get_setting(LAST_PAIR)
        if isinstance(last, int) and self.pairs.model.row_for(last) is not None:
            self.select_pair(last)  # where the editor left off
        else:
            self.pairs.select_first()
        self._judging.set_saved("All decisions saved")
        self.focus_judging()  # keyboard judging starts at once

    def remember_pair(self) -> None:
        """Keep the pair on screen in the project, to come back to it on the next open."""
        project, oid = self.project, self.current_output_id()
        if project is None or oid is None or project.get_setting(LAST_PAIR) == oid:
            return
        try:
            project.set_setting(LAST_PAIR, oid)
        except Exception as err:  # noqa: BLE001 - a read-only project still closes
            self.show_error(err)

    def close_project(self) -> None:
        self._runner.cancel("model")
        self._runner.wait_idle()
        self.remember_pair()
        project = self._judging.project
        self._judging.detach()
        if project is not None:
            project.close()
        self.pairs.set_project(None)
        self.show_nothing()

    def shutdown(self) -> None:
        """The window closes (its workers already joined): keep the pair, close the project."""
        self._threshold_timer.stop()
        self.remember_pair()
        project = self._judging.project
        if project is not None:
            self._judging.detach()
            self.pairs.set_project(None)
            project.close()

    def pairs_changed(self) -> None:
        """New pairs or judgments came in (import, merge): new filter choices and rows."""
        self.pairs.set_project(self.project)
        self.reload_rows()

    # ================================================================== checker, threshold
    def refresh_checkers(self) -> None:
        """Fill the checker box from the project's runs and show its choice."""
        project = self.project
        assert project is not None
        box = self.checker_box
        names = project.checker_names()
        self._judging.display_names = names
        versions = project.current_versions()
        grains = project.checker_grains()
        wanted = self.checker or self._settings.get(S.CHECKER)
        if wanted not in names:
            # An arc checker shows both grains (arcs and sentence means): prefer the latest one.
            arc_level = [n for n in names if grains.get(n) == "arc"]
            wanted = arc_level[-1] if arc_level else next(reversed(names), "")
        box.blockSignals(True)
        box.clear()
        for name, display in names.items():
            # the name an editor knows; the version (a content hash) and where the pairs were
            # scored are in the tooltip
            box.addItem(display, name)
            if name in versions:  # which version, device and precision scored what
                places = project.runs_on(name, versions[name])
                where = ", ".join(f"{p} ({n} pairs)" for p, n in places.items())
                box.setItemData(
                    box.count() - 1,
                    f"version {versions[name]}; "
                    + (f"scored on {where}" if where else "nothing scored yet"),
                    Qt.ItemDataRole.ToolTipRole,
                )
        i = box.findData(wanted)
        box.setCurrentIndex(i if i >= 0 else box.count() - 1)
        box.blockSignals(False)
        checker = box.currentData()
        self._judging.set_checker(
            checker,
            versions.get(checker) if checker else None,
            names.get(checker, "") if checker else "",
        )
        self.pairs.model.checker_label = self._judging.checker_label
        self.pairs.model.arcs_shown = grains.get(checker or "", "arc") == "arc"
        self.show_checker()

    def show_checker(self) -> None:
        """Say whose scores the list shows, and at which threshold."""
        label = self._judging.checker_label
        self.pairs.checker_note.setText(
            f"Lowest / Arcs columns: {label}, threshold {self.threshold:.2f}"
            if label
            else "Not analysed yet: Analysis ▸ Analyse (Ctrl+R)"
        )

    def checker_changed(self) -> None:
        """The checker box's choice changed: the list and the pair show its scores."""
        checker = self.checker_box.currentData()
        project = self.project
        if project is not None and checker:
            self._judging.set_checker(
                checker,
                project.current_versions().get(checker),
                project.checker_names().get(checker, ""),
            )
            self.pairs.model.checker_label = self._judging.checker_label
            self.pairs.model.arcs_shown = project.checker_grains().get(checker) == "arc"
            self._settings.set(S.CHECKER, checker)
            self.show_checker()
        else:
            self._judging.set_checker(checker, self.version, self._judging.checker_label)
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self.show_pair(oid)

    def threshold_box_moved(self, value: float) -> None:
        """The threshold box moved: the pair's marks follow now, the list after a pause."""
        self._judging.set_threshold(value)
        self.threshold_edited.emit(value)
        self._threshold_timer.start()

    def apply_threshold(self) -> None:
        """What the threshold's timer runs: keep it, and read the list at it again."""
        value = self.threshold
        self._judging.set_threshold(value)
        self._settings.set(S.THRESHOLD, value)
        self.show_checker()
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self._judging.build_units()
            self._judging.redraw()

    def set_threshold(self, value: float, *, reload: bool = True) -> None:
        if self.threshold == value:
            return
        if reload:
            self.threshold_box.setValue(value)  # the list reloads after the pause
            return
        self.threshold_box.blockSignals(True)
        self.threshold_box.setValue(value)
        self.threshold_box.blockSignals(False)
        self._judging.set_threshold(value)
        self._settings.set(S.THRESHOLD, value)
        self.show_checker()

    # ================================================================== rows
    def reload_rows(self) -> None:
        self.pairs.reload(self.checker, self.version, self.threshold)

    def refresh_rows(self, output_ids: list[int]) -> None:
        self.pairs.refresh(output_ids, self.checker, self.version, self.threshold)

    def judged(self, output_id: int) -> None:
        """A judgment was saved: its row's status changes (its scores do not)."""
        self.pairs.refresh([output_id], self.checker, self.version, self.threshold, scores=False)

    # ================================================================== selection
    def select_pair(self, output_id: int) -> None:
        if self.pairs.model.row_for(output_id) is None:
            return
        if not self.pairs.select(output_id):
            self.show_pair(output_id)  # hidden by the filters: shown all the same

    def show_pair(self, output_id: int) -> None:
        """Load one pair's detail and draw it; the keyboard starts on its first item."""
        if self.project is None:
            return  # a late signal after the project was closed
        self.pairs.shown_id = output_id
        self._judging.show_pair(output_id)
        self.claims.request()

    def show_nothing(self) -> None:
        self._judging.clear_pair()
        self.pairs.shown_id = None
        self.view.show_nothing(self.project)

    def redraw(self) -> None:
        if self._judging.bundle is None:
            self.show_nothing()
        else:
            self.view.draw(self._judging)

    def redraw_header(self) -> None:
        if self._judging.bundle is not None:
            self.view.render_header(self._judging)

    def revisit(self, output_id: int) -> None:
        """Undo or redo changed another pair: show it, so the change is seen."""
        self.select_pair(output_id)
        if self.current_output_id() != output_id:
            self.show_pair(output_id)

    def arc_clicked(self, arc_id: int) -> None:
        if self._judging.select_arc(arc_id):
            self.focus_judging()  # the judging keys act on the clicked arc at once
