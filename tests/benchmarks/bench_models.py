"""Speed and memory of the bundled arc model beside the DAE reference architecture (prints).

    python tests/benchmarks/bench_models.py [--pairs N] [--repeats N]

Side by side in one run on this machine, on the same arcs and the same evidence windows: our
int8 ONNX arc/support model (MiniLM-L6, onnxruntime) and the DAE paper's architecture at
ELECTRA-base size (hidden 768, 12 layers, 12 heads, intermediate 3072; random weights, fp32
torch) with the same arc head. Per-pair time is for a ~600-word source with a 3-sentence output
(model time only: windows are built once and shared); batch throughput scores many such pairs
in batches of 16 windows. A fresh process then loads the app's models (arc/support model and
embedder) to measure load time and peak RSS.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

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
OUTPUT = (
    "The council debated a transport plan costing 40 million pounds. "
    "The mayor has led the council since 2012. "
    "Environmental groups criticised the plan for increasing traffic."
)


def make_source(words: int = 600) -> str:
    out, n, k = [], 0, 0
    while n < words:
        sentence = PARAGRAPHS[k % len(PARAGRAPHS)]
        if k >= len(PARAGRAPHS):
            sentence = sentence.replace("The ", f"In week {k}, the ", 1)
        out.append(sentence)
        n += len(sentence.split())
        k += 1
    return " ".join(out)


def reference_module(n_labels: int) -> object:
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


def timed(fn, repeats: int) -> float:
    fn()  # warm-up
    runs = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


LOAD_SNIPPET = r"""
import sys, time, json
sys.path.insert(0, {repo!r})

def peak_mb():
    # VmHWM belongs to this process image (ru_maxrss can carry the parent's peak over a fork).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")

t0 = time.perf_counter()
from models.registry import load_checker
from models.registry import default_checkers
checkers = [load_checker(n, device="cpu") for n in default_checkers()]
from models.embedder import bundled_retriever
bundled_retriever("cpu")
load = time.perf_counter() - t0
rss_loaded = peak_mb()
from models.parsing import parse
from models.checkers.base import PairInput
src = parse({source!r}); out = parse({output!r})
item = PairInput("b", src, out)
for c in checkers:
    c.score([item])
print(json.dumps({{"load_s": load, "rss_loaded_mb": rss_loaded,
                  "rss_peak_mb": peak_mb(), "checkers": [c.name for c in checkers]}}))
"""


def _aligner_time(source: object, output: object, repeats: int) -> float | None:
    """Median time of the alignment checker on one pair, its caches cleared each time."""
    from models.aligner import bundled_available as aligner_available

    if not aligner_available():
        return None
    from models.checkers import align
    from models.checkers.base import PairInput

    checker = align.AlignChecker(device="cpu")
    item = PairInput("b", source, output)  # type: ignore[arg-type]

    def run() -> None:
        align._RESULTS.clear()
        align._SOURCES._items.clear()
        checker.score([item])

    return timed(run, repeats)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=16, help="pairs in the throughput run")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import json

    import torch

    from models.arc_runtime import BUNDLED_DIR, bundled_available, default_retriever, get_runner
    from models.checkers.base import PairInput
    from models.checkers.multitask import arc_slots
    from models.encoding import collate, encode_pair
    from models.parsing import parse

    if not bundled_available():
        print("bundled model not found in resources/models/arc_support")
        return 1
    source_text = make_source()
    code = LOAD_SNIPPET.format(repo=str(REPO), source=source_text, output=OUTPUT)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    mem = json.loads(proc.stdout.strip().splitlines()[-1])
    source, output = parse(source_text), parse(OUTPUT)
    runner = get_runner(BUNDLED_DIR, "onnx", "cpu")
    windows = runner.windows(PairInput("b", source, output), default_retriever("cpu"))
    jobs = [
        (ev.text, s.text, arc_slots(s)) for s, ev in zip(output.sentences, windows, strict=True)
    ]
    encoded = [
        encode_pair(runner._tokenizer, *job, runner.vocab, runner.max_length) for job in jobs
    ]
    n_arcs = sum(len(j[2]) for j in jobs)
    lengths = [len(e.ids) for e in encoded]
    reference = reference_module(len(runner.vocab))
    torch.set_num_threads(os.cpu_count() or 1)

    def ours(batch_encoded: list) -> None:
        for lo in range(0, len(batch_encoded), 16):
            runner._run(collate(batch_encoded[lo : lo + 16]))

    def ref(batch_encoded: list) -> None:
        with torch.inference_mode():
            for lo in range(0, len(batch_encoded), 16):
                feed = collate(batch_encoded[lo : lo + 16])
                reference(
                    *[
                        torch.from_numpy(feed[k])
                        for k in (
                            "input_ids",
                            "attention_mask",
                            "token_type_ids",
                            "arc_head",
                            "arc_child",
                            "arc_label",
                        )
                    ]
                )

    ours_pair = timed(lambda: ours(encoded), args.repeats)
    ref_pair = timed(lambda: ref(encoded), args.repeats)
    many = encoded * args.pairs
    ours_batch = timed(lambda: ours(many), max(1, args.repeats // 2))
    ref_batch = timed(lambda: ref(many), max(1, args.repeats // 2))
    onnx_mb = (BUNDLED_DIR / "model.onnx").stat().st_size / 1e6
    align_pair = _aligner_time(source, output, args.repeats)

    rows = [
        ("model", "ours: MiniLM-L6 int8 ONNX", "DAE ref: ELECTRA-base fp32 torch", "speed-up"),
        (
            "per pair (600-word source, 3 sentences)",
            f"{ours_pair * 1000:.0f} ms",
            f"{ref_pair * 1000:.0f} ms",
            f"{ref_pair / ours_pair:.1f}x",
        ),
        (
            f"batch throughput ({args.pairs} pairs)",
            f"{args.pairs / ours_batch:.1f} pairs/s",
            f"{args.pairs / ref_batch:.1f} pairs/s",
            f"{ref_batch / ours_batch:.1f}x",
        ),
    ]
    if align_pair is not None:
        rows.append(
            (
                "alignment checker per pair (MiniLM layers 1-3 int8)",
                f"{align_pair * 1000:.0f} ms",
                "",
                "",
            )
        )
        both = ours_pair + align_pair
        rows.append(
            (
                "default checkers per pair (arc model + alignment)",
                f"{both * 1000:.0f} ms",
                f"{ref_pair * 1000:.0f} ms",
                f"{ref_pair / both:.1f}x",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    print(
        f"Speed on this CPU ({os.cpu_count()} cores; {len(jobs)} windows of {lengths} word-pieces, "
        f"{n_arcs} arcs per pair; median of {args.repeats})"
    )
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)))
    print()
    print(
        "App models in a fresh process (arc/support int8 ONNX + embedder int8 ONNX + spaCy parse)"
    )
    names = " + ".join(mem["checkers"])
    print(f"model load time ({names} + embedder): {mem['load_s']:.2f} s   (target < 2 s)")
    print(
        f"peak RSS after loading: {mem['rss_loaded_mb']:.0f} MB; after scoring one pair with "
        f"every default checker: {mem['rss_peak_mb']:.0f} MB   (target < 1536 MB)"
    )
    print(f"arc/support model file: {onnx_mb:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
