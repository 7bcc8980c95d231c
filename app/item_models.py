"""Qt item models: thin adapters over the store's list rows (Anki's browser table model).

:class:`PairTableModel` holds the pair list: every pair's id, and the rows read so far. It reads
rows page by page through a loader (:meth:`PairTableModel.set_rows`) and exposes them lazily
(``canFetchMore``/``fetchMore``), so opening or reloading a 100,000-pair project reads one page,
not every pair. It emits ``dataChanged`` when rows are refreshed (also when the same pairs come
back with new scores: another checker, threshold or model) and resets only when other pairs are
shown (a new project, an import). :class:`PairFilterProxy` does all filtering and sorting (of the
rows fetched so far, as the view fetches them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QIcon

from app.paths import resources_dir
from app.store.queries import ListRow

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("ID", "System", "Status", "Lowest", "Arcs", "⚠")
COL_ID, COL_SYSTEM, COL_STATUS, COL_LOWEST, COL_ARCS, COL_CONFLICTS = range(len(COLUMNS))
#: The columns that show the model (hidden in blind and AIS modes).
MODEL_COLUMNS = (COL_LOWEST, COL_ARCS, COL_CONFLICTS)
CONFLICTS_TIP = (
    "Conflicts: sentences where the question-based check finds the source answering "
    "otherwise (a name or figure), whichever checker is shown"
)

#: Custom roles.
OutputIdRole = Qt.ItemDataRole.UserRole + 1
StatusRole = Qt.ItemDataRole.UserRole + 2
SortRole = Qt.ItemDataRole.UserRole + 3
ListRowRole = Qt.ItemDataRole.UserRole + 4

FETCH_BATCH = 500
#: Most pairs read by one call of the loader (each is a query with that many ids).
LOAD_BATCH = 2000

#: Reads the list rows of some output ids, in the order given (see :meth:`set_rows`).
Loader = Callable[[Sequence[int]], Sequence[ListRow]]

#: What the score columns show while the model is hidden (blind mode, AIS mode).
HIDDEN = "·"
HIDDEN_TIP = "model scores hidden (blind or AIS mode)"
#: A conflict's cell: red as an unsupported mark, besides its ⚠ glyph (translucent, so that it
#: reads on light and dark backgrounds alike).
CONFLICT_BRUSH = QBrush(QColor(218, 54, 51, 110))


@cache
def icon(name: str) -> QIcon:
    """A bundled icon from resources/icons (state icons: never colour alone)."""
    return QIcon(str(resources_dir() / "icons" / f"{name}.svg"))


def changed_columns(old: ListRow, new: ListRow) -> tuple[int, int]:
    """The first and last column whose cells differ between two unequal rows of the same pair.

    A change no column shows (labels, error types: what the filters read) is signalled on the
    Status column, so that the proxy filters the row again."""
    a, b = old.row, new.row
    cols = [
        col
        for col, differs in (
            (COL_ID, a.external_id != b.external_id),
            (COL_SYSTEM, a.system != b.system),
            (COL_STATUS, old.status != new.status or old.progress_text() != new.progress_text()),
            (COL_LOWEST, (a.lowest_support, a.not_checked) != (b.lowest_support, b.not_checked)),
            (COL_ARCS, a.flagged_arcs != b.flagged_arcs),
            (COL_CONFLICTS, old.conflicts != new.conflicts),
        )
        if differs
    ]
    return (cols[0], cols[-1]) if cols else (COL_STATUS, COL_STATUS)


class PairTableModel(QAbstractTableModel):
    """The pair list. Rows are ``ListRow``; only ``FETCH_BATCH`` more are exposed at a time."""

    #: The rows were replaced (a reset or an in-place refresh of every row).
    reloaded = Signal()

    def __init__(self, parent: object | None = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self._ids: list[int] = []  # every pair of the list, in order
        # Rows read so far, by place (None: not read yet). Rows below ``_shown`` are always read.
        self._rows: list[ListRow | None] = []
        self._load: Loader | None = None
        self._shown = 0
        self._resetting = False
        self._where: dict[int, int] = {}
        self.checker_label = ""
        #: False while the shown checker scores whole sentences only: the Arcs column is empty.
        self.arcs_shown = True
        #: True in blind and AIS modes: the score columns show nothing and sort by import order.
        self.scores_hidden = False
        #: Why each pair is where the "next most useful" queue puts it (ID tooltip).
        self.reasons: dict[int, str] = {}
        #: The queue's order (output id -> place): the ID column sorts by it while set.
        self.rank: dict[int, int] | None = None

    def set_scores_hidden(self, hidden: bool) -> None:
        """Hide or show the model's scores (Lowest, Arcs, conflicts) without reloading rows."""
        if hidden == self.scores_hidden:
            return
        self.scores_hidden = hidden
        first, last = MODEL_COLUMNS[0], MODEL_COLUMNS[-1]
        if self._shown:
            self.dataChanged.emit(self.index(0, first), self.index(self._shown - 1, last), [])
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, first, last)

    # -------------------------------------------------------------- updates
    def set_rows(self, ids: Sequence[int], load: Loader) -> bool:
        """Show the pairs ``ids``, reading their rows with ``load`` only as they are shown.

        The same pairs in the same order are refreshed in place: only the rows on screen are
        read again (the rest when they are fetched), and only the cells that changed are
        signalled, as :meth:`replace_rows` does. Other pairs reset the list with its first page
        read. Returns True when the rows were refreshed in place.
        """
        ids = list(ids)
        self._load = load
        if ids != self._ids:
            self.beginResetModel()
            self._resetting = True
            self._ids = ids
            self._where = {oid: i for i, oid in enumerate(ids)}
            self._rows = [None] * len(ids)
            self._shown = min(FETCH_BATCH, len(ids))
            try:
                self._read(0, self._shown)
                self.endResetModel()
            finally:
                self._resetting = False
            self.reloaded.emit()
            return False
        shown = self._shown
        fresh = self._fetch(ids[:shown])
        # Rows read earlier but not on screen are read again when they are fetched.
        self._rows[shown:] = [None] * (len(ids) - shown)
        self._refresh_shown(fresh)
        self.reloaded.emit()
        return True

    def reset_rows(self, rows: Sequence[ListRow]) -> None:
        """Show other pairs, every row given: the views forget their selection and scroll."""
        self.beginResetModel()
        self._resetting = True  # no fetching while a change is announced
        self._rows = list(rows)
        self._ids = [r.row.output_id for r in rows]
        self._where = {oid: i for i, oid in enumerate(self._ids)}
        self._shown = min(FETCH_BATCH, len(self._rows))
        try:
            self.endResetModel()
        finally:
            self._resetting = False
        self.reloaded.emit()

    def replace_rows(self, rows: Sequence[ListRow]) -> bool:
        """Show ``rows``; in place when they are the same pairs in the same order.

        In place, only the cells that differ are signalled (``dataChanged`` over each run of
        changed rows and the columns that changed), so the views keep their selection, current
        row and scroll position and the proxy re-sorts and re-filters only those rows; a reset
        of a large list costs the window tens of milliseconds, and the selection. Other pairs
        reset the model. Returns True when the rows were updated in place.
        """
        rows = list(rows)
        if [r.row.output_id for r in rows] != self._ids:
            self.reset_rows(rows)
            return False
        self._rows[self._shown :] = rows[self._shown :]
        self._refresh_shown(rows[: self._shown])
        self.reloaded.emit()
        return True

    def _refresh_shown(self, rows: Sequence[ListRow]) -> None:
        """New rows for the rows on screen (same pairs, same order): signal what changed."""
        # Rows change span by span, each announced before the next changes: a sorting proxy
        # places a changed row among rows whose values it already knows.
        old = self._rows
        span: tuple[int, int, int, int] | None = None  # first row, last row, columns
        for i, new in enumerate(rows):
            before = old[i]
            assert before is not None  # rows on screen are read
            cols = None if before == new else changed_columns(before, new)
            if span is not None and (cols is None or cols != span[2:] or i != span[1] + 1):
                self._changed(rows, *span)
                span = None
            if cols is not None:
                span = (span[0] if span else i, i, *cols)
        if span is not None:
            self._changed(rows, *span)

    def _changed(
        self, rows: Sequence[ListRow], first: int, last: int, col0: int, col1: int
    ) -> None:
        self._rows[first : last + 1] = rows[first : last + 1]
        self.dataChanged.emit(self.index(first, col0), self.index(last, col1), [])

    def update_rows(self, rows: Sequence[ListRow]) -> None:
        """Replace the rows with these output ids, signalling each changed span; rows not read
        yet are left to be read when they are fetched."""
        for new in rows:
            i = self._where.get(new.row.output_id)
            if i is None or self._rows[i] is None:
                continue
            self._rows[i] = new
            if i < self._shown:
                self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1), [])

    def _fetch(self, ids: Sequence[int]) -> list[ListRow]:
        assert self._load is not None
        out: list[ListRow] = []
        for lo in range(0, len(ids), LOAD_BATCH):
            out += self._load(ids[lo : lo + LOAD_BATCH])
        return out

    def _read(self, first: int, end: int) -> None:
        """Make sure the rows of places ``first`` to ``end`` (excluded) are read."""
        todo = [i for i in range(first, min(end, len(self._ids))) if self._rows[i] is None]
        if not todo:
            return
        for i, row in zip(todo, self._fetch([self._ids[i] for i in todo]), strict=True):
            self._rows[i] = row

    def fetch_all(self) -> None:
        while self.canFetchMore(QModelIndex()):
            self.fetchMore(QModelIndex())

    def row_for(self, output_id: int) -> int | None:
        """The row of a pair, making it visible (fetched, with the rows before it) first."""
        i = self._where.get(output_id)
        if i is None:
            return None
        if i >= self._shown:
            self._read(self._shown, i + 1)
            self._resetting = True
            try:
                self.beginInsertRows(QModelIndex(), self._shown, i)
                self._shown = i + 1
                self.endInsertRows()
            finally:
                self._resetting = False
        return i

    def row_by_id(self, output_id: int) -> ListRow | None:
        """A pair's row when it has been read (None: not in the list, or not read yet)."""
        i = self._where.get(output_id)
        return None if i is None else self._rows[i]

    def list_row(self, row: int) -> ListRow:
        """The row at a place on screen (always read)."""
        found = self._rows[row]
        assert found is not None, "rows on screen are read"
        return found

    def total(self) -> int:
        return len(self._ids)

    def output_ids(self) -> list[int]:
        return list(self._ids)

    # -------------------------------------------------------------- Qt interface
    def rowCount(self, parent: Index | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else self._shown

    def columnCount(self, parent: Index | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and not self._resetting and self._shown < len(self._ids)

    def fetchMore(self, parent: Index) -> None:
        if parent.isValid() or self._resetting:
            return
        n = min(FETCH_BATCH, len(self._ids) - self._shown)
        if n <= 0:
            return
        self._read(self._shown, self._shown + n)
        # Views (and the model tester) may ask to fetch again while the insert is announced.
        self._resetting = True
        try:
            self.beginInsertRows(QModelIndex(), self._shown, self._shown + n - 1)
            self._shown += n
            self.endInsertRows()
        finally:
            self._resetting = False

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            if self.scores_hidden and section in MODEL_COLUMNS:
                return f"{COLUMNS[section]}: {HIDDEN_TIP}"
            by = f" ({self.checker_label})" if self.checker_label else ""
            return {
                COL_LOWEST: f"Lowest sentence support{by}",
                COL_ARCS: f"Number of non-entailed arcs{by}",
                COL_CONFLICTS: CONFLICTS_TIP,
            }.get(section, COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if (
            not index.isValid()
            or index.row() >= self._shown
            or not 0 <= index.column() < len(COLUMNS)
        ):
            return None
        lr = self.list_row(index.row())
        r = lr.row
        col = index.column()
        if self.scores_hidden and col in MODEL_COLUMNS:
            # Nothing of the model may show: no value, no tooltip, no order.
            if role == Qt.ItemDataRole.DisplayRole:
                return HIDDEN
            if role == Qt.ItemDataRole.ToolTipRole:
                return HIDDEN_TIP
            if role == SortRole:
                return r.output_id
            if role == Qt.ItemDataRole.BackgroundRole:
                return None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_ID:
                return r.external_id
            if col == COL_SYSTEM:
                return r.system or ""
            if col == COL_STATUS:
                return lr.status
            if col == COL_LOWEST:
                return "—" if r.lowest_support is None else f"{r.lowest_support:.2f}"
            if col == COL_ARCS:
                return str(r.flagged_arcs) if self.arcs_shown else "—"
            if col == COL_CONFLICTS:
                if lr.conflicts is None:
                    return "—"
                return f"⚠ {len(lr.conflicts)}" if lr.conflicts else ""
        elif role == Qt.ItemDataRole.DecorationRole and col == COL_STATUS:
            return icon(lr.status.replace(" ", "_"))
        elif role == Qt.ItemDataRole.BackgroundRole and col == COL_CONFLICTS and lr.conflicts:
            return CONFLICT_BRUSH
        elif role == Qt.ItemDataRole.ToolTipRole:
            if col == COL_ID:
                why = None if self.scores_hidden else self.reasons.get(r.output_id)
                # The column may cut a long id; the queue says why the pair is where it is.
                return r.external_id if why is None else f"{r.external_id}\nWhy here: {why}"
            if col == COL_SYSTEM:
                return r.system or ""
            if col == COL_STATUS:
                return f"{lr.status}: {lr.progress_text()}"
            if col == COL_LOWEST and r.lowest_support is None:
                return "not analysed" if r.not_checked is None else f"not checked: {r.not_checked}"
            if col == COL_ARCS and not self.arcs_shown:
                return f"{self.checker_label} scores sentences, not arcs"
            if col == COL_CONFLICTS:
                if lr.conflicts is None:
                    return "the question-based check has not run on this project"
                if not lr.conflicts:
                    return "no conflict with the source found by the question-based check"
                return "Conflicts with the source (question-based check):\n" + "\n".join(
                    lr.conflicts
                )
        elif role == SortRole:
            if col == COL_ID:
                if self.rank is not None and not self.scores_hidden:
                    # The queue's order comes from the model's scores: not while they hide.
                    return self.rank.get(r.output_id, len(self.rank))
                return r.output_id
            if col == COL_SYSTEM:
                return r.system or ""
            if col == COL_STATUS:
                return ("unjudged", "in progress", "done", "flagged").index(lr.status)
            if col == COL_LOWEST:
                return -1.0 if r.lowest_support is None else r.lowest_support
            if col == COL_ARCS:
                return r.flagged_arcs
            if col == COL_CONFLICTS:
                return -1 if lr.conflicts is None else len(lr.conflicts)
        elif role == OutputIdRole:
            return r.output_id
        elif role == StatusRole:
            return lr.status
        elif role == ListRowRole:
            return lr
        elif role == Qt.ItemDataRole.TextAlignmentRole and col in MODEL_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class PairFilterProxy(QSortFilterProxyModel):
    """Filters: status, system, score range, label, error type and a set of search hits."""

    def __init__(self, parent: object | None = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.setSortRole(SortRole)
        self.status: str | None = None
        self.system: str | None = None
        self.score_range: tuple[float, float] | None = None
        self.label: str | None = None
        self.error_type: str | None = None
        self.search_hits: set[int] | None = None
        self.disagree_ids: set[int] | None = None  # "Reviewers disagree": these pairs only
        #: Only these pairs (the editor-vs-model disagreement queue filter), None for all.
        self.queue_ids: set[int] | None = None
        #: Only these pairs, while scores are shown (a model-derived queue such as "unfamiliar-
        #: entity descriptions first"; its order is the source model's ``rank``).
        self.priority_ids: set[int] | None = None

    def set_filters(self, **values: object) -> None:
        """Set any of the filter attributes (None clears one) and refilter once."""
        for name in values:
            if not hasattr(self, name) or name.startswith("_"):
                raise AttributeError(name)
        self.beginFilterChange()
        for name, value in values.items():
            setattr(self, name, value)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, PairTableModel)
        lr = model.list_row(source_row)
        r = lr.row
        if self.status and not lr.has_status(self.status):
            return False
        if self.system and r.system != self.system:
            return False
        if self.score_range is not None and not model.scores_hidden:
            lo, hi = self.score_range
            if r.lowest_support is None or not lo <= r.lowest_support <= hi:
                return False
        if self.label:
            if self.label == "unlabelled":
                if lr.labels:
                    return False
            elif self.label not in lr.labels:
                return False
        if self.error_type and self.error_type not in lr.error_types:
            return False
        if self.search_hits is not None and r.output_id not in self.search_hits:
            return False
        if self.disagree_ids is not None and r.output_id not in self.disagree_ids:
            return False
        if self.priority_ids is not None and r.output_id not in self.priority_ids:
            model = self.sourceModel()
            if not (isinstance(model, PairTableModel) and model.scores_hidden):
                return False
        if self.queue_ids is not None and r.output_id not in self.queue_ids:
            if not model.scores_hidden:  # the disagreement filter reads the model's flags
                return False
        return True
