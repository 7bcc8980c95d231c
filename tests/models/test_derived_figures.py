"""Comparisons that two source figures bear out are read without their number."""

from __future__ import annotations

import pytest

from models.derived_figures import (
    comparative,
    find_comparisons,
    read_against,
    read_figures,
    restate_derived,
)

SOURCE = [
    "The council published its yearly report on the town's schools on Tuesday.",
    "Ashford Primary has 312 pupils and Mill Lane has 120.",
    "Visitor numbers rose to 48,000 this summer, up from 36,500 last year.",
    "Rents in the old town average 1,450 pounds a month, against 1,000 pounds in the suburbs.",
    "The chapel was built around 1180; its tower was added in 1420.",
]


@pytest.mark.parametrize(
    ("claim", "expected", "basis"),
    [
        (
            "Ashford has about two and a half times as many pupils as Mill Lane.",
            "Ashford has more pupils than Mill Lane.",
            "312 against 120",
        ),
        (
            "Visitor numbers grew by almost a third this summer.",
            "Visitor numbers grew this summer.",
            "48,000 against 36,500",
        ),
        (
            "Old-town rents are roughly 45 percent higher than in the suburbs.",
            "Old-town rents are higher than in the suburbs.",
            "1,450 pounds against 1,000 pounds",
        ),
        (
            "The tower is some 240 years younger than the chapel.",
            "The tower is younger than the chapel.",
            "1420 against 1180",
        ),
    ],
)
def test_a_comparison_the_source_figures_bear_out_loses_its_number(claim, expected, basis):
    r = restate_derived(claim, SOURCE)
    assert r.text == expected
    ((said, stated),) = r.compared
    assert said in claim and stated == basis


@pytest.mark.parametrize(
    "claim",
    [
        "Ashford has three times as many pupils as Mill Lane.",  # 2.6, not three
        "Visitor numbers grew by more than half this summer.",  # 32 percent
        "Old-town rents are roughly 45 percent lower than in the suburbs.",  # a fall would be 31 percent
        "The tower is some 300 years younger than the chapel.",
    ],
)
def test_a_comparison_no_pair_of_figures_bears_out_stays_as_written(claim):
    r = restate_derived(claim, SOURCE)
    assert (r.text, r.compared) == (claim, ())


def test_a_comparative_that_gives_the_larger_figure_to_the_wrong_side_stays_as_written():
    # the model reads "more" and "fewer" alike: which side has more is checked here
    for claim in (
        "Mill Lane has about two and a half times as many pupils as Ashford.",
        "Suburban rents are roughly 45 percent higher than old-town rents.",
        "The chapel is some 240 years younger than the tower.",
    ):
        assert restate_derived(claim, SOURCE).compared == (), claim
    # a verb of change is left to the model, which reads "risen" and "fallen" apart
    claim = "Visitor numbers grew by almost a third this summer."
    assert restate_derived(claim, SOURCE).compared != ()


def test_figures_of_different_units_or_far_sentences_are_not_compared():
    # 1,450 pounds against 312 pupils: not the same unit
    claim = "Old-town rents are about 4.6 times higher than the pupil count."
    assert restate_derived(claim, SOURCE).compared == ()
    # the two figures must be among the claim's most relevant sentences
    filler = [f"Item {k} of the agenda was read aloud." for k in range(8)]
    source = ["Ashford Primary has 312 pupils.", *filler, "Mill Lane has 120."]
    relevance = [1.0] + [0.9] * 8 + [0.0]
    claim = "Ashford has about 2.6 times as many pupils as Mill Lane."
    assert restate_derived(claim, source, relevance).compared == ()
    assert restate_derived(claim, source, [1.0] + [0.0] * 8 + [0.9]).compared != ()


def test_of_the_pairs_that_bear_a_comparison_out_the_one_the_claim_speaks_of_is_taken():
    source = [
        "The firm released version 5 of its app.",
        "The app is free for up to three devices.",
        "The firm said it had 2.3 million users in January, up from 1.7 million a year earlier.",
    ]
    # 5 against three is a rise of two thirds too, but the claim speaks of users and the year
    r = restate_derived("The firm's user base grew by more than a third over the year.", source)
    assert r.compared == (("grew by more than a third", "2.3 million against 1.7 million"),)
    # figures whose words the claim shares none of bear nothing out
    r = restate_derived("Its rivals grew by more than a third.", source[:2])
    assert r.compared == ()


def test_percentage_points_are_the_difference_of_two_shares():
    source = ["Unemployment rose to 5.1 percent in March from 4.8 percent in February."]
    r = restate_derived("Unemployment rose by 0.3 percentage points in March.", source)
    assert r.text == "Unemployment rose in March."
    assert r.compared == (("rose by 0.3 percentage points", "5.1 percent against 4.8 percent"),)
    claim = "Unemployment in March was 0.3 percentage points higher than in February."
    assert restate_derived(claim, source).text == (
        "Unemployment in March was higher than in February."
    )
    for claim in (
        "Unemployment rose by 0.5 percentage points in March.",  # 0.3
        "Unemployment in February was 0.3 percentage points higher than in March.",  # the side
    ):
        assert restate_derived(claim, source).compared == (), claim
    stated = ["Unemployment rose 0.3 percentage points to 5.1 percent, from 4.8 percent."]
    claim = "Unemployment rose by 0.3 percentage points."
    assert restate_derived(claim, stated).compared == ()  # the source says it: the model reads it


def test_a_comparison_the_source_states_itself_is_left_to_the_model():
    source = ["Sales doubled to 40,000 from 19,800.", "The site is 1.6 times the size of a pitch."]
    assert restate_derived("Sales doubled.", source).compared == ()
    claim = "The site is about 1.6 times as large as a pitch."
    assert restate_derived(claim, source).compared == ()


def test_dropped_and_replaced_words_keep_the_sentence_well_formed():
    source = ["Cases rose to 57 this year, compared with 9 last year."]
    r = restate_derived("Cases have risen more than sixfold since last year.", source)
    assert r.text == "Cases have risen since last year."
    assert restate_derived("Cases saw a sixfold increase.", source).text == "Cases saw an increase."
    source = ["This year 2,000 people came, against 980 last year."]
    r = restate_derived("Twice as many people came as last year.", source)
    assert r.text == "More people came than last year."
    assert restate_derived("Profits halved.", ["Profits fell to 40 from 81."]).text == (
        "Profits decreased."
    )


def test_the_claim_read_restates_comparisons_then_hedged_figures():
    r = read_figures("Visitor numbers grew by almost a third, to about 48,000.", SOURCE)
    assert r.text == "Visitor numbers grew, to 48,000."
    assert r.compared == (("grew by almost a third", "48,000 against 36,500"),)
    assert r.changes == (("about 48,000", "48,000"),)


def test_comparatives():
    assert [comparative(a) for a in ("wide", "many", "big", "heavy", "popular")] == [
        "wider",
        "more",
        "bigger",
        "heavier",
        "more popular",
    ]
    assert comparative("many", less=True) == "fewer"
    assert find_comparisons("No comparison here, only 40 boats.") == []


def test_a_comparison_that_names_no_other_side_takes_the_sources():
    # the source compares 41 days with 27: the claim's subject has the larger figure
    source = [
        "Treated mice survived an average of 41 days, compared with 27 days for untreated mice."
    ]
    r = restate_derived("Mice given TR-9 lived roughly 50 percent longer on average.", source)
    assert r.text == "Mice given TR-9 lived longer on average."
    assert r.compared == (("roughly 50 percent longer", "41 days against 27 days"),)
    # the wrong direction, or the source's words for the other side, leave it as written
    for claim in (
        "Mice given TR-9 lived roughly a third shorter on average.",
        "Untreated mice lived roughly 50 percent longer on average.",
    ):
        assert restate_derived(claim, source).compared == (), claim


def test_a_year_names_a_side_of_a_comparison():
    source = [
        "Insurers estimated the damage at 18 million pounds.",
        "The 2019 flood had cost 11 million pounds.",
    ]
    claim = "Insurers put the bill for the November flood around 60 percent higher than for 2019."
    r = restate_derived(claim, source)
    assert r.text == "Insurers put the bill for the November flood higher than for 2019."
    swapped = "Insurers put the bill for the 2019 flood around 60 percent higher than for November."
    assert restate_derived(swapped, source).compared == ()


def test_a_claim_is_restated_from_the_evidence_it_is_read_against_first():
    # sentences that share more of the claim's words but state no figure outrank the two that
    # bear the comparison out; the evidence window the model reads holds those two
    filler = ["Pupils from Ashford and Mill Lane sang together at the spring concert."] * 6
    source = ["Ashford Primary has 312 pupils.", *filler, "Mill Lane has 120."]
    claim = "Ashford has about 2.6 times as many pupils as Mill Lane."
    assert read_against(claim, source).compared == ()
    read = read_against(claim, source, window=(0, 7))
    assert read.text == "Ashford has more pupils than Mill Lane."
    assert read.compared == (("about 2.6 times as many pupils as", "312 against 120"),)
