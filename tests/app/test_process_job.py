"""A job function run in a child process (app.process_job): result, progress, errors, cancel,
a child that dies and one that will not stop."""

from __future__ import annotations

import os
import threading
import time

import pytest

from app import process_job
from app.process_job import run_in_process
from models.errors import FactDeskError, InputError


class Ctx:
    """The task runner's context, as the job thread sees it."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.seen: list[tuple[int, int]] = []

    def should_stop(self) -> bool:
        return self.stop.is_set()

    def progress(self, done: int, total: int) -> None:
        self.seen.append((done, total))


# ---- job functions: module level, so that the child imports them by name


def count(n: int, ctx: Ctx) -> dict:
    for k in range(n):
        ctx.progress(k + 1, n)
    return {"pid": os.getpid(), "n": n}


def bad_input(path: str, _ctx: Ctx) -> None:
    raise InputError("not a number", path=path, line=3, field="score")


class Unpicklable(Exception):
    def __init__(self, a: str, b: str) -> None:  # pickle rebuilds it with one argument: fails
        super().__init__(f"{a} and {b}")


def raise_unpicklable(_req: None, _ctx: Ctx) -> None:
    raise Unpicklable("this", "that")


def until_stopped(_req: None, ctx: Ctx) -> str:
    steps = 0
    while not ctx.should_stop():
        steps += 1
        ctx.progress(steps, 0)
        time.sleep(0.01)
    return f"stopped after {steps} steps"


def never_stops(_req: None, ctx: Ctx) -> None:
    ctx.progress(os.getpid(), 0)  # says which process it is
    time.sleep(60)


def dies(code: int, _ctx: Ctx) -> None:
    os._exit(code)


# ---- tests


def test_result_and_progress_come_back_from_another_process() -> None:
    ctx = Ctx()
    out = run_in_process(count, 4, ctx)
    assert out["n"] == 4 and out["pid"] != os.getpid()
    assert ctx.seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_an_error_in_the_child_is_raised_here_with_its_message() -> None:
    with pytest.raises(InputError, match=r"data.csv, line 3, field 'score': not a number"):
        run_in_process(bad_input, "data.csv", Ctx())


def test_an_error_that_cannot_be_carried_back_is_described_with_its_traceback() -> None:
    with pytest.raises(FactDeskError) as info:
        run_in_process(raise_unpicklable, None, Ctx(), what="test job")
    text = str(info.value)
    assert text.startswith("The test job failed in its process: ")
    assert "Unpicklable: this and that" in text and "raise_unpicklable" in text


class CancelAfter(Ctx):
    """Cancels once the child has reported ``steps`` steps: it was running when the cancel came."""

    def __init__(self, steps: int = 3) -> None:
        super().__init__()
        self.steps = steps

    def progress(self, done: int, total: int) -> None:
        super().progress(done, total)
        if len(self.seen) == self.steps:
            self.stop.set()


def test_a_cancel_reaches_the_running_child_which_ends_as_it_chooses() -> None:
    ctx = CancelAfter()
    out = run_in_process(until_stopped, None, ctx)
    steps = int(out.split()[2])
    assert out == f"stopped after {steps} steps" and steps >= 3
    assert len(ctx.seen) == steps


def test_a_cancel_before_the_child_starts_is_seen_at_its_first_check() -> None:
    ctx = Ctx()
    ctx.stop.set()
    assert run_in_process(until_stopped, None, ctx) == "stopped after 0 steps"


def test_a_child_that_dies_is_reported_with_its_exit_code() -> None:
    with pytest.raises(
        FactDeskError,
        match=r"The adaptation process ended without a result "
        r"\(exit code 3\)",
    ):
        run_in_process(dies, 3, Ctx(), what="adaptation")


def test_a_child_that_ignores_the_cancel_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process_job, "STOP_GRACE", 0.5)
    ctx = CancelAfter(1)  # once the child has said which process it is
    with pytest.raises(FactDeskError, match="did not stop within"):
        run_in_process(never_stops, None, ctx)
    ((pid, _),) = ctx.seen
    with pytest.raises(ProcessLookupError):  # terminated and reaped, not left sleeping
        os.kill(pid, 0)
