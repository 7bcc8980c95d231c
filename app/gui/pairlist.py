"""The pair list pane: search, filters, the table of pairs and its count.

It reads rows from the store through :func:`app.store.queries.list_rows`, a page at a time (see
:class:`app.item_models.PairTableModel`), and reports the pair the
user selects with :attr:`PairList.pair_selected`; stepping through the (filtered, sorted) list is
:meth:`PairList.step`. :class:`ListColumn` is the window's left column: the list, and the panels
placed under it; it is what a panel may do with the list (:class:`app.gui.host.PairListing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.gui.plaintext import header_tips, item_view_tips, plain_label
from app.item_models import OutputIdRole, PairFilterProxy, PairTableModel
from app.review.adjudication import disagreeing_pairs
from app.store import Project
from app.store.queries import ListRow, list_rows, search_ids
from app.wording import counted


def combo(name: str, items: list[str]) -> QComboBox:
    box = QComboBox()
    box.setAccessibleName(name)
    box.addItems(items)
    return box


#: The status filter's entries: (text, the status it keeps, tooltip).
STATUS_CHOICES = (
    ("any status", None, "Every pair"),
    (
        "unjudged (sentences left)",
        "unjudged",
        "Pairs with something still to judge: untouched ones and those in progress",
    ),
    ("in progress", "in progress", "Pairs with some decisions made and some sentences left"),
    ("done", "done", "Pairs whose every sentence, or the pair as a whole, is judged"),
    ("flagged", "flagged", "Pairs flagged as malformed"),
)


def status_combo() -> QComboBox:
    box = QComboBox()
    box.setAccessibleName("Status filter")
    for text, status, tip in STATUS_CHOICES:
        box.addItem(text, status)
        box.setItemData(box.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
    return box


def spin(name: str, value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
    box.setAccessibleName(name)
    box.setValue(value)
    return box


class PairList(QWidget):
    """Search box, filters, the pair table and the "n shown of m" line."""

    #: The current row changed to this output id.
    pair_selected = Signal(int)
    #: The filters left no row to show.
    emptied = Signal()
    #: The editor sorted the list by a column header (not :meth:`set_order`).
    column_sorted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self._ids: list[int] = []  # the project's output ids as last read, and when
        self._stamp: tuple[int, int] | None = None
        #: The output id shown in the detail view (kept selected across filter changes).
        self.shown_id: int | None = None
        self.model = PairTableModel(self)
        self.proxy = PairFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._sorting = False  # set_order is sorting: not the editor's column
        self._search_timer = QTimer(self, singleShot=True, interval=250)
        self._search_timer.timeout.connect(self.apply_search)

        self.status_filter = status_combo()
        self.system_filter = combo("System filter", ["any system"])
        self.label_filter = combo(
            "Label filter", ["any label", "supported", "unsupported", "unlabelled"]
        )
        self.error_filter = combo("Error type filter", ["any error type"])
        self.disagree_filter = QCheckBox("Reviewers disagree")
        self.disagree_filter.setToolTip(
            "Only pairs with an item the reviewers judged differently and nobody adjudicated"
        )
        self.disagree_filter.toggled.connect(self.filters_changed)
        self.score_min = spin("Lowest support at least", 0.0)
        self.score_max = spin("Lowest support at most", 1.0)
        self.search = QLineEdit(placeholderText="Search source and output…")
        self.search.setAccessibleName("Search source and output")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        for w in (self.status_filter, self.system_filter, self.label_filter, self.error_filter):
            w.currentIndexChanged.connect(self.filters_changed)
        for s in (self.score_min, self.score_max):
            s.valueChanged.connect(self.filters_changed)

        self.table = QTableView()
        self.table.setAccessibleName("Pair list")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # Ids of one data set share their start ("cnndm-test-0001…"): cut them in the middle so
        # the part that tells them apart stays visible; the tooltip has the whole id.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        # Interactive, not ResizeToContents: the latter measures every row on each change.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((90, 120, 120, 70, 50, 44)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.table.horizontalHeader().sortIndicatorChanged.connect(self._header_sorted)
        # Scrolling fetches more rows: the count follows every change of the listed rows.
        for signal in (
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
            self.proxy.modelReset,
            self.proxy.layoutChanged,
        ):
            signal.connect(self.update_count)
        self._tips = [item_view_tips(self.table), header_tips(self.table.horizontalHeader())]
        self.count_label = plain_label(QLabel())
        self.checker_note = plain_label(QLabel())  # the checker's display name is data
        self.checker_note.setAccessibleName("Checker whose scores are listed")

        lv = QVBoxLayout(self)
        lv.setContentsMargins(4, 4, 4, 4)
        lv.addWidget(self.search)
        row1 = QHBoxLayout()
        row1.addWidget(self.status_filter)
        row1.addWidget(self.system_filter)
        lv.addLayout(row1)
        row2 = QHBoxLayout()
        row2.addWidget(self.label_filter)
        row2.addWidget(self.error_filter)
        row2.addWidget(self.disagree_filter)
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

    # ================================================================== rows
    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.shown_id = None
        self._ids, self._stamp = [], None
        if project is None:
            self._search_timer.stop()
            self.model.reset_rows([])
            return
        for box, items in (
            (self.system_filter, project.systems()),
            (self.error_filter, [t["key"] for t in project.taxonomy()]),
        ):
            box.blockSignals(True)
            while box.count() > 1:
                box.removeItem(1)
            box.addItems(items)
            box.blockSignals(False)

    def reload(self, checker: str | None, version: str | None, threshold: float) -> None:
        """Every row again (a new project, checker, threshold or model), read as it is shown:
        the rows on screen now, the others when they are fetched."""
        project = self.project
        if project is None:
            return

        def load(ids: Sequence[int]) -> list[ListRow]:
            return list_rows(project, checker, version, threshold, ids)

        # The pairs' ids are read again only when pairs were added or removed.
        stamp = project.pairs_stamp()
        if stamp != self._stamp:
            self._ids, self._stamp = project.output_ids(), stamp
        self.model.set_rows(self._ids, load)
        self.update_count()

    def show_rows(self, rows: list[ListRow]) -> None:
        """Show these rows: the same pairs are updated in place (selection, current row and
        scroll position kept; only changed cells repainted), other pairs reset the list."""
        self.model.replace_rows(rows)
        self.update_count()

    def refresh(
        self,
        ids: list[int],
        checker: str | None,
        version: str | None,
        threshold: float,
        *,
        scores: bool = True,
    ) -> None:
        """Refresh these rows; ``scores=False`` after a judgment, which leaves scores alone."""
        if self.project is None or not ids:
            return
        if scores:
            rows = list_rows(self.project, checker, version, threshold, ids)
        else:
            rows = []
            for new in list_rows(self.project, None, None, threshold, ids):
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
        self.update_count()

    def update_count(self) -> None:
        self.count_label.setText(
            f"{self.proxy.rowCount():,} shown of {counted(self.model.total(), 'pair')}"
        )

    # ================================================================== selection
    def select_first(self) -> None:
        if self.proxy.rowCount() > 0:
            self.table.setCurrentIndex(self.proxy.index(0, 0))
        else:
            self.emptied.emit()

    def select(self, output_id: int) -> bool:
        """Make this pair the current row; False when the filters hide it."""
        row = self.model.row_for(output_id)
        if row is None:
            return True
        pidx = self.proxy.mapFromSource(self.model.index(row, 0))
        if not pidx.isValid():
            return False
        self.table.selectionModel().setCurrentIndex(
            pidx,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(pidx)
        return True

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        oid = current.data(OutputIdRole)
        if self.shown_id != oid:
            self.pair_selected.emit(oid)

    def step(self, step: int) -> bool:
        """Move the current row by ``step``; False at either end."""
        idx = self.table.currentIndex()
        row = idx.row() + step if idx.isValid() else 0
        if row >= self.proxy.rowCount() and self.proxy.canFetchMore(self.proxy.index(-1, -1)):
            self.proxy.fetchMore(self.proxy.index(-1, -1))
        if 0 <= row < self.proxy.rowCount():
            self.table.setCurrentIndex(self.proxy.index(row, 0))
            return True
        return False

    # ================================================================== filters
    def filters_changed(self) -> None:
        def pick(box: QComboBox) -> str | None:
            return box.currentText() if box.currentIndex() > 0 else None

        lo, hi = self.score_min.value(), self.score_max.value()
        self.proxy.set_filters(
            status=self.status_filter.currentData(),
            system=pick(self.system_filter),
            label=pick(self.label_filter),
            error_type=pick(self.error_filter),
            score_range=None if (lo, hi) == (0.0, 1.0) else (lo, hi),
            disagree_ids=(
                disagreeing_pairs(self.project)
                if self.disagree_filter.isChecked() and self.project is not None
                else None
            ),
        )
        self.after_filter()

    def refresh_disagreements(self) -> None:
        """Judgments changed: the "Reviewers disagree" filter reads them again.

        A shown pair whose last dispute was settled gives way to the next pair of the list (the
        previous one at its end) before it leaves; one disputed again (an undo) comes back and
        is selected when it is the pair shown.
        """
        if not self.disagree_filter.isChecked() or self.project is None:
            return
        still = disagreeing_pairs(self.project)
        if still == self.proxy.disagree_ids:
            return
        shown = self.shown_id
        if shown is not None and shown not in still and self._listed(shown):
            if not self.step(+1):
                self.step(-1)
        self.proxy.set_filters(disagree_ids=still)
        if self.shown_id is not None and self.shown_id in still:
            self.select(self.shown_id)
        self.after_filter()

    def _listed(self, output_id: int) -> bool:
        row = self.model.row_for(output_id)
        return row is not None and self.proxy.mapFromSource(self.model.index(row, 0)).isValid()

    def apply_search(self) -> None:
        text = self.search.text().strip()
        hits = search_ids(self.project, text) if (text and self.project) else None
        self.proxy.set_filters(search_hits=hits)
        self.after_filter()

    def after_filter(self) -> None:
        self.update_count()
        oid = self.shown_id
        if oid is not None and self._listed(oid):
            return
        self.select_first()

    def set_priority(self, priority: dict[int, tuple[float, str]] | None) -> None:
        """Show only these pairs, highest priority first, each with why (the ID tooltip);
        None goes back to the column sort. Same order mechanism as the learning queue."""
        if priority is None:
            self.model.rank, self.model.reasons = None, {}
            self.proxy.set_filters(priority_ids=None)
        else:
            ranked = sorted(priority, key=lambda oid: (-priority[oid][0], oid))
            self.model.rank = {oid: n for n, oid in enumerate(ranked)}
            self.model.reasons = {oid: why for oid, (_p, why) in priority.items()}
            self.proxy.set_filters(priority_ids=set(priority))
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.proxy.invalidate()
        self.after_filter()

    def set_order(
        self,
        rank: dict[int, int] | None,
        reasons: dict[int, str],
        keep: set[int] | None = None,
        *,
        sort: bool = True,
    ) -> None:
        """Order the list by ``rank`` (None: by the column sorted), each id's reason in its
        tooltip, listing only the pairs in ``keep`` (None: all of them).

        With ``sort`` the list is sorted by its first column (where the rank applies) and the
        selection follows the filter; :attr:`column_sorted` is not emitted for that sort.
        """
        self.model.rank, self.model.reasons = rank, reasons
        self.proxy.set_filters(queue_ids=keep)
        if not sort:
            self.proxy.invalidate()
            return
        self._sorting = True
        try:
            self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
            self.proxy.invalidate()
        finally:
            self._sorting = False
        self.after_filter()

    def _header_sorted(self, *_args: object) -> None:
        if not self._sorting:
            self.column_sorted.emit()

    def set_scores_hidden(self, hidden: bool) -> None:
        """Blind and AIS modes: no model score in the list, nor a filter or an order that
        would reveal one (the score range applies only while scores show)."""
        self.model.set_scores_hidden(hidden)
        for box in (self.score_min, self.score_max):
            box.setEnabled(not hidden)
        self.proxy.set_filters()
        if self.project is not None:
            self.proxy.invalidate()  # the model's order counts again, or not at all
        self.update_count()

    def next_open(self, current: int | None) -> int | None:
        """The next pair after the current row that is not done (nor ``current``), in the
        list's own order; from the top again at the end. None when there is none."""
        proxy, root = self.proxy, QModelIndex()
        here = self.table.currentIndex().row() if self.table.currentIndex().isValid() else -1

        def open_row(r: int) -> int | None:
            oid = proxy.index(r, 0).data(OutputIdRole)
            row = self.model.row_by_id(oid)
            ok = oid != current and row is not None and row.status not in ("done", "flagged")
            return oid if ok else None

        r, found = here + 1, None
        while found is None:
            if r >= proxy.rowCount():
                if not proxy.canFetchMore(root):
                    break
                proxy.fetchMore(root)  # the list shows its rows in batches
                continue
            found, r = open_row(r), r + 1
        for r in range(max(here, 0)):
            if found is not None:
                break
            found = open_row(r)
        return found

    def add_under_search(self, widget: QWidget) -> None:
        """Put ``widget`` under the search box (above the filters)."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, widget)

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()


class ListColumn(QSplitter):
    """The window's left column: the pair list, and the panels placed under it.

    Panels that need room (adjudication) go under the list, so the texts keep theirs. This is
    what a panel may do with the list (:class:`app.gui.host.PairListing`); the list's own
    widgets stay inside :class:`PairList`.
    """

    def __init__(self, pairs: PairList) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.setObjectName("left_split")
        self.pairs = pairs
        self.addWidget(pairs)

    @property
    def reloaded(self) -> Any:  # a SignalInstance
        """Emitted when the list's rows were read again."""
        return self.pairs.model.reloaded

    @property
    def column_sorted(self) -> Any:  # a SignalInstance
        """Emitted when the editor sorted the list by a column header."""
        return self.pairs.column_sorted

    @property
    def scores_hidden(self) -> bool:
        return self.pairs.model.scores_hidden

    def place_in_list(self, widget: QWidget) -> None:
        self.pairs.add_under_search(widget)

    def place_under_list(self, panel: QWidget) -> None:
        self.addWidget(panel)
        self.setCollapsible(self.indexOf(panel), False)
        panel.hide()

    def show_under_list(self, panel: QWidget, share: tuple[int, int] = (2, 5)) -> None:
        if panel.isVisible():
            return
        panel.show()
        total = sum(self.sizes()) or self.height()
        below = total * share[0] // share[1]
        self.setSizes([total - below, below])

    def set_order(
        self,
        rank: dict[int, int] | None,
        reasons: dict[int, str],
        keep: set[int] | None = None,
        *,
        sort: bool = True,
    ) -> None:
        self.pairs.set_order(rank, reasons, keep, sort=sort)

    def set_priority(self, priority: dict[int, tuple[float, str]] | None) -> None:
        self.pairs.set_priority(priority)

    def show_rows(self, rows: list[ListRow]) -> None:
        self.pairs.show_rows(rows)

    def next_open(self, current: int | None) -> int | None:
        return self.pairs.next_open(current)

    def set_disagree_filter(self, on: bool) -> None:
        self.pairs.disagree_filter.setChecked(on)

    def refresh_disagreements(self) -> None:
        self.pairs.refresh_disagreements()
