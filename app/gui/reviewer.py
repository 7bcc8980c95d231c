"""Who judges: the reviewer's name, asked once in the window and kept in the settings.

The name is asked by a bar above the pair list (not a modal dialog, so nothing blocks the window
or takes the keyboard from judging) until it is given once; Review ▸ Reviewer name… changes it.
The status bar shows it at all times. :class:`Reviewer` owns the bar and the status bar's label,
and switches the open project to a new name through its host (:class:`app.gui.host.PanelHost`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app import settings as S
from app.gui.plaintext import plain_label
from app.settings import Settings
from app.store.project import check_reviewer, default_annotator
from models.errors import ProjectError

if TYPE_CHECKING:
    from app.gui.host import PanelHost


class ReviewerBar(QFrame):
    """ "Who is reviewing?": a name field and a button; :attr:`chosen` carries the name."""

    chosen = Signal(str)

    def __init__(self, proposed: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 3, 6, 3)
        # Judgments are kept per reviewer: until a name is given they go under the proposed one
        # (the user name), so keeping it keeps the judgments made so far in view.
        question = QLabel(
            "Who is reviewing? Your judgments are recorded, shown and undone under this name "
            f"(asked once; so far: {proposed}):"
        )
        question.setWordWrap(True)
        lay.addWidget(plain_label(question), 1)
        self.name = QLineEdit(proposed)
        self.name.setAccessibleName("Reviewer name")
        self.name.returnPressed.connect(self._use)
        lay.addWidget(self.name)
        self.use = QPushButton("Use this name")
        self.use.clicked.connect(self._use)
        lay.addWidget(self.use)
        self.problem = plain_label(QLabel())
        self.problem.setStyleSheet("color: #c62828")
        lay.addWidget(self.problem)

    def _use(self) -> None:
        try:
            name = check_reviewer(self.name.text())
        except ProjectError as err:
            self.problem.setText(str(err))
            return
        self.problem.clear()
        self.chosen.emit(name)


def reviewer_text(name: str, confirmed: bool) -> str:
    """The status bar's reviewer field."""
    return f"Reviewer: {name}" if confirmed else f"Reviewer: {name} (not confirmed)"


def ask_reviewer_name(parent: QWidget, current: str) -> str | None:
    """Review ▸ Reviewer name…: a new name, or None when cancelled or left as it was."""
    text, ok = QInputDialog.getText(
        parent,
        "Reviewer name",
        "Judgments from now on are recorded, shown and undone under this name:",
        QLineEdit.EchoMode.Normal,
        current,
    )
    if not ok or text.strip() == current:
        return None
    return text


def reviewer_name(settings: Settings) -> str:
    """Whose judgments the window records, shows and undoes."""
    return settings.get(S.REVIEWER) or default_annotator()


class Reviewer:
    """The reviewer's name: the bar that asks it, the status bar's label, and switching.

    Args:
        host: the window, as a panel sees it.
    """

    def __init__(self, host: PanelHost) -> None:
        self.host = host
        self.bar = ReviewerBar(default_annotator())
        self.bar.chosen.connect(self.switch)
        self.bar.setVisible(not self.confirmed())
        self.label = plain_label(QLabel(reviewer_text(self.name, self.confirmed())))
        self.label.setAccessibleName("Reviewer")

    @property
    def name(self) -> str:
        """Whose judgments the window records, shows and undoes."""
        return reviewer_name(self.host.settings)

    def confirmed(self) -> bool:
        """Whether the name was given (not only proposed)."""
        return bool(self.host.settings.get(S.REVIEWER))

    def ask(self) -> None:
        """Review ▸ Reviewer name…"""
        name = ask_reviewer_name(self.host.window(), self.name)
        if name is not None:
            self.switch(name)

    def switch(self, name: str) -> None:
        """Judge as ``name`` from now on: kept in the settings and shown in the status bar; the
        open project shows, counts and undoes that reviewer's own judgments."""
        host = self.host
        try:
            name = check_reviewer(name)
        except ProjectError as err:
            host.show_error(err)
            return
        host.settings.set(S.REVIEWER, name)
        # Hiding the bar would pass its focus on to the next field, the search box, where the
        # next judging keys would be typed: the keyboard goes back to judging instead.
        focus = QApplication.focusWidget()
        bar_had_focus = focus is not None and self.bar.isAncestorOf(focus)
        self.bar.hide()
        if bar_had_focus or QApplication.focusWidget() is None:
            host.focus_judging()
        self.label.setText(reviewer_text(name, True))
        project = host.project
        if project is None or project.annotator == name:
            return
        oid = host.current_output_id()
        project.set_annotator(name)
        host.judging.attach(project)  # the undo stack is now this reviewer's
        host.reload_rows()
        if oid is not None:
            host.select_pair(oid)
            host.show_pair(oid)
        host.statusBar().showMessage(f"Judging as {name}", 5000)
