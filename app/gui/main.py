"""The review window and its entry point :func:`run`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import cast

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QKeyCombination,
    QModelIndex,
    QObject,
    Qt,
    QTimer,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QKeyEvent,
    QKeySequence,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextEdit,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app import settings as S
from app.gui import theme
from app.gui.arcview import ArcItem, ArcView
from app.gui.jobs import AnalysisRequest, DemoRequest, build_demo, run_analysis
from app.gui.queries import STATUSES, list_rows, search_ids
from app.gui.textview import (
    ArcMark,
    MarkedText,
    SentenceMark,
    render_output,
    render_source,
    set_font_size,
)
from app.gui.undo import JudgeCommand, rebuild
from app.io.bundles import PairBundle, load_bundles
from app.item_models import OutputIdRole, PairFilterProxy, PairTableModel, icon
from app.settings import Settings
from app.store import Change, JudgmentKey, JudgmentValue, Project
from app.store.schema import ArcRow, PairScoreRow, SentenceScoreRow
from app.tasks import Job, TaskRunner

LEVELS = ("sentence", "arc", "pair")


@dataclass(frozen=True)
class Unit:
    """The item under the keyboard: a sentence, an arc or the whole pair."""

    key: JudgmentKey
    score: float | None
    title: str
    number: int | None = None  # arc number or sentence index


class MainWindow(QMainWindow):
    """The review window: pair list, source and output side by side, keyboard judging."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.project: Project | None = None
        self.runner = TaskRunner(self)
        self.undo_stack = QUndoStack(self)
        self.bundle: PairBundle | None = None
        self.judg: dict[tuple[str, str], JudgmentValue] = {}
        self.units: list[Unit] = []
        self.unit = 0
        self.level = "sentence"
        self.ais_mode = False
        self.ais_stage = 1
        self.checker: str | None = None
        self.version: str | None = None
        self.checker_label = ""
        self.last_saved: str | None = None
        self._quiet = False
        self._search_timer = QTimer(self, singleShot=True, interval=250)
        self._search_timer.timeout.connect(self._apply_search)
        self._threshold_timer = QTimer(self, singleShot=True, interval=200)
        self._threshold_timer.timeout.connect(self._threshold_changed)
        self.setWindowTitle("FactDesk")
        self.setWindowIcon(icon("app"))
        self._build()
        self._load_keymap()
        self.apply_font_size(self.settings.get(S.FONT_SIZE))
        geometry = self.settings.get(S.GEOMETRY)
        if not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 850)
        split = self.settings.get(S.SPLITTER)
        if not split.isEmpty():
            self.text_split.restoreState(split)
        self._show_nothing()

    # ================================================================== building
    def _build(self) -> None:
        self.model = PairTableModel(self)
        self.proxy = PairFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        # ---- filters
        self.status_filter = self._combo("Status filter", ["any status", *STATUSES])
        self.system_filter = self._combo("System filter", ["any system"])
        self.label_filter = self._combo(
            "Label filter", ["any label", "supported", "unsupported", "unlabelled"]
        )
        self.error_filter = self._combo("Error type filter", ["any error type"])
        self.score_min = self._spin("Lowest support at least", 0.0)
        self.score_max = self._spin("Lowest support at most", 1.0)
        self.search = QLineEdit(placeholderText="Search source and output…")
        self.search.setAccessibleName("Search source and output")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        for w in (self.status_filter, self.system_filter, self.label_filter, self.error_filter):
            w.currentIndexChanged.connect(self._filters_changed)
        for s in (self.score_min, self.score_max):
            s.valueChanged.connect(self._filters_changed)

        self.table = QTableView()
        self.table.setAccessibleName("Pair list")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # Interactive, not ResizeToContents: the latter measures every row on each change.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((90, 120, 120, 70, 50)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.count_label = QLabel()
        self.checker_note = QLabel()
        self.checker_note.setAccessibleName("Checker whose scores are listed")

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(4, 4, 4, 4)
        lv.addWidget(self.search)
        row1 = QHBoxLayout()
        row1.addWidget(self.status_filter)
        row1.addWidget(self.system_filter)
        lv.addLayout(row1)
        row2 = QHBoxLayout()
        row2.addWidget(self.label_filter)
        row2.addWidget(self.error_filter)
        lv.addLayout(row2)
        row3 = QHBoxLayout()
        row3.addWidget(QLabel("Lowest support"))
        row3.addWidget(self.score_min)
        row3.addWidget(QLabel("to"))
        row3.addWidget(self.score_max)
        lv.addLayout(row3)
        lv.addWidget(self.checker_note)
        lv.addWidget(self.table, 1)
        lv.addWidget(self.count_label)

        # ---- texts
        self.header = QLabel()
        self.header.setAccessibleName("Pair header")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt = QLabel()
        self.prompt.setAccessibleName("Judging prompt")
        self.prompt.setWordWrap(True)
        self.prompt.setObjectName("prompt")
        self.source_view = MarkedText("Source text")
        self.output_view = MarkedText("Output text")
        self.output_view.sentence_clicked.connect(self._sentence_clicked)
        self.arc_view = ArcView()
        self.arc_view.arc_clicked.connect(self._arc_clicked)
        self.arc_sentence: int | None = None  # sentence id the arc diagram shows
        self.source_box = self._titled("Source", self.source_view)
        self.output_title = QLabel("Output")
        out_box = QWidget()
        ov = QVBoxLayout(out_box)
        ov.setContentsMargins(0, 0, 0, 0)
        ov.addWidget(self.output_title)
        ov.addWidget(self.output_view)
        source_title = self.source_box.findChild(QLabel)
        assert source_title is not None
        self.source_title: QLabel = source_title
        self.text_split = QSplitter(Qt.Orientation.Horizontal)
        self.text_split.addWidget(self.source_box)
        self.text_split.addWidget(out_box)
        self.legend = QLabel(
            "Marks: ✔ supported (green)  ✘ unsupported (red, wavy underline)  "
            "? not checked (grey, dotted, italic)  "
            "underlined purple words with numbers: non-entailed arcs  ▸ evidence (yellow, dashed)  "
            "arc diagram: ✘ red dashed arcs are not entailed (click one to judge it)"
        )
        self.legend.setWordWrap(True)
        self.legend.setObjectName("legend")
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(4, 4, 4, 4)
        rv.addWidget(self.header)
        rv.addWidget(self.prompt)
        rv.addWidget(self.text_split, 1)
        rv.addWidget(self.arc_view)  # under both panes: long sentences get the full width
        rv.addWidget(self.legend)

        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(left)
        self.main_split.addWidget(right)
        self.main_split.setStretchFactor(1, 3)
        self.main_split.setSizes([520, 980])
        self.setCentralWidget(self.main_split)

        # ---- toolbar
        tb = QToolBar("Review")
        tb.setObjectName("review_toolbar")
        self.addToolBar(tb)
        self.checker_box = self._combo("Checker shown", [])
        self.checker_box.currentIndexChanged.connect(self._checker_changed)
        tb.addWidget(QLabel(" Checker "))
        tb.addWidget(self.checker_box)
        self.threshold = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.threshold.setAccessibleName("Flagging threshold")
        self.threshold.setToolTip("Scores below the threshold count as not supported")
        self.threshold.setValue(self.settings.get(S.THRESHOLD))
        self.threshold.valueChanged.connect(lambda _v: self._threshold_timer.start())
        tb.addWidget(QLabel(" Threshold "))
        tb.addWidget(self.threshold)
        tb.addSeparator()

        # ---- status bar
        self.saved_label = QLabel()
        self.saved_label.setAccessibleName("Save state")
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Analysis progress")
        self.progress.setMaximumWidth(240)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel analysis")
        self.cancel_button.clicked.connect(lambda: self.runner.cancel("model"))
        self.cancel_button.hide()
        self.statusBar().addWidget(self.saved_label, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)

        self._build_menus(tb)
        for watched in (self, self.table, self.source_view, self.output_view, self.search):
            watched.installEventFilter(self)

    def _build_menus(self, tb: QToolBar) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._act(f, "&New project…", QKeySequence.StandardKey.New, self.new_project_dialog)
        self._act(f, "&Open project…", QKeySequence.StandardKey.Open, self.open_project_dialog)
        self.recent_menu = f.addMenu("Recent projects")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._act(f, "Open &demo project", None, self.open_demo)
        f.addSeparator()
        self._act(f, "&Import pairs…", "Ctrl+I", self.import_dialog)
        self._act(f, "&Export…", "Ctrl+E", self.export_dialog)
        f.addSeparator()
        self._act(f, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        e = mb.addMenu("&Edit")
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        e.addAction(undo)
        e.addAction(redo)
        e.addSeparator()
        self._act(e, "Find…", QKeySequence.StandardKey.Find, self._focus_search)
        r = mb.addMenu("&Review")
        self.blind_action = self._act(r, "&Blind mode (hide model marks)", None, self.toggle_blind)
        self.blind_action.setCheckable(True)
        self.blind_action.setChecked(self.settings.get(S.BLIND))
        self.ais_action = self._act(r, "&AIS two-stage mode", None, self.toggle_ais)
        self.ais_action.setCheckable(True)
        self.advance_action = self._act(r, "Decide and ad&vance", None, self._toggle_advance)
        self.advance_action.setCheckable(True)
        self.advance_action.setChecked(self.settings.get(S.ADVANCE))
        self._act(r, "Relabel with error type and note…", None, self.relabel_dialog)
        self._act(r, "Keyboard shortcuts…", "F1", self.show_keys)
        a = mb.addMenu("&Analysis")
        self.analyse_action = self._act(
            a, "&Analyse with default checkers", "Ctrl+R", self.start_analysis
        )
        self.checker_menu = a.addMenu("Analyse &with")
        self.checker_menu.setToolTipsVisible(True)
        self.checker_menu.aboutToShow.connect(self._fill_checker_menu)
        self._act(a, "Analyse with own &NLI model directory…", None, self.nli_dir_dialog)
        self._act(a, "&Cancel analysis", None, lambda: self.runner.cancel("model"))
        v = mb.addMenu("&View")
        self._act(v, "&Statistics…", "Ctrl+T", self.show_stats)
        self._act(v, "Zoom &in", QKeySequence.StandardKey.ZoomIn, lambda: self.zoom(1))
        self._act(v, "Zoom &out", QKeySequence.StandardKey.ZoomOut, lambda: self.zoom(-1))
        self.dark_action = self._act(v, "&Dark theme", None, self.toggle_dark)
        self.dark_action.setCheckable(True)
        self.dark_action.setChecked(self.settings.get(S.DARK))
        tb.addAction(self.analyse_action)
        tb.addAction(undo)
        tb.addAction(redo)
        tb.addAction(self.blind_action)
        tb.addAction(self.ais_action)

    def _act(
        self,
        menu: QMenu,
        text: str,
        shortcut: QKeySequence.StandardKey | str | None,
        slot: Callable[[], object],
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _combo(self, name: str, items: list[str]) -> QComboBox:
        box = QComboBox()
        box.setAccessibleName(name)
        box.addItems(items)
        return box

    def _spin(self, name: str, value: float) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        spin.setAccessibleName(name)
        spin.setValue(value)
        return spin

    def _titled(self, title: str, widget: QWidget) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel(title))
        lay.addWidget(widget)
        return box

    # ================================================================== project
    def open_project(self, path: str | Path) -> None:
        """Open a project file in the window (closing the current one)."""
        self.close_project()
        self.project = Project.open(path)
        self.settings.add_recent(str(Path(path).resolve()))
        self.setWindowTitle(f"FactDesk — {Path(path).name}")
        rebuild(self.undo_stack, self.project, self._changed)
        self._refresh_checkers()
        self._refresh_filters_choices()
        self.reload_rows()
        self._select_first()
        self._set_saved("All decisions saved")
        self.output_view.setFocus()  # keyboard judging starts at once

    def close_project(self) -> None:
        self.runner.cancel("model")
        self.runner.wait_idle()
        self.undo_stack.clear()
        if self.project is not None:
            self.project.close()
        self.project = None
        self.bundle = None
        self.model.reset_rows([])
        self._show_nothing()

    def _refresh_checkers(self) -> None:
        assert self.project is not None
        names = self.project.checker_names()
        versions = self.project.current_versions()
        grains = self.project.checker_grains()
        wanted = self.checker or self.settings.get(S.CHECKER)
        if wanted not in names:
            # An arc checker shows both grains (arcs and sentence means): prefer the latest one.
            arc_level = [n for n in names if grains.get(n) == "arc"]
            wanted = arc_level[-1] if arc_level else next(reversed(names), "")
        self.checker_box.blockSignals(True)
        self.checker_box.clear()
        for name, display in names.items():
            self.checker_box.addItem(f"{display} (v{versions.get(name, '?')})", name)
        i = self.checker_box.findData(wanted)
        self.checker_box.setCurrentIndex(i if i >= 0 else self.checker_box.count() - 1)
        self.checker_box.blockSignals(False)
        self.checker = self.checker_box.currentData()
        self.version = versions.get(self.checker) if self.checker else None
        self.checker_label = names.get(self.checker, "") if self.checker else ""
        self.model.checker_label = self.checker_label
        self.model.arcs_shown = grains.get(self.checker or "", "arc") == "arc"
        self._show_checker()

    def _show_checker(self) -> None:
        self.checker_note.setText(
            f"Lowest / Arcs columns: {self.checker_label}, threshold {self.threshold.value():.2f}"
            if self.checker_label
            else "Not analysed yet: Analysis ▸ Analyse (Ctrl+R)"
        )

    def _refresh_filters_choices(self) -> None:
        assert self.project is not None
        for box, items in (
            (self.system_filter, self.project.systems()),
            (self.error_filter, [t["key"] for t in self.project.taxonomy()]),
        ):
            box.blockSignals(True)
            while box.count() > 1:
                box.removeItem(1)
            box.addItems(items)
            box.blockSignals(False)

    def reload_rows(self) -> None:
        if self.project is None:
            return
        rows = list_rows(self.project, self.checker, self.version, self.threshold.value())
        self.model.reset_rows(rows)
        self._update_count()

    def _refresh_pairs(self, ids: list[int], *, scores: bool = True) -> None:
        """Refresh these rows; ``scores=False`` after a judgment, which leaves scores alone."""
        if self.project is None or not ids:
            return
        if scores:
            rows = list_rows(self.project, self.checker, self.version, self.threshold.value(), ids)
        else:
            rows = []
            for new in list_rows(self.project, None, None, self.threshold.value(), ids):
                old = self.model.row_by_id(new.row.output_id)
                if old is not None:
                    new = replace(
                        new,
                        row=replace(
                            new.row,
                            lowest_support=old.row.lowest_support,
                            flagged_arcs=old.row.flagged_arcs,
                        ),
                    )
                rows.append(new)
        self.model.update_rows(rows)
        self._update_count()

    def _update_count(self) -> None:
        self.count_label.setText(f"{self.proxy.rowCount()} shown of {self.model.total()} pairs")

    # ================================================================== selection
    def _select_first(self) -> None:
        if self.proxy.rowCount() > 0:
            self.table.setCurrentIndex(self.proxy.index(0, 0))
        else:
            self._show_nothing()

    def select_pair(self, output_id: int) -> None:
        row = self.model.row_for(output_id)
        if row is None:
            return
        pidx = self.proxy.mapFromSource(self.model.index(row, 0))
        if pidx.isValid():
            self.table.selectionModel().setCurrentIndex(
                pidx,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.table.scrollTo(pidx)
        else:
            self.show_pair(output_id)

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        oid = current.data(OutputIdRole)
        if self.bundle is None or self.bundle.output.id != oid:
            self.show_pair(oid)

    def current_output_id(self) -> int | None:
        return None if self.bundle is None else self.bundle.output.id

    def show_pair(self, output_id: int) -> None:
        """Load one pair's detail and draw it; the keyboard starts on its first item."""
        assert self.project is not None
        self.bundle = load_bundles(self.project, [output_id])[0]
        self._load_judgments()
        self.ais_stage = 1
        self.unit = 0
        self._build_units()
        self.redraw()

    def _load_judgments(self) -> None:
        assert self.bundle is not None and self.project is not None
        self.judg = {}
        for j in self.project.judgments(self.bundle.output.id):
            self.judg[(j.target_key, j.aspect)] = JudgmentValue(
                j.label, j.decision, j.error_type, j.note, j.model_visible, j.model_score
            )

    def _show_nothing(self) -> None:
        self.bundle = None
        self.units = []
        self.header.setText(
            "No project open: File ▸ Open project (Ctrl+O), New project (Ctrl+N) or Open demo project."
            if self.project is None
            else "No pair matches the filters."
        )
        self.prompt.setText("")
        self.source_view.clear()
        self.output_view.clear()
        self.arc_sentence = None
        self.arc_view.diagram.clear()
        self.arc_view.title.setText("Arcs")
        self.arc_view.update_view()

    # ================================================================== scores
    @property
    def blind(self) -> bool:
        return self.blind_action.isChecked()

    def _scores(
        self,
    ) -> tuple[PairScoreRow, dict[int, SentenceScoreRow], dict[int, float]] | None:
        if self.bundle is None or not self.checker:
            return None
        return self.bundle.scores.get(self.checker)

    def _sentence_state(self, sid: int) -> tuple[str | None, float | None, str]:
        sc = self._scores()
        if sc is None:
            return None, None, "not analysed"
        row = sc[1].get(sid)
        if row is None:
            return None, None, "not analysed"
        if row.not_checked:
            return "not_checked", row.score, f"not checked: {row.not_checked}"
        if row.score is None:
            return "not_checked", None, "no score"
        state = "supported" if row.score >= self.threshold.value() else "unsupported"
        tip = f"{self.checker_label}: support {row.score:.2f}"
        if row.min_arc is not None:
            tip += f" (lowest arc {row.min_arc:.2f})"
        if row.evidence:
            tip += " · evidence: source sentence " + ", ".join(str(i + 1) for i in row.evidence[:8])
            if len(row.evidence) > 8:
                tip += ", …"
        if row.omitted:
            tip += f" · {row.omitted} source sentences omitted"
        return state, row.score, tip

    def _flagged_arcs(self) -> list[tuple[int, ArcRow, float]]:
        """(number, arc row, score) for the arcs under the threshold, numbered from 1."""
        sc = self._scores()
        if sc is None or self.bundle is None:
            return []
        thr = self.threshold.value()
        out: list[tuple[int, ArcRow, float]] = []
        for arc in self.bundle.arcs:
            score = sc[2].get(arc.id)
            if score is not None and score < thr:
                out.append((len(out) + 1, arc, score))
        return out

    def _build_units(self) -> None:
        b = self.bundle
        if b is None:
            self.units = []
            return
        oid = b.output.id
        if self.ais_mode or self.level == "pair":
            sc = self._scores()
            pscore = None if sc is None else sc[0].score
            self.units = [Unit(JudgmentKey(oid, "pair"), pscore, "the whole output")]
        elif self.level == "arc" and not self.blind:
            self.units = [
                Unit(
                    JudgmentKey(oid, "arc", sentence_id=arc.sentence_id, arc_id=arc.id),
                    score,
                    f"arc {n}: {arc.label} {arc.head_text} → {arc.child_text}",
                    n,
                )
                for n, arc, score in self._flagged_arcs()
            ]
        else:
            self.units = [
                Unit(
                    JudgmentKey(oid, "sentence", sentence_id=s.id),
                    self._sentence_state(s.id)[1],
                    f"sentence {s.idx + 1} of {len(b.sentences)}",
                    s.idx,
                )
                for s in b.sentences
            ]
        self.unit = max(0, min(self.unit, len(self.units) - 1))

    def current_unit(self) -> Unit | None:
        return self.units[self.unit] if 0 <= self.unit < len(self.units) else None

    # ================================================================== drawing
    def redraw(self) -> None:
        b = self.bundle
        if b is None:
            self._show_nothing()
            return
        blind = self.blind or (self.ais_mode and self.ais_stage == 1)
        unit = self.current_unit()
        cur_sentence = unit.number if unit and unit.key.target == "sentence" else None
        cur_arc = unit.number if unit and unit.key.target == "arc" else None
        marks = []
        for s in b.sentences:
            state, _score, tip = self._sentence_state(s.id)
            human = self.judg.get((f"sentence:{s.id}", "support"))
            marks.append(
                SentenceMark(
                    s.idx,
                    s.start,
                    s.end,
                    None if blind else state,
                    "" if blind else tip,
                    human.label if human else None,
                    human.error_type if human else None,
                )
            )
        arcs = []
        if not blind:
            for n, arc, score in self._flagged_arcs():
                human = self.judg.get((f"arc:{arc.id}", "support"))
                arcs.append(
                    ArcMark(
                        n,
                        arc.id,
                        arc.label,
                        (arc.head_start, arc.head_end),
                        (arc.child_start, arc.child_end),
                        arc.head_text,
                        arc.child_text,
                        score,
                        f"arc {n}: {arc.label}({arc.head_text} → {arc.child_text}) "
                        f"· {self.checker_label} {score:.2f} (not entailed)",
                        human.label if human else None,
                    )
                )
        pos = render_output(self.output_view, b.output.text, marks, arcs, cur_sentence, cur_arc)
        if cur_sentence is not None and cur_sentence in pos.sentence_pos:
            self.output_view.scroll_to(pos.sentence_pos[cur_sentence])
        elif cur_arc is not None and cur_arc in pos.arc_pos:
            self.output_view.scroll_to(pos.arc_pos[cur_arc])
        # source: hidden in AIS stage one; evidence of the current sentence otherwise
        hide_source = self.ais_mode and self.ais_stage == 1
        evidence: set[int] = set()
        if not blind and unit is not None and unit.key.sentence_id is not None:
            sc = self._scores()
            row = None if sc is None else sc[1].get(unit.key.sentence_id)
            if row is not None and row.evidence:
                evidence = set(row.evidence)
        if hide_source:
            self.source_view.setPlainText(
                "(Source hidden: first decide whether the output is interpretable on its own.)"
            )
        else:
            first = render_source(
                self.source_view,
                b.source.text,
                [(s.idx, s.start, s.end) for s in b.source_sentences],
                evidence,
                f"evidence ({self.checker_label})",
            )
            if first is not None:
                self.source_view.scroll_to(first)
        self.source_title.setText("Source" + (" — evidence marked ▸" if evidence else ""))
        self._render_arcs(blind, unit)
        self._render_header()

    def _render_arcs(self, blind: bool, unit: Unit | None) -> None:
        """Draw the arc diagram of the current unit's sentence (kept at pair level)."""
        b = self.bundle
        assert b is not None
        ids = {s.id for s in b.sentences}
        if unit is not None and unit.key.sentence_id is not None:
            self.arc_sentence = unit.key.sentence_id
        elif self.arc_sentence not in ids:
            self.arc_sentence = b.sentences[0].id if b.sentences else None
        view = self.arc_view
        sentence = next((s for s in b.sentences if s.id == self.arc_sentence), None)
        if sentence is None:
            view.diagram.clear("No sentence")
            view.title.setText("Arcs")
            view.update_view()
            return
        sc = self._scores()
        numbers = {arc.id: n for n, arc, _score in self._flagged_arcs()}
        items = [
            ArcItem(
                arc.id,
                arc.label,
                (arc.head_start, arc.head_end),
                (arc.child_start, arc.child_end),
                arc.head_text,
                arc.child_text,
                None if sc is None else sc[2].get(arc.id),
                numbers.get(arc.id),
            )
            for arc in b.arcs
            if arc.sentence_id == sentence.id
        ]
        current = None
        if unit is not None and unit.key.target == "arc":
            current = unit.key.arc_id
        elif view.diagram.current_arc in {i.arc_id for i in items}:
            current = view.diagram.current_arc  # an entailed arc the user clicked
        view.diagram.configure(
            threshold=self.threshold.value(),
            blind=blind,
            current_arc=current,
            checker_label=self.checker_label,
        )
        view.diagram.set_sentence(b.output.text, sentence.start, sentence.end, items)
        flagged = sum(1 for i in items if i.number is not None)
        what = (
            "hidden in blind mode"
            if blind
            else "not analysed"
            if sc is None
            else f"{flagged} of {len(items)} not entailed below {self.threshold.value():.2f}"
        )
        view.title.setText(f"Arcs of sentence {sentence.idx + 1}: {what}")
        view.update_view()

    def _render_header(self) -> None:
        b = self.bundle
        assert b is not None
        flags = " · ⚑ FLAGGED malformed" if ("pair", "flag") in self.judg else ""
        pair_j = self.judg.get(("pair", "support"))
        pj = f" · pair judged: {pair_j.label}" if pair_j else ""
        ctx = f"\n{b.output.context}" if b.output.context else ""
        self.header.setText(
            f"{b.output.external_id} · system: {b.output.system or '—'}{pj}{flags}{ctx}"
        )
        unit = self.current_unit()
        mode = "BLIND · " if self.blind else ""
        k = self.keys_text
        if self.ais_mode:
            if self.ais_stage == 1:
                q = "AIS 1/2: Is the output interpretable on its own? (source hidden)"
                ans = f"{k['accept']} yes · {k['reject']} no"
            else:
                q = "AIS 2/2: Is everything in the output supported by the source?"
                ans = f"{k['accept']} supported · {k['reject']} not supported"
            self.prompt.setText(
                f"{mode}{q}   {ans} · {k['flag']} flag malformed · {k['skip']} skip"
            )
            return
        if unit is None:
            what = "no non-entailed arcs here" if self.level == "arc" else "nothing to judge"
            self.prompt.setText(f"{mode}{self.level} level: {what} · {k['level']} change level")
            return
        current = self.judg.get((unit.key.target_key, "support"))
        done = (
            f" — judged {current.label}"
            + (f" ({current.error_type})" if current and current.error_type else "")
            if current
            else ""
        )
        score = "" if unit.score is None or self.blind else f" · model {unit.score:.2f}"
        self.prompt.setText(
            f"{mode}Judging {unit.title}{score}{done}\n"
            f"{k['accept']} supported · {k['reject']} unsupported · 1–9 error type · "
            f"{k['relabel']} relabel+note · {k['skip']} skip · {k['flag']} flag · "
            f"{k['next']}/{k['prev']} item · {k['next_pair']}/{k['prev_pair']} pair · "
            f"{k['level']} level ({self.level}) · F1 all keys"
        )

    # ================================================================== keyboard
    def _load_keymap(self) -> None:
        self.keys_text = self.settings.keymap()
        self.keymap: dict[int, str] = {}
        for action, text in self.keys_text.items():
            seq = QKeySequence(text)
            if seq.count():
                # QKeySequence supports indexing at runtime; the stubs lack __getitem__.
                self.keymap[seq[0].toCombined()] = action  # type: ignore[index]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.output_view.setFocus()  # back to judging
                return True
            return False
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if self.handle_key(event):
                return True
        return super().eventFilter(watched, event)

    @staticmethod
    def _typing() -> bool:
        """Whether keyboard focus is in a text field (judging keys are then silent)."""
        w = QApplication.focusWidget()
        if isinstance(w, (QLineEdit, QAbstractSpinBox, QPlainTextEdit)):
            return True
        if isinstance(w, QComboBox) and w.isEditable():
            return True
        return isinstance(w, QTextEdit) and not w.isReadOnly()

    def handle_key(self, event: QKeyEvent) -> bool:
        """Run the judging action bound to this key; False when it is not ours."""
        if self.project is None or self._typing():
            return False
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        combo = QKeyCombination(mods, Qt.Key(event.key())).toCombined()
        action = self.keymap.get(combo)
        if action is None:
            if (
                mods == Qt.KeyboardModifier.NoModifier
                and Qt.Key.Key_1 <= event.key() <= Qt.Key.Key_9
            ):
                self.error_type(event.key() - Qt.Key.Key_1)
                return True
            return False
        self.do(action)
        return True

    def do(self, action: str) -> None:
        """Run a named judging action (what the keys are bound to)."""
        handlers = {
            "accept": self.accept_item,
            "reject": self.reject_item,
            "skip": self.skip,
            "flag": self.toggle_flag,
            "relabel": self.relabel_dialog,
            "next": self.next_item,
            "prev": self.prev_item,
            "next_alt": self.next_item,
            "prev_alt": self.prev_item,
            "next_pair": self.next_pair,
            "prev_pair": self.prev_pair,
            "next_pair_alt": self.next_pair,
            "prev_pair_alt": self.prev_pair,
            "level": self.cycle_level,
            "blind": self.toggle_blind_key,
            "ais": self.toggle_ais_key,
            "undo": self.undo_stack.undo,
        }
        handlers[action]()

    # ================================================================== judging
    def judge(self, key: JudgmentKey, value: JudgmentValue | None, *, render: bool = True) -> None:
        """Commit one decision through the undo stack (it is saved at once).

        ``render=False`` when the caller moves on and redraws anyway (one drawing per key).
        """
        assert self.project is not None
        self._quiet = not render
        try:
            self.undo_stack.push(JudgeCommand(self.project, self._changed, key, value))
        finally:
            self._quiet = False

    def _changed(self, change: Change, action: str = "do") -> None:
        """After any commit, undo or redo: refresh what shows it and say it is saved."""
        oid = change.key.output_id
        if self.bundle is not None and self.bundle.output.id == oid and self.project is not None:
            slot = (change.key.target_key, change.key.aspect)
            value = self.project.judgment(change.key)
            if value is None:
                self.judg.pop(slot, None)
            else:
                self.judg[slot] = value
        self._refresh_pairs([oid], scores=False)
        stamp = datetime.now().strftime("%H:%M:%S")
        what = {"do": "", "undo": "undid ", "redo": "redid "}[action]
        self._set_saved(f"Saved {stamp} — {what}{change.describe()}")
        if self.bundle is not None and self.bundle.output.id == oid and not self._quiet:
            self.redraw()

    def _set_saved(self, text: str) -> None:
        self.last_saved = text
        self.saved_label.setText(f"✔ {text}")

    def _value(
        self,
        label: str,
        decision: str,
        unit: Unit | None,
        *,
        error_type: str | None = None,
        note: str | None = None,
    ) -> JudgmentValue:
        return JudgmentValue(
            label=label,
            decision=decision,
            model_visible=not self.blind and not (self.ais_mode and self.ais_stage == 1),
            model_score=None if unit is None else unit.score,
            error_type=error_type,
            note=note,
        )

    def accept_item(self) -> None:
        self._decide(True)

    def reject_item(self) -> None:
        self._decide(False)

    def _decide(self, yes: bool) -> None:
        if self.bundle is None:
            return
        oid = self.bundle.output.id
        if self.ais_mode:
            unit = self.current_unit()
            if self.ais_stage == 1:
                self.judge(
                    JudgmentKey(oid, "pair", aspect="interpretable"),
                    self._value("yes" if yes else "no", "accept" if yes else "reject", unit),
                )
                if yes:
                    self.ais_stage = 2
                    self.redraw()
                else:
                    self.next_pair()  # not interpretable: attribution is not rated
                return
            self.judge(
                JudgmentKey(oid, "pair"),
                self._value(
                    "supported" if yes else "unsupported", "accept" if yes else "reject", unit
                ),
            )
            self.next_pair()
            return
        unit = self.current_unit()
        if unit is None:
            return
        self.judge(
            unit.key,
            self._value("supported" if yes else "unsupported", "accept" if yes else "reject", unit),
            render=False,
        )
        self._advance()

    def error_type(self, n: int) -> None:
        """Relabel the current item as unsupported with the n-th error type of the taxonomy."""
        if self.project is None or self.bundle is None:
            return
        taxonomy = self.project.taxonomy()
        unit = self.current_unit()
        if unit is None or n >= len(taxonomy) or (self.ais_mode and self.ais_stage == 1):
            return
        key = unit.key if not self.ais_mode else JudgmentKey(self.bundle.output.id, "pair")
        self.judge(
            key,
            self._value("unsupported", "relabel", unit, error_type=taxonomy[n]["key"]),
            render=self.ais_mode,
        )
        if self.ais_mode:
            self.next_pair()
        else:
            self._advance()

    def relabel(self, label: str, error_type: str | None, note: str | None) -> None:
        unit = self.current_unit()
        if unit is None:
            return
        self.judge(
            unit.key,
            self._value(label, "relabel", unit, error_type=error_type, note=note or None),
            render=False,
        )
        self._advance()

    def relabel_dialog(self) -> None:
        if self.project is None or self.current_unit() is None:
            return
        from app.gui.dialogs import RelabelDialog

        unit = self.current_unit()
        assert unit is not None
        dlg = RelabelDialog(
            self.project.taxonomy(), self.judg.get((unit.key.target_key, "support")), self
        )
        if dlg.exec():
            self.relabel(*dlg.values())

    def toggle_flag(self) -> None:
        if self.bundle is None:
            return
        key = JudgmentKey(self.bundle.output.id, "pair", aspect="flag")
        if ("pair", "flag") in self.judg:
            self.judge(key, None)
        else:
            self.judge(key, self._value("malformed", "flag", None))
        if self.ais_mode:
            self.next_pair()

    def skip(self) -> None:
        if self.ais_mode:
            self.next_pair()
        else:
            self._advance()

    def _advance(self) -> None:
        if self.advance_action.isChecked():
            self.next_item()
        else:
            self.redraw()

    def next_item(self) -> None:
        if self.unit + 1 < len(self.units):
            self.unit += 1
            self.redraw()
        elif not self._step_pair(+1):
            self.redraw()

    def prev_item(self) -> None:
        if self.unit > 0:
            self.unit -= 1
            self.redraw()
        else:
            self.prev_pair(last=True)

    def next_pair(self) -> None:
        self._step_pair(+1)

    def prev_pair(self, last: bool = False) -> None:
        self._step_pair(-1)
        if last and self.units:
            self.unit = len(self.units) - 1
            self.redraw()

    def _step_pair(self, step: int) -> bool:
        idx = self.table.currentIndex()
        row = idx.row() + step if idx.isValid() else 0
        if row >= self.proxy.rowCount() and self.proxy.canFetchMore(self.proxy.index(-1, -1)):
            self.proxy.fetchMore(self.proxy.index(-1, -1))
        if 0 <= row < self.proxy.rowCount():
            self.table.setCurrentIndex(self.proxy.index(row, 0))
            return True
        self.statusBar().showMessage("No more pairs in this direction", 3000)
        return False

    def cycle_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        if self.level == "arc" and self.blind:
            self.level = "pair"
        self.unit = 0
        self._build_units()
        self.redraw()

    def set_level(self, level: str) -> None:
        self.level = level
        self.unit = 0
        self._build_units()
        self.redraw()

    def _arc_clicked(self, arc_id: int) -> None:
        """An arc clicked in the diagram: a non-entailed one becomes the arc being judged."""
        if self.bundle is None or self.blind:
            return
        if arc_id not in {arc.id for _n, arc, _s in self._flagged_arcs()}:
            arc = next((a for a in self.bundle.arcs if a.id == arc_id), None)
            if arc is not None:
                self.statusBar().showMessage(
                    f"{arc.label}({arc.head_text} → {arc.child_text}) is not flagged; "
                    "arc-level judging covers the non-entailed arcs",
                    5000,
                )
            return  # the diagram keeps it highlighted; the judging unit stays where it was
        if self.ais_mode or self.level != "arc":
            self.level = "arc"
            self.ais_mode = False
            self.ais_action.setChecked(False)
            self._build_units()
        self.unit = next((i for i, u in enumerate(self.units) if u.key.arc_id == arc_id), 0)
        self.redraw()
        self.output_view.setFocus()  # the judging keys act on the clicked arc at once

    def _sentence_clicked(self, index: int) -> None:
        if self.level != "sentence" or self.ais_mode:
            self.level = "sentence"
            self.ais_mode = False
            self.ais_action.setChecked(False)
            self._build_units()
        self.unit = index
        self.redraw()

    # ================================================================== modes
    def toggle_blind_key(self) -> None:
        self.blind_action.toggle()
        self.toggle_blind()

    def toggle_blind(self) -> None:
        self.settings.set(S.BLIND, self.blind)
        if self.blind and self.level == "arc":
            self.level = "sentence"
        self._build_units()
        self.redraw() if self.bundle else None

    def toggle_ais_key(self) -> None:
        self.ais_action.toggle()
        self.toggle_ais()

    def toggle_ais(self) -> None:
        self.ais_mode = self.ais_action.isChecked()
        self.ais_stage = 1
        self.unit = 0
        self._build_units()
        if self.bundle:
            self.redraw()

    def _toggle_advance(self) -> None:
        self.settings.set(S.ADVANCE, self.advance_action.isChecked())

    # ================================================================== filters
    def _filters_changed(self) -> None:
        def pick(box: QComboBox) -> str | None:
            return box.currentText() if box.currentIndex() > 0 else None

        lo, hi = self.score_min.value(), self.score_max.value()
        self.proxy.set_filters(
            status=pick(self.status_filter),
            system=pick(self.system_filter),
            label=pick(self.label_filter),
            error_type=pick(self.error_filter),
            score_range=None if (lo, hi) == (0.0, 1.0) else (lo, hi),
        )
        self._after_filter()

    def _apply_search(self) -> None:
        text = self.search.text().strip()
        hits = search_ids(self.project, text) if (text and self.project) else None
        self.proxy.set_filters(search_hits=hits)
        self._after_filter()

    def _after_filter(self) -> None:
        self._update_count()
        oid = self.current_output_id()
        if oid is not None:
            row = self.model.row_for(oid)
            if row is not None and self.proxy.mapFromSource(self.model.index(row, 0)).isValid():
                return
        self._select_first()

    def _focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _checker_changed(self) -> None:
        self.checker = self.checker_box.currentData()
        if self.project is not None and self.checker:
            self.version = self.project.current_versions().get(self.checker)
            self.checker_label = self.project.checker_names().get(self.checker, "")
            self.model.checker_label = self.checker_label
            self.model.arcs_shown = self.project.checker_grains().get(self.checker) == "arc"
            self.settings.set(S.CHECKER, self.checker)
            self._show_checker()
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self.show_pair(oid)

    def _threshold_changed(self) -> None:
        self.settings.set(S.THRESHOLD, self.threshold.value())
        self._show_checker()
        oid = self.current_output_id()
        self.reload_rows()
        if oid is not None:
            self.select_pair(oid)
            self._build_units()
            self.redraw()

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
            return
        if checkers is None:
            from models.registry import default_checkers

            checkers = default_checkers()
        req = AnalysisRequest(str(self.project.path), tuple(checkers), device, model_dir=model_dir)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.statusBar().showMessage(f"Analysing with {', '.join(checkers)}…")
        self.runner.submit(
            Job(
                "model",
                run_analysis,
                req,
                on_done=self._analysis_done,
                on_error=self.show_error,
                on_progress=self._analysis_progress,
                on_partial=self._analysis_chunk,
                on_finished=self._analysis_finished,
            )
        )

    def selectable_checkers(self) -> list[tuple[str, str]]:
        """(name, display name) of the checkers the menu offers: available, no model dir needed."""
        from models.registry import CHECKERS, default_checkers

        default_checkers()  # registers the bundled checkers before the registry is listed
        return [
            (e.name, e.display_name)
            for e in CHECKERS.values()
            if not e.needs_model_dir and e.available()
        ]

    def _fill_checker_menu(self) -> None:
        from models.registry import default_checkers

        self.checker_menu.clear()
        defaults = set(default_checkers())
        for name, display in self.selectable_checkers():
            action = self.checker_menu.addAction(
                f"{display}" + (" (default)" if name in defaults else "")
            )
            action.setData(name)
            action.setToolTip(f"Run only the '{name}' checker")
            action.triggered.connect(lambda _c=False, n=name: self.start_analysis([n]))
        self.checker_menu.setEnabled(self.project is not None)

    def nli_dir_dialog(self) -> None:
        """Ask for a Hugging Face NLI model folder and run the 'nli' checker with it."""
        if self.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Own NLI model directory")
        if folder:
            self.start_analysis(["nli"], model_dir=folder)

    def _analysis_progress(self, done: int, total: int) -> None:
        self.progress.show()
        self.cancel_button.show()
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total} pairs")

    def _analysis_chunk(self, ids: object) -> None:
        assert isinstance(ids, list)
        if self.project is None:
            return
        if not self.checker or self.checker_box.count() != len(self.project.checker_names()):
            oid = self.current_output_id()
            self._refresh_checkers()
            self.reload_rows()
            if oid is not None:
                self.select_pair(oid)
        else:
            self._refresh_pairs(ids)
        oid = self.current_output_id()
        if oid is not None and oid in ids:
            keep = self.unit
            self.bundle = load_bundles(self.project, [oid])[0]
            self._build_units()
            self.unit = min(keep, max(0, len(self.units) - 1))
            self.redraw()

    def _analysis_done(self, report: object) -> None:
        assert isinstance(report, dict)
        state = "cancelled" if report.get("cancelled") else "done"
        self.statusBar().showMessage(
            f"Analysis {state}: {report.get('pairs_scored', 0)} pairs scored, "
            f"{report.get('not_checked', 0)} sentences not checked",
            8000,
        )
        if self.project is not None:
            oid = self.current_output_id()
            self._refresh_checkers()
            self.reload_rows()
            if oid is not None:
                self.select_pair(oid)
                self.show_pair(oid)

    def _analysis_finished(self, _cancelled: bool) -> None:
        # A newer request may already be queued in the lane; its progress shows the bar again.
        self.progress.hide()
        self.cancel_button.hide()

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

            self.recent_menu.addAction(p, open_recent)
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    def open_demo(self) -> None:
        from app.demo import demo_project_path

        path = str(demo_project_path())
        self.statusBar().showMessage("Preparing the demo project (analysing it on first use)…")
        self.runner.submit(
            Job(
                "io",
                build_demo,
                DemoRequest(path),
                on_done=lambda p: self._open_guarded(str(p)),
                on_error=self.show_error,
            )
        )

    def import_dialog(self) -> None:
        if self.project is None:
            return
        from app.gui.dialogs import ImportDialog

        ImportDialog(self).exec()

    def export_dialog(self) -> None:
        if self.project is None:
            return
        from app.gui.dialogs import ExportDialog

        ExportDialog(self).exec()

    def show_stats(self) -> None:
        if self.project is None:
            return
        from app.gui.stats import StatsDialog

        StatsDialog(self).exec()

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
        self._load_keymap()
        if self.bundle is not None:
            self._render_header()

    def show_error(self, err: BaseException) -> None:
        """The one place errors reach the user."""
        self.statusBar().showMessage(f"Error: {err}", 10000)
        if QApplication.platformName() != "offscreen":
            QMessageBox.warning(self, "FactDesk", str(err))

    # ================================================================== view
    def zoom(self, step: int) -> None:
        self.apply_font_size(max(6, min(40, self.settings.get(S.FONT_SIZE) + step)))

    def apply_font_size(self, size: int) -> None:
        self.settings.set(S.FONT_SIZE, size)
        for view in (self.source_view, self.output_view):
            set_font_size(view, size)
        self.arc_view.set_font_size(size)
        font = self.table.font()
        font.setPointSize(max(6, size - 1))
        self.table.setFont(font)
        if self.bundle is not None:
            self.redraw()

    def toggle_dark(self) -> None:
        self.settings.set(S.DARK, self.dark_action.isChecked())
        # The running application is a QApplication; instance() is typed as its QCoreApplication base.
        theme.apply(cast(QApplication, QApplication.instance()), self.dark_action.isChecked())

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel and join every worker, save the geometry, close the project."""
        self.runner.shutdown()
        self.settings.set(S.GEOMETRY, self.saveGeometry())
        self.settings.set(S.SPLITTER, self.text_split.saveState())
        self.settings.sync()
        if self.project is not None:
            self.undo_stack.clear()
            self.project.close()
            self.project = None
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
