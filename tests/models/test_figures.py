"""Figures, hedges and restating a hedged figure as the source states it."""

from __future__ import annotations

import pytest

from models.figures import find_figures, holds, number_value, place, restate_figures

SOURCE = [
    "A crowd of 6,412 watched Rovers beat Aldgate 3-1 on Saturday.",
    "Velmora employs 3,870 people at nine sites and its revenue rose 9 percent to 412 million "
    "pounds.",
    "In the ballot, 71 percent of union members backed the deal, which ended the walkout in 2009.",
    "The planet is roughly 1.6 times the size of Earth and circles its star every 18 days.",
]


def one(text: str):
    (figure,) = find_figures(text)
    return figure


@pytest.mark.parametrize(
    ("text", "value", "kind", "hedge"),
    [
        ("about 6,400", 6400, "count", "near"),
        ("just over four million", 4e6, "count", "above"),
        ("nearly 3,900", 3900, "count", "below"),
        ("more than a thousand", 1000, "count", "up"),
        ("fewer than 40", 40, "count", "down"),
        ("seven in ten", 70, "share", "near"),
        ("two out of five", 40, "share", "near"),
        ("nearly half", 50, "share", "below"),
        ("three quarters", 75, "share", "near"),
        ("71 percent", 71, "share", None),
        ("4.2m", 4.2e6, "count", None),
        ("forty-three", 43, "count", None),
        ("one and a half", 1.5, "count", None),
        ("just over two and three quarters", 2.75, "count", "above"),
    ],
)
def test_a_figure_is_read_with_its_value_kind_and_hedge(text, value, kind, hedge):
    f = one(f"They said {text} yesterday.")
    assert (f.value, f.kind, f.hedge) == (pytest.approx(value), kind, hedge)
    assert f.text == text


def test_years_and_lone_articles_are_not_figures():
    assert find_figures("She died in 1949 after a long life.") == []
    assert [f.value for f in find_figures("It took a year and cost 1,949 pounds.")] == [1949]
    # a hedged article before a unit is one of that unit; elsewhere it stays an article
    (f,) = find_figures("It took more than a year.")
    assert (f.value, f.hedge, f.text) == (1, "up", "more than a")
    assert find_figures("It was more than a hill.") == []
    # "over" and "under" before an article are mostly where and when: "over a year period"
    assert find_figures("It happened over a year period, under a week's notice.") == []


def test_a_share_may_name_what_it_counts():
    f = one("Roughly one bud in seven was lost.")
    assert (f.kind, f.value, f.hedge, f.counted) == (
        "share",
        pytest.approx(100 / 7),
        "near",
        "buds",
    )
    assert one("One adult in every five said so.").value == 20
    assert one("Three patients in ten.").counted == "patients"
    # a noun after the whole makes it a rate or two counts, not a share
    assert [f.kind for f in find_figures("They scored two goals in ten minutes.")] == ["count"] * 2
    assert [f.value for f in find_figures("One death in 4,000 births.")] == [1, 4000]


def test_a_figure_hyphened_to_its_unit_is_read():
    assert [f.value for f in find_figures("A nine-day strike, a 27-metre tower.")] == [9, 27]
    assert find_figures("A one-off 3-2 win by a 26-year-old.") == []


def test_place_is_the_last_significant_digit():
    assert (place(6400), place(13962), place(4.2), place(4e6)) == (100, 1, 0.1, 1e6)
    assert number_value(["4.2", "million"]) == 4.2e6


def test_a_figure_run_together_with_its_scale_or_a_dateline_has_its_value():
    """Source texts write "42.5million" and "(CNN)Two passengers"; the value is the same as
    "42.5 million" and "two" (a metre is not a million: "100m" stays unread)."""
    assert number_value(["42.5million"]) == number_value(["42.5", "million"]) == 42.5e6
    assert number_value(["3bn"]) == 3e9
    assert number_value(["CNN)Two"]) == 2
    assert number_value(["6(3"]) == 6  # a set's score run into its tie-break
    assert number_value(["100m"]) is None and number_value(["3-2"]) is None


@pytest.mark.parametrize(
    ("said", "stated", "ok"),
    [
        ("about 6,400", "6,412", True),
        ("about 6,400", "6,520", False),  # one unit of the last digit, no more
        ("some 270", "230", False),
        ("nearly 3,900", "3,870", True),
        ("nearly 3,900", "3,910", False),  # "nearly" is not above
        ("just over 410 million", "412 million", True),
        ("just over 410 million", "405 million", False),
        ("more than 40", "43", True),
        ("more than 40", "2 million", False),  # a bound is not said of a far figure
        ("fewer than 40", "43", False),
        ("seven in ten", "71 percent", True),
        ("seven in ten", "71", False),  # a share is not a count
        ("about 14,000", "about 13,962", True),  # the source's own hedge reads as its value
    ],
)
def test_a_hedge_holds_only_within_its_words(said, stated, ok):
    assert holds(one(f"x {said} y"), one(f"x {stated} y")) is ok


def test_a_hedged_figure_is_restated_as_the_source_states_it():
    r = restate_figures("A crowd of about 6,400 saw the win.", SOURCE)
    assert r.text == "A crowd of 6,412 saw the win."
    assert r.changes == (("about 6,400", "6,412"),)
    r = restate_figures(
        "Velmora, with nearly 3,900 staff, lifted revenue by almost a tenth, to just over 410 "
        "million pounds.",
        SOURCE,
    )
    assert (
        r.text == "Velmora, with 3,870 staff, lifted revenue by 9 percent, to 412 million pounds."
    )


def test_a_share_in_words_becomes_the_source_percentage_with_of_before_a_noun():
    r = restate_figures("Seven in ten union members backed the deal.", SOURCE)
    assert r.text == "71 percent of union members backed the deal."
    r = restate_figures("Seven in ten backed the deal.", SOURCE)
    assert r.text == "71 percent backed the deal."
    # the noun it counts goes after "of", in the plural
    r = restate_figures(
        "Roughly one member in seven stayed away.", ["About 15 percent stayed away."]
    )
    assert r.text == "About 15 percent of members stayed away."


def test_a_whole_number_and_a_part_is_one_figure():
    # read as "one" and the share "a half" before, neither of them the claim's figure
    r = restate_figures("The planet is a little over one and a half times as wide as ours.", SOURCE)
    assert r.text == "The planet is roughly 1.6 times as wide as ours."


def test_a_dozen_is_twelve_rounded():
    f = one("They made a dozen arrests.")
    assert (f.value, f.hedge) == (12, "near")
    assert one("They made two dozen arrests.").value == 24
    assert restate_figures("They made a dozen arrests.", ["They made 13 arrests."]).text == (
        "They made 13 arrests."
    )
    assert restate_figures("They made a dozen arrests.", ["They made 14 arrests."]).text == (
        "They made a dozen arrests."
    )


def test_a_duration_is_read_across_units_of_time():
    r = restate_figures("It goes around its star in under three weeks.", SOURCE)
    assert r.text == "It goes around its star in 18 days."
    assert r.changes == (("under three weeks", "18 days"),)
    source = ["Dock workers ended a nine-day strike on Friday.", "The refit took 14 months."]
    assert restate_figures("A stoppage of more than a week ended.", source).text == (
        "A stoppage of nine days ended."
    )
    assert restate_figures("The refit took more than a year.", source).text == (
        "The refit took 14 months."
    )
    # a duration the source's does not bear out stays as written
    assert restate_figures("The refit took over two years.", source).text == (
        "The refit took over two years."
    )


def test_exact_figures_and_unsatisfied_hedges_are_left_for_the_model():
    for claim in (
        "A crowd of 6,400 saw the win.",  # exact: a wrong figure stays wrong
        "A crowd of about 9,000 saw the win.",  # no source figure near it
        "Velmora's revenue rose more than 20 percent.",  # 9 percent is not more than 20
        "The planet circles its star in under two weeks.",  # 18 days; "1.6 times" is not weeks
    ):
        assert restate_figures(claim, SOURCE).text == claim


def test_over_or_under_the_source_figure_itself_is_a_preposition_not_a_bound():
    source = ["She married 10 men over the course of 11 years.", "The water reached 212 homes."]
    # "over 11 years" of "11 years" means during them: the word stays, nothing is restated
    for claim in ("She married 10 men over 11 years.", "The water reached over 212 homes."):
        assert restate_figures(claim, source).text == claim
    # a bound the source figure passes is still read as the source states it
    assert restate_figures("The water reached over 200 homes.", source).text == (
        "The water reached 212 homes."
    )


def test_the_most_relevant_source_sentence_gives_the_figure():
    source = ["The first ship carried 43 crates.", "The second ship carried 44 crates."]
    assert restate_figures("More than 40 crates came.", source, [0.2, 0.9]).text == (
        "44 crates came."
    )
    assert restate_figures("More than 40 crates came.", source, [0.9, 0.2]).text == (
        "43 crates came."
    )


def test_a_bound_is_left_as_written_when_the_source_sentence_has_a_figure_as_near_it_breaks():
    """ "Up to 65 km" holds for 45 km as a bound, but the sentence's 85 km is as near and breaks
    it: the claim may well mean the 85 (a changed figure), so it is not read as 45."""
    source = [
        "The battery gives up to 85 km on the lowest setting, or around 45 km on the highest."
    ]
    claim = "The bike offers up to 65 km of range on its lowest setting."
    assert restate_figures(claim, source).text == claim
    # a breaking figure farther off than the one that holds: read as the source states it
    source = ["Of the fleet, 43 ships were sent to Brenholt and 12 stayed in port."]
    assert restate_figures("More than 40 vessels went to Brenholt.", source).text == (
        "43 vessels went to Brenholt."
    )


def test_capitals_follow_the_replaced_words():
    source = ["More than 2,100 residents signed the petition."]
    r = restate_figures("After over 2,100 locals signed, the council gave way.", source)
    assert r.text == "After more than 2,100 locals signed, the council gave way."
    r = restate_figures("About 2,100 locals signed.", ["Exactly 2,104 residents signed."])
    assert r.text == "2,104 locals signed."
