from models.evidence import LexicalRetriever, build_windows, count_words
from models.parsing import parse

SOURCE = (
    "The council met on Monday. Weather was mild across the region. "
    "The bridge over the Tamsin River will close for repairs in May. "
    "Local shops reported strong sales. A new library opened downtown."
)


def test_whole_source_when_it_fits() -> None:
    src, out = parse(SOURCE), parse("The bridge will close in May.")
    (ev,) = build_windows(src, out.sentences, max_tokens=512)
    assert ev.sentence_indices == tuple(range(len(src.sentences)))
    assert ev.not_checked is None and ev.omitted == 0


def test_best_sentence_chosen_when_budget_is_small() -> None:
    src, out = parse(SOURCE), parse("The bridge over the Tamsin River will close.")
    budget = count_words(out.sentences[0].text) + count_words(src.sentences[2].text) + 3
    (ev,) = build_windows(src, out.sentences, max_tokens=budget)
    assert ev.sentence_indices == (2,)
    assert "Tamsin" in ev.text


def test_sentence_that_cannot_fit_is_reported_not_truncated() -> None:
    src, out = (
        parse(SOURCE),
        parse("The bridge over the Tamsin River will close for repairs in May."),
    )
    (ev,) = build_windows(src, out.sentences, max_tokens=8)
    assert ev.not_checked is not None and "longer than the model input" in ev.not_checked
    assert ev.text == ""


def test_lexical_retriever_ranks_overlap_first() -> None:
    src, out = parse(SOURCE), parse("A library opened downtown.")
    ranks = LexicalRetriever().rank(src, out.sentences)[0]
    assert max(range(len(ranks)), key=ranks.__getitem__) == 4
