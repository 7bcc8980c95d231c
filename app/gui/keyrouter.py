"""Keyboard routing: judging keys reach the controller wherever focus is in the window.

The filter sits on the application, so a key pressed while the pair list, the checker box or a
button has focus still judges; only text fields (search, number fields, editable combos) keep
their keys. Esc leaves a text field for the text; a letter that a number field swallows says so.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QKeySequenceEdit,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from app.gui.judging import JudgingController


def is_text_field(w: QObject | None) -> bool:
    """Whether a widget takes typed text (where judging keys must not act)."""
    if isinstance(w, (QLineEdit, QAbstractSpinBox, QPlainTextEdit, QKeySequenceEdit)):
        return True
    if isinstance(w, QComboBox) and w.isEditable():
        return True
    return isinstance(w, QTextEdit) and not w.isReadOnly()


def typing() -> bool:
    """Whether keyboard focus is in a text field (judging keys are then silent)."""
    return is_text_field(QApplication.focusWidget())


class KeyRouter(QObject):
    """Sends the judging keys pressed anywhere in ``window`` to the controller.

    Args:
        window: the top-level window whose keys are routed.
        controller: runs the actions the keys are bound to.
        home: where focus goes back to after Esc in a text field (the output text).
        search: the search box (Enter there also goes back to judging).
        say: shows a status-bar message (text, milliseconds).
    """

    def __init__(
        self,
        window: QWidget,
        controller: JudgingController,
        home: QWidget,
        search: QLineEdit,
        say: Callable[[str, int], None],
    ) -> None:
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.home = home
        self.search = search
        self.say = say
        app = QApplication.instance()
        assert app is not None
        app.installEventFilter(self)

    def stop(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        # Qt offers a key event to the filter again for each parent it propagates to; a
        # judging key is taken on the first offer, so it never runs twice.
        if watched.window() is not self.window:
            return False
        assert isinstance(event, QKeyEvent)
        if typing() or is_text_field(watched):
            if event.key() == Qt.Key.Key_Escape or (
                watched is self.search and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            ):
                self.home.setFocus()  # back to judging
                return True
            self._typing_hint(event)
            return False
        return self.controller.press(event.key(), event.modifiers())

    def _typing_hint(self, event: QKeyEvent) -> None:
        """A judging key that a number field swallows: say where the keys went and why."""
        w = QApplication.focusWidget()
        if not isinstance(w, QAbstractSpinBox) or not event.text().isalpha():
            return
        if self.controller.action_for(event.key(), event.modifiers()) is None:
            return
        self.say(
            f"'{event.text()}' went to the {w.accessibleName() or 'number'} field, not to "
            "judging: press Esc or click the text to judge",
            5000,
        )
