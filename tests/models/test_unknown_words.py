"""A placeholder for a word the summariser could not write, and what the source has there."""

from __future__ import annotations

from models.unknown_words import Placeholder, is_placeholder, placeholder_note, placeholders

SOURCE = [
    "The two boxers have revealed a dozen oddities about themselves before the fight.",
    "Actor Robert Hardy is selling a diorama of the Battle of Waterloo.",
    "The country is due to repay a £330million loan on Thursday.",
]


def test_the_source_words_between_the_same_neighbours_are_named() -> None:
    got = placeholders("the two boxers have revealed a dozen UNK about themselves .", SOURCE)
    assert got == (Placeholder("UNK", "oddities"),)
    # one per placeholder, the sentence end counting as a neighbour; a figure's sign inside
    assert placeholders("he is selling a UNK of the battle of UNK .", SOURCE) == (
        Placeholder("UNK", "diorama"),
        Placeholder("UNK", "Waterloo"),
    )
    assert placeholders("greece is due to repay a UNK loan .", SOURCE) == (
        Placeholder("UNK", "£330million"),
    )


def test_the_written_forms_of_a_placeholder() -> None:
    for mark in ("UNK", "[UNK]", "<unk>", "<UNK>", "unk"):
        (got,) = placeholders(f"a dozen {mark} about themselves", SOURCE)
        assert got == Placeholder(mark, "oddities")
    # a run of them is one gap; words that merely contain the letters are no placeholder
    assert placeholders("a dozen UNK UNK about themselves", SOURCE) == (
        Placeholder("UNK UNK", "oddities"),
    )
    assert placeholders("UNKNOWN sources said the FUNK band played a chunk", SOURCE) == ()
    # one word as a parser splits "[UNK]" and "<unk>"
    assert is_placeholder("UNK") and is_placeholder("unk") and is_placeholder("[UNK]")
    assert not is_placeholder("Unknown") and not is_placeholder("<")
    assert placeholders("nothing missing here", SOURCE) == ()


def test_no_source_words_are_named_without_neighbours_to_go_by() -> None:
    # neighbours the source does not share
    assert placeholders("the minister UNK the plan", SOURCE) == (Placeholder("UNK", None),)
    # one neighbour agrees on one side only: not enough
    assert placeholders("a dozen UNK cats", SOURCE) == (Placeholder("UNK", None),)
    # two passages agree as well and give different words
    two = ["Police arrested a man on Friday.", "Police questioned a woman on Friday."]
    assert placeholders("Police UNK a man", two)[0].source == "arrested"
    assert placeholders("Police UNK a UNK on Friday", two)[1].source is None
    # a sentence mark never stands inside the gap
    assert placeholders("It UNK then it stopped", ["It rained; then it stopped."]) == (
        Placeholder("UNK", None),
    )
    assert placeholders("It UNK; then it stopped", ["It rained; then it stopped."]) == (
        Placeholder("UNK", "rained"),
    )


def test_the_note_names_each_placeholder() -> None:
    assert placeholder_note(()) == ""
    assert placeholder_note([Placeholder("UNK", "oddities")]) == (
        "a placeholder for a word its writer lacked, read as written: "
        "“UNK” where the source has “oddities”"
    )
    assert placeholder_note([Placeholder("UNK", "diorama"), Placeholder("[UNK]", None)]) == (
        "placeholders for words its writer lacked, read as written: "
        "“UNK” where the source has “diorama”, “[UNK]”"
    )
