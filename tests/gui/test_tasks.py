from __future__ import annotations

import time

from app.tasks import Job, JobContext, TaskRunner, running_threads


def slow(request: int, ctx: JobContext) -> int:
    for _ in range(200):
        if ctx.should_stop():
            return -request
        time.sleep(0.005)
        ctx.progress(1, 2)
    return request


def test_newest_request_wins_and_results_arrive_by_signal(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = TaskRunner()
    results: list[int] = []
    for n in (1, 2, 3):
        runner.submit(Job("model", slow, n, on_done=results.append))
    qtbot.waitUntil(lambda: 3 in results, timeout=10000)
    # 1 was cancelled by the newer requests, 2 was replaced while pending and never ran
    assert results == [-1, 3]
    assert not runner.is_busy("model")
    runner.shutdown()


def test_errors_reach_the_handler(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = TaskRunner()
    errors: list[BaseException] = []

    def boom(_r: object, _c: JobContext) -> None:
        raise ValueError("bad")

    runner.submit(Job("io", boom, None, on_error=errors.append))
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert str(errors[0]) == "bad"
    runner.shutdown()


def test_shutdown_cancels_and_joins(qtbot) -> None:  # type: ignore[no-untyped-def]
    runner = TaskRunner()
    runner.submit(Job("model", slow, 1))
    runner.submit(Job("io", slow, 2))
    qtbot.waitUntil(lambda: running_threads() == 2, timeout=5000)
    runner.shutdown()
    assert running_threads() == 0
    runner.submit(Job("model", slow, 1))  # ignored after shutdown
    assert running_threads() == 0
