"""Text as the models read it: a word tokenizer's marks undone (models.readable)."""

from __future__ import annotations

import numpy as np
import pytest

from models.encoding import ArcSlot, LabelVocab, encode_pair, load_tokenizer
from models.readable import readable, readable_map
from tests.models.conftest import tokenizer_json


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("she did n't know it was wrong .", "she didn't know it was wrong."),
        ("he ca n't , we wo n't and it 's ours", "he can't, we won't and it's ours"),
        ("a guide price of £ 200,000 and € 5", "a guide price of £200,000 and €5"),
        (
            "history -lrb- formerly the history channel -rrb- said",
            "history (formerly the history channel) said",
        ),
        ("he said `` no '' to the ` legend ' tag", "he said \" no \" to the ' legend ' tag"),
        ("up 5 % ; then", "up 5%; then"),
    ],
)
def test_a_tokenizers_marks_are_undone(written: str, read: str) -> None:
    assert readable(written) == read


def test_ordinary_text_is_read_as_written() -> None:
    for text in (
        'It\'s 5% of the U.S. market (roughly), said Mr. Smith: "no".',
        "The fee is $5, or £4.20 — 'cheap'.",
        "Rated #1 in 2019; the score was 3 - 1.",
        "Press the 'd' key for rock 'n' roll.",
    ):
        assert readable(text) == text
        assert readable_map(text)[1] == list(range(len(text) + 1))


def test_the_map_carries_every_word_to_the_read_text() -> None:
    written = "Police did n't say -lrb- or confirm -rrb- it cost £ 5 ."
    read, at = readable_map(written)
    assert len(at) == len(written) + 1 and at[-1] == len(read)
    for word in ("Police", "did", "n't", "say", "or", "confirm", "it", "cost", "5"):
        a = written.index(word)
        assert read[at[a] : at[a + len(word)]] == word


def test_the_arc_model_reads_tokenized_and_ordinary_text_alike() -> None:
    """A sentence written as a tokenizer left it gives the model the same word-pieces as the
    ordinary sentence, and each arc points at the same piece."""
    tok = load_tokenizer(tokenizer_json())
    vocab = LabelVocab(["nsubj", "dobj"])
    evidence = "The firm did n't sell the plant ."
    ordinary = "It did n't sell the plant -lrb- in Leeds -rrb- ."
    clean = "It didn't sell the plant (in Leeds)."

    def slots(text: str) -> list[ArcSlot]:
        def span(word: str) -> tuple[int, int]:
            return (text.index(word), text.index(word) + len(word))

        return [
            ArcSlot(span("sell"), span("It"), "nsubj"),
            ArcSlot(span("sell"), span("Leeds"), "dobj"),
        ]

    a = encode_pair(tok, evidence, ordinary, slots(ordinary), vocab, 64)
    b = encode_pair(tok, readable(evidence), clean, slots(clean), vocab, 64)
    assert a == b
    assert min(a.arc_head + a.arc_child) >= 0


def test_the_bundled_nli_model_reads_tokenized_and_ordinary_text_alike() -> None:
    from models.checkers.nli import BUNDLED_DIR, OnnxNLI, bundled_available, entailment_index

    if not bundled_available(BUNDLED_DIR):
        pytest.skip("the bundled NLI model is not installed")
    model = OnnxNLI(BUNDLED_DIR, "cpu")
    premise = "The house has a guide price of between £200,000 and £250,000, and it didn't sell."
    written = "the house has a guide price of between £ 200,000 and £ 250,000 ."
    tokenized = model.predict([premise], [written])
    ordinary = model.predict([premise], [readable(written)])
    np.testing.assert_array_equal(tokenized, ordinary)
    assert int(np.argmax(ordinary[0])) == entailment_index(model.id2label)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("It has about 12.5k employees.", "It has about 12,500 employees."),
        ("Revenue was $4.2B, up from $3.9bn.", "Revenue was $4.2 billion, up from $3.9 billion."),
        ("It cost £40m and €1.2 tn.", "It cost £40 million and €1.2 trillion."),
        ("A 140m bridge, 4.2b units, Q3 2024.", "A 140m bridge, 4.2b units, Q3 2024."),
    ],
)
def test_a_figures_abbreviated_scale_is_written_out(written: str, read: str) -> None:
    # "140m" may be metres and "4.2b" anything: a single letter other than "k" only after money
    assert readable(written) == read
    text, at = readable_map(written)
    assert at[-1] == len(text)
