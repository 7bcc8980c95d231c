"""Sentences: a line break the writer ended a sentence at ends one, a hard-wrapped text reads on,
and the sentences a project stored are kept."""

from __future__ import annotations

from models.parsing import hard_wrapped, parse_many


def texts(text: str, starts: list[int] | None = None) -> list[str]:
    return [s.text for s in parse_many([text], starts=[starts])[0].sentences]


def test_a_paragraph_that_ends_in_a_quote_is_not_joined_to_the_next() -> None:
    text = 'Cole said: "People have waited long enough."\n\nEngineer Paul Lind said it would last.'
    assert texts(text) == [
        'Cole said: "People have waited long enough."',
        "Engineer Paul Lind said it would last.",
    ]


def test_a_line_break_after_a_full_stop_or_before_a_capital_ends_a_sentence() -> None:
    assert texts("the council met on monday .\nit voted to close the pool") == [
        "the council met on monday .",
        "it voted to close the pool",
    ]
    assert texts("Pool to close after 90 years\nThe council voted on Monday to close it.") == [
        "Pool to close after 90 years",
        "The council voted on Monday to close it.",
    ]


def test_each_list_item_is_a_sentence_with_its_mark() -> None:
    text = "Key facts:\n- The bridge opened on Monday\n- It cost 6.2 million dollars"
    assert texts(text) == [
        "Key facts:",
        "- The bridge opened on Monday",
        "- It cost 6.2 million dollars",
    ]
    assert texts("1. Vote on the plan\n2. Set a date") == ["1. Vote on the plan", "2. Set a date"]
    assert texts("(a) one site\n(b) two sites") == ["(a) one site", "(b) two sites"]


def test_items_marked_in_lower_case_are_sentences_with_their_marks() -> None:
    # the parser alone gave "Summary:\na)", "The museum closes … renovation\nb)", "Events …"
    text = "Summary:\na) The museum closes for renovation\nb) events move to the library"
    assert texts(text) == [
        "Summary:",
        "a) The museum closes for renovation",
        "b) events move to the library",
    ]
    assert texts("Steps:\n(i) mix it\n(ii) bake it\niii. serve it") == [
        "Steps:",
        "(i) mix it",
        "(ii) bake it",
        "iii. serve it",
    ]
    # a word that merely looks like a mark inside a line is not one
    assert texts("He said a) nothing of it.") == ["He said a) nothing of it."]


def test_a_line_broken_inside_a_sentence_is_read_on() -> None:
    assert texts("The mayor, who has\nserved since 2019, resigned on Friday.") == [
        "The mayor, who has\nserved since 2019, resigned on Friday."
    ]


WRAPPED = (
    "The committee met on Monday to discuss the plans for the new\n"
    "library, which would replace the building that has stood on\n"
    "Mill Street since 1931. Members agreed to ask the council for\n"
    "a further study of the costs before deciding."
)


def test_a_hard_wrapped_text_reads_across_its_line_breaks() -> None:
    assert hard_wrapped(WRAPPED)
    assert [t.replace("\n", " ") for t in texts(WRAPPED)] == texts(WRAPPED.replace("\n", " "))
    assert len(texts(WRAPPED)) == 2
    # a blank line still ends a paragraph there
    assert len(texts(WRAPPED + "\n\nA second paragraph follows here.")) == 3


def test_lines_of_free_length_are_not_hard_wrapped() -> None:
    assert not hard_wrapped("Flood\nThe river rose.\nHomes were hit.\nNo one was hurt.")
    assert not hard_wrapped("A short headline\nThe story below it runs on for a while, longer.")
    assert not hard_wrapped("One line only.")


def test_given_sentence_starts_are_kept_whatever_the_parser_would_cut() -> None:
    text = "Pool to close\nThe council voted on Monday. It opened in 1931."
    assert texts(text) == ["Pool to close", "The council voted on Monday.", "It opened in 1931."]
    # stored when the text was cut without its line break: two sentences
    assert texts(text, [0, text.index("It opened")]) == [
        "Pool to close\nThe council voted on Monday.",
        "It opened in 1931.",
    ]
    # and a cut the parser would not make at all
    assert texts(text, [0, text.index("on Monday")]) == [
        "Pool to close\nThe council voted",
        "on Monday. It opened in 1931.",
    ]


def test_a_figure_with_an_abbreviated_scale_ends_its_sentence() -> None:
    # spaCy's tokenizer kept the full stop in "$40M." as in an abbreviation: one sentence
    text = "It raised $40M. The round was led by Acme. The plant cost £40m. It opens in May."
    assert texts(text) == [
        "It raised $40M.",
        "The round was led by Acme.",
        "The plant cost £40m.",
        "It opens in May.",
    ]
    # the figure is a token of its own, the stop another
    (doc,) = parse_many(["Revenue rose to $4.2B. Profit fell."])
    assert [t.text for t in doc.sentences[0].tokens] == ["Revenue", "rose", "to", "$", "4.2B", "."]
    # before a lower-case word the stop may be an abbreviation's: left as it is
    assert texts("The plant cost £40m. it said.") == ["The plant cost £40m. it said."]


def test_a_closing_bracket_glued_to_the_next_word_is_split_off() -> None:
    # a news agency's dateline: spaCy's tokenizer kept "CNN)Eight" as one word, and the parser
    # read it as a compound of "guards", so the figure had no arc of its own
    (parsed,) = parse_many(["(CNN)Eight border guards were killed on Monday."])
    (sentence,) = parsed.sentences
    assert [t.text for t in sentence.tokens][:5] == ["(", "CNN", ")", "Eight", "border"]
    assert ("guards", "Eight") in {(a.head_text, a.child_text) for a in sentence.arcs}
    assert sentence.text == "(CNN)Eight border guards were killed on Monday."
    (parsed,) = parse_many(["He (the mayor)said so. f(x)is small."])
    assert [t.text for t in parsed.sentences[0].tokens][3:6] == ["mayor", ")", "said"]
    # a word that opens its own bracket is left whole
    assert "f(x)is" in [t.text for s in parsed.sentences for t in s.tokens]


def test_a_bound_prefix_stays_with_its_word() -> None:
    from models.claim_split import split_claims

    (parsed,) = parse_many(["The council re-opened the library on Monday."])
    (sentence,) = parsed.sentences
    verb = next(t for t in sentence.tokens if t.dep == "ROOT")
    assert (verb.text, verb.lemma, verb.pos) == ("re-opened", "re-open", "VERB")
    assert {(a.head_text, a.child_text) for a in sentence.arcs} >= {
        ("re-opened", "council"),
        ("re-opened", "library"),
    }
    # the parser read "re" as the verb and "opened" as a second one, a claim of its own
    assert [c.text for c in split_claims(sentence, "")] == [sentence.text]


def test_only_a_prefix_at_the_start_of_a_word_is_joined() -> None:
    (parsed,) = parse_many(["A well-known pre-war ex-co-pilot said so."])
    words = [t.text for t in parsed.sentences[0].tokens]
    assert "pre-war" in words and "ex-co" in words
    assert "well" in words  # "well" is a word of its own: spaCy's cut stands


def test_the_lines_of_a_text_without_capitals_are_its_sentences() -> None:
    # a lower-cased summary, one unstopped highlight a line: no capital marks the next start
    assert texts(
        "researchers have revealed a dark matter map\n"
        "it shows clumps of particles across 0.4 per cent of the sky\n"
        "the team hopes to map 12.5 per cent,\n"
        "over five years"
    ) == [
        "researchers have revealed a dark matter map",
        "it shows clumps of particles across 0.4 per cent of the sky",
        "the team hopes to map 12.5 per cent,\nover five years",
    ]
    # three short highlights look hard-wrapped by their lengths; without capitals, lines rule
    assert texts(
        "the council re-opened the harbour library on monday\n"
        "it now holds 14,000 books and a new children's room\n"
        "the refurbishment cost 2.4 million pounds"
    ) == [
        "the council re-opened the harbour library on monday",
        "it now holds 14,000 books and a new children's room",
        "the refurbishment cost 2.4 million pounds",
    ]
    # with its capitals, a line that does not end in a stop reads on into a lower-case line
    assert len(texts("The mayor, who has\nserved since 2019, said no.")) == 1
