"""Arc words followed into a rewritten text (figures read as the source states them)."""

from __future__ import annotations

from models.rewrite_spans import span_map


def _span(text: str, word: str) -> tuple[int, int]:
    start = text.index(word)
    return start, start + len(word)


def test_kept_words_move_with_the_text_around_them() -> None:
    old, new = "A crowd of about 6,400 watched Rovers win.", "A crowd of 6,412 watched Rovers win."
    carry = span_map(old, new)
    for word in ("crowd", "watched", "Rovers", "win"):
        got = carry(_span(old, word))
        assert got is not None and new[got[0] : got[1]] == word
    assert carry(_span(old, "A")) == (0, 1)


def test_a_word_of_a_rewritten_stretch_points_at_its_replacement() -> None:
    old = "Seven in ten union members backed the deal."
    new = "71 percent of union members backed the deal."
    carry = span_map(old, new)
    # three words for three: one for one
    for word, now in (("Seven", "71"), ("in", "percent"), ("ten", "of")):
        got = carry(_span(old, word))
        assert got is not None and new[got[0] : got[1]] == now
    old, new = "It cost about 6,400 pounds.", "It cost 6,412 pounds."
    carry = span_map(old, new)
    for word in ("about", "6,400"):  # two words for one: the whole replacement
        got = carry(_span(old, word))
        assert got is not None and new[got[0] : got[1]] == "6,412"


def test_a_dropped_word_is_not_found_and_a_part_of_a_kept_word_keeps_its_place() -> None:
    old = "The user base grew by more than a third over the year, to over two million."
    new = "The user base grew over the year, to 2.3 million."
    carry = span_map(old, new)
    assert carry(_span(old, "third")) is None and carry(_span(old, "by")) is None
    got = carry(_span(old, "year"))
    assert got is not None and new[got[0] : got[1]] == "year"
    old = "Holloway has about two and a half times as many children as St Bride's."
    new = "Holloway has more children than St Bride's."
    carry = span_map(old, new)
    got = carry(_span(old, "half"))  # inside the stretch "more" replaces
    assert got is not None and new[got[0] : got[1]] == "more"
    got = carry(_span(old, "Bride"))  # spaCy's token inside the word "Bride's"
    assert got is not None and new[got[0] : got[1]] == "Bride"
    got = carry(_span(old, "'s"))
    assert got is not None and new[got[0] : got[1]] == "'s"
