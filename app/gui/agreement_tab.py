"""Statistics ▸ Reviewer agreement: the figures of :func:`app.review.agreement.agreement` as a table,
and a plot of the chosen comparison's confusion matrix beside alpha and agreement per section."""

from __future__ import annotations

from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.gui.plaintext import mpl_text, plain_label
from app.review.agreement import agreement
from app.store import Project

COLUMNS = ("comparison", "items", "raw agreement", "Cohen's κ")


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


class AgreementTab(QWidget):
    """One section at a time (level or AIS stage): every two reviewers and each vs the model."""

    def __init__(
        self,
        project: Project,
        checker: str | None,
        version: str | None,
        threshold: float,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = "reviewer agreement"
        self.result: dict[str, Any] = agreement(
            project, checker=checker, version=version, threshold=threshold
        )
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Level / stage"))
        self.section = QComboBox()
        self.section.setAccessibleName("Agreement level or AIS stage")
        for name, sec in self.result["sections"].items():
            self.section.addItem(f"{name} ({sec['items']} items)", name)
        top.addWidget(self.section)
        top.addStretch(1)
        lay.addLayout(top)
        self.summary = plain_label(QLabel())
        self.summary.setWordWrap(True)  # on a line of its own: the figures are never cut
        lay.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setAccessibleName("Agreement figures")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.fig = Figure(figsize=(7, 3.6), layout="tight")
        self.canvas = FigureCanvasQTAgg(self.fig)
        self.canvas.setAccessibleName("Agreement plot")
        # Table above, plot below: drag the handle between them to give either more room.
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.table)
        split.addWidget(self.canvas)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        save = QPushButton("Save as &PNG…")
        save.clicked.connect(self._save)
        lay.addWidget(save)
        self.rows: list[tuple[str, str, dict[str, Any]]] = []
        self.section.currentIndexChanged.connect(self._show_section)
        self.table.itemSelectionChanged.connect(self.draw)
        first = next(
            (i for i, sec in enumerate(self.result["sections"].values()) if sec["items"]), 0
        )
        self.section.setCurrentIndex(first)
        self._show_section()

    def current(self) -> dict[str, Any]:
        return self.result["sections"][self.section.currentData()]

    def _show_section(self) -> None:
        sec = self.current()
        self.summary.setText(
            f"{sec['items_judged_by_several']} items judged by several reviewers · "
            f"raw agreement {_fmt(sec['raw_agreement'])} · "
            f"Krippendorff's α {_fmt(sec['krippendorff_alpha'])}"
        )
        self.rows = [(p["a"], p["b"], p) for p in sec["pairs"]]
        self.rows += [(m["reviewer"], "model", m) for m in sec["vs_model"]]
        self.table.setRowCount(len(self.rows))
        for r, (a, b, figures) in enumerate(self.rows):
            cells = (
                f"{a} vs {b}",
                str(figures["n"]),
                _fmt(figures["raw_agreement"]),
                _fmt(figures["cohen_kappa"]),
            )
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        if self.rows:
            self.table.selectRow(0)
        self.draw()

    def draw(self) -> None:
        """The selected comparison's confusion matrix, and alpha and agreement per section."""
        self.fig.clear()
        sec = self.current()
        left = self.fig.add_subplot(121)
        picked = self.table.currentRow()
        if 0 <= picked < len(self.rows):
            a, b, figures = self.rows[picked]
            labels = sec["labels"]
            matrix = figures["confusion"]
            left.imshow(matrix, cmap="Blues")
            for i in range(len(labels)):
                for j in range(len(labels)):
                    left.text(
                        j,
                        i,
                        str(matrix[i][j]),
                        ha="center",
                        va="center",
                        bbox={"facecolor": "white", "alpha": 0.8},
                    )
            left.set_xticks(range(len(labels)), [mpl_text(x) for x in labels])
            left.set_yticks(range(len(labels)), [mpl_text(x) for x in labels])
            left.set_xlabel(mpl_text(b))
            left.set_ylabel(mpl_text(a))
            left.set_title(f"κ {_fmt(figures['cohen_kappa'])}")
        else:
            left.text(0.5, 0.5, "fewer than two reviewers", ha="center", va="center")
            left.set_axis_off()
        right = self.fig.add_subplot(122)
        names = [n for n, s in self.result["sections"].items() if s["items"]]
        xs = range(len(names))
        alphas = [self.result["sections"][n]["krippendorff_alpha"] or 0.0 for n in names]
        raws = [self.result["sections"][n]["raw_agreement"] or 0.0 for n in names]
        right.bar([x - 0.2 for x in xs], alphas, 0.4, label="Krippendorff's α", hatch="//")
        right.bar([x + 0.2 for x in xs], raws, 0.4, label="raw agreement", edgecolor="black")
        right.set_xticks(list(xs), [n.replace("ais_", "AIS ").split("_")[0] for n in names])
        right.set_ylim(min(0.0, *alphas) if alphas else 0.0, 1.0)
        right.axhline(0, color="black", linewidth=0.8)
        right.legend(fontsize="small")
        right.set_title("Agreement by level")
        self.canvas.draw_idle()

    def _save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save plot", f"{self.name}.png", "PNG (*.png)")
        if path:
            self.save(path)

    def save(self, path: str) -> None:
        self.fig.savefig(path, dpi=120)


def add_agreement_tab(
    dialog: Any, project: Project, checker: str | None, version: str | None, threshold: float
) -> AgreementTab:
    """Register the tab in the Statistics dialog (its ``tabs``)."""
    tab = AgreementTab(project, checker, version, threshold)
    dialog.tabs.addTab(tab, "Reviewer agreement")
    dialog.agreement_tab = tab
    return tab
