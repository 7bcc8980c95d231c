"""Running a job function in a child process, for work that must not share the window's
interpreter.

A job thread of :mod:`app.tasks` shares Python's lock with the event loop: pure-Python work
(first imports of numpy and scikit-learn, fitting, building rows) holds it for tens of
milliseconds at a time and the window stalls. :func:`run_in_process` is called from such a
thread with the job's function and request; it starts a fresh interpreter (``spawn``: nothing of
the window, no inherited SQLite descriptor, whose closing would drop this process's locks on the
project; see :mod:`app.store.db`), runs ``fn(request, ctx)`` there and waits on a pipe, which
leaves the lock to the event loop. The child opens the project by path, as every job does;
SQLite's WAL lets both processes work on the file.

Progress (and a job's steps and partial results, :class:`app.tasks.JobContext`) comes back
over the pipe; a cancel is sent over it and seen by the child's
``should_stop`` between steps, so the job ends as it would in a thread (what it finished is
kept). A child that does not stop within :data:`STOP_GRACE` seconds of a cancel is terminated
(SQLite rolls back its open transaction). The function, the request and the result must be
picklable; an error raised in the child is raised again here, or, if it cannot be pickled,
described in a :class:`~models.errors.FactDeskError` with the child's traceback.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import signal
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from models.errors import FactDeskError

#: Seconds a child may take to stop after a cancel before it is terminated.
STOP_GRACE = 10.0
#: Seconds between two looks at the cancel flag while waiting on the child.
POLL = 0.05


class Context(Protocol):
    """What a job function gets: :class:`app.tasks.JobContext` or the child's stand-in."""

    def should_stop(self) -> bool: ...

    def progress(self, done: int, total: int) -> None: ...

    def step(self, what: str, done: int, total: int) -> None: ...

    def partial(self, payload: object) -> None: ...


class _ChildContext:
    """The job's context in the child: progress out over the pipe, a cancel in."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._stop = False

    def should_stop(self) -> bool:
        if not self._stop and self._conn.poll():
            self._stop = self._conn.recv() == "stop"
        return self._stop

    def progress(self, done: int, total: int) -> None:
        self._conn.send(("progress", done, total))

    def step(self, what: str, done: int, total: int) -> None:
        self._conn.send(("step", what, done, total))

    def partial(self, payload: object) -> None:
        self._conn.send(("partial", payload))


def _child_main(conn: Connection, fn: Callable[[Any, Any], Any], request: Any) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent decides (it cancels).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = fn(request, _ChildContext(conn))
    except BaseException as err:  # noqa: BLE001 - every failure goes back to the parent
        trace = traceback.format_exc()
        try:
            conn.send(("error", pickle.dumps(err), trace))
        except Exception:  # noqa: BLE001 - an error that cannot be pickled: describe it
            conn.send(("error", None, trace))
    else:
        conn.send(("done", result))
    finally:
        conn.close()


def run_in_process(
    fn: Callable[[Any, Any], Any], request: Any, ctx: Context, *, what: str = "job"
) -> Any:
    """Run ``fn(request, ctx)`` in a child process and return its result (see module doc).

    Args:
        fn: a module-level function (the child imports it by name).
        request: its picklable request.
        ctx: this thread's job context: progress is forwarded to it, its cancel to the child.
        what: the job's name in messages ("adaptation").

    Raises:
        FactDeskError: the child ended without a result (killed, crashed, or an error that
            could not be carried back), saying how.
        Whatever ``fn`` raised in the child, when it could be pickled.
    """
    mp = multiprocessing.get_context("spawn")
    here, there = mp.Pipe()
    proc = mp.Process(target=_child_main, args=(there, fn, request), daemon=True)
    proc.start()
    there.close()  # the child's end: EOF here once the child is gone
    stop_deadline: float | None = None
    try:
        while True:
            if stop_deadline is None and ctx.should_stop():
                here.send("stop")
                stop_deadline = time.monotonic() + STOP_GRACE
            if stop_deadline is not None and time.monotonic() > stop_deadline:
                proc.terminate()
                proc.join()
                raise FactDeskError(
                    f"The {what} did not stop within {STOP_GRACE:.0f} s of the cancel and was "
                    "ended; what it had committed is kept."
                )
            if not here.poll(POLL):
                continue
            try:
                message = here.recv()
            except EOFError:
                proc.join()
                raise FactDeskError(
                    f"The {what} process ended without a result (exit code {proc.exitcode}); "
                    "what it had committed is kept."
                ) from None
            kind = message[0]
            if kind == "progress":
                ctx.progress(message[1], message[2])
            elif kind == "step":
                ctx.step(message[1], message[2], message[3])
            elif kind == "partial":
                ctx.partial(message[1])
            elif kind == "done":
                return message[1]
            else:
                _raise_child_error(message[1], message[2], what)
    finally:
        if proc.is_alive() and stop_deadline is None:
            with contextlib.suppress(OSError):
                here.send("stop")  # this side failed: let the child stop as after a cancel
        here.close()
        proc.join(STOP_GRACE)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _raise_child_error(pickled: bytes | None, trace: str, what: str) -> None:
    err: BaseException | None = None
    if pickled is not None:
        try:
            err = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - an exception class that cannot be rebuilt
            err = None
    if err is None:
        last = trace.strip().splitlines()[-1] if trace.strip() else "unknown error"
        raise FactDeskError(f"The {what} failed in its process: {last}\n\n{trace}")
    raise err
