"""Speed, memory and size of the default analysis path beside the DAE reference (prints).

    python tests/benchmarks/bench_models.py [--repeats N] [--nli-dir DIR]

The default path is what ``factdesk analyze`` runs with no ``--checker``: the default checkers
(``models.registry.default_checkers``: the bundled models whose files are present, ``nli`` and
``combined`` among them when theirs are) loaded by ``app.analysis.load_checkers`` and run on a
pair by ``app.analysis.score_chunk`` (parse, claims, every checker), in a fresh process that
measures load time and peak RSS. Each repeat scores a new pair, a ~600-word source and a
3-sentence output, every sentence of both reworded so that no cache holds any of it (as when
each output has its own source). Printed beside their targets: the median time per
pair, its ratio to the DAE reference (the DAE paper's architecture at ELECTRA-base size: hidden
768, 12 layers, 12 heads, intermediate 3072, random weights, fp32 torch, with the same arc head,
on the same parse and arcs, reading as much of the source as fits beside each sentence, as the
paper's model does), peak RSS and the bundled models' size on disk. The load time is that of a
later start, which reads the optimised copies of the large graphs that the first start keeps in
the user's cache (``models.runtime.kept_graph``; here a temporary folder, filled by a first run
whose load time is printed beside it).

When the fast path's model is installed (``resources/models/nli_fast``, the ``nli-fast``
checker), the same pairs are timed again with it in place of ``nli``, and ``combined-fast`` (the
combined score fitted on its scores) in place of ``combined``, and printed below.

``--nli-dir DIR`` measures with the exported NLI model in DIR as if it were the bundled one
(``resources/models/nli``): the process reads a copy of ``resources/`` made of links, with
``models/nli`` pointing at DIR. Without it the bundled NLI model is used when present; the
script says when it is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

TARGET_PER_PAIR_S = 1.0
TARGET_RSS_MB = 1536
TARGET_SIZE_MB = 200
TARGET_LOAD_S = 2.0

PARAGRAPHS = [
    "The city council met on Tuesday evening to debate the new transport plan for the region.",
    "Officials said the plan would cost about 40 million pounds over the next five years.",
    "Several residents spoke against the proposal, saying that bus routes to the villages would be cut.",
    "The mayor, who has led the council since 2015, defended the scheme as necessary and overdue.",
    "Local businesses were divided, with some shop owners welcoming plans for a pedestrian zone.",
    "A spokesperson for the rail operator said services would run every fifteen minutes at peak times.",
    "Environmental groups praised the plan for reducing car traffic in the historic centre.",
    "The opposition leader accused the council of ignoring the results of a public consultation.",
    "Construction of the first cycle lanes is expected to begin in the spring of next year.",
    "The council will vote on the final version of the plan at its meeting in March.",
]
OUTPUT = [
    "The council debated a transport plan costing 40 million pounds.",
    "The mayor has led the council since 2012.",
    "Environmental groups criticised the plan for increasing traffic.",
]


def reworded(sentence: str, variant: int, k: int) -> str:
    return f"In week {100 * variant + k}, {sentence[0].lower()}{sentence[1:]}"


def make_pair(variant: int, words: int = 600) -> tuple[str, str]:
    """A ~600-word source and a 3-sentence output; each variant words every sentence of both
    differently, so that no cache holds any of it."""
    out, n, k = [], 0, 0
    while n < words:
        out.append(reworded(PARAGRAPHS[k % len(PARAGRAPHS)], variant, k))
        n += len(out[-1].split())
        k += 1
    return " ".join(out), " ".join(reworded(s, variant, k) for k, s in enumerate(OUTPUT))


def timed(fn: Any, repeats: int) -> float:
    fn()  # warm-up
    runs = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


# ---- the default path, in a fresh process ----


def peak_mb() -> float:
    """Peak RSS of this process (VmHWM: ru_maxrss can carry the parent's peak over a fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Timed:
    """A checker that records how long each of its ``score`` calls took."""

    def __init__(self, checker: Any) -> None:
        self.checker = checker
        self.name = checker.name
        self.spent: list[float] = []

    def score(self, batch: Any, **options: Any) -> Any:
        t = time.perf_counter()
        out = self.checker.score(batch, **options)
        self.spent.append(time.perf_counter() - t)
        return out


#: What the fast path runs in place of each default checker.
FAST_IN_PLACE = {
    "nli": "nli-fast",
    "dae": "dae-fast",
    "support": "support-fast",
    "combined": "combined-fast",
}


def fast_checkers() -> list[str]:
    """The fast path: the default checkers with ``nli-fast`` in place of ``nli`` and the
    combined score that reads it (``combined-fast``) in place of ``combined``."""
    from models.registry import default_checkers

    return [FAST_IN_PLACE.get(n, n) for n in default_checkers()]


def default_path(repeats: int, fast: bool = False) -> dict[str, Any]:
    """Load the default checkers (``fast``: the fast path's) and score ``repeats`` new pairs as
    ``analyze`` does."""
    t0 = time.perf_counter()
    from app.analysis import load_checkers, score_chunk

    checkers = [Timed(c) for c in load_checkers(fast_checkers() if fast else None)]
    load_s = time.perf_counter() - t0
    rss_loaded = peak_mb()
    totals = []
    for variant in range(repeats + 1):  # the first one warms up
        texts = {1: make_pair(variant)}
        t = time.perf_counter()
        score_chunk(checkers, texts, {1: {c.name for c in checkers}})  # type: ignore[arg-type]
        totals.append(time.perf_counter() - t)
    spent = {c.name: statistics.median(c.spent[1:]) for c in checkers}
    from models.checkers.nli import BUNDLED_DIR as NLI_DIR

    return {
        "load_s": load_s,
        "rss_loaded_mb": rss_loaded,
        "rss_peak_mb": peak_mb(),
        "per_pair_s": statistics.median(totals[1:]),
        "checkers_s": spent,
        "parse_s": statistics.median(
            total - sum(c.spent[k] for c in checkers) for k, total in enumerate(totals) if k > 0
        ),
        "runs_on": {c.name: str(getattr(c.checker, "runs_on", "cpu")) for c in checkers},
        "nli_dir": str(NLI_DIR.resolve()),
    }


def resources_with_nli(nli_dir: Path, root: Path) -> Path:
    """A copy of ``resources/`` made of links, with ``models/nli`` pointing at ``nli_dir``."""
    real = REPO / "resources"
    (root / "resources" / "models").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "models":
            (root / "resources" / entry.name).symlink_to(entry)
    for entry in (real / "models").iterdir():
        if entry.name != "nli":
            (root / "resources" / "models" / entry.name).symlink_to(entry)
    (root / "resources" / "models" / "nli").symlink_to(nli_dir.resolve())
    return root


def fast_installed() -> bool:
    """Whether the fast path's NLI model is installed (``resources/models/nli_fast``)."""
    from models.checkers.nli import FAST_DIR
    from models.checkers.nli import bundled_available as nli_installed

    return nli_installed(FAST_DIR)


def measure_default_path(
    repeats: int, nli_dir: Path | None, cache: Path, fast: bool = False
) -> dict[str, Any]:
    """:func:`default_path` in a fresh process (``--child``), with the NLI stand-in if given,
    keeping optimised graphs in ``cache`` (:func:`models.runtime.graph_cache_dir`)."""
    with tempfile.TemporaryDirectory(prefix="bench-models-") as tmp:
        cmd = [sys.executable, __file__, "--child", "--repeats", str(repeats)]
        if fast:
            cmd.append("--fast")
        if nli_dir is not None:
            cmd += ["--resources", str(resources_with_nli(nli_dir, Path(tmp)))]
        env = {**os.environ, "FACTDESK_CACHE_DIR": str(cache)}
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        sys.exit(f"the default path failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- the DAE reference ----


def reference_module(n_labels: int) -> Any:
    import torch
    from transformers import ElectraConfig, ElectraModel

    from models.arc_model import build_module

    config = ElectraConfig(
        vocab_size=30522,
        embedding_size=768,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        max_position_embeddings=512,
    )
    torch.manual_seed(0)
    return build_module({}, n_labels, 64, encoder=ElectraModel(config)).eval()


def measure_reference(repeats: int) -> dict[str, Any]:
    """The DAE reference on the first pair the default path timed: our parse and arcs, as
    much of the source as fits beside each sentence (the paper's input; our heads read the five
    most relevant sentences, :data:`models.arc_runtime.ArcSupportRunner.window`), the
    ELECTRA-base model in one batch; and our arc model alone on the same inputs."""
    import torch

    from models.arc_runtime import BUNDLED_DIR, default_retriever, get_runner
    from models.checkers.multitask import MultiTaskChecker
    from models.claims import pair_input
    from models.encoding import collate, encode_pair
    from models.evidence import build_windows
    from models.parsing import parse

    source_text, output_text = make_pair(1)
    parse_s = timed(lambda: (parse(source_text), parse(output_text)), repeats)
    item = pair_input("b", parse(source_text), parse(output_text))
    runner = get_runner(BUNDLED_DIR, "onnx", "cpu")
    windows = build_windows(
        item.source,
        item.judged,
        max_tokens=runner.max_length,
        count_tokens=runner.count_tokens,
        retriever=default_retriever("cpu"),
    )
    sentences = zip(item.output.sentences, windows, strict=True)
    jobs = [MultiTaskChecker.reading(item, s, ev).job for s, ev in sentences]
    encoded = [
        encode_pair(runner._tokenizer, *job, runner.vocab, runner.max_length) for job in jobs
    ]
    reference = reference_module(len(runner.vocab))
    torch.set_num_threads(os.cpu_count() or 1)
    names = ("input_ids", "attention_mask", "token_type_ids", "arc_head", "arc_child", "arc_label")

    def ref() -> None:
        feed = collate(encoded)
        with torch.inference_mode():
            reference(*[torch.from_numpy(feed[k]) for k in names])

    def ours() -> None:
        for e in encoded:  # as the runner runs them: each alone
            runner._run(collate([e]))

    return {
        "parse_s": parse_s,
        "model_s": timed(ref, repeats),
        "ours_s": timed(ours, repeats),
        "windows": [len(e.ids) for e in encoded],
        "arcs": sum(len(job[2]) for job in jobs),
        "source_words": len(source_text.split()),
        "source_sentences": len(item.source.sentences),
    }


# ---- sizes and the report ----


def model_sizes(nli_dir: Path | None) -> dict[str, float]:
    """MB on disk per entry of ``resources/models`` (``nli``: the stand-in when given)."""
    entries = {p.name: p for p in (REPO / "resources" / "models").iterdir()}
    if nli_dir is not None:
        entries["nli"] = nli_dir
    sizes = {}
    for name, path in sorted(entries.items()):
        files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
        sizes[name] = sum(f.stat().st_size for f in files) / 1e6
    return sizes


def breakdown(path: dict[str, Any]) -> str:
    """Where a path's time per pair went: the parse and each checker."""
    parts = [f"parse {path['parse_s'] * 1000:.0f}"]
    parts += [f"{n} {s * 1000:.0f}" for n, s in path["checkers_s"].items()]
    return f"  of which (ms): {', '.join(parts)}"


def beside(value: str, ok: bool, target: str) -> str:
    return f"{value}   (target {target}: {'met' if ok else 'NOT MET'})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="pairs timed (median; 5)")
    parser.add_argument(
        "--nli-dir", type=Path, help="an exported NLI model directory, measured as the bundled one"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fast", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--resources", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        if args.resources:  # read the way a packaged app finds its files
            sys._MEIPASS = args.resources  # type: ignore[attr-defined]
        print(json.dumps(default_path(args.repeats, args.fast)))
        return 0
    if args.nli_dir is not None and not (args.nli_dir / "model.onnx").is_file():
        print(f"{args.nli_dir}: no model.onnx here (--nli-dir takes an exported NLI model)")
        return 2
    from models.arc_runtime import bundled_available

    if not bundled_available():
        print("the bundled arc/support model is not in resources/models/arc_support")
        return 1
    # the first start writes the optimised copies of the large graphs (as a user's first start
    # does); the measured one reads them, as every later start does
    cache = Path(tempfile.mkdtemp(prefix="bench-models-cache-"))
    try:
        first = measure_default_path(1, args.nli_dir, cache)
        path = measure_default_path(args.repeats, args.nli_dir, cache)
        fast = (
            measure_default_path(args.repeats, None, cache, fast=True) if fast_installed() else None
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    ref = measure_reference(args.repeats)
    sizes = model_sizes(args.nli_dir)

    names = list(path["checkers_s"])
    per_pair = path["per_pair_s"]
    ref_total = ref["parse_s"] + ref["model_s"]
    total_mb = sum(sizes.values())
    if "nli" in names:
        where = "--nli-dir" if args.nli_dir is not None else "bundled"
        nli = f"NLI model: {path['nli_dir']} ({where})"
    else:
        nli = "NLI model: absent (no resources/models/nli): the default path runs without 'nli'"
    print(
        f"Default path ({' + '.join(names)}) on this CPU ({os.cpu_count()} cores): a "
        f"{ref['source_words']}-word source ({ref['source_sentences']} sentences) and a "
        f"3-sentence output, every pair new (nothing cached); median of {args.repeats} pairs"
    )
    print(nli)
    print(
        beside(f"time per pair: {per_pair * 1000:.0f} ms", per_pair <= TARGET_PER_PAIR_S, "<= 1 s")
    )
    print(breakdown(path))
    print(
        f"DAE reference per pair (same parse, {len(ref['windows'])} windows of "
        f"{ref['windows']} word-pieces, {ref['arcs']} arcs; ELECTRA-base fp32 torch): "
        f"{ref_total * 1000:.0f} ms (parse {ref['parse_s'] * 1000:.0f} + model "
        f"{ref['model_s'] * 1000:.0f})"
    )
    print(
        f"ratio default path / DAE reference: {per_pair / ref_total:.2f} "
        f"({ref_total / per_pair:.1f}x faster); the arc model alone on the same windows: "
        f"{ref['ours_s'] * 1000:.0f} ms, {ref['model_s'] / ref['ours_s']:.1f}x faster than the "
        f"reference model"
    )
    print(
        beside(
            f"peak RSS: {path['rss_peak_mb']:.0f} MB (after loading: {path['rss_loaded_mb']:.0f} MB)",
            path["rss_peak_mb"] < TARGET_RSS_MB,
            f"< {TARGET_RSS_MB} MB",
        )
    )
    print(
        beside(
            f"model load time: {path['load_s']:.2f} s (the first start, which keeps optimised "
            f"copies of the large graphs: {first['load_s']:.2f} s)",
            path["load_s"] < TARGET_LOAD_S,
            "< 2 s",
        )
    )
    listed = ", ".join(f"{n} {mb:.1f}" for n, mb in sizes.items() if mb >= 0.05)
    print(
        beside(
            f"bundled models on disk: {total_mb:.1f} MB ({listed})",
            total_mb < TARGET_SIZE_MB,
            f"< {TARGET_SIZE_MB} MB",
        )
    )
    print(f"runs on: {', '.join(f'{n} {r}' for n, r in path['runs_on'].items())}")
    if fast is None:
        print("Fast path: absent (no resources/models/nli_fast)")
        return 0
    fast_s = fast["per_pair_s"]
    print(
        f"Fast path ({' + '.join(fast['checkers_s'])}; `--checker` these names), the same "
        f"pairs: "
        + beside(f"time per pair {fast_s * 1000:.0f} ms", fast_s <= TARGET_PER_PAIR_S, "<= 1 s")
    )
    print(breakdown(fast))
    print(
        f"ratio fast path / DAE reference: {fast_s / ref_total:.2f} "
        f"({ref_total / fast_s:.1f}x faster); peak RSS {fast['rss_peak_mb']:.0f} MB, "
        f"load {fast['load_s']:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
