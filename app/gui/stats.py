"""The statistics view: three embedded matplotlib plots, each exportable as PNG."""

from __future__ import annotations

from collections import defaultdict

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QDialog,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.gui.agreement_tab import add_agreement_tab
from app.gui.learning_plots import learning_plots
from app.gui.plaintext import mpl_text
from app.gui.plot_tab import PlotTab
from app.store import Project
from app.store.queries import (
    JudgedScores,
    error_types_by_system,
    pair_score_values,
    sentence_judgment_scores,
)


def score_distribution(fig: Figure, scores: list[float], label: str, threshold: float) -> None:
    ax = fig.add_subplot(111)
    ax.hist(scores, bins=20, range=(0, 1), color="#5c7cfa", edgecolor="black", hatch="//")
    ax.axvline(threshold, color="#c62828", linestyle="--", label=f"threshold {threshold:.2f}")
    ax.set_xlabel(f"lowest sentence support per pair ({mpl_text(label)})")
    ax.set_ylabel("pairs")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no fractional ticks
    ax.set_title("Score distribution")
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.06), frameon=False)  # above the bars


def left_out_note(n: int, what: str, why: str = "reviewers disagree") -> str:
    """A title's second line saying how many items a plot leaves out, and why."""
    if not n:
        return ""
    return f"\n{n} {what}{'' if n == 1 else 's'} left out: {why}, not adjudicated"


def agreement(
    fig: Figure, rows: list[tuple], label: str, threshold: float, left_out: int = 0
) -> None:
    """2x2 table of the final label vs the model's flag for judged sentences (one per
    sentence, however many reviewers judged it; ``left_out`` disputed ones not shown)."""
    counts: defaultdict[tuple[str, str], int] = defaultdict(int)
    for human, score, _err, _system in rows:
        if score is None:
            continue
        model = "supported" if score >= threshold else "unsupported"
        counts[(human, model)] += 1
    names = ["supported", "unsupported"]
    grid = [[counts[(h, m)] for m in names] for h in names]
    ax = fig.add_subplot(111)
    ax.imshow(grid, cmap="Blues")
    for i in range(2):
        for j in range(2):
            ax.text(
                j,
                i,
                str(grid[i][j]),
                ha="center",
                va="center",
                fontsize=14,
                bbox={"facecolor": "white", "alpha": 0.8},
            )
    ax.set_xticks([0, 1], [f"model: {n}" for n in names])
    ax.set_yticks([0, 1], [f"judged: {n}" for n in names])
    total = sum(sum(r) for r in grid)
    agree = grid[0][0] + grid[1][1]
    pct = f"{100 * agree / total:.0f}% agree" if total else "no judged sentences with scores"
    ax.set_title(
        f"Judged vs model ({mpl_text(label)}): {pct}" + left_out_note(left_out, "sentence")
    )


WHY_TYPES = "reviewers disagree on the label or error type"


def errors_by_system(fig: Figure, rows: list[tuple], left_out: int = 0) -> None:
    """Judged items by error type and system, each item once (its final decision's type)."""
    systems = sorted({mpl_text(s or "—") for s, _e, _n in rows})
    errors = sorted({e for _s, e, _n in rows})
    ax = fig.add_subplot(111)
    if not rows:
        ax.text(
            0.5,
            0.5,
            "no error types recorded yet" + left_out_note(left_out, "item", WHY_TYPES),
            ha="center",
            va="center",
        )
        ax.set_axis_off()
        return
    table = {(mpl_text(s or "—"), e): n for s, e, n in rows}
    hatches = ["", "//", "..", "xx", "\\\\", "++", "oo", "--", "**", "||", "OO", ".."]
    bottom = [0] * len(systems)
    for k, e in enumerate(errors):
        values = [table.get((s, e), 0) for s in systems]
        ax.bar(
            systems,
            values,
            bottom=bottom,
            label=mpl_text(e),
            hatch=hatches[k % len(hatches)],
            edgecolor="black",
        )
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_ylabel("judged items")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Error types by system" + left_out_note(left_out, "item", WHY_TYPES))
    # Beside the bars, not over them.
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), title="error type")


class Pages(QSplitter):
    """The statistics' pages: their titles listed on the left, whole however many there are
    (a tab bar cut them off behind scroll arrows), the page on the right; the handle between
    them gives the plots more room. Offers the part of ``QTabWidget``'s API the dialog uses.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.titles = QListWidget()
        self.titles.setAccessibleName("Statistics pages")
        self.titles.setSpacing(3)
        self.stack = QStackedWidget()
        self.addWidget(self.titles)
        self.addWidget(self.stack)
        self.setChildrenCollapsible(False)
        self.setStretchFactor(1, 1)
        self.titles.currentRowChanged.connect(self.stack.setCurrentIndex)

    def addTab(self, page: QWidget, title: str) -> int:
        self.stack.addWidget(page)
        item = QListWidgetItem(title)  # titles are plain text
        self.titles.addItem(item)
        if self.titles.currentRow() < 0:
            self.titles.setCurrentRow(0)
        width = self.titles.sizeHintForColumn(0) + 2 * self.titles.frameWidth() + 12
        self.titles.setMinimumWidth(width)
        self.setSizes([width, max(self.stack.sizeHint().width(), 600)])
        return self.stack.count() - 1

    def count(self) -> int:
        return self.stack.count()

    def tabText(self, index: int) -> str:
        item = self.titles.item(index)
        return "" if item is None else item.text()

    def indexOf(self, page: QWidget) -> int:
        return self.stack.indexOf(page)

    def widget(self, index: int) -> QWidget | None:
        return self.stack.widget(index)

    def currentIndex(self) -> int:
        return self.stack.currentIndex()

    def setCurrentIndex(self, index: int) -> None:
        self.titles.setCurrentRow(index)


class StatsDialog(QDialog):
    """Plots of one project under the checker and threshold the window shows.

    Args:
        project: the open project.
        checker: registry name of the shown checker (None: not analysed).
        version: that checker's current version.
        checker_label: its display name.
        threshold: the flagging threshold.
        parent: the dialog's parent window.
    """

    def __init__(
        self,
        project: Project,
        checker: str | None,
        version: str | None,
        checker_label: str,
        threshold: float,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Statistics")
        # A window of its own size: the plots get room on demand (maximise, drag its edges).
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.setWindowFlag(Qt.WindowType.WindowMinimizeButtonHint, True)
        thr = threshold
        label = checker_label or "no checker"
        scores = pair_score_values(project, checker, version) if checker and version else []
        judged = (
            sentence_judgment_scores(project, checker, version)
            if checker and version
            else JudgedScores([], 0)
        )
        errors = error_types_by_system(project)
        self.tabs = Pages()
        self.plots: list[PlotTab] = []
        for name, draw in (
            ("score distribution", lambda f: score_distribution(f, scores, label, thr)),
            ("agreement", lambda f: agreement(f, judged.rows, label, thr, judged.left_out)),
            (
                "error types by system",
                lambda f: errors_by_system(f, errors.rows, errors.left_out),
            ),
            *learning_plots(project, checker, version, label, thr),
        ):
            fig = Figure(figsize=(7, 5), layout="tight")
            draw(fig)
            tab = PlotTab(fig, name)
            self.plots.append(tab)
            self.tabs.addTab(tab, name.capitalize())
        add_agreement_tab(self, project, checker, version, thr)
        from app.gui.familiarity import FamiliarityTab  # the familiarity code loads when shown

        runner = getattr(parent, "runner", None)  # the window's: entities found off its thread
        self.tabs.addTab(FamiliarityTab(project, checker, thr, runner), "Entity familiarity")
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs)
        self.resize(self._first_size(parent))

    def _first_size(self, parent: QWidget | None) -> QSize:
        """Nine tenths of the window it belongs to (at least room for the page titles and a
        plot), within the screen."""
        want = QSize(1100, 760)
        if parent is not None:
            want = QSize(int(parent.width() * 0.9), int(parent.height() * 0.9))
        lay = self.layout()
        extra = (
            8 if lay is None else lay.contentsMargins().left() + lay.contentsMargins().right() + 8
        )
        want.setWidth(max(want.width(), self.tabs.titles.minimumWidth() + 700 + extra))
        want.setHeight(max(want.height(), 640))
        screen = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        return want.boundedTo(screen.size())
