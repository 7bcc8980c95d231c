"""Entity familiarity on FRANK: entities each way, description verdicts, FRANK's human labels.

Run: python tests/benchmarks/familiarity_frank.py PROJECT [--data ../shared/data]

PROJECT is made from ``summaries/frank_valid.jsonl`` when it does not exist (imported with the
article hash as id and ``model_name`` as system) and analysed with ``--checker`` (default: the
default checkers; onnxruntime and torch limited to ``--threads``). FRANK has no nonfactual /
incongruous labels, so beside the checker's verdicts the script reads FRANK's summary-level
labels kept in each pair's metadata: ``EntE`` < 1 (an entity error in some sentence) and
``Factuality`` < 1 (any error), per familiarity of the described entity.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def limit_threads(n: int) -> None:
    """One thread for onnxruntime sessions (and torch), so the script shares the machine."""
    import onnxruntime as ort

    base = ort.SessionOptions

    class Limited(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.intra_op_num_threads = n
            self.inter_op_num_threads = n

    ort.SessionOptions = Limited  # type: ignore[misc]
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:
        pass


def build(path: Path, data: Path, checkers: list[str] | None) -> None:
    from app.analysis import analyze
    from app.io.importer import import_file
    from app.io.records import FieldMapping
    from app.store import Project
    from models.registry import default_checkers, load_checker

    names = checkers or default_checkers()
    with Project.create(path) as project:
        mapping = FieldMapping(id="hash", source="article", output="summary", system="model_name")
        import_file(project, data / "summaries" / "frank_valid.jsonl", mapping=mapping)
        t = time.perf_counter()
        analyze(project, [load_checker(n, device="cpu") for n in names])
        print(f"analysed with {', '.join(names)} in {time.perf_counter() - t:.0f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--checker", action="append", help="checkers to analyse with (repeatable)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args(argv)
    limit_threads(args.threads)
    if not args.project.exists():
        build(args.project, args.data, args.checker)

    from app.audit.familiarity import analyse, describe
    from app.store import Project
    from app.store.schema import Output

    with Project.open(args.project) as project:
        t = time.perf_counter()
        report = analyse(project, threshold=args.threshold)
        took = time.perf_counter() - t
        with project.session() as s:
            meta = {o.id: o.meta or {} for o in s.query(Output)}
    print(describe(report, limit=10))
    print(f"\n(entities found and tagged in {took:.0f} s)")

    # FRANK's own labels, per familiarity of the described entity.
    rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for m in report.mentions:
        info = meta.get(m.output_id, {})
        ent_error = float(info.get("EntE", 1.0)) < 1.0
        any_error = float(info.get("Factuality", 1.0)) < 1.0
        for d in m.descriptions:
            if d.verdict == "not scored":
                continue
            for group in (m.tag, f"{info.get('dataset', '?')} / {m.tag}"):
                row = rows[(group, d.verdict)]
                row[0] += 1
                row[1] += ent_error
                row[2] += any_error
    print("\nFRANK labels of the summaries holding each description (summary level):")
    print(f"{'group':<22}{'verdict':<15}{'descr.':>7}{'EntE<1':>14}{'Factuality<1':>16}")
    for (group, verdict), (n, ent, anyerr, _) in sorted(rows.items()):
        print(
            f"{group:<22}{verdict:<15}{n:>7}{f'{ent} ({100 * ent / n:.0f}%)':>14}"
            f"{f'{anyerr} ({100 * anyerr / n:.0f}%)':>16}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
