"""An answer's own framing: what a chat assistant says about its answer, not about the world.

"Sure! Here's a summary of the article:", "I hope this helps!", "Let me know if you have any
other questions." No source supports such a sentence and none needs to: checked, each was marked
"not found in the source" and flagged a faithful answer (a summary whose every claim the source
states scored 0.11). :func:`framing` says which sentences are such framing; they are not checked
(:func:`models.checkers.base.has_content`). A framing phrase that opens a sentence with a claim
("Based on the provided text, the museum closes in March.", "In summary, …") is dropped from what
the models read (:func:`framing_prefix`, :mod:`models.readable`); the claim is checked.

The patterns are narrow on purpose: a sentence is framing only when it speaks of the answer, the
text or the reader and nothing else ("Here is a summary:" yes, "Here is the museum's plan:" no,
since it claims the source gives a plan; "The report lists three risks:" is checked).
"""

from __future__ import annotations

import re

_WORDS_OF_THE_TEXT = r"(?:text|article|passage|document|source|story|report|information|content)"
_SUMMARY = (
    r"(?:summary|summari[sz]ation|overview|recap|rundown|breakdown|brief|synopsis|gist"
    r"|key (?:points|facts|findings|takeaways|details)|main (?:points|facts|findings|ideas)"
    r"|takeaways|highlights|answer|response)"
)
_FRAMING = [
    # an interjection alone
    r"(?:sure|certainly|of course|absolutely|okay|ok|great question|good question)",
    # "Here's a summary of the article:", "Here are the key points:", "Below is a short summary:"
    r"(?:here(?:'s|’s| is| are)|below (?:is|are)|the following (?:is|are))\s+"
    rf"(?:(?:a|an|the|my|some|your)\s+)?(?:\w+\s+){{0,3}}{_SUMMARY}"
    rf"(?:\s+of\s+(?:the|this|that|your)\s+(?:\w+\s+)?{_WORDS_OF_THE_TEXT})?"
    r"(?:\s+\w+){0,3}\s*:",
    # "In summary:", "The article's key points:", "Summary of the text:"
    rf"(?:(?:in|a|the|my)\s+)?(?:(?:article|text|passage|document)(?:'s|’s)?\s+)?{_SUMMARY}"
    rf"(?:\s+of\s+the\s+{_WORDS_OF_THE_TEXT})?\s*:",
    # closing pleasantries
    r"i hope (?:this|that|it|the above) (?:helps|is helpful|answers your question)\b.*",
    r"(?:please )?(?:let me know|feel free to ask|don't hesitate to ask)\b.*",
    r"(?:is there anything else|do you have any other questions|if you have any (?:other |more "
    r"|further )?questions)\b.*",
    r"(?:i'm|i am|i'd be|i would be) (?:happy|glad) to help\b.*",
]
_FRAMING_RE = re.compile(r"(?:" + "|".join(_FRAMING) + r")[\s!.?]*", re.IGNORECASE)
#: A framing phrase that opens a sentence whose claim is checked.
_PREFIX = re.compile(
    rf"(?:(?:based on|according to|from) (?:the |this )?(?:provided |given |above )?"
    rf"{_WORDS_OF_THE_TEXT}(?: (?:provided|given|above))?"
    r"|in summary|to summari[sz]e|to sum up|in short|in brief|in conclusion)\s*,\s*",
    re.IGNORECASE,
)
#: An interjection before a framing sentence ("Sure! Here's …" is one sentence to the parser at
#: times).
_OPENER = re.compile(r"(?:sure|certainly|of course|absolutely|okay|ok)[!.,]?\s+", re.IGNORECASE)


def framing(text: str) -> bool:
    """Whether a sentence is the answer's own framing (see the module)."""
    body = text.strip()
    opener = _OPENER.match(body)
    if opener and opener.end() < len(body):
        body = body[opener.end() :]
    return _FRAMING_RE.fullmatch(body) is not None


def framing_prefix(text: str) -> list[tuple[int, int]]:
    """The spans of framing phrases that open a sentence of ``text`` ("Based on the provided
    text, …", "In summary, …"): at its start or after a sentence's end."""
    return [
        m.span()
        for m in _PREFIX.finditer(text)
        if m.start() == 0 or re.search(r"[.!?:][\"'”’)]*\s+$", text[: m.start()])
    ]
