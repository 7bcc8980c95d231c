"""File ▸ Export report…: the audit report (:mod:`app.audit.report`) written in the background."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from app.store import Project
from app.tasks import Job, JobContext

if TYPE_CHECKING:
    from app.gui.host import ListHost

#: Its own lane: a report never cancels an export or an analysis, nor they it.
LANE = "report"


@dataclass(frozen=True)
class ReportRequest:
    project_path: str
    out: str
    checker: str | None
    threshold: float


def run_report(req: ReportRequest, ctx: JobContext) -> str:
    """A job function: write the report from the project's own connection."""
    from app.audit.report import write_report

    with Project.open(req.project_path) as project:
        write_report(
            project,
            req.out,
            checker=req.checker,
            threshold=req.threshold,
            progress=ctx.progress,
            should_stop=ctx.should_stop,
        )
    return req.out


def export_report(window: ListHost, out: str | None = None) -> ReportRequest | None:
    """Ask where to write the report (unless ``out`` is given) and write it in the background.

    The status bar says when it is written or why not; errors go through the window's handler.
    Returns the request submitted, None when there is no project or the user cancelled.
    """
    project = window.project
    if project is None:
        return None
    if out is None:
        suggested = str(Path(project.path).with_suffix(".report.html"))
        out, _ = QFileDialog.getSaveFileName(
            window.window(), "Export report", suggested, "HTML report (*.html)"
        )
        if not out:
            return None
    req = ReportRequest(str(project.path), out, window.checker, window.threshold)
    bar = window.statusBar()
    bar.showMessage("Writing the report: finding entities…")

    def progress(done: int, total: int) -> None:
        bar.showMessage(f"Writing the report: finding entities {done}/{total}…")

    def done(path: object) -> None:
        bar.showMessage(f"Report written to {path}", 10000)

    window.runner.submit(
        Job(
            LANE,
            run_report,
            req,
            on_done=done,
            on_error=window.show_error,
            on_progress=progress,
        )
    )
    return req
