"""A pound sign lost to "#" read as the source writes it.

Summaries from systems trained on the tokenized CNN/DailyMail news carry that corpus's mark for
the pound sign: "a guide price of between # 200,000 and # 250,000" where the article says
"between £200,000 and £250,000". The NLI model reads "#" as another word: the bundled model read
that claim against its source sentence as contradicted (0.99), and read it as entailed once the
sign was put back. The lexical and question checkers compare figures, not signs, and are not
misled.

:func:`restore_pound` puts "£" back where the source shows the mark is the lost sign: the source
writes "£" before a figure and never "#" before one. "#" then stands before a figure in the claim
only where the pound sign was lost ("#1" in an article priced in pounds would be read as "£1";
no held-out output has one). A source without "£", or with "#" before a figure of its own (a
hashtag, "#3 in the charts", or a source tokenized the same way), leaves the claim as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from models.figures import Restated

#: "#" before a figure, the space a tokenizer put after it included.
_LOST = re.compile(r"(?<![\w#&])#\s?(?=\d)")
_POUND_FIGURE = re.compile(r"£\s?\d")
_HASH_FIGURE = re.compile(r"#\s?\d")
#: The figure after a restored sign, for the change shown to the editor.
_FIGURE = re.compile(r"\d[\d,.]*\d|\d")


def restore_pound(claim: str, source_sentences: Sequence[str]) -> Restated:
    """``claim`` with each "#" before a figure written "£" where the source writes its figures
    with "£" and none with "#"; the changes name each figure as written and as read."""
    if "#" not in claim:
        return Restated(claim, ())
    source = " ".join(source_sentences)
    if not _POUND_FIGURE.search(source) or _HASH_FIGURE.search(source):
        return Restated(claim, ())
    changes: list[tuple[str, str]] = []
    out: list[str] = []
    last = 0
    for m in _LOST.finditer(claim):
        figure = _FIGURE.match(claim, m.end())
        number = figure.group() if figure else ""
        changes.append((claim[m.start() : m.end()] + number, f"£{number}"))
        out += [claim[last : m.start()], "£"]
        last = m.end()
    if not changes:
        return Restated(claim, ())
    out.append(claim[last:])
    return Restated("".join(out), tuple(changes))
