"""The one task runner that owns every background thread of the window.

Workers receive an immutable request built on the main thread and report back only through
signals (queued to the main thread); they never touch widgets or the window's ``Project``: a job
that needs the project opens it from the request's path, which shares the window's engine. Each *lane* runs one job at a
time; submitting to a busy lane cancels the running job and the newest request wins (only the
latest pending request is kept). :meth:`TaskRunner.shutdown` cancels and joins everything.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

SWITCH_INTERVAL = 0.001  # seconds

_live_lock = threading.Lock()
_live = 0


def running_threads() -> int:
    """Worker threads still inside their job (tests check that none outlives a test)."""
    with _live_lock:
        return _live


class JobContext:
    """Given to a job function: progress and partial results out, cancellation in."""

    def __init__(self, worker: _Worker) -> None:
        self._worker = worker
        self._stop = threading.Event()

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def progress(self, done: int, total: int) -> None:
        self._worker.progressed.emit(self._worker, done, total)

    def step(self, what: str, done: int, total: int) -> None:
        """Progress with words: what is being done ("Parsing"), and how far (total 0: unknown)."""
        self._worker.stepped.emit(self._worker, what, done, total)

    def partial(self, payload: object) -> None:
        self._worker.partial.emit(self._worker, payload)

    def cancel(self) -> None:
        self._stop.set()


JobFn = Callable[[Any, JobContext], Any]


@dataclass(frozen=True)
class Job:
    """A unit of background work: ``fn(request, ctx)`` and where its results go."""

    lane: str
    fn: JobFn
    request: Any
    on_done: Callable[[Any], None] | None = None
    on_error: Callable[[BaseException], None] | None = None
    on_progress: Callable[[int, int], None] | None = None
    on_partial: Callable[[object], None] | None = None
    #: (what, done, total) from :meth:`JobContext.step`; without it a step goes to on_progress.
    on_step: Callable[[str, int, int], None] | None = None
    on_finished: Callable[[bool], None] | None = field(default=None)  # arg: cancelled


class _Worker(QThread):
    progressed = Signal(object, int, int)  # worker, done, total
    stepped = Signal(object, str, int, int)  # worker, what, done, total
    partial = Signal(object, object)  # worker, payload
    succeeded = Signal(object, object)  # worker, result
    failed = Signal(object, object)  # worker, exception

    def __init__(self, job: Job, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.ctx = JobContext(self)

    def run(self) -> None:  # runs in the worker thread
        global _live
        with _live_lock:
            _live += 1
        try:
            self._run()
        finally:
            with _live_lock:
                _live -= 1

    def _run(self) -> None:
        try:
            result = self.job.fn(self.job.request, self.ctx)
        except BaseException as err:  # noqa: BLE001 - handed to the window's one error handler
            self.failed.emit(self, err)
        else:
            self.succeeded.emit(self, result)


class TaskRunner(QObject):
    """Runs jobs in background threads, one per lane at a time, newest request wins."""

    busy_changed = Signal(str, bool)  # lane, busy

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running: dict[str, _Worker] = {}
        self._pending: dict[str, Job] = {}
        self._closed = False
        # Workers run Python between their C calls; a shorter GIL switch interval than the
        # default 5 ms hands the GIL back to the event loop sooner, keeping stalls short.
        if sys.getswitchinterval() > SWITCH_INTERVAL:
            sys.setswitchinterval(SWITCH_INTERVAL)

    def submit(self, job: Job) -> None:
        """Run ``job`` in its lane; a running job there is cancelled and this one runs next."""
        if self._closed:
            return
        running = self._running.get(job.lane)
        if running is not None:
            self._pending[job.lane] = job  # replaces any older pending request
            running.ctx.cancel()
            return
        self._start(job)

    def cancel(self, lane: str) -> None:
        self._pending.pop(lane, None)
        worker = self._running.get(lane)
        if worker is not None:
            worker.ctx.cancel()

    def is_busy(self, lane: str) -> bool:
        return lane in self._running

    def active_threads(self) -> int:
        return sum(1 for w in self._running.values() if w.isRunning())

    def wait_idle(self, timeout_ms: int = 30000) -> bool:
        """Block until every lane is idle (tests and shutdown)."""
        for worker in list(self._running.values()):
            if not worker.wait(timeout_ms):
                return False
        return True

    def shutdown(self, timeout_ms: int = 30000) -> None:
        """Cancel every job and join every thread; later submissions are ignored."""
        self._closed = True
        self._pending.clear()
        for worker in list(self._running.values()):
            worker.ctx.cancel()
        for lane, worker in list(self._running.items()):
            worker.wait(timeout_ms)
            self._drop(lane, worker)

    def _start(self, job: Job) -> None:
        worker = _Worker(job)
        worker.progressed.connect(self._on_progress)
        worker.stepped.connect(self._on_step)
        worker.partial.connect(self._on_partial)
        # Slots of this main-thread object: the calls are queued to the main thread.
        worker.succeeded.connect(self._on_succeeded)
        worker.failed.connect(self._on_failed)
        self._running[job.lane] = worker
        self.busy_changed.emit(job.lane, True)
        worker.start()

    @Slot(object, int, int)
    def _on_progress(self, worker: _Worker, done: int, total: int) -> None:
        if not self._closed and worker.job.on_progress is not None:
            worker.job.on_progress(done, total)

    @Slot(object, str, int, int)
    def _on_step(self, worker: _Worker, what: str, done: int, total: int) -> None:
        if self._closed:
            return
        if worker.job.on_step is not None:
            worker.job.on_step(what, done, total)
        elif worker.job.on_progress is not None:
            worker.job.on_progress(done, total)

    @Slot(object, object)
    def _on_partial(self, worker: _Worker, payload: object) -> None:
        if not self._closed and worker.job.on_partial is not None:
            worker.job.on_partial(payload)

    @Slot(object, object)
    def _on_succeeded(self, worker: _Worker, result: object) -> None:
        self._finish(worker, result, None)

    @Slot(object, object)
    def _on_failed(self, worker: _Worker, error: BaseException) -> None:
        self._finish(worker, None, error)

    def _finish(self, worker: _Worker, result: Any, error: BaseException | None) -> None:
        job = worker.job
        if self._running.get(job.lane) is not worker:
            return  # already joined by shutdown()
        worker.wait()
        cancelled = worker.ctx.should_stop()
        self._drop(job.lane, worker)
        if not self._closed:
            if error is not None:
                if job.on_error is not None:
                    job.on_error(error)
            elif job.on_done is not None:
                job.on_done(result)
            if job.on_finished is not None:
                job.on_finished(cancelled)
        nxt = self._pending.pop(job.lane, None)
        if nxt is not None and not self._closed:
            self._start(nxt)
        elif not self._closed:
            self.busy_changed.emit(job.lane, False)

    def _drop(self, lane: str, worker: _Worker) -> None:
        if self._running.get(lane) is worker:
            del self._running[lane]
        worker.deleteLater()
