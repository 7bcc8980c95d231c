"""An output written in lower case, read for names with its source's capitals.

Summarisers trained on lower-cased text write "kaitlyn granado , 24 , is a maths teacher at
macarthur high school in irving"; spaCy's entity recogniser finds no person or organisation in
such text, so an audit of entity familiarity (:mod:`app.audit.familiarity`) would find none in
the outputs that need it. An output without a capital letter, beside a source that has capitals,
is therefore read for entities as if its words were written as the source writes them
(:func:`cased_like`): a run of capitalised words in the source ("MacArthur High School") where
the output has the same words in a row, else each word as the source writes it away from a
sentence start (in lower case where the source writes it so at all: "school" beside "High
School"); a capital at each sentence start and "i" as "I". Letters change case and nothing else
(a form of another length is not taken), so every offset holds for the text as written, which is
what is stored and shown.

The parse the checkers read is not made from this text: measured (docs/history.md), the arc and
support heads trained on lower-case outputs parsed as written read such a parse slightly worse.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

#: A word: letters, with inner apostrophes ("o'brien", "don't").
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
#: Where a sentence starts: the text's start, or after . ! ? (and closing quotes or brackets)
#: and white space, or a line break; the next word is a sentence start.
_START = re.compile(r"(?:\A|[.!?][\"'”’)\]]*\s+|\n\s*)[\"'“‘(\[]*")
#: The longest run of capitalised words taken as one name.
_LONGEST_RUN = 6

Words = list[tuple[int, int, str]]  # (start, end, word)


def _words(text: str) -> Words:
    return [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]


def _sentence_starts(text: str) -> set[int]:
    return {m.end() for m in _START.finditer(text)}


def _adjacent(text: str, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return text[a[1] : b[0]].isspace() and "\n" not in text[a[1] : b[0]]


def source_forms(source: str) -> dict[str, str]:
    """How the source writes each word (lower-cased word -> form), from the words that do not
    start a sentence (there a capital says nothing about the word): in lower case wherever it
    writes it so once, else its most frequent form."""
    starts = _sentence_starts(source)
    counts: dict[str, Counter[str]] = {}
    for start, _, word in _words(source):
        if start not in starts:
            counts.setdefault(word.lower(), Counter())[word] += 1
    return {
        word: word if word in forms else forms.most_common(1)[0][0]
        for word, forms in counts.items()
    }


def source_names(source: str, forms: dict[str, str]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Runs of two or more capitalised words next to each other in the source, by their
    lower-cased words; a run's first word at a sentence start counts only where the source
    writes that word with a capital elsewhere."""
    starts = _sentence_starts(source)
    words = _words(source)
    runs: dict[tuple[str, ...], tuple[str, ...]] = {}
    run: Words = []

    def close() -> None:
        if run and run[0][0] in starts and forms.get(run[0][2].lower(), "")[:1].islower():
            run.pop(0)
        if len(run) >= 2:
            for n in range(2, min(len(run), _LONGEST_RUN) + 1):
                for k in range(len(run) - n + 1):
                    part = run[k : k + n]
                    runs.setdefault(tuple(w.lower() for *_, w in part), tuple(w for *_, w in part))
        run.clear()

    for w in words:
        if not w[2][:1].isupper() or (run and not _adjacent(source, run[-1], w)):
            close()
        if w[2][:1].isupper():
            run.append(w)
    close()
    return runs


def cased_like(text: str, source: str) -> str | None:
    """``text`` with the source's capitals (see the module), or None when the text has a
    capital of its own or the source has none (there is nothing to borrow, or no need)."""
    if text != text.lower() or source == source.lower():
        return None
    forms = source_forms(source)
    names = source_names(source, forms)
    chars = list(text)
    starts = _sentence_starts(text)
    words = _words(text)
    cased: dict[int, str] = {}
    k = 0
    while k < len(words):
        for n in range(min(_LONGEST_RUN, len(words) - k), 1, -1):
            part = words[k : k + n]
            key = tuple(w for *_, w in part)
            if key in names and all(_adjacent(text, a, b) for a, b in itertools.pairwise(part)):
                cased.update((s, f) for (s, _, _), f in zip(part, names[key], strict=True))
                k += n
                break
        else:
            start, _, word = words[k]
            cased[start] = forms.get(word, "I" if word == "i" else word)
            k += 1
    for start, end, word in words:
        form = cased[start]
        if start in starts:
            form = form[:1].upper() + form[1:]
        if len(form) == len(word):
            chars[start:end] = form
    return "".join(chars)
