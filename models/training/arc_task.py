"""The arc (DAE) and support heads trained together with the NLI model (issue 27, item 3).

:mod:`models.training.nli_heads` fits the two heads on the NLI encoder kept frozen (on 2 CPU cores
an MPNet training step costs three forward passes). On a faster machine the encoder can learn
for them too: :func:`models.training.nli_model.train` with an :class:`ArcTask` adds, at every
step, one batch of the arc model's own examples (:func:`models.training.examples.build_all`)
read by the same encoder, and the arc and support losses to the NLI loss. The heads start from a
fitted set (``--arc-heads``: an ``nli_heads`` output or a heads-only folder written by
:meth:`ArcTask.save`) and train in full beside the encoder's LoRA matrices.

What comes back is small enough to carry: the NLI adapter (:mod:`models.training.lora`) and the
heads alone (``heads/``: ``config.json`` and ``model.pt`` holding ``label_embedding``,
``arc_out`` and ``support_out``), which :mod:`models.training.shared_encoder` adds to the graph
of the NLI model exported from the merged adapter.
"""

from __future__ import annotations

import json
import lzma
import pickle
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.arc_model import CONFIG_FILE, KIND, TORCH_FILE
from models.encoding import LabelVocab
from models.errors import ModelLoadError
from models.training.examples import Example

#: The parameters of the heads (what travels back and what shared_encoder reads).
HEAD_PARTS = ("label_embedding", "arc_out", "support_out")
#: Pair files the NLI model is measured on: never arc examples beside it.
HELD_OUT_SOURCES = ("mnli_dev_matched", "snli_test")


def usable(examples: Sequence[Example]) -> list[Example]:
    """Examples that do not come from the NLI model's held-out benchmark files."""
    return [e for e in examples if not any(s in e.source for s in HELD_OUT_SOURCES)]


def write_examples(path: Path, examples: dict[str, Sequence[Example]]) -> int:
    """Write the train and dev examples (held-out sources dropped) as an xz pickle, the form that
    travels to a lent GPU machine; returns its size in bytes."""
    kept = {split: usable(examples[split]) for split in ("train", "dev")}
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wb", preset=6) as fh:
        pickle.dump(kept, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path.stat().st_size


def read_examples(path: Path) -> dict[str, list[Example]]:
    """The examples :func:`write_examples` wrote, or a plain ``examples_*.pkl`` of
    :mod:`models.training.nli_heads`.

    Raises:
        ModelLoadError: the file is not such a pickle (named).
    """
    opener = lzma.open if path.suffix == ".xz" else open
    try:
        with opener(path, "rb") as fh:
            data = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, lzma.LZMAError) as exc:
        raise ModelLoadError(f"{path}: not an arc-examples file: {exc}") from exc
    if not isinstance(data, dict) or not {"train", "dev"} <= set(data):
        raise ModelLoadError(f"{path}: not an arc-examples file (no train and dev lists).")
    return {split: list(data[split]) for split in ("train", "dev")}


def read_heads(heads_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config, head tensors) of an arc/support folder whose ``model.pt`` holds the heads.

    Raises:
        ModelLoadError: the folder lacks one of :data:`HEAD_PARTS`.
    """
    import torch

    from models.arc_model import read_config

    config = read_config(heads_dir)
    state = torch.load(heads_dir / TORCH_FILE, map_location="cpu", weights_only=True)
    heads = {k: v for k, v in state.items() if k.split(".")[0] in HEAD_PARTS}
    missing = [p for p in HEAD_PARTS if not any(k.startswith(p + ".") for k in heads)]
    if missing:
        raise ModelLoadError(f"{heads_dir}: {TORCH_FILE} has no {', '.join(missing)}.")
    return config, heads


class ArcTask:
    """The arc and support heads on a classifier's encoder, with their examples and losses.

    Args:
        model: the NLI classifier (LoRA layers already added: the heads read the same encoder).
        tokenizer: the NLI model's ``tokenizers`` tokenizer.
        examples: ``{"train": [...], "dev": [...]}`` (:func:`read_examples`); those of the NLI
            benchmarks' files are left out (:func:`usable`).
        heads_dir: fitted heads to start from (their labels and label size are kept).
        batch_size: arc examples per step.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        examples: dict[str, Sequence[Example]],
        heads_dir: Path,
        *,
        batch_size: int = 16,
        max_length: int = 256,
        seed: int = 13,
    ) -> None:
        import torch

        from models.arc_model import build_module
        from models.training.train import encode_examples

        self.config, heads = read_heads(heads_dir)
        self.vocab = LabelVocab(self.config["labels"])
        encoder = getattr(model, model.base_model_prefix)
        self.module = build_module(
            encoder.config.to_dict(), len(self.vocab), int(self.config["label_dim"]), encoder
        )
        with torch.no_grad():
            params = dict(self.module.named_parameters())
            for name, value in heads.items():
                if params[name].shape != value.shape:
                    raise ModelLoadError(
                        f"{heads_dir}: {name} has shape {tuple(value.shape)}, this encoder's "
                        f"heads {tuple(params[name].shape)}."
                    )
                params[name].copy_(value)
        self.head_params = [
            p for n, p in self.module.named_parameters() if n.split(".")[0] in HEAD_PARTS
        ]
        for p in self.head_params:
            p.requires_grad_(True)
        self.items = encode_examples(usable(examples["train"]), tokenizer, self.vocab, max_length)
        self.dev_items = encode_examples(usable(examples["dev"]), tokenizer, self.vocab, max_length)
        self.batch_size = batch_size
        self.rng = random.Random(seed)
        self.order: list[list[Any]] = []
        self.seen = 0

    def _next_batch(self) -> list[Any]:
        if not self.order:
            items = list(self.items)
            self.rng.shuffle(items)
            pool = self.batch_size * 50
            for lo in range(0, len(items), pool):
                chunk = sorted(items[lo : lo + pool], key=lambda it: len(it[0].ids))
                self.order += [
                    chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)
                ]
            self.rng.shuffle(self.order)
        return self.order.pop()

    def loss(self, device: str, autocast: Any) -> tuple[Any, float, float]:
        """The arc plus support loss of the next batch (and each part, for the log)."""
        from models.training.train import arc_support_losses, batch_tensors

        batch = self._next_batch()
        self.seen += len(batch)
        feed, arc_y, sup_y = batch_tensors(batch, device)
        with autocast:
            arc_logits, sup_logits = self.module.logits(**feed)
        arc_loss, sup_loss = arc_support_losses(arc_logits, sup_logits, arc_y, sup_y)
        return arc_loss + sup_loss, float(arc_loss.detach()), float(sup_loss.detach())

    def dev_accuracy(self, device: str, autocast: Any, batch_size: int = 32) -> dict[str, float]:
        """Arc and support accuracy on the dev examples (labelled arcs and examples only)."""
        import torch

        from models.training.train import batch_tensors

        was_training = self.module.training
        self.module.eval()
        arc_right = arc_n = sup_right = sup_n = 0
        order = sorted(self.dev_items, key=lambda it: len(it[0].ids))
        with torch.inference_mode(), autocast:
            for lo in range(0, len(order), batch_size):
                batch = order[lo : lo + batch_size]
                feed, arc_y, sup_y = batch_tensors(batch, device)
                arc_logits, sup_logits = self.module.logits(**feed)
                known = arc_y >= 0
                arc_right += int((arc_logits.argmax(-1) == arc_y)[known].sum())
                arc_n += int(known.sum())
                has = sup_y >= 0
                sup_right += int((sup_logits.argmax(-1) == sup_y)[has].sum())
                sup_n += int(has.sum())
        self.module.train(was_training)
        return {
            "arc_accuracy": round(arc_right / max(1, arc_n), 4),
            "arcs": arc_n,
            "support_accuracy": round(sup_right / max(1, sup_n), 4),
            "examples": sup_n,
        }

    def save(self, dst: Path, training: dict[str, Any]) -> Path:
        """Write the heads alone (``model.pt``) with an arc/support ``config.json``."""
        import torch

        dst.mkdir(parents=True, exist_ok=True)
        state = {
            k: v.detach().float().cpu().contiguous()
            for k, v in self.module.state_dict().items()
            if k.split(".")[0] in HEAD_PARTS
        }
        torch.save(state, dst / TORCH_FILE)
        config = {k: v for k, v in self.config.items() if k not in {"model_file", "tokenizer_file"}}
        started = {k: self.config.get(k) for k in ("base", "version")}
        config.update(
            kind=KIND,
            base="the NLI model's encoder, trained with the heads (the NLI model's own graph)",
            heads_only=True,
            training={**training, "heads_started_from": started},
            version=f"torch-{int(time.time())}",
        )
        (dst / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
        return dst
