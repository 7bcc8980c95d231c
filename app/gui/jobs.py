"""Job functions for the task runner: each opens the ``Project`` named by an immutable request.

Opening a project that the window already has open hands out the window's own engine (see
:mod:`app.store.db`): one owner of the file's SQLite connections and locks per process, so a
worker never opens the file a second time beside the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.io.records import FieldMapping, Format, PairRecord
from app.store import Project
from app.tasks import JobContext

if TYPE_CHECKING:
    from app.io.exporter import ExportFormat
    from app.io.importer import AddedPair


@dataclass(frozen=True)
class AnalysisRequest:
    project_path: str
    checkers: tuple[str, ...]
    device: str = "auto"
    chunk_size: int = 16
    model_dir: str | None = None  # a user's model directory, for the checkers of this request


@dataclass(frozen=True)
class ImportRequest:
    project_path: str
    file: str
    fmt: Format | None
    mapping: FieldMapping
    skip_invalid: bool


@dataclass(frozen=True)
class AddRequest:
    project_path: str
    record: PairRecord
    where: str


@dataclass(frozen=True)
class ExportRequest:
    project_path: str
    out: str
    fmt: ExportFormat


@dataclass(frozen=True)
class DemoRequest:
    project_path: str
    checkers: tuple[str, ...] | None = None  # None: the default checkers


def run_analysis(req: AnalysisRequest, ctx: JobContext) -> dict:
    from app.analysis import analyze
    from models.registry import load_checker

    # Loading errors reach the window's one error handler as they are.
    checkers = [
        load_checker(n, device=req.device, model_dir=req.model_dir)  # type: ignore[arg-type]
        for n in req.checkers
    ]
    with Project.open(req.project_path) as project:
        report = analyze(
            project,
            checkers,
            chunk_size=req.chunk_size,
            progress=ctx.progress,
            should_stop=ctx.should_stop,
            on_chunk=lambda ids: ctx.partial(list(ids)),
            step=ctx.step,
        )
    return report.to_json()


def analyse_in_process(req: AnalysisRequest, ctx: JobContext) -> dict:
    """The window's analysis: :func:`run_analysis` in a child process (:mod:`app.process_job`).

    Loading spaCy and the models and parsing hold Python's lock for hundreds of milliseconds
    at a time; in a thread of the window that is as long a freeze of the window. In its own
    interpreter the analysis leaves the window's lock alone; its steps, progress and committed
    chunks come back over the pipe, and a cancel goes the other way.
    """
    from app.process_job import run_in_process

    ctx.step("Starting the analysis", 0, 0)
    return run_in_process(_analyse, req, ctx, what="analysis")  # type: ignore[no-any-return]


def _analyse(req: AnalysisRequest, ctx: JobContext) -> dict:
    from app.analysis import LOADING

    ctx.step(LOADING, 0, 0)
    return run_analysis(req, ctx)


def run_import(req: ImportRequest, ctx: JobContext) -> dict:
    from app.io.importer import import_file

    with Project.open(req.project_path) as project:
        project.refuse_output(req.file, action="import")
        report = import_file(
            project,
            req.file,
            fmt=req.fmt,
            mapping=req.mapping,
            skip_invalid=req.skip_invalid,
            progress=ctx.progress,
        )
    return report.to_json()


def run_add(req: AddRequest, ctx: JobContext) -> AddedPair:
    from app.io.importer import add_pair

    with Project.open(req.project_path) as project:
        return add_pair(project, req.record, req.where)


def run_export(req: ExportRequest, ctx: JobContext) -> int:
    from app.io.exporter import export

    with Project.open(req.project_path) as project:
        project.refuse_output(req.out)
        return export(project, req.out, fmt=req.fmt, progress=ctx.progress)


def demo_in_process(req: DemoRequest, ctx: JobContext) -> str:
    """:func:`build_demo` in a child process, for the reason given in :func:`analyse_in_process`."""
    from app.process_job import run_in_process

    ctx.step("Starting", 0, 0)
    return str(run_in_process(build_demo, req, ctx, what="demo preparation"))


def build_demo(req: DemoRequest, ctx: JobContext) -> str:
    """Create the demo project or bring its analysis up to date (see :mod:`app.demo`)."""
    from app.demo import prepare_demo

    path = prepare_demo(
        Path(req.project_path),
        checkers=req.checkers,
        progress=ctx.progress,
        should_stop=ctx.should_stop,
        step=ctx.step,
    )
    return str(path)
