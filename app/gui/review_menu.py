"""The Review and Analysis menus' dialogs: relabel, keyboard, statistics, unfamiliar first.

:class:`ReviewMenu` opens each dialog over the window and hands its answer to the judging
controller, the settings or the pair list, through the review session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog

from app.gui.actions import show_key_hints
from app.gui.session import ReviewSession

if TYPE_CHECKING:
    from app.gui.stats import StatsDialog


class ReviewMenu:
    """Relabel, keyboard, statistics and unfamiliar-first slots.

    Args:
        session: the review session.
    """

    def __init__(self, session: ReviewSession) -> None:
        self.session = session
        session.judging.relabel_requested.connect(self.relabel_dialog)

    def relabel_dialog(self) -> None:
        """Relabel the item under the keyboard with an error type and a note."""
        session = self.session
        judging = session.judging
        if session.project is None or judging.current_unit() is None:
            return
        from app.gui.dialogs import RelabelDialog

        dlg = RelabelDialog(
            session.project.taxonomy(), judging.current_judgment(), session.window()
        )
        if dlg.exec():
            judging.relabel(*dlg.values())

    def show_keys(self) -> None:
        """The keyboard dialog: see every judging key and remap it (kept in the settings)."""
        from app.gui.keys import KeysDialog

        dialog = KeysDialog(self.session.judging.keys_text, self.session.window())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.remap_keys(dialog.keys())

    def remap_keys(self, keys: dict[str, str]) -> None:
        """Store a new key map and use it at once."""
        settings, judging = self.session.settings, self.session.judging
        for action, key in keys.items():
            settings.set_key(action, key)
        judging.set_keys(settings.keymap())
        show_key_hints(self.session.actions, judging.keys_text)
        self.session.redraw_header()

    def stats_dialog(self) -> StatsDialog | None:
        """The statistics of the open project as shown (checker, version, threshold)."""
        session = self.session
        if session.project is None:
            return None
        from app.gui.stats import StatsDialog

        return StatsDialog(
            session.project,
            session.checker,
            session.version,
            session.judging.checker_label,
            session.threshold,
            session.window(),
        )

    def show_stats(self) -> None:
        dialog = self.stats_dialog()
        if dialog is not None:
            dialog.exec()

    def toggle_unfamiliar_first(self) -> None:
        from app.gui.familiarity import toggle_unfamiliar_first

        toggle_unfamiliar_first(self.session, self.session.action("unfamiliar_first").isChecked())
