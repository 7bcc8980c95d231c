"""Why a checker left an output sentence unchecked because it states nothing to check.

Kept apart from the checkers so that the window can tell such a sentence from one a model could
not read (too long for its input, a source without text), which an editor must judge, without
importing the checkers.
"""

from __future__ import annotations

NO_CONTENT = "no content arcs"
#: Why a lead-in (:func:`models.checkers.base.lead_in`) is not checked.
LEAD_IN = (
    "introduces what follows or cites (a lead-in, heading, table header, footnote): "
    "nothing to check"
)
#: Why an answer's own framing (:func:`models.framing.framing`) is not checked.
FRAMING = 'the answer\'s own framing ("Here is a summary:", "I hope this helps"): nothing to check'
#: Why a fenced code block (:func:`models.markdown.code_block`) is not checked.
CODE = "code or a template (a fenced block): nothing to check"


def not_english(what: str, language: str) -> str:
    """Why a text (``what``: "the source", "the output") or one output sentence ("it") that
    reads as another language is not checked: the models read English only. Not a sentence that
    states nothing: an editor judges it."""
    return f"{what} reads as {language}, not English: the models read English only"


#: The reasons of a sentence that states nothing to check.
NOTHING_TO_CHECK = frozenset({NO_CONTENT, LEAD_IN, FRAMING, CODE})
