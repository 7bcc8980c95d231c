"""What a panel may use of the window it sits in (issue 25, item 15).

The panels (adjudication, familiarity, learning, merging, report, reviewer, help) are given a
:class:`PanelHost`, never the main window's class: they do not import :mod:`app.gui.main`, which
assembles them (menus, docks, wiring) and implements the protocol. ``PanelHost`` is the core a
panel works with: the store (``project``), the current pair, the judging controller (its undo
stack and its ``judged``/``updated`` signals), the task runner, and the ways to move on (reload
the list, select and show a pair). :class:`ListHost` adds the parts of the window a panel that
steers the pair list or places itself in it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import (
        QDialog,
        QDoubleSpinBox,
        QLabel,
        QSplitter,
        QStatusBar,
        QTableView,
        QWidget,
    )

    from app.gui.judging import JudgingController
    from app.gui.pairlist import PairList
    from app.item_models import PairFilterProxy, PairTableModel
    from app.settings import Settings
    from app.store import Project
    from app.tasks import TaskRunner


class PanelHost(Protocol):
    """The window as a panel sees it: the store, the current pair, judging, moving on."""

    judging: JudgingController
    runner: TaskRunner
    settings: Settings

    @property
    def project(self) -> Project | None:
        """The open project (the store), None when none is open."""

    def current_output_id(self) -> int | None:
        """The pair shown, None when none is."""

    def reload_rows(self) -> None:
        """Read the pair list again (after the project's pairs or judgments changed)."""

    def select_pair(self, output_id: int) -> None:
        """Select the pair ``output_id`` in the list."""

    def show_pair(self, output_id: int) -> None:
        """Show the pair ``output_id`` in the texts."""

    def show_error(self, err: BaseException) -> None:
        """Say what went wrong, in one place for the whole window."""

    def statusBar(self) -> QStatusBar:  # noqa: N802 - Qt's name
        """The window's status bar, for short messages."""

    def window(self) -> QWidget:
        """The top-level widget: the parent of a panel's dialogs."""


class ListHost(PanelHost, Protocol):
    """A host whose pair list, checker and threshold a panel steers or sits beside."""

    pairs: PairList
    model: PairTableModel
    proxy: PairFilterProxy
    table: QTableView
    threshold: QDoubleSpinBox
    actions_: dict[str, QAction]
    left_split: QSplitter
    reviewer_bar: QWidget
    reviewer_label: QLabel
    output_view: QWidget
    merge_report: QDialog | None

    @property
    def checker(self) -> str | None:
        """The checker shown."""

    @property
    def version(self) -> str | None:
        """The shown checker's version."""

    @property
    def keys_text(self) -> dict[str, str]:
        """Each action's key as mapped now."""

    def refresh_checkers(self) -> None:
        """Fill the checker box again from the project's runs."""

    def show_checker(self) -> None:
        """Show the checker box's choice in the list and the texts."""
