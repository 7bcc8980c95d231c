"""A Hugging Face NLI directory read by the ``nli`` checker on a GPU beside the CPU (prints).

    python tests/benchmarks/bench_torch_device.py [--model-dir DIR] [--pairs 200]

A user's own model directory (Hugging Face format) runs through torch: the torch branch of
:class:`models.checkers.nli.NLISentenceChecker`, on the GPU when torch sees one (``--device
auto`` or ``cuda``), in fp32, one pair at a time on a CPU and ``GPU_BATCH`` pairs of similar
length at a time on a GPU. This reads the same premise/hypothesis pairs with the checker on
``cpu`` and on ``cuda`` (as it reads there, and one pair at a time) and prints, beside their
targets, pairs per second, the largest difference in a class probability between the devices,
how many pairs change their most likely class, and how far a pair moves between being read in
a batch and alone. ``--model-dir`` takes any such directory (``python -m
models.training.unexport resources/models/nli_fast DIR --base minilm`` rebuilds the fast path's
trained NLI model as one); a ``model.fp16.safetensors`` in it is read into fp32 first, so a
trained model can travel at half its size. Without one, a classifier of MiniLM-L6's shape with
seeded random weights and a word-level tokenizer is built here. Without a GPU it says so and
measures the CPU alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

#: Most a class probability may differ between the devices (fp32 on both).
TARGET_MAX_DIFF = 1e-3

SUBJECTS = ["The council", "A local firm", "The harbour board", "Two engineers", "The museum"]
VERBS = ["approved", "rejected", "delayed", "paid for", "announced"]
OBJECTS = ["a new bridge", "the dredging plan", "a pay rise", "the clock's repair", "a bypass"]
WHEN = ["on Monday", "in March", "last year", "after a long debate", "in 1987"]


def pairs(n: int) -> tuple[list[str], list[str]]:
    """``n`` premise/hypothesis pairs: entailed, altered and unrelated readings of sentences."""
    premises, hypotheses = [], []
    for i in range(n):
        s, v, o, w = (
            SUBJECTS[i % 5],
            VERBS[(i // 5) % 5],
            OBJECTS[(i // 25) % 5],
            WHEN[(i // 125) % 5],
        )
        premise = f"{s} {v} {o} {w}, officials said. The decision surprised few residents."
        kind = i % 3
        if kind == 0:
            hypothesis = f"{s} {v} {o}."
        elif kind == 1:
            hypothesis = f"{s} {VERBS[(i // 5 + 1) % 5]} {o}."
        else:
            hypothesis = f"{SUBJECTS[(i + 2) % 5]} never mentioned {OBJECTS[(i + 1) % 5]}."
        premises.append(premise)
        hypotheses.append(hypothesis)
    return premises, hypotheses


def random_model(out: Path) -> Path:
    """A sequence classifier of MiniLM-L6's shape (random, seeded) with a word-level tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    words = sorted({w.strip(".,'").lower() for t in sum(pairs(375), []) for w in t.split()})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    vocab = {w: i for i, w in enumerate(specials + words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
        intermediate_size=1536, max_position_embeddings=512,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
    )  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(out)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")
    fast.save_pretrained(out)
    return out


def as_fp32(model_dir: Path, out: Path) -> Path:
    """``model_dir`` with its ``model.fp16.safetensors`` read into fp32 (a copy in ``out``)."""
    import shutil

    from safetensors.torch import load_file, save_file

    out.mkdir(parents=True, exist_ok=True)
    for f in model_dir.iterdir():
        if f.is_file() and f.name != "model.fp16.safetensors":
            shutil.copy(f, out / f.name)
    state = load_file(str(model_dir / "model.fp16.safetensors"))
    save_file(
        {k: v.float() if v.is_floating_point() else v for k, v in state.items()},
        str(out / "model.safetensors"),
    )
    return out


def read(
    model_dir: Path, device: str, premises: list[str], hypotheses: list[str], batch: int | None
) -> dict:
    """The checker's class probabilities on ``device`` and its pairs per second (after 5 warm-up
    pairs; the median of three timed passes), reading ``batch`` pairs at a time (None: as the
    checker reads on that device, :attr:`NLISentenceChecker.torch_batch`)."""
    import numpy as np

    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(model_dir, device=device)  # type: ignore[arg-type]
    if batch is not None:
        checker.torch_batch = batch
    checker._probs(premises[:5], hypotheses[:5])  # warm-up: kernels, allocator
    rates, probs = [], None
    for _ in range(3):
        started = time.perf_counter()
        probs = checker._probs(premises, hypotheses)
        rates.append(len(premises) / (time.perf_counter() - started))
    labels = checker._model.config.id2label
    return {
        "probs": np.asarray(probs),
        "rate": statistics.median(rates),
        "runs_on": checker.runs_on,
        "batch": checker.torch_batch,
        "labels": [str(labels[k]) for k in range(len(labels))],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model-dir", type=Path, default=None, help="a Hugging Face NLI directory")
    ap.add_argument("--pairs", type=int, default=200)
    args = ap.parse_args()
    import numpy as np
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        if args.model_dir is None:
            model_dir, what = random_model(Path(tmp) / "random"), "random MiniLM-L6 shape"
        elif (args.model_dir / "model.fp16.safetensors").is_file():
            model_dir, what = as_fp32(args.model_dir, Path(tmp) / "fp32"), f"{args.model_dir}"
        else:
            model_dir, what = args.model_dir, str(args.model_dir)
        premises, hypotheses = pairs(args.pairs)
        cpu = read(model_dir, "cpu", premises, hypotheses, None)
        print(f"model: {what}; {args.pairs} pairs, fp32")
        print(
            f"cpu ({torch.get_num_threads()} threads, {cpu['batch']} pair at a time, as the "
            f"checker reads there): {cpu['rate']:.1f} pairs/s"
        )
        named = [cpu["labels"][k] for k in cpu["probs"].argmax(1)]
        counts = ", ".join(f"{label} {named.count(label)}" for label in cpu["labels"])
        print(f"most likely class on the CPU: {counts}")
        if not torch.cuda.is_available():
            print("cuda: torch sees no GPU here; only the CPU was measured")
            return 0
        name = torch.cuda.get_device_name(0)
        alone = read(model_dir, "cuda", premises, hypotheses, 1)
        gpu = read(model_dir, "cuda", premises, hypotheses, None)
        print(f"cuda ({name}), one pair at a time: {alone['rate']:.1f} pairs/s")
        print(
            f"cuda ({name}), {gpu['batch']} pairs at a time, as the checker reads there: "
            f"{gpu['rate']:.1f} pairs/s, {gpu['rate'] / cpu['rate']:.1f}x the CPU"
        )
        diff = float(np.abs(gpu["probs"] - cpu["probs"]).max())
        flips = int((gpu["probs"].argmax(1) != cpu["probs"].argmax(1)).sum())
        moved = float(np.abs(gpu["probs"] - alone["probs"]).max())
        met = "met" if diff <= TARGET_MAX_DIFF else "NOT MET"
        print(
            f"largest class-probability difference from the CPU: {diff:.2e}   "
            f"(target <= {TARGET_MAX_DIFF}: {met})"
        )
        print(f"pairs whose most likely class differs: {flips} of {args.pairs}   (target 0)")
        within = "met" if moved <= 0.01 else "NOT MET"
        print(
            f"largest difference between a pair read in a batch and alone: {moved:.2e}   "
            f"(target <= 0.01, a pair's score may not move more with its batch: {within})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
