"""Train the NLI cross-encoder (entailment / neutral / contradiction) on a CPU.

One command for the NLI model: ``--base mpnet|minilm|DIR`` picks the base encoder
(:mod:`models.training.base_encoders`), :mod:`models.training.nli_data` says which files train
it (their licence allows a bundled model; two-way files train "entailed or not" on the same head)
and which are held out (MultiNLI dev-matched and SNLI test: never trained on; ANLI and SICK:
non-commercial, evaluation only).

Fast on the hardware at hand: bf16 autocast where the CPU supports it (fp32 elsewhere), batches
of similar length with dynamic padding, AdamW with warm-up and linear decay. Honest about time:
``--minutes`` sizes the run from the measured pairs/s (the schedule decays to zero at the
budget's end and is re-sized as the speed changes), a checkpoint is written every
``--checkpoint-minutes`` with the dev figure in the log line, and ``--resume`` goes on from the
last one. Everything is seeded.

Usage::

    python -m models.training.nli_model --base mpnet --minutes 85 --out /tmp/nli-mpnet \
        --install resources/models/nli

writes ``OUT/ckpt`` (checkpoints), ``OUT/hf`` (a Hugging Face directory the ``nli`` checker
loads through torch), ``OUT/onnx`` (the exported model with ``config.json``: ``id2label``,
``version``, ``max_length``, the training record and the held-out accuracy) and copies the export
to ``--install``. ``--max-steps 200 --no-export`` is the probe that sizes a run.

On a lent GPU machine (no package index, no shared data folder, 64 MiB carried each way per
call), the bundled model was trained in three steps:

1. here: ``--write-mix .dev/mix.jsonl.xz --scale 100`` (the whole licence-cleared mix, dev slice
   and held-out sets, 16 MiB) and ``python -m models.training.base_encoders mpnet --pack
   .dev/mpnet_pack --int8`` (110 MB in parts, carried over two calls);
2. there: ``--base <unpacked> --mix mix.jsonl.xz --device cuda --lora 32 --lr 4e-4
   --batch-size 64 --epochs 3 --minutes N --torch-eval --no-export`` (``--resume`` with a larger
   ``--minutes`` goes on); it returns ``OUT/adapter`` (24 MB: the low-rank matrices, biases,
   layer norms and head, :mod:`models.training.lora`) and the torch held-out figures. The
   adapter (and ``OUT/heads``) is rewritten at every checkpoint, so a run stopped at the
   machine's time limit still leaves what it learnt so far;
3. here: ``--base <the same unpacked pack> --adapter ADAPTER --install resources/models/nli``
   merges the adapter into the base it trained on, exports and scores the held-out sets through
   the app's runtime.

The arc and support heads can learn with the encoder on such a machine (issue 27, item 3:
:mod:`models.training.arc_task`): ``--arc-examples EXAMPLES.pkl.xz --arc-heads HEADS`` adds a
batch of the arc model's examples to every step and returns ``OUT/heads`` beside the adapter;
``python -m models.training.shared_encoder`` then adds those heads to the exported graph. A
shipped model travels as well: ``python -m models.training.unexport`` rebuilds it and
``base_encoders DIR --pack`` packs it with its three-way head, so a run goes on from it.
``--write-mix --summary-pairs --summary-repeat K`` puts the in-domain pairs K times in the mix a
short run reads a slice of.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import math
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from models.readable import readable
from models.training.base_encoders import describe, resolve_base
from models.training.data import default_data_dir
from models.training.nli_data import (
    ANLI,
    BENCHMARK_MNLI,
    BENCHMARK_SNLI,
    BUNDLED_SCALE,
    FILES_BY_PATH,
    LABELS,
    NOT_ENTAILED,
    NliPair,
    describe_mix,
    held_out,
    pad_premises,
    read_mix,
    training_mix,
    write_mix,
)
from models.training.unexport import ORIGIN_FILE

Log = Callable[[str], None]

KIND = "factdesk-nli"
#: Target index of a two-way file's "not entailed" (trained as P(neutral) + P(contradiction)).
NOT_ENTAILED_TARGET = len(LABELS)
REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "build" / "nli"

Item = tuple[list[int], list[int], int]


def target(label: str) -> int:
    """The training target of a label: its class index, or :data:`NOT_ENTAILED_TARGET`."""
    return NOT_ENTAILED_TARGET if label == NOT_ENTAILED else LABELS.index(label)


def encode(tokenizer: Any, pairs: Sequence[NliPair], max_length: int) -> list[Item]:
    """Word-piece ids and segment ids of (premise, hypothesis), truncated to ``max_length``
    (the premise gives way first: ``longest_first``); each text read as the app reads it,
    without a word tokenizer's marks (:mod:`models.readable`)."""
    tokenizer.enable_truncation(max_length, strategy="longest_first")
    encs = tokenizer.encode_batch([(readable(p.premise), readable(p.hypothesis)) for p in pairs])
    tokenizer.no_truncation()
    return [
        (list(e.ids), list(e.type_ids), target(p.label)) for e, p in zip(encs, pairs, strict=True)
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


#: On a CPU a batch is padded to a multiple of this many word-pieces: oneDNN keeps compiled
#: kernels (and bf16 copies of the weights) per input shape, and a run whose batches take every
#: length up to 256 grew by ~0.5 GB a minute until it was killed for memory (22.7 GB, step 260).
CPU_PAD_MULTIPLE = 32


def pad_multiple(device: str) -> int:
    """What a batch's width is rounded up to on ``device`` (:data:`CPU_PAD_MULTIPLE` on a CPU)."""
    return 1 if device.startswith("cuda") else CPU_PAD_MULTIPLE


def collate(
    batch: Sequence[Item], *, with_types: bool = True, pad_id: int = 0, multiple: int = 1
) -> dict[str, Any]:
    """Padded tensors for one batch (dynamic padding to its longest item, rounded up to a
    multiple of ``multiple``)."""
    import torch

    width = max(len(ids) for ids, _, _ in batch)
    width = -(-width // multiple) * multiple
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for r, (i, t, _) in enumerate(batch):
        ids[r, : len(i)] = torch.tensor(i)
        types[r, : len(t)] = torch.tensor(t)
        mask[r, : len(i)] = 1
    out = {"input_ids": ids, "attention_mask": mask}
    if with_types:
        out["token_type_ids"] = types
    out["labels"] = torch.tensor([y for _, _, y in batch], dtype=torch.long)
    return out


def mixed_loss(logits: Any, targets: Any) -> Any:
    """Cross-entropy on three-way targets; -log(P(neutral) + P(contradiction)) on two-way
    "not entailed" ones (:data:`NOT_ENTAILED_TARGET`)."""
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    binary = targets == NOT_ENTAILED_TARGET
    three = logp.gather(1, targets.clamp(max=len(LABELS) - 1).unsqueeze(1)).squeeze(1)
    not_entailed = torch.logsumexp(logp[:, 1:], dim=-1)
    return -torch.where(binary, not_entailed, three).mean()


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


def freeze_lower(model: Any, layers: int) -> None:
    """Keep the embeddings and the lowest ``layers`` encoder layers of ``model`` fixed.

    Raises:
        ValueError: the model has no ``encoder.layer`` stack, or fewer layers than that.
    """
    body = getattr(model, model.base_model_prefix, None)
    stack = getattr(getattr(body, "encoder", None), "layer", None)
    if stack is None or layers > len(stack):
        raise ValueError(f"cannot freeze {layers} layers of a {type(model).__name__}")
    for module in (body.embeddings, *stack[:layers]):
        for p in module.parameters():
            p.requires_grad_(False)


def read_summary_pairs(data_dir: Path, out_dir: Path, seed: int, log: Log) -> list[NliPair]:
    """The in-domain pairs (:mod:`models.training.summary_nli`), planned by the shipped checker
    (its retrieval and windows: the model itself is not run); parses kept in ``out_dir``."""
    from models.registry import load_checker
    from models.training.summary_nli import summary_pairs

    pairs = summary_pairs(data_dir, out_dir, load_checker("nli"), log, seed)
    log(f"in-domain summary pairs: {describe_mix(pairs)}")
    return pairs


def takes_token_types(model: Any) -> bool:
    """Whether the model's forward takes ``token_type_ids`` (BERT does, MPNet does not)."""
    return "token_type_ids" in inspect.signature(model.forward).parameters


def lr_factor(step: int, total: int, warmup: int) -> float:
    """Linear warm-up over ``warmup`` steps, then linear decay to 0 at ``total``."""
    w = max(1, warmup)
    return (step + 1) / w if step < w else max(0.0, (total - step) / max(1, total - w))


def bf16_supported(device: str = "cpu") -> bool:
    """Whether the device runs bf16 matrix work natively (a CPU with AVX512-BF16 or AMX; a CUDA
    GPU of compute capability 8 or more)."""
    import torch

    if device.startswith("cuda"):
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def predict_logits(
    model: Any,
    items: Sequence[Item],
    *,
    batch_size: int = 64,
    bf16: bool = False,
    device: str = "cpu",
) -> Any:
    """Logits for encoded items (length-sorted batches, ``inference_mode``), in item order."""
    import torch

    with_types = takes_token_types(model)
    pad = int(getattr(model.config, "pad_token_id", 0) or 0)
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]))
    out = torch.zeros((len(items), len(LABELS)))
    was_training = model.training
    model.eval()
    autocast = torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=bf16)
    with torch.inference_mode(), autocast:
        for lo in range(0, len(order), batch_size):
            idx = order[lo : lo + batch_size]
            batch = collate(
                [items[i] for i in idx],
                with_types=with_types,
                pad_id=pad,
                multiple=pad_multiple(device),
            )
            batch.pop("labels")
            batch = {k: v.to(device) for k, v in batch.items()}
            out[idx] = model(**batch).logits.float().cpu()
    model.train(was_training)
    return out


def accuracy_of(logits: Any, items: Sequence[Item]) -> float:
    """Accuracy: three-way on three-way items, entailed-or-not on two-way ones."""
    pred = logits.argmax(dim=1).tolist()
    right = 0
    for p, (_, _, y) in zip(pred, items, strict=True):
        right += (p != 0) if y == NOT_ENTAILED_TARGET else (p == y)
    return right / max(1, len(items))


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    import torch

    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)  # atomic: a half-written checkpoint is never taken for a finished one


def train(
    base_dir: Path,
    pairs: Sequence[NliPair],
    dev: Sequence[NliPair],
    out_dir: Path,
    *,
    batch_size: int = 32,
    lr: float = 3e-5,
    max_length: int = 256,
    seed: int = 13,
    threads: int = 2,
    minutes: float | None = None,
    max_steps: int | None = None,
    checkpoint_minutes: float = 10.0,
    resume: bool = False,
    precision: str = "auto",
    device: str = "cpu",
    epochs: int = 1,
    lora_rank: int = 0,
    freeze_layers: int = 0,
    arc_examples: dict[str, Sequence[Any]] | None = None,
    arc_heads: Path | None = None,
    arc_batch_size: int = 16,
    log: Log = print,
) -> dict[str, Any]:
    """Fine-tune ``epochs`` passes over ``pairs`` (or as much as ``minutes`` allows); saves a HF
    directory.

    Args:
        base_dir: the base encoder's Hugging Face directory.
        pairs: training pairs (:func:`models.training.nli_data.training_mix`), in training order.
        dev: the dev slice, scored at every checkpoint (the log line and ``model-best``).
        out_dir: ``out_dir/ckpt`` holds the checkpoints, ``out_dir/hf`` the final model.
        minutes: time budget for the training steps; the schedule is sized from the measured
            speed and ends at the budget. None = the whole pass.
        max_steps: stop after this many steps (the probe, or a smoke test).
        resume: go on from ``out_dir/ckpt/last.pt`` (same pairs, seed and settings).
        precision: ``bf16`` (autocast), ``fp32`` or ``auto`` (bf16 where the device has it).
        device: ``cpu`` or ``cuda`` (a lent GPU machine).
        epochs: passes over ``pairs``, each in its own seeded batch order.
        lora_rank: above 0, train low-rank adapters (:mod:`models.training.lora`) instead of
            every weight; ``out_dir/adapter`` then holds what trained (small enough to carry
            back), and ``out_dir/hf`` the merged model.
        freeze_layers: above 0, the embeddings and the lowest ``freeze_layers`` encoder layers
            keep their weights (:func:`freeze_lower`): the backward pass stops above them.
        arc_examples: with ``arc_heads``, train the arc and support heads with the encoder
            (:class:`models.training.arc_task.ArcTask`): each step adds one batch of
            ``arc_batch_size`` of these examples and its losses; ``out_dir/heads`` then holds
            the heads.

    Returns:
        The training record for the config and the card.
    """
    import torch

    from models.encoding import load_tokenizer

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    bf16 = precision == "bf16" or (precision == "auto" and bf16_supported(device))
    kind = device.split(":")[0]
    tokenizer = load_tokenizer(base_dir / "tokenizer.json")
    items = encode(tokenizer, pairs, max_length)
    dev_items = encode(tokenizer, dev, max_length)
    batches = [b for _ in range(max(1, epochs)) for b in length_batches(items, batch_size, rng)]
    planned = len(batches) if max_steps is None else min(max_steps, len(batches))
    model = build_classifier(base_dir)
    if lora_rank:
        from models.training.lora import add_lora, save_adapter

        add_lora(model, lora_rank)
    if freeze_layers:
        freeze_lower(model, freeze_layers)
    arc = None
    if arc_examples is not None and arc_heads is not None:
        from models.training.arc_task import ArcTask

        arc = ArcTask(
            model,
            tokenizer,
            arc_examples,
            arc_heads,
            batch_size=arc_batch_size,
            max_length=max_length,
            seed=seed,
        )
        arc.module.to(device)
    model.to(device)
    with_types = takes_token_types(model)
    pad = int(getattr(model.config, "pad_token_id", 0) or 0)
    multiple = pad_multiple(device)
    no_decay = ("bias", "LayerNorm.weight")
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {"params": [p for n, p in trained if not n.endswith(no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in trained if n.endswith(no_decay)], "weight_decay": 0.0},
    ]
    if arc is not None:
        groups.append({"params": arc.head_params, "weight_decay": 0.01})
    opt = torch.optim.AdamW(groups, lr=lr)
    ckpt_dir = out_dir / "ckpt"
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    state = {"step": 0, "total": planned, "seen": 0, "elapsed": 0.0, "best": -1.0, "dev": []}
    if arc is not None:
        state["arc_dev"] = []
    if resume and (ckpt_dir / "last.pt").is_file():
        saved = torch.load(ckpt_dir / "last.pt", weights_only=False)
        model.load_state_dict(saved["model"])
        if arc is not None and "arc" in saved:
            arc.module.load_state_dict(saved["arc"])
        opt.load_state_dict(saved["optimizer"])
        state = saved["state"]
        state["total"] = planned  # the new run's plan (a budget re-sizes it as it goes)
        log(
            f"resumed at step {state['step']} of {state['total']} ({state['elapsed'] / 60:.1f} min)"
        )
    warmup = max(1, round(0.06 * planned if minutes is None else 0.06 * min(planned, 1500)))
    model.train()
    log(
        f"training on {len(items)} pairs, {len(batches)} batches of {batch_size} "
        f"x {max(1, epochs)} epochs (planned {planned} steps), lr {lr}, max_length {max_length}, "
        f"{device if kind == 'cuda' else f'{threads} threads'}, "
        f"{'bf16 autocast' if bf16 else 'fp32'}, "
        f"{f'LoRA rank {lora_rank}, ' if lora_rank else ''}dev {len(dev_items)} pairs"
        + (
            f"; with the arc and support heads: {len(arc.items)} examples, "
            f"{arc_batch_size} a step, dev {len(arc.dev_items)}"
            if arc is not None
            else ""
        )
    )

    def set_lr(step: int) -> None:
        factor = lr_factor(step, state["total"], warmup)
        for group in opt.param_groups:
            group["lr"] = lr * factor

    def progress() -> dict[str, Any]:
        return {"steps": state["step"], "pairs_seen": state["seen"], "dev": state["dev"]}

    def checkpoint() -> None:
        logits = predict_logits(model, dev_items, bf16=bf16, device=device)
        acc = accuracy_of(logits, dev_items)
        state["dev"].append((state["step"], round(acc, 4)))
        heads = {}
        arc_note = ""
        if arc is not None:
            arc_dev = arc.dev_accuracy(device, precision_context())
            state["arc_dev"].append((state["step"], arc_dev))
            heads = {"arc": arc.module.state_dict()}
            arc_note = (
                f"  arcs {arc_dev['arc_accuracy']:.4f} support {arc_dev['support_accuracy']:.4f}"
            )
        if acc > state["best"]:
            state["best"] = acc
            _save_checkpoint(
                ckpt_dir / "best.pt", {"model": model.state_dict(), "step": state["step"], **heads}
            )
        _save_checkpoint(
            ckpt_dir / "last.pt",
            {"model": model.state_dict(), "optimizer": opt.state_dict(), "state": state, **heads},
        )
        if lora_rank:
            # the small files that come back from a lent machine, also when its run is stopped
            save_adapter(
                model, out_dir / "adapter", {"kind": KIND, "base": str(base_dir), **progress()}
            )
        if arc is not None:
            arc.save(out_dir / "heads", {"with_nli": True, **progress()})
        log(
            f"checkpoint step {state['step']}/{state['total']}  dev accuracy {acc:.4f} "
            f"(best {state['best']:.4f}){arc_note}  "
            f"{state['seen'] / max(state['elapsed'], 1e-9):.1f} pairs/s"
        )

    def precision_context() -> Any:
        return torch.autocast(kind, dtype=torch.bfloat16, enabled=bf16)

    start = time.monotonic() - state["elapsed"]
    last_ckpt = time.monotonic()
    running = 0.0
    step = state["step"]
    while step < state["total"]:
        batch = collate(batches[step], with_types=with_types, pad_id=pad, multiple=multiple)
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        targets = batch.pop("labels")
        set_lr(step)
        with precision_context():
            logits = model(**batch).logits
        loss = mixed_loss(logits, targets)
        if arc is not None:
            arc_loss, _, _ = arc.loss(device, precision_context())
            loss = loss + arc_loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(
            [p for _, p in trained] + (arc.head_params if arc is not None else []), 1.0
        )
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        state["step"] = step
        state["seen"] += len(targets)
        state["elapsed"] = time.monotonic() - start
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if minutes is not None and step >= 30 and step % 10 == 0:
            # re-size the schedule from the speed so far: it ends when the budget does
            rate = step / state["elapsed"]
            left = minutes * 60 - state["elapsed"]
            state["total"] = min(len(batches), max(step + 1, step + math.floor(rate * left)))
        if step % 20 == 0 or step == state["total"]:
            log(
                f"step {step}/{state['total']}  loss {running:.3f}  "
                f"{state['seen'] / state['elapsed']:.1f} pairs/s  {state['elapsed'] / 60:.1f} min"
            )
        if time.monotonic() - last_ckpt > checkpoint_minutes * 60 and step < state["total"]:
            checkpoint()
            last_ckpt = time.monotonic()
    checkpoint()
    model.eval()
    arc_record = None
    if arc is not None:
        arc_record = {
            "examples": len(arc.items),
            "seen": arc.seen,
            "batch_size": arc_batch_size,
            "dev": state["arc_dev"],
        }
        arc.save(out_dir / "heads", {"with_nli": True, **arc_record})
    if lora_rank:
        from models.training.lora import merge_lora

        save_adapter(model, out_dir / "adapter", {"kind": KIND, "base": str(base_dir)})
        merge_lora(model)
    hf_dir = out_dir / "hf"
    hf_dir.mkdir(parents=True, exist_ok=True)
    model.cpu().save_pretrained(hf_dir)
    copy_tokenizer(base_dir, hf_dir)
    # the files of the pairs in the batches that trained (length-bucketed and shuffled, and
    # repeated per epoch: not the first pairs of the list)
    path_of = {id(it): p.path for it, p in zip(items, pairs, strict=True)}
    mix = Counter(path_of[id(it)] for b in batches[:step] for it in b)
    return {
        "pairs_seen": state["seen"],
        "steps": step,
        "batch_size": batch_size,
        "lr": lr,
        "warmup_steps": warmup,
        "max_length": max_length,
        "seed": seed,
        "precision": "bf16 autocast" if bf16 else "fp32",
        "device": "cuda" if kind == "cuda" else "cpu",
        "epochs": round(state["seen"] / max(1, len(pairs)), 2),
        "lora_rank": lora_rank,
        "minutes": round(state["elapsed"] / 60, 1),
        "pairs_per_second": round(state["seen"] / max(state["elapsed"], 1e-9), 1),
        "dev_accuracy": state["dev"],
        "mix": dict(mix),
        **({"arc_heads": arc_record} if arc_record is not None else {}),
    }


def copy_tokenizer(base_dir: Path, hf_dir: Path) -> None:
    """Copy the base encoder's tokenizer files beside a saved model."""
    shutil.copyfile(base_dir / "tokenizer.json", hf_dir / "tokenizer.json")
    for name in ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (base_dir / name).is_file():
            shutil.copyfile(base_dir / name, hf_dir / name)


def merge_adapter(base_dir: Path, adapter_dir: Path, hf_dir: Path) -> dict[str, Any]:
    """The base encoder with a trained LoRA adapter merged in, saved as a HF directory (what
    :func:`export` reads); returns the adapter's manifest.

    The base must be the one the adapter trained on (the same packed weights).
    """
    from models.training.lora import apply_adapter

    model = build_classifier(base_dir)
    manifest = apply_adapter(model, adapter_dir)
    hf_dir.mkdir(parents=True, exist_ok=True)
    model.eval().save_pretrained(hf_dir)
    copy_tokenizer(base_dir, hf_dir)
    return manifest


def torch_held_out(
    hf_dir: Path,
    sets: dict[str, Sequence[NliPair]],
    *,
    max_length: int = 256,
    device: str = "cpu",
    bf16: bool = False,
) -> dict[str, dict[str, float]]:
    """Three-way accuracy and entailed-vs-rest AUC of a saved HF model on held-out sets, run
    through torch (a quick figure on the training machine; the card's figures come from the
    exported model through the app's runtime, :func:`accuracy`)."""
    import torch
    from transformers import AutoModelForSequenceClassification

    from models.encoding import load_tokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(hf_dir), local_files_only=True)
    model.to(device).eval()
    tokenizer = load_tokenizer(hf_dir / "tokenizer.json")
    id2label = {int(k): v for k, v in model.config.id2label.items()}
    out = {}
    for name, pairs in sets.items():
        logits = predict_logits(
            model, encode(tokenizer, pairs, max_length), bf16=bf16, device=device
        )
        out[name] = held_out_figures(torch.softmax(logits, -1).numpy(), id2label, pairs)
    return out


def held_out_figures(
    probs: Any, id2label: dict[int, str], pairs: Sequence[NliPair]
) -> dict[str, float]:
    """Three-way accuracy and the entailed-vs-rest AUC (ranked by P(entailment) −
    P(contradiction)) of class probabilities for three-way labelled pairs."""
    import numpy as np

    from models.evaluation import auc

    index = {label: k for k, label in id2label.items()}
    names = [id2label[int(k)] for k in probs.argmax(axis=1)]
    gold = np.array([p.label == "entailment" for p in pairs], dtype=float)
    margin = probs[:, index["entailment"]] - probs[:, index["contradiction"]]
    right = sum(n == p.label for n, p in zip(names, pairs, strict=True))
    return {
        "accuracy": round(right / max(1, len(pairs)), 4),
        "auc_entailed": round(float(auc(margin, gold)), 4),
        "items": len(pairs),
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

    with_types = takes_token_types(model)

    class Probs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            # MPNet has no segment embeddings: its graph ignores token_type_ids
            types = {"token_type_ids": token_type_ids} if with_types else {}
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask, **types).logits
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


def accuracy(model_dir: Path, pairs: Sequence[NliPair], batch_size: int = 32) -> dict[str, float]:
    """Three-way accuracy and the entailed-vs-rest AUC of an exported model, through the app's
    own runtime."""
    from models.checkers.nli import OnnxNLI

    runtime = OnnxNLI(model_dir)
    probs = runtime.predict([p.premise for p in pairs], [p.hypothesis for p in pairs], batch_size)
    return held_out_figures(probs, {int(k): v for k, v in runtime.id2label.items()}, pairs)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.training.nli_model", description=__doc__)
    ap.add_argument("--base", default="mpnet", help="base encoder: mpnet, minilm or a HF directory")
    ap.add_argument("--data", type=Path, default=None, help="the shared data folder")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="checkpoints, HF model, export")
    ap.add_argument(
        "--scale", type=float, default=BUNDLED_SCALE, help="scale the capped files' share"
    )
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--minutes", type=float, default=None, help="time budget of the training steps")
    ap.add_argument("--max-steps", type=int, default=None, help="stop early (the sizing probe)")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0)
    ap.add_argument("--resume", action="store_true", help="go on from OUT/ckpt/last.pt")
    ap.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (a lent GPU machine)")
    ap.add_argument("--epochs", type=int, default=1, help="passes over the training mix")
    ap.add_argument("--lora", type=int, default=0, help="train LoRA adapters of this rank")
    ap.add_argument(
        "--mix", type=Path, default=None, help="read the mix from this write-mix file, not --data"
    )
    ap.add_argument(
        "--write-mix", type=Path, default=None, help="write the mix and held-out sets here, stop"
    )
    ap.add_argument(
        "--adapter", type=Path, default=None, help="merge this LoRA adapter into --base, export"
    )
    ap.add_argument(
        "--torch-eval", action="store_true", help="after training, score the held-out sets (torch)"
    )
    ap.add_argument(
        "--max-pairs",
        type=int,
        default=None,
        help="train on the first N pairs of the (shuffled) mix: a CPU run sees only part of it, "
        "and encoding the whole mix holds ~15 GB",
    )
    ap.add_argument(
        "--skip-pairs",
        type=int,
        default=0,
        help="start at this pair of the (shuffled) mix: a continued run reads pairs it has not",
    )
    ap.add_argument(
        "--summary-pairs",
        action="store_true",
        help="add the in-domain claim/window pairs of the training-side summaries "
        "(models.training.summary_nli)",
    )
    ap.add_argument(
        "--summary-repeat",
        type=int,
        default=1,
        help="with --write-mix, put the in-domain pairs this many times in the mix (a short "
        "run on a lent GPU reads a slice of the mix and should see them more than once)",
    )
    ap.add_argument(
        "--freeze-layers",
        type=int,
        default=0,
        help="keep the embeddings and the lowest K encoder layers fixed (a faster CPU run)",
    )
    ap.add_argument(
        "--pad-share",
        type=float,
        default=0.0,
        help="read this share of the training premises inside unrelated premises (0-1)",
    )
    ap.add_argument(
        "--arc-examples",
        type=Path,
        default=None,
        help="train the arc and support heads with the encoder on these examples (an "
        "examples_*.pkl of models.training.nli_heads, or its .xz from models.training.arc_task)",
    )
    ap.add_argument(
        "--arc-heads", type=Path, default=None, help="fitted heads the arc task starts from"
    )
    ap.add_argument("--arc-batch-size", type=int, default=16, help="arc examples per step")
    ap.add_argument("--no-export", action="store_true", help="train only")
    ap.add_argument("--export-only", action="store_true", help="export and evaluate OUT/hf")
    ap.add_argument("--eval-items", type=int, default=None, help="held-out items per file (all)")
    ap.add_argument("--install", type=Path, default=None, help="copy the export here")
    args = ap.parse_args(argv)
    if (args.arc_examples is None) != (args.arc_heads is None):
        ap.error("--arc-examples and --arc-heads go together")

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    logging.getLogger("transformers").setLevel(logging.ERROR)
    data_dir = args.data or default_data_dir()
    hf_dir = args.out / "hf"
    record_file = args.out / "training.json"
    held_names = (BENCHMARK_MNLI, BENCHMARK_SNLI, ANLI)
    if args.summary_repeat < 1:
        ap.error("--summary-repeat must be at least 1")
    if args.summary_repeat > 1 and args.write_mix is None:
        ap.error("--summary-repeat goes with --write-mix (the mix that travels)")
    if args.summary_pairs and args.mix is not None:
        ap.error("--summary-pairs reads ../shared/data: write the mix with it (--write-mix)")
    if args.write_mix is not None:
        pairs, dev = training_mix(data_dir, seed=args.seed, scale=args.scale)
        if args.summary_pairs:
            # the lent GPU machine has no data folder: the in-domain pairs travel in the mix
            in_domain = read_summary_pairs(data_dir, args.write_mix.parent, args.seed, log)
            pairs += in_domain * args.summary_repeat
            random.Random(args.seed).shuffle(pairs)
        held = {name: held_out(data_dir, name, args.eval_items, args.seed) for name in held_names}
        size = write_mix(args.write_mix, pairs, dev, held)
        log(f"wrote {args.write_mix}: {len(pairs)} training pairs, {size / 2**20:.1f} MiB")
        return 0
    mix = read_mix(args.mix) if args.mix is not None else None
    if args.adapter is not None:
        manifest = merge_adapter(resolve_base(args.base), args.adapter, hf_dir)
        record = json.loads((args.adapter / "training.json").read_text(encoding="utf-8"))
        record["base"] = describe(args.base)
        record["adapter"] = {"rank": manifest["rank"], "scale": manifest["scale"]}
        record_file.parent.mkdir(parents=True, exist_ok=True)
        record_file.write_text(json.dumps(record, indent=2), encoding="utf-8")
        log(f"merged the rank-{manifest['rank']} adapter into {hf_dir}")
    elif not args.export_only:
        base_dir = resolve_base(args.base)
        if mix is not None:
            pairs, dev = mix["train"], mix["dev"]
        else:
            pairs, dev = training_mix(data_dir, seed=args.seed, scale=args.scale)
        mix_size = len(pairs)
        pairs = pairs[args.skip_pairs :]
        if args.max_pairs is not None:
            pairs = pairs[: args.max_pairs]
        if args.pad_share > 0:
            pairs = pad_premises(
                pairs, share=args.pad_share, max_length=args.max_length, seed=args.seed
            )
        if args.summary_pairs:
            in_domain = read_summary_pairs(data_dir, args.out, args.seed, log)
            mix_size += len(in_domain)
            pairs = list(pairs) + in_domain
            random.Random(args.seed).shuffle(pairs)
        arc_examples = None
        if args.arc_examples is not None:
            from models.training.arc_task import read_examples

            arc_examples = read_examples(args.arc_examples)
        record = train(
            base_dir,
            pairs,
            dev,
            args.out,
            batch_size=args.batch_size,
            lr=args.lr,
            max_length=args.max_length,
            seed=args.seed,
            threads=args.threads,
            minutes=args.minutes,
            max_steps=args.max_steps,
            checkpoint_minutes=args.checkpoint_minutes,
            resume=args.resume,
            precision=args.precision,
            device=args.device,
            epochs=args.epochs,
            lora_rank=args.lora,
            freeze_layers=args.freeze_layers,
            arc_examples=arc_examples,
            arc_heads=args.arc_heads,
            arc_batch_size=args.arc_batch_size,
            log=log,
        )
        record["base"] = describe(args.base)
        record["epochs"] = round(record["pairs_seen"] / max(1, mix_size), 2)  # of the whole mix
        record["pad_share"] = args.pad_share
        record["skip_pairs"] = args.skip_pairs
        record["freeze_layers"] = args.freeze_layers
        origin = base_dir / ORIGIN_FILE
        if origin.is_file():
            # trained on from a shipped model rebuilt from its export: keep what it was
            record["continued_from"] = json.loads(origin.read_text(encoding="utf-8"))
            record["base"] = record["continued_from"].get("base") or record["base"]
        if args.torch_eval:
            sets = mix or {n: held_out(data_dir, n, args.eval_items, args.seed) for n in held_names}
            record["held_out_torch"] = torch_held_out(
                hf_dir,
                {n: sets[n] for n in held_names if n in sets},
                max_length=args.max_length,
                device=args.device,
                bf16=bf16_supported(args.device),
            )
        record_file.write_text(json.dumps(record, indent=2), encoding="utf-8")
        log(f"trained: {json.dumps(record)}")
        if args.lora:
            shutil.copyfile(record_file, args.out / "adapter" / "training.json")
        if args.arc_examples is not None:
            shutil.copyfile(record_file, args.out / "heads" / "training.json")
    if args.no_export:
        return 0
    record = json.loads(record_file.read_text(encoding="utf-8"))
    onnx_dir = args.out / "onnx"
    config = {
        "base": record.get("base"),
        "max_length": record.get("max_length", args.max_length),
        "training": record,
        "licenses": {
            s: FILES_BY_PATH[s].license for s in record.get("mix", {}) if s in FILES_BY_PATH
        },
    }
    export(hf_dir, onnx_dir, config)
    results = {}
    for source in held_names:
        pairs = held_out(data_dir, source, args.eval_items, args.seed)
        results[source] = accuracy(onnx_dir, pairs)
        log(f"held-out {source}: {results[source]}")
    spec = json.loads((onnx_dir / "config.json").read_text(encoding="utf-8"))
    spec["held_out"] = results
    (onnx_dir / "config.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    if args.install is not None:
        if args.install.exists():
            shutil.rmtree(args.install)
        shutil.copytree(onnx_dir, args.install)
        log(f"installed {args.install}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
