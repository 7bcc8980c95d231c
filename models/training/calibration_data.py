"""The training side of the labelled summary data: what calibration and the combiner may see.

The evaluation (:mod:`models.evaluation`) holds out the dev split of the span sets and every
FRANK, SummEval and Polytope document that is not a training document. This module returns the
complement: the training split of XSumFaith, CLIFF/Goyal'21 and FactCC, and the FRANK, SummEval
and Polytope outputs whose source is a training document. Nothing here is ever evaluated on.
"""

from __future__ import annotations

from pathlib import Path

from models.training import data as D
from models.training.examples import ParseCache, fingerprint, training_fingerprints


def training_side_records(data_dir: Path) -> list[D.SummaryRecord]:
    """Every labelled output whose source document is on the training side."""
    train = training_fingerprints(data_dir)
    by_split = (
        D.read_xsumfaith(data_dir)
        + D.read_aggrefact_spans(data_dir, "cliff_error_types")
        + D.read_aggrefact_spans(data_dir, "goyal21_error_types")
        + D.read_factcc(data_dir)
    )
    by_document = D.read_frank(data_dir) + D.read_summeval(data_dir) + D.read_polytope(data_dir)
    return [r for r in by_split if D.split_of(r.doc_id) == "train"] + [
        r for r in by_document if fingerprint(r.document) in train
    ]


def parse_cache(work: Path) -> ParseCache:
    """The parse cache the evaluation and the reproduction command share."""
    return ParseCache(Path(work) / "parse_cache.pkl")
