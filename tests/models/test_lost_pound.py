"""A pound sign written "#" by a tokenizer is read as the source writes it."""

from __future__ import annotations

import pytest

from models.derived_figures import read_against
from models.lost_pound import restore_pound

PRICED = [
    "The semi-detached house will be auctioned on April 30.",
    "It has a guide price of between £200,000 and £250,000.",
]


def test_a_hash_before_a_figure_is_the_sources_pound_sign() -> None:
    r = restore_pound("the house has a guide price of between # 200,000 and # 250,000 .", PRICED)
    assert r.text == "the house has a guide price of between £200,000 and £250,000 ."
    assert r.changes == (("# 200,000", "£200,000"), ("# 250,000", "£250,000"))


def test_a_figure_the_source_does_not_state_gets_the_sign_too() -> None:
    # the figure is the model's to judge; the sign is only how the source writes money
    assert restore_pound("it sold for # 9.8 m", PRICED).text == "it sold for £9.8 m"


@pytest.mark.parametrize(
    "source",
    [
        ["The single reached #3 in the charts.", "Tickets cost £5."],  # the source's own "#"
        ["The single reached number 3 in the charts."],  # no pound sign in the source
        ["Fans pay # 5 each, the source tokenized as the output.", "Or £6 at the gate."],
    ],
)
def test_a_source_that_does_not_write_pounds_alone_leaves_the_claim_as_written(source) -> None:
    claim = "the single reached #3 and tickets cost # 5"
    r = restore_pound(claim, source)
    assert r.text == claim and r.changes == ()


def test_a_hashtag_or_a_word_is_not_a_figure() -> None:
    claim = "fans tweeted #RubberDub and the C# course costs # 40"
    assert (
        restore_pound(claim, PRICED).text == "fans tweeted #RubberDub and the C# course costs £40"
    )


def test_the_models_read_the_restored_sign_and_the_editor_is_told() -> None:
    r = read_against("The guide price is between # 200,000 and # 250,000.", PRICED)
    assert r.text == "The guide price is between £200,000 and £250,000."
    assert ("# 200,000", "£200,000") in r.changes
