"""Analysis runs: what happened is recorded, one analysis at a time, and a pair the parser
cannot take never blocks the others."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app import cli
from app.analysis import analyze
from app.gui.jobs import AnalysisRequest, run_analysis
from app.io.importer import import_file
from app.store import Project
from app.store.schema import Claim, PairScoreRow, Run
from models.checkers.base import PairInput
from models.checkers.lexical import LexicalArcChecker
from models.errors import ProjectError
from models.parsing import load_pipeline
from tests.conftest import PAIRS, write_jsonl


def runs(project: Project) -> list[Run]:
    with project.session() as s:
        return list(s.scalars(select(Run).order_by(Run.id)))


class Gated(LexicalArcChecker):
    """The lexical checker that waits at its first batch until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.go = threading.Event()

    def score(self, batch: Sequence[PairInput], **kw: Any) -> Any:
        self.entered.set()
        assert self.go.wait(60)
        return super().score(batch, **kw)


class Failing(LexicalArcChecker):
    def __init__(self, exc: BaseException, after: int = 0) -> None:
        super().__init__()
        self.exc, self.left = exc, after

    def score(self, batch: Sequence[PairInput], **kw: Any) -> Any:
        if self.left == 0:
            raise self.exc
        self.left -= 1
        return super().score(batch, **kw)


# ---------------------------------------------------------------------- item 12
def test_two_analyses_at_once_share_the_work(project: Project, pairs_file: Path) -> None:
    """The window's worker and an in-process command on one project: each pair scored once."""
    import_file(project, pairs_file)
    gated = Gated()
    first: list[Any] = []
    t = threading.Thread(target=lambda: first.append(analyze(project, [gated], chunk_size=1)))
    t.start()
    try:
        assert gated.entered.wait(60)  # the first holds its claim on pair 1 and is scoring it
        with Project.open(project.path) as again:
            second = analyze(again, [LexicalArcChecker()], chunk_size=1)
    finally:
        gated.go.set()
        t.join()
    assert second.status == "done" and first[0].status == "done"
    assert second.checkers[0].scored + first[0].checkers[0].scored == 3
    assert second.checkers[0].scored >= 1 and first[0].checkers[0].scored >= 1
    assert len(second.left_to_others) >= 1
    assert [r.status for r in runs(project)] == ["done", "done"]
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 3
    with project.session() as s:
        assert s.scalars(select(Claim)).all() == []


def test_a_second_process_scores_what_the_first_has_not_claimed(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    """Two processes: a command-line analyze while another process is scoring pair 1."""
    import_file(project, pairs_file)
    code = (
        "import sys, time\n"
        "from app.analysis import analyze\n"
        "from app.store import Project\n"
        "from models.checkers.lexical import LexicalArcChecker\n"
        "class Slow(LexicalArcChecker):\n"
        "    def score(self, batch, **kw):\n"
        "        open(sys.argv[2], 'w').close()\n"
        "        time.sleep(600)\n"
        "with Project.open(sys.argv[1]) as p:\n"
        "    analyze(p, [Slow()], chunk_size=1)\n"
    )
    flag = tmp_path / "scoring"
    root = Path(__file__).resolve().parents[2]
    other = subprocess.Popen([sys.executable, "-c", code, str(project.path), str(flag)], cwd=root)
    try:
        for _ in range(600):
            if flag.exists() or other.poll() is not None:
                break
            threading.Event().wait(0.1)
        assert flag.exists(), "the other analysis did not start"
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "analyze", str(project.path), "--checker", "lexical"]
            + ["--json"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["pairs_scored"] == 2 and data["left_to_other_analysis"] == 1
    finally:
        other.kill()  # kill -9: its run stays "running" and its claim stays
        other.wait()
    assert [r.status for r in runs(project)] == ["running", "done"]
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 2
    # The next analysis finds the owner gone, records that, frees its claim and scores the pair.
    report = analyze(project, [LexicalArcChecker()])
    assert report.checkers[0].scored == 1
    assert [r.status for r in runs(project)] == ["interrupted", "done", "done"]
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 3


def test_cancel_ctrl_c_and_failures_are_recorded_as_such(
    project: Project, pairs_file: Path
) -> None:
    import_file(project, pairs_file)
    report = analyze(project, [LexicalArcChecker()], chunk_size=1, should_stop=lambda: True)
    assert report.cancelled and report.status == "cancelled"
    with pytest.raises(KeyboardInterrupt):
        analyze(project, [Failing(KeyboardInterrupt(), after=1)], chunk_size=1)
    with pytest.raises(RuntimeError):
        analyze(project, [Failing(RuntimeError("scorer broke"), after=0)], chunk_size=1)
    statuses = [(r.status, (r.settings or {}).get("error")) for r in runs(project)]
    assert statuses == [
        ("cancelled", None),
        ("interrupted", None),
        ("failed", "RuntimeError: scorer broke"),
    ]
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 1  # the first chunk kept


def test_ctrl_c_prints_the_json_object_and_an_exact_message(
    project: Project, pairs_file: Path, monkeypatch, capsys
) -> None:
    import_file(project, pairs_file)
    path = str(project.path)
    project.close()
    monkeypatch.setattr(
        cli, "load_checkers", lambda *a, **k: [Failing(KeyboardInterrupt(), after=0)]
    )
    code = cli.main(["analyze", path, "--json"])
    out, err = capsys.readouterr()
    assert code == 130
    data = json.loads(out)
    assert data["status"] == "interrupted" and data["cancelled"] is True
    assert data["pairs_scored"] == 0
    assert err == "factdesk: interrupted; finished chunks are saved; run analyze again to resume\n"
    with Project.open(path) as again:
        assert [r.status for r in runs(again)] == ["interrupted"]


def test_a_disk_full_or_locked_run_is_not_recorded_done(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    with pytest.raises(ProjectError):
        analyze(project, [Failing(ProjectError("disk full"), after=0)])
    assert [r.status for r in runs(project)] == ["failed"]
    assert "disk full" in runs(project)[0].settings["error"]


# ---------------------------------------------------------------------- item 5
def test_a_pair_over_the_parser_limit_is_not_checked_and_blocks_nothing(
    project: Project, tmp_path: Path, monkeypatch
) -> None:
    long_source = "The council met on Monday and approved the budget. " * 6  # ~300 characters
    records = [
        PAIRS[0],
        {"id": "long", "source": long_source, "output": "The council approved the budget."},
        PAIRS[2],
    ]
    import_file(project, write_jsonl(tmp_path / "long.jsonl", records))
    monkeypatch.setattr(load_pipeline(), "max_length", 200)  # spaCy refuses longer texts
    report = analyze(project, [LexicalArcChecker()], chunk_size=8)
    assert report.status == "done"
    assert report.checkers[0].scored == 2 and report.checkers[0].not_checked_pairs == 1
    [skipped] = report.not_checked_pairs
    assert skipped.external_id == "long"
    assert "source is 306 characters, over the parser's limit of 200" in skipped.reason
    with project.session() as s:
        rows = {r.output_id: r for r in s.scalars(select(PairScoreRow))}
    assert len(rows) == 3
    assert rows[skipped.output_id].score is None and "limit" in rows[skipped.output_id].reason
    assert sum(r.score is not None for r in rows.values()) == 2
    # It is not retried forever, and the next run is not blocked by it.
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 0


def test_a_pair_the_parser_fails_on_is_not_checked(
    project: Project, pairs_file: Path, monkeypatch
) -> None:
    import_file(project, pairs_file)
    import models.parsing

    real = models.parsing.parse_many

    def fussy(texts: Sequence[str], **kw: Any) -> Any:
        if any("Acme" in t for t in texts):
            raise ValueError("cannot parse this\nsecond line")
        return real(texts, **kw)

    monkeypatch.setattr("app.analysis.parse_many", fussy)
    report = analyze(project, [LexicalArcChecker()])
    assert report.checkers[0].scored == 2
    assert [n.reason for n in report.not_checked_pairs] == ["the parser failed: cannot parse this"]


# ---------------------------------------------------------------------- item 17
def test_pairs_scored_counts_pairs_not_pairs_times_checkers(
    project: Project, pairs_file: Path, monkeypatch
) -> None:
    import_file(project, pairs_file)

    class Second(LexicalArcChecker):
        name = "lexical-2"

    import models.registry

    monkeypatch.setattr(
        models.registry,
        "load_checker",
        lambda n, **_k: LexicalArcChecker() if n == "lexical" else Second(),
    )

    class Ctx:
        def progress(self, *_a: int) -> None: ...
        def step(self, *_a: object) -> None: ...
        def partial(self, _p: object) -> None: ...
        def should_stop(self) -> bool:
            return False

    out = run_analysis(AnalysisRequest(str(project.path), ("lexical", "lexical-2")), Ctx())  # type: ignore[arg-type]
    assert out["pairs_scored"] == 3 and out["scored"] == 6


def test_a_run_whose_end_could_not_be_written_does_not_block_this_process(
    project: Project, pairs_file: Path, monkeypatch
) -> None:
    """Disk full at the end of a run in the window: its next analysis must not be refused."""
    import app.analysis

    import_file(project, pairs_file)
    real = app.analysis.finish_runs

    def full(project: Project, runs: dict[str, int], status: str, error: str | None) -> None:
        with app.analysis._active_lock:
            app.analysis._active_runs.difference_update(runs.values())
        raise ProjectError("disk full")

    monkeypatch.setattr(app.analysis, "finish_runs", full)
    with pytest.raises(ProjectError, match="disk full"):
        analyze(project, [LexicalArcChecker()])
    assert [r.status for r in runs(project)] == ["running"]
    monkeypatch.setattr(app.analysis, "finish_runs", real)
    # Nothing left to score: the left-over run is still recorded for what it was.
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 0
    assert [r.status for r in runs(project)] == ["interrupted"]
    more = [dict(r, id=f"{r['id']}-new", output=r["output"] + " Again.") for r in PAIRS]
    import_file(project, write_jsonl(pairs_file.with_name("more.jsonl"), more))
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 3
    assert [r.status for r in runs(project)] == ["interrupted", "done"]


def test_a_dead_run_whose_pid_was_reused_is_recorded_interrupted(
    project: Project, pairs_file: Path
) -> None:
    """kill -9, and the pid now belongs to another program (here: this test process)."""
    import os
    import socket

    import app.analysis

    import_file(project, pairs_file)
    with project.session() as s:
        s.add(
            Run(
                checker="lexical",
                version="old",
                display_name="lexical baseline",
                grain="arc",
                settings={
                    "pid": os.getppid(),  # alive, but started at another time than recorded
                    "host": socket.gethostname(),
                    "process_started": "1",
                },
                started_at=app.analysis.now(),
                status="running",
                scored=0,
            )
        )
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 3
    assert [r.status for r in runs(project)] == ["interrupted", "done"]
