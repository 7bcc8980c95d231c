"""A word the summariser could not write: what the source has in its place.

Summarisers with a fixed vocabulary write a placeholder where the word they meant lies outside
it: "the two boxers have revealed a dozen UNK about themselves in the build-up to the mega
fight" where the article says "a dozen oddities about themselves in the build-up to the
mega-fight" (FRANK's and Polytope's sequence-to-sequence outputs write "UNK", XSumFaith's
pointer-generator "[UNK]"). The NLI model reads the placeholder as a word, and that claim as
contradicted (0.82 with the bundled model; entailed, 0.87, with "oddities" in its place).

The checkers read such a sentence as written: the output does not say what the placeholder
stands for, and raters mostly count it against the output (Polytope's marked an inaccuracy on
the placeholder in 73 of its 75 outputs that hold one; FRANK's rated 11 of 39 faithful). Read
with the source's words in its place, FRANK's ranking rose 82.3 -> 82.9 and Polytope's fell
64.2 -> 62.9 (92.4 -> 84.7 by its consistency errors): measured, not shipped. What the editor
gets is the reason: a flagged claim's note names the placeholder and the source words that
stand between the same neighbours (:func:`placeholders`), so "contradicted" is not read as a
wrong fact where the output lacks a word.

A placeholder's source words: the longest agreement of the words before it and after it (at
least two words, one on each side where the claim has words on both sides), one to
:data:`MAX_FILL` source words between them, no sentence mark among them. Where no source
passage shares the neighbours, or two passages that agree as well give different words, none
is named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from models.rewrite_spans import WORD


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A run of placeholders as written, and the source words that stand in its place."""

    written: str
    source: str | None


#: A placeholder for a word outside a summariser's vocabulary (lower-cased outputs write "unk").
PLACEHOLDER = re.compile(r"(?<![\w<\[])(?:\[UNK\]|<unk>|<UNK>|\[unk\]|UNK|unk)(?![\w>\]])")
#: Words a run of placeholders may stand for, at most.
MAX_FILL = 4
#: Neighbours compared on each side.
CONTEXT = 3
_SENTENCE_MARK = re.compile(r"[.;:!?\"“”()]")


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """Words and marks of ``text`` with their spans, lower-cased; a placeholder is one token,
    written ``""``."""
    out: list[tuple[int, int, str]] = []
    last = 0
    for m in PLACEHOLDER.finditer(text):
        out += [(a + last, b + last, w.lower()) for a, b, w in _plain(text[last : m.start()])]
        out.append((m.start(), m.end(), ""))
        last = m.end()
    out += [(a + last, b + last, w.lower()) for a, b, w in _plain(text[last:])]
    return out


def _plain(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in WORD.finditer(text)]


def _agree(claim: list[str], source: list[str], k: int, j: int, step: int) -> int:
    """How many tokens agree going from claim index ``k`` and source index ``j`` by ``step``
    (at most :data:`CONTEXT`; a placeholder agrees with nothing)."""
    n = 0
    while (
        n < CONTEXT
        and 0 <= k < len(claim)
        and 0 <= j < len(source)
        and claim[k]
        and claim[k] == source[j]
    ):
        n, k, j = n + 1, k + step, j + step
    return n


def _fill(
    claim: list[str],
    start: int,
    end: int,
    sentences: list[list[tuple[int, int, str]]],
    texts: Sequence[str],
) -> str | None:
    """The source words for the placeholder run ``claim[start:end]``, or None (see the
    module's docstring)."""
    left_wanted = start > 0
    right_wanted = end < len(claim) and bool(claim[end])
    best, fills = 0, set()
    for tokens, text in zip(sentences, texts, strict=True):
        words = [w for _, _, w in tokens]
        for a in range(len(words)):
            left = _agree(claim, words, start - 1, a - 1, -1) if left_wanted else 0
            if left_wanted and not left:
                continue
            for b in range(a + 1, min(a + MAX_FILL, len(words)) + 1):
                gap = text[tokens[a][0] : tokens[b - 1][1]]
                if _SENTENCE_MARK.search(gap):
                    break
                if not re.search(r"\w", gap):
                    continue
                right = _agree(claim, words, end, b, 1) if right_wanted else 0
                if right_wanted and not right:
                    continue
                score = left + right
                if score < 2:
                    continue
                if score > best:
                    best, fills = score, {gap}
                elif score == best:
                    fills.add(gap)
    return next(iter(fills)) if len(fills) == 1 else None


def is_placeholder(word: str) -> bool:
    """Whether one word (a parser's token: "UNK" of "[UNK]") is a placeholder."""
    return PLACEHOLDER.fullmatch(word) is not None


def placeholders(claim: str, source_sentences: Sequence[str]) -> tuple[Placeholder, ...]:
    """Each run of placeholders in ``claim``, as written, with the source words that stand in
    its place (None where the source does not show them; see the module's docstring)."""
    if not PLACEHOLDER.search(claim):
        return ()
    tokens = _tokens(claim)
    words = [w for _, _, w in tokens]
    sentences = [_tokens(s) for s in source_sentences]
    found: list[Placeholder] = []
    k = 0
    while k < len(tokens):
        if words[k]:
            k += 1
            continue
        end = k
        while end < len(tokens) and not words[end]:
            end += 1
        written = claim[tokens[k][0] : tokens[end - 1][1]]
        found.append(Placeholder(written, _fill(words, k, end, sentences, source_sentences)))
        k = end
    return tuple(found)


def placeholder_note(found: Sequence[Placeholder]) -> str:
    """Words for the editor on a claim's placeholders ("" for none): "a placeholder for a word
    its writer lacked, read as written: “UNK” where the source has “oddities”"."""
    if not found:
        return ""
    what = (
        "a placeholder for a word its writer lacked"
        if len(found) == 1
        else "placeholders for words its writer lacked"
    )
    each = ", ".join(
        f"“{p.written}” where the source has “{p.source}”" if p.source else f"“{p.written}”"
        for p in found
    )
    return f"{what}, read as written: {each}"
