"""In-domain NLI pairs from the labelled summaries: which claims are entailed, which are not,
which are left out, and that a pair is the claim as the checker reads it against its widest
window."""

from __future__ import annotations

from models.checkers.nli import ClaimReading
from models.document import Sentence, Token
from models.training.data import SummaryRecord
from models.training.summary_nli import claim_label, pairs_of

SUMMARY = "Ann won the prize in Oslo. She thanked her coach."


def _reading(start: int, end: int, *, denies: bool = False) -> ClaimReading:
    """A claim over SUMMARY[start:end], read against a narrow and a wide window."""
    words, tokens, at = SUMMARY[start:end].split(), [], start
    for i, w in enumerate(words):
        at = SUMMARY.index(w, at)
        tokens.append(Token(i, at, at + len(w), w, w.lower(), "X", "dep", 0))
        at += len(w)
    claim = Sentence(0, start, end, SUMMARY[start:end], tuple(tokens), ())
    return ClaimReading(0, claim, SUMMARY[start:end], ("narrow", "narrow and wide"), denies)


def _record(faithful: int, spans=None, dataset: str = "xsumfaith") -> SummaryRecord:
    return SummaryRecord(dataset, "d1", "sys", "source", SUMMARY, faithful, spans)


FIRST, SECOND = _reading(0, 26), _reading(27, 49)
OSLO = (21, 25)


def test_a_faithful_outputs_claims_are_entailed_against_the_widest_window() -> None:
    pairs = pairs_of([FIRST, SECOND], _record(1))
    assert [(p.premise, p.hypothesis, p.label) for p in pairs] == [
        ("narrow and wide", FIRST.hypothesis, "entailment"),
        ("narrow and wide", SECOND.hypothesis, "entailment"),
    ]
    assert {p.path for p in pairs} == {"summaries/xsumfaith.jsonl"}


def test_a_claim_is_not_entailed_only_where_most_annotators_mark_an_error() -> None:
    # three annotators: two mark "Oslo", one marks nothing
    record = _record(0, ((OSLO,), (OSLO,), ()))
    assert claim_label(FIRST, record) == "not_entailment"
    assert claim_label(SECOND, record) == "entailment"  # no annotator touched it
    # one of three marks "Oslo": the claim is left out, not guessed
    minority = _record(0, ((OSLO,), (), ()))
    assert claim_label(FIRST, minority) is None
    pairs = pairs_of([FIRST, SECOND], minority)
    assert [(p.hypothesis, p.label) for p in pairs] == [(SECOND.hypothesis, "entailment")]


def test_an_error_nobody_located_labels_only_a_one_claim_output() -> None:
    one = pairs_of([FIRST], _record(0, None, "factcc_val"))
    assert [(p.premise, p.label, p.path) for p in one] == [
        ("narrow and wide", "not_entailment", "summaries/factcc_val.jsonl")
    ]
    assert pairs_of([FIRST, SECOND], _record(0, None, "factcc_val")) == []


def test_a_denied_claim_is_not_a_training_pair() -> None:
    denied = _reading(0, 26, denies=True)
    assert pairs_of([denied, SECOND], _record(1)) == pairs_of([SECOND], _record(1))
