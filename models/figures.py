"""Figures in text: their values, the words that hedge them, and whether a hedge holds.

Writers round: "a crowd of about 6,400" for 6,412, "just over four million dollars" for 4.2
million, "seven in ten members" for 71 percent, "nearly half" for 48 percent. An entailment model
reads such a figure as a new number, not found in the source. This module finds the figures of a
text (counts, and shares: percentages, "N in M", "half", "three quarters"), reads their values
and hedges, and says whether a hedged figure holds for a figure the source states
(:func:`holds`). :func:`restate_figures` puts the source's own figure in place of a hedged one
that it satisfies, so that what a model then judges is the claim itself ("a crowd of 6,412
watched ..."), not the arithmetic of rounding; a hedge the source does not satisfy is left as
it is, for the model to judge.

Years ("in 1949") are not figures here: they are named, not rounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

UNITS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {
    w: 10 * n
    for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if n > 1
}
SCALES = {
    "dozen": 12.0,
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
}

#: Words before a figure that round it: the true value is at least the figure ("more than
#: 200,000" for 230,000), at most it ("under 3 weeks"), or near it ("about 4 million").
AT_LEAST = frozenset("more over above exceed upwards".split())
AT_MOST = frozenset("less fewer under below".split())
NEAR = frozenset(
    "about around approximately nearly almost roughly some just close estimate".split()
)
#: Hedges that are also prepositions of place or time: before an article they seldom hedge
#: ("over a year period", "under a week's notice"), so "over a year" is not read as a figure.
PLACE_HEDGES = frozenset("over under above below some".split())
#: Of those, the ones that are prepositions before the very figure the source states ("married
#: 10 men over 11 years" against "over the course of 11 years"), not bounds it meets.
PREPOSITION_HEDGES = PLACE_HEDGES - {"some"}
#: How far a figure said to be near another may be from it (a share of the stated value).
ROUNDING = 0.15
#: How far past a bound a figure may lie: "more than 40" is said of 43 or 70, not of 2 million.
BOUND = 2.0


_GLUED = re.compile(r"(?P<n>\d+(?:\.\d+)?)(?P<scale>hundred|thousand|million|billion|trillion|bn)")


def number_value(words: Sequence[str]) -> float | None:
    """The number a figure's words say ("4.2 million", "four million", "14,000"), else None."""
    total, current, seen = 0.0, 0.0, False
    for w in words:
        w = w.lower().replace(",", "")
        if ")" in w[:-1]:  # "(CNN)Two": a dateline run into the figure
            w = w.rsplit(")", 1)[1]
        if w[:1].isdigit() and "(" in w:  # "6(3": a set's score run into its tie-break
            w = w.split("(", 1)[0]
        glued = _GLUED.fullmatch(w)  # "42.5million", "3bn"
        if glued:
            current += float(glued["n"])
            w = "billion" if glued["scale"] == "bn" else glued["scale"]
        if w in SCALES:
            current = (current or 1.0) * SCALES[w]
            if SCALES[w] >= 1e3:
                total, current = total + current, 0.0
        elif w in UNITS or w in TENS:
            current += UNITS.get(w, 0) + TENS.get(w, 0)
        else:
            try:
                current += float(w)
            except ValueError:
                return None
        seen = True
    return total + current if seen else None


# Hedges as written before a figure, longest first, each with its direction:
# "up" (the true value is at least the figure), "down" (at most), "near" (close to it on either
# side), "below" (close to it, not above: "nearly", "almost", "just under") and "above" (close to
# it, not below: "just over").
_HEDGES = (
    ("well over", "up"),
    ("well above", "up"),
    ("well under", "down"),
    ("well below", "down"),
    ("a little more than", "above"),
    ("slightly more than", "above"),
    ("a little over", "above"),
    ("slightly over", "above"),
    ("just over", "above"),
    ("just above", "above"),
    ("just under", "below"),
    ("just below", "below"),
    ("a little under", "below"),
    ("slightly under", "below"),
    ("slightly less than", "below"),
    ("a little less than", "below"),
    ("not quite", "below"),
    ("more than", "up"),
    ("upwards of", "up"),
    ("in excess of", "up"),
    ("at least", "up"),
    ("over", "up"),
    ("above", "up"),
    ("fewer than", "down"),
    ("less than", "down"),
    ("at most", "down"),
    ("up to", "down"),
    ("under", "down"),
    ("below", "down"),
    ("nearly", "below"),
    ("almost", "below"),
    ("close to", "near"),
    ("about", "near"),
    ("around", "near"),
    ("roughly", "near"),
    ("approximately", "near"),
    ("an estimated", "near"),
    ("some", "near"),
)
_WORD_NUMBER = "|".join(sorted([*UNITS, *TENS], key=len, reverse=True))
DIGITS_PATTERN = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = r"(?:\s+(?:dozen|hundred|thousand|million|billion|trillion)|(?<=\d)(?:m|bn)\b)"
# a number: digits or words ("forty-three", "a thousand"), maybe with a scale
NUMBER_PATTERN = (
    rf"(?:(?:{DIGITS_PATTERN})|(?:(?:{_WORD_NUMBER})(?:-(?:{_WORD_NUMBER}))?)|(?:an?))(?:{_SCALE})*"
)
FRACTIONS = {
    "half": 50.0,
    "a half": 50.0,
    "one half": 50.0,
    "a third": 100 / 3,
    "one third": 100 / 3,
    "two thirds": 200 / 3,
    "a quarter": 25.0,
    "one quarter": 25.0,
    "three quarters": 75.0,
    "a fifth": 20.0,
    "one fifth": 20.0,
    "two fifths": 40.0,
    "three fifths": 60.0,
    "four fifths": 80.0,
    "a tenth": 10.0,
    "one tenth": 10.0,
}
FRACTION_PATTERN = "|".join(sorted(FRACTIONS, key=len, reverse=True))
HEDGE_PATTERN = "|".join(re.escape(h) for h, _ in _HEDGES)
#: What may follow "one bud in seven": a share with the counted noun inside it is only read as
#: one where no noun follows its whole ("two goals in ten minutes" is a rate, not a share): the
#: sentence ends, or a verb comes ("was lost", "said", "backed").
_AFTER_SHARE_OF_NOUN = (
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:is|are|was|were|has|have|had|will|would|could|can|may|might|"
    r"do|does|did|say|says|said|got|get|gets|now|still)\b|\s+[a-z]+ed\b)"
)
#: Words that cannot be the counted noun of such a share.
_NOT_COUNTED = r"(?!(?:of|and|or|per|percent|times|more|less|fewer|than|a|an|the|every)\b)"
#: A part after a whole number ("one and a half", "two and three quarters"), and how far off a
#: figure so written may be.
AND_PARTS = {"a half": 0.5, "a quarter": 0.25, "three quarters": 0.75}
_AND_PART = "|".join(part.replace(" ", r"\s+") for part in AND_PARTS)
#: Words after a figure that name what it counts in a way that must agree ("three weeks" is not
#: "1.6 times"); other nouns may be reworded ("40 vessels" for "43 ships").
UNIT_WORDS = frozenset(
    """time second minute hour day week month year decade century percent metre meter
    kilometre kilometer km mile foot feet inch yard kilogram kg gram tonne ton pound dollar euro
    pence cent penny litre liter gallon acre hectare degree point goal run vote seat""".split()
)
#: A count may be hyphened to its unit ("a nine-day strike", "a 27-metre tower"): it is read
#: with the unit as "nine days" is (a share is not: "half-time"; nor an age: "a 26-year-old").
_HYPHENED_UNIT = "|".join(sorted(UNIT_WORDS, key=len, reverse=True))
_FIGURE = re.compile(
    rf"(?<![\w.,-])(?:(?P<hedge>{HEDGE_PATTERN})\s+)?"
    rf"(?:(?:(?P<share_of>(?P<part>{NUMBER_PATTERN})\s+"
    rf"(?:{_NOT_COUNTED}(?P<counted>[a-z]+)\s+)?(?:in|out\s+of)\s+(?:every\s+)?"
    rf"(?P<whole>{NUMBER_PATTERN})(?![,.]?\d)(?(counted){_AFTER_SHARE_OF_NOUN}))"
    rf"|(?P<fraction>{FRACTION_PATTERN})"
    rf"|(?P<percent>(?P<pvalue>{DIGITS_PATTERN})\s*(?:%|percent\b|per\s+cent\b)))"
    rf"(?![\w-])"
    rf"|(?P<count>{NUMBER_PATTERN})(?:\s+and\s+(?P<and_part>{_AND_PART}))?"
    rf"(?!\w)(?!-(?!(?:{_HYPHENED_UNIT})\b))(?!-\w+-old\b))",
    re.IGNORECASE,
)
#: A year as a figure's words write it ("1968").
YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
HEDGE_DIRECTION = dict(_HEDGES)


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure of a text.

    Attributes:
        start, end: character offsets of the whole mention, hedge included.
        value: the number; a share is in percent ("seven in ten" -> 70).
        kind: "count" or "share".
        hedge: "up", "down", "near", "below" or "above" (see ``_HEDGES``); None when exact. A
            share in words ("seven in ten", "half") is "near" unless hedged otherwise: such
            shares round.
        text: the mention as written.
        figure_start: where the figure itself starts (after the hedge).
        precision: how far off a rounded figure may be (:func:`place`; ten points for a share
            in words: "a third", "two in three").
        counted: the noun a share in words names inside it, in the plural ("buds" for "one bud
            in seven").
    """

    start: int
    end: int
    value: float
    kind: str
    hedge: str | None
    text: str
    figure_start: int
    precision: float
    counted: str | None = None


def words_value(text: str) -> float | None:
    words = re.sub(r"(?<=\d)(m|bn)\b", r" \1", text.lower().replace("-", " ")).split()
    words = ["million" if w == "m" else "billion" if w == "bn" else w for w in words]
    if words and words[0] in ("a", "an"):
        words = ["one", *words[1:]] if len(words) > 1 else []
    return number_value(words) if words else None


def find_figures(text: str) -> list[Figure]:
    """The figures of a text in order: counts and shares, with their hedges; years left out."""
    out = []
    for m in _FIGURE.finditer(text):
        hedge = m.group("hedge")
        direction = None if hedge is None else HEDGE_DIRECTION[hedge.lower()]
        figure_start = m.start() if hedge is None else m.end("hedge")
        while figure_start < m.end() and text[figure_start].isspace():
            figure_start += 1
        kind, value, precision, counted = "count", None, None, None
        if m.group("share_of"):
            part, whole = words_value(m.group("part")), words_value(m.group("whole"))
            counted = m.group("counted")
            if counted and part == 1:
                counted = plural(counted)
            if part is not None and whole and part < whole and not YEAR.fullmatch(m["whole"]):
                kind, value, precision = "share", 100.0 * part / whole, 10.0
                direction = direction or "near"  # "seven in ten" rounds whatever the hedge
        elif m.group("fraction"):
            kind, value, precision = "share", FRACTIONS[m.group("fraction").lower()], 10.0
            direction = direction or "near"
        elif m.group("percent"):
            kind, value = "share", float(m.group("pvalue").replace(",", ""))
        else:
            said = m.group("count")
            if said.lower() in ("a", "an"):
                if (
                    hedge is None
                    or hedge.lower() in PLACE_HEDGES
                    or unit_after(text, m.end()) is None
                ):
                    continue  # an article, unless a hedged unit's ("more than a week")
                value = 1.0
            elif hedge is None and YEAR.fullmatch(said):
                continue
            else:
                value = words_value(said)
                if hedge is None and re.search(r"dozen", said, re.IGNORECASE):
                    direction = "near"  # "a dozen" rounds: said of 11 or 13
                part = m.group("and_part")
                if value is not None and part is not None:
                    value += AND_PARTS[" ".join(part.lower().split())]
                    precision = 0.25  # "one and a half" is rounded to a quarter at most
        if value is None:
            continue
        out.append(
            Figure(
                m.start(),
                m.end(),
                value,
                kind,
                direction,
                m.group(),
                figure_start,
                place(value) if precision is None else precision,
                counted,
            )
        )
    return out


def place(value: float) -> float:
    """The place of a figure's last significant digit: 100 for 6,400, 0.1 for 4.2, 1e6 for 4
    million. A rounded figure is off by at most about one unit of it."""
    if value == 0:
        return 1.0
    digits = f"{abs(value):.6f}".rstrip("0").rstrip(".")
    whole, _, frac = digits.partition(".")
    if frac:
        return 10.0 ** -len(frac)
    return 10.0 ** (len(whole) - len(whole.rstrip("0")))


def holds(said: Figure, stated: Figure) -> bool:
    """Whether a (hedged) figure is true of a figure the source states.

    The same kind only (a count is not a share). The source's own hedge is read as its value:
    "about 2 million" there is 2 million. "Near" is within one unit of the figure's last
    significant digit and :data:`ROUNDING` of it ("about 6,400" for 6,412, not for 6,520; "some
    270" not for 230); a bound holds up to :data:`BOUND` times past it: a writer who says "more
    than 40" of 2 million has another figure in mind.
    """
    if said.kind != stated.kind:
        return False
    x, v = stated.value, said.value
    if said.hedge is None:
        return x == v
    near = abs(x - v) <= min(ROUNDING * abs(v), said.precision)
    return {
        "up": v <= x <= BOUND * v,
        "down": v / BOUND <= x <= v,
        "near": near,
        "below": near and x <= v,
        "above": near and x >= v,
    }[said.hedge]


#: Units of time and their length in days: a duration may be reworded in another unit ("in
#: under three weeks" for "every 19 days", "more than a week" for "nine-day").
TIME_UNITS = {
    "second": 1 / 86400,
    "minute": 1 / 1440,
    "hour": 1 / 24,
    "day": 1.0,
    "week": 7.0,
    "month": 365.25 / 12,
    "year": 365.25,
    "decade": 3652.5,
    "century": 36525.0,
}


def unit_after(text: str, end: int) -> str | None:
    """The unit word right after a figure ending at ``end`` (singular), if it is one."""
    return unit_span(text, end)[0]


def unit_span(text: str, end: int) -> tuple[str | None, int]:
    """The unit word right after a figure ending at ``end`` (singular; None if the next word is
    not a unit) and where that word ends (``end`` when there is none)."""
    m = re.match(r"[\s-]*([A-Za-z]+)", text[end:])
    if not m:
        return None, end
    word = m.group(1).lower()
    for w in (word, word[:-1] if word.endswith("s") else word, word[:-2]):
        if w in UNIT_WORDS:
            return ("feet" if w == "foot" else w), end + m.end()
    return None, end


def in_unit(stated: Figure, unit: str | None, stated_unit: str | None) -> Figure | None:
    """A source figure read in the unit a claim's figure is written in: as it is where either
    has no unit or they agree, converted between units of time ("19 days" as 2.7 weeks), None
    where the units differ otherwise (three weeks are not 1.6 times)."""
    if unit is None or stated_unit is None or unit == stated_unit:
        return stated
    if unit in TIME_UNITS and stated_unit in TIME_UNITS:
        factor = TIME_UNITS[stated_unit] / TIME_UNITS[unit]
        return replace(stated, value=stated.value * factor)
    return None


@dataclass(frozen=True, slots=True)
class Restated:
    """A claim with its hedged figures put as the source states them (and, from
    :func:`models.derived_figures.read_figures`, its comparisons without their number)."""

    text: str
    changes: tuple[tuple[str, str], ...]  # (as the claim says it, as the source states it)
    #: (the comparison as written, the two source figures that bear it out: "312 against 120")
    compared: tuple[tuple[str, str], ...] = ()


def restate_figures(
    claim: str, source_sentences: Sequence[str], preference: Sequence[float] | None = None
) -> Restated:
    """Put the source's figure in place of each hedged figure of ``claim`` that it satisfies.

    A hedged figure ("about 6,400") is replaced by the source figure it holds for (6,412), taken
    from the source sentence ``preference`` ranks highest (say, its relevance to the claim;
    source order when None), the closest value among that sentence's. An exact figure, or a
    hedge that no source figure satisfies, stays as it is. A share written as words ("seven in
    ten", "nearly half") becomes the source's percentage, with "of" where a noun follows it.
    A figure stays as written when that source sentence also has a figure of the same kind and
    unit that the hedge does not hold for and that is as near to it: "up to 65 km of range"
    against "85 km on the lowest setting and 45 km on the highest" is not read as 45 km.
    """
    said = [f for f in find_figures(claim) if f.hedge is not None]
    if not said:
        return Restated(claim, ())
    rank = list(preference) if preference is not None else [0.0] * len(source_sentences)
    stated = [
        (k, f, unit_after(sentence, f.end))
        for k, sentence in enumerate(source_sentences)
        for f in find_figures(sentence)
    ]
    pieces: list[str] = []
    at, changes = 0, []
    for f in said:
        unit, unit_end = unit_span(claim, f.end)
        # each source figure as read in the claim's unit (None: another kind of unit)
        read = [(k, s, u, in_unit(s, unit, u)) for k, s, u in stated]
        fits = [(k, s, u, c) for k, s, u, c in read if c is not None and holds(f, c)]
        if not fits:
            continue
        k, best, best_unit, as_read = min(
            fits, key=lambda x: (-rank[x[0]], abs(x[3].value - f.value), x[0])
        )
        if (
            as_read.value == f.value
            and best.hedge is None
            and claim[f.start : f.figure_start].strip().lower() in PREPOSITION_HEDGES
        ):
            # "over 11 years" of a source's "11 years": a preposition ("over the course of"),
            # not a bound the figure passes; nothing to restate
            continue
        gap = abs(as_read.value - f.value)
        if any(
            j == k and c.kind == f.kind and not holds(f, c) and abs(c.value - f.value) <= gap
            for j, _, _, c in read
            if c is not None
        ):
            # that sentence has a figure the claim's is as near to and does not hold for ("up
            # to 65 km" beside "85 km on the lowest setting, 45 on the highest"): which one the
            # claim means is not clear, so it is left for the model to judge as written
            continue
        # the source's words for it, its own hedge included ("about 2 million" stays hedged)
        new, end = best.text, f.end
        if best_unit is not None and unit is not None and best_unit != unit:
            # another unit of time: the source's figure with its unit in place of the claim's
            # ("in under three weeks" -> "in 19 days")
            new = f"{best.text} {best_unit if best.value == 1 else plural(best_unit)}"
            end = unit_end
        if f.kind == "share":
            new = _as_share(new, claim, f)
        new = _match_case(new, claim[f.start : end])
        if new.casefold() == claim[f.start : end].casefold():
            continue
        pieces += [claim[at : f.start], new]
        at = end
        changes.append((claim[f.start : end], new))
    if not changes:
        return Restated(claim, ())
    pieces.append(claim[at:])
    return Restated("".join(pieces), tuple(changes))


_FOLLOWS_NOUN = re.compile(r"\s+(?!of\b|in\b|with\b|by\b|to\b|from\b|for\b|on\b|at\b)[A-Za-z]")


def _as_share(stated: str, claim: str, said: Figure) -> str:
    """The source's percentage where the claim writes a share in words; "of" before a noun."""
    if not re.search(r"%|percent|per cent", stated, re.IGNORECASE):
        return stated
    if said.counted:  # "one bud in seven" -> "15 percent of buds"
        return f"{stated} of {said.counted}"
    after = claim[said.end :]
    written_as_percent = re.search(r"%|percent|per cent", said.text, re.IGNORECASE)
    if written_as_percent or not _FOLLOWS_NOUN.match(after):
        return stated
    following = after.split(maxsplit=1)[0].lower() if after.strip() else ""
    if following.endswith("ed") or following in {"is", "are", "was", "were", "had", "have"}:
        return stated  # "seven in ten backed the deal": the share is the subject itself
    return f"{stated} of"


_IRREGULAR_PLURALS = {"man": "men", "woman": "women", "child": "children", "person": "people"}


def plural(noun: str) -> str:
    """A counted noun's plural ("bud" -> "buds", "family" -> "families", "child" ->
    "children")."""
    low = noun.lower()
    if low in _IRREGULAR_PLURALS:
        return noun[0] + _IRREGULAR_PLURALS[low][1:]
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if low.endswith("y") and low[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"


def _match_case(new: str, old: str) -> str:
    """A figure's words capitalised as the words they replace ("About 6,400 came" -> "6,412
    came"; "after over 2,100 locals" -> "after more than 2,100", not "More")."""
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    if old[:1].islower():
        return new[:1].lower() + new[1:]
    return new
