"""An answer's own framing is not checked; a framing phrase before a claim is not read."""

from __future__ import annotations

import pytest

from models.checkers.base import FRAMING, PairInput, has_content, unchecked_reason
from models.framing import framing
from models.parsing import parse
from models.readable import readable


@pytest.mark.parametrize(
    "text",
    [
        "Here's a summary of the article:",
        "Sure! Here is a brief summary:",
        "Here are the key points:",
        "Below is a short overview of the text:",
        "Summary of the article:",
        "I hope this helps!",
        "Let me know if you have any other questions.",
        "I'm happy to help.",
    ],
)
def test_the_answers_own_framing(text: str) -> None:
    assert framing(text)


@pytest.mark.parametrize(
    "text",
    [
        "Here is the museum's plan:",  # claims the source gives a plan
        "The report lists three risks:",
        "Here is what happened: the museum closed.",
        "I hope the museum reopens soon.",
        "The museum closes in March.",
    ],
)
def test_a_sentence_that_says_something_is_not_framing(text: str) -> None:
    assert not framing(text)


def test_framing_is_not_checked_and_says_why() -> None:
    from models.checkers.lexical import LexicalArcChecker

    source = parse("The museum will close from 1 March to 30 June for renovation.")
    output = parse(
        "Here's a summary of the article:\n\nThe museum closes from March to June.\n\n"
        "I hope this helps!"
    )
    first, claim, last = output.sentences
    # each has content arcs ("summary -> article", "hope -> helps"): checked, they were "not found"
    assert first.arcs and last.arcs
    assert unchecked_reason(first) == unchecked_reason(last) == FRAMING
    assert has_content(claim)
    (result,) = LexicalArcChecker().score([PairInput("f", source, output)])
    assert [s.not_checked for s in result.sentences] == [FRAMING, None, FRAMING]


def test_a_framing_phrase_before_a_claim_is_not_read() -> None:
    assert readable("Based on the provided text, the museum closes in March.") == (
        "the museum closes in March."
    )
    assert (
        readable("It rains. In summary, the shop stays open.") == "It rains. the shop stays open."
    )
    # a source the claim names is read: "according to the police" is part of the claim
    assert readable("According to the police, he fled.") == "According to the police, he fled."
