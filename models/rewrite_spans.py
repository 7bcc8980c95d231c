"""Where a word of a text went when the text was rewritten.

The NLI checker reads a claim with its hedged figures as the source states them and its
comparisons without their number (:func:`models.derived_figures.read_figures`): "Seven in ten
union members backed the deal" is read as "71 percent of union members backed the deal". The arc
and support heads read the same rewrite, and an arc names its words by character spans in the
text as written, so each span must be found again in the rewrite. The two texts are compared word
by word (a word: letters and digits with the commas, stops, apostrophes and hyphens inside them,
or one other mark): a word kept as it was keeps its place; a word inside a rewritten stretch
points at the words that replace it (one for one when the stretch keeps its number of words,
else the whole replacement); a word the rewrite dropped is not found.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

#: A word (letters and digits with the marks inside them) or one other mark.
WORD = re.compile(r"\w+(?:[.,'’-]\w+)*|[^\w\s]")

Span = tuple[int, int]


def _words(text: str) -> list[Span]:
    return [m.span() for m in WORD.finditer(text)]


def span_map(written: str, rewritten: str) -> Callable[[Span], Span | None]:
    """A function from a character span of ``written`` to the span of ``rewritten`` that now
    holds its words (None: the rewrite dropped them)."""
    old, new = _words(written), _words(rewritten)
    matcher = difflib.SequenceMatcher(
        None, [written[a:b] for a, b in old], [rewritten[a:b] for a, b in new], autojunk=False
    )
    # per word of the text as written: where it went, and whether it is unchanged there
    went: list[tuple[Span, bool] | None] = [None] * len(old)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            continue
        for k in range(i1, i2):
            if tag == "equal":
                went[k] = (new[j1 + k - i1], True)
            elif i2 - i1 == j2 - j1:
                went[k] = (new[j1 + k - i1], False)
            else:
                went[k] = ((new[j1][0], new[j2 - 1][1]), False)

    def carry(span: Span) -> Span | None:
        hit = [k for k, (a, b) in enumerate(old) if a < span[1] and span[0] < b]
        if not hit or any(went[k] is None for k in hit):
            return None
        first, last = went[hit[0]], went[hit[-1]]
        assert first is not None and last is not None
        if len(hit) == 1 and first[1]:
            # a word kept as written: the span's place inside it is kept too ("Bride" of
            # "Bride's")
            shift = first[0][0] - old[hit[0]][0]
            return (max(span[0], old[hit[0]][0]) + shift, min(span[1], old[hit[0]][1]) + shift)
        return (first[0][0], last[0][1])

    return carry
