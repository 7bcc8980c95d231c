"""Window benchmarks; prints figures beside their targets and the figures before issue 25,
asserts nothing.

    QT_QPA_PLATFORM=offscreen nice -n 10 python tests/benchmarks/bench_gui.py [--pairs 100000]

1. open a 100,000-pair project and show the first pair (target < 1 s);
2. keypress to committed judgment in it (target < 20 ms);
3. event-loop stall while an analysis runs in it (96 new pairs, lexical baseline), and on a small
   project with the default checkers (target: longest < 100 ms, p99 < 20 ms);
4. event-loop stall while the window adapts to 200 judgments (2,000 pairs re-scored; same target).

The 100,000-pair project is the analysed demo's rows copied inside SQLite (see
:func:`make_big`; a minute or two the first time, then reused from ``--workdir``), so no
100,000-pair import or analysis is needed. Wall times on a shared machine move with its load:
each figure also gives the process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


class _Ctx:
    def progress(self, *_a: object) -> None: ...
    def step(self, *_a: object) -> None: ...
    def partial(self, *_a: object) -> None: ...
    def should_stop(self) -> bool:
        return False


def analysed_demo(workdir: Path) -> Path:
    """The demo project analysed with the lexical baseline (built once per work folder)."""
    from app.gui.jobs import DemoRequest, build_demo

    return Path(build_demo(DemoRequest(str(workdir / "demo.factdesk"), ("lexical",)), _Ctx()))  # type: ignore[arg-type]


#: Pairs of the large project left unscored, for the analysis benchmark.
UNSCORED = 96
#: Tables copied once (sources and their sentences, runs, settings) and per copy (the rest).
PER_COPY = ("outputs", "sentences", "arcs", "pair_scores", "sentence_scores", "arc_scores")


def make_big(workdir: Path, pairs: int) -> Path:
    """A ``pairs``-pair analysed project in seconds: the analysed demo's rows copied over and over
    inside SQLite (``INSERT ... SELECT`` into the tables the store itself created), each copy
    with its own ids and pair ids, sharing the demo's sources. ``pairs - 96`` pairs are
    analysed but the last :data:`UNSCORED`, which the analysis benchmark scores."""
    import sqlite3

    from app.store import Project

    big = workdir / f"big{pairs}.factdesk"
    if big.exists():
        return big
    demo = analysed_demo(workdir)
    part = big.with_name(big.name + ".part")
    for suffix in ("", "-wal", "-shm"):
        Path(str(part) + suffix).unlink(missing_ok=True)
    Project.create(part).close()
    con = sqlite3.connect(part, isolation_level=None)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("ATTACH DATABASE ? AS demo", (str(demo),))
    n_demo = con.execute("SELECT COUNT(*) FROM demo.outputs").fetchone()[0]
    copies = -(-pairs // n_demo)
    top = {
        t: con.execute(f"SELECT COALESCE(MAX(id), 0) FROM demo.{t}").fetchone()[0]
        for t in (*PER_COPY, "sources")
    }
    # Foreign keys of each copied table and the table they point into.
    fks = {
        "outputs": {"source_id": None},
        "sentences": {"output_id": "outputs", "source_id": None},
        "arcs": {"sentence_id": "sentences"},
        "pair_scores": {"output_id": "outputs", "run_id": None},
        "sentence_scores": {"sentence_id": "sentences", "run_id": None},
        "arc_scores": {"arc_id": "arcs", "run_id": None},
    }
    con.execute("BEGIN")
    con.execute("DELETE FROM main.settings")
    for table in ("settings", "sources", "runs"):
        con.execute(f"INSERT INTO main.{table} SELECT * FROM demo.{table}")
    con.execute(
        "CREATE TEMP TABLE copies AS WITH RECURSIVE k(n) AS "
        f"(SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n + 1 < {copies}) SELECT n FROM k"
    )
    for table in PER_COPY:
        cols = [row[1] for row in con.execute(f"PRAGMA demo.table_info({table})")]
        exprs = []
        for c in cols:
            if c == "id":
                exprs.append(f"t.id + k.n * {top[table]}")
            elif c in fks[table] and fks[table][c] is not None:
                exprs.append(f"t.{c} + k.n * {top[fks[table][c]]}")
            elif table == "outputs" and c == "external_id":
                exprs.append("t.external_id || '#' || k.n")
            else:
                exprs.append(f"t.{c}")
        where = " WHERE t.output_id IS NOT NULL" if table == "sentences" else ""
        con.execute(
            f"INSERT INTO main.{table} ({', '.join(cols)}) "
            f"SELECT {', '.join(exprs)} FROM demo.{table} AS t, copies AS k{where}"
        )
        if table == "sentences":  # the sources' sentences once
            con.execute(
                f"INSERT INTO main.sentences ({', '.join(cols)}) "
                "SELECT * FROM demo.sentences WHERE source_id IS NOT NULL"
            )
    # Exactly ``pairs`` pairs; the last 96 are left unscored (analysis has something to do).
    last = con.execute(
        "SELECT id FROM main.outputs ORDER BY id LIMIT 1 OFFSET ?", (pairs,)
    ).fetchone()
    if last is not None:
        _drop_outputs(con, f">= {last[0]}")
    unscored = con.execute(
        "SELECT id FROM main.outputs ORDER BY id DESC LIMIT 1 OFFSET 95"
    ).fetchone()[0]
    _drop_outputs(con, f">= {unscored}", keep_pairs=True)
    con.execute("COMMIT")
    con.execute("DETACH DATABASE demo")
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    unscore_last(part)  # the analysis benchmark has pairs to score
    part.replace(big)
    return big


def _drop_outputs(con, where: str, *, keep_pairs: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Remove the analysis of the outputs whose id is ``where`` (and the outputs, unless kept)."""
    sents = f"SELECT id FROM main.sentences WHERE output_id {where}"
    arcs = f"SELECT id FROM main.arcs WHERE sentence_id IN ({sents})"
    con.execute(f"DELETE FROM main.arc_scores WHERE arc_id IN ({arcs})")
    con.execute(f"DELETE FROM main.arcs WHERE sentence_id IN ({sents})")
    con.execute(f"DELETE FROM main.sentence_scores WHERE sentence_id IN ({sents})")
    con.execute(f"DELETE FROM main.sentences WHERE output_id {where}")
    con.execute(f"DELETE FROM main.pair_scores WHERE output_id {where}")
    if keep_pairs:
        con.execute(f"UPDATE main.outputs SET parsed = 0 WHERE id {where}")
    else:
        con.execute(f"DELETE FROM main.outputs WHERE id {where}")


def bench_open(app, big: Path, settings) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    """A new window opens ``big`` and shows its first pair: (wall s, CPU s, window)."""
    from app.gui.main import MainWindow

    t0, c0 = time.perf_counter(), time.process_time()
    w = MainWindow(settings)
    w.show()
    w.session.open_project(big)
    app.processEvents()
    t1, c1 = time.perf_counter(), time.process_time()
    assert w.judging.bundle is not None
    return t1 - t0, c1 - c0, w


def bench_keys(app, w, n: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """Keypress to committed (and drawn) judgment, ``n`` times: (wall s, CPU s) of each."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    wall, cpu = [], []
    for i in range(n):
        k = Qt.Key.Key_A if i % 2 == 0 else Qt.Key.Key_X
        before = w.undo_stack.count()
        t0, c0 = time.perf_counter(), time.process_time()
        QTest.keyClick(w.output_view, k)  # returns once the judgment is committed and drawn
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert w.undo_stack.count() == before + 1
        app.processEvents()
    return wall, cpu


def small_project(workdir: Path, pairs: int) -> Path:
    """A new project of ``pairs`` demo pairs (distinct outputs), not analysed."""
    from app.io.importer import import_file
    from app.paths import demo_pairs_file
    from app.store import Project

    lines = demo_pairs_file().read_text(encoding="utf-8").splitlines()
    src = workdir / "stall.jsonl"
    with open(src, "w", encoding="utf-8") as fh:
        for n in range(pairs):
            rec = json.loads(lines[n % len(lines)])
            rec["id"] = f"s{n}"
            rec["output"] += " " * (n // len(lines))
            fh.write(json.dumps(rec) + "\n")
    path = workdir / f"stall{time.time_ns()}.factdesk"
    with Project.create(path) as p:
        import_file(p, src)
    return path


class Ticks:
    """A 5 ms timer on the event loop: how late each tick came (the stall), and how much CPU
    the window's main thread used in between (its own work; the rest of a late tick is time
    it could not run, on a shared machine mostly other processes)."""

    INTERVAL = 0.005

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.stalls: list[float] = []
        self.work: list[float] = []
        self._last = (time.perf_counter(), time.thread_time())
        self.timer = QTimer(interval=int(self.INTERVAL * 1000))
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = (time.perf_counter(), time.thread_time())
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = (time.perf_counter(), time.thread_time())
        # a gap longer than the timer interval is time the loop could not run
        self.stalls.append(max(0.0, now[0] - self._last[0] - self.INTERVAL))
        self.work.append(now[1] - self._last[1])
        self._last = now


def load_average() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def bench_stall(
    app, path: Path, settings, checkers: tuple[str, ...] = ("lexical",)
) -> tuple[Ticks, float]:  # type: ignore[no-untyped-def]
    """The event loop's ticks while the window analyses what ``path`` has not scored yet, and
    how long the analysis took; the window's handling of its end is included."""
    from app.gui.main import MainWindow

    w = MainWindow(settings)
    w.show()
    w.session.open_project(path)
    app.processEvents()
    ticks = Ticks()
    ticks.start()
    t0 = time.perf_counter()
    w.analysis_menu.start(list(checkers), device="cpu")
    while w.runner.is_busy("model"):
        app.processEvents()
        time.sleep(0.001)
    for _ in range(20):  # what the window does on the next turns after the run ended
        app.processEvents()
        time.sleep(0.005)
    elapsed = time.perf_counter() - t0
    ticks.stop()
    w.close()
    return ticks, elapsed


def unscore_last(big: Path, pairs: int = UNSCORED) -> None:
    """Take the analysis off the last ``pairs`` pairs again (an analysis benchmark added it)."""
    import sqlite3

    con = sqlite3.connect(big, isolation_level=None)
    try:
        first = con.execute(
            "SELECT id FROM outputs ORDER BY id DESC LIMIT 1 OFFSET ?", (pairs - 1,)
        ).fetchone()[0]
        con.execute("BEGIN")
        _drop_outputs(con, f">= {first}", keep_pairs=True)
        con.execute("COMMIT")
    finally:
        con.close()


def bench_adapt_stall(  # type: ignore[no-untyped-def]
    app, workdir: Path, settings, pairs: int
) -> tuple[Ticks, int, float, tuple[float, float]]:
    """Event-loop ticks while Analysis > Adapt to my judgments runs (issue 14): a project of
    ``pairs`` analysed pairs (fake component scores, see tests/app/learning_fixture.py) with 200
    pair judgments; the adaptation fits, stores and re-scores every pair in the background."""
    from app.gui.main import MainWindow

    sys.path.insert(0, str(ROOT / "tests" / "app"))
    import learning_fixture as F

    path = workdir / f"adapt{time.time_ns()}.factdesk"
    F.build(path, pairs=pairs, judge=200).close()
    w = MainWindow(settings)
    w.show()
    w.session.open_project(path)
    ticks = Ticks()
    # The window refreshes the pair list with the new scores when the job ends (in place, as
    # after an analysis) and redraws the pair on the next turn: timed apart, so the figure
    # says what the stall is made of.
    done, redraw = w.learning._done, w.learning._reload_shown

    def timed_done(report: object) -> None:
        running.append(len(ticks.stalls))  # the ticks so far came while the job ran
        t = time.perf_counter()
        done(report)
        reload_s.append(time.perf_counter() - t)

    def timed_redraw(output_id: int) -> None:
        t = time.perf_counter()
        redraw(output_id)
        redraw_s.append(time.perf_counter() - t)

    reload_s: list[float] = []
    redraw_s: list[float] = []
    running: list[int] = []
    w.learning._done = timed_done  # type: ignore[method-assign]
    w.learning._reload_shown = timed_redraw  # type: ignore[method-assign]
    ticks.start()
    t0 = time.perf_counter()
    w.learning.adapt()
    while w.learning.busy() or not redraw_s:
        app.processEvents()
        time.sleep(0.001)
    elapsed = time.perf_counter() - t0
    ticks.stop()
    assert w.session.version is not None and "+p" in w.session.version, (
        "the adaptation did not finish"
    )
    w.close()
    return ticks, running[0], elapsed, (reload_s[0], redraw_s[0])


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


#: The same measures before issue 25 (item 14), on this VM (2 cores shared with a training
#: run), 2026-11-25: the code of commit ab86b62 run by this script.
BEFORE = {
    "open": "5,950-9,606 ms, CPU 3,442 ms",
    "keys": "median 131 ms, CPU median 36.9 ms (the README's 9.0 ms: 10,000 pairs, idle VM)",
    "analysis_big": "p99 3,260 ms, longest 10,558 ms (23 s)",
    "analysis_models": "p99 14.1 ms, max 134 ms (README, 32 pairs)",
    "adapt": "p99 7.9-18.8 ms, max 14-25 ms (README)",
}
STALL_TARGET = "target: longest < 100 ms, p99 < 20 ms"


def stall_line(what: str, ticks: Ticks, elapsed: float, before: str, upto: int = 0) -> str:
    stalls, work = ticks.stalls[: upto or None], ticks.work[: upto or None]
    return (
        f"event-loop stall during {what} ({elapsed:.1f} s, {len(stalls)} ticks, load average "
        f"{load_average()} on {os.cpu_count()} cores): p99 {pct(stalls, 0.99) * 1000:.1f} ms, "
        f"longest {max(stalls) * 1000:.1f} ms; the window's own work per turn: p99 "
        f"{pct(work, 0.99) * 1000:.1f} ms, longest {max(work) * 1000:.1f} ms "
        f"({STALL_TARGET}; before: {before})"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--model-pairs", type=int, default=32, help="pairs for the bundled models")
    ap.add_argument("--adapt-pairs", type=int, default=2000, help="pairs for the adaptation")
    ap.add_argument("--only-adapt", action="store_true", help="only the adaptation stall")
    ap.add_argument("--no-models", action="store_true", help="skip the bundled models' run")
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "factdesk-bench"))
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    from PySide6.QtWidgets import QApplication

    from app.settings import Settings

    app = QApplication(sys.argv[:1])
    settings = Settings.at(str(workdir / "settings.ini"))
    if args.only_adapt:
        _adapt(app, workdir, settings, args.adapt_pairs)
        return 0
    t = time.perf_counter()
    big = make_big(workdir, args.pairs)
    print(f"setup: {args.pairs:,}-pair project ready in {time.perf_counter() - t:.1f} s ({big})")

    wall, cpu, w = bench_open(app, big, settings)
    print(
        f"open a {args.pairs:,}-pair project in a new window and show the first pair (load "
        f"average {load_average()}): {wall * 1000:.0f} ms, CPU {cpu * 1000:.0f} ms (target "
        f"< 1000 ms; before: {BEFORE['open']})"
    )
    keys, cpu = bench_keys(app, w, args.keys)
    print(
        f"keypress to committed judgment ({args.keys} keys, {args.pairs:,}-pair project, load "
        f"average {load_average()}): median {statistics.median(keys) * 1000:.1f} ms, p95 "
        f"{pct(keys, 0.95) * 1000:.1f} ms, max {max(keys) * 1000:.1f} ms; CPU median "
        f"{statistics.median(cpu) * 1000:.1f} ms, p95 {pct(cpu, 0.95) * 1000:.1f} ms "
        f"(target < 20 ms; before: {BEFORE['keys']})"
    )
    w.close()
    ticks, elapsed = bench_stall(app, big, settings)
    unscore_last(big)
    what = f"analysis in the {args.pairs:,}-pair project ({UNSCORED} new pairs, lexical baseline)"
    print(stall_line(what, ticks, elapsed, BEFORE["analysis_big"]))
    from models.registry import default_checkers

    names = tuple(default_checkers())
    if names != ("lexical",) and not args.no_models:  # the bundled models: the default run
        small = small_project(workdir, args.model_pairs)
        ticks, elapsed = bench_stall(app, small, settings, names)
        what = f"analysis, {args.model_pairs} pairs, {'+'.join(names)}"
        print(stall_line(what, ticks, elapsed, BEFORE["analysis_models"]))
    _adapt(app, workdir, settings, args.adapt_pairs)
    return 0


def _adapt(app, workdir: Path, settings, pairs: int) -> None:  # type: ignore[no-untyped-def]
    ticks, running, elapsed, reload_s = bench_adapt_stall(app, workdir, settings, pairs)
    what = f"adaptation (200 judgments, {pairs:,} pairs re-scored)"
    print(stall_line(what, ticks, elapsed, BEFORE["adapt"]))
    print(
        f"  of which while the job ran: {stall_line('it', ticks, elapsed, '-', running)}; when "
        f"it ends, the pair list's refresh with the new scores: {reload_s[0] * 1000:.0f} ms, "
        f"then the pair's redraw on the next turn: {reload_s[1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    raise SystemExit(main())
