"""Question/answer items made from NLI pairs: questions, labels, splits, training examples."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from models.training import data as D
from models.training import examples as E
from models.training import qa_data as Q

pytest.importorskip("models.parsing")


def _pair(
    premise: str, hypothesis: str, label: str, source: str = "nli/snli_dev_from_esnli.tsv"
) -> D.TextPair:
    return D.TextPair(source, premise, premise, hypothesis, label)


def _split(p: D.TextPair) -> str:
    return D.split_of(p.source + p.group)


@pytest.mark.parametrize(
    ("hypothesis", "question"),
    [
        ("The bridge was opened in 1990.", "Was the bridge opened in 1990?"),
        ("A man is playing a guitar.", "Is a man playing a guitar?"),
        ("The library opened in 1896.", "Did the library open in 1896?"),
        ("The shop sells maps of the island.", "Does the shop sell maps of the island?"),
        ("Marie Curie won two Nobel prizes.", "Did Marie Curie win two Nobel prizes?"),
        ("Visitors can camp on the shore.", "Can visitors camp on the shore?"),
    ],
)
def test_a_hypothesis_becomes_a_yes_no_question(hypothesis: str, question: str) -> None:
    (sent,) = Q._nlp()(hypothesis).sents
    assert Q.invert(sent) == question


def test_yes_no_labels_follow_the_nli_label() -> None:
    premise = "The library opened in 1896 in the old town."
    pairs = [
        _pair(premise, "The library opened in 1896.", "entailment"),
        _pair(premise, "The library opened in 1900.", "contradiction"),
        _pair(premise, "The library is large.", "neutral"),
        _pair(premise, "The library is large.", "neutral", "nli/extra/fever_nli_binary.jsonl"),
    ]
    got = {
        (p.label, p.source): {(i.answer, i.supported) for i in Q.yes_no_items([p], _split(p))}
        for p in pairs
    }
    assert got[("entailment", pairs[0].source)] == {("Yes.", 1), ("No.", 0)}
    assert got[("contradiction", pairs[1].source)] == {("No.", 1), ("Yes.", 0)}
    assert got[("neutral", pairs[2].source)] == {("Yes.", 0), ("No.", 0)}
    # Binary files merge contradiction into "not entailed": their "No." is unknown.
    assert got[("neutral", pairs[3].source)] == {("Yes.", 0)}
    # A pair is only ever on its own split.
    other = "dev" if _split(pairs[0]) == "train" else "train"
    assert Q.yes_no_items(pairs[:1], other) == []


def test_short_answers_are_the_span_and_a_swapped_span_of_the_same_type() -> None:
    premise = "Dr Martin Greaves produced the first map of the cave. His assistant was John Smith."
    p = _pair(premise, "x", "neutral")
    items = Q.short_answer_items([p], _split(p), random.Random(0))
    assert [(i.question, i.answer, i.supported) for i in items] == [
        ("Who produced the first map of the cave?", "Dr Martin Greaves.", 1),
        ("Who produced the first map of the cave?", "Dr John Smith.", 0),
    ]
    dated = _pair("The library opened in 1896. The bridge opened in 1901.", "x", "neutral")
    items = Q.short_answer_items([dated], _split(dated), random.Random(0))
    assert [(i.question, i.answer, i.supported) for i in items] == [
        ("When did the library open?", "In 1896.", 1),
        ("When did the library open?", "In 1901.", 0),
    ]


def test_training_examples_read_the_answer_as_its_claim() -> None:
    premise = "The library opened in 1896 in the old town."
    items = [
        Q.QAItem(
            "nli/x", "g", "train", "yes/no", premise, "Did the library open in 1896?", "Yes.", 1
        ),
        Q.QAItem(
            "nli/x", "g", "train", "yes/no", premise, "Did the library open in 1896?", "No.", 0
        ),
        Q.QAItem(
            "nli/x", "g", "train", "short", premise, "When did the library open?", "In 1901.", 0
        ),
    ]
    out = Q.qa_examples(items, E.ParseCache(None))
    assert [(e.kind, e.sentence, e.support) for e in out] == [
        ("qa-yes/no", "The library opened in 1896.", 1),
        ("qa-yes/no", "The library did not open in 1896.", 0),
        ("qa-short", "The library opened in 1901.", 0),
    ]
    assert all(e.evidence == premise and set(e.arc_y) == {-1} and e.arcs for e in out)


def test_build_all_adds_qa_examples_to_training_only(monkeypatch: pytest.MonkeyPatch) -> None:
    premise = "The library opened in 1896 in the old town."
    pairs = [
        D.TextPair(
            "nli/snli_dev_from_esnli.tsv",
            f"g{n}",
            premise,
            "The library opened in 1896.",
            "entailment",
        )
        for n in range(40)
    ]
    sides = {D.split_of(p.source + p.group) for p in pairs}
    assert sides == {"train", "dev"}  # both sides have pairs to draw on
    monkeypatch.setattr(E, "read_pairs", lambda data_dir: pairs)
    monkeypatch.setattr(E, "span_records", lambda data_dir: [])

    def build(plan: E.Plan) -> dict:
        return E.build_all(
            Path("unused"),
            E.ParseCache(None),
            plan,
            count_tokens=lambda t: len(t.split()),
            retriever=None,
        )

    on = build(E.Plan())
    assert E.Plan().qa > 0  # on by default for the next training run
    assert {e.kind for e in on["train"]} >= {"qa-yes/no"}
    assert not [e for e in on["dev"] if e.kind.startswith("qa-")]
    off = build(E.Plan(qa=0))
    assert not [e for e in off["train"] if e.kind.startswith("qa-")]
