"""What a panel may use of the window it sits in (issue 25, item 15).

The panels (adjudication, familiarity, learning, merging, report, reviewer, help, analysis) are
given a host typed by these protocols, never the main window's class: they do not import
:mod:`app.gui.main`, which only assembles the rooms (widgets, menus, docks, wiring). The host
they are given is the review session (:class:`app.gui.session.ReviewSession`).

- :class:`PanelHost` is the core a panel works with: the store (``project``), the current pair,
  the judging controller (its undo stack and its ``judged``/``updated`` signals), the task
  runner, and the ways to move on (reload the list, select and show a pair, give the keyboard
  back to judging).
- :class:`ListHost` adds the shown checker and threshold, the window's actions by name, and
  :class:`PairListing`: what a panel may do with the pair list, said as intents (place a panel
  in or under the list, order or filter it, show new rows, find the next open pair). No panel
  reaches the list's widgets (its table, model, proxy, filters or splitter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QStatusBar, QWidget

    from app.gui.judging import JudgingController
    from app.settings import Settings
    from app.store import Project
    from app.store.queries import ListRow
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

    def focus_judging(self) -> None:
        """Give the keyboard back to judging (the output text)."""

    def show_error(self, err: BaseException) -> None:
        """Say what went wrong, in one place for the whole window."""

    def statusBar(self) -> QStatusBar:  # noqa: N802 - Qt's name
        """The window's status bar, for short messages."""

    def window(self) -> QWidget:
        """The top-level widget: the parent of a panel's dialogs."""


class PairListing(Protocol):
    """What a panel may do with the pair list: intents, not the list's widgets."""

    @property
    def reloaded(self) -> SignalInstance:
        """Emitted when the list's rows were read again (project, checker, threshold...)."""

    @property
    def column_sorted(self) -> SignalInstance:
        """Emitted when the editor sorted the list by a column header."""

    @property
    def scores_hidden(self) -> bool:
        """Whether the list hides the model's scores (blind and AIS modes)."""

    def place_in_list(self, widget: QWidget) -> None:
        """Put ``widget`` in the list's pane, under its search box."""

    def place_under_list(self, panel: QWidget) -> None:
        """Put ``panel`` under the list (hidden until :meth:`show_under_list`)."""

    def show_under_list(self, panel: QWidget, share: tuple[int, int] = (2, 5)) -> None:
        """Show a panel placed under the list, giving it ``share`` of the column's height."""

    def set_order(
        self,
        rank: dict[int, int] | None,
        reasons: dict[int, str],
        keep: set[int] | None = None,
        *,
        sort: bool = True,
    ) -> None:
        """Order the list by ``rank`` (None: by its column), reasons in the ids' tooltips,
        listing only the pairs in ``keep`` (None: all); ``sort`` sorts it now."""

    def set_priority(self, priority: dict[int, tuple[float, str]] | None) -> None:
        """List only these pairs, highest priority first (None: the usual list)."""

    def show_rows(self, rows: list[ListRow]) -> None:
        """Show these rows (built elsewhere) without reading the list again."""

    def next_open(self, current: int | None) -> int | None:
        """The next pair not done after the current row, in the list's own order."""

    def set_disagree_filter(self, on: bool) -> None:
        """List only the pairs the reviewers disagree on (or all again)."""

    def refresh_disagreements(self) -> None:
        """Judgments changed: the disagreement filter reads them again."""


class ListHost(PanelHost, Protocol):
    """A host whose pair list, checker and threshold a panel steers or sits beside."""

    @property
    def pair_list(self) -> PairListing:
        """The pair list, as intents."""

    @property
    def checker(self) -> str | None:
        """The checker shown."""

    @property
    def version(self) -> str | None:
        """The shown checker's version."""

    @property
    def threshold(self) -> float:
        """The flagging threshold shown."""

    @property
    def threshold_edited(self) -> SignalInstance:
        """Emitted with the threshold's new value as the editor changes it."""

    def set_threshold(self, value: float, *, reload: bool = True) -> None:
        """Show ``value`` as the threshold; without ``reload`` the list is not read again
        (its rows were built at that threshold)."""

    def refresh_checkers(self) -> None:
        """Fill the checker box again from the project's runs."""

    def refresh_rows(self, output_ids: list[int]) -> None:
        """Read these pairs' rows again (their scores changed)."""

    def pairs_changed(self) -> None:
        """The project's pairs changed (import, merge): new filter choices and rows."""

    def action(self, name: str) -> QAction:
        """The window's action ``name`` (see :mod:`app.gui.actions`)."""
