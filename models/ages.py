"""Ages given as a decade of life read as the age the source states.

Reporters and summaries round a person's age to a decade: "a man in his thirties was arrested"
for a source's "a 34-year-old man", "a woman in her late 70s" for "Edna Price, 78,". An
entailment model does no such arithmetic and reads the decade as a detail the source does not
give. :func:`restate_ages` puts the source's age in its place ("a man aged 34 was arrested"),
taken from the source sentence ranked most relevant to the claim among those stating an age in
that decade (and sharing a term with the claim), so that the model judges whom the claim is
about and what it says of them. A decade that no such age falls in, or two of a sentence's ages,
is left as written: "in their twenties" for "aged 22 and 27" says nothing one age could restate.

An age is read where the source writes one: "a 34-year-old", "34 years old", "aged 34", "at age
34", a name followed by the age between commas ("Miriam Harlow, 52, said") or in brackets
("Harlow (52)"), and in words ("a thirty-four-year-old").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from models.figures import TENS, Restated, words_value
from models.periods import sole_value

_DECADE_WORDS = {w[:-1] + "ies": n for w, n in TENS.items()}  # "thirty" -> "thirties"
_DECADE = "|".join(sorted(_DECADE_WORDS, key=len, reverse=True))
_AGE_DECADE = re.compile(
    r"(?<![\w-])in\s+(?:his|her|their)\s+"
    r"(?:(?P<part>early|mid|late)[\s-]+)?"
    rf"(?P<decade>{_DECADE}|[2-9]0'?s)(?![\w-])",
    re.IGNORECASE,
)
_WORDED = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-][a-z]+)?"
_AGE = re.compile(
    rf"(?<![\w.,$£€-])(?P<n>\d{{1,3}}|{_WORDED})[\s-]+years?[\s-]+old(?![\w-])"
    # "aged 22 and 27", "ages 9 to 12": each age of the list
    r"|(?<![\w-])(?:aged|ages?)\s+(?P<aged>\d{1,3}(?:\s*(?:,|and|or|to|-)\s*\d{1,3})*)"
    r"(?![\w.,-]\d|[\w-])"
    r"|(?<=[A-Za-z])\s*,\s*(?P<comma>\d{1,3})\s*,(?!\d)"
    r"|(?<=[A-Za-z])\s*\(\s*(?P<bracket>\d{1,3})\s*\)",
    re.IGNORECASE,
)


def decade_ages(m: re.Match[str]) -> range:
    """The ages a decade of life names: "in his thirties" 30-39, "early" 30-33, "mid" 33-36,
    "late" 36-39."""
    word = m.group("decade").lower()
    first = _DECADE_WORDS.get(word) or int(word[:2])
    part = (m.group("part") or "").lower()
    if part == "early":
        return range(first, first + 4)
    if part == "mid":
        return range(first + 3, first + 7)
    if part == "late":
        return range(first + 6, first + 10)
    return range(first, first + 10)


def stated_ages(sentence: str) -> set[int]:
    """The ages a sentence states (see the module's docstring)."""
    ages = set()
    for m in _AGE.finditer(sentence):
        text = next(g for g in m.group("n", "aged", "comma", "bracket") if g)
        for part in re.findall(r"\d+", text) if text[0].isdigit() else [text]:
            value = int(part) if part.isdigit() else words_value(part)
            if value is not None and 0 < value < 130 and value == int(value):
                ages.add(int(value))
    return ages


def restate_ages(
    claim: str, source_sentences: Sequence[str], preference: Sequence[float] | None = None
) -> Restated:
    """Put the age of the most relevant source sentence in place of each decade of life in
    ``claim`` that it falls in ("in his thirties" -> "aged 34"); see the module's docstring."""
    found = list(_AGE_DECADE.finditer(claim))
    if not found or not source_sentences:
        return Restated(claim, ())
    rank = list(preference) if preference is not None else [0.0] * len(source_sentences)
    pieces: list[str] = []
    at, changes = 0, []
    for m in found:
        ages = decade_ages(m)
        held = [{a for a in stated_ages(text) if a in ages} for text in source_sentences]
        age = sole_value(held, rank, ranked=preference is not None)
        if age is None:
            continue
        said = f"aged {age}"
        pieces += [claim[at : m.start()], said]
        at = m.end()
        changes.append((m.group(), said))
    if not changes:
        return Restated(claim, ())
    pieces.append(claim[at:])
    return Restated("".join(pieces), tuple(changes))
