"""Analysis on a Ray cluster: the same chunks, checkers and writes as a local run, scored elsewhere.

The driver (this process, the only one that opens the project file) claims chunks of pending
pairs exactly as a local analysis does (:func:`app.analysis.claim_chunk`), sends each chunk's
texts to a scoring actor, and writes each result as it comes back with
:func:`app.analysis.store_chunk`, one transaction per chunk. An actor loads the checkers once
and scores with :func:`app.analysis.score_chunk`, the function a local run calls, so the rows
written (scores, sentences, arcs, not-checked records, versions) are those of a local run.

What can go wrong loses at most the chunks in flight:

- a worker dies: its chunks in flight go back to the queue and a new actor takes its place
  (up to ``max_replacements`` per run; then the run fails and its claims are freed);
- the run is cancelled: nothing more is sent, the results still in flight are dropped, the
  claims are freed;
- the driver is killed: the chunks written are kept; the next analysis records the run as
  interrupted, frees its claims and scores the rest.

Ray is an optional extra (``pip install 'factdesk[ray]'``) imported only here and only when used.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from app import analysis
from app.analysis import AnalysisReport, ChunkResult, Progress
from app.engines.ray_cluster import CONNECT_TIMEOUT, Cluster, check_timeout, start_cluster
from app.store.project import Project
from models.errors import Cancelled, EngineError, FactDeskError

RAY_MISSING = (
    "the Ray engine needs the 'ray' extra, which is not installed here: pip install 'factdesk[ray]'"
)
# Chunks sent to one actor before its first result is back: it never waits for the driver.
IN_FLIGHT_PER_WORKER = 2


def import_ray() -> Any:
    """The ray module, or a one-line :class:`EngineError` when the extra is not installed."""
    try:
        import ray
    except ImportError as exc:
        raise EngineError(RAY_MISSING) from exc
    return ray


@dataclass(frozen=True)
class CheckerSpec:
    """A checker as the driver knows it: who it is, and where and how it runs ("cpu int8")."""

    name: str
    version: str
    display_name: str
    grain: str
    runs_on: str


class ScoringWorker:
    """One Ray actor: loads the checkers once, then scores chunk after chunk.

    Used through :class:`RayPool`, which wraps it in ``ray.remote``; plain Python otherwise.
    """

    def __init__(self, names: Sequence[str] | None, device: str, model_dir: str | None) -> None:
        # A checker that cannot be loaded is told by the first call, as the error it is (an
        # actor whose constructor raises dies, and Ray keeps only the text of why).
        self._error: FactDeskError | None = None
        self._checkers: list[Any] = []
        try:
            self._checkers = analysis.load_checkers(names, device=device, model_dir=model_dir)
            self._limit = analysis.max_chars()
        except FactDeskError as exc:
            self._error = exc

    def identity(self) -> tuple[str, list[CheckerSpec]]:
        """The parser's version and the checkers loaded, as the driver records them."""
        if self._error is not None:
            raise self._error
        specs = [
            CheckerSpec(c.name, c.version, c.display_name, c.grain, analysis.runs_on(c))
            for c in self._checkers
        ]
        return analysis.pipeline_version(), specs

    def pid(self) -> int:
        return os.getpid()

    def score(
        self,
        texts: dict[int, tuple[str, str]],
        need: dict[int, set[str]],
        questions: dict[int, str] | None = None,
        starts: analysis.Starts | None = None,
    ) -> ChunkResult:
        if self._error is not None:
            raise self._error
        chunk = analysis.score_chunk(
            self._checkers, texts, need, questions=questions, starts=starts, limit=self._limit
        )
        return chunk.for_storage()


class RayPool:
    """Scoring actors on a Ray cluster, reused by every analysis until :meth:`close`.

    Args:
        names: checker names (None: the default checkers), loaded by each actor.
        address: a running cluster (``ray://host:10001`` or ``host:6379``); None starts a local
            one on this machine with ``workers`` CPUs, or joins the one this process already
            started (tests share one that way). See :mod:`app.engines.ray_cluster`.
        workers: scoring actors (one CPU each); None: one per CPU of the cluster.
        device: ``auto``, ``cpu`` or ``cuda``, as for a local run (an actor asks for a GPU
            when ``cuda``).
        model_dir: own model directory, as for a local run.
        connect_timeout: seconds the cluster has to start or answer.

    While the pool is open, SIGTERM stops this process as Ctrl-C does (KeyboardInterrupt in
    the main thread: what was written is kept, the claims are freed, the cluster is closed).

    Raises:
        EngineError: Ray missing, the cluster unreachable or silent past ``connect_timeout``,
            or the workers' checkers differing.
        FactDeskError: a checker that cannot be loaded on a worker (the worker's own error).
    """

    def __init__(
        self,
        names: Sequence[str] | None = None,
        *,
        address: str | None = None,
        workers: int | None = None,
        device: str = "auto",
        model_dir: str | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        if workers is not None and workers < 1:
            raise EngineError(f"--workers must be at least 1, not {workers}")
        check_timeout(connect_timeout)
        self._ray = ray = import_ray()
        self._cluster: Cluster | None = None
        self.actors: list[Any] = []
        self._sigterm_before = _sigterm_as_ctrl_c()
        if not ray.is_initialized():
            self._init(address, workers, connect_timeout)
        # A worker the cluster can never place would wait for ever: refuse it now.
        have = ray.cluster_resources()
        cpus, gpus = int(have.get("CPU", 0)), int(have.get("GPU", 0))
        if workers is None:
            workers = max(1, gpus if device == "cuda" else cpus)
        if workers > cpus or (device == "cuda" and workers > gpus):
            self.close()
            raise EngineError(
                f"the Ray cluster has {cpus} CPUs and {gpus} GPUs: too few for {workers} "
                f"workers{' with a GPU each' if device == 'cuda' else ''}"
            )
        self.workers = workers
        options: dict[str, Any] = {"num_cpus": 1, "max_restarts": 0}
        if device == "cuda":
            options["num_gpus"] = 1
        self._actor_class = ray.remote(**options)(ScoringWorker)
        self._args = (list(names) if names else None, device, model_dir)
        try:
            self.actors = [self._actor_class.remote(*self._args) for _ in range(workers)]
            identities = [self._get(a.identity.remote()) for a in self.actors]
        except ray.exceptions.RayActorError as exc:  # died while starting: out of memory, ...
            self.close()
            why = str(exc).strip().splitlines()
            raise EngineError(
                f"a Ray worker died while loading the checkers: {why[-1][:300] if why else exc}"
            ) from exc
        except BaseException:
            self.close()
            raise
        parser, first = identities[0]
        for other_parser, other in identities[1:]:
            mine = [parser] + [f"{c.name} {c.version}" for c in first]
            theirs = [other_parser] + [f"{c.name} {c.version}" for c in other]
            if mine != theirs:
                self.close()
                raise EngineError(
                    "the Ray workers loaded different parsers or checker versions "
                    f"({', '.join(mine)} vs {', '.join(theirs)}); install the same FactDesk and "
                    "models on every node"
                )
        self.parser: str = parser
        # Workers on different nodes may run on different devices: the runs say all of them.
        self.checkers: list[CheckerSpec] = [
            dataclasses.replace(
                spec, runs_on=", ".join(dict.fromkeys(ids[1][n].runs_on for ids in identities))
            )
            for n, spec in enumerate(first)
        ]

    def _init(self, address: str | None, workers: int | None, timeout: float) -> None:
        try:
            self._cluster = start_cluster(address, cpus=workers, timeout=timeout)
        except EngineError:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - ray raises ConnectionError, RuntimeError, ...
            self.close()
            where = address or "a local cluster"
            raise EngineError(f"cannot start Ray on {where}: {_first_line(exc)}") from exc
        except BaseException:  # Ctrl-C, SIGTERM
            self.close()
            raise
        _sigterm_as_ctrl_c()  # ray.init put in its own, which exits without cleaning up

    def _get(self, ref: Any) -> Any:
        """``ray.get`` with a worker's own FactDesk error raised as it is."""
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayTaskError as exc:
            cause = exc.cause if hasattr(exc, "cause") else None
            if isinstance(cause, FactDeskError):  # Cancelled included
                raise cause from None
            raise EngineError(f"a Ray worker failed: {_first_line(cause or exc)}") from exc

    def replace(self, actor: Any) -> Any:
        """Start a new actor in place of one that died; returns it."""
        new = self._actor_class.remote(*self._args)
        self.actors[self.actors.index(actor)] = new
        return new

    def close(self) -> None:
        """Stop the actors; shut down the cluster when this pool started it."""
        ray = self._ray
        for actor in self.actors:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already dead
                pass
        self.actors = []
        if self._cluster is not None:
            cluster, self._cluster = self._cluster, None
            cluster.close()
        if self._sigterm_before is not None:
            signal.signal(signal.SIGTERM, self._sigterm_before)
            self._sigterm_before = None

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def analyze_on_ray(
    project: Project,
    pool: RayPool,
    *,
    chunk_size: int = 32,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_chunk: Callable[[list[int]], None] | None = None,
    report: AnalysisReport | None = None,
    max_replacements: int | None = None,
) -> AnalysisReport:
    """Score every pending pair of ``project`` on the pool's actors; store as a local run does.

    Args:
        project: the open project (only this process writes it).
        pool: the actors, with the checkers they loaded.
        chunk_size: pairs per chunk (one task, one transaction), as for a local run.
        progress, should_stop, on_chunk, report: as for :func:`app.analysis.analyze`;
            ``should_stop`` is checked between results.
        max_replacements: actors that may die in this run and be replaced (default: as many as
            the pool has); one more and the run fails, keeping what was written.

    Raises:
        EngineError: the workers kept dying.
    """
    ray = pool._ray
    if report is None:
        report = AnalysisReport()
    checkers = pool.checkers
    todo, union = analysis.plan(project, checkers, report)
    if not union:
        return report
    limit = len(pool.actors) if max_replacements is None else max_replacements
    runs = analysis.start_runs(project, [c for c in checkers if todo[c.name]], pool.parser)
    retry: deque[dict[int, set[str]]] = deque()  # chunks claimed whose worker died
    in_flight: dict[Any, tuple[Any, dict[int, set[str]]]] = {}
    rest, done, replaced = union, 0, 0
    with analysis.runs_finished(project, runs, report):
        try:
            while True:
                if should_stop is not None and should_stop():
                    raise Cancelled("analysis cancelled")
                for actor in list(pool.actors):
                    while sum(a is actor for a, _ in in_flight.values()) < IN_FLIGHT_PER_WORKER:
                        if retry:
                            need = retry.popleft()
                        else:
                            need, rest = analysis.claim_chunk(
                                project, checkers, runs, todo, rest, chunk_size, report
                            )
                            if not need:
                                break
                        texts = analysis.pair_texts(project, list(need))
                        questions = analysis.pair_questions(project, list(need))
                        starts = analysis.pair_starts(project, list(need))
                        in_flight[actor.score.remote(texts, need, questions, starts)] = (
                            actor,
                            need,
                        )
                if not in_flight:
                    break
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.25)
                for ref in ready:
                    actor, need = in_flight.pop(ref)
                    try:
                        chunk = pool._get(ref)
                    except ray.exceptions.RayActorError as exc:
                        # The worker died (killed, out of memory, node lost): its chunks go back.
                        retry.append(need)
                        if actor in pool.actors:
                            replaced += 1
                            if replaced > limit:
                                raise EngineError(
                                    f"{replaced} Ray workers died during the analysis "
                                    f"(last: {_first_line(exc)}); what was scored is saved, run "
                                    "analyze again to resume"
                                ) from exc
                            pool.replace(actor)
                        continue
                    analysis.store_chunk(project, checkers, runs, need, chunk, report)
                    done += len(need)
                    if progress is not None:
                        progress(done, len(union) - len(report.left_to_others))
                    if on_chunk is not None:
                        on_chunk(list(need))
        finally:
            for ref in in_flight:  # results nobody will store: stop them where Ray can
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - already finished or its worker is gone
                    pass
    if report.status == "done":
        from app.learning.adapt import rescore_with_project_model

        # The workers run the bundled models; a project adapted to its editor (issue 14) gets
        # its head's scores for the new pairs from the stored component scores, as adapt does.
        rescore_with_project_model(project)
    return report


@contextmanager
def ray_analysis(
    names: Sequence[str] | None,
    *,
    address: str | None = None,
    workers: int | None = None,
    device: str = "auto",
    model_dir: str | None = None,
    chunk_size: int = 32,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Iterator[tuple[Callable[..., AnalysisReport], list[CheckerSpec]]]:
    """A pool for the time of a ``with``: ``run(project, progress=, report=, ...)`` and the
    checkers its workers loaded."""
    with RayPool(
        names,
        address=address,
        workers=workers,
        device=device,
        model_dir=model_dir,
        connect_timeout=connect_timeout,
    ) as pool:
        yield functools.partial(analyze_on_ray, pool=pool, chunk_size=chunk_size), pool.checkers


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:300]}" if lines else type(exc).__name__


def _sigterm_as_ctrl_c() -> Any:
    """Make SIGTERM stop this process as Ctrl-C does (KeyboardInterrupt in the main thread),
    so that a terminated command cleans up as an interrupted one does. Returns the handler it
    replaced (SIG_DFL when none was set from Python); None, changing nothing, outside the main
    thread (signal handlers belong to it)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _ctrl_c) or signal.SIG_DFL


def _ctrl_c(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt
