"""The review window (a thin shell that wires the rooms) and its entry point :func:`run`.

The rooms live in their own modules: :mod:`app.gui.judging` (the judging controller, no
widgets), :mod:`app.gui.pairlist` (search, filters, the pair table), :mod:`app.gui.pairview`
(the pair in detail), :mod:`app.gui.actions` (menus and toolbar, declared once) and
:mod:`app.gui.analysis` (the analysis job wiring). A new feature adds a module and a few lines
of wiring here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app import settings as S
from app.gui import theme
from app.gui.actions import build_actions, show_key_hints
from app.gui.adjudication import AdjudicationMode
from app.gui.analysis import AnalysisPanel, fill_checker_menu
from app.gui.claims import ClaimFetcher
from app.gui.help import HelpMenu
from app.gui.judging import LEVELS, JudgingController, Scores, Unit
from app.gui.keyrouter import KeyRouter
from app.gui.learning import LearningPanel
from app.gui.pairlist import PairList, combo
from app.gui.pairview import PairView
from app.gui.plaintext import menu_text, plain_label
from app.gui.reviewer import ReviewerBar, ask_reviewer_name, reviewer_text, switch_reviewer
from app.io.bundles import PairBundle
from app.item_models import icon
from app.settings import Settings
from app.store import Project
from app.store.project import default_annotator
from app.store.schema import ArcRow
from app.tasks import TaskRunner

__all__ = ["LEVELS", "MainWindow", "Unit", "run"]

#: Project setting: the output id on screen when the project was closed.
LAST_PAIR = "review/last_pair"


class MainWindow(QMainWindow):
    """The review window: pair list, source and output side by side, keyboard judging."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.runner = TaskRunner(self)
        self.judging = JudgingController(self)
        self.judging.blind = self.settings.get(S.BLIND)
        self.judging.advance = self.settings.get(S.ADVANCE)
        self.judging.threshold = self.settings.get(S.THRESHOLD)
        self.judging.step_pair = self._step_pair
        self.undo_stack: QUndoStack = self.judging.undo_stack
        self.merge_report: QDialog | None = None  # the last File ▸ Merge report shown
        self._threshold_timer = QTimer(self, singleShot=True, interval=200)
        self._threshold_timer.timeout.connect(self._threshold_changed)
        self.setWindowTitle("FactDesk")
        self.setWindowIcon(icon("app"))
        self._build()
        self._wire()
        self._hide_scores()
        self.judging.set_keys(self.settings.keymap())
        show_key_hints(self.actions_, self.keys_text)
        self.apply_font_size(self.settings.get(S.FONT_SIZE))
        geometry = self.settings.get(S.GEOMETRY)
        if not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 850)
        # Where the editor left the splitters (the arc pane's default height otherwise).
        for setting, splitter in self._splitters():
            state = self.settings.get(setting)
            if not state.isEmpty() and splitter.restoreState(state) and splitter is self.arc_split:
                self.view.arc_height_restored()
        self._show_nothing()

    # ================================================================== building
    def _build(self) -> None:
        self.pairs = PairList()
        self.view = PairView()
        self.claims = ClaimFetcher(self.runner, self.judging, self._redraw_header)
        # The pair list's column: panels that need room (adjudication) go under the list, so
        # the texts keep theirs.
        self.left_split = QSplitter(Qt.Orientation.Vertical)
        self.left_split.setObjectName("left_split")
        self.left_split.addWidget(self.pairs)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("main_split")
        self.main_split.addWidget(self.left_split)
        self.main_split.addWidget(self.view)
        self.main_split.setStretchFactor(1, 3)
        self.main_split.setSizes([520, 980])
        # The reviewer's name is asked once, by a bar above the window's rooms.
        self.reviewer_bar = ReviewerBar(default_annotator())
        self.reviewer_bar.chosen.connect(self.set_reviewer)
        self.reviewer_bar.setVisible(not self.settings.get(S.REVIEWER))
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.addWidget(self.reviewer_bar)
        central_lay.addWidget(self.main_split, 1)
        self.setCentralWidget(central)

        # ---- toolbar: which checker's scores are shown, and the flagging threshold
        tb = QToolBar("Review")
        tb.setObjectName("review_toolbar")
        self.addToolBar(tb)
        self.checker_box = combo("Checker shown", [])
        # The box is filled after it is first shown: size it to its entries every time.
        self.checker_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        tb.addWidget(QLabel(" Checker "))
        tb.addWidget(self.checker_box)
        self.threshold = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.threshold.setAccessibleName("Flagging threshold")
        self.threshold.setToolTip("Scores below the threshold count as not supported")
        self.threshold.setValue(self.settings.get(S.THRESHOLD))
        tb.addWidget(QLabel(" Threshold "))
        tb.addWidget(self.threshold)
        self.learning = LearningPanel(self)  # calibration, queue order, adaptation (issue 14)
        self.help = HelpMenu(self)  # the guide and About (Help menu)
        tb.addWidget(self.learning.calibration_label)
        tb.addSeparator()

        # ---- status bar
        self.analysis = AnalysisPanel(self.runner, self)
        self.saved_label = plain_label(QLabel())  # says which label was saved
        self.saved_label.setAccessibleName("Save state")
        self.statusBar().addWidget(self.saved_label, 1)
        self.reviewer_label = plain_label(QLabel(reviewer_text(self.reviewer, self._confirmed())))
        self.reviewer_label.setAccessibleName("Reviewer")
        self.statusBar().addPermanentWidget(self.reviewer_label)
        self.statusBar().addPermanentWidget(self.analysis.progress)
        self.statusBar().addPermanentWidget(self.analysis.cancel_button)

        slots: dict[str, Callable[[], object]] = {
            "new_project": self.new_project_dialog,
            "open_project": self.open_project_dialog,
            "open_demo": self.open_demo,
            "import": self.import_dialog,
            "export": self.export_dialog,
            "merge": self.merge_dialog,
            "export_report": self.export_report_dialog,
            "quit": self.close,
            "find": self.pairs.focus_search,
            "blind": self.toggle_blind,
            "ais": self.toggle_ais,
            "advance": self._toggle_advance,
            "unfamiliar_first": self.toggle_unfamiliar_first,
            "relabel": self.relabel_dialog,
            "keys": self.show_keys,
            "reviewer": self.reviewer_dialog,
            "adjudicate": lambda: self.adjudication.set_on(self.actions_["adjudicate"].isChecked()),
            "analyse": self.start_analysis,
            "analyse_nli_dir": self.nli_dir_dialog,
            "cancel_analysis": self.analysis.cancel,
            "stats": self.show_stats,
            "zoom_in": lambda: self.zoom(1),
            "zoom_out": lambda: self.zoom(-1),
            "dark": self.toggle_dark,
            **self.learning.slots(),
            **self.help.slots(),
        }
        self.actions_ = build_actions(self, slots, self.undo_stack, tb)
        self.blind_action = self.actions_["blind"]
        self.blind_action.setChecked(self.judging.blind)
        self.ais_action = self.actions_["ais"]
        self.advance_action = self.actions_["advance"]
        self.advance_action.setChecked(self.judging.advance)
        self.dark_action = self.actions_["dark"]
        self.dark_action.setChecked(self.settings.get(S.DARK))
        self.analyse_action = self.actions_["analyse"]
        self.recent_menu = self.actions_.submenus["recent"]
        self.checker_menu = self.actions_.submenus["checkers"]
        self.checker_menu.setToolTipsVisible(True)

        # Shortcuts to the rooms' widgets, for scripts and tests.
        self.model, self.proxy, self.table = self.pairs.model, self.pairs.proxy, self.pairs.table
        self.search = self.pairs.search
        self.status_filter, self.system_filter = self.pairs.status_filter, self.pairs.system_filter
        self.label_filter, self.error_filter = self.pairs.label_filter, self.pairs.error_filter
        self.score_min, self.score_max = self.pairs.score_min, self.pairs.score_max
        self.count_label, self.checker_note = self.pairs.count_label, self.pairs.checker_note
        self.header, self.prompt = self.view.header, self.view.prompt
        self.source_view, self.output_view = self.view.source_view, self.view.output_view
        self.arc_view, self.text_split = self.view.arc_view, self.view.text_split
        self.arc_split = self.view.arc_split
        self.progress, self.cancel_button = self.analysis.progress, self.analysis.cancel_button

    def _wire(self) -> None:
        j = self.judging
        j.updated.connect(self.redraw)
        j.saved.connect(self._show_saved)
        j.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        j.judged.connect(lambda oid: self._refresh_pairs([oid], scores=False))
        j.modes_changed.connect(self._modes_changed)
        j.relabel_requested.connect(self.relabel_dialog)
        j.revisit.connect(self._revisit)
        self.pairs.pair_selected.connect(self.show_pair)
        self.pairs.emptied.connect(self._show_nothing)
        self.view.sentence_clicked.connect(j.select_sentence)
        self.view.arc_clicked.connect(self._arc_clicked)
        self.checker_box.currentIndexChanged.connect(self._checker_changed)
        self.threshold.valueChanged.connect(self._threshold_edited)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.checker_menu.aboutToShow.connect(self._fill_checker_menu)
        a = self.analysis
        a.chunk.connect(self._analysis_chunk)
        a.done.connect(self._analysis_done)
        a.failed.connect(self.show_error)
        a.message.connect(self.statusBar().showMessage)
        self.keys = KeyRouter(
            self,
            j,
            self.output_view,
            self.search,
            lambda text, ms: self.statusBar().showMessage(text, ms),
        )
        self.analysis.finished.connect(self._analysis_finished)
        self.adjudication = AdjudicationMode(self)
        self.learning.wire()

    # ================================================================== controller state
    # Read-only views of the judging controller's state (scripts and tests use these names).
    @property
    def project(self) -> Project | None:
        return self.judging.project

    @property
    def bundle(self) -> PairBundle | None:
        return self.judging.bundle

    @property
    def units(self) -> list[Unit]:
        return self.judging.units

    @property
    def unit(self) -> int:
        return self.judging.unit

    @property
    def level(self) -> str:
        return self.judging.level

    @property
    def ais_mode(self) -> bool:
        return self.judging.ais_mode

    @property
    def ais_stage(self) -> int:
        return self.judging.ais_stage

    @property
    def blind(self) -> bool:
        return self.judging.blind

    @property
    def checker(self) -> str | None:
        return self.judging.checker

    @property
    def version(self) -> str | None:
        return self.judging.version

    @property
    def checker_label(self) -> str:
        return self.judging.checker_label

    @property
    def keys_text(self) -> dict[str, str]:
        return self.judging.keys_text

    @property
    def last_saved(self) -> str | None:
        return self.judging.last_saved

    def current_unit(self) -> Unit | None:
        return self.judging.current_unit()

    def current_output_id(self) -> int | None:
        return self.judging.current_output_id()

    def _scores(self) -> Scores | None:
        return self.judging.scores()

    def _flagged_arcs(self) -> list[tuple[int, ArcRow, float]]:
        return self.judging.flagged_arcs()

    def do(self, action: str) -> None:
        """Run a named judging action (what the keys are bound to)."""
        self.judging.do(action)

    def next_item(self) -> None:
        self.judging.next_item()

    def relabel(self, label: str, error_type: str | None, note: str | None) -> None:
        self.judging.relabel(label, error_type, note)

    # ================================================================== project
    def open_project(self, path: str | Path) -> None:
        """Open a project file in the window (closing the current one)."""
        self.close_project()
        project = Project.open(path)
        project.set_annotator(self.reviewer)
        self.settings.add_recent(str(Path(path).resolve()))
        self.setWindowTitle(f"FactDesk — {Path(path).name}")
        self.judging.attach(project)
        self.pairs.set_project(project)
        self.refresh_checkers()
        self.reload_rows()
        last = project.get_setting(LAST_PAIR)
        if isinstance(last, int) and self.model.row_for(last) is not None:
            self.select_pair(last)  # where the editor left off
        else:
            self.pairs.select_first()
        self.judging.set_saved("All decisions saved")
        self.output_view.setFocus()  # keyboard judging starts at once

    def _remember_pair(self) -> None:
        """Keep the pair on screen in the project, to come back to it on the next open."""
        project, oid = self.project, self.current_output_id()
        if project is None or oid is None or project.get_setting(LAST_PAIR) == oid:
            return
        try:
            project.set_setting(LAST_PAIR, oid)
        except Exception as err:  # noqa: BLE001 - a read-only project still closes
            self.show_error(err)

    def close_project(self) -> None:
        self.runner.cancel("model")
        self.runner.wait_idle()
        self._remember_pair()
        project = self.judging.project
        self.judging.detach()
        if project is not None:
            project.close()
        self.pairs.set_project(None)
        self._show_nothing()

    def refresh_checkers(self) -> None:
        project = self.project
        assert project is not None
        names = project.checker_names()
        self.judging.display_names = names
        versions = project.current_versions()
        grains = project.checker_grains()
        wanted = self.checker or self.settings.get(S.CHECKER)
        if wanted not in names:
            # An arc checker shows both grains (arcs and sentence means): prefer the latest one.
            arc_level = [n for n in names if grains.get(n) == "arc"]
            wanted = arc_level[-1] if arc_level else next(reversed(names), "")
        self.checker_box.blockSignals(True)
        self.checker_box.clear()
        for name, display in names.items():
            self.checker_box.addItem(f"{display} (v{versions.get(name, '?')})", name)
            if name in versions:  # which device and precision scored what
                places = project.runs_on(name, versions[name])
                where = ", ".join(f"{p} ({n} pairs)" for p, n in places.items())
                self.checker_box.setItemData(
                    self.checker_box.count() - 1,
                    f"scored on {where}" if where else "nothing scored yet",
                    Qt.ItemDataRole.ToolTipRole,
                )
        i = self.checker_box.findData(wanted)
        self.checker_box.setCurrentIndex(i if i >= 0 else self.checker_box.count() - 1)
        self.checker_box.blockSignals(False)
        checker = self.checker_box.currentData()
        self.judging.set_checker(
            checker,
            versions.get(checker) if checker else None,
            names.get(checker, "") if checker else "",
        )
        self.model.checker_label = self.checker_label
        self.model.arcs_shown = grains.get(checker or "", "arc") == "arc"
        self.show_checker()

    def show_checker(self) -> None:
        self.checker_note.setText(
            f"Lowest / Arcs columns: {self.checker_label}, threshold {self.threshold.value():.2f}"
            if self.checker_label
            else "Not analysed yet: Analysis ▸ Analyse (Ctrl+R)"
        )

    def _refresh_filters_choices(self) -> None:
        self.pairs.set_project(self.project)

    def reload_rows(self) -> None:
        self.pairs.reload(self.checker, self.version, self.threshold.value())

    def _refresh_pairs(self, ids: list[int], *, scores: bool = True) -> None:
        """Refresh these rows; ``scores=False`` after a judgment, which leaves scores alone."""
        self.pairs.refresh(ids, self.checker, self.version, self.threshold.value(), scores=scores)

    def _update_count(self) -> None:
        self.pairs.update_count()

    # ================================================================== selection
    def _select_first(self) -> None:
        self.pairs.select_first()

    def select_pair(self, output_id: int) -> None:
        if self.model.row_for(output_id) is None:
            return
        if not self.pairs.select(output_id):
            self.show_pair(output_id)  # hidden by the filters: shown all the same

    def show_pair(self, output_id: int) -> None:
        """Load one pair's detail and draw it; the keyboard starts on its first item."""
        if self.project is None:
            return  # a late signal after the project was closed
        self.pairs.shown_id = output_id
        self.judging.show_pair(output_id)
        self.claims.request()

    def _step_pair(self, step: int) -> bool:
        return self.pairs.step(step)

    def _show_nothing(self) -> None:
        self.judging.clear_pair()
        self.pairs.shown_id = None
        self.view.show_nothing(self.project is not None)

    def redraw(self) -> None:
        if self.bundle is None:
            self._show_nothing()
        else:
            self.view.draw(self.judging)

    def _redraw_header(self) -> None:
        if self.bundle is not None:
            self.view.render_header(self.judging)

    def _show_saved(self, text: str) -> None:
        self.saved_label.setText(f"✔ {text}")

    def _revisit(self, output_id: int) -> None:
        """Undo or redo changed another pair: show it, so the change is seen."""
        self.select_pair(output_id)
        if self.current_output_id() != output_id:
            self.show_pair(output_id)

    def _arc_clicked(self, arc_id: int) -> None:
        if self.judging.select_arc(arc_id):
            self.output_view.setFocus()  # the judging keys act on the clicked arc at once

    # ================================================================== reviewer
    @property
    def reviewer(self) -> str:
        """Whose judgments the window records, shows and undoes."""
        return self.settings.get(S.REVIEWER) or default_annotator()

    def _confirmed(self) -> bool:
        return bool(self.settings.get(S.REVIEWER))

    def set_reviewer(self, name: str) -> None:
        """Judge as ``name`` from now on (see :func:`app.gui.reviewer.switch_reviewer`)."""
        switch_reviewer(self, name)

    def reviewer_dialog(self) -> None:
        name = ask_reviewer_name(self, self.reviewer)
        if name is not None:
            self.set_reviewer(name)

    # ================================================================== modes
    def _modes_changed(self) -> None:
        """The controller changed a mode: the menus mirror it and the settings keep it."""
        for action, on in ((self.blind_action, self.blind), (self.ais_action, self.ais_mode)):
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)
        if self.settings.get(S.BLIND) != self.blind:
            self.settings.set(S.BLIND, self.blind)
        self._hide_scores()

    def _hide_scores(self) -> None:
        """Blind and AIS modes: no model score in the list, nor a filter that would reveal one.

        In AIS mode every pair starts at stage 1 (model hidden), so the list hides the scores
        for the whole mode.
        """
        hidden = self.blind or self.ais_mode
        self.model.set_scores_hidden(hidden)
        for box in (self.score_min, self.score_max):
            box.setEnabled(not hidden)
        self.proxy.set_filters()  # the score range applies only while scores show
        self._update_count()

    def toggle_blind(self) -> None:
        self.judging.set_blind(self.blind_action.isChecked())

    def toggle_ais(self) -> None:
        self.judging.set_ais(self.ais_action.isChecked())

    def set_level(self, level: str) -> None:
        self.judging.set_level(level)

    def _toggle_advance(self) -> None:
        self.judging.advance = self.advance_action.isChecked()
        self.settings.set(S.ADVANCE, self.judging.advance)

    # ================================================================== checker, threshold
    def _checker_changed(self) -> None:
        checker = self.checker_box.currentData()
        project = self.project
        if project is not None and checker:
            self.judging.set_checker(
                checker,
                project.current_versions().get(checker),
                project.checker_names().get(checker, ""),
            )
            self.model.checker_label = self.checker_label
            self.model.arcs_shown = project.checker_grains().get(checker) == "arc"
            self.settings.set(S.CHECKER, checker)
            self.show_checker()
        else:
            self.judging.set_checker(checker, self.version, self.checker_label)
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self.show_pair(oid)

    def _threshold_edited(self, value: float) -> None:
        self.judging.set_threshold(value)
        self._threshold_timer.start()

    def _threshold_changed(self) -> None:
        self.judging.set_threshold(self.threshold.value())
        self.settings.set(S.THRESHOLD, self.threshold.value())
        self.show_checker()
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self.judging.build_units()
            self.judging.redraw()

    # ================================================================== analysis
    def start_analysis(
        self,
        checkers: list[str] | None = None,
        device: str = "auto",
        model_dir: str | None = None,
    ) -> None:
        """Score every pair not yet scored; results appear as chunks are committed.

        Args:
            checkers: registry names; None runs the default checkers.
            device: "auto", "cpu" or "cuda".
            model_dir: a user's model directory, given to the checkers of this run.
        """
        if self.project is None:
            self.statusBar().showMessage(
                "No project to analyse: open one first (File ▸ Open project, Ctrl+O)", 8000
            )
            return
        if self.analysis.busy():
            self.statusBar().showMessage(
                "An analysis is already running: wait for it, or Cancel it (status bar) first",
                8000,
            )
            return
        if checkers is None:
            from models.registry import default_checkers

            checkers = default_checkers()
        self.analysis.start(str(self.project.path), checkers, device, model_dir)

    def _fill_checker_menu(self) -> None:
        fill_checker_menu(self.checker_menu, self.start_analysis)
        self.checker_menu.setEnabled(self.project is not None)

    def nli_dir_dialog(self) -> None:
        """Ask for a Hugging Face NLI model folder and run the 'nli' checker with it."""
        if self.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Own NLI model directory")
        if folder:
            self.start_analysis(["nli"], model_dir=folder)

    def _analysis_chunk(self, ids: list[int]) -> None:
        project = self.project
        if project is None:
            return
        if not self.checker or self.checker_box.count() != len(project.checker_names()):
            oid = self.current_output_id()
            self.refresh_checkers()
            self.reload_rows()
            if oid is not None:
                self.select_pair(oid)
        else:
            self._refresh_pairs(ids)
        oid = self.current_output_id()
        if oid is not None and oid in ids:
            self.judging.reload_pair()

    def _analysis_finished(self) -> None:
        # The Cancel button is hidden now; focus that was there would move on to the search box.
        focus = QApplication.focusWidget()
        if focus is None or focus is self.cancel_button or not focus.isVisible():
            self.output_view.setFocus()

    def _analysis_done(self, report: dict[str, object]) -> None:
        state = "cancelled" if report.get("cancelled") else "done"
        self.statusBar().showMessage(
            f"Analysis {state}: {report.get('pairs_scored', 0)} pairs scored, "
            f"{report.get('not_checked', 0)} sentences not checked",
            8000,
        )
        if self.project is not None:
            oid = self.current_output_id()
            shown = (self.checker, self.version)
            self.refresh_checkers()
            if (self.checker, self.version) == shown:
                # Each committed chunk has refreshed its rows and the pair on screen already:
                # a reload would only read them again (a long stall on a large project).
                self.learning.follow()  # the queue and the calibration see the new scores
                return
            self.reload_rows()
            if oid is not None:
                self.select_pair(oid)
                self.show_pair(oid)

    # ================================================================== dialogs
    def new_project_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "New project", "", "FactDesk projects (*.factdesk)"
        )
        if path:
            try:
                Project.create(path).close()
                self.open_project(path if path.endswith(".factdesk") else path + ".factdesk")
            except Exception as err:  # noqa: BLE001 - one handler shows every error
                self.show_error(err)

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open project", "", "FactDesk projects (*.factdesk)"
        )
        if path:
            self._open_guarded(path)

    def _open_guarded(self, path: str) -> None:
        try:
            self.open_project(path)
        except Exception as err:  # noqa: BLE001 - one handler shows every error
            self.show_error(err)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for p in self.settings.get(S.RECENT):

            def open_recent(path: str = p) -> None:
                self._open_guarded(path)

            self.recent_menu.addAction(menu_text(p), open_recent)
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    def open_demo(self) -> None:
        from app.demo import demo_project_path

        self.analysis.prepare_demo(str(demo_project_path()), self._open_guarded)

    def relabel_dialog(self) -> None:
        if self.project is None or self.current_unit() is None:
            return
        from app.gui.dialogs import RelabelDialog

        dlg = RelabelDialog(self.project.taxonomy(), self.judging.current_judgment(), self)
        if dlg.exec():
            self.relabel(*dlg.values())

    def import_dialog(self) -> None:
        if self.project is None:
            return
        from app.gui.dialogs import ImportDialog

        ImportDialog(str(self.project.path), self.runner, self._after_import, self).exec()

    def _after_import(self) -> None:
        """New pairs were imported: new filter choices and rows."""
        self.pairs.set_project(self.project)
        self.reload_rows()
        if self.bundle is None:
            self.pairs.select_first()

    def export_dialog(self) -> None:
        if self.project is None:
            return
        from app.gui.dialogs import ExportDialog

        ExportDialog(str(self.project.path), self.runner, self).exec()

    def merge_dialog(self) -> None:
        from app.gui.merging import ask_merge_files

        if self.project is not None:
            self.merge_files(ask_merge_files(self))

    def merge_files(self, files: list[str]) -> None:
        """Merge other reviewers' files into the open project (File ▸ Merge judgments from…)."""
        from app.gui.merging import merge_into_window

        merge_into_window(self, files)

    def toggle_unfamiliar_first(self) -> None:
        from app.gui.familiarity import toggle_unfamiliar_first

        toggle_unfamiliar_first(self, self.actions_["unfamiliar_first"].isChecked())

    def export_report_dialog(self) -> None:
        from app.gui.report import export_report

        export_report(self)

    def show_stats(self) -> None:
        if self.project is None:
            return
        from app.gui.stats import StatsDialog

        StatsDialog(
            self.project,
            self.checker,
            self.version,
            self.checker_label,
            self.threshold.value(),
            self,
        ).exec()

    def show_keys(self) -> None:
        """The keyboard dialog: see every judging key and remap it (kept in the settings)."""
        from app.gui.keys import KeysDialog

        dialog = KeysDialog(self.keys_text, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.remap_keys(dialog.keys())

    def remap_keys(self, keys: dict[str, str]) -> None:
        """Store a new key map and use it at once."""
        for action, key in keys.items():
            self.settings.set_key(action, key)
        self.judging.set_keys(self.settings.keymap())
        show_key_hints(self.actions_, self.keys_text)
        if self.bundle is not None:
            self.view.render_header(self.judging)

    def show_error(self, err: BaseException) -> None:
        """The one place errors reach the user."""
        self.statusBar().showMessage(f"Error: {err}", 10000)
        if QApplication.platformName() != "offscreen":
            box = QMessageBox(QMessageBox.Icon.Warning, "FactDesk", str(err), parent=self)
            box.setTextFormat(Qt.TextFormat.PlainText)  # messages quote paths, ids and fields
            box.exec()

    # ================================================================== view
    def zoom(self, step: int) -> None:
        self.apply_font_size(max(6, min(40, self.settings.get(S.FONT_SIZE) + step)))

    def apply_font_size(self, size: int) -> None:
        self.settings.set(S.FONT_SIZE, size)
        self.view.set_font_size(size)
        font = self.table.font()
        font.setPointSize(max(6, size - 1))
        self.table.setFont(font)
        if self.bundle is not None:
            self.redraw()

    def toggle_dark(self) -> None:
        self.settings.set(S.DARK, self.dark_action.isChecked())
        # The running application is a QApplication; instance() is typed as its QCoreApplication base.
        theme.apply(cast(QApplication, QApplication.instance()), self.dark_action.isChecked())
        # A new style and style sheet give every widget the application font again.
        self.apply_font_size(self.settings.get(S.FONT_SIZE))

    def _splitters(self) -> tuple[tuple[S.Setting[QByteArray], QSplitter], ...]:
        """The splitters whose positions are kept between sessions, with their settings."""
        return (
            (S.SPLITTER, self.text_split),
            (S.ARC_SPLITTER, self.arc_split),
            (S.MAIN_SPLITTER, self.main_split),
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel and join every worker, save the geometry, close the project."""
        self.keys.stop()
        self.runner.shutdown()
        self.settings.set(S.GEOMETRY, self.saveGeometry())
        for setting, splitter in self._splitters():
            self.settings.set(setting, splitter.saveState())
        self.settings.sync()
        self._threshold_timer.stop()
        self._remember_pair()
        project = self.judging.project
        if project is not None:
            self.judging.detach()
            self.pairs.set_project(None)
            project.close()
        super().closeEvent(event)


def run(project_path: str | None, *, demo: bool = False) -> int:
    """Open the window (on a project when given) and run the event loop until it closes.

    Args:
        project_path: a project file to open, or None for an empty window.
        demo: the project is the demo project (the CLI builds it and passes its path); with no
            path, the window builds the demo project itself.
    """
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("FactDesk")
    app.setOrganizationName("FactDesk")
    settings = Settings()
    theme.apply(app, settings.get(S.DARK))
    window = MainWindow(settings)
    window.show()
    if project_path:
        window._open_guarded(project_path)
    elif demo:
        window.open_demo()
    return app.exec()
