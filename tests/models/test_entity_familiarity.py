"""Entity mentions, their descriptions and the familiarity rule (models.familiarity)."""

from __future__ import annotations

import pytest

from models.familiarity import (
    Mention,
    entity_key,
    familiarity,
    find_mentions,
    tag_for,
    tag_of,
)


def one(text: str, name: str) -> Mention:
    (mentions,) = find_mentions([text])
    found = [m for m in mentions if m.name == name]
    assert found, [m.name for m in mentions]
    return found[0]


@pytest.mark.parametrize(
    ("text", "name", "description", "labels"),
    [
        (
            "IOC President Thomas Bach said the games will go ahead.",
            "Thomas Bach",
            "IOC President",
            ("compound",),
        ),
        (
            "William Blake, the English poet, died in 1827.",
            "William Blake",
            "the English poet",
            ("appos",),
        ),
        ("The poet, William Blake, wrote it.", "William Blake", "The poet", ("appos",)),
        (
            "Former prime minister Tony Blair met the press.",
            "Tony Blair",
            "Former prime minister",
            ("compound",),
        ),
        ("The late Steve Jobs founded a company.", "Steve Jobs", "late", ("amod",)),
    ],
)
def test_descriptions_of_names(text: str, name: str, description: str, labels: tuple) -> None:
    m = one(text, name)
    assert [d.text for d in m.descriptions] == [description]
    d = m.descriptions[0]
    assert d.labels == labels
    assert text[d.start : d.end] == description
    # every attaching arc has one end on a word of the name, the other on the description
    for _label, head, child in d.attachments:
        ends = {head, child}
        assert any(m.start <= e < m.end for e in ends)
        assert any(d.start <= e < d.end for e in ends)


def test_relative_clause_and_reverse_appositive_point_the_right_way() -> None:
    (mentions,) = find_mentions(["Bach, who leads the IOC, spoke. The poet, William Blake, wrote."])
    bach = next(m for m in mentions if m.key == "bach")
    assert [(d.labels, d.text) for d in bach.descriptions] == [(("relcl",), "who leads the IOC")]
    blake = next(m for m in mentions if m.key == "blake")
    (d,) = blake.descriptions
    label, head, child = d.attachments[0]
    # poet -appos-> Blake: the head is the description's word
    assert label == "appos" and d.start <= head < d.end and blake.start <= child < blake.end


def test_courtesy_titles_are_not_descriptions() -> None:
    m = one("Mr. Smith met the press on Monday.", "Smith")
    assert m.descriptions == ()


def test_entity_keys() -> None:
    assert entity_key("Thomas Bach", "PERSON") == entity_key("Bach", "PERSON") == "bach"
    assert entity_key("Martin Luther King Jr.", "PERSON") == "king"
    assert entity_key("Angela Merkel's", "PERSON") == "merkel"
    assert entity_key("Müller", "PERSON") == entity_key("MULLER", "PERSON")
    assert entity_key("the U.N.", "ORG") == entity_key("UN", "ORG") == "un"
    assert entity_key("...", "ORG") == ""


def mention(key: str, described: bool) -> Mention:
    from models.familiarity import Description

    descs = (Description(("compound",), "x", 0, 1, (("compound", 2, 0),), ((0, 1),)),)
    return Mention(key.title(), "PERSON", key, 2, 5, descs if described else ())


def test_first_mention_per_document_decides() -> None:
    docs = [
        # bach introduced with a description, later bare: counts as described once
        [mention("bach", True), mention("bach", False), mention("merkel", False)],
        [mention("bach", True), mention("merkel", False), mention("merkel", True)],
        [mention("bach", False), mention("merkel", False)],
    ]
    known = familiarity(docs)
    assert (known["bach"].documents, known["bach"].introduced_described) == (3, 2)
    assert known["bach"].tag == "unfamiliar"
    assert (known["merkel"].documents, known["merkel"].introduced_described) == (3, 0)
    assert known["merkel"].tag == "familiar" and known["merkel"].mentions == 4
    assert tag_of("gates", known) == "unseen"


def test_tag_rule_counts() -> None:
    assert tag_for(0, 0) == "unseen"
    assert tag_for(4, 1) == "familiar"
    assert tag_for(4, 2) == "unfamiliar"  # half introduced with a description
    assert tag_for(1, 1) == "unfamiliar"


def test_known_name_words_join_the_name() -> None:
    from models.familiarity import Description, with_known_name

    text = "striker jeremy clarkson scored"
    # the recogniser took only the surname; "striker jeremy" came out as one pre-modifier
    desc = Description(
        ("compound", "compound"),
        "striker jeremy",
        0,
        14,
        (("compound", 15, 8), ("compound", 8, 0)),
        ((0, 7), (8, 14)),
    )
    m = Mention("clarkson", "PERSON", "clarkson", 15, 23, (desc,))
    fixed = with_known_name(m, frozenset({"jeremy", "clarkson"}))
    assert (fixed.name, fixed.start, fixed.end) == ("jeremy clarkson", 8, 23)
    assert text[fixed.start : fixed.end] == fixed.name
    (d,) = fixed.descriptions
    assert (d.text, d.start, d.end, d.words) == ("striker", 0, 7, ((0, 7),))
    # a description made only of name words is no description
    only = Mention("clarkson", "PERSON", "clarkson", 15, 23, (desc,))
    assert with_known_name(only, frozenset({"striker", "jeremy"})).descriptions == ()
    # words the sources never use in the name stay a description
    assert with_known_name(m, frozenset({"clarkson"})) == m
