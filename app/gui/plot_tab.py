"""A page of the statistics: one matplotlib plot and a button saving it as PNG."""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import QFileDialog, QPushButton, QVBoxLayout, QWidget


class PlotTab(QWidget):
    """One plot of the statistics with its Save as PNG button."""

    def __init__(self, fig: Figure, name: str) -> None:
        super().__init__()
        self.fig = fig
        self.name = name
        lay = QVBoxLayout(self)
        canvas = FigureCanvasQTAgg(fig)
        canvas.setAccessibleName(name)
        lay.addWidget(canvas, 1)
        save = QPushButton("Save as &PNG…")
        save.setAccessibleName(f"Save {name} as PNG")
        save.clicked.connect(self._save)
        lay.addWidget(save)

    def _save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save plot", f"{self.name}.png", "PNG (*.png)")
        if path:
            self.save(path)

    def save(self, path: str) -> None:
        self.fig.savefig(path, dpi=120)
