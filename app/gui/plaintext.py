"""Text from data is shown as plain text, never as markup.

Qt guesses: a ``QLabel`` in its default ``AutoText`` format and every tooltip that looks like
HTML (``Qt.mightBeRichText``) is rendered as rich text, so an arc label, an id or a checker name
such as ``<img src=…>`` from a crafted project file would load an image. Labels that show data
are set to ``Qt.PlainText``; tooltips go through :class:`PlainToolTips`, which shows them
escaped; menu texts escape ``&`` (a mnemonic); matplotlib texts escape ``$`` (mathtext).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QTextCursor
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTextEdit,
    QToolTip,
    QWidget,
)


def as_rich(text: str) -> str:
    """Rich text that any Qt widget renders as exactly ``text`` (escaped, line breaks kept)."""
    return QtGuiNamespace.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)


def plain_label(label: QLabel) -> QLabel:
    """A label that never interprets its text as markup."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def menu_text(text: str) -> str:
    """Text for a menu entry or button shown literally (``&`` is a mnemonic marker)."""
    return text.replace("&", "&&")


def mpl_text(text: str) -> str:
    """Text for a matplotlib label shown literally (``$…$`` is mathtext)."""
    return text.replace("$", r"\$")


class PlainToolTips(QObject):
    """Shows a widget's tooltips as plain text.

    Installed as an event filter on the widget that receives ``QEvent.ToolTip`` (for scroll
    areas, the viewport); it runs before the widget's own handler and shows the tip escaped.

    Args:
        target: the widget whose tooltip events are taken over.
        text_at: the tooltip text at a position in ``target`` (None or "" for none).
    """

    def __init__(self, target: QWidget, text_at: Callable[[QPoint], str | None]) -> None:
        super().__init__(target)
        self.target = target
        self.text_at = text_at
        target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.target or event.type() != QEvent.Type.ToolTip:
            return False
        assert isinstance(event, QHelpEvent)
        text = self.text_at(event.pos())
        if text:
            QToolTip.showText(event.globalPos(), as_rich(text), self.target)
        else:
            QToolTip.hideText()
            event.ignore()
        return True


def text_view_tips(view: QTextEdit) -> PlainToolTips:
    """Plain tooltips for a text pane whose tooltips live in its character formats."""

    def at(pos: QPoint) -> str:
        cursor = view.cursorForPosition(pos)
        if not cursor.atBlockEnd():
            cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        return cursor.charFormat().toolTip()

    return PlainToolTips(view.viewport(), at)


def item_view_tips(view: QAbstractItemView) -> PlainToolTips:
    """Plain tooltips for the cells of an item view."""

    def at(pos: QPoint) -> str | None:
        index = view.indexAt(pos)
        tip = index.data(Qt.ItemDataRole.ToolTipRole) if index.isValid() else None
        return None if tip is None else str(tip)

    return PlainToolTips(view.viewport(), at)


def header_tips(header: QHeaderView) -> PlainToolTips:
    """Plain tooltips for the sections of a header."""

    def at(pos: QPoint) -> str | None:
        section = header.logicalIndexAt(pos)
        model = header.model()
        if section < 0 or model is None:
            return None
        tip = model.headerData(section, header.orientation(), Qt.ItemDataRole.ToolTipRole)
        return None if tip is None else str(tip)

    return PlainToolTips(header.viewport(), at)
