"""In-domain NLI pairs from the training side of the human-labelled summaries.

The NLI model learnt from Wikipedia, fiction and magazine pairs; the app reads news-summary
claims against windows of retrieved source sentences. This module turns the summaries whose
annotators located their errors into pairs of exactly that shape: each claim of an output, as
:meth:`models.checkers.nli.NLISentenceChecker.readings` reads it, against its evidence windows.

Labels (two-way: the annotators say "supported or not", not "contradicted"):

* a claim of a faithful output (no annotator found an error) is ``entailment``;
* a claim that overlaps an error span marked by a majority of its annotators is
  ``not_entailment``;
* in an output with errors, a claim that no annotator's span touches is ``entailment``;
* a one-claim output with an error but no located span (FactCC claims) is ``not_entailment``.

Each claim is read against its widest window, the one most likely to hold what supports it (the
checker trusts a claim's best-entailing window): the window's width tells the model nothing.

Only outputs the arc/support model already trained on are read (the training split of XSumFaith,
CLIFF, Goyal'21 and FactCC): FRANK, SummEval and Polytope stay new to every model, for the
combined score's fit (:mod:`models.training.combine`) and the window benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

from models.checkers.nli import ClaimReading, NLISentenceChecker
from models.claims import pair_input
from models.training.calibration_data import parse_cache, training_side_records
from models.training.data import SummaryRecord
from models.training.nli_data import NOT_ENTAILED, NliPair

Log = Callable[[str], None]
#: Datasets whose training side the arc/support model read already.
DATASETS = ("xsumfaith", "cliff_error_types", "goyal21_error_types", "factcc_val")
FILES = {name: f"summaries/{name}.jsonl" for name in DATASETS}


def claim_label(reading: ClaimReading, record: SummaryRecord) -> str | None:
    """``entailment``, ``not_entailment`` or None (the annotators disagree about it) for one
    claim of ``record``'s output (see the module docstring)."""
    if record.faithful == 1:
        return "entailment"
    if not record.spans:
        return None
    tokens = reading.claim.tokens
    lo, hi = min(t.start for t in tokens), max(t.end for t in tokens)
    touched = sum(any(a < hi and lo < b for a, b in spans) for spans in record.spans)
    if touched * 2 > len(record.spans):
        return NOT_ENTAILED
    return "entailment" if touched == 0 else None


def pairs_of(readings: Sequence[ClaimReading], record: SummaryRecord) -> list[NliPair]:
    """The training pairs of one output's claims."""
    path = FILES[record.dataset]
    out = []
    if record.faithful == 0 and not record.spans:
        # an error nobody located: only a one-claim output says which claim holds it
        if len(readings) == 1 and not readings[0].denies:
            r = readings[0]
            out.append(NliPair(path, r.windows[-1], r.hypothesis, NOT_ENTAILED))
        return out
    for r in readings:
        label = None if r.denies else claim_label(r, record)
        if label is not None:
            out.append(NliPair(path, r.windows[-1], r.hypothesis, label))
    return out


def summary_pairs(
    data_dir: Path,
    work: Path,
    checker: NLISentenceChecker,
    log: Log = print,
    seed: int = 13,
) -> list[NliPair]:
    """Every in-domain pair of the training-side outputs of :data:`DATASETS`, seeded order.

    ``work`` keeps the spaCy parses (:func:`models.training.calibration_data.parse_cache`);
    ``checker`` plans the readings (its model is not run).
    """
    records = [
        r
        for r in training_side_records(data_dir)
        if r.dataset in DATASETS and r.faithful is not None
    ]
    cache = parse_cache(work)
    docs = cache.parse([r.document for r in records], log)
    outs = cache.parse([r.summary for r in records], log)
    cache.save()
    pairs: list[NliPair] = []
    for k, (record, doc, out) in enumerate(zip(records, docs, outs, strict=True)):
        pairs += pairs_of(checker.readings(pair_input(k, doc, out)), record)
    random.Random(seed).shuffle(pairs)
    return pairs
