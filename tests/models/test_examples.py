"""Document corruptions: the optional fused positives and un-negated twins are what they say."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("models.parsing")

from models.training.data import SummaryRecord, split_of  # noqa: E402
from models.training.examples import ParseCache, document_corruptions  # noqa: E402

DOCUMENT = (
    "The museum welcomed 40,000 visitors last year. It is run by volunteers. "
    "The roof was not repaired before the winter. Officials have never published the costs. "
    "The council will not fund a new wing. A local trust bought the building in 1990. "
    "Its collection includes 300 paintings."
)


def _doc_id() -> str:
    return next(f"doc-{n}" for n in range(100) if split_of(f"doc-{n}") == "train")


def _corrupt(**flags: bool) -> list:
    record = SummaryRecord("test", _doc_id(), "sys", DOCUMENT, "summary.", 1)
    return document_corruptions(
        [record],
        ParseCache(None),
        "train",
        per_doc=1,
        max_length=512,
        count_tokens=lambda t: len(t.split()),
        retriever=None,
        rng=random.Random(0),
        **flags,
    )


def test_fused_positives_are_supported_by_two_sentences() -> None:
    plain, fused = _corrupt(), _corrupt(fuse_docs=True)
    assert not [e for e in plain if e.kind == "doc-fuse"]
    extra = [e for e in fused if e.kind == "doc-fuse"]
    assert len(extra) == 1
    ex = extra[0]
    # one sentence built from two consecutive source sentences, labelled supported throughout
    sentences = [s.rstrip(".") for s in DOCUMENT.split(". ")]
    assert sum(s.split()[-1].strip(".") in ex.sentence for s in sentences) == 2
    assert ex.support == 1 and set(ex.arc_y) == {1}


def test_all_negations_adds_an_un_negated_twin_of_every_negated_sentence() -> None:
    def twins(examples: list) -> set[str]:
        return {
            e.sentence for e in examples if e.kind == "doc-negation" and " not " not in e.sentence
        }

    sampled, every = twins(_corrupt()), twins(_corrupt(all_negations=True))
    assert sampled < every
    assert {
        "The roof was repaired before the winter.",
        "Officials have published the costs.",
        "The council will fund a new wing.",
    } <= every
    roof = next(
        e
        for e in _corrupt(all_negations=True)
        if e.sentence == "The roof was repaired before the winter."
    )
    # the word that lost its negation carries the error
    heads = {
        roof.sentence[slice(*a.head)] for a, y in zip(roof.arcs, roof.arc_y, strict=True) if y == 0
    }
    assert heads == {"repaired"} and roof.support == 0
