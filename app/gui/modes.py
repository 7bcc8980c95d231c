"""The judging modes as the menus and the list show them: blind, AIS, advance.

The judging controller owns the modes; :class:`Modes` turns the menu's checks into calls on it,
mirrors its changes back into the menus and the settings, and hides the list's model scores
(and the filters and orders that would reveal them) while the model is hidden.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction

from app import settings as S
from app.gui.judging import JudgingController
from app.gui.pairlist import PairList
from app.settings import Settings


class Modes:
    """Blind, AIS and advance: the menu actions, the settings and the list follow the controller.

    Args:
        judging: the judging controller (owner of the modes).
        settings: where blind and advance are kept.
        pairs: the pair list, whose scores hide in blind and AIS modes.
        action: the window's action by name ("blind", "ais", "advance").
    """

    def __init__(
        self,
        judging: JudgingController,
        settings: Settings,
        pairs: PairList,
        action: Callable[[str], QAction],
    ) -> None:
        self.judging = judging
        self.settings = settings
        self.pairs = pairs
        self.action = action
        judging.blind = settings.get(S.BLIND)
        judging.advance = settings.get(S.ADVANCE)

    def toggle_blind(self) -> None:
        self.judging.set_blind(self.action("blind").isChecked())

    def toggle_ais(self) -> None:
        self.judging.set_ais(self.action("ais").isChecked())

    def toggle_advance(self) -> None:
        self.judging.advance = self.action("advance").isChecked()
        self.settings.set(S.ADVANCE, self.judging.advance)

    def changed(self) -> None:
        """The controller changed a mode: the menus mirror it and the settings keep it."""
        j = self.judging
        for name, on in (("blind", j.blind), ("ais", j.ais_mode)):
            action = self.action(name)
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)
        if self.settings.get(S.BLIND) != j.blind:
            self.settings.set(S.BLIND, j.blind)
        self.hide_scores()

    def hide_scores(self) -> None:
        """Blind and AIS modes: no model score in the list, nor a filter that would reveal one.

        In AIS mode every pair starts at stage 1 (model hidden), so the list hides the scores
        for the whole mode.
        """
        self.pairs.set_scores_hidden(self.judging.blind or self.judging.ais_mode)
