"""Analysis on Ray: the same rows as a local run; a dead worker or a killed driver loses nothing
that was written, and the next run resumes.

One local Ray cluster (2 CPUs) serves the whole module: starting one takes seconds.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from app import cli
from app.analysis import analyze, load_checkers
from app.engines.ray_cluster import start_cluster
from app.engines.ray_engine import RAY_MISSING, RayPool, analyze_on_ray, import_ray
from app.io.importer import import_file
from app.store import Project
from app.store.schema import Claim, PairScoreRow, Run
from models.errors import EngineError, FactDeskError
from tests.app.rows import analysis_rows
from tests.conftest import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "demo_pairs.jsonl"
LONG = {  # over the parser's limit: every checker records it as not checked, with the reason
    "id": "too-long",
    "source": "word " * 420_001,
    "output": "A word.",
}
BARE = {  # a bare answer with no question: its sentence is recorded as not checked
    "id": "bare-answer",
    "source": "The ferry leaves at noon.",
    "output": "Yes.",
}


@pytest.fixture(scope="module")
def lexical_pool() -> Iterator[RayPool]:
    """Two lexical workers on a local cluster that this module's other pools join (it counts
    6 CPUs, so that they all fit; the machine has 2)."""
    cluster = start_cluster(cpus=6)
    try:
        with RayPool(["lexical"], workers=2) as pool:
            yield pool
    finally:
        cluster.close()


def make_project(path: Path, records: list[dict[str, Any]]) -> Project:
    project = Project.create(path)
    import_file(
        project, write_jsonl(path.with_suffix(".jsonl"), records), max_field_chars=3_000_000
    )
    return project


def demo_records(n: int | None = None) -> list[dict[str, Any]]:
    lines = DEMO.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def claims(project: Project) -> int:
    with project.session() as s:
        return len(s.scalars(select(Claim)).all())


def statuses(project: Project) -> list[str]:
    with project.session() as s:
        return [r.status for r in s.scalars(select(Run).order_by(Run.id))]


def local_reference(
    tmp_path: Path, records: list[dict[str, Any]], names: list[str] | None, chunk_size: int = 4
) -> Any:
    """What a local run writes, in chunks of the size the Ray run uses, with the models' caches
    as fresh as a new worker's: the int8 models' scores depend a little on which sentences share
    a batch (activations are quantised per batch), and a cached prediction keeps the batch it
    was first computed in (an earlier test of this process may have scored these pairs)."""
    from models.arc_runtime import get_runner
    from models.checkers.align import shared_encoder
    from models.embedder import bundled_retriever

    for cached in (get_runner, shared_encoder, bundled_retriever):
        cached.cache_clear()
    with make_project(tmp_path / "local.factdesk", records) as project:
        analyze(project, load_checkers(names), chunk_size=chunk_size)
        return analysis_rows(project)


def test_ray_gives_the_rows_of_a_local_run(tmp_path: Path, lexical_pool: RayPool) -> None:
    records = [*demo_records(), BARE, LONG]
    expected = local_reference(tmp_path, records, ["lexical"])
    with make_project(tmp_path / "ray.factdesk", records) as project:
        report = analyze_on_ray(project, lexical_pool, chunk_size=4)
        assert report.status == "done" and report.checkers[0].scored == 33
        assert [n.external_id for n in report.not_checked_pairs] == ["too-long"]
        got = analysis_rows(project)
        assert statuses(project) == ["done"] and claims(project) == 0
        with project.session() as s:
            run = s.scalars(select(Run)).one()
            assert run.settings is not None and run.settings["runs_on"] == "cpu"
        assert analyze_on_ray(project, lexical_pool).checkers[0].scored == 0  # nothing left
    assert any(p[5] for p in got["pairs"]) and any(x[-1] for x in got["sentences"])
    assert got == expected


def test_ray_with_the_default_checkers(tmp_path: Path, lexical_pool: RayPool) -> None:
    records = demo_records(4)
    expected = local_reference(tmp_path, records, None, chunk_size=2)  # the default checkers
    with RayPool(None, workers=1) as pool, make_project(tmp_path / "r.factdesk", records) as p:
        assert [c.name for c in pool.checkers] == [c.name for c in load_checkers(None)]
        analyze_on_ray(p, pool, chunk_size=2)
        assert analysis_rows(p) == expected


def test_a_cancelled_ray_run_keeps_its_chunks_and_resumes(
    tmp_path: Path, lexical_pool: RayPool
) -> None:
    records = demo_records(16)
    expected = local_reference(tmp_path, records, ["lexical"], chunk_size=2)
    with make_project(tmp_path / "ray.factdesk", records) as project:
        chunks: list[list[int]] = []
        report = analyze_on_ray(
            project,
            lexical_pool,
            chunk_size=2,
            on_chunk=chunks.append,
            should_stop=lambda: bool(chunks),
        )
        assert report.cancelled and report.status == "cancelled"
        written = analysis_rows(project)["pairs"]
        assert 0 < len(written) < 16 and claims(project) == 0
        again = analyze_on_ray(project, lexical_pool, chunk_size=2)
        assert again.status == "done" and again.checkers[0].already_scored == len(written)
        rows = analysis_rows(project)
    rows.pop("run_scored"), expected.pop("run_scored")
    assert rows == expected


def test_a_killed_worker_is_replaced_and_its_chunks_scored(
    tmp_path: Path, lexical_pool: RayPool
) -> None:
    ray = import_ray()
    records = demo_records(16)
    expected = local_reference(tmp_path, records, ["lexical"])
    with make_project(tmp_path / "ray.factdesk", records) as project:
        killed: list[Any] = []

        def kill_one(ids: list[int]) -> None:
            if not killed:
                killed.append(lexical_pool.actors[0])
                ray.kill(killed[0], no_restart=True)

        report = analyze_on_ray(project, lexical_pool, chunk_size=2, on_chunk=kill_one)
        assert report.status == "done" and killed[0] not in lexical_pool.actors
        assert analysis_rows(project) == expected and claims(project) == 0


def test_a_worker_dying_past_the_limit_fails_the_run_and_the_next_resumes(
    tmp_path: Path, lexical_pool: RayPool
) -> None:
    ray = import_ray()
    records = demo_records(16)
    expected = local_reference(tmp_path, records, ["lexical"])
    with make_project(tmp_path / "ray.factdesk", records) as project:
        killed: list[Any] = []

        def kill_one(ids: list[int]) -> None:
            if not killed:
                killed.append(lexical_pool.actors[0])
                ray.kill(killed[0], no_restart=True)

        with pytest.raises(EngineError, match="run analyze again to resume"):
            analyze_on_ray(
                project, lexical_pool, chunk_size=2, on_chunk=kill_one, max_replacements=0
            )
        partial = analysis_rows(project)["pairs"]
        assert 0 < len(partial) < 16  # what was written stays, nothing half-written
        assert statuses(project) == ["failed"] and claims(project) == 0
        lexical_pool.replace(killed[0])
        report = analyze_on_ray(project, lexical_pool, chunk_size=2)
        assert report.checkers[0].already_scored == len(partial)
        rows = analysis_rows(project)
    rows.pop("run_scored"), expected.pop("run_scored")  # two runs wrote what one run writes
    assert rows == expected


def test_a_killed_driver_leaves_the_project_resumable(
    tmp_path: Path, lexical_pool: RayPool
) -> None:
    # 96 pairs in chunks of one: long enough a run to be killed in the middle on a fast machine
    records = [
        dict(r, id=f"{r['id']}-{n}", system=f"copy-{n}") for n in range(3) for r in demo_records()
    ]
    expected = local_reference(tmp_path, records, ["lexical"])
    path = tmp_path / "ray.factdesk"
    make_project(path, records).close()
    # It joins this module's cluster (--address): starting its own would take longer.
    address = import_ray().get_runtime_context().gcs_address
    argv = ["analyze", str(path), "--checker", "lexical", "--engine", "ray", "--workers", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv, "--address", address, "--shard-size", "1"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # anything it started goes with its process group below
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            with Project.open(path) as project, project.session() as s:
                # One query: the driver is writing while this reads.
                if s.scalar(select(func.count(PairScoreRow.id))):
                    break
            time.sleep(0.2)
        assert proc.poll() is None, "the analysis ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)  # the driver only, mid-run
        proc.wait(30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what is left of the cluster it started
        except ProcessLookupError:
            pass
    with Project.open(path) as project:
        assert project.count_pairs() == 96
        written = analysis_rows(project)["pairs"]
        assert 0 < len(written) < 96 and statuses(project) == ["running"]
        report = analyze_on_ray(project, lexical_pool, chunk_size=4)
        assert report.status == "done" and report.checkers[0].already_scored == len(written)
        assert statuses(project) == ["interrupted", "done"] and claims(project) == 0
        rows = analysis_rows(project)
    rows.pop("run_scored"), expected.pop("run_scored")  # two runs wrote what one run writes
    assert rows == expected


def test_cli_analyze_on_ray(tmp_path: Path, lexical_pool: RayPool, capsys: Any) -> None:
    """The command joins the cluster this process started (a fresh one takes longer)."""
    path = tmp_path / "cli.factdesk"
    make_project(path, demo_records(6)).close()
    argv = ["analyze", str(path), "--checker", "lexical", "--engine", "ray", "--json"]
    assert cli.main([*argv, "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "done" and out["pairs_scored"] == 6


def test_a_checker_the_workers_cannot_load_is_one_clear_error(lexical_pool: RayPool) -> None:
    with pytest.raises(FactDeskError, match="Unknown checker 'no-such'"):
        RayPool(["no-such"], workers=1)


def test_more_workers_than_the_cluster_holds_are_refused(lexical_pool: RayPool) -> None:
    with pytest.raises(EngineError, match="too few for 7 workers"):
        RayPool(["lexical"], workers=7)  # the module's cluster counts 6 CPUs
    with pytest.raises(EngineError, match="0 GPUs: too few for 1 workers with a GPU each"):
        RayPool(["lexical"], workers=1, device="cuda")


def test_ray_missing_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(EngineError, match="pip install 'factdesk\\[ray\\]'"):
        import_ray()
    path = tmp_path / "p.factdesk"
    make_project(path, demo_records(1)).close()
    assert cli.main(["analyze", str(path), "--engine", "ray"]) == 2
    assert capsys.readouterr().err.strip() == f"factdesk: error: {RAY_MISSING}"


def test_workers_without_ray_is_refused(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "p.factdesk"
    make_project(path, demo_records(1)).close()
    assert cli.main(["analyze", str(path), "--workers", "2"]) == 2
    assert "--engine ray" in capsys.readouterr().err


def test_cli_score_on_ray(tmp_path: Path, lexical_pool: RayPool, capsys: Any) -> None:
    """A corpus scored on Ray into parts imports with the rows of a local run."""
    records = demo_records(6)
    expected = local_reference(tmp_path, records, ["lexical"], chunk_size=2)
    src = write_jsonl(tmp_path / "in.jsonl", records)
    argv = ["score", str(src), str(tmp_path / "out"), "--checker", "lexical", "--engine", "ray"]
    assert cli.main([*argv, "--workers", "1", "--pairs-per-part", "4", "--shard-size", "2"]) == 0
    capsys.readouterr()
    with Project.create(tmp_path / "review.factdesk") as project:
        for part in sorted((tmp_path / "out").glob("part-*.jsonl")):
            import_file(project, part)
        rows = analysis_rows(project)
    rows.pop("run_scored"), expected.pop("run_scored")
    assert rows == expected


def test_ray_is_imported_only_when_used() -> None:
    code = "import sys, app.cli, app.corpus, app.engines.ray_engine; print('ray' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    )
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------- connecting, stopping
def cli_process(argv: list[str], **kw: Any) -> subprocess.Popen[str]:
    """``factdesk ARGV`` in a child process; Ctrl-C reaches it as it would from a terminal
    (a background job may have inherited SIGINT ignored, which Python would keep)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


@pytest.fixture
def silent_port() -> Iterator[socket.socket]:
    """A port that takes connections and never answers: not a Ray cluster."""
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        sock.listen(64)
        yield sock


@pytest.fixture
def one_pair(tmp_path: Path) -> Path:
    path = tmp_path / "p.factdesk"
    make_project(path, demo_records(1)).close()
    return path


@pytest.mark.parametrize("where", ["refused", "silent", "non-routable"])
def test_a_bad_or_unreachable_address_is_one_clear_error_in_bounded_time(
    where: str, one_pair: Path, silent_port: socket.socket
) -> None:
    """Old code: Ray retried for many minutes (the test timed out)."""
    address = {
        "refused": "127.0.0.1:1",
        "silent": f"127.0.0.1:{silent_port.getsockname()[1]}",
        "non-routable": "10.255.255.1:6379",  # no route, or no answer: either is said
    }[where]
    argv = ["analyze", str(one_pair), "--engine", "ray", "--address", address]
    proc = cli_process(argv if where == "refused" else [*argv, "--connect-timeout", "3"])
    try:
        out, err = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    assert err.startswith("factdesk: error: ") and err.count("\n") == 1, err
    assert address in err and "Traceback" not in err
    if where == "refused":
        assert "connection refused" in err
    if where == "silent":
        assert "within 3 s" in err and "--connect-timeout" in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_sigterm_and_ctrl_c_stop_a_connect_that_waits(
    sig: int, one_pair: Path, silent_port: socket.socket
) -> None:
    """Old code: Ray's connect ignored both while it waited; SIGTERM then ended the process
    without a word (exit status 15)."""
    address = f"127.0.0.1:{silent_port.getsockname()[1]}"
    proc = cli_process(["analyze", str(one_pair), "--engine", "ray", "--address", address])
    try:
        silent_port.settimeout(120)
        silent_port.accept()[0].close()  # the command is trying to reach the cluster
        time.sleep(1)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.startswith("factdesk: interrupted") and "Traceback" not in err
    # nothing it started is left trying
    assert not [p for p in processes() if address in p[1]]


def processes() -> list[tuple[int, str]]:
    """(pid, command line) of every live process."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                out.append((int(entry.name), cmd))
    return out


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def wait_for_scores(path: Path, proc: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        with Project.open(path) as project, project.session() as s:
            if s.scalar(select(func.count(PairScoreRow.id))):  # one query: the driver writes
                return
        time.sleep(0.2)
    said = proc.communicate()[1] if proc.poll() is not None and proc.stderr else ""
    raise AssertionError(f"the analysis ended before it could be stopped: {said}")


def copies_of_the_demo(n: int) -> list[dict[str, Any]]:
    return [
        dict(r, id=f"{r['id']}-{k}", system=f"copy-{k}") for k in range(n) for r in demo_records()
    ]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_a_killed_driver_leaves_no_process_of_its_local_cluster(tmp_path: Path) -> None:
    """The driver starts a local cluster, is killed with SIGKILL mid-run: within a bounded wait
    no process it started (directly or not) is left, nor the cluster's folder. Old code: Ray's
    DashboardAgent and RuntimeEnvAgent stayed for good, and /tmp/factdesk-ray-*."""
    path = tmp_path / "local.factdesk"
    make_project(path, copies_of_the_demo(3)).close()
    argv = ["analyze", str(path), "--checker", "lexical", "--engine", "ray", "--workers", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv, "--shard-size", "1"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started: set[int] = set()
    try:
        wait_for_scores(path, proc)
        started = descendants(proc.pid)
        commands = dict(processes())
        folders = {
            Path(m)
            for pid in started
            for m in re.findall(r"/\S*factdesk-ray-[^/\s]+", commands.get(pid, ""))
        }
        assert started and folders  # the cluster's processes and where it keeps its files
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + 90
        left = started
        while time.monotonic() < deadline:
            left = started & {pid for pid, _cmd in processes()}
            if not left and not any(f.exists() for f in folders):
                break
            time.sleep(0.5)
        assert not left, [commands.get(pid) for pid in left]
        assert not any(f.exists() for f in folders)
    finally:
        proc.kill()
        for pid in started:  # what a failure left behind
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_sigterm_stops_an_analysis_on_ray_as_ctrl_c_does(
    tmp_path: Path, lexical_pool: RayPool
) -> None:
    """SIGTERM mid-run: the run is recorded interrupted, the claims freed, the command says so
    and exits 130. Old code: Ray's own handler ended the process without a word (status 15)
    and the run was recorded failed."""
    path = tmp_path / "term.factdesk"
    make_project(path, copies_of_the_demo(3)).close()
    address = import_ray().get_runtime_context().gcs_address  # this module's cluster
    argv = ["analyze", str(path), "--checker", "lexical", "--engine", "ray", "--workers", "1"]
    proc = cli_process([*argv, "--address", address, "--shard-size", "1"])
    try:
        wait_for_scores(path, proc)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    last = err.replace("\r", "\n").strip().splitlines()[-1]  # after the progress bar
    assert last.startswith("factdesk: interrupted") and "Traceback" not in err
    with Project.open(path) as project:
        assert statuses(project) == ["interrupted"] and claims(project) == 0
        assert 0 < len(analysis_rows(project)["pairs"]) < 96
