"""Decades and centuries read as the year the source states (models.periods)."""

from __future__ import annotations

from models.derived_figures import read_against
from models.periods import restate_periods

SOURCE = [
    "Holmsby is a riverside market town.",
    "It received its market charter in 1287.",
    "The wool mill opened in 1996 and closed in 2004.",
    "Sales reached 1,995 units, or 1995.5 tonnes.",
]


def _read(claim: str) -> str:
    return read_against(claim, SOURCE).text


def test_a_period_after_a_preposition_becomes_the_year_the_source_states() -> None:
    assert _read("Holmsby got its market charter in the thirteenth century.") == (
        "Holmsby got its market charter in 1287."
    )
    assert _read("Holmsby got its market charter in the 13th century.") == (
        "Holmsby got its market charter in 1287."
    )
    assert _read("The wool mill opened in the 1990s.") == "The wool mill opened in 1996."
    # the year's event is the model's to judge: a wrong one is read as a wrong year
    assert _read("The wool mill closed in the late 1990s.") == "The wool mill closed in 1996."
    r = read_against("The wool mill opened in the 1990s.", SOURCE)
    assert r.changes == (("the 1990s", "1996"),)


def test_a_period_no_year_falls_in_or_that_names_a_style_is_left_as_written() -> None:
    for claim in (
        "The wool mill opened in the early 1990s.",  # 1996 is not early
        "Holmsby got its charter in the twelfth century.",
        "A 13th-century chapel stands in Holmsby.",  # no preposition of time: a style
        "Sales were strong in the 1990s.",  # "1,995" and "1995.5" are not years; the mill
        # sentence shares no term with the claim
    ):
        assert _read(claim) == claim


def test_two_years_in_the_period_leave_it_as_written() -> None:
    source = ["The bridge was begun in 1994 and finished in 1998."]
    claim = "The bridge was finished in the 1990s."
    assert restate_periods(claim, source).text == claim
    # a decade the source writes as a decade is not a year
    assert restate_periods(claim, ["The bridge was finished in the 1990s."]).text == claim
