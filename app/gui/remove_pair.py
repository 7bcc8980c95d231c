"""Edit ▸ Remove pair: take out the pair shown, added or imported by mistake.

The removal itself (:func:`app.io.removal.remove_pairs`) refuses a pair that has judgments or
decisions in the audit log, so what an editor judged is never lost; what it asks here is a
confirmation, since a removal is not undone. The list then shows the pair that took its place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QMessageBox

from app.gui.session import ReviewSession
from app.io.records import logical_id
from app.io.removal import Removed, remove_pairs
from app.store import Project
from app.tasks import Job, JobContext


@dataclass(frozen=True)
class RemoveRequest:
    project_path: str
    output_id: int


def run_remove(req: RemoveRequest, ctx: JobContext) -> Removed:
    with Project.open(req.project_path) as project:
        return remove_pairs(project, [req.output_id])


class RemovePair:
    """The slot of Edit ▸ Remove pair.

    Args:
        session: the review session (project, pair shown, list, runner, status bar).
        confirm: asks the editor (the question, in words); a message box when None.
    """

    def __init__(
        self, session: ReviewSession, confirm: Callable[[str], bool] | None = None
    ) -> None:
        self.session = session
        self.confirm = confirm or self._ask

    def ask(self) -> None:
        session = self.session
        oid = session.current_output_id()
        if session.project is None or oid is None:
            session.statusBar().showMessage("No pair shown to remove", 8000)
            return
        bundle = session.judging.bundle
        if bundle is None or bundle.output.id != oid:
            return
        name = logical_id(bundle.output.external_id, bundle.output.system)
        if bundle.judgments:
            session.statusBar().showMessage(
                f"Pair '{name}' is kept: it has {len(bundle.judgments)} judgment"
                f"{'s' if len(bundle.judgments) != 1 else ''}, and judged pairs are never removed",
                10000,
            )
            return
        question = (
            f"Remove pair '{name}' and its analysis from the project? A removal cannot be "
            "undone. A pair with judgments is kept."
        )
        if not self.confirm(question):
            return
        row = session.pairs.table.currentIndex().row()

        def done(removed: object) -> None:
            assert isinstance(removed, Removed)
            session.pairs_changed()
            proxy = session.pairs.proxy
            if proxy.rowCount() > 0:
                session.pairs.table.setCurrentIndex(proxy.index(min(row, proxy.rowCount() - 1), 0))
            else:
                session.show_nothing()
            session.statusBar().showMessage(f"Removed pair '{removed.pairs[0]}'", 10000)

        session.runner.submit(
            Job(
                "io",
                run_remove,
                RemoveRequest(str(session.project.path), oid),
                on_done=done,
                on_error=session.show_error,
            )
        )

    def _ask(self, question: str) -> bool:
        answer = QMessageBox.question(
            self.session.window(),
            "Remove pair",
            question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes
