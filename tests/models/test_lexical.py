import pytest

from models.checkers.base import PairInput
from models.checkers.lexical import LexicalArcChecker
from models.errors import Cancelled
from models.parsing import parse

SRC = "The mayor of Paris opened the new bridge on Tuesday."


def test_matching_arcs_are_entailed_and_swapped_entity_is_not() -> None:
    checker = LexicalArcChecker()
    faithful, swapped = checker.score(
        [
            PairInput("a", parse(SRC), parse("The mayor of Paris opened the bridge.")),
            PairInput("b", parse(SRC), parse("The mayor of Lyon opened the bridge.")),
        ]
    )
    assert faithful.score == 1.0 and faithful.checker == "lexical" and faithful.version
    out = parse("The mayor of Lyon opened the bridge.")
    bad = [out.sentences[0].arcs[a.arc] for a in swapped.arcs if a.score == 0.0]
    assert [(a.head_text, a.label, a.child_text) for a in bad] == [("mayor", "prep_of", "Lyon")]
    assert swapped.score is not None and 0 < swapped.score < 1
    assert swapped.sentences[0].min_arc == 0.0


def test_inputs_are_not_mutated_and_keys_are_returned() -> None:
    item = PairInput(("x", 1), parse(SRC), parse("It rained."))
    before = repr(item)
    (result,) = LexicalArcChecker().score([item])
    assert repr(item) == before
    assert result.key == ("x", 1)


def test_sentence_without_content_arcs_is_not_checked() -> None:
    (result,) = LexicalArcChecker().score([PairInput(1, parse(SRC), parse("No."))])
    assert result.score is None
    assert result.sentences[0].not_checked == "no content arcs"


def test_cancellation_between_batches() -> None:
    items = [PairInput(i, parse(SRC), parse("The mayor opened it.")) for i in range(4)]
    with pytest.raises(Cancelled):
        LexicalArcChecker().score(items, batch_size=1, should_stop=lambda: True)


def test_evidence_is_where_the_arcs_occur() -> None:
    src = parse("Rain fell all day. The mayor of Paris opened the bridge. Shops were closed.")
    out = parse("The mayor of Paris opened it. Trains were late.")
    (result,) = LexicalArcChecker().score([PairInput(1, src, out)])
    assert result.sentences[0].evidence == (1,)
    # no arc matches: the most similar sentence is shown rather than the whole source
    assert len(result.sentences[1].evidence) == 1
