"""Auto-derived arc labels behave as issue 4 specifies."""

from __future__ import annotations

import random

import pytest

from models.training import labels as L

parsing = pytest.importorskip("models.parsing")


def parse(text: str):
    return parsing.parse(text)


def test_paraphrase_positives_label_every_arc() -> None:
    premise = parse("The committee approved the new budget on Monday.")
    hyp = parse("On Monday the new budget was approved by the committee.").sentences[0]
    assert L.pair_labels(premise, hyp, paraphrase=True) == [1] * len(hyp.arcs)


def test_entailment_positives_only_arcs_in_premise() -> None:
    premise = parse("The tall man bought a red car in Paris.")
    hyp = parse("The tall man bought a car in London.").sentences[0]
    y = L.pair_labels(premise, hyp, paraphrase=False)
    by_key = {a.key: v for a, v in zip(hyp.arcs, y, strict=True)}
    assert by_key[("man", "amod", "tall")] == 1
    london = [v for a, v in zip(hyp.arcs, y, strict=True) if a.child_lemma == "london"]
    assert london == [-1]  # not in the premise: unknown, never a positive


def test_entity_swap_marks_touching_arcs_negative() -> None:
    premise = parse("Angela Merkel met Emmanuel Macron in Berlin.")
    sent = premise.sentences[0]
    text, changed = L.swap_entity(sent, {"PROPN": ["Madrid"], "NUM": []}, random.Random(0))
    edited = parse(text).sentences[0]
    y = L.edit_labels(edited, changed, L.arc_keys(premise))
    touched = [L.arc_touches(a, changed) for a in edited.arcs]
    assert 0 in y
    assert all((v == 0) == t for v, t in zip(y, touched, strict=True))
    assert all(v == 1 for v, t in zip(y, touched, strict=True) if not t)


def test_negation_adds_a_negative_arc() -> None:
    sent = parse("The company has closed its factory.").sentences[0]
    text, changed = L.negate(sent)
    assert "has not closed" in text
    edited = parse(text).sentences[0]
    y = L.edit_labels(edited, changed, {a.key for a in sent.arcs})
    neg = [v for a, v in zip(edited.arcs, y, strict=True) if a.child_text == "not"]
    assert neg == [0]


@pytest.mark.parametrize(
    ("source", "expected", "negated"),
    [
        (
            "The bridge was not damaged by the storm.",
            "The bridge was damaged by the storm.",
            "damaged",
        ),
        ("The minister can't attend the summit.", "The minister can attend the summit.", "attend"),
        ("The museum is never open on Mondays.", "The museum is open on Mondays.", "is"),
    ],
)
def test_dropped_negation_marks_the_negated_words_arcs(
    source: str, expected: str, negated: str
) -> None:
    sent = parse(source).sentences[0]
    text, changed = L.negate(sent)  # the sentence has a negation: negate() drops it
    assert text == expected
    assert [text[a:b] for a, b in changed] == [negated]
    edited = parse(text).sentences[0]
    y = L.edit_labels(edited, changed, {a.key for a in sent.arcs})
    flagged = {a.head_text for a, v in zip(edited.arcs, y, strict=True) if v == 0}
    assert negated in flagged
    assert all(
        v == 1
        for a, v in zip(edited.arcs, y, strict=True)
        if negated not in (a.head_text, a.child_text)
    )


def test_do_negation_is_dropped_with_the_verb_re_inflected() -> None:
    # "did not go" -> "went": the irregular past from the table, the verb's arcs flagged
    text, changed = L.drop_negation(parse("The team did not go to Paris.").sentences[0])  # type: ignore[misc]
    assert text == "The team went to Paris."
    assert [text[a:b] for a, b in changed] == ["went"]


def test_same_pos_swap_changes_a_word_of_that_pos() -> None:
    sent = parse("The dog chased the cat across the garden.").sentences[0]
    text, changed = L.swap_word(
        sent, {"NOUN": ["piano"], "VERB": ["painted"]}, random.Random(1), pos=("NOUN",)
    )
    assert "piano" in text and text[changed[0][0] : changed[0][1]] == "piano"


def test_span_deletion_removes_support() -> None:
    premise = parse("The mayor of Paris opened a new bridge over the river.")
    hyp = parse("The mayor opened a bridge over the river.").sentences[0]
    before_y = L.pair_labels(premise, hyp, paraphrase=False)
    assert 1 in before_y
    reduced = parse("The mayor of Paris opened a new bridge.")
    y = L.deletion_labels(hyp, premise, reduced)
    by_child = {a.child_lemma: v for a, v in zip(hyp.arcs, y, strict=True)}
    assert by_child["river"] == 0
    assert by_child["mayor"] == 1


def test_human_spans_majority_negative_outside_positive() -> None:
    text = "The veteran conductor died at the age of 83."
    sent = parse(text).sentences[0]
    at = text.index("83")
    vet = text.index("veteran")
    annotators = [[(at, at + 2)], [(at, at + 2)], [(vet, vet + 7)]]
    y = L.span_labels(sent, annotators, majority=2)
    for arc, v in zip(sent.arcs, y, strict=True):
        if arc.child_text == "83" or arc.head_text == "83":
            assert v == 0
        elif "veteran" in (arc.child_text, arc.head_text):
            assert v == -1  # a single annotator's span: unknown
        else:
            assert v == 1


def test_majority_chars() -> None:
    assert L.majority_chars([[(0, 4)], [(2, 6)], []], 2) == [(2, 4)]


def test_compression_removes_one_optional_modifier_only() -> None:
    s = parse("The council approved the new budget on Monday after a long debate.").sentences[0]
    short = L.compress(s, random.Random(0))
    assert short is not None and short != s.text
    # every word left is from the original, in order, and the core clause survives
    words = short.rstrip(".").split()
    assert words[:2] == ["The", "council"] and "approved" in words and "budget" in words
    it = iter(s.text.rstrip(".").split())
    assert all(w in it for w in words)


def test_splice_joins_one_subject_to_another_predicate() -> None:
    doc = parse(
        "The mayor opened the new bridge on Monday. Police closed the road after the crash."
    )
    text, spans = L.splice(doc.sentences[1], doc.sentences[0])  # type: ignore[misc]
    assert text == "Police opened the new bridge on Monday."
    assert text[slice(*spans[0])] == "Police"
    known = {a.key for a in doc.arcs}
    hyp = parse(text).sentences[0]
    novel = [a.key for a in hyp.arcs if a.key not in known]
    assert novel == [("open", "nsubj", "police")]  # the one arc the source does not support
    same = parse("The mayor opened the bridge. The mayor closed the road.")
    assert L.splice(same.sentences[1], same.sentences[0]) is None  # same subject: no error


@pytest.mark.parametrize(
    ("source", "fused"),
    [
        (  # a pronoun subject is dropped: the second sentence joins as a second predicate
            "The museum welcomed 40,000 visitors last year. It is run by volunteers.",
            "The museum welcomed 40,000 visitors last year and is run by volunteers.",
        ),
        (  # any other subject keeps its clause; only a common first word is lower-cased
            "The council approved the budget. The vote was close.",
            "The council approved the budget, and the vote was close.",
        ),
        (
            "The council approved the budget. Lowe said the plan was sound.",
            "The council approved the budget, and Lowe said the plan was sound.",
        ),
    ],
)
def test_fuse_joins_two_source_sentences_into_one(source: str, fused: str) -> None:
    doc = parse(source)
    assert L.fuse(doc.sentences[0], doc.sentences[1]) == fused
    assert len(parse(fused).sentences) == 1
    # the only arcs the source does not have are the ones that link the two halves
    known = {a.key for a in doc.arcs}
    new = {a.label for a in parse(fused).sentences[0].arcs if a.key not in known}
    assert new <= {"cc", "conj"}


def test_fuse_leaves_quotes_alone() -> None:
    doc = parse('He said "we will win". It was late.')
    assert L.fuse(doc.sentences[0], doc.sentences[1]) is None
