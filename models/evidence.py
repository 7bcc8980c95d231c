"""Evidence windows: which source sentences a checker sees for each output sentence.

Long sources do not fit a model's input. For every output sentence the source sentences are
ranked by a retriever (lexical overlap here; an embedding retriever when the bundled embedder is
installed) and the best ones are packed, in source order, into a window that fits the checker's
token budget. Nothing is cut silently: a window that had to leave sentences out says so, and an
output sentence that cannot fit at all is reported as not checked.

The window is what a model reads; it is not what an editor should be shown. A short source fits
whole into every window, and a long one fills it with a dozen sentences. What is shown is the
best few (:data:`SHOWN`) ranked best first: :func:`text_relevance` (idf-weighted overlap of word
forms and figures, no parser needed, so the window can compute it for any stored pair), fused
with the retriever's own scores where it ran (:func:`fuse_rankings`), and picked by
:func:`top_ranked`. Exact words and figures matter here: an embedding retriever ranks a sentence
that says "roughly 41,000 households ... 38 percent full" below ones that merely share the topic.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from models.document import ParsedText, Sentence

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})

TokenCounter = Callable[[str], int]

SHOWN = 3  # evidence sentences shown for an output sentence
RRF_K = 60  # reciprocal rank fusion constant (Cormack, Clarke and Buettcher 2009)

# Function words carry no evidence; everything else, figures included, counts.
STOPWORDS = frozenset(
    """a an the and or but nor so yet of to in on at by for from with without into onto over
    under about as than then that this these those there here it its it's is are was were be
    been being am has have had having do does did will would shall should can could may might
    must not no he she they we you i his her their our your my him them us me who whom whose
    which what when where why how all any each some such own same also only very just more most
    said says say""".split()
)
_TERM = re.compile(r"\d+(?:[.,]\d+)*|\w+")


def count_words(text: str) -> int:
    """A tokenizer-free length estimate: word pieces run about 1.3 per word."""
    return math.ceil(len(text.split()) * 1.3) + 1


@dataclass(frozen=True, slots=True)
class Evidence:
    """The source sentences chosen for one output sentence.

    Attributes:
        sentence_indices: chosen source sentences, in source order.
        text: their text joined with single spaces, the string a checker reads.
        omitted: source sentences that were relevant (score > 0) but did not fit.
        not_checked: why the output sentence cannot be checked at all, else None.
        ranked: the evidence to show an editor, best first: at most :data:`SHOWN` source
            sentences, from the whole source (a relevant sentence may lie outside the window).
            Empty when not ranked (evidence built by hand, or a source with no text).
        relevance: the fused relevance of each of ``ranked`` (higher is better).
    """

    sentence_indices: tuple[int, ...]
    text: str
    omitted: int = 0
    not_checked: str | None = None
    ranked: tuple[int, ...] = ()
    relevance: tuple[float, ...] = ()


class Retriever(Protocol):
    """Ranks source sentences for output sentences; higher is more relevant."""

    name: str

    def rank(self, source: ParsedText, sentences: Sequence[Sentence]) -> list[list[float]]:
        """Return one relevance list (one value per source sentence) per output sentence."""
        ...


def retrieval_revision(retriever: Retriever | None) -> str:
    """The part of a checker's version that names the model ranking its evidence: a checker
    whose windows an embedding model picks scores anew when that model changes. Empty for the
    lexical ranking (or none)."""
    version = getattr(retriever, "version", None)
    return f"+ret{version[:6]}" if isinstance(version, str) and version else ""


@functools.lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    """The word forms and figures of a text, case-folded, without function words.

    Figures lose their group separators ("41,000" and "41000" are one term) and a plural ``s`` is
    dropped from longer words, so that overlap does not need a parser. Recent texts' terms are
    kept: a source's sentences are read once per claim and per evidence window.
    """
    out = set()
    for m in _TERM.finditer(text.casefold()):
        term = m.group()
        if term[0].isdigit():
            term = term.replace(",", "")
        elif term in STOPWORDS or len(term) < 2:
            continue
        elif len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
            term = term[:-1]
        out.add(term)
    return frozenset(out)


@functools.lru_cache(maxsize=64)
def _source_terms(
    source_sentences: tuple[str, ...],
) -> tuple[tuple[frozenset[str], ...], Counter[str]]:
    """Each source sentence's terms and in how many sentences each term occurs (kept for the
    recent sources: every claim and window of a pair ranks the same source; not to be changed)."""
    bags = tuple(terms(s) for s in source_sentences)
    return bags, Counter(t for bag in bags for t in bag)


def text_relevance(source_sentences: Sequence[str], sentence: str) -> list[float]:
    """Relevance of each source sentence to an output sentence from their text alone.

    The idf-weighted share of the output sentence's terms (:func:`terms`) that the source
    sentence contains: rare words and exact figures weigh most. Values lie in [0, 1].
    """
    bags, df = _source_terms(tuple(source_sentences))
    return _weighted_share(bags, df, terms(sentence))


def _weighted_share(
    bags: Sequence[frozenset[str]], df: Counter[str], wanted: Collection[str]
) -> list[float]:
    """Per bag, the idf-weighted share of the ``wanted`` terms it holds."""
    n = len(bags) or 1
    weights = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in wanted}
    # fsum: exactly rounded whatever the order of the terms (a set's order changes from one run
    # of Python to the next), so sentences that match the same terms tie exactly and the tie
    # goes the same way in every run
    total = math.fsum(weights.values())
    if not total:
        return [0.0] * len(bags)
    return [math.fsum(w for t, w in weights.items() if t in bag) / total for bag in bags]


#: Endings a word form loses to be matched with another form of its word where the shown evidence
#: ties on word forms: "opening" with "open", "longer" with "long", "closed" with "close".
_ENDINGS = ("ing", "est", "ed", "er", "ly")


def stem(term: str) -> str:
    """A term without its inflectional ending and final "e" ("opening" -> "open", "closed" and
    "close" -> "clos", "stopped" -> "stop"); figures and short words as they are."""
    if not term.isalpha() or len(term) < 5:
        return term
    for ending in _ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 3:
            term = term[: -len(ending)]
            if len(term) > 3 and term[-1] == term[-2] and term[-1] not in "ls":
                term = term[:-1]  # "stopp" -> "stop"
            break
    return term[:-1] if len(term) > 3 and term.endswith("e") else term


def stem_relevance(source_sentences: Sequence[str], sentence: str) -> list[float]:
    """:func:`text_relevance` over the terms' stems (:func:`stem`): each output term counts where
    a source sentence holds any form of its word."""
    bags, df = _source_stems(tuple(source_sentences))
    return _weighted_share(bags, df, {stem(t) for t in terms(sentence)})


@functools.lru_cache(maxsize=64)
def _source_stems(
    source_sentences: tuple[str, ...],
) -> tuple[tuple[frozenset[str], ...], Counter[str]]:
    """:func:`_source_terms` over stems, kept for the recent sources as those are."""
    bags = tuple(frozenset(stem(t) for t in bag) for bag in _source_terms(source_sentences)[0])
    return bags, Counter(t for bag in bags for t in bag)


def by_relevance(relevance: Sequence[float]) -> list[int]:
    """Sentence indices from the most relevant to the least; ties in source order."""
    return sorted(range(len(relevance)), key=lambda i: (-relevance[i], i))


def fuse_rankings(*scores: Sequence[float], k: int = RRF_K) -> list[float]:
    """Reciprocal rank fusion of several relevance lists over the same sentences.

    Each list contributes ``1 / (k + rank)`` for the sentences it scores above zero (rank 1 is
    its best; ties share the better rank), so retrievers on different scales combine without
    calibration and a sentence that no retriever finds relevant stays at zero.
    """
    n = len(scores[0]) if scores else 0
    fused = [0.0] * n
    for values in scores:
        if len(values) != n:
            raise ValueError(f"relevance lists differ in length ({len(values)} and {n})")
        ordered = sorted({v for v in values if v > 0}, reverse=True)
        rank = {v: r for r, v in enumerate(ordered, start=1)}
        for i, v in enumerate(values):
            if v > 0:
                fused[i] += 1.0 / (k + rank[v])
    return fused


def top_ranked(
    relevance: Sequence[float],
    k: int = SHOWN,
    prefer: Collection[int] = (),
    tie: Sequence[float] | None = None,
) -> tuple[int, ...]:
    """The ``k`` most relevant sentences (relevance above zero), best first.

    Ties go to the higher ``tie`` value where one is given, then to the sentences in ``prefer``
    (those a checker read), then to source order.
    """
    order = sorted(
        (i for i, v in enumerate(relevance) if v > 0),
        key=lambda i: (-relevance[i], -(tie[i] if tie is not None else 0.0), i not in prefer, i),
    )
    return tuple(order[:k])


#: How a checker's words name the source sentence that contradicts an output sentence
#: ("contradicted by source sentence 3: “…”", numbered from 1).
CONTRADICTED_BY = "contradicted by source sentence"
_CONTRADICTED_BY = re.compile(rf"{CONTRADICTED_BY} (\d+)\b")


def contradicting_sentence(detail: str | None) -> int | None:
    """The source sentence (its index, from 0) that a checker's ``detail`` names as contradicting
    the output sentence, the first such; None where it names none."""
    found = _CONTRADICTED_BY.search(detail or "")
    return int(found.group(1)) - 1 if found else None


def shown_evidence(
    source_sentences: Sequence[tuple[int, str]],
    sentence: str,
    window: Collection[int] = (),
    k: int = SHOWN,
    question: str | None = None,
    named: int | None = None,
) -> dict[int, int]:
    """The evidence to show for an output sentence: ``{source sentence index: rank}``, 1 best.

    The best ``k`` source sentences of the whole source by :func:`text_relevance` (the store
    keeps a checker's window, not its retriever's scores); ties go to the sentence that holds
    more of the output's words in other forms (:func:`stem_relevance`: "The other pools will
    stay open longer" shows "The remaining three pools will extend their opening hours" before
    other sentences about the pools), then to sentences in ``window``, those the checker read.
    A short source that fits whole into the window is not marked whole. An answer with no words
    of its own to match ("No.") is matched with its ``question``, whose claim the checkers
    judged ("Do foot passengers need to book? — No."). A source sentence the checker ``named``
    as contradicting the sentence (:func:`contradicting_sentence`) is shown first, whatever its
    words: the editor reads first what the verdict quotes.
    """
    order = [idx for idx, _t in source_sentences]
    texts = [t for _i, t in source_sentences]
    relevance = text_relevance(texts, sentence)
    if question and not any(v > 0 for v in relevance):
        sentence = f"{question} {sentence}"
        relevance = text_relevance(texts, sentence)
    read = set(window)
    prefer = {pos for pos, idx in enumerate(order) if idx in read}
    best = top_ranked(relevance, k, prefer=prefer, tie=stem_relevance(texts, sentence))
    if named is not None and named in order:
        first = order.index(named)
        best = (first, *(pos for pos in best if pos != first))[:k]
    return {order[pos]: rank for rank, pos in enumerate(best, start=1)}


def clipped(text: str, limit: int = 90) -> str:
    """A sentence on one line, cut to ``limit`` characters with "…" (to quote it in a line)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def content_lemmas(sentence: Sentence) -> list[str]:
    return [t.lemma for t in sentence.tokens if t.pos in CONTENT_POS]


class LexicalRetriever:
    """Idf-weighted overlap of content lemmas (recall of the output sentence's lemmas)."""

    name = "lexical-overlap"

    def rank(self, source: ParsedText, sentences: Sequence[Sentence]) -> list[list[float]]:
        bags = [set(content_lemmas(s)) for s in source.sentences]
        df = Counter(lemma for bag in bags for lemma in bag)
        n = len(bags) or 1
        out = []
        for sentence in sentences:
            lemmas = set(content_lemmas(sentence)) or {t.lemma for t in sentence.tokens}
            weights = {lem: math.log(1 + n / (1 + df.get(lem, 0))) for lem in lemmas}
            total = math.fsum(weights.values()) or 1.0  # order-free, as in text_relevance
            out.append(
                [math.fsum(w for lem, w in weights.items() if lem in bag) / total for bag in bags]
            )
        return out


def build_windows(
    source: ParsedText,
    sentences: Sequence[Sentence],
    *,
    max_tokens: int,
    count_tokens: TokenCounter = count_words,
    retriever: Retriever | None = None,
    reserved: int = 3,
    size: int | None = None,
) -> list[Evidence]:
    """Choose evidence for each output sentence within a token budget.

    With no ``size``, the whole source is used when it fits beside the output sentence;
    otherwise the best-ranked source sentences that fit are packed in rank order and kept in
    source order. With a ``size``, the window is the ``size`` most relevant sentences (text
    relevance fused with the retriever's ranks), packed the same way: a narrow window a model
    reads as closely as a premise of one or a few sentences, whatever the source's length; its
    ``omitted`` counts the relevant sentences passed over, before it was full, as too long. Separately, ``ranked`` holds
    the best few sentences to show (see the module docstring): text relevance, fused with the
    retriever's scores where the retriever ran.

    Args:
        source: the parsed source.
        sentences: the output sentences to find evidence for.
        max_tokens: the checker's input length, evidence and output sentence together.
        count_tokens: the checker's token counter.
        retriever: ranks source sentences; :class:`LexicalRetriever` when None.
        reserved: tokens kept for special tokens.
        size: at most this many sentences, the most relevant (None: as many as fit).
    """
    if not source.sentences:
        return [Evidence((), "", 0, "the source has no text") for _ in sentences]
    lengths = [count_tokens(s.text) for s in source.sentences]
    total = sum(lengths)
    ranks: list[list[float]] | None = None
    source_texts = [s.text for s in source.sentences]
    out: list[Evidence] = []
    for n, sentence in enumerate(sentences):
        budget = max_tokens - reserved - count_tokens(sentence.text)
        if budget <= 0:
            out.append(
                Evidence((), "", 0, f"output sentence longer than the model input ({max_tokens})")
            )
            continue
        if size is None and total <= budget:
            chosen = list(range(len(source.sentences)))
            omitted = 0
        else:
            if ranks is None:
                ranks = (retriever or LexicalRetriever()).rank(source, sentences)
            # the retriever's order packs the budget window (as the models were trained); its
            # order fused with text relevance picks a sized one (a figure or a rare name decides)
            rank = (
                ranks[n]
                if size is None
                else fuse_rankings(text_relevance(source_texts, sentence.text), ranks[n])
            )
            order = by_relevance(rank)
            chosen, used, omitted = [], 0, 0
            for i in order:
                if size is not None and len(chosen) == size:
                    break
                if used + lengths[i] <= budget:
                    chosen.append(i)
                    used += lengths[i]
                elif rank[i] > 0:
                    omitted += 1
            chosen.sort()
        if not chosen:
            out.append(Evidence((), "", omitted, "no source sentence fits the model input"))
            continue
        text = " ".join(source.sentences[i].text for i in chosen)
        relevance = text_relevance(source_texts, sentence.text)
        if ranks is not None:
            relevance = fuse_rankings(relevance, ranks[n])
        shown = top_ranked(relevance, SHOWN, prefer=chosen)
        out.append(
            Evidence(
                tuple(chosen),
                text,
                omitted,
                ranked=shown,
                relevance=tuple(relevance[i] for i in shown),
            )
        )
    return out
