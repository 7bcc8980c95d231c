"""Light and dark themes: Fusion, a palette and a small stylesheet from resources/style."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from app.paths import resources_dir


def dark_palette() -> QPalette:
    p = QPalette()
    R = QPalette.ColorRole
    base, window, text = QColor(30, 30, 30), QColor(45, 45, 45), QColor(230, 230, 230)
    for role, colour in (
        (R.Window, window),
        (R.WindowText, text),
        (R.Base, base),
        (R.AlternateBase, window),
        (R.ToolTipBase, window),
        (R.ToolTipText, text),
        (R.Text, text),
        (R.Button, window),
        (R.ButtonText, text),
        (R.BrightText, QColor(255, 80, 80)),
        (R.Link, QColor(110, 170, 255)),
        (R.Highlight, QColor(42, 110, 200)),
        (R.HighlightedText, QColor(255, 255, 255)),
        (R.PlaceholderText, QColor(150, 150, 150)),
    ):
        p.setColor(role, colour)
    p.setColor(QPalette.ColorGroup.Disabled, R.Text, QColor(120, 120, 120))
    p.setColor(QPalette.ColorGroup.Disabled, R.ButtonText, QColor(120, 120, 120))
    return p


def apply(app: QApplication, dark: bool) -> None:
    style = QStyleFactory.create("Fusion")
    if style is not None:
        app.setStyle(style)
    app.setPalette(dark_palette() if dark else style.standardPalette() if style else QPalette())
    qss = resources_dir() / "style" / ("dark.qss" if dark else "light.qss")
    app.setStyleSheet(qss.read_text(encoding="utf-8") if qss.exists() else "")
