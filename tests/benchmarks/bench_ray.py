"""Local analysis vs Ray with 1 and 2 workers on the same pairs, side by side (a script).

Run: python tests/benchmarks/bench_ray.py [--pairs 200] [--default-pairs 40] [--data DIR]

The pairs: the 32 demo pairs, then SummEval summaries from ``DIR/summaries/summeval.jsonl``
(default ``../shared/data`` beside the repository). Each engine scores a fresh copy of one
project, after a warm-up on 8 other pairs (first-use costs); the Ray runs share one local
cluster of 2 CPUs. Printed per engine: start-up (checkers or actors loaded), analysis time,
pairs/s and the driver's time per chunk ("shard", 32 pairs: claiming it, reading its texts,
writing its results); and Ray's own cost per shard: a real shard's texts sent to an idle actor
and its result sent back, nothing scored. Then the back-of-envelope for N machines and 1M pairs
from the measured one-worker rate and the driver's rate.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app import analysis  # noqa: E402
from app.analysis import analyze, load_checkers  # noqa: E402
from app.engines.ray_cluster import start_cluster  # noqa: E402
from app.engines.ray_engine import RayPool, analyze_on_ray, import_ray  # noqa: E402
from app.io.importer import import_file  # noqa: E402
from app.paths import demo_pairs_file  # noqa: E402
from app.store import Project  # noqa: E402

CHUNK = 32
WARM = 8  # pairs beyond the measured ones, scored first by each engine (first-use costs)


def pairs(n: int, data: Path) -> list[dict[str, Any]]:
    demo = [json.loads(x) for x in demo_pairs_file().read_text("utf-8").splitlines() if x]
    out = demo[:n]
    seen = set()  # SummEval repeats some summaries: a repeat would not be imported again
    with open(data / "summaries" / "summeval.jsonl", encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            if len(out) >= n:
                break
            r = json.loads(line)
            if (r["document"], r["summary"], r["model_id"]) in seen:
                continue
            seen.add((r["document"], r["summary"], r["model_id"]))
            out.append(
                {
                    "id": f"summeval-{k}",
                    "source": r["document"],
                    "output": r["summary"],
                    "system": r["model_id"],
                }
            )
    return out


def template(folder: Path, records: list[dict[str, Any]], name: str) -> Path:
    src = folder / f"{name}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    path = folder / f"{name}.factdesk"
    with Project.create(path) as p:
        import_file(p, src)
    return path


class DriverTimer:
    """Time the driver spends per chunk: claiming it, reading its texts, writing its results
    (wrapped around the real functions; the local run does the same three)."""

    NAMES = ("claim_chunk", "pair_texts", "store_chunk")

    def __init__(self) -> None:
        self.seconds, self.chunks = 0.0, 0
        self._real = {n: getattr(analysis, n) for n in self.NAMES}

    def __enter__(self) -> DriverTimer:
        for name, real in self._real.items():

            def timed(*a: Any, _real: Any = real, _name: str = name, **k: Any) -> Any:
                t = time.perf_counter()
                try:
                    return _real(*a, **k)
                finally:
                    self.seconds += time.perf_counter() - t
                    self.chunks += _name == "store_chunk"

            setattr(analysis, name, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, real in self._real.items():
            setattr(analysis, name, real)


def run_local(path: Path, warm: Path, names: list[str] | None) -> dict[str, float]:
    t0 = time.perf_counter()
    checkers = load_checkers(names)
    analysis.max_chars()  # the parser, loaded as an actor loads it
    t1 = time.perf_counter()
    with Project.open(warm) as p:  # first-use costs (parser, sessions) outside the timing
        analyze(p, checkers, chunk_size=CHUNK)
    t2 = time.perf_counter()
    with Project.open(path) as p, DriverTimer() as dt:
        analyze(p, checkers, chunk_size=CHUNK)
    t3 = time.perf_counter()
    return {"start": t1 - t0, "run": t3 - t2, "driver": dt.seconds, "chunks": dt.chunks}


def run_ray(path: Path, warm: Path, names: list[str] | None, workers: int) -> dict[str, float]:
    t0 = time.perf_counter()
    with RayPool(names, workers=workers) as pool:
        t1 = time.perf_counter()
        with Project.open(warm) as p:  # every actor scores a warm-up chunk first
            analyze_on_ray(p, pool, chunk_size=max(1, WARM // workers))
        t2 = time.perf_counter()
        with Project.open(path) as p, DriverTimer() as dt:
            analyze_on_ray(p, pool, chunk_size=CHUNK)
        t3 = time.perf_counter()
    return {"start": t1 - t0, "run": t3 - t2, "driver": dt.seconds, "chunks": dt.chunks}


def shard_trip_ms(path: Path, names: list[str] | None, n: int, tries: int = 20) -> float:
    """A real shard's texts to an idle actor and its scored result back, nothing computed
    there (median of ``tries``): Ray's own cost per shard. ``n``: the pairs the project holds."""
    ray = import_ray()
    with Project.open(path) as p:
        assert p.count_pairs() == n, "pairs were lost on import"
        ids = [int(i) for i in analysis.pending(p, load_checkers(names)[0])[:CHUNK]]
        texts = analysis.pair_texts(p, ids)
    need = {oid: {c.name for c in load_checkers(names)} for oid in ids}
    result = analysis.score_chunk(load_checkers(names), texts, need).for_storage()

    @ray.remote(num_cpus=1)
    class Echo:
        def __init__(self, result: Any) -> None:
            self.result = result

        def score(self, texts: Any, need: Any) -> Any:
            return self.result

    actor = Echo.remote(result)  # type: ignore[attr-defined]
    ray.get(actor.score.remote(texts, need))
    times = []
    for _ in range(tries):
        t = time.perf_counter()
        ray.get(actor.score.remote(texts, need))
        times.append(time.perf_counter() - t)
    ray.kill(actor)
    return 1000 * sorted(times)[tries // 2]


def table(
    title: str, n: int, rows: dict[str, dict[str, float]], trip_ms: float
) -> dict[str, float]:
    local = rows["local"]
    shards = max(1, int(local["chunks"]))
    print(
        f"\n{title}: {n} pairs, {shards} shards of up to {CHUNK}; Ray's own cost per shard "
        f"(texts out, results back, nothing scored): {trip_ms:.1f} ms"
    )
    print(
        f"{'engine':<15}{'start-up s':>11}{'analysis s':>11}{'pairs/s':>9}{'driver ms/shard':>17}"
    )
    for name, r in rows.items():
        print(
            f"{name:<15}{r['start']:>11.1f}{r['run']:>11.1f}{n / r['run']:>9.2f}"
            f"{1000 * r['driver'] / max(1, r['chunks']):>17.0f}"
        )
    one = rows["ray, 1 worker"]
    return {
        "worker_rate": n / one["run"],
        "driver_rate": n / max(one["driver"], 1e-9),
        "trip_ms": trip_ms,
        "start": one["start"],
    }


def envelope(label: str, m: dict[str, float], cores: int = 16) -> None:
    """1M pairs on N machines of ``cores`` workers, from one worker's measured rate."""
    print(
        f"\n1M pairs, {label}: one worker {m['worker_rate']:.2f} pairs/s (Ray's cost per shard "
        f"included); one driver claims, reads and writes {m['driver_rate']:.0f} pairs/s"
    )
    for machines in (1, 4, 16, 64):
        workers = machines * cores
        rate = min(workers * m["worker_rate"], m["driver_rate"])
        hours = 1_000_000 / rate / 3600
        bound = "driver-bound" if rate == m["driver_rate"] else "worker-bound"
        print(
            f"  {machines:>3} machines x {cores} workers: {rate:8.0f} pairs/s, "
            f"{hours:7.2f} h ({bound})"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200, help="pairs for the lexical checker")
    ap.add_argument(
        "--default-pairs", type=int, default=40, help="pairs for the default checkers; 0: skip"
    )
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = ap.parse_args()
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} before the run "
        "(a shared VM: other people's jobs run beside this one)"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    cluster = start_cluster(cpus=2)
    print("Ray: a local cluster of 2 CPUs; one worker = one actor of 1 CPU, checkers loaded once")
    figures = {}
    try:
        for label, names, n in (
            ("lexical", ["lexical"], args.pairs),
            ("default checkers", None, args.default_pairs),
        ):
            if n <= 0:
                continue
            stem = label.replace(" ", "_")
            records = pairs(n + WARM, args.data)
            base = template(folder, records[:n], stem)
            warm = template(folder, records[n:], f"{stem}-warm")
            rows = {}
            for engine, workers in (("local", 0), ("ray, 1 worker", 1), ("ray, 2 workers", 2)):
                copy, warm_copy = (folder / f"{stem}-{workers}{x}.factdesk" for x in ("", "w"))
                shutil.copy(base, copy)
                shutil.copy(warm, warm_copy)
                rows[engine] = (
                    run_ray(copy, warm_copy, names, workers)
                    if workers
                    else run_local(copy, warm_copy, names)
                )
            figures[label] = table(label, n, rows, shard_trip_ms(base, names, n))
        for label, m in figures.items():
            envelope(label, m)
    finally:
        cluster.close()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
