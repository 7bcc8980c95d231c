"""File ▸ Merge judgments from…: other reviewers' project files or JSONL exports.

The merge runs on the task runner's io lane (it opens the project by path, like import); its
report is shown as plain text, and the pair list and the pair on screen are refreshed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.store import Project
from app.tasks import Job, JobContext, TaskRunner

if TYPE_CHECKING:
    from app.gui.host import ListHost


@dataclass(frozen=True)
class MergeRequest:
    project_path: str
    files: tuple[str, ...]


def run_merge(req: MergeRequest, ctx: JobContext) -> dict[str, Any]:
    """The job: merge ``files`` into the project; returns the report's JSON and its text."""
    from app.io.merge import merge

    with Project.open(req.project_path) as project:
        report = merge(project, req.files)
    return {"json": report.to_json(), "text": report.text()}


class MergeReportDialog(QDialog):
    """The merge report as plain text (file names, ids and reasons come from data)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Merge report")
        self.resize(760, 420)
        lay = QVBoxLayout(self)
        self.text = QPlainTextEdit(text)
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Merge report")
        lay.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)


def start_merge(
    parent: QWidget,
    runner: TaskRunner,
    project_path: str,
    files: list[str],
    on_done: Callable[[dict[str, Any]], None],
    on_error: Callable[[BaseException], None],
) -> None:
    runner.submit(
        Job(
            "io",
            run_merge,
            MergeRequest(project_path, tuple(files)),
            on_done=on_done,
            on_error=on_error,
        )
    )


def ask_merge_files(parent: QWidget) -> list[str]:
    files, _ = QFileDialog.getOpenFileNames(
        parent,
        "Merge judgments from",
        "",
        "FactDesk projects and JSONL exports (*.factdesk *.jsonl);;All files (*)",
    )
    return files


def merge_into_window(window: ListHost, files: list[str]) -> None:
    """Merge ``files`` into the window's project; then refresh the list and show the report."""
    if window.project is None or not files:
        return

    def done(result: dict[str, Any]) -> None:
        window.pairs.set_project(window.project)
        window.reload_rows()
        oid = window.current_output_id()
        if oid is not None:
            window.show_pair(oid)
        new = result["json"]["judgments_new"]
        window.statusBar().showMessage(f"Merged: {new} new judgments", 8000)
        window.merge_report = MergeReportDialog(result["text"], window.window())
        window.merge_report.open()

    start_merge(
        window.window(), window.runner, str(window.project.path), files, done, window.show_error
    )
