import pytest

from models.evidence import (
    SHOWN,
    Evidence,
    LexicalRetriever,
    build_windows,
    contradicting_sentence,
    count_words,
    fuse_rankings,
    shown_evidence,
    stem,
    terms,
    text_relevance,
    top_ranked,
)
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


def test_a_sized_window_holds_the_most_relevant_sentences_in_source_order() -> None:
    src = parse(SOURCE)
    out = parse("The council says a new library opened downtown on Monday.")
    whole, one, two = (
        build_windows(src, out.sentences, max_tokens=512, size=size)[0] for size in (None, 1, 2)
    )
    assert whole.sentence_indices == tuple(range(len(src.sentences)))  # the source fits
    assert one.sentence_indices == (4,)  # "A new library opened downtown."
    assert two.sentence_indices == (0, 4)  # and "The council met on Monday.", in source order
    assert two.text == f"{src.sentences[0].text} {src.sentences[4].text}"
    assert one.omitted == two.omitted == 0
    # a relevant sentence too long for the budget is passed over, counted, and the next taken
    out = parse("The bridge over the Tamsin River will close, the council said.")
    budget = count_words(out.sentences[0].text) + count_words(src.sentences[0].text) + 3
    (wide,) = build_windows(src, out.sentences, max_tokens=512, size=1)
    (tight,) = build_windows(src, out.sentences, max_tokens=budget, size=1)
    assert wide.sentence_indices == (2,)
    assert tight.sentence_indices == (0,) and tight.omitted == 1


def test_lexical_retriever_ranks_overlap_first() -> None:
    src, out = parse(SOURCE), parse("A library opened downtown.")
    ranks = LexicalRetriever().rank(src, out.sentences)[0]
    assert max(range(len(ranks)), key=ranks.__getitem__) == 4


# ---------------------------------------------------------------- the evidence shown, ranked


def _demo_pair(pair_id: str) -> dict[str, str]:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "resources" / "demo" / "demo_pairs.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == pair_id:
            return record
    raise AssertionError(f"{pair_id} not in the demo")


class _TopicRetriever:
    """Ranks like an embedding retriever does on demo-03: by topic, the figures sentence 6th."""

    name = "topic"

    def __init__(self, order: list[int]) -> None:
        self.order = order

    def rank(self, source, sentences):  # type: ignore[no-untyped-def]
        n = len(source.sentences)
        score = {i: 1.0 - r / (2 * n) for r, i in enumerate(self.order)}
        return [[score.get(i, 0.4) for i in range(n)] for _ in sentences]


def test_demo_03_sentence_1_shows_the_sentence_with_the_figures() -> None:
    pair = _demo_pair("demo-03")
    src, out = parse(pair["source"]), parse(pair["output"])
    figures = next(i for i, s in enumerate(src.sentences) if "41,000 households" in s.text)
    assert "38 percent full" in src.sentences[figures].text
    first = out.sentences[0]
    assert "14,000 households" in first.text and "38 percent full" in first.text
    # the lexical retriever; a whole-source window; a window of a few sentences
    for max_tokens in (4096, 160):
        ev = build_windows(src, out.sentences, max_tokens=max_tokens)[0]
        assert figures in ev.ranked, (max_tokens, ev.ranked)
        assert 1 <= len(ev.ranked) <= SHOWN < len(src.sentences)
    # an embedding-like retriever that ranks the figures sentence 6th: still shown, because
    # exact words and figures are fused in, though the model window leaves it out
    topic = _TopicRetriever([0, 10, 3, 8, 22, figures, 11, 4, 23, 5])
    ev = build_windows(src, out.sentences, max_tokens=160, retriever=topic)[0]
    assert figures not in ev.sentence_indices  # the window is what it was: model inputs unchanged
    assert figures in ev.ranked and len(ev.ranked) == SHOWN
    assert list(ev.relevance) == sorted(ev.relevance, reverse=True)


def test_a_short_source_is_not_shown_whole() -> None:
    src, out = parse(SOURCE), parse("The bridge over the Tamsin River will close in May.")
    (ev,) = build_windows(src, out.sentences, max_tokens=512)
    assert ev.sentence_indices == tuple(range(len(src.sentences)))  # the model reads it all
    assert ev.ranked[0] == 2  # the best match first
    assert len(ev.ranked) < len(src.sentences)
    assert 4 not in ev.ranked and 3 not in ev.ranked  # unrelated sentences are not shown
    assert len(ev.relevance) == len(ev.ranked) and ev.relevance[0] > 0


def test_evidence_stays_compatible_for_the_checkers() -> None:
    ev = Evidence((1, 2), "a b")
    assert (ev.sentence_indices, ev.text, ev.omitted, ev.not_checked) == ((1, 2), "a b", 0, None)
    assert ev.ranked == () and ev.relevance == ()
    src, out = parse(SOURCE), parse("The bridge will close in May.")
    (ev,) = build_windows(src, out.sentences, max_tokens=512)
    assert ev.text == " ".join(s.text for s in src.sentences)  # the window text, source order


def test_text_relevance_weighs_figures_and_rare_words() -> None:
    source = [
        "The reservoir supplies water to the valley.",
        "The reservoir supplies roughly 41,000 households and is 38 percent full.",
        "Rain fell in June.",
    ]
    rel = text_relevance(source, "The reservoir, which supplies 41000 households, is 38% full.")
    assert rel[1] > rel[0] > rel[2] == 0.0
    assert terms("41,000 Households were") == {"41000", "household"}
    assert top_ranked(rel) == (1, 0)  # nothing irrelevant is shown
    assert top_ranked([0.5, 0.5, 0.2], k=2, prefer={1}) == (1, 0)


def test_fuse_rankings_is_reciprocal_rank_fusion() -> None:
    fused = fuse_rankings([0.9, 0.5, 0.0], [0.1, 0.8, 0.0], k=60)
    assert fused[0] == fused[1] == 1 / 61 + 1 / 62
    assert fused[2] == 0.0
    with pytest.raises(ValueError, match="differ in length"):
        fuse_rankings([0.1], [0.1, 0.2])


# Two source sentences that each hold a different one of two equally rare terms of a claim
# ("Tuesday", "Monday"), beside the same common ones: equally relevant. In different runs of
# Python the claim's terms (a set) come in different orders.
TIED_SOURCE = [
    "On Tuesday an audit found 41 per cent of Clinton's twitter audience inactive and 25 fake.",
    "On Monday an audit found 41 per cent of Clinton's twitter audience inactive and 25 fake.",
    "The study of the former secretary of state was published by a software firm.",
    "Rivals have similar shares of accounts that never post.",
]
TIED_CLAIM = (
    "An audit published on Monday and Tuesday by a software firm found 41 per cent of Clinton's "
    "twitter audience inactive and 25 per cent fake, among the former secretary's followers."
)
_RELEVANCE_SCRIPT = """
import json, sys
from models.evidence import LexicalRetriever, text_relevance
from models.parsing import parse
source, claim = json.loads(sys.stdin.read())
lexical = LexicalRetriever().rank(parse(" ".join(source)), parse(claim).sentences)
print(json.dumps([[repr(v) for v in text_relevance(source, claim)], [repr(v) for v in lexical[0]]]))
"""


def test_relevance_is_the_same_in_every_run_of_python() -> None:
    """A set's order changes with the interpreter's string hashing; summed in that order, two
    sentences that match the same terms came out a rounding error apart, one way or the other,
    and that flipped which one a one-sentence evidence window held (a FRANK pair's `nli`
    score moved between 0.10 and 0.23 from one run to the next)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    runs = set()
    for seed in ("0", "7", "9", "11", "12"):
        done = subprocess.run(
            [sys.executable, "-c", _RELEVANCE_SCRIPT],
            input=json.dumps([TIED_SOURCE, TIED_CLAIM]),
            capture_output=True,
            text=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        runs.add(done.stdout)
    assert len(runs) == 1
    text, lexical = json.loads(runs.pop())
    assert text[0] == text[1] and lexical[0] == lexical[1]  # an exact tie, broken by position
    assert float(text[0]) > float(text[2]) > float(text[3])


def test_shown_evidence_ties_go_to_other_forms_of_the_sentence_s_words() -> None:
    """Three source sentences share "pools" with "The other pools will stay open longer"; the
    one that also says "opening" is shown first, not the first in source order. Exact word
    forms still decide before other forms do."""
    source = [
        "The council voted to close two of its five public swimming pools.",
        "The pools at Fenwick Road and Oldham Park will shut on 30 September.",
        "About 400 residents protested outside the town hall.",
        "The remaining three pools will extend their opening hours by two hours a day.",
    ]
    shown = shown_evidence(list(enumerate(source)), "The other pools will stay open longer.")
    assert shown[3] == 1
    assert stem("opening") == stem("open") and stem("closed") == stem("close")
    assert stem("41,000") == "41,000"
    # a sentence with the exact form outranks one with another form of it
    exact = [source[3], "The pools will stay open until ten."]
    assert shown_evidence(list(enumerate(exact)), "The pools will stay open longer.")[1] == 1


def test_the_source_sentence_a_verdict_quotes_is_shown_first() -> None:
    """demo-03 style: the reservoir's figures are contradicted by the source's second sentence,
    while its first shares more of the words; the editor sees the quoted one first."""
    source = [
        "The Brennick Valley Water Authority will introduce a hosepipe ban across its supply "
        "area from Monday, after the Lake Varrow reservoir fell to its lowest level.",
        "The authority said the reservoir, which supplies roughly 41,000 households, was 38 "
        "percent full.",
        "Rainfall was less than half the long-term average.",
    ]
    said = (
        "The Brennick Valley Water Authority is bringing in a hosepipe ban from Monday because "
        "the Lake Varrow reservoir, which supplies about 14,000 households, is only 38 percent "
        "full."
    )
    assert shown_evidence(list(enumerate(source)), said)[0] == 1  # by words alone
    detail = "claim “the reservoir supplies about 14,000 households”: contradicted by source sentence 2: “The authority said …”"
    assert contradicting_sentence(detail) == 1
    shown = shown_evidence(list(enumerate(source)), said, named=contradicting_sentence(detail))
    assert shown[1] == 1 and shown[0] == 2
    assert contradicting_sentence("not found in the source") is None
    assert shown_evidence(list(enumerate(source)), said, named=None)[0] == 1
