"""Markdown's marks in a text: the signs a writer formats with, not words.

Machine-written text often comes as Markdown: "## Summary" above a list, "* **Closure:** The
museum closes …", "says **Dana Ruiz**", a table of "| Revenue | $4.2 billion |" rows. Read as
words, the marks misled every checker: the parser attached "##" as a noun ("## Summary" had
content arcs and was marked "not found in the source", flagging a faithful summary), "**" as a
subject, and it cut a bold label ("**Closure:**") off its item as a sentence of its own, so
"Events move to the town library" was read without the "Education:" it belongs to.

:func:`marks` finds a heading's ``#`` signs (with the spaces after them), the delimiters of
emphasis (``**strong**``, ``__strong__``, ``*em*``), a link's brackets and target
(``[text](url)``), citation marks (``[1]``, ``[^1]``), pictographs ("✅", "🎉"), a block
quote's ``>`` and a table's pipes and the rule below its header, as Markdown reads them: a
delimiter opens before a non-space and closes after one, never inside a word, on one line. A
censored word ("f***ing", "s ***") and arithmetic ("5 * 3") hold none, and a "#" before a figure
(CNN/DailyMail's "# 200,000" for "£ 200,000") is no heading. What the models read drops the
marks found the same in any part of a text (:func:`inline`, :mod:`models.readable`; a heading's
signs are known only in the whole text), the parser reads them as punctuation or blanks (no arc
to or from a mark, :mod:`models.parsing`), what leads a line stays with it (:func:`lead_end`), a
table's row is one sentence, and a heading, a table's header or a footnote's text that states
nothing is not checked (:func:`models.checkers.base.lead_in`). A fenced code block (```` ``` ````
or ``~~~`` to the closing fence) is one sentence, not checked: a command or a template states
nothing about the source (:func:`code_block_end`). An arrow between words joins them ("Cafe →
stays open" is one sentence, :data:`ARROW`). The text shown and stored stays as written.
"""

from __future__ import annotations

import re

#: A heading's signs at a line's start, with the spaces after them: "## Key findings", "# Summary"
#: (one "#" only before a capital: tokenized news writes "# blessed" for a hashtag).
_HEADING = re.compile(r"(?m)^[ \t]{0,3}(#{2,6}[ \t]+(?=[^\d\s#])|#[ \t]+(?=[A-Z]))")
#: Emphasis on one line: a delimiter before a non-space, the same one after a non-space, neither
#: inside a word.
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*\*|\*|__)(?=[^\s*_])[^\n*_]*?[^\s*_\\]\1(?![\w*])")
#: A block quote's marks at a line's start: "> quoted", "> > nested".
_QUOTE = re.compile(r"(?m)^[ \t]{0,3}((?:>[ \t]?)+)")
#: A table's row: a line that starts and ends with a pipe.
_TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*\|[ \t]*$")
#: The rule below a table's header: "|---|:---:|".
_TABLE_RULE = re.compile(r"[ \t]*\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*$")
#: A link: its text in brackets, then its target (and an optional title) in parentheses.
_LINK = re.compile(r"\[[^\]\n]+\](\([^()\s]+(?:[ \t]+\"[^\"\n]*\")?\))")
#: A citation or footnote mark: "[1]", "[1, 3]", "[2-4]", "[^1]", "[^note]" (not a link's text).
_CITATION = re.compile(r"[ \t]*\[(?:\d{1,3}(?:[ \t]*[,–-][ \t]*\d{1,3})*|\^[\w-]{1,20})\](?![(:])")
#: A footnote's text at a line's start: "[^1]: Company filing."
_FOOTNOTE = re.compile(r"[ \t]*\[\^[\w-]{1,20}\]:")
#: A pictograph (an emoji, with its variation selector and joined parts): "✅", "🎉", "🏛️".
PICTOGRAPH = (
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]\ufe0f?"
    "(?:\u200d[\U0001f000-\U0001faff\u2600-\u27bf]\ufe0f?)*"
)
_PICTOGRAPH = re.compile(PICTOGRAPH)
#: A list mark: a bullet or dash, a number, letter or roman numeral with "." or ")", or a
#: pictograph ("✅ The museum closes").
LIST_MARK = rf"[-–—•*·]|\(?(?:\d{{1,3}}|[a-zA-Z]|[ivx]{{2,4}})[.)]|{PICTOGRAPH}"
#: A bold label at a line's start, after any list mark: "**Closure:** …", "__Cost__: …".
_LABEL = re.compile(rf"[ \t]*(?:(?:{LIST_MARK})[ \t]+)?(\*\*|__)[^\n*_]{{1,60}}?(?::\1|\1:)[ \t]+")


#: A fenced code block's opening line: three or more backticks (no backtick after them: that is
#: inline code) or tildes, and any info string ("```python").
_FENCE = re.compile(r"(?m)[ \t]{0,3}(`{3,}(?=[^`\n]*$)|~{3,})[^\n]*")
#: An arrow between words ("Cafe → stays open", "$3M -> $4M"): it joins, it ends nothing.
ARROW = r"[→⟶➔➜⇒]|-{1,2}>|=>"


def code_block_end(text: str, line_start: int) -> int | None:
    """Where the fenced code block that opens at ``line_start`` ends: after its closing fence (the
    same sign, at least as many, alone on its line), or at the text's end when none closes it;
    None when no fence opens there."""
    m = _FENCE.match(text, line_start)
    if m is None:
        return None
    sign, width = m.group(1)[0], len(m.group(1))
    closing = re.compile(rf"(?m)[ \t]{{0,3}}{re.escape(sign)}{{{width},}}[ \t]*$")
    pos = text.find("\n", m.end())
    while pos >= 0:
        c = closing.match(text, pos + 1)
        if c is not None:
            return c.end()
        pos = text.find("\n", pos + 1)
    return len(text)


def code_block(text: str) -> bool:
    """Whether a sentence is a fenced code block (a command, a template, a program's text: not a
    claim about the source)."""
    return _FENCE.match(text.lstrip("\n")) is not None


def marks(text: str) -> list[tuple[int, int]]:
    """The character spans of a whole text's Markdown marks (see the module), in order."""
    spans = [m.span(1) for m in _HEADING.finditer(text)] + inline(text)
    spans += [m.span(1) for m in _QUOTE.finditer(text)]
    for m in _TABLE_ROW.finditer(text):
        if _TABLE_RULE.fullmatch(m.group()):
            spans.append(m.span())
        else:
            spans += [
                (m.start() + k, m.start() + k + 1) for k, c in enumerate(m.group()) if c == "|"
            ]
    return sorted(spans)


def table_row_end(text: str, line_start: int) -> int | None:
    """Where the table row at ``line_start`` ends, with the rule below it when it is the
    table's header (a row is one sentence; a header and its rule are one that states nothing,
    :func:`table_header`); None when the line is no table row."""
    m = _TABLE_ROW.match(text, line_start)
    if m is None or _TABLE_RULE.fullmatch(m.group()):
        return None
    rule = _TABLE_ROW.match(text, m.end() + 1)
    if rule is not None and _TABLE_RULE.fullmatch(rule.group()):
        return rule.end()
    return m.end()


def table_rule_at(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` is the rule below a table's header."""
    m = _TABLE_ROW.match(text, line_start)
    return m is not None and _TABLE_RULE.fullmatch(m.group()) is not None


def table_header(text: str) -> bool:
    """Whether a sentence is a table's header row with its rule below it."""
    lines = text.strip().split("\n")
    return len(lines) == 2 and _TABLE_RULE.fullmatch(lines[1]) is not None


def heading_at(text: str, pos: int) -> bool:
    """Whether a heading's signs start at ``pos``, a line's start."""
    return _HEADING.match(text, pos) is not None


def inline(text: str) -> list[tuple[int, int]]:
    """The spans of the marks found the same in any part of a text (a sentence, a window),
    unlike a heading's signs, which belong to a line's start: the delimiters of emphasis, a
    link's brackets and target ("[the report](https://…)" reads "the report"), citation marks
    ("rose 12 percent [1][2]", "31%.[^1]") and pictographs ("✅", "🎉": decoration, not words)."""
    spans = []
    for m in _EMPHASIS.finditer(text):
        width = len(m.group(1))
        spans += [(m.start(), m.start() + width), (m.end() - width, m.end())]
    spans += [m.span() for m in _PICTOGRAPH.finditer(text)]
    return sorted(spans + blanks(text))


def footnote(text: str) -> bool:
    """Whether a sentence is a footnote's text ("[^1]: Company filing."): it names a source of
    the text, it is not a claim about the source checked."""
    return _FOOTNOTE.match(text) is not None


def blanks(text: str) -> list[tuple[int, int]]:
    """The spans of the marks the parser reads as blanks (:mod:`models.parsing`), its tokenizer
    joining them to words ("report](https://x.org", "1][2", "31%.[^1"): links' brackets and
    targets ("[" and "](https://…)" of "[text](https://…)") and citation marks with the space
    before them ("rose 12 percent [1][2]" reads "rose 12 percent")."""
    spans = []
    for m in _LINK.finditer(text):
        spans += [(m.start(), m.start() + 1), (m.start(1) - 1, m.end())]
    spans += [m.span() for m in _CITATION.finditer(text)]
    return sorted(spans)


def closers(text: str) -> list[tuple[int, int]]:
    """The spans of the delimiters that close emphasis (they end what they emphasise, never
    start a sentence)."""
    return [(m.end() - len(m.group(1)), m.end()) for m in _EMPHASIS.finditer(text)]


def plain(text: str) -> str:
    """The text without its inline marks (:func:`inline`)."""
    out, last = [], 0
    for start, end in inline(text):
        if start < last:
            continue  # inside a mark already dropped
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return "".join(out)


def lead_end(text: str, line_start: int) -> int | None:
    """Where what leads a line that starts at ``line_start`` ends, when it must stay with the
    words after it: a heading's signs ("## Sales rose"), a bold label after any list mark
    ("* **Closure:** The museum closes"), a block quote's marks ("> > It said so"); the offset of
    the first word after it, else None."""
    m = (
        _HEADING.match(text, line_start)
        or _LABEL.match(text, line_start)
        or _QUOTE.match(text, line_start)
    )
    return m.end() if m else None


def emphasised_whole(text: str) -> bool:
    """Whether a sentence is emphasised whole, after any list mark ("**Museum renovation**",
    "- **Key points:**")."""
    body = re.sub(rf"^(?:{LIST_MARK})[ \t]+", "", text.strip())
    m = _EMPHASIS.match(body)
    return m is not None and m.end() == len(body.rstrip(":"))
