"""The arc (DAE) and support heads on the NLI model's encoder (issue 27, item 3).

    python -m models.training.nli_heads --nli DIR --out OUT [--scale 0.25] [--minutes 45]

The bundled arc/support model fine-tunes MiniLM on arc and support labels. This puts the same
two heads (:func:`models.arc_model.build_module`: first word-piece states of head and child plus
a label embedding -> linear; [CLS] -> linear) on the encoder of the three-way NLI model, kept
frozen: on 2 CPU cores an MPNet forward pass costs about a third of a training step, so every
example's states are computed once (length-sorted batches, no gradients) and the heads are then
fitted on the cached states over many epochs. What comes out is an ordinary arc/support model
directory (``config.json``, ``model.pt``, and with ``--export`` the int8 ``onnx/``), so
``factdesk eval --model-dir OUT/onnx`` measures it as ``dae`` and ``support`` beside the bundled
model.

The examples are the arc model's own (:func:`models.training.examples.build_all`), without the
two sets the NLI model is measured on (MultiNLI dev-matched and SNLI test), so the NLI
benchmarks through the app stay held out for the heads too. The label vocabulary is the bundled
arc model's, so both models read the same labels. The encoder comes from a Hugging Face
directory: ``python -m models.training.unexport resources/models/nli DIR --base mpnet`` rebuilds
the bundled NLI model's.

State extraction stops at ``--minutes`` (the examples are shuffled first, so a cut run keeps a
sample of every kind); the states are saved in ``--work`` and a second run reuses them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from models.arc_model import CONFIG_FILE, KIND, TOKENIZER_FILE, TORCH_FILE
from models.encoding import LabelVocab, collate
from models.training.arc_task import HELD_OUT_SOURCES, usable
from models.training.examples import Example

Log = Callable[[str], None]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


@dataclass
class States:
    """Cached encoder states: one row per arc with a label, one per example with a support label."""

    head: np.ndarray  # (arcs, hidden) float16
    child: np.ndarray  # (arcs, hidden) float16
    label: np.ndarray  # (arcs,) int64
    arc_y: np.ndarray  # (arcs,) int64
    cls: np.ndarray  # (examples, hidden) float16
    support_y: np.ndarray  # (examples,) int64, -1 = unknown
    examples: int

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            **{k: v for k, v in vars(self).items() if k != "examples"},
            examples=np.array(self.examples),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> States:
        z = np.load(path)
        return cls(
            **{k: z[k] for k in ("head", "child", "label", "arc_y", "cls", "support_y")},
            examples=int(z["examples"]),
        )


def extract_states(
    encoder: Any,
    tokenizer: Any,
    examples: Sequence[Example],
    vocab: LabelVocab,
    *,
    max_length: int = 256,
    batch_size: int = 16,
    seconds: float | None = None,
    log: Log | None = None,
) -> States:
    """The frozen encoder's states for each example's arcs and [CLS], until ``seconds`` run out.

    Examples are read in the order given, in length-sorted batches within chunks of 512 (so a
    cut run has read a prefix of the order, and padding stays small).
    """
    import torch

    from models.training.train import encode_examples

    items = encode_examples(examples, tokenizer, vocab, max_length)
    start = time.monotonic()
    heads, children, labels, arc_ys, clss, sup_ys = [], [], [], [], [], []
    done = 0
    encoder.eval()
    out_of_time = False
    for lo in range(0, len(items), 512):
        chunk = sorted(items[lo : lo + 512], key=lambda it: len(it[0].ids))
        for b in range(0, len(chunk), batch_size):
            if seconds is not None and time.monotonic() - start > seconds:
                out_of_time = True
                break
            batch = chunk[b : b + batch_size]
            feed = collate([it[0] for it in batch])
            with torch.inference_mode():
                states = (
                    encoder(
                        input_ids=torch.from_numpy(feed["input_ids"]),
                        attention_mask=torch.from_numpy(feed["attention_mask"]),
                    )
                    .last_hidden_state.float()
                    .numpy()
                )
            for i, (enc, y, support, _) in enumerate(batch):
                clss.append(states[i, 0].astype(np.float16))
                sup_ys.append(support)
                for k, yy in enumerate(y):
                    if yy < 0:
                        continue
                    heads.append(states[i, enc.arc_head[k]].astype(np.float16))
                    children.append(states[i, enc.arc_child[k]].astype(np.float16))
                    labels.append(enc.arc_label[k])
                    arc_ys.append(yy)
            done += len(batch)
        if out_of_time:
            break
        if log:
            rate = done / max(time.monotonic() - start, 1e-9)
            log(f"states: {done}/{len(items)} examples ({rate:.1f}/s)")
    hidden = int(encoder.config.hidden_size)
    return States(
        head=np.array(heads, np.float16).reshape(-1, hidden),
        child=np.array(children, np.float16).reshape(-1, hidden),
        label=np.array(labels, np.int64),
        arc_y=np.array(arc_ys, np.int64),
        cls=np.array(clss, np.float16).reshape(-1, hidden),
        support_y=np.array(sup_ys, np.int64),
        examples=done,
    )


def fit_heads(
    module: Any,
    states: States,
    *,
    epochs: int = 20,
    lr: float = 1e-3,
    batch_size: int = 256,
    seed: int = 13,
    log: Log | None = None,
) -> dict[str, float]:
    """Fit ``module``'s label embedding, arc head and support head on cached states.

    The encoder is not touched. Returns the last epoch's mean losses.
    """
    import torch

    torch.manual_seed(seed)
    heads = [module.label_embedding, module.arc_out, module.support_out]
    params = [p for h in heads for p in h.parameters()]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    arc_x = (torch.from_numpy(states.head), torch.from_numpy(states.child))
    lab = torch.from_numpy(states.label)
    arc_y = torch.from_numpy(states.arc_y)
    has_sup = states.support_y >= 0
    cls = torch.from_numpy(states.cls[has_sup])
    sup_y = torch.from_numpy(states.support_y[has_sup])
    n_arc, n_sup = len(arc_y), len(sup_y)
    steps = max(1, -(-n_arc // batch_size))
    total = epochs * steps
    gen = torch.Generator().manual_seed(seed)
    for h in heads:
        h.train()
    losses = {"arc": float("nan"), "support": float("nan")}
    step = 0
    for epoch in range(epochs):
        arc_order = torch.randperm(n_arc, generator=gen)
        sup_order = torch.randperm(n_sup, generator=gen) if n_sup else None
        sup_batch = max(1, -(-n_sup // steps)) if n_sup else 0
        arc_sum = sup_sum = 0.0
        for s in range(steps):
            for g in opt.param_groups:  # linear decay to zero
                g["lr"] = lr * (1.0 - step / total)
            idx = arc_order[s * batch_size : (s + 1) * batch_size]
            feats = torch.cat(
                [arc_x[0][idx].float(), arc_x[1][idx].float(), module.label_embedding(lab[idx])],
                dim=-1,
            )
            loss = loss_fn(module.arc_out(module.dropout(feats)), arc_y[idx])
            arc_sum += float(loss.detach())
            if sup_order is not None:
                sidx = sup_order[s * sup_batch : (s + 1) * sup_batch]
                if len(sidx):
                    sup_loss = loss_fn(
                        module.support_out(module.dropout(cls[sidx].float())), sup_y[sidx]
                    )
                    loss = loss + sup_loss
                    sup_sum += float(sup_loss.detach())
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        losses = {"arc": arc_sum / steps, "support": sup_sum / steps}
        if log:
            log(
                f"epoch {epoch + 1}: arc loss {losses['arc']:.3f}, support loss {losses['support']:.3f}"
            )
    module.eval()
    return losses


def head_accuracy(module: Any, states: States) -> dict[str, float]:
    """Arc and support accuracy of the fitted heads on cached (dev) states, at 0.5."""
    import torch

    with torch.inference_mode():
        feats = torch.cat(
            [
                torch.from_numpy(states.head).float(),
                torch.from_numpy(states.child).float(),
                module.label_embedding(torch.from_numpy(states.label)),
            ],
            dim=-1,
        )
        arc_pred = module.arc_out(feats).argmax(-1).numpy()
        has = states.support_y >= 0
        sup_pred = module.support_out(torch.from_numpy(states.cls[has]).float()).argmax(-1).numpy()
    return {
        "arc_accuracy": float((arc_pred == states.arc_y).mean()) if len(arc_pred) else float("nan"),
        "arcs": len(arc_pred),
        "support_accuracy": float((sup_pred == states.support_y[has]).mean())
        if has.any()
        else float("nan"),
        "support_examples": int(has.sum()),
    }


def write_model(
    module: Any,
    out: Path,
    *,
    labels: Sequence[str],
    label_dim: int,
    tokenizer_file: Path,
    base: str,
    training: dict[str, Any],
) -> dict[str, Any]:
    """Save encoder and heads as an arc/support trainer directory; returns its config."""
    import torch

    from models.training.train import encoder_config

    out.mkdir(parents=True, exist_ok=True)
    torch.save(module.state_dict(), out / TORCH_FILE)
    (out / TOKENIZER_FILE).write_bytes(tokenizer_file.read_bytes())
    config = {
        "kind": KIND,
        "base": base,
        "encoder": encoder_config(module.encoder),
        "labels": list(labels),
        "label_dim": label_dim,
        "max_length": 256,
        "word_piece": "first",
        "training": training,
        "version": f"torch-{int(time.time())}",
    }
    (out / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return config


def main(argv: Sequence[str] | None = None) -> int:
    from models.resources import resources_dir
    from models.training.data import default_data_dir

    ap = argparse.ArgumentParser(
        prog="python -m models.training.nli_heads",
        description="Arc and support heads on the NLI model's frozen encoder.",
    )
    ap.add_argument("--nli", type=Path, required=True, help="Hugging Face NLI directory")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=default_data_dir())
    ap.add_argument("--work", type=Path, default=Path("build/nli_heads"))
    ap.add_argument("--scale", type=float, default=0.25, help="multiple of the base data plan")
    ap.add_argument("--minutes", type=float, default=45.0, help="time for training-side states")
    ap.add_argument("--dev-minutes", type=float, default=8.0, help="time for dev states")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--export", action="store_true", help="write the int8 ONNX model to OUT/onnx")
    args = ap.parse_args(argv)

    import torch

    from models.arc_model import build_module, read_config
    from models.encoding import load_tokenizer
    from models.training.examples import ParseCache, Plan, build_all, read_pickle, write_pickle
    from models.training.train import load_base

    if args.threads:
        torch.set_num_threads(args.threads)
    args.work.mkdir(parents=True, exist_ok=True)
    bundled = read_config(resources_dir() / "models" / "arc_support")
    vocab = LabelVocab(bundled["labels"])
    tokenizer_file = args.nli / "tokenizer.json"
    tokenizer = load_tokenizer(tokenizer_file)
    plan = Plan().scaled(args.scale)
    plan = replace(plan, mnli=0)  # MultiNLI dev-matched: the NLI model's benchmark

    examples_file = args.work / f"examples_{args.scale}.pkl"
    examples = read_pickle(examples_file)
    if not isinstance(examples, dict):
        from models.arc_runtime import default_retriever

        def count_tokens(text: str) -> int:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)

        _log("building examples")
        examples = build_all(
            args.data,
            ParseCache(args.work / "parse_cache.pkl"),
            plan,
            count_tokens=count_tokens,
            retriever=default_retriever(),
            log=_log,
        )
        write_pickle(examples_file, examples)
    train_ex = usable(examples["train"])
    dev_ex = usable(examples["dev"])
    random.Random(plan.seed).shuffle(train_ex)
    random.Random(plan.seed).shuffle(dev_ex)
    _log(f"{len(train_ex)} train / {len(dev_ex)} dev examples")

    encoder = load_base(args.nli)
    states: dict[str, States] = {}
    for split, exs, minutes in (
        ("train", train_ex, args.minutes),
        ("dev", dev_ex, args.dev_minutes),
    ):
        path = args.work / f"states_{split}_{args.scale}.npz"
        if path.is_file():
            states[split] = States.load(path)
            _log(f"{split}: cached states of {states[split].examples} examples")
            continue
        states[split] = extract_states(
            encoder, tokenizer, exs, vocab, seconds=minutes * 60, log=_log
        )
        states[split].save(path)
        _log(
            f"{split}: states of {states[split].examples} examples, {len(states[split].arc_y)} arcs"
        )

    label_dim = int(bundled["label_dim"])
    module = build_module(encoder.config.to_dict(), len(vocab), label_dim, encoder=encoder)
    losses = fit_heads(module, states["train"], epochs=args.epochs, lr=args.lr, log=_log)
    dev = head_accuracy(module, states["dev"])
    train_acc = head_accuracy(module, states["train"])
    _log(f"dev: {dev}; train: {train_acc}")

    nli_version = None
    rebuilt = args.nli / "rebuilt_from.json"
    if rebuilt.is_file():
        nli_version = json.loads(rebuilt.read_text(encoding="utf-8")).get("version")
    config = write_model(
        module,
        args.out,
        labels=bundled["labels"],
        label_dim=label_dim,
        tokenizer_file=tokenizer_file,
        base=f"the NLI model's encoder ({nli_version or args.nli}), frozen",
        training={
            "heads_only": True,
            "examples": states["train"].examples,
            "arcs": int(len(states["train"].arc_y)),
            "scale": args.scale,
            "epochs": args.epochs,
            "lr": args.lr,
            "losses": losses,
            "dev": dev,
            "held_out_sources": list(HELD_OUT_SOURCES),
        },
    )
    if args.export:
        from models.training.export import export_arc_model

        export_arc_model(module, config, tokenizer_file, args.out / "onnx")
        _log(f"exported {args.out / 'onnx'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
