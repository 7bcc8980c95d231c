"""Markdown's marks are read as marks: dropped for the models, punctuation for the parser, a
bold label kept with its item, a heading that states nothing not checked."""

from __future__ import annotations

from models.checkers.base import has_content
from models.markdown import emphasised_whole, lead_end, marks, plain
from models.parsing import parse_many
from models.readable import readable, readable_map


def test_marks_of_headings_and_emphasis() -> None:
    text = "## Summary\n* **Closure:** The museum *will* close, says __Dana Ruiz__."
    assert [text[a:b] for a, b in marks(text)] == ["## ", "**", "**", "*", "*", "__", "__"]
    # emphasis is found in any part of a text; a heading's signs only at a line's start
    assert plain(text) == "## Summary\n* Closure: The museum will close, says Dana Ruiz."
    text = "# Summary\nText\n# blessed"
    assert [text[a:b] for a, b in marks(text)] == ["# "]


def test_stars_and_hashes_that_are_not_markdown_are_kept() -> None:
    for text in (
        "a f***ing disgrace, a piece of s *** and n ***** party",  # censored words
        "5 * 3 * 2 is 30, and 2*3*4 is 24",  # arithmetic
        "# 200,000 was paid for it",  # CNN/DailyMail's "#" for a pound sign
        "Rated #1 in 2019; a snake_case_name",
        "a line that ends in a star*\nand one that starts *with it",  # not on one line
    ):
        assert marks(text) == [] and plain(text) == text, text
    # Markdown reads "__init__" as bold "init", and so does this module
    assert plain("__init__") == "init"


def test_bold_lines_and_bold_labels() -> None:
    assert emphasised_whole("**Museum renovation**") and emphasised_whole("- **Key points:**")
    assert emphasised_whole("__Costs__:")
    assert not emphasised_whole("The museum **will** close.")
    text = "Notes\n* **Closure:** The museum closes.\n**Cost**: 5 dollars\nPlain: no label"
    lines = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    ends = [lead_end(text, i) for i in lines]
    assert ends[0] is None and ends[3] is None
    assert lead_end("## Sales rose", 0) == 3
    assert text[ends[1] :].startswith("The museum") and text[ends[2] :].startswith("5 dollars")


def test_the_models_read_text_without_markdown_marks() -> None:
    assert readable("* **Closure:** The museum closes.") == "* Closure: The museum closes."
    written = "It was **Dana Ruiz** who said so ."
    read, at = readable_map(written)
    assert read == "It was Dana Ruiz who said so."
    a = written.index("Dana Ruiz")
    assert read[at[a] : at[a + len("Dana Ruiz")]] == "Dana Ruiz"


def test_the_parse_reads_marks_as_punctuation_and_keeps_labels_with_items() -> None:
    text = (
        "## Summary\n\n* **Closure:** The museum closes in March.\n"
        "* **Education:** Events move to the library, says **Dana Ruiz**."
    )
    (doc,) = parse_many([text])
    assert [s.text for s in doc.sentences] == [
        "## Summary",
        "* **Closure:** The museum closes in March.",
        "* **Education:** Events move to the library, says **Dana Ruiz**.",
    ]
    # the parser alone gave "##" content arcs and cut each label off as a sentence
    assert not doc.sentences[0].arcs and not has_content(doc.sentences[0])
    for s in doc.sentences[1:]:
        assert has_content(s)
        assert not {a.head_text for a in s.arcs} & {"*", "**", "#", "##"}
        assert not {a.child_text for a in s.arcs} & {"*", "**", "#", "##"}


def test_a_heading_is_not_checked_unless_it_says_something() -> None:
    (doc,) = parse_many(["## Key findings\n## Sales rose in May\nText.\n# blessed day"])
    findings, sales, _, hashtag = doc.sentences
    assert findings.arcs and not has_content(findings)  # "Key -> findings": no claim
    assert has_content(sales)
    assert has_content(hashtag)  # a tokenized hashtag, not a heading: read as written


def test_a_bold_heading_with_no_verb_is_not_checked_and_one_with_a_verb_is() -> None:
    (doc,) = parse_many(["**Museum renovation**\n**The museum closes in March.** Then June."])
    # the closing stars end their sentence (the parser alone made "**" a sentence)
    title, claim, then = doc.sentences
    assert claim.text == "**The museum closes in March.**"
    assert title.arcs and not has_content(title)  # "Museum -> renovation": words, no claim
    assert has_content(claim)


def test_a_link_reads_as_its_words() -> None:
    text = 'Read [the annual report](https://x.org/a_b.pdf "Report") before [March](#m).'
    assert plain(text) == "Read the annual report before March."
    assert readable(text) == "Read the annual report before March."
    (doc,) = parse_many([text])
    (sentence,) = doc.sentences
    assert sentence.text == text  # stored and shown as written
    # the parser alone read "report](https://x.org" as one word
    assert ("amod", "report", "annual") in {
        (a.label, a.head_text, a.child_text) for a in sentence.arcs
    }
    assert all("(" not in a.head_text + a.child_text for a in sentence.arcs)
    # brackets that are not a link are words' company as before
    assert plain("[sic] and (see above)") == "[sic] and (see above)"


TABLE = (
    "Results:\n\n| Measure | Q3 result |\n|---|:---:|\n| Revenue | $4.2 billion |\n"
    "| Cloud sales | up 13 percent |\n\nThe quarter was strong."
)


def test_a_table_row_is_a_sentence_and_its_header_is_not_checked() -> None:
    (doc,) = parse_many([TABLE])
    # the parser alone joined the header, its rule and a row, and cut rows at their cells
    assert [s.text for s in doc.sentences] == [
        "Results:",
        "| Measure | Q3 result |\n|---|:---:|",
        "| Revenue | $4.2 billion |",
        "| Cloud sales | up 13 percent |",
        "The quarter was strong.",
    ]
    header, revenue, cloud = doc.sentences[1:4]
    assert not has_content(header)  # it names the columns: "result" read as a verb or not
    assert has_content(revenue) and has_content(cloud)
    for s in doc.sentences:
        assert all("|" not in a.head_text + a.child_text for a in s.arcs)


def test_the_question_check_asks_nothing_of_a_header() -> None:
    from models.checkers.base import LEAD_IN, PairInput
    from models.checkers.questions import QuestionChecker
    from models.parsing import parse

    source = parse("ACME Corp reported revenue of $4.2 billion. Cloud sales rose 31 percent.")
    (result,) = QuestionChecker().score([PairInput("t", source, parse(TABLE))])
    scores = {s.sentence: s for s in result.sentences}
    assert scores[1].score is None and scores[1].not_checked == LEAD_IN
    assert scores[3].score == 0.0  # 13 percent where the source says 31


def test_citation_marks_are_read_as_marks_and_a_footnote_is_not_checked() -> None:
    text = (
        "Revenue rose 12 percent to $4.2 billion [1]. Cloud sales grew 31 percent [1][2]. "
        "It grew 31%.[^1] See [sic] and [2-4].\n\n[^1]: Company filing."
    )
    assert readable(text).startswith(
        "Revenue rose 12 percent to $4.2 billion. Cloud sales grew 31 percent. It grew 31%."
    )
    assert "[sic]" in readable(text)  # not a citation
    (doc,) = parse_many([text])
    texts = [s.text for s in doc.sentences]
    assert texts[1] == "Cloud sales grew 31 percent [1][2]." and texts[2] == "It grew 31%."
    # the parser alone read "1][2" and "31%.[^1" as words
    words = {w for s in doc.sentences for a in s.arcs for w in (a.head_text, a.child_text)}
    assert not {w for w in words if "[" in w or "]" in w}
    footnote = doc.sentences[-1]
    assert footnote.text == "[^1]: Company filing." and not has_content(footnote)


def test_the_question_check_asks_nothing_of_a_citation() -> None:
    from models.checkers.base import PairInput
    from models.checkers.questions import QuestionChecker
    from models.parsing import parse

    source = parse("Revenue rose 12 percent to $4.2 billion in the quarter.")
    output = parse("Revenue rose 12 percent [3].")
    (result,) = QuestionChecker().score([PairInput("c", source, output)])
    assert "[how many]]" not in (result.sentences[0].detail or "")
    assert "output: 3 " not in (result.sentences[0].detail or "")


def test_a_block_quotes_marks_stay_with_its_line() -> None:
    (doc,) = parse_many(["> Revenue rose 12 percent.\n> > It said so.\nA > B and 5 > 3."])
    assert [s.text for s in doc.sentences] == [
        "> Revenue rose 12 percent.",
        "> > It said so.",
        "A > B and 5 > 3.",
    ]
    assert all(">" not in a.head_text + a.child_text for a in doc.sentences[1].arcs)


def test_the_parser_is_held_to_a_sentence_that_must_not_be_cut() -> None:
    # spaCy's parser started a sentence at "The" though the label was marked to continue
    (doc,) = parse_many(["**TL;DR:** The museum closes in March."])
    assert [s.text for s in doc.sentences] == ["**TL;DR:** The museum closes in March."]
    assert ("nsubj", "closes", "museum") in {
        (a.label, a.head_text, a.child_text) for a in doc.sentences[0].arcs
    }


def test_a_pictograph_is_a_mark_and_a_list_mark() -> None:
    text = "✅ The museum closes in March.\n❌ The shop closes.\n🏛️ Museum news: it reopens 🎉"
    assert (
        readable(text)
        == " The museum closes in March.\n The shop closes.\n Museum news: it reopens "
    )
    (doc,) = parse_many([text])
    # the parser alone made "❌" a sentence and gave "🏛" and "🎉" arcs
    assert [s.text for s in doc.sentences] == [
        "✅ The museum closes in March.",
        "❌ The shop closes.",
        "🏛️ Museum news: it reopens 🎉",
    ]
    words = {w for s in doc.sentences for a in s.arcs for w in (a.head_text, a.child_text)}
    assert not words & {"✅", "❌", "🏛", "🏛️", "🎉"}
    assert plain("It was 25°C → warm") == "It was 25°C → warm"  # symbols that carry meaning


CODE = (
    "To request a refund, send your booking number:\n\n"
    "```text\nTo: refunds office\nBooking: <your number>\n```\n"
    "Refunds arrive within 14 days."
)


def test_a_fenced_code_block_is_one_sentence_and_not_checked() -> None:
    from models.checkers.base import CODE as CODE_REASON
    from models.checkers.base import PairInput, unchecked_reason
    from models.checkers.questions import QuestionChecker

    (doc,) = parse_many([CODE])
    assert [s.text for s in doc.sentences] == [
        "To request a refund, send your booking number:",
        "```text\nTo: refunds office\nBooking: <your number>\n```",
        "Refunds arrive within 14 days.",
    ]
    block = doc.sentences[1]
    assert unchecked_reason(block) == CODE_REASON and not has_content(block)
    assert unchecked_reason(doc.sentences[2]) is None
    # no checker asks about what the block holds
    source = parse_many(["Visitors send their booking number to the refunds office."])[0]
    (result,) = QuestionChecker().score([PairInput("c", source, doc)])
    assert {s.sentence: s.not_checked for s in result.sentences}[1] == CODE_REASON


def test_fences_inline_code_and_an_unclosed_block() -> None:
    from models.markdown import code_block, code_block_end

    assert code_block_end(CODE, CODE.index("```")) == CODE.rindex("```") + 3
    assert code_block_end("~~~\nrm -rf build\n", 0) == len("~~~\nrm -rf build\n")  # never closed
    assert code_block_end("Run ```make``` first.", 4) is None  # inline code: no fence
    assert code_block_end("```\na\n``\nb\n```", 0) == len("```\na\n``\nb\n```")  # "``" closes none
    assert code_block("```\nx = 1\n```") and not code_block("The ``` sign.")


def test_an_arrow_joins_what_it_stands_between() -> None:
    # the parser alone cut "Cafe" off its arrow after a paragraph ending without a full stop
    (doc,) = parse_many(["Booking: <your number>\n\nCafe → stays open. Shop -> closes at 5."])
    assert [s.text for s in doc.sentences] == [
        "Booking: <your number>",
        "Cafe → stays open.",
        "Shop -> closes at 5.",
    ]
