"""The Statistics tab for entity familiarity (see :mod:`app.audit.familiarity`), and the pair list's
"unfamiliar-entity descriptions first" queue.

Finding entities runs spaCy's NER over every source and output, so the tab computes when it is
first shown, not when the Statistics window opens, and in the window's task runner when it has
one (its own lane; the tab says how far it got); results are cached per text for the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.audit.familiarity import (
    FINAL_NOTE,
    FamiliarityReport,
    analyse,
    draw_rates,
    unfamiliar_first,
)
from app.gui.plaintext import plain_label
from app.gui.plot_tab import PlotTab
from app.store import Project
from app.tasks import Job, JobContext, TaskRunner

if TYPE_CHECKING:
    from app.gui.host import ListHost

#: The queue is computed in its own lane (NER over the sources), never cancelling analysis.
LANE = "familiarity"
#: The Statistics tab's lane: opening it never cancels the queue, nor the queue it.
TAB_LANE = "familiarity-stats"

COLUMNS = ("group", "entities", "mentions", "descriptions", "not supported", "judged")


def _pct(n: int, of: int) -> str:
    return f"{n} of {of} ({100 * n / of:.0f}%)" if of else f"{n} of 0"


class FamiliarityTab(QWidget):
    """Entities each way, and description error rates by familiarity and system.

    Args:
        project: the open project.
        checker: whose arc scores give the verdicts (None: as the module picks).
        threshold: the flagging threshold.
        runner: the window's task runner; None computes on the spot (no window).
    """

    def __init__(
        self,
        project: Project,
        checker: str | None,
        threshold: float,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__()
        self.project = project
        self.checker = checker
        self.threshold = threshold
        self.runner = runner
        self.report: FamiliarityReport | None = None
        self._started = False
        # Set False when the tab is gone, so that a late result is dropped.
        alive = self._alive = [True]
        self.destroyed.connect(lambda *_a: alive.__setitem__(0, False))
        self.lay = QVBoxLayout(self)
        self.summary = plain_label(QLabel("Entities are found when this tab is first shown."))
        self.summary.setWordWrap(True)
        self.lay.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Description error rates by system and familiarity")
        self.plot: PlotTab | None = None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._started:
            self.compute()

    def compute(self) -> None:
        self._started = True
        if self.runner is None:
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                self.report = analyse(self.project, checker=self.checker, threshold=self.threshold)
            finally:
                QApplication.restoreOverrideCursor()
            self._fill(self.report)
            return
        alive = self._alive
        self.summary.setText("Finding entities…")

        def progress(done: int, total: int) -> None:
            if alive[0]:
                self.summary.setText(f"Finding entities: {done} of {total} texts read…")

        def done(result: object) -> None:
            if alive[0]:
                assert isinstance(result, FamiliarityReport)
                self.report = result
                self._fill(result)

        def failed(err: BaseException) -> None:
            if alive[0]:
                self.summary.setText(f"Entities could not be found: {err}")

        req = QueueRequest(str(self.project.path), self.checker, self.threshold)
        self.runner.submit(
            Job(TAB_LANE, run_tab, req, on_done=done, on_error=failed, on_progress=progress)
        )

    def _fill(self, report: FamiliarityReport) -> None:
        counts = report.entity_counts()
        self.summary.setText(
            "Entities in the outputs: "
            + ", ".join(f"{n} {tag}" for tag, n in counts.items())
            + f". Familiar: the sources mostly name it bare; unfamiliar: they mostly introduce"
            f" it with a description; unseen: no source mentions it. Verdicts: "
            f"{report.checker or 'no checker'}, threshold {report.threshold:.2f}; {FINAL_NOTE};"
            " error-type rates are over judged descriptions."
        )
        fig = Figure(figsize=(9, 4.5), layout="tight")
        draw_rates(fig, report)
        self.plot = PlotTab(fig, "entity familiarity")
        # Plot above, table below: drag the handle between them to give either more room.
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.plot)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.lay.addWidget(split, 1)
        columns = [*COLUMNS, *report.error_types]
        rows = report.rates("both")
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(columns)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = [
                r.group,
                str(r.entities),
                str(r.mentions),
                str(r.descriptions),
                _pct(r.not_supported, r.scored),
                str(r.judged),
                *(_pct(r.error_counts.get(e, 0), r.judged) for e in report.error_types),
            ]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)  # items show plain text
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()


# ---------------------------------------------------------------------- the pair-list queue
@dataclass(frozen=True)
class QueueRequest:
    project_path: str
    checker: str | None
    threshold: float


def run_tab(req: QueueRequest, ctx: JobContext) -> FamiliarityReport:
    """A job function: the familiarity report of the project at ``req.project_path``."""
    with Project.open(req.project_path) as project:
        return analyse(
            project,
            checker=req.checker,
            threshold=req.threshold,
            progress=ctx.progress,
            should_stop=ctx.should_stop,
        )


def run_queue(req: QueueRequest, _ctx: JobContext) -> dict[int, tuple[float, str]]:
    """A job function: the unfamiliar-first priorities of the project at ``req.project_path``."""
    with Project.open(req.project_path) as project:
        return unfamiliar_first(project, checker=req.checker, threshold=req.threshold)


def toggle_unfamiliar_first(window: ListHost, on: bool) -> None:
    """Review ▸ Unfamiliar-entity descriptions first: list only pairs with a description the
    shown checker does not entail, unfamiliar entities first (computed in the background, for
    the checker and threshold shown when it is switched on); off: the usual list.
    """
    if not on or window.project is None:
        window.pair_list.set_priority(None)
        return
    req = QueueRequest(str(window.project.path), window.checker, window.threshold)
    bar = window.statusBar()
    bar.showMessage("Finding entity descriptions…")

    def done(result: object) -> None:
        queue: dict[int, tuple[float, str]] = result  # type: ignore[assignment]
        if not window.action("unfamiliar_first").isChecked():
            return  # switched off while it ran
        window.pair_list.set_priority(queue)
        top = max(queue.values(), default=None)
        bar.showMessage(
            f"{len(queue)} pairs with a non-entailed entity description"
            + (f"; first: {top[1]}" if top else ""),
            15000,
        )

    window.runner.submit(Job(LANE, run_queue, req, on_done=done, on_error=window.show_error))
