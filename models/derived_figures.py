"""Comparisons a claim derives from two of the source's figures: how many times as many, how
many percent more or less, how many years older or later.

Writers compare: "about two and a half times as many pupils" for 186 against 74, "roughly 50
percent longer" for 41 days against 27, "grew by more than a third" for 2.3 million against 1.7
million, "some 270 years younger" for 150 BC against 420 BC. An entailment model does not do the
arithmetic and reads such a comparison as not found in the source. :func:`restate_derived` finds
the comparisons of a claim and, where two figures of the claim's most relevant source sentences
bear the number out (same kind and unit, the hedge read as :func:`models.figures.holds` reads
it; an unhedged comparison is read as rounded), drops the number and keeps the comparison:
"Holloway has more children than St Bride's". The arithmetic is done here and shown ("186
against 74"); so is, for a comparative, which side has the larger figure (the source's words
beside each figure against the claim's on each side: the model reads "more" and "fewer" alike);
the model judges the rest of the claim. A comparison that no pair of figures bears out, or whose
number the source states itself, is left as written, for the model to judge.

:func:`read_figures` is what the NLI checker reads for a claim: its comparisons restated, then
its hedged figures put as the source states them (:func:`models.figures.restate_figures`);
:func:`read_against` ranks the source sentences for it, as every checker on the NLI model's
encoder does (the arc and support heads read the same rewrite).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from models.ages import restate_ages
from models.evidence import by_relevance, text_relevance
from models.figures import (
    DIGITS_PATTERN,
    FRACTION_PATTERN,
    FRACTIONS,
    HEDGE_DIRECTION,
    HEDGE_PATTERN,
    NUMBER_PATTERN,
    Figure,
    Restated,
    find_figures,
    holds,
    place,
    restate_figures,
    unit_after,
    words_value,
)
from models.lost_pound import restore_pound
from models.periods import restate_periods

#: The most relevant source sentences whose figures a comparison may be derived from (the NLI
#: checker's widest window).
SENTENCES = 5

_H = rf"(?:(?P<hedge>{HEDGE_PATTERN})\s+)?"
_N = rf"(?P<n>{NUMBER_PATTERN})(?:\s+and\s+(?P<extra>a\s+half|a\s+quarter|three\s+quarters))?"
_PCT = rf"(?:(?P<pct>{DIGITS_PATTERN})\s*(?:%|percent\b|per\s+cent\b)|(?P<frac>{FRACTION_PATTERN}))"
_EXTRA = {"a half": 0.5, "a quarter": 0.25, "three quarters": 0.75}
_FOLD_WORDS = {
    w + "fold": n
    for n, w in enumerate("_ _ two three four five six seven eight nine ten".split())
    if n > 1
}
_FOLD_WORDS |= {"hundredfold": 100, "thousandfold": 1000}
#: "doubled" -> (2, "increased"), "halving" -> (2, "decreasing"), ...: the ratio and the plain
#: verb put in its place.
_MULTIPLY_VERBS = {
    stem + ending: (times, ("decreas" if stem == "halv" else "increas") + ending)
    for stem, times in {"doubl": 2, "tripl": 3, "trebl": 3, "quadrupl": 4, "halv": 2}.items()
    for ending in ("ed", "es", "ing")
}
#: Words of a comparison that say the first thing is smaller (a fall, a cut, "fewer").
_DOWN = frozenset(
    """lower less fewer shorter smaller cheaper slower lighter younger earlier sooner before
    down fell fallen fall falls falling dropped drop drops dropping declined decline declines
    declining shrank shrunk shrink shrinks decreased decrease decreases decreasing cut cuts
    reduced reduce reduces reduction loss lost halved halves halving""".split()
)
_CHANGE_VERBS = (
    "rose risen rise rises rising grew grown grow grows growing increased increase increases "
    "increasing climbed climb climbs jumped jump jumps gained gain gains fell fallen fall falls "
    "falling dropped drop drops declined decline declines shrank shrunk shrink decreased "
    "decrease decreases cut cuts reduced reduce reduces"
).split()
_CHANGE_NOUNS = "rise increase jump gain growth fall drop decline cut decrease reduction".split()
_COMPARATIVES = (
    "higher more lower less longer shorter bigger smaller larger greater cheaper dearer faster "
    "slower fewer heavier lighter wider taller older younger"
).split()
_TIME_UNITS = "second minute hour day week month year decade century".split()
#: "N times the size of" -> "larger than", ... ("the number of X" has no such word: "more X than"
#: would need the sentence rebuilt, so it is left to the model)
_TIMES_THE = {
    "size": "larger",
    "area": "larger",
    "population": "larger",
    "level": "higher",
    "rate": "higher",
    "price": "higher",
    "cost": "higher",
    "value": "higher",
    "total": "higher",
    "figure": "higher",
    "length": "longer",
    "height": "higher",
    "weight": "heavier",
}
_IRREGULAR = {
    "many": "more",
    "much": "more",
    "few": "fewer",
    "little": "less",
    "good": "better",
    "bad": "worse",
    "far": "farther",
}
#: Adjectives compared with -er ("as wide as" -> "wider than"); others take "more".
_ER = frozenset(
    """large wide big high long tall fast old young deep small short low quick cheap rich
    strong slow bright thick thin great heavy early busy hot close late near broad steep dense
    costly wealthy""".split()
)


def comparative(adjective: str, *, less: bool = False) -> str:
    """ "wide" -> "wider", "many" -> "more", "popular" -> "more popular" (``less``: "fewer",
    "less popular")."""
    a = adjective.lower()
    if less:
        return {"many": "fewer", "much": "less", "few": "fewer"}.get(a, f"less {a}")
    if a in _IRREGULAR:
        return _IRREGULAR[a]
    if a not in _ER:
        return f"more {a}"
    if a.endswith("e"):
        return a + "r"
    if a.endswith("y"):
        return a[:-1] + "ier"
    if a in {"big", "hot", "thin"}:
        return a + a[-1] + "er"
    return a + "er"


@dataclass(frozen=True, slots=True)
class Comparison:
    """A comparison in a claim.

    Attributes:
        start, end: character offsets of what is replaced.
        text: the words as written (``claim[start:end]``).
        said: the number compared, with its hedge: a ratio ("two and a half times": 2.5), a
            percent change ("50 percent longer": 50) or a difference ("270 years": 270).
        measure: "ratio", "change", "difference" or "points" (percentage points: the
            difference of two shares).
        down: the first thing is the smaller (a fall, "fewer", "younger").
        unit: a difference's unit ("year"), else None.
        replacement: the words put in its place.
        sided: a comparative ("more ... than", "longer"): which side has the larger figure is
            checked here (:func:`_sides_agree`), since the model reads "more" and "fewer" alike;
            a verb of change ("risen", "doubled") it reads well.
    """

    start: int
    end: int
    text: str
    said: Figure
    measure: str
    down: bool
    unit: str | None
    replacement: str
    sided: bool


def _said(m: re.Match[str], value: float, precision: float | None = None) -> Figure:
    hedge = m.group("hedge") if "hedge" in m.re.groupindex else None
    precision = place(value) if precision is None else precision
    if not hedge:
        # an unhedged comparison is read as rounded, to a tenth at most: "three times" is not
        # said of 2.6
        precision = min(precision, 0.1 * value)
    direction = HEDGE_DIRECTION[hedge.lower()] if hedge else "near"
    return Figure(m.start(), m.end(), value, "count", direction, m.group(), m.start(), precision)


def _number(m: re.Match[str]) -> float | None:
    value = words_value(m.group("n"))
    if value is None:
        return None
    return value + _EXTRA.get(re.sub(r"\s+", " ", (m.group("extra") or "").lower()), 0.0)


def _percent(m: re.Match[str]) -> tuple[float, float]:
    """A percentage or a fraction in words ("a third": 33.3, ten points of precision)."""
    if m.group("pct"):
        value = float(m.group("pct").replace(",", ""))
        return value, place(value)
    return FRACTIONS[re.sub(r"\s+", " ", m.group("frac").lower())], 10.0


Form = Callable[[re.Match[str]], Comparison | None]
_FORMS: list[tuple[re.Pattern[str], Form]] = []


def _form(pattern: str) -> Callable[[Form], Form]:
    def register(read: Form) -> Form:
        _FORMS.append((re.compile(rf"(?<![\w.,-]){pattern}(?![\w-])", re.IGNORECASE), read))
        return read

    return register


def _comparison(
    m: re.Match[str],
    value: float | None,
    measure: str,
    replacement: str,
    *,
    down: bool = False,
    unit: str | None = None,
    precision: float | None = None,
    sided: bool = True,
) -> Comparison | None:
    if value is None or value <= 0:
        return None
    return Comparison(
        m.start(),
        m.end(),
        m.group(),
        _said(m, value, precision),
        measure,
        down,
        unit,
        replacement,
        sided,
    )


# "as wide as", "as many pupils as" (up to three words of what is counted)
_AS = r"as\s+(?P<adj>[a-z]+)(?P<what>(?:\s+[\w'-]+){0,3}?)\s+as"


@_form(rf"{_H}{_N}\s+times\s+{_AS}")
def _times_as(m: re.Match[str]) -> Comparison | None:
    words = f"{comparative(m.group('adj'))}{m.group('what')} than"
    return _comparison(m, _number(m), "ratio", words)


@_form(rf"{_H}(?P<word>twice|half)\s+{_AS}")
def _twice_as(m: re.Match[str]) -> Comparison | None:
    less = m.group("word").lower() == "half"
    words = f"{comparative(m.group('adj'), less=less)}{m.group('what')} than"
    return _comparison(m, 2.0, "ratio", words, down=less)


@_form(rf"{_H}{_N}\s+times\s+the\s+(?P<noun>{'|'.join(_TIMES_THE)})\s+of")
def _times_the(m: re.Match[str]) -> Comparison | None:
    return _comparison(m, _number(m), "ratio", f"{_TIMES_THE[m.group('noun').lower()]} than")


@_form(rf"{_H}{_N}\s+times\s+(?P<cmp>{'|'.join(_COMPARATIVES)})")
def _times_more(m: re.Match[str]) -> Comparison | None:
    cmp = m.group("cmp")
    return _comparison(m, _number(m), "ratio", cmp, down=cmp.lower() in _DOWN)


@_form(rf"{_H}(?:(?P<n>{NUMBER_PATTERN})-fold|(?P<word>{'|'.join(_FOLD_WORDS)}))")
def _fold(m: re.Match[str]) -> Comparison | None:
    value = _FOLD_WORDS[m.group("word").lower()] if m.group("word") else words_value(m.group("n"))
    return _comparison(m, value, "ratio", "", sided=False)


@_form(rf"{_H}(?P<verb>{'|'.join(_MULTIPLY_VERBS)})")
def _multiply_verb(m: re.Match[str]) -> Comparison | None:
    value, plain = _MULTIPLY_VERBS[m.group("verb").lower()]
    return _comparison(
        m, float(value), "ratio", plain, down=plain.startswith("decreas"), sided=False
    )


@_form(rf"{_H}{_PCT}\s+(?P<cmp>{'|'.join([*_COMPARATIVES, 'up', 'down'])})")
def _percent_more(m: re.Match[str]) -> Comparison | None:
    value, precision = _percent(m)
    cmp = m.group("cmp")
    return _comparison(m, value, "change", cmp, down=cmp.lower() in _DOWN, precision=precision)


@_form(rf"(?P<verb>{'|'.join(_CHANGE_VERBS)})\s+by\s+{_H}{_PCT}")
def _changed_by(m: re.Match[str]) -> Comparison | None:
    value, precision = _percent(m)
    verb = m.group("verb")
    return _comparison(
        m, value, "change", verb, down=verb.lower() in _DOWN, precision=precision, sided=False
    )


@_form(rf"(?P<article>an?)\s+{_H}{_PCT}\s+(?P<noun>{'|'.join(_CHANGE_NOUNS)})")
def _change_noun(m: re.Match[str]) -> Comparison | None:
    value, precision = _percent(m)
    noun = m.group("noun")
    article = "an" if noun[0].lower() in "aeiou" else "a"
    if m.group("article")[0].isupper():
        article = article.capitalize()
    return _comparison(
        m,
        value,
        "change",
        f"{article} {noun}",
        down=noun.lower() in _DOWN,
        precision=precision,
        sided=False,
    )


@_form(
    rf"{_H}{_N}\s+(?P<unit>{'|'.join(_TIME_UNITS)}|centuries)s?\s+"
    r"(?P<cmp>older|younger|later|earlier|longer|shorter|sooner)"
)
def _difference(m: re.Match[str]) -> Comparison | None:
    unit = m.group("unit").lower()
    unit = "century" if unit == "centuries" else unit
    cmp = m.group("cmp")
    return _comparison(m, _number(m), "difference", cmp, down=cmp.lower() in _DOWN, unit=unit)


_POINTS = rf"{_H}(?P<n>{NUMBER_PATTERN})\s+percentage\s+points?"


@_form(rf"(?P<verb>{'|'.join(_CHANGE_VERBS)})\s+(?:by\s+)?{_POINTS}")
def _changed_by_points(m: re.Match[str]) -> Comparison | None:
    verb = m.group("verb")
    value = words_value(m.group("n"))
    return _comparison(m, value, "points", verb, down=verb.lower() in _DOWN, sided=False)


@_form(rf"{_POINTS}\s+(?P<cmp>higher|lower|more|less|up|down)")
def _points_more(m: re.Match[str]) -> Comparison | None:
    cmp = m.group("cmp")
    return _comparison(m, words_value(m.group("n")), "points", cmp, down=cmp.lower() in _DOWN)


def find_comparisons(claim: str) -> list[Comparison]:
    """The comparisons of a claim, in order, none overlapping another (the longest first)."""
    found = []
    for pattern, read in _FORMS:
        for m in pattern.finditer(claim):
            c = read(m)
            if c is not None:
                found.append(c)
    found.sort(key=lambda c: (c.start, -(c.end - c.start)))
    out: list[Comparison] = []
    for c in found:
        if not out or c.start >= out[-1].end:
            out.append(c)
    return out


@dataclass(frozen=True, slots=True)
class _Stated:
    value: float
    text: str
    kind: str
    unit: str | None
    words: frozenset[str]  # the content words of its stretch of the sentence (see _stretch)
    base: bool = False  # the source compares with it ("compared with 27 days", "down from 46")


_YEAR = re.compile(
    r"(?<![\w.,-])(?:(?P<bc>\d{1,4})\s*(?:BC|BCE)\b|(?:AD\s*)?(?P<year>1[0-9]{3}|20[0-9]{2}|"
    r"\d{1,4}(?=\s*(?:AD|CE)\b)))(?![\w-])"
)
_STOP = frozenset(
    """the a an and or of in on at to for from with by as than that this its it his her their
    has have had was were is are be been which who whom what when where while compared against
    up down about around some more less over under""".split()
)


def _content(text: str) -> frozenset[str]:
    """Content words and years, possessive and plural "s" dropped ("Quillstack's users in
    2019" -> quillstack, user, 2019)."""
    words = (
        re.sub(r"'s$", "", w)
        for w in re.findall(
            r"[a-z][\w'-]*|(?<![\w.,])(?:1[0-9]{3}|20[0-9]{2})(?![\w])", text.lower()
        )
    )
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in words
        if w not in _STOP and len(w) > 2
    )


#: What a source puts before the figure it compares with: "compared with 27 days", "against
#: 41 percent", "down from 46 percent", "than an average of 12".
_BASE = re.compile(
    r"\b(?:compared\s+(?:with|to)|against|versus|vs\.?|than|from)\s+"
    r"(?:(?:an?|the|about|around|roughly|some|just|only|nearly|almost|average|of)\s+)*$",
    re.IGNORECASE,
)


def _stretch(
    sentence: str, start: int, end: int, spans: Sequence[tuple[int, int]]
) -> tuple[str, str]:
    """The words a figure at ``start:end`` belongs with, before and after it: from the previous
    figure or clause break to the next ("Ashford Primary has 312" | "pupils and Mill Lane has
    120")."""
    lo = max([e for _, e in spans if e <= start] + [0])
    hi = min([b for b, _ in spans if b >= end] + [len(sentence)])
    left, right = sentence[lo:start], sentence[end:hi]
    return re.split(r"[;:,]\s", left)[-1], re.split(r"[;:,]\s", right)[0]


def _stated(sentence: str) -> list[_Stated]:
    """A source sentence's figures, and its years (for differences in years)."""
    found: list[tuple[int, int, float, str, str, str | None]] = []
    for f in find_figures(sentence):
        if re.match(r"\s*(?:BC|BCE|AD|CE)\b", sentence[f.end :]):
            continue  # a year, below
        unit = unit_after(sentence, f.end)
        if re.match(r"\s+percentage\s+points?\b", sentence[f.end :], re.IGNORECASE):
            unit = "percentage point"
        # shown with its unit word ("1,450 pounds")
        worded = re.match(r"[\s-]*[A-Za-z]+", sentence[f.end :]) if unit else None
        text = f.text + worded.group() if worded else f.text
        found.append((f.start, f.end, f.value, text, f.kind, unit))
    figures = [(a, b) for a, b, *_ in found]
    for m in _YEAR.finditer(sentence):
        value = -float(m.group("bc")) if m.group("bc") else float(m.group("year"))
        found.append((m.start(), m.end(), value, m.group().strip(), "year", "year"))
    spans = [(a, b) for a, b, *_ in found]
    out = []
    for a, b, value, text, kind, unit in found:
        # a figure's words run past a year ("The 2019 flood had cost 11 million"), a year's
        # stop at every figure
        left, right = _stretch(sentence, a, b, spans if kind == "year" else figures)
        base = kind != "year" and _BASE.search(left) is not None
        out.append(_Stated(value, text, kind, unit, _content(f"{left} {right}"), base))
    return out


def _measure(c: Comparison, big: _Stated, small: _Stated) -> float | None:
    """What the two figures make of the comparison's measure (the larger first)."""
    if c.measure == "points":
        return big.value - small.value if big.kind == "share" else None
    if c.measure == "difference":
        if big.kind == "year":
            return big.value - small.value if c.unit == "year" else None
        return big.value - small.value if big.unit == c.unit else None
    if big.kind == "year" or small.value <= 0:
        return None
    ratio = big.value / small.value
    if c.measure == "ratio":
        return ratio
    return 100.0 * (1.0 - 1.0 / ratio) if c.down else 100.0 * (ratio - 1.0)


def _borne_out(
    c: Comparison,
    stated: Sequence[_Stated],
    sides: tuple[frozenset[str], frozenset[str]],
    claim_words: frozenset[str],
) -> tuple[_Stated, _Stated] | None:
    """The two figures that bear a comparison out (the larger first), else None: of the pairs
    whose arithmetic holds, the one whose words the claim shares most, and at least one word
    (users 2.3 million against 1.7 million, not an app's version 5 against three devices).
    ``sides``: the content words of what the claim compares and of what it is compared with."""
    best, best_shared = None, 0
    # a hair over the precision: 312 / 120 - 2.5 is 0.10000000000000009 in floats
    said = replace(c.said, precision=c.said.precision * (1 + 1e-9))
    for i, a in enumerate(stated):
        for b in stated[i + 1 :]:
            if a.kind != b.kind or a.unit != b.unit or a.value == b.value:
                continue
            big, small = (a, b) if a.value > b.value else (b, a)
            x = _measure(c, big, small)
            if x is None or not holds(said, Figure(0, 0, x, "count", None, "", 0, 1.0)):
                continue
            if c.sided and not _sides_agree(c, big, small, sides):
                continue
            shared = len(claim_words & big.words) + len(claim_words & small.words)
            if shared > best_shared:
                best, best_shared = (big, small), shared
    return best


def _sides_agree(
    c: Comparison, big: _Stated, small: _Stated, sides: tuple[frozenset[str], frozenset[str]]
) -> bool:
    """Whether the source puts the claim's subject with the figure the comparison gives it: the
    larger for "more", "longer", "younger" in years (a later year); the smaller for "fewer",
    "shorter", "older" in years. The source's words beside each figure against the claim's on
    each side decide. Where they tie and the claim does not say what it compares with, the
    source's own comparison does: the figure it compares with ("41 days, compared with 27 days
    for untreated mice") is the other side ("Mice given TR-9 lived roughly 50 percent longer").
    Neither is no agreement."""
    subject, other = sides
    larger = not c.down
    if big.kind == "year" and re.search(r"younger|older", c.text, re.IGNORECASE):
        larger = not larger  # a younger thing has the later (larger) year
    own, rest = (big, small) if larger else (small, big)
    for_it = len(subject & own.words) + len(other & rest.words)
    against = len(subject & rest.words) + len(other & own.words)
    if for_it == against and not other:
        return rest.base and not own.base
    return for_it > against


def _sides(claim: str, c: Comparison) -> tuple[frozenset[str], frozenset[str]]:
    """The content words of what a comparison compares (before it, back to a clause break) and
    of what it is compared with (after "than", "as" or "of", to the next break)."""
    before = re.split(r"[;:,]\s|\bwhile\b|\bwhereas\b", claim[: c.start])[-1]
    after = claim[c.end :]
    if not re.search(r"(?:than|as|of)$", c.text, re.IGNORECASE):
        m = re.match(r"\s*than\b", after)
        after = after[m.end() :] if m else ""
    after = re.split(r"[;:,.]\s|[;:,.]$|\bwhile\b|\bwhereas\b", after)[0]
    return _content(before), _content(after)


def _stated_itself(c: Comparison, stated: Sequence[_Stated], source: str) -> bool:
    """Whether the source states the comparison's number itself ("rose 9 percent", "2.5 times
    the size", "doubled"): then the model reads it as written and the figure rules restate it."""
    words = re.findall(r"[a-z]+", c.text.lower())
    named = [w for w in words if w in _FOLD_WORDS or w in _MULTIPLY_VERBS]
    if any(re.search(rf"\b{w}\b", source, re.IGNORECASE) for w in named):
        return True
    kind, unit = {
        "ratio": ("count", "time"),  # "2.5 times", "1.6 times the size of"
        "change": ("share", None),
        "difference": ("count", c.unit),
        "points": ("count", "percentage point"),  # "0.3 percentage points"
    }[c.measure]
    return any(
        s.kind == kind
        and (unit is None or s.unit == unit)
        and holds(c.said, Figure(0, 0, s.value, kind, None, "", 0, 1.0))
        for s in stated
    )


def restate_derived(
    claim: str, source_sentences: Sequence[str], preference: Sequence[float] | None = None
) -> Restated:
    """Drop the number of each comparison of ``claim`` that two figures of its
    :data:`SENTENCES` most relevant source sentences (``preference``: a relevance per sentence;
    source order when None) bear out, keeping the comparison (see the module docstring)."""
    comparisons = find_comparisons(claim)
    if not comparisons:
        return Restated(claim, ())
    rank = list(preference) if preference is not None else [0.0] * len(source_sentences)
    top = by_relevance(rank)[:SENTENCES]
    stated = [s for k in sorted(top) for s in _stated(source_sentences[k])]
    near = " ".join(source_sentences[k] for k in top)
    pieces: list[str] = []
    at, changes = 0, []
    for c in comparisons:
        if _stated_itself(c, stated, near):
            continue
        pair = _borne_out(c, stated, _sides(claim, c), _content(claim))
        if pair is None:
            continue
        new = c.replacement
        if new and c.text[:1].isupper():
            new = new[:1].upper() + new[1:]
        before, after = claim[at : c.start], claim[c.end :]
        before = _article(before, new or after.lstrip())
        if not new and before.endswith(" ") and (not after or after[:1] in " ,.;:"):
            before = before[:-1]  # "risen more than sixfold from" -> "risen from"
        pieces += [before, new]
        at = c.end
        changes.append((c.text, f"{pair[0].text} against {pair[1].text}"))
    if not changes:
        return Restated(claim, ())
    pieces.append(claim[at:])
    return Restated("".join(pieces), (), tuple(changes))


def _article(before: str, next_words: str) -> str:
    """``before`` with a final "a"/"an" agreeing with the words now after it ("a sixfold
    increase" -> "an increase")."""
    m = re.search(r"(?<![\w-])([Aa])(n?) $", before)
    if m is None or not next_words:
        return before
    an = "n" if next_words[0].lower() in "aeiou" else ""
    return before[: m.start()] + m.group(1) + an + " "


def read_figures(
    claim: str, source_sentences: Sequence[str], preference: Sequence[float] | None = None
) -> Restated:
    """The claim as the NLI model reads it: a pound sign lost to "#" put back
    (:func:`models.lost_pound.restore_pound`), decades and centuries as the year the source
    states (:func:`models.periods.restate_periods`), a decade of life as the age it states
    (:func:`models.ages.restate_ages`), comparisons the source's figures bear out
    without their number (:func:`restate_derived`), then hedged figures as the source states
    them (:func:`models.figures.restate_figures`)."""
    pound = restore_pound(claim, source_sentences)
    periods = restate_periods(pound.text, source_sentences, preference)
    ages = restate_ages(periods.text, source_sentences, preference)
    derived = restate_derived(ages.text, source_sentences, preference)
    figures = restate_figures(derived.text, source_sentences, preference)
    changes = pound.changes + periods.changes + ages.changes + figures.changes
    return Restated(figures.text, changes, derived.compared)


def read_against(
    claim: str, source_sentences: Sequence[str], window: Collection[int] = ()
) -> Restated:
    """:func:`read_figures` with the source sentences ranked for the claim: first those of
    ``window`` (the evidence the model reads the claim against), then the rest, each group by
    the share of the claim's terms they hold (:func:`models.evidence.text_relevance`); a
    sentence that holds none stays last. What the NLI model and the arc and support heads read
    for a claim: a figure or comparison is restated from the evidence the model is shown where
    that evidence states it, not from a sentence the model does not see."""
    relevance = text_relevance(source_sentences, claim)
    shown = set(window)
    preference = [v + 1.0 if v > 0 and k in shown else v for k, v in enumerate(relevance)]
    return read_figures(claim, source_sentences, preference)
