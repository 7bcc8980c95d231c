"""``QUndoStack`` commands that mirror the project's own undo history.

The project keeps the truth: every decision is a committed ``judge`` and ``undo``/``redo`` are
appended to the audit log. The Qt stack mirrors that log so the Edit menu, the undo view and
the keyboard behave as users expect, and it is rebuilt from ``Project.history()`` on open.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from app.store import Change, JudgmentKey, JudgmentValue, Project

Notify = Callable[[Change, str], None]  # change, 'do' | 'undo' | 'redo'


class JudgeCommand(QUndoCommand):
    """One decision. The first ``redo`` commits it; later ones replay through the project."""

    def __init__(
        self,
        project: Project,
        notify: Notify,
        key: JudgmentKey | None = None,
        value: JudgmentValue | None = None,
        *,
        change: Change | None = None,
    ) -> None:
        super().__init__()
        self.project = project
        self.notify = notify
        self.key = key if key is not None else change.key  # type: ignore[union-attr]
        self.value = value
        self.change = change
        # Commands rebuilt from the log are already applied: skip the push's redo().
        self.skip_next = change is not None
        if change is not None:
            self.setText(change.describe())
        else:
            self.setText(Change(0, self.key, None, value).describe())

    def redo(self) -> None:
        if self.skip_next:
            self.skip_next = False
            return
        if self.change is None:
            self.change = self.project.judge(self.key, self.value)
            self.notify(self.change, "do")
            return
        done = self.project.redo()
        if done is not None:
            self.notify(done, "redo")

    def undo(self) -> None:
        if self.skip_next:
            self.skip_next = False
            return
        done = self.project.undo()
        if done is not None:
            # The store's undo stack and this one are the same sequence; a mismatch would
            # mean someone else changed the project underneath us.
            self.notify(done, "undo")


def rebuild(stack: QUndoStack, project: Project, notify: Notify) -> None:
    """Fill ``stack`` from the audit log: undoable changes, then the redoable ones undone."""
    stack.clear()
    undo, redo = project.history()
    stack.setUndoLimit(0)  # unlimited
    commands = []
    for change in undo:
        stack.push(JudgeCommand(project, notify, change=change))
    for change in reversed(redo):
        cmd = JudgeCommand(project, notify, change=change)
        stack.push(cmd)
        commands.append(cmd)
    for cmd in reversed(commands):
        cmd.skip_next = True
        stack.undo()
    stack.setClean()
