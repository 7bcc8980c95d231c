"""Tokenisation for the bundled encoders, with word-piece alignment by character offsets.

Inference uses the ``tokenizers`` package and the model's ``tokenizer.json`` only (no
transformers), so the app runs on the exported files. An arc is located in the model input by
the *first* word-piece of its head word and of its child word: spaCy words and word-pieces are
matched through the tokenizer's character offsets into the output sentence.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.errors import ModelLoadError, ModelNotFoundError
from models.readable import readable, readable_map

OTHER_LABEL = "other"
OTHER_PREP = "prep_other"


def load_tokenizer(path: str | Path) -> Any:
    """Load a ``tokenizer.json`` with truncation and padding switched off (we do both).

    Raises:
        ModelNotFoundError: when the file is missing.
        ModelLoadError: when it cannot be read.
    """
    from tokenizers import Tokenizer

    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(f"{path}: tokenizer file not found.")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises plain Exception subclasses
        raise ModelLoadError(f"{path}: cannot read the tokenizer: {exc}") from exc
    tok.no_truncation()
    tok.no_padding()
    return tok


_SHARED: dict[tuple[str, int, int, int | None], Any] = {}
_SHARED_LOCK = threading.Lock()


def shared_tokenizer(path: str | Path, max_length: int | None = None) -> Any:
    """A ``tokenizer.json`` as :func:`load_tokenizer` reads it, truncated to ``max_length``
    word-pieces (the longer text of a pair gives way first) or not at all, loaded once per file
    and length and shared: for the models' readers, which only encode with it (never change a
    tokenizer this returns). Loading the default checkers read the NLI model's tokenizer five
    times (30 ms each). A file written again in place loads anew.

    Raises:
        ModelNotFoundError: when the file is missing.
        ModelLoadError: when it cannot be read.
    """
    path = Path(path)
    try:
        resolved = path.resolve()
        stat = resolved.stat()
    except OSError:
        return load_tokenizer(path)  # says what is wrong with it
    key = (str(resolved), stat.st_size, stat.st_mtime_ns, max_length)
    with _SHARED_LOCK:
        tok = _SHARED.get(key)
        if tok is None:
            tok = load_tokenizer(path)
            if max_length is not None:
                tok.enable_truncation(max_length, strategy="longest_first")
            _SHARED[key] = tok
    return tok


class TokenCounter:
    """How many word-pieces a tokenizer makes of a text (no special tokens, not truncated), with
    recent texts kept: evidence windows count each source sentence again for every claim and
    window size."""

    def __init__(self, tokenizer: Any, size: int = 8192) -> None:
        self._tokenizer = tokenizer
        self._count = functools.lru_cache(maxsize=size)(self._encode)

    def _encode(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def __call__(self, text: str) -> int:
        return self._count(text)


class LabelVocab:
    """A fixed arc-label vocabulary; open-class ``prep_<word>`` labels beyond it share a bucket."""

    def __init__(self, labels: Sequence[str]) -> None:
        names = list(dict.fromkeys([OTHER_LABEL, OTHER_PREP, *labels]))
        self.labels = tuple(names)
        self._index = {name: i for i, name in enumerate(names)}

    def __len__(self) -> int:
        return len(self.labels)

    def index(self, label: str) -> int:
        """Index of a label; unknown prepositions go to ``prep_other``, anything else ``other``."""
        found = self._index.get(label)
        if found is not None:
            return found
        return self._index[OTHER_PREP if label.startswith("prep_") else OTHER_LABEL]


@dataclass(frozen=True, slots=True)
class ArcSlot:
    """One arc to score: character spans of its head and child words in the sentence text."""

    head: tuple[int, int]
    child: tuple[int, int]
    label: str


@dataclass(frozen=True, slots=True)
class Encoded:
    """One (evidence, sentence) input: word-piece ids and each arc's word-piece positions.

    ``arc_head``/``arc_child`` are -1 for an arc whose words were not found (never expected
    unless the sentence itself was truncated).
    """

    ids: tuple[int, ...]
    type_ids: tuple[int, ...]
    arc_head: tuple[int, ...]
    arc_child: tuple[int, ...]
    arc_label: tuple[int, ...]


def first_piece(
    offsets: Sequence[tuple[int, int]],
    seq_ids: Sequence[int | None],
    span: tuple[int, int],
    seq: int = 1,
) -> int:
    """Index of the first word-piece of ``seq`` whose start lies inside ``span``, else -1."""
    start, end = span
    for j, (sid, (a, b)) in enumerate(zip(seq_ids, offsets, strict=True)):
        if sid == seq and b > a and start <= a < end:
            return j
    return -1


def encode_pair(
    tokenizer: Any,
    evidence: str,
    sentence: str,
    arcs: Sequence[ArcSlot],
    vocab: LabelVocab,
    max_length: int,
) -> Encoded:
    """Encode ``[CLS] evidence [SEP] sentence [SEP]`` and align the sentence's arcs.

    Both texts are read without a word tokenizer's marks (:mod:`models.readable`: "did n't" as
    "didn't"), the arcs' word spans carried to the sentence as read. The evidence is cut from
    its end when the pair is too long; the sentence is never cut (evidence windows are built to
    fit, so this is a safety net).
    """
    evidence = readable(evidence)
    sentence, at = readable_map(sentence)
    arcs = [
        ArcSlot((at[a.head[0]], at[a.head[1]]), (at[a.child[0]], at[a.child[1]]), a.label)
        for a in arcs
    ]
    enc = tokenizer.encode(evidence, sentence)
    ids, types, offsets, seq_ids = enc.ids, enc.type_ids, enc.offsets, enc.sequence_ids
    if len(ids) > max_length:
        excess = len(ids) - max_length
        first = [j for j, s in enumerate(seq_ids) if s == 0]
        drop = set(first[len(first) - excess :]) if excess <= len(first) else set(first)
        keep = [j for j in range(len(ids)) if j not in drop]
        ids = [ids[j] for j in keep]
        types = [types[j] for j in keep]
        offsets = [offsets[j] for j in keep]
        seq_ids = [seq_ids[j] for j in keep]
    heads = tuple(first_piece(offsets, seq_ids, a.head) for a in arcs)
    children = tuple(first_piece(offsets, seq_ids, a.child) for a in arcs)
    labels = tuple(vocab.index(a.label) for a in arcs)
    return Encoded(tuple(ids), tuple(types), heads, children, labels)


def collate(items: Sequence[Encoded]) -> dict[str, np.ndarray]:
    """Pad a batch into the model's six int64 inputs (at least one arc slot per row)."""
    n = len(items)
    t = max(len(e.ids) for e in items)
    a = max(1, max(len(e.arc_head) for e in items))
    out = {
        "input_ids": np.zeros((n, t), np.int64),
        "attention_mask": np.zeros((n, t), np.int64),
        "token_type_ids": np.zeros((n, t), np.int64),
        "arc_head": np.zeros((n, a), np.int64),
        "arc_child": np.zeros((n, a), np.int64),
        "arc_label": np.zeros((n, a), np.int64),
    }
    for i, e in enumerate(items):
        k = len(e.ids)
        out["input_ids"][i, :k] = e.ids
        out["attention_mask"][i, :k] = 1
        out["token_type_ids"][i, :k] = e.type_ids
        m = len(e.arc_head)
        # Unaligned arcs point at [CLS]; their scores are discarded by the caller.
        out["arc_head"][i, :m] = [max(0, h) for h in e.arc_head]
        out["arc_child"][i, :m] = [max(0, c) for c in e.arc_child]
        out["arc_label"][i, :m] = e.arc_label
    return out
