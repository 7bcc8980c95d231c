"""File ▸ Merge judgments from…: other reviewers' project files or JSONL exports.

The merge runs on the task runner's io lane (it opens the project by path, like import); its
report is shown as plain text (:attr:`Merging.report`), and the pair list and the pair on screen
are refreshed.
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


class Merging:
    """File ▸ Merge judgments from…: merge into the host's project, keep the last report shown."""

    def __init__(self, host: ListHost) -> None:
        self.host = host
        #: The last merge report shown.
        self.report: MergeReportDialog | None = None

    def ask(self) -> None:
        """Ask for the files to merge, and merge them."""
        if self.host.project is not None:
            self.merge(ask_merge_files(self.host.window()))

    def merge(self, files: list[str]) -> None:
        """Merge ``files`` into the project; then refresh the list and show the report."""
        host = self.host
        if host.project is None or not files:
            return

        def done(result: dict[str, Any]) -> None:
            host.pairs_changed()
            oid = host.current_output_id()
            if oid is not None:
                host.show_pair(oid)
            new = result["json"]["judgments_new"]
            host.statusBar().showMessage(f"Merged: {new} new judgments", 8000)
            self.report = MergeReportDialog(result["text"], host.window())
            self.report.open()

        start_merge(
            host.window(), host.runner, str(host.project.path), files, done, host.show_error
        )
