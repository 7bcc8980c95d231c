"""The text a model reads: an output or a source as written, less a word tokenizer's marks.

Summaries from systems trained on tokenized news (CNN/DailyMail) and the sources some data sets
ship come as "she did n't know", "a guide price of £ 200,000", "-lrb- formerly the history channel
-rrb-", "` legend of the game '". The models here were trained on ordinary text, and their word-
piece tokenizer reads some of these marks as other words: "did n't" is "did", "n", "'", "t"
where "didn't" is "didn", "'", "t"; "£ 200,000" puts "200" after a space, "£200,000" a "##200"
inside a word. Measured with the bundled NLI model on a SummEval source sentence and a faithful
output's claim copied from it: "she did n't know it was wrong" reads contradiction 0.64 where
"she didn't know it was wrong" reads entailment 0.93, and "between £ 200,000 and £ 250,000"
contradiction 0.89 where "between £200,000 and £250,000" reads entailment 0.98.

:func:`readable` undoes those marks: a clitic written apart ("did n't", "it 's") is joined to
its word, a currency sign to its figure, a space before closing punctuation or after an opening
bracket is dropped, the bracket words (``-lrb-`` …) become brackets and the backtick quotes
(`` `` `` and `` ` ``) plain ones. Markdown's inline marks (:mod:`models.markdown`) and a
framing phrase that opens a sentence ("Based on the provided text, …", :mod:`models.framing`)
are dropped, and a figure's abbreviated scale is written out ("12.5k" -> "12,500", "$4.2B" ->
"$4.2 billion"). Ordinary text has none of these
and comes back unchanged.
Only what models read is changed: the editor sees the text as imported, and the arc spans a
model reads are carried to the new text by :func:`readable_map`.
"""

from __future__ import annotations

import re

from models.framing import framing_prefix
from models.markdown import inline

#: Part of the versions of the checkers whose models read text through :func:`readable`: a
#: project scored before it is scored again.
READ_REVISION = "read2"
#: What a bracket word becomes (the other marks: :func:`_replacement`).
_BRACKETS = {
    "-lrb-": "(",
    "-rrb-": ")",
    "-lsb-": "[",
    "-rsb-": "]",
    "-lcb-": "{",
    "-rcb-": "}",
}
_PATTERN = re.compile(
    r"(?P<bracket>-l[rsc]b-(?: (?=\S))?|(?:(?<=\S) )?-r[rsc]b-)"
    r"|(?P<dquote>``|'')"
    r"|(?P<squote>`)"
    # a clitic written apart from its word: "did n't", "it 's", "we 're", "I 'm"
    r"|(?<=\w)(?P<clitic> )(?=(?:n't|'s|'re|'ve|'ll|'m|'d)\b(?!'))"
    # a currency sign written apart from its figure: "£ 200,000", "€ 5"
    r"|(?<=[£€¥$])(?P<currency> )(?=\d)"
    # a space before closing punctuation ("word ,", "end .", "5 %") or after an opening bracket
    r"|(?<=\S)(?P<before> )(?=[,.;:!?%)\]}](?:\s|$|[,.;:!?%)\]}'\"]))"
    r"|(?<=[(\[{])(?P<after> )(?=\S)",
    re.IGNORECASE,
)


#: A figure written with a scale's abbreviation: "12.5k", "$4.2B", "£40m", "3bn".
_ABBREVIATED = re.compile(
    r"(?P<currency>[$£€¥] ?)?(?<![\w.,])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r" ?(?P<scale>k|K|mn|mln|MM|bn|bln|tn|trn|M|B|T|m|b)\b"
)
#: What each abbreviation stands for; the ones of one letter other than "k" only after a
#: currency sign ("140m" may be metres, "$6.2m" is money).
_SCALES = {
    "k": "thousand",
    "mn": "million",
    "mln": "million",
    "mm": "million",
    "bn": "billion",
    "bln": "billion",
    "tn": "trillion",
    "trn": "trillion",
    "m": "million",
    "b": "billion",
    "t": "trillion",
}


def _figure_edits(text: str) -> list[tuple[int, int, str]]:
    """Figures with a scale's abbreviation written out: "12.5k" as "12,500" (the models read
    "about 12.5k employees" against "employs 12,500 people" as contradicted, 0.62, and "about
    12,500" as entailed, 0.94), "$4.2B" as "$4.2 billion" (entailment 0.86 -> 0.98)."""
    out = []
    for m in _ABBREVIATED.finditer(text):
        scale = m.group("scale").lower()
        if len(scale) == 1 and scale != "k" and not m.group("currency"):
            continue
        number = m.group("number")
        if scale == "k":
            value = float(number.replace(",", "")) * 1000
            new = f"{int(value):,}" if value == int(value) else f"{number} thousand"
        else:
            new = f"{number} {_SCALES[scale]}"
        out.append((m.start("number"), m.end(), new))
    return out


def readable(text: str) -> str:
    """``text`` without a word tokenizer's marks and Markdown's (see the module's docstring)."""
    return readable_map(text)[0]


def _edits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of every mark to undo, in order: a word tokenizer's
    (:data:`_PATTERN`) and Markdown's inline marks (:func:`models.markdown.inline`, dropped)."""
    found = [(m.start(), m.end(), _replacement(m)) for m in _PATTERN.finditer(text)]
    found += [(a, b, "") for a, b in inline(text) + framing_prefix(text)]
    found += _figure_edits(text)
    out: list[tuple[int, int, str]] = []
    for edit in sorted(found):
        if not out or edit[0] >= out[-1][1]:
            out.append(edit)
    return out


def readable_map(text: str) -> tuple[str, list[int]]:
    """:func:`readable`'s text, and where each character offset of ``text`` (``0`` to
    ``len(text)`` inclusive) falls in it: a span ``[a, b)`` of ``text`` is ``[at[a], at[b])``
    there. A dropped space maps to where its neighbours meet; a replaced mark's characters to
    its replacement's start, its end to the replacement's end."""
    out: list[str] = []
    at: list[int] = []
    length = 0  # of the text read so far
    last = 0
    for start, end, new in _edits(text):
        kept = text[last:start]
        at.extend(range(length, length + len(kept)))
        at.extend([length + len(kept)] * (end - start))
        out += [kept, new]
        length += len(kept) + len(new)
        last = end
    kept = text[last:]
    at.extend(range(length, length + len(kept) + 1))
    out.append(kept)
    return "".join(out), at


def _replacement(m: re.Match[str]) -> str:
    """What one mark becomes: a bracket or a plain quote; a dropped space is nothing."""
    if m.lastgroup == "bracket":
        return _BRACKETS[m.group().strip().lower()]
    return {"dquote": '"', "squote": "'"}.get(m.lastgroup or "", "")
