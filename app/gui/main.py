"""The review window, a thin shell that assembles the rooms, and its entry point :func:`run`.

:class:`MainWindow` builds the widgets, menus and docks and connects their signals; it holds no
logic of its own. The rooms:

- :mod:`app.gui.session`: the review session (open project, checker and threshold shown, the
  pair on screen, the error handler); the host every panel is given (:mod:`app.gui.host`);
- :mod:`app.gui.judging`: the judging controller (keys to store writes and undo, no widgets);
- :mod:`app.gui.pairlist` (the pair list and its column), :mod:`app.gui.pairview` (the pair);
- :mod:`app.gui.actions`: menus and toolbar, declared once; their slots live in
  :mod:`app.gui.files` (File), :mod:`app.gui.review_menu` (dialogs), :mod:`app.gui.modes`
  (blind, AIS, advance), :mod:`app.gui.viewprefs` (zoom, theme, geometry, splitters) and
  :mod:`app.gui.analysis` (analysis jobs and what follows their results);
- the panels: :mod:`app.gui.reviewer`, :mod:`app.gui.adjudication`, :mod:`app.gui.learning`,
  :mod:`app.gui.help`, :mod:`app.gui.merging`, :mod:`app.gui.report`, :mod:`app.gui.familiarity`.

A new feature adds a module and a few lines of wiring here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QMainWindow,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app import settings as S
from app.gui import theme
from app.gui.actions import build_actions, show_key_hints
from app.gui.add_pair import AddPair
from app.gui.adjudication import AdjudicationMode
from app.gui.analysis import AnalysisMenu, AnalysisPanel
from app.gui.files import FileMenu
from app.gui.help import HelpMenu
from app.gui.judging import LEVELS, JudgingController, Unit
from app.gui.keyrouter import KeyRouter
from app.gui.learning import LearningPanel
from app.gui.modes import Modes
from app.gui.pairlist import ListColumn, PairList, combo
from app.gui.pairview import PairView
from app.gui.plaintext import plain_label
from app.gui.remove_pair import RemovePair
from app.gui.review_menu import ReviewMenu
from app.gui.reviewer import Reviewer
from app.gui.session import ReviewSession
from app.gui.viewprefs import ViewPrefs
from app.item_models import icon
from app.settings import Settings
from app.tasks import TaskRunner

__all__ = ["LEVELS", "MainWindow", "Unit", "run"]


class MainWindow(QMainWindow):
    """The review window: pair list, source and output side by side, keyboard judging."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.runner = TaskRunner(self)
        self.judging = JudgingController(self)
        self.judging.threshold = self.settings.get(S.THRESHOLD)
        self.undo_stack: QUndoStack = self.judging.undo_stack
        self.setWindowTitle("FactDesk")
        self.setWindowIcon(icon("app"))
        self._build()
        self._wire()
        self.modes.hide_scores()
        self.judging.set_keys(self.settings.keymap())
        show_key_hints(self.actions_, self.judging.keys_text)
        self.prefs.restore()
        self.session.show_nothing()

    def _build(self) -> None:
        self.pairs = PairList()
        self.view = PairView()
        # The pair list's column: panels that need room (adjudication) go under the list, so
        # the texts keep theirs.
        self.left_split = ListColumn(self.pairs)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("main_split")
        self.main_split.addWidget(self.left_split)
        self.main_split.addWidget(self.view)
        self.main_split.setStretchFactor(1, 3)
        self.main_split.setSizes([520, 980])

        # ---- toolbar: which checker's scores are shown, and the flagging threshold
        tb = QToolBar("Review")
        tb.setObjectName("review_toolbar")
        self.addToolBar(tb)
        self.checker_box = combo("Checker shown", [])
        # The box is filled after it is first shown: size it to its entries every time.
        self.checker_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        tb.addWidget(QLabel(" Checker "))
        tb.addWidget(self.checker_box)
        # Three decimals: a calibrated threshold is shown as fitted.
        self.threshold = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=3)
        self.threshold.setAccessibleName("Flagging threshold")
        self.threshold.setToolTip("Scores below the threshold count as not supported")
        self.threshold.setValue(self.settings.get(S.THRESHOLD))
        tb.addWidget(QLabel(" Threshold "))
        tb.addWidget(self.threshold)
        self.session = ReviewSession(
            self,
            self.settings,
            self.runner,
            self.judging,
            self.left_split,
            self.view,
            self.checker_box,
            self.threshold,
        )
        self.claims = self.session.claims
        self.learning = LearningPanel(self.session)  # calibration, queue order, adaptation
        self.help = HelpMenu(self.session)  # the guide and About (Help menu)
        tb.addWidget(self.learning.calibration_label)
        tb.addSeparator()

        # ---- the reviewer's name is asked once, by a bar above the window's rooms
        self.reviewer = Reviewer(self.session)
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.addWidget(self.reviewer.bar)
        central_lay.addWidget(self.main_split, 1)
        self.setCentralWidget(central)

        # ---- status bar
        self.analysis = AnalysisPanel(self.runner, self)
        self.saved_label = plain_label(QLabel())  # says which label was saved
        self.saved_label.setAccessibleName("Save state")
        self.statusBar().addWidget(self.saved_label, 1)
        self.statusBar().addPermanentWidget(self.reviewer.label)
        self.statusBar().addPermanentWidget(self.analysis.progress)
        self.statusBar().addPermanentWidget(self.analysis.cancel_button)

        # ---- the rooms behind the menus, then the menus and toolbar
        self.modes = Modes(self.judging, self.settings, self.pairs, self.session.action)
        self.files = FileMenu(self.session, self.analysis)
        self.merging = self.files.merging
        self.review_menu = ReviewMenu(self.session)
        self.analysis_menu = AnalysisMenu(self.session, self.analysis, self.learning.follow)
        self.prefs = ViewPrefs(self, self.session, self.main_split)
        self.adjudication = AdjudicationMode(self.session)
        self.adding = AddPair(
            self.session, self.analysis_menu.start, self.analysis.busy, self.files.new_project
        )
        self.removing = RemovePair(self.session)
        slots: dict[str, Callable[[], object]] = {
            "new_project": self.files.new_project,
            "open_project": self.files.open_project,
            "open_demo": self.files.open_demo,
            "import": self.files.import_,
            "add_pair": self.adding.ask,
            "remove_pair": self.removing.ask,
            "export": self.files.export,
            "merge": self.merging.ask,
            "export_report": self.files.export_report,
            "quit": self.close,
            "find": self.pairs.focus_search,
            "blind": self.modes.toggle_blind,
            "ais": self.modes.toggle_ais,
            "advance": self.modes.toggle_advance,
            "unfamiliar_first": self.review_menu.toggle_unfamiliar_first,
            "relabel": self.review_menu.relabel_dialog,
            "keys": self.review_menu.show_keys,
            "reviewer": self.reviewer.ask,
            "adjudicate": self.adjudication.toggle,
            "analyse": self.analysis_menu.start,
            "analyse_nli_dir": self.analysis_menu.nli_dir_dialog,
            "cancel_analysis": self.analysis.cancel,
            "stats": self.review_menu.show_stats,
            "zoom_in": partial(self.prefs.zoom, 1),
            "zoom_out": partial(self.prefs.zoom, -1),
            "dark": self.prefs.toggle_dark,
            **self.learning.slots(),
            **self.help.slots(),
        }
        self.actions_ = build_actions(self, slots, self.undo_stack, tb)
        self.session.use_actions(self.actions_)
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
        j, session = self.judging, self.session
        j.updated.connect(session.redraw)
        j.saved.connect(lambda text: self.saved_label.setText(f"✔ {text}"))
        j.message.connect(self.statusBar().showMessage)
        j.judged.connect(session.judged)
        j.modes_changed.connect(self.modes.changed)
        j.revisit.connect(session.revisit)
        self.pairs.pair_selected.connect(session.show_pair)
        self.pairs.emptied.connect(session.show_nothing)
        self.view.sentence_clicked.connect(j.select_sentence)
        self.view.arc_clicked.connect(session.arc_clicked)
        self.checker_box.currentIndexChanged.connect(session.checker_changed)
        self.threshold.valueChanged.connect(session.threshold_box_moved)
        self.recent_menu.aboutToShow.connect(partial(self.files.fill_recent, self.recent_menu))
        self.checker_menu.aboutToShow.connect(
            partial(self.analysis_menu.fill_checker_menu, self.checker_menu)
        )
        self.keys = KeyRouter(self, j, self.output_view, self.search, self.statusBar().showMessage)
        self.learning.wire()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel and join every worker, save the geometry, close the project."""
        self.keys.stop()
        self.runner.shutdown()
        self.prefs.save()
        self.session.shutdown()
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
        window.files.open_guarded(project_path)
    elif demo:
        window.files.open_demo()
    return app.exec()
