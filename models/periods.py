"""Decades and centuries read as the year the source states.

Writers date loosely: "the charter was granted in the thirteenth century" for a source's 1287,
"the mill closed in the late 1990s" for 1998. An entailment model reads "the thirteenth century"
against "1287" as a new fact, not found in the source; it does no calendar arithmetic.
:func:`restate_periods` puts the source's year in place of a period it falls in ("granted in
1287"), taken from the source sentence ranked most relevant to the claim among those with a year
in the period (and a term of the claim), so that the model judges what the claim says happened
then; the year's event is still the model's to judge ("the mill opened in the 1990s" against
"opened in 1996 and closed in 2004" is read as "opened in 1996"). A period in which no year of
such a sentence falls, or two of its years, is left as written; so is a decade the source
writes as a decade ("the 1990s").

Only a period after a preposition of time is read ("in", "since", "during", "by", "until",
"from", "before", "after", "through", "throughout"): "a 13th-century chapel" names a style, and
"the 1990s" as a subject is not a date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from models.figures import Restated

_ORDINALS = {
    w: n
    for n, w in enumerate(
        "_ first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
    if n
}
_ORDINAL_WORDS = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_PERIOD = re.compile(
    r"(?<![\w-])(?P<prep>in|since|during|by|until|from|before|after|through|throughout)\s+"
    r"(?P<period>the\s+(?:(?P<part>early|mid|late)[\s-]+)?"
    r"(?:(?P<decade>1[0-9]{2}0|20[0-9]0)'?s"
    r"|(?P<ordinal>(?:\d{1,2}(?:st|nd|rd|th))|twenty-first|" + _ORDINAL_WORDS + r")\s+century))"
    r"(?![\w-])",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\w.,$£€-])(1[0-9]{3}|20[0-9]{2})(?![\w%-]|[.,]\d)")


def period_years(m: re.Match[str]) -> range:
    """The years a period names: a decade (1990-1999), a century (the thirteenth: 1201-1300),
    narrowed to its early, mid or late part (the first four, the middle four, the last four
    tenths of it)."""
    if m.group("decade"):
        first, length = int(m.group("decade")), 10
    else:
        word = m.group("ordinal").lower()
        n = 21 if word == "twenty-first" else _ORDINALS.get(word) or int(word[:-2])
        first, length = 100 * (n - 1) + 1, 100
    part = (m.group("part") or "").lower()
    if part == "early":
        return range(first, first + 4 * length // 10)
    if part == "mid":
        return range(first + 3 * length // 10, first + 7 * length // 10)
    if part == "late":
        return range(first + 6 * length // 10, first + length)
    return range(first, first + length)


def sole_value(held: Sequence[set[int]], rank: Sequence[float], *, ranked: bool) -> int | None:
    """The one value of the most relevant source sentence that holds any (``held``: per source
    sentence, its values in range; ``rank``: its relevance, earlier first on ties), else None:
    none held, or two in that sentence. With ``ranked``, a sentence that shares no term with the
    claim (relevance 0) is about something else and is passed over."""
    candidates = [k for k, inside in enumerate(held) if inside and (not ranked or rank[k] > 0)]
    if not candidates:
        return None
    inside = held[max(candidates, key=lambda k: (rank[k], -k))]
    return next(iter(inside)) if len(inside) == 1 else None


def restate_periods(
    claim: str, source_sentences: Sequence[str], preference: Sequence[float] | None = None
) -> Restated:
    """Put the year of the most relevant source sentence in place of each period of ``claim``
    that it falls in ("in the 1990s" -> "in 1996"); see the module's docstring."""
    found = list(_PERIOD.finditer(claim))
    if not found or not source_sentences:
        return Restated(claim, ())
    rank = list(preference) if preference is not None else [0.0] * len(source_sentences)
    pieces: list[str] = []
    at, changes = 0, []
    for m in found:
        years = period_years(m)
        held = [
            {int(y.group(1)) for y in _YEAR.finditer(text) if int(y.group(1)) in years}
            for text in source_sentences
        ]
        year = sole_value(held, rank, ranked=preference is not None)
        if year is None:
            continue
        pieces += [claim[at : m.start("period")], str(year)]
        at = m.end("period")
        changes.append((m.group("period"), str(year)))
    if not changes:
        return Restated(claim, ())
    pieces.append(claim[at:])
    return Restated("".join(pieces), tuple(changes))
