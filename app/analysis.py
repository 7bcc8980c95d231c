"""The analysis pipeline: parse, score with each checker, store in batches.

Analysis is incremental: a pair is scored by a checker only when it has no score from that
checker's current version. Each chunk of pairs is parsed once, scored by every checker that
needs it, and written in one transaction, so cancelling (or a crash) leaves every finished chunk
stored and nothing half-written; running again resumes where it stopped. A chunk is claimed
before it is parsed, so analyses of one project running at the same time score different pairs.
Every run records how it ended (done, cancelled, interrupted, failed).
"""

from __future__ import annotations

import os
import pickle
import socket
import sys
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import delete, select, true
from sqlalchemy.orm import Session

from app.store.project import Project, now
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    Claim,
    Output,
    PairScoreRow,
    Run,
    SentenceRow,
    SentenceScoreRow,
    Source,
)
from models.checkers.base import Checker, PairScore
from models.claims import pair_input
from models.document import ParsedText, Sentence
from models.errors import Cancelled, FactDeskError
from models.language import foreign_language
from models.parsing import load_pipeline, parse_many, pipeline_version
from models.reasons import not_english as reads_as

Progress = Callable[[int, int], None]
#: Texts parsed between two progress reports (a source and its output are two).
PARSE_BATCH = 8
#: Progress with words: (what is being done, done, total), e.g. ("Scoring with dae", 5, 32).
Step = Callable[[str, int, int], None]


@dataclass
class CheckerReport:
    name: str
    display_name: str
    version: str
    scored: int = 0
    already_scored: int = 0
    not_checked_sentences: int = 0
    sentences: int = 0
    not_checked_pairs: int = 0


@dataclass(frozen=True)
class NotChecked:
    """A pair that no checker could look at, and why."""

    output_id: int
    external_id: str
    reason: str


@dataclass
class AnalysisReport:
    """What one run did. ``status`` is the run's recorded status (see :class:`Run`)."""

    checkers: list[CheckerReport] = field(default_factory=list)
    cancelled: bool = False
    status: str = "done"
    pairs: set[int] = field(default_factory=set)  # output ids scored by at least one checker
    not_checked_pairs: list[NotChecked] = field(default_factory=list)
    # Pairs that another analysis of the project scored (or was scoring) at the same time.
    left_to_others: set[int] = field(default_factory=set)
    # Pairs still without a result from one of the checkers when the run ended (None: not
    # known, e.g. Ctrl-C before the checkers were loaded); see :func:`unscored_pairs`.
    pairs_left: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            # "scored" counts (pair, checker) scores; "pairs_scored" counts pairs.
            "pairs_scored": len(self.pairs),
            "pairs_left": self.pairs_left,
            "scored": sum(c.scored for c in self.checkers),
            "not_checked": sum(c.not_checked_sentences for c in self.checkers),
            "not_checked_pairs": [n.__dict__ for n in self.not_checked_pairs],
            "left_to_other_analysis": len(self.left_to_others),
            "cancelled": self.cancelled,
            "status": self.status,
            "checkers": [c.__dict__ for c in self.checkers],
        }


#: The step that counts models loaded, not pairs (progress shown in models).
LOADING = "Loading the models"


def load_checkers(
    names: Sequence[str] | None,
    *,
    device: str = "auto",
    model_dir: str | None = None,
    step: Step | None = None,
) -> list[Checker]:
    """Load checkers by registry name (None: the default checkers).

    Their ONNX sessions are built in background threads meanwhile (the NLI graph's beside the
    rest of the loading: :func:`models.runtime.sessions_ahead`). ``step`` is told
    (:data:`LOADING`, loaded, to load) before each one.

    Raises:
        FactDeskError: a checker that cannot be loaded, with the model directory and why (a
            damaged ``model.pt`` or ``pytorch_model.bin`` included), instead of a traceback.
    """
    from models.registry import default_checkers, graphs_ahead
    from models.runtime import sessions_ahead

    chosen = list(names) if names else default_checkers()
    loaded = []
    with sessions_ahead(graphs_ahead(chosen, device, model_dir)):  # type: ignore[arg-type]
        for name in chosen:
            loaded.append(_load_one(name, device, model_dir, step, len(loaded), len(chosen)))
    return loaded


def _load_one(
    name: str, device: str, model_dir: str | None, step: Step | None, done: int, total: int
) -> Checker:
    """:func:`load_checkers` for one name (``done`` of ``total`` loaded before it)."""
    from models.errors import ModelLoadError
    from models.registry import load_checker

    if step is not None:
        step(LOADING, done, total)
    try:
        return load_checker(name, device=device, model_dir=model_dir)  # type: ignore[arg-type]
    except (FactDeskError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - torch, pickle, transformers, onnxruntime errors
        lines = str(exc).strip().splitlines()
        if isinstance(exc, pickle.UnpicklingError) or "weights_only" in str(exc):
            # torch refused to unpickle it: never suggest loading it unsafely.
            why = "a weights file is damaged or not a plain PyTorch state dict; nothing of it ran"
        else:
            why = f"{type(exc).__name__}: {lines[0][:300]}" if lines else type(exc).__name__
        raise ModelLoadError(
            f"{model_dir or name}: cannot load the '{name}' checker ({why})."
        ) from exc


def pending(project: Project, checker: CheckerInfo) -> list[int]:
    """Outputs without a result from this checker's current version, in import order (a row
    begun and never finished is no result: :meth:`PairScoreRow.finished`)."""
    with project.session() as s:
        done = select(PairScoreRow.output_id).where(
            PairScoreRow.checker == checker.name,
            PairScoreRow.version == checker.version,
            PairScoreRow.finished(),
        )
        return list(s.scalars(select(Output.id).where(Output.id.not_in(done)).order_by(Output.id)))


def unscored_pairs(project: Project, checkers: Sequence[CheckerInfo]) -> int:
    """How many pairs still lack a result from one of ``checkers`` (what the next analysis
    with them would score; a project adapted to its editor counts its own combined score)."""
    from app.store.heads import apply_project_model

    shown = apply_project_model(project, checkers)  # type: ignore[arg-type]
    return len(set().union(*(pending(project, c) for c in shown)))


class CheckerInfo(Protocol):
    """What storing a checker's results needs of it: who it is (a loaded checker has these)."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def grain(self) -> str: ...


def runs_on(checker: object) -> str:
    """Where and how a checker computes its scores: "cpu int8", "cuda fp16"; "cpu" for a rule
    with no model (the lexical baseline)."""
    return str(getattr(checker, "runs_on", None) or "cpu")


def plan(
    project: Project,
    checkers: Sequence[CheckerInfo],
    report: AnalysisReport,
    only: Collection[int] | None = None,
) -> tuple[dict[str, set[int]], list[int]]:
    """What each checker still has to score, and all of it in import order; fills ``report``.
    ``only``: these pairs (output ids) alone, not the whole project.

    With nothing to do, runs left "running" by a process that is gone are recorded as
    interrupted (a run that starts does that itself).
    """
    report.checkers[:] = [CheckerReport(c.name, c.display_name, c.version) for c in checkers]
    todo = {c.name: set(pending(project, c)) for c in checkers}
    total_pairs = project.count_pairs()
    if only is not None:
        todo = {name: ids & set(only) for name, ids in todo.items()}
        total_pairs = len(set(only))
    for rep in report.checkers:
        rep.already_scored = total_pairs - len(todo[rep.name])
    union = sorted(set().union(*todo.values())) if todo else []
    if not union:
        _record_dead_runs(project)
    return todo, union


def analyze(
    project: Project,
    checkers: Sequence[Checker],
    *,
    chunk_size: int = 32,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_chunk: Callable[[list[int]], None] | None = None,
    report: AnalysisReport | None = None,
    step: Step | None = None,
    only: Collection[int] | None = None,
) -> AnalysisReport:
    """Score every pair that lacks a score from each checker's current version (of ``only``,
    when given: those pairs' output ids).

    Analyses of one project at the same time (two terminals, the window and a terminal) share
    the work: each claims a chunk before scoring it, so every pair is scored once. A run left
    "running" by a process that no longer exists (kill -9, power loss) is recorded as
    "interrupted", and its claims freed, when the next one starts.

    Args:
        project: the open project.
        checkers: loaded checkers, run in this order on each chunk.
        chunk_size: pairs parsed, scored and committed together.
        progress: called with (pairs done, pairs to do).
        should_stop: checked between chunks (and by checkers between their batches).
        on_chunk: called with the output ids of each committed chunk.
        report: filled in as the run goes (so that a caller interrupted by Ctrl-C still has
            what was done); a new one when None.
        step: told what is being done as it goes, from the first batch on: ("Parsing", pairs
            parsed, pairs to do), ("Scoring with dae", ...), ("Saving", ...); the counts take
            in the chunks already done.
    """
    if report is None:
        report = AnalysisReport()
    from app.store.heads import apply_project_model

    # A project adapted to its editor scores new pairs with its own head (issue 14).
    checkers = apply_project_model(project, checkers)
    todo, union = plan(project, checkers, report, only)
    if not union:
        return report
    parser = pipeline_version()
    limit = max_chars()
    runs = start_runs(project, [c for c in checkers if todo[c.name]], parser)
    done = 0
    with runs_finished(project, runs, report):
        rest = union
        while True:
            if should_stop is not None and should_stop():
                raise Cancelled("analysis cancelled")
            need, rest = claim_chunk(project, checkers, runs, todo, rest, chunk_size, report)
            if not need:
                break
            ids = list(need)
            total = len(union) - len(report.left_to_others)
            chunk = score_chunk(
                checkers,
                pair_texts(project, ids),
                need,
                questions=pair_questions(project, ids),
                starts=pair_starts(project, ids),
                limit=limit,
                should_stop=should_stop,
                step=_offset(step, done, total),
            )
            if step is not None:
                step("Saving", done + len(ids), total)
            store_chunk(project, checkers, runs, need, chunk, report)
            done += len(ids)
            if progress is not None:
                progress(done, len(union) - len(report.left_to_others))
            if on_chunk is not None:
                on_chunk(ids)
    return report


def _named(step: Step | None, what: str, total: int) -> Progress | None:
    """``step`` as a plain (done, total) callback for one stage, told at once that it starts."""
    if step is None:
        return None
    step(what, 0, total)
    return lambda done, of: step(what, done, of)


def _offset(step: Step | None, before: int, total: int) -> Step | None:
    """A chunk's step callback ("Parsing", 3 of the chunk) reported as the run's (3 + before of
    total)."""
    if step is None:
        return None
    return lambda what, done, _chunk_total: step(what, before + done, total)


@contextmanager
def runs_finished(project: Project, runs: dict[str, int], report: AnalysisReport) -> Iterator[None]:
    """Around an analysis's chunk loop (local or on Ray): record how its runs ended.

    A cancel ends the loop quietly (``report.cancelled``; what was stored stays); Ctrl-C and
    failures propagate after the runs are marked interrupted or failed (with why).
    """
    status, error = "interrupted", None
    try:
        yield
        status = "done"
    except Cancelled:
        report.cancelled = True
        status = "cancelled"
    except KeyboardInterrupt:
        report.cancelled = True
        raise
    except BaseException as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        report.status = status
        finish_runs(project, runs, status, error)


@dataclass(frozen=True)
class ChunkResult:
    """What scoring one chunk gave: parses, pairs refused (with why) and each checker's scores.

    Plain picklable values, so a chunk scored in another process (a Ray worker) is stored by
    :func:`store_chunk` exactly as one scored here.
    """

    docs: dict[int, tuple[ParsedText, ParsedText]]
    refused: dict[int, str]
    results: list[tuple[str, list[PairScore]]]  # (checker name, scores), in checker order

    def for_storage(self) -> ChunkResult:
        """The same result with only what :func:`store_chunk` writes of the parses (sentences
        and arcs; no tokens, no texts the project already holds): a fraction of the bytes to
        send from a worker."""

        def slim(doc: ParsedText, arcs: bool) -> ParsedText:
            return ParsedText(
                "",
                tuple(
                    Sentence(x.index, x.start, x.end, x.text, (), x.arcs if arcs else ())
                    for x in doc.sentences
                ),
            )

        docs = {oid: (slim(src, False), slim(out, True)) for oid, (src, out) in self.docs.items()}
        return ChunkResult(docs, self.refused, self.results)


def score_chunk(
    checkers: Sequence[Checker],
    texts: dict[int, tuple[str, str]],
    need: dict[int, set[str]],
    *,
    questions: dict[int, str] | None = None,
    starts: Starts | None = None,
    limit: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    step: Step | None = None,
) -> ChunkResult:
    """Parse and score one chunk: no project, no writes (the same code runs in Ray workers).

    Args:
        checkers: loaded checkers, run in this order.
        texts: {output id: (source text, output text)}.
        need: {output id: names of the checkers that still need it}.
        questions: {output id: its question} for pairs that have one (:func:`pair_questions`):
            their answer sentences are read as claims (:mod:`models.claims`).
        starts: where the sentences the project stored for a pair's texts start
            (:func:`pair_starts`): those texts are parsed into those sentences.
        limit: the parser's length limit (characters); None reads it from the parser.
        should_stop: checked by the parser and the checkers between batches.
        step: told what is being done between batches: ("Parsing", pairs parsed, pairs),
            ("Scoring with <checker>", pairs scored, pairs).
    """
    refused = too_long(texts, max_chars() if limit is None else limit)
    todo = {oid: t for oid, t in texts.items() if oid not in refused}
    parsed = _named(step, "Parsing", len(texts))
    # The parser counts texts: a source and its output make one pair.
    docs = _parse(
        todo,
        starts or {},
        refused,
        should_stop,
        None if parsed is None else lambda d, t: parsed(d // 2, t // 2),
    )
    # parsed (the window shows its sentences for review), but not scored: see not_english
    refused.update(not_english({oid: texts[oid] for oid in docs}))
    questions = questions or {}
    inputs = {
        oid: pair_input(oid, src, out, questions.get(oid))
        for oid, (src, out) in docs.items()
        if oid not in refused
    }
    results: list[tuple[str, list[PairScore]]] = []
    for checker in checkers:
        mine = [oid for oid in need if checker.name in need[oid] and oid in inputs]
        if not mine:
            continue
        batch = [inputs[oid] for oid in mine]
        scored = _named(step, f"Scoring with {checker.name}", len(mine))
        results.append(
            (checker.name, checker.score(batch, progress=scored, should_stop=should_stop))
        )
    return ChunkResult(docs, refused, results)


def store_chunk(
    project: Project,
    checkers: Sequence[CheckerInfo],
    runs: dict[str, int],
    need: dict[int, set[str]],
    chunk: ChunkResult,
    report: AnalysisReport,
) -> None:
    """Write one scored chunk: parses, scores, not-checked records; the chunk's claims go."""
    ids = list(need)
    refused = chunk.refused
    idmaps = _store_parse(project, chunk.docs)
    unchecked = {
        checker.name: {
            oid: refused[oid] for oid in ids if oid in refused and checker.name in need[oid]
        }
        for checker in checkers
        if any(checker.name in need[oid] for oid in refused)
    }
    _store_scores(project, runs, chunk.results, unchecked, idmaps, report, ids)
    report.not_checked_pairs += [
        NotChecked(oid, _external_id(project, oid), refused[oid]) for oid in ids if oid in refused
    ]


def claim_chunk(
    project: Project,
    checkers: Sequence[CheckerInfo],
    runs: dict[str, int],
    todo: dict[str, set[int]],
    rest: list[int],
    chunk_size: int,
    report: AnalysisReport,
) -> tuple[dict[int, set[str]], list[int]]:
    """Claim the next pairs to score: {output id: checkers that still need it}, and what is left.

    A pair that another analysis has scored or claimed since this one started is left to it,
    so two analyses of one project share the work instead of both doing all of it. The check
    and the claims are one write transaction.
    """
    need: dict[int, set[str]] = {}
    pos = 0
    with project.write_session() as s:
        while len(need) < chunk_size and pos < len(rest):
            window = rest[pos : pos + 4 * chunk_size]
            pos += len(window)
            # a pair removed since the run was planned (Edit ▸ Remove pair) is not scored
            present = set(s.scalars(select(Output.id).where(Output.id.in_(window))))
            taken: set[tuple[str, int]] = set()
            for checker in checkers:
                if checker.name not in runs:
                    continue
                for table, done in ((PairScoreRow, PairScoreRow.finished()), (Claim, true())):
                    taken.update(
                        (checker.name, oid)
                        for oid in s.scalars(
                            select(table.output_id).where(
                                table.checker == checker.name,
                                table.version == checker.version,
                                table.output_id.in_(window),
                                done,
                            )
                        )
                    )
            for n, oid in enumerate(window):
                if oid not in present:
                    continue
                wanted = {
                    c.name
                    for c in checkers
                    if oid in todo[c.name] and c.name in runs and (c.name, oid) not in taken
                }
                if wanted:
                    need[oid] = wanted
                elif any(oid in todo[c.name] for c in checkers):
                    report.left_to_others.add(oid)
                if len(need) == chunk_size:
                    pos -= len(window) - n - 1  # the rest of the window is looked at next time
                    break
        versions = {c.name: c.version for c in checkers}
        project.bulk_insert(
            s,
            Claim,
            (
                {
                    "run_id": runs[name],
                    "checker": name,
                    "version": versions[name],
                    "output_id": oid,
                }
                for oid, names in need.items()
                for name in sorted(names)
            ),
        )
    return need, rest[pos:]


def max_chars() -> int:
    """The parser's length limit (characters) for one text."""
    return int(load_pipeline().max_length)


def too_long(texts: dict[int, tuple[str, str]], limit: int) -> dict[int, str]:
    """Pairs whose source or output is over the parser's limit, with the reason.

    The one rule for texts too long to read: analysis records such a pair as not checked with
    this reason, and entity familiarity (and so the report) skips it with the same reason.
    """
    refused = {}
    for oid, (src, out) in texts.items():
        for what, t in (("source", src), ("output", out)):
            if len(t) > limit:
                refused[oid] = (
                    f"{what} is {len(t):,} characters, over the parser's limit of {limit:,}"
                )
                break
    return refused


def not_english(texts: dict[int, tuple[str, str]]) -> dict[int, str]:
    """Pairs whose source or output is plainly not in English, with the reason.

    The models read English only: on another language they return numbers that say nothing
    (a faithful German summary scored 0.24), so such a pair is recorded as not checked, as a
    pair too long to parse is (:func:`too_long`), and the report and the window say why.
    """
    refused = {}
    for oid, (src, out) in texts.items():
        for what, t in (("source", src), ("output", out)):
            language = foreign_language(t)
            if language is not None:
                refused[oid] = reads_as(f"the {what}", language)
                break
    return refused


def _parse(
    texts: dict[int, tuple[str, str]],
    starts: Starts,
    refused: dict[int, str],
    should_stop: Callable[[], bool] | None,
    progress: Progress | None = None,
) -> dict[int, tuple[ParsedText, ParsedText]]:
    """Parse each pair's source and output; a pair the parser fails on goes to ``refused``.

    The chunk is parsed at once; when that fails, pair by pair, so one bad pair never blocks
    the others.
    """
    cuts = {oid: starts.get(oid, (None, None)) for oid in texts}
    try:
        parsed = parse_many(
            [t for pair in texts.values() for t in pair],
            starts=[c for oid in texts for c in cuts[oid]],
            batch_size=PARSE_BATCH,
            progress=progress,
            should_stop=should_stop,
        )
    except (Cancelled, KeyboardInterrupt, FactDeskError):
        raise
    except Exception:  # noqa: BLE001 - find the pair at fault below and record why
        docs = {}
        for oid, (src, out) in texts.items():
            try:
                one = parse_many([src, out], starts=cuts[oid], should_stop=should_stop)
            except (Cancelled, KeyboardInterrupt, FactDeskError):
                raise
            except Exception as exc:  # noqa: BLE001 - recorded as the pair's reason
                refused[oid] = f"the parser failed: {str(exc).splitlines()[0][:300]}"
            else:
                docs[oid] = (one[0], one[1])
        return docs
    return {oid: (parsed[2 * n], parsed[2 * n + 1]) for n, oid in enumerate(texts)}


def pair_questions(project: Project, ids: Sequence[int]) -> dict[int, str]:
    """The questions (``context``) of those pairs that have one."""
    with project.session() as s:
        rows = s.execute(
            select(Output.id, Output.context).where(Output.id.in_(ids), Output.context.is_not(None))
        ).all()
    return {oid: context for oid, context in rows if context and context.strip()}


def _external_id(project: Project, oid: int) -> str:
    with project.session() as s:
        return s.scalar(select(Output.external_id).where(Output.id == oid)) or str(oid)


# Runs this process is doing now: a "running" run of this process that is not here was left by
# an analysis whose end could not be written (disk full), not by one still going.
_active_lock = threading.Lock()
_active_runs: set[int] = set()


def _process_started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, Linux), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # Field 22; the command name (field 2, in parentheses) may itself hold spaces.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def _pid_exists(pid: int) -> bool:
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate the process there
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owner(parser: str) -> dict[str, Any]:
    """Who runs an analysis: stored with its runs so that a later one can tell if it is gone."""
    pid = os.getpid()
    return {
        "parser": parser,
        "pid": pid,
        "host": socket.gethostname(),
        "process_started": _process_started(pid),
    }


def _alive(run_id: int, owner: dict[str, Any]) -> bool:
    """Whether the process that started a run still runs it (unknown: assume it does)."""
    pid, host = owner.get("pid"), owner.get("host")
    if not isinstance(pid, int) or host != socket.gethostname():
        return pid is not None  # another machine (shared folder): cannot tell
    if pid == os.getpid():
        with _active_lock:
            return run_id in _active_runs
    if not _pid_exists(pid):
        return False
    started = owner.get("process_started")
    # The pid may have been given to another program since: then the start times differ.
    return started is None or _process_started(pid) in (None, started)


def _interrupt(s: Session, run_ids: Sequence[int]) -> None:
    """Record runs whose process is gone as interrupted and free the pairs they had claimed."""
    for run in s.scalars(select(Run).where(Run.id.in_(run_ids), Run.status == "running")):
        run.status = "interrupted"  # killed or crashed
        run.finished_at = run.finished_at or now()
    s.execute(delete(Claim).where(Claim.run_id.in_(run_ids)))


def _record_dead_runs(project: Project) -> None:
    """Record runs left "running" by a process that is gone as interrupted."""
    with project.session() as s:
        dead = [
            r.id
            for r in s.scalars(select(Run).where(Run.status == "running"))
            if not _alive(r.id, r.settings or {})
        ]
    if dead:
        with project.write_session() as s:
            _interrupt(s, dead)


def start_runs(project: Project, checkers: Sequence[CheckerInfo], parser: str) -> dict[str, int]:
    """Start a run per checker; runs left by processes that are gone are recorded first."""
    owner = _owner(parser)
    with project.write_session() as s:
        running = s.scalars(select(Run).where(Run.status == "running")).all()
        _interrupt(s, [r.id for r in running if not _alive(r.id, r.settings or {})])
        runs = {}
        for checker in checkers:
            run = Run(
                checker=checker.name,
                version=checker.version,
                display_name=checker.display_name,
                grain=checker.grain,
                # Which device and precision scored this run's pairs (stats, the window).
                settings={**owner, "runs_on": runs_on(checker)},
                started_at=now(),
                status="running",
                scored=0,
            )
            s.add(run)
            s.flush()
            runs[checker.name] = run.id
    with _active_lock:
        _active_runs.update(runs.values())
    return runs


def finish_runs(project: Project, runs: dict[str, int], status: str, error: str | None) -> None:
    """Record how the runs ended; if that cannot be written now, the next run will see them
    left by a process that is gone and record them as interrupted."""
    with _active_lock:
        _active_runs.difference_update(runs.values())
    try:
        with project.session() as s:
            s.execute(delete(Claim).where(Claim.run_id.in_(list(runs.values()))))
            for run_id in runs.values():
                run = s.get(Run, run_id)
                assert run is not None
                run.status = status
                run.finished_at = now()
                if error is not None:
                    run.settings = {**(run.settings or {}), "error": error[:500]}
    except Exception:  # noqa: BLE001 - never hide the error that ended the run
        if status == "done":
            raise


def pair_texts(project: Project, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    with project.session() as s:
        rows = s.execute(
            select(Output.id, Source.text, Output.text)
            .join(Source, Source.id == Output.source_id)
            .where(Output.id.in_(ids))
            .order_by(Output.id)
        ).all()
    return {oid: (src, out) for oid, src, out in rows}


#: (output id) -> (where its source's stored sentences start, where its own start); None where
#: the project holds no sentences for that text yet
Starts = dict[int, tuple[list[int] | None, list[int] | None]]


def pair_starts(project: Project, ids: Sequence[int]) -> Starts:
    """Where the sentences the project stored for each pair's source and output start, so a
    text is parsed again into the sentences its scores and judgments are attached to (a parser
    or a way of cutting sentences that changed since never moves them)."""
    with project.session() as s:
        source_of = dict(
            s.execute(select(Output.id, Output.source_id).where(Output.id.in_(ids))).all()
        )
        by_source: dict[int, list[tuple[int, int]]] = {}
        by_output: dict[int, list[tuple[int, int]]] = {}
        for src_id, out_id, idx, start in s.execute(
            select(
                SentenceRow.source_id, SentenceRow.output_id, SentenceRow.idx, SentenceRow.start
            ).where(
                (SentenceRow.source_id.in_(set(source_of.values())))
                | (SentenceRow.output_id.in_(list(source_of)))
            )
        ):
            if src_id is not None:
                by_source.setdefault(src_id, []).append((idx, start))
            else:
                by_output.setdefault(out_id, []).append((idx, start))

    def ordered(rows: list[tuple[int, int]] | None) -> list[int] | None:
        return None if rows is None else [start for _, start in sorted(rows)]

    return {
        oid: (ordered(by_source.get(src_id)), ordered(by_output.get(oid)))
        for oid, src_id in source_of.items()
    }


# (output id) -> ({sentence index: sentence id}, {(sentence index, arc index): arc id})
IdMaps = dict[int, tuple[dict[int, int], dict[tuple[int, int], int]]]


def _store_parse(project: Project, docs: dict[int, tuple[ParsedText, ParsedText]]) -> IdMaps:
    """Store sentences and arcs of outputs parsed for the first time; return id maps for all."""
    with project.session() as s:
        outputs = {o.id: o for o in s.scalars(select(Output).where(Output.id.in_(docs)))}
        fresh = [oid for oid in docs if not outputs[oid].parsed]
        src_done = set(
            s.scalars(
                select(SentenceRow.source_id).where(
                    SentenceRow.source_id.in_({o.source_id for o in outputs.values()})
                )
            )
        )
        for oid in fresh:
            source, output = docs[oid]
            src_id = outputs[oid].source_id
            if src_id not in src_done:
                src_done.add(src_id)
                project.bulk_insert(
                    s,
                    SentenceRow,
                    (
                        {
                            "source_id": src_id,
                            "idx": x.index,
                            "start": x.start,
                            "end": x.end,
                            "text": x.text,
                        }
                        for x in source.sentences
                    ),
                )
            project.bulk_insert(
                s,
                SentenceRow,
                (
                    {
                        "output_id": oid,
                        "idx": x.index,
                        "start": x.start,
                        "end": x.end,
                        "text": x.text,
                    }
                    for x in output.sentences
                ),
            )
        if fresh:
            s.flush()
            sent_ids = {
                (o, i): sid
                for o, i, sid in s.execute(
                    select(SentenceRow.output_id, SentenceRow.idx, SentenceRow.id).where(
                        SentenceRow.output_id.in_(fresh)
                    )
                )
            }
            rows = []
            for oid in fresh:
                for sent in docs[oid][1].sentences:
                    for n, a in enumerate(sent.arcs):
                        rows.append(
                            {
                                "sentence_id": sent_ids[(oid, sent.index)],
                                "idx": n,
                                "label": a.label,
                                "head_idx": a.head,
                                "child_idx": a.child,
                                "head_start": a.head_start,
                                "head_end": a.head_end,
                                "child_start": a.child_start,
                                "child_end": a.child_end,
                                "head_text": a.head_text,
                                "child_text": a.child_text,
                            }
                        )
            project.bulk_insert(s, ArcRow, rows)
            project.mark_parsed(s, fresh)
        maps: IdMaps = {oid: ({}, {}) for oid in docs}
        for sent_oid, idx, sid in s.execute(
            select(SentenceRow.output_id, SentenceRow.idx, SentenceRow.id).where(
                SentenceRow.output_id.in_(docs)
            )
        ):
            assert sent_oid is not None  # selected by output_id
            maps[sent_oid][0][idx] = sid
        owner = {sid: (oid, idx) for oid, m in maps.items() for idx, sid in m[0].items()}
        # A score goes to the stored arc with the same words and label: a text parsed otherwise
        # than when it was stored (another parser or arc rule) never puts a score on another
        # arc; an arc the stored parse lacks gets none.
        stored = {}
        for sid, head, child, label, aid in s.execute(
            select(
                ArcRow.sentence_id, ArcRow.head_idx, ArcRow.child_idx, ArcRow.label, ArcRow.id
            ).where(ArcRow.sentence_id.in_(owner))
        ):
            stored[(*owner[sid], head, child, label)] = aid
        for oid, (_, output) in docs.items():
            for sent in output.sentences:
                for n, a in enumerate(sent.arcs):
                    aid = stored.get((oid, sent.index, a.head, a.child, a.label))
                    if aid is not None:
                        maps[oid][1][(sent.index, n)] = aid
    return maps


def _store_scores(
    project: Project,
    runs: dict[str, int],
    results: list[tuple[str, list[PairScore]]],
    unchecked: dict[str, dict[int, str]],
    idmaps: IdMaps,
    report: AnalysisReport,
    ids: Sequence[int],
) -> None:
    reps = {r.name: r for r in report.checkers}
    versions = {r.name: r.version for r in report.checkers}
    with project.session() as s:
        # The chunk's claims go with its scores: one commit, nothing claimed and unscored.
        s.execute(
            delete(Claim).where(
                Claim.run_id.in_(list(runs.values())), Claim.output_id.in_(list(ids))
            )
        )
        for name, reasons in unchecked.items():
            project.replace_scores(s, name, versions[name], list(reasons))
            project.bulk_insert(
                s,
                PairScoreRow,
                (
                    {
                        "run_id": runs[name],
                        "checker": name,
                        "version": versions[name],
                        "output_id": oid,
                        "score": None,
                        "not_checked": 0,
                        "reason": reason,
                    }
                    for oid, reason in reasons.items()
                ),
            )
            reps[name].not_checked_pairs += len(reasons)
        for name, scores in results:
            run_id = runs[name]
            common = {"run_id": run_id, "checker": name, "version": versions[name]}
            project.replace_scores(s, name, versions[name], [p.key for p in scores])  # type: ignore[misc]
            pair_rows, sent_rows, arc_rows = [], [], []
            for p in scores:
                sents, arcs = idmaps[p.key]  # type: ignore[index]
                pair_rows.append(
                    {
                        **common,
                        "output_id": p.key,
                        "score": p.score,
                        "not_checked": len(p.not_checked),
                        # A result, never a row taken for one left unfinished (see finished()).
                        "reason": None
                        if p.score is not None or p.not_checked
                        else "the checker scored no sentence of this pair",
                    }
                )
                for ss in p.sentences:
                    if ss.sentence not in sents:
                        continue
                    sent_rows.append(
                        {
                            **common,
                            "sentence_id": sents[ss.sentence],
                            "score": ss.score,
                            "min_arc": ss.min_arc,
                            "evidence": list(ss.evidence),
                            "omitted": ss.omitted,
                            "not_checked": ss.not_checked,
                            "detail": ss.detail,
                        }
                    )
                for a in p.arcs:
                    aid = arcs.get((a.sentence, a.arc))
                    if aid is not None:
                        arc_rows.append({**common, "arc_id": aid, "score": a.score})
                rep = reps[name]
                report.pairs.add(p.key)  # type: ignore[arg-type]
                rep.scored += 1
                rep.sentences += len(p.sentences)
                rep.not_checked_sentences += len(p.not_checked)
            project.bulk_insert(s, PairScoreRow, pair_rows)
            project.bulk_insert(s, SentenceScoreRow, sent_rows)
            project.bulk_insert(s, ArcScoreRow, arc_rows)
            run = s.get(Run, run_id)
            assert run is not None
            run.scored += len(scores)
