"""Distil the accurate model (the teacher, MPNet) into the fast one (the student, MiniLM).

1. A pool of auto-derived examples, far larger than the gold training set: the training
   builders at a larger scale (every sampled source sentence, its corruptions and copies, NLI
   and summary pairs) plus inputs no builder keeps because they carry no gold label: every
   training-side summary sentence over its evidence window, and NLI premises read against their
   hypothesis (the reverse direction, mostly unsupported content). Only the training side of
   each data set is used; the evaluation sets stay held out.
2. The teacher's soft arc and support probabilities over the pool, computed once in batches and
   cached on disk in chunks (each written atomically), so an interrupted run resumes where it
   stopped. The cache is tied to the teacher's version and the pool's content.
3. The student trains on the binary cross-entropy to those soft labels (optionally at a
   temperature) plus the gold loss where gold exists (:func:`models.training.train.train`).

Teacher and student may use different tokenizers: a soft label belongs to an arc (by its
character spans), not to a word-piece.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.checkers.multitask import arc_slots
from models.document import Sentence
from models.evidence import Retriever, build_windows
from models.training.data import SummaryRecord, TextPair, read_pairs, split_of
from models.training.examples import Example, ParseCache, Plan, build_all, span_records
from models.training.train import Soft

Log = Callable[[str], None]
META_FILE = "meta.json"
CHUNK = 4096


def reverse_pair_examples(
    pairs: Sequence[TextPair],
    cache: ParseCache,
    split: str,
    *,
    limit: int | None = None,
    seed: int = 13,
    log: Log | None = None,
) -> list[Example]:
    """Each premise sentence read against its hypothesis as evidence; no gold labels."""
    chosen = [p for p in pairs if split_of(p.source + p.group) == split]
    random.Random(seed).shuffle(chosen)
    chosen = chosen[:limit] if limit is not None else chosen
    premises = cache.parse([p.premise for p in chosen], log)
    out = []
    for p, parsed in zip(chosen, premises, strict=True):
        for s in parsed.sentences:
            if s.arcs:
                out.append(_unlabelled("reverse-pair", p.source, split, p.hypothesis, s))
    return out


def unlabelled_summary_examples(
    records: Sequence[SummaryRecord],
    cache: ParseCache,
    split: str,
    *,
    max_length: int,
    count_tokens: Callable[[str], int],
    retriever: Retriever | None,
    log: Log | None = None,
) -> list[Example]:
    """Every summary sentence over its evidence window, as at inference; no gold labels."""
    chosen = [r for r in records if split_of(r.doc_id) == split]
    docs = cache.parse([r.document for r in chosen], log)
    outs = cache.parse([r.summary for r in chosen], log)
    out = []
    for r, doc, summ in zip(chosen, docs, outs, strict=True):
        windows = build_windows(
            doc, summ.sentences, max_tokens=max_length, count_tokens=count_tokens,
            retriever=retriever,
        )  # fmt: skip
        for s, ev in zip(summ.sentences, windows, strict=True):
            if ev.not_checked is None and s.arcs:
                out.append(_unlabelled("summary-pool", r.dataset, split, ev.text, s))
    return out


def _unlabelled(kind: str, source: str, split: str, evidence: str, sentence: Sentence) -> Example:
    n = len(sentence.arcs)
    slots = arc_slots(sentence)
    return Example(kind, source, split, evidence, sentence.text, slots, (-1,) * n, -1, (False,) * n)


def dedupe(examples: Sequence[Example]) -> list[Example]:
    """One example per (evidence, sentence); the first one, which carries gold when any does."""
    seen: set[tuple[str, str]] = set()
    out = []
    for e in examples:
        key = (e.evidence, e.sentence)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def build_pool(
    data_dir: Path,
    cache: ParseCache,
    plan: Plan,
    *,
    count_tokens: Callable[[str], int],
    retriever: Retriever | None,
    reverse_pairs: int | None = 40000,
    log: Log | None = None,
) -> list[Example]:
    """The distillation pool (training side only): the builders at ``plan``'s scale plus the
    unlabelled summary sentences and reversed NLI pairs (at most ``reverse_pairs`` pairs).
    Gold-labelled examples come first, so deduplication keeps their labels."""
    labelled = build_all(
        data_dir, cache, plan, count_tokens=count_tokens, retriever=retriever, log=log
    )["train"]
    summaries = unlabelled_summary_examples(
        span_records(data_dir),
        cache,
        "train",
        max_length=plan.max_length,
        count_tokens=count_tokens,
        retriever=retriever,
        log=log,
    )
    reverse = reverse_pair_examples(
        read_pairs(data_dir), cache, "train", limit=reverse_pairs, seed=plan.seed, log=log
    )
    cache.save()
    return dedupe(labelled + summaries + reverse)


def pool_digest(examples: Sequence[Example]) -> str:
    """A content hash of the pool's model inputs (what the teacher labels depend on)."""
    digest = hashlib.sha1()
    for e in examples:
        digest.update(e.evidence.encode("utf-8"))
        digest.update(b"\0")
        digest.update(e.sentence.encode("utf-8"))
        digest.update(b"\0")
        digest.update(repr([(a.head, a.child, a.label) for a in e.arcs]).encode("utf-8"))
        digest.update(b"\1")
    return digest.hexdigest()


class SoftPredictor:
    """A trainer directory's torch model predicting soft labels in batches (fp16/bf16 on CUDA)."""

    def __init__(self, model_dir: Path, *, device: str | None = None, precision: str = "auto"):
        import torch

        from models.arc_model import TOKENIZER_FILE, load_torch
        from models.encoding import LabelVocab, load_tokenizer

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.precision = precision
        self.module, self.config = load_torch(model_dir, self.device)
        self.version = str(self.config.get("version", "unversioned"))
        self.vocab = LabelVocab(self.config["labels"])
        self.max_length = int(self.config["max_length"])
        self.tokenizer = load_tokenizer(Path(model_dir) / TOKENIZER_FILE)

    def predict(self, examples: Sequence[Example], *, batch_size: int = 64) -> list[Soft]:
        """Each example's arc probabilities (NaN for an arc not placed) and support."""
        import torch

        from models.encoding import collate, encode_pair
        from models.training.train import autocast

        enc = [
            encode_pair(self.tokenizer, e.evidence, e.sentence, e.arcs, self.vocab, self.max_length)
            for e in examples
        ]
        order = sorted(range(len(enc)), key=lambda n: len(enc[n].ids))
        out: list[Soft | None] = [None] * len(enc)
        for lo in range(0, len(order), batch_size):
            chunk = order[lo : lo + batch_size]
            feed = {
                k: torch.from_numpy(v).to(self.device)
                for k, v in collate([enc[n] for n in chunk]).items()
            }
            with torch.inference_mode(), autocast(self.device, self.precision):
                arc_prob, support = self.module(**feed)
            arc_np = arc_prob.float().cpu().numpy()
            sup_np = support.float().cpu().numpy()
            for r, n in enumerate(chunk):
                e = enc[n]
                arcs = tuple(
                    float(arc_np[r, k]) if e.arc_head[k] >= 0 and e.arc_child[k] >= 0 else math.nan
                    for k in range(len(e.arc_head))
                )
                out[n] = (arcs, float(sup_np[r]))
        return [s for s in out if s is not None]


def teacher_labels(
    teacher_dir: Path,
    pool: Sequence[Example],
    cache_dir: Path,
    *,
    batch_size: int = 64,
    chunk: int = CHUNK,
    device: str | None = None,
    precision: str = "auto",
    log: Log | None = None,
) -> list[Soft]:
    """The teacher's soft labels over the pool, computed once and cached in chunks.

    ``cache_dir`` holds ``meta.json`` (teacher version, pool hash, chunk size) and one
    ``chunk-NNNNN.npz`` per ``chunk`` examples, each written to a temporary file and renamed.
    A rerun computes only the missing chunks; a different teacher or pool starts afresh.
    """
    predictor = SoftPredictor(teacher_dir, device=device, precision=precision)
    meta = {"teacher": predictor.version, "pool": pool_digest(pool), "chunk": chunk}
    meta_path = cache_dir / META_FILE
    if meta_path.is_file():
        try:
            old = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            old = None
        if old != meta:
            if log:
                log(f"{cache_dir}: cached teacher labels are for another teacher or pool; redoing")
            shutil.rmtree(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    _atomic_write(meta_path, json.dumps(meta, indent=2).encode("utf-8"))
    n_chunks = -(-len(pool) // chunk)
    out: list[Soft] = []
    for c in range(n_chunks):
        path = cache_dir / f"chunk-{c:05d}.npz"
        part = pool[c * chunk : (c + 1) * chunk]
        soft = _read_chunk(path, len(part)) if path.is_file() else None
        if soft is None:
            if log:
                log(f"teacher labels: chunk {c + 1}/{n_chunks} ({len(part)} examples)")
            soft = predictor.predict(part, batch_size=batch_size)
            _write_chunk(path, soft)
        out.extend(soft)
    return out


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_chunk(path: Path, soft: Sequence[Soft]) -> None:
    buf = io.BytesIO()
    np.savez(
        buf,
        arc=np.array([p for arcs, _ in soft for p in arcs], dtype=np.float32),
        counts=np.array([len(arcs) for arcs, _ in soft], dtype=np.int32),
        support=np.array([s for _, s in soft], dtype=np.float32),
    )
    _atomic_write(path, buf.getvalue())


def _read_chunk(path: Path, expected: int) -> list[Soft] | None:
    try:
        with np.load(io.BytesIO(path.read_bytes())) as data:
            arc, counts, support = data["arc"], data["counts"], data["support"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # unreadable (cut short, damaged): computed again
    if len(counts) != expected or int(counts.sum()) != len(arc):
        return None
    out: list[Soft] = []
    pos = 0
    for k, s in zip(counts.tolist(), support.tolist(), strict=True):
        out.append((tuple(float(x) for x in arc[pos : pos + k]), float(s)))
        pos += k
    return out


def agreement(student: Sequence[Soft], teacher: Sequence[Soft]) -> dict[str, float]:
    """How close the student's probabilities are to the teacher's.

    Returns the mean binary cross-entropy to the teacher's probabilities less the teacher's own
    entropy (the KL divergence, 0 when they agree), and the mean absolute gap, over arcs both
    placed and over sentences.
    """

    def kl(p: np.ndarray, q: np.ndarray) -> float:
        p = np.clip(p, 1e-6, 1 - 1e-6)
        q = np.clip(q, 1e-6, 1 - 1e-6)
        return float(np.mean(q * np.log(q / p) + (1 - q) * np.log((1 - q) / (1 - p))))

    s_arc = np.array([p for arcs, _ in student for p in arcs], dtype=np.float64)
    t_arc = np.array([p for arcs, _ in teacher for p in arcs], dtype=np.float64)
    if len(s_arc) != len(t_arc):
        raise ValueError("student and teacher labels are for different pools.")
    both = ~(np.isnan(s_arc) | np.isnan(t_arc))
    s_sup = np.array([s for _, s in student], dtype=np.float64)
    t_sup = np.array([t for _, t in teacher], dtype=np.float64)
    sup_ok = ~(np.isnan(s_sup) | np.isnan(t_sup))
    arc_kl = kl(s_arc[both], t_arc[both]) if both.any() else 0.0
    sup_kl = kl(s_sup[sup_ok], t_sup[sup_ok]) if sup_ok.any() else 0.0
    return {
        "kl": arc_kl + sup_kl,
        "arc_kl": arc_kl,
        "support_kl": sup_kl,
        "arc_gap": float(np.mean(np.abs(s_arc[both] - t_arc[both]))) if both.any() else 0.0,
        "support_gap": float(np.mean(np.abs(s_sup[sup_ok] - t_sup[sup_ok])))
        if sup_ok.any()
        else 0.0,
    }


def distill(
    pool: Sequence[Example],
    soft: Sequence[Soft],
    *,
    base_dir: Path,
    out_dir: Path,
    init_dir: Path | None = None,
    temperature: float = 1.0,
    gold_weight: float = 1.0,
    base_description: str | None = None,
    **train_args: Any,
) -> Path:
    """Train the student on the pool's soft labels (plus gold where there is gold).

    ``base_dir`` is the student's base encoder (MiniLM); ``init_dir`` continues from a trainer
    directory instead (the bundled fast model's weights, say). Other keyword arguments go to
    :func:`models.training.train.train` (budget, epochs, batch size, learning rate, device).
    """
    from models.training.train import train

    if len(pool) != len(soft):
        raise ValueError(f"{len(soft)} soft labels for a pool of {len(pool)} examples.")
    return train(
        pool,
        base_dir=base_dir,
        out_dir=out_dir,
        init_dir=init_dir,
        soft=soft,
        temperature=temperature,
        gold_weight=gold_weight,
        base_description=base_description,
        **train_args,
    )
