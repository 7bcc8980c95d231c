"""Ages given as a decade of life read as the age the source states (models.ages)."""

from __future__ import annotations

from models.ages import restate_ages, stated_ages
from models.derived_figures import read_against

SOURCE = [
    "Police in Kettering Vale arrested a 34-year-old man on Sunday after a break-in.",
    "The shop's owner, Miriam Harlow, 52, disturbed the intruder and called the police.",
    "Two neighbours, aged 22 and 27, saw the man run towards the canal.",
]


def _read(claim: str) -> str:
    return read_against(claim, SOURCE).text


def test_a_decade_of_life_becomes_the_age_the_source_states() -> None:
    assert _read("Police arrested a man in his thirties after a break-in.") == (
        "Police arrested a man aged 34 after a break-in."
    )
    assert _read("Police arrested a man in his mid-30s after a break-in.") == (
        "Police arrested a man aged 34 after a break-in."
    )
    assert _read("The shop's owner, in her fifties, disturbed the intruder.") == (
        "The shop's owner, aged 52, disturbed the intruder."
    )
    r = read_against("Police arrested a man in his 30s.", SOURCE)
    assert r.changes == (("in his 30s", "aged 34"),)


def test_a_decade_no_age_falls_in_or_that_holds_two_ages_is_left_as_written() -> None:
    for claim in (
        "Police arrested a man in his early thirties after a break-in.",  # 34 is not early
        "Police arrested a man in his forties after a break-in.",
        "Two neighbours in their twenties saw the man run.",  # 22 and 27: no one age
    ):
        assert _read(claim) == claim
    # a sentence that shares no term with the claim is about someone else
    assert restate_ages("A teacher in his thirties won.", SOURCE, [0.0, 0.0, 0.0]).text == (
        "A teacher in his thirties won."
    )


def test_ages_are_read_where_the_source_writes_them() -> None:
    assert stated_ages("a thirty-four-year-old man") == {34}
    assert stated_ages("He is 45 years old.") == {45}
    assert stated_ages("Edna Price, 78, said.") == {78}
    assert stated_ages("kaitlyn granado , 24 , was arrested") == {24}
    assert stated_ages("Harlow (52) said") == {52}
    assert stated_ages("at age 34.") == {34}
    # not ages: a figure after a year, a decimal, a plain count
    assert stated_ages("In 2014, 34, people came.") == set()
    assert stated_ages("The child, aged 3.5 years, slept.") == set()
    assert stated_ages("The shop sold 34 rings.") == set()
