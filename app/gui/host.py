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
    from PySide6.QtWidgets import (
        QDialog,
        QDoubleSpinBox,
        QLabel,
        QSplitter,
        QStatusBar,
        QTableView,
        QWidget,
    )

    from app.gui.actions import Actions
    from app.gui.judging import JudgingController
    from app.gui.pairlist import PairList
    from app.gui.textview import MarkedText
    from app.item_models import PairFilterProxy, PairTableModel
    from app.settings import Settings
    from app.store import Project
    from app.tasks import TaskRunner


class PanelHost(Protocol):
    """The window as a panel sees it: the store, the current pair, judging, moving on."""

    @property
    def judging(self) -> JudgingController:
        """Decisions, the undo stack, and the ``judged``/``updated`` signals."""

    @property
    def runner(self) -> TaskRunner:
        """The window's one task runner."""

    @property
    def settings(self) -> Settings:
        """The user's settings."""

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

    @property
    def pairs(self) -> PairList:
        """The pair list."""

    @property
    def model(self) -> PairTableModel:
        """The list's rows."""

    @property
    def proxy(self) -> PairFilterProxy:
        """The list's filter and order."""

    @property
    def table(self) -> QTableView:
        """The list's table."""

    @property
    def threshold(self) -> QDoubleSpinBox:
        """The threshold box."""

    @property
    def actions_(self) -> Actions:
        """The window's actions by name."""

    @property
    def left_split(self) -> QSplitter:
        """The splitter under the pair list."""

    @property
    def reviewer_bar(self) -> QWidget:
        """The bar asking the reviewer's name."""

    @property
    def reviewer_label(self) -> QLabel:
        """The status bar's reviewer label."""

    @property
    def output_view(self) -> MarkedText:
        """The output text."""

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
