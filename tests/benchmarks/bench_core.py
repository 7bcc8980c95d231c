"""Core throughput and memory, printed beside the targets (a script, not a test).

Run: python tests/benchmarks/bench_core.py [--pairs 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.analysis import analyze  # noqa: E402
from app.io.exporter import export  # noqa: E402
from app.io.importer import import_file  # noqa: E402
from app.paths import demo_pairs_file  # noqa: E402
from app.store import Project  # noqa: E402
from models.checkers.lexical import LexicalArcChecker  # noqa: E402

WORDS = "council bridge river mayor budget school station report market village harbour".split()


def generate(path: Path, n: int) -> None:
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            source = " ".join(rng.choice(WORDS) for _ in range(rng.randint(150, 400))) + "."
            output = " ".join(rng.choice(WORDS) for _ in range(rng.randint(15, 40))) + "."
            rec = {"id": f"g{i}", "source": source, "output": output, "system": f"sys-{i % 4}"}
            fh.write(json.dumps(rec) + "\n")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def long_text(chars: int) -> str:
    """The demo's sources as paragraphs and list items, repeated to ``chars`` characters: a long
    report with a line break every few sentences."""
    sources = [json.loads(x)["source"] for x in demo_pairs_file().read_text("utf-8").splitlines()]
    parts: list[str] = []
    size = 0
    for i in range(10_000):
        text = sources[i % len(sources)]
        parts.append(text if i % 3 else "- " + text.replace(". ", ".\n- ", 2))
        size += len(text) + 2
        if size >= chars:
            break
    return "\n\n".join(parts)[:chars]


def parse_rows() -> list[tuple[str, str, str]]:
    """Parsing time per word for a short and a ten times longer source: the same when the
    sentence marking stays linear (it set each token's start through spaCy, which scans the
    whole doc per token: 132 s for a 167,000-character source before, 8 s after)."""
    from models.parsing import parse

    parse("Warm up the parser.")
    rows, per_word = [], []
    for chars in (15_000, 150_000):
        text = long_text(chars)
        t = time.perf_counter()
        parse(text)
        dt = time.perf_counter() - t
        words = len(text.split())
        per_word.append(dt / words)
        rows.append(
            (
                f"parse a {chars:,}-character source ({text.count(chr(10)):,} line breaks)",
                f"{words / dt:,.0f} words/s",
                "(no target)",
            )
        )
    rows.append(
        (
            "parse time per word, long source / short",
            f"{per_word[1] / per_word[0]:.2f}",
            "<= 1.5 (linear)",
        )
    )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=100_000)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        data = tmpd / "pairs.jsonl"
        generate(data, args.pairs)
        size_mb = data.stat().st_size / 1e6
        with Project.create(tmpd / "bench.factdesk") as project:
            t = time.perf_counter()
            report = import_file(project, data)
            dt = time.perf_counter() - t
            rows.append(
                (
                    f"import {report.imported:,} pairs ({size_mb:.0f} MB JSONL)",
                    f"{report.imported / dt:,.0f} pairs/s",
                    ">= 10,000 pairs/s",
                )
            )
            t = time.perf_counter()
            n = export(project, tmpd / "out.jsonl")
            dt = time.perf_counter() - t
            rows.append(
                (f"export {n:,} pairs to JSONL", f"{n / dt:,.0f} pairs/s", ">= 20,000 pairs/s")
            )
        with Project.create(tmpd / "demo.factdesk") as demo:
            import_file(demo, demo_pairs_file())
            t = time.perf_counter()
            rep = analyze(demo, [LexicalArcChecker()])
            dt = time.perf_counter() - t
            scored = rep.checkers[0].scored
            rows.append(
                (
                    f"analyse demo ({scored} pairs), lexical baseline, incl. parsing",
                    f"{scored / dt:,.1f} pairs/s",
                    "(no target)",
                )
            )
            t = time.perf_counter()
            n = export(demo, tmpd / "demo.jsonl")
            dt = time.perf_counter() - t
            rows.append(("export analysed demo to JSONL", f"{n / dt:,.0f} pairs/s", ""))
    rows += parse_rows()
    rows.append(("peak memory (RSS) of this process", f"{peak_mb():,.0f} MB", ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'measured':>18}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>18}  {target}")


if __name__ == "__main__":
    main()
