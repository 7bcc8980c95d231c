"""Evidence windows: which source sentences a checker sees for each output sentence.

Long sources do not fit a model's input. For every output sentence the source sentences are
ranked by a retriever (lexical overlap here; an embedding retriever when the bundled embedder is
installed) and the best ones are packed, in source order, into a window that fits the checker's
token budget. Nothing is cut silently: a window that had to leave sentences out says so, and an
output sentence that cannot fit at all is reported as not checked.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from models.document import ParsedText, Sentence

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})

TokenCounter = Callable[[str], int]


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
    """

    sentence_indices: tuple[int, ...]
    text: str
    omitted: int = 0
    not_checked: str | None = None


class Retriever(Protocol):
    """Ranks source sentences for output sentences; higher is more relevant."""

    name: str

    def rank(self, source: ParsedText, sentences: Sequence[Sentence]) -> list[list[float]]:
        """Return one relevance list (one value per source sentence) per output sentence."""
        ...


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
            total = sum(weights.values()) or 1.0
            out.append([sum(w for lem, w in weights.items() if lem in bag) / total for bag in bags])
        return out


def build_windows(
    source: ParsedText,
    sentences: Sequence[Sentence],
    *,
    max_tokens: int,
    count_tokens: TokenCounter = count_words,
    retriever: Retriever | None = None,
    reserved: int = 3,
) -> list[Evidence]:
    """Choose evidence for each output sentence within a token budget.

    The whole source is used when it fits beside the output sentence; otherwise the best-ranked
    source sentences that fit are packed in rank order and shown in source order.

    Args:
        source: the parsed source.
        sentences: the output sentences to find evidence for.
        max_tokens: the checker's input length, evidence and output sentence together.
        count_tokens: the checker's token counter.
        retriever: ranks source sentences; :class:`LexicalRetriever` when None.
        reserved: tokens kept for special tokens.
    """
    if not source.sentences:
        return [Evidence((), "", 0, "the source has no text") for _ in sentences]
    lengths = [count_tokens(s.text) for s in source.sentences]
    total = sum(lengths)
    ranks: list[list[float]] | None = None
    out: list[Evidence] = []
    for n, sentence in enumerate(sentences):
        budget = max_tokens - reserved - count_tokens(sentence.text)
        if budget <= 0:
            out.append(
                Evidence((), "", 0, f"output sentence longer than the model input ({max_tokens})")
            )
            continue
        if total <= budget:
            chosen = list(range(len(source.sentences)))
            omitted = 0
        else:
            if ranks is None:
                ranks = (retriever or LexicalRetriever()).rank(source, sentences)
            order = sorted(range(len(lengths)), key=lambda i: (-ranks[n][i], i))
            chosen, used, omitted = [], 0, 0
            for i in order:
                if used + lengths[i] <= budget:
                    chosen.append(i)
                    used += lengths[i]
                elif ranks[n][i] > 0:
                    omitted += 1
            chosen.sort()
        if not chosen:
            out.append(Evidence((), "", omitted, "no source sentence fits the model input"))
            continue
        text = " ".join(source.sentences[i].text for i in chosen)
        out.append(Evidence(tuple(chosen), text, omitted))
    return out
