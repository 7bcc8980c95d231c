"""A lower-cased output read with its source's capitals (for names); its text stays as written."""

from __future__ import annotations

from models.casing import cased_like, source_forms

SOURCE = (
    "Kaitlyn Granado, 24, teaches maths at MacArthur High School in Irving. The school said "
    "she was suspended. Police in Irving said the teacher was arrested on Monday."
)


def test_words_take_the_form_the_source_writes_them_in() -> None:
    out = "kaitlyn granado , 24 , teaches maths at macarthur high school . the school said i knew"
    assert cased_like(out, SOURCE) == (
        "Kaitlyn Granado , 24 , teaches maths at MacArthur High School . The school said I knew"
    )


def test_a_capital_at_a_sentence_start_says_nothing_about_the_word() -> None:
    # "The" and "Police" start sentences in the source: as words they are not capitalised
    assert source_forms(SOURCE)["the"] == "the"
    assert "police" not in source_forms(SOURCE)
    assert cased_like("she met the police in irving", SOURCE) == "She met the police in Irving"


def test_only_case_changes() -> None:
    out = "granado's class met on monday.\nthe school said no"
    cased = cased_like(out, SOURCE)
    assert cased is not None and len(cased) == len(out) and cased.lower() == out.lower()
    # a form of another length is not taken (the text's offsets must hold)
    assert cased_like("strasse", "He lived on the STRAßE.") == "Strasse"


def test_an_output_with_capitals_or_a_source_without_is_read_as_written() -> None:
    assert cased_like("Kaitlyn teaches maths", SOURCE) is None
    assert cased_like("kaitlyn teaches maths", SOURCE.lower()) is None
