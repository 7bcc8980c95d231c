"""Adaptation as a window job (Analysis > Adapt to my judgments), run in a child process.

:func:`run_adapt` is the task runner's job function: it hands :func:`adapt_in_process` to
:func:`app.process_job.run_in_process`, so the fitting, the re-scoring and the building of the
new pair list run in their own interpreter and the window's event loop never waits on them
(issue 14: stall p99 < 50 ms). Nothing here imports Qt: the child starts with what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.process_job import Context, run_in_process

if TYPE_CHECKING:
    from app.learning.calibration import Fit
    from app.store import Project


@dataclass(frozen=True)
class AdaptRequest:
    project_path: str
    #: "adapt", or "bundled"/"project" to switch which model is used.
    action: str = "adapt"
    #: The window's threshold, the value it last took from a calibration (None: none), and
    #: the default it goes back to when the shown calibration belonged to another version.
    threshold: float = 0.5
    calibrated_value: float | None = None
    default_threshold: float = 0.5
    #: Whose judgments the new pair list shows (the window's reviewer; None: the user name).
    reviewer: str | None = None


@dataclass(frozen=True)
class NewRows:
    """The pair list under the version shown after the job, built in the child so that the
    window does not stall on a large project (see :class:`app.gui.learning.LearningPanel`)."""

    version: str
    threshold: float
    fit: Fit | None
    rows: list
    audit_id: int  # the latest audit entry when the rows were read (judged since: stale)
    reviewer: str = ""  # whose judgments the rows show (another reviewer's window: stale)


def run_adapt(req: AdaptRequest, ctx: Context) -> dict[str, Any]:
    """The window's job: :func:`adapt_in_process` in a child process."""
    return run_in_process(adapt_in_process, req, ctx, what="adaptation")


def adapt_in_process(req: AdaptRequest, ctx: Context) -> dict[str, Any]:
    """Adapt (or switch models) and report with the new pair list; a cancel keeps what is done."""
    from app.learning.adapt import adapt_project, use_project_model
    from app.store import Project
    from models.errors import Cancelled

    with Project.open(req.project_path) as project:
        if req.reviewer is not None:
            project.set_annotator(req.reviewer)  # the list shows the reviewer's own judgments
        try:
            if req.action == "adapt":
                out = adapt_project(
                    project, progress=ctx.progress, should_stop=ctx.should_stop
                ).to_json()
            else:
                version = use_project_model(
                    project,
                    req.action == "project",
                    progress=ctx.progress,
                    should_stop=ctx.should_stop,
                )
                out = {"switched": req.action, "version": version}
        except Cancelled:
            return {"cancelled": True}
        out["new_rows"] = _new_rows(project, req)
    return out


def _new_rows(project: Project, req: AdaptRequest) -> NewRows:
    from sqlalchemy import func, select

    from app.learning.calibration import shown_threshold
    from app.store.queries import list_rows
    from app.store.schema import AuditEntry

    with project.session() as s:
        audit_id = s.scalar(select(func.max(AuditEntry.id))) or 0
    version = project.current_versions()["combined"]
    fit = shown_threshold(project, "combined", version)
    threshold = next_threshold(req.threshold, req.calibrated_value, fit, req.default_threshold)
    rows = list_rows(project, "combined", version, threshold)
    return NewRows(version, threshold, fit, rows, audit_id, project.annotator)


def next_threshold(
    current: float, calibrated_value: float | None, fit: Fit | None, default: float
) -> float:
    """The threshold for a newly shown version: its calibration; else the default when the
    current one was another version's calibration; else the editor's own."""
    if fit is not None:
        return fit.threshold
    if calibrated_value is not None and abs(current - calibrated_value) < 5e-4:
        return default
    return current
