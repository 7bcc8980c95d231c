"""The question-based check: questions asked of the output, answered from the source.

In the manner of QAGS and QuestEval, each name and number of an output sentence is an answer,
and the rest of the sentence is its question: "Councillor Tomas Reyes proposed the plan in
March" asks "[who] proposed the plan?" (answer: Tomas Reyes) and "... proposed the plan in
[when]?" (answer: March). No generation or reading-comprehension model is available offline,
so both halves work on the dependency parse the pipeline already has:

- a question is the answer's *slot*: the content word that governs it and the relation between
  them (subject, object, ``prep_<word>``, a number's noun), with passives turned active ("was
  proposed by X" asks the same as "X proposed");
- the source answers it where the same word governs the same slot: the source's filler there is
  its answer. The same answer is supported; a different name or number in that slot is a
  conflict (the role swaps and moved figures that word matching cannot see); a slot the source
  never fills leaves the answer to a weaker test, whether it occurs in the source at all;
- where the source gives the same answer, the event is also asked as a yes/no question: one
  side negating the governing word ("did not approve") and the other not is a conflict too.

Per answer: 1 when the source gives the same answer (a hedged figure within its hedge: "more
than 200,000" for 230,000, "about 4 million" for 4.2 million); 0 when it gives another; with no
such slot in the source, 0.75 when the answer occurs there, 0.5 for a figure it never states (it
may follow from the source's figures) and 0.25 for a name it never states. A share given as two
numbers ("seven in ten", "13 out of the 22") is one answer, answered by the source's nearest
percentage or share when it rounds to it ("seven in ten" for 71 percent), else left undecided:
read number by number, "ten" was a count that another count of the source contradicted.
A quotation is asked about too: "[who] said ‘This is a tax on people …’?" is answered by the
source sentence that holds the same words (at least :data:`QUOTE_WORDS`), by the name that is the
subject of its verb of saying, or, where it reads "he said" or "she said", by the last named
speaker of the two sentences before. A name that says the quoted words in the output and another
that says them in the source is a conflict (a misattributed quotation, which the models read as
supported: both people speak in the source).

Sentence score: the lowest of its answers (one conflict is enough); a sentence with no name or
figure asks nothing and is not checked, nor is a yes/no answer (its names are the question's).
Every question, with the output's and the source's answers, is in the sentence's ``detail``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from models.ages import stated_ages
from models.checkers.base import (
    QA_REVISION,
    Grain,
    OnePairAtATime,
    PairInput,
    PairScore,
    SentenceScore,
    pair_score,
    unchecked_reason,
)
from models.document import ParsedText, Sentence, Token
from models.evidence import by_relevance, text_relevance
from models.figures import AT_LEAST, AT_MOST, NEAR, ROUNDING, YEAR, number_value
from models.unknown_words import is_placeholder

NOT_ASKED = "no name or number to ask about"
YES_NO = "a yes/no answer: its names and figures are the question's"
#: Relations that join the words of one name or number ("Thomas -compound-> Bach").
INSIDE = frozenset({"compound", "flat", "nummod", "quantmod", "nmod"})
#: A person named by nation ("the Frenchman", "two Dutchmen"): tagged as a name, said of one.
DEMONYM = re.compile(
    r"(?:French|Dutch|English|Irish|Scots|Welsh|Swiss|Manx|Cornish|Norse)(?:wo)?m[ae]n",
    re.IGNORECASE,
)
#: Words whose part of speech makes them an answer: names and numbers.
ANSWER_POS = frozenset({"PROPN", "NUM"})
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})
#: Slot relations normalised so that a paraphrase of the same frame asks the same question.
SUBJECT = frozenset({"nsubj", "csubj", "agent"})
OBJECT = frozenset({"dobj", "nsubjpass", "obj", "attr", "oprd"})
WHEN = frozenset({"npadvmod", "tmod"})
#: Words that make a name a date.
DATE_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
#: Days of the week: a date that names one and a date that names a month ("Thursday", "April
#: 23") say when in two ways that do not answer each other.
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
#: Parts of a day or week that a date names ("Friday night", "Monday morning"): a date there
#: answers what the time phrase answers, not "[when] night", which any other event's "Friday
#: night" would fill.
DAY_PARTS = frozenset("morning afternoon evening night weekend week".split())
#: Words that open a clause asking or supposing its event, whose polarity it does not state.
OPEN_MARKS = frozenset({"whether", "if", "unless"})
#: Words of the sentence kept on each side of the slot (governor and answer) in a question.
CONTEXT = 4
#: Words quoted of the source sentence that gives an answer.
QUOTED = 6
#: Verbs that report speech: their subject says the quotation they hold.
SPEECH = frozenset(
    "say tell add call describe argue claim warn write insist explain state note comment reply "
    "admit declare".split()
)
#: The fewest words of a quotation that, found again in the source, say who said it.
QUOTE_WORDS = 4
#: Pronouns that leave the speaker to the sentences before ("… ,” he said.").
SPEAKER_PRONOUNS = frozenset({"he", "she"})
#: How many sentences before a quotation its speaker may be named.
SPEAKER_BEFORE = 2
#: The source sentences most relevant to an output sentence (text relevance), where an event
#: that shares none of the output event's other answers may still be its event.
NEAR_SENTENCES = 3
#: Quotation marks as writers and word tokenizers leave them: curly, straight double, LaTeX-style
#: (``…'' and `…'), and straight single ones that no letter touches from outside ("'a tax on
#: people'", not the apostrophes of "Jones' car" or "it's").
_QUOTATION = re.compile(
    r"“([^”]+)”|\"([^\"]+)\"|‘([^’]+)’|``([^`']+)''|`([^`']+)'|(?<![\w'])'([^']+)'(?!\w)"
)
_WORD = re.compile(r"\w+")
#: Answer values by outcome (see module doc).
SAME, OTHER, PRESENT, UNDECIDED, ABSENT = 1.0, 0.0, 0.75, 0.5, 0.25
#: Hyphens and dashes a figure's token may end on where its compound was spaced apart.
HYPHENS = "-‐–—"


@dataclass(frozen=True, slots=True)
class Answer:
    """A name or figure of a sentence, the slot it fills, and its words."""

    sentence: int
    kind: str  # "number", "year", "date", "name" (see _kind) or "share" ("seven in ten")
    words: tuple[str, ...]  # lower-cased; figures as numbers
    value: float | None  # a figure's value ("4.2 million" -> 4200000)
    hedge: str | None  # "up", "down" or "near" for a rounded figure ("about 14,000")
    text: str
    governor: int  # token index of the governing content word
    lemma: str  # its lemma
    relation: str  # normalised relation to it
    negated: bool  # the governing word is negated ("did not approve", "never won")
    question: str  # the sentence with the answer replaced by its wh-word
    #: the governing word is asked about or supposed ("whether Hungary would backtrack", "if
    #: it wins"): its polarity is not stated
    open: bool = False

    @property
    def frame(self) -> tuple[int, int]:
        """(sentence, governor): the event the answer belongs to."""
        return (self.sentence, self.governor)


@dataclass(frozen=True, slots=True)
class Finding:
    answer: Answer
    value: float
    source: Answer | None  # the source's answer in the same slot
    polarity: bool = False  # the same answer, but one side negates the event and the other not


def _range(text: str) -> tuple[float, float] | None:
    """The bounds of a written range ("10-11", "4–5"), else None."""
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*[-–]\s*(\d+(?:\.\d+)?)", text.replace(",", ""))
    return (float(found.group(1)), float(found.group(2))) if found else None


#: What a run of figures is written with: digits, the marks between them and spaces.
_RUN_CHAR = re.compile(r"[\d\s\-–(),.:/]")


def figure_runs(text: str, figure: str) -> list[str]:
    """Each run of figures that ``figure`` stands in within ``text``, without its spaces ("4 - 6
    7 - 6 ( 3 ) 6 - 3" -> "4-67-6(3)6-3"): the longest stretch of figures and the marks between
    them around each place it is written. Empty when one of them is not a run: fewer than three
    figures, or two written in fewer than seven characters ("3 - 2" may be any game's score)."""
    out = []
    for m in re.finditer(rf"(?<![\d,.]){re.escape(figure)}(?![\d,.]\d)", text):
        start, end = m.start(), m.end()
        while start > 0 and _RUN_CHAR.match(text[start - 1]):
            start -= 1
        while end < len(text) and _RUN_CHAR.match(text[end]):
            end += 1
        run = re.sub(r"\s+", "", text[start:end]).strip("-–(),.:/")
        figures = re.findall(r"\d+(?:[,.]\d+)*", run)
        if len(figures) < 2 or (len(figures) == 2 and len(run) < 7):
            return []
        out.append(run)
    return out


def _number(text: str) -> str:
    v = number_value([text])
    return f"{v:g}" if v is not None else text.lower()


def _kind(tokens: Sequence[Token]) -> str:
    """The kind of an answer: "date" (a month or weekday, maybe with day and year), "year",
    "number" or "name"; an answer is only compared with one of its kind."""
    if any(t.lemma in DATE_WORDS for t in tokens):
        return "date"
    if any(t.pos == "NUM" and YEAR.fullmatch(t.text) for t in tokens):
        return "year"
    if all(t.pos == "NUM" for t in tokens):
        return "number"
    return "name"


WH = {
    "date": "[when]",
    "year": "[which year]",
    "number": "[how many]",
    "name": "[who/what]",
    "share": "[what share]",
}
#: The words after a figure that make it a percentage (the source's answer to a share).
PERCENT = frozenset({"percent", "%", "cent", "pct"})


def _span(sentence: Sentence, root: Token) -> list[Token]:
    """The answer's words: its root and what joins it as one name or number."""
    children: dict[int, list[Token]] = {}
    for t in sentence.tokens:
        if t.head != t.i:
            children.setdefault(t.head, []).append(t)
    out, todo = [root], [root]
    while todo:
        for c in children.get(todo.pop().i, []):
            if c.dep in INSIDE and c.pos in ANSWER_POS:
                out.append(c)
                todo.append(c)
    return sorted(out, key=lambda t: t.i)


def _slot(sentence: Sentence, root: Token) -> tuple[Token, str] | None:
    """(governor, normalised relation) of an answer's root; None when it has none."""
    toks = sentence.tokens
    # "alongside Holland, Italy and Spain": each fills that slot; "Fabregas, Matic and Oscar"
    # parsed as an appositive name that heads the rest of the list is a list too
    while root.head != root.i and toks[root.head].pos in ANSWER_POS and _listed(toks, root):
        root = toks[root.head]
    if root.head == root.i:
        return None
    head, rel = toks[root.head], root.dep
    if rel == "pobj" and head.pos == "ADP":
        prep = head.lemma
        if head.head == head.i:
            return None
        if head.dep == "agent":  # "was proposed by X": X is the subject
            rel, head = "subj", toks[head.head]
        else:
            rel, head = f"prep_{prep}", toks[head.head]
    elif rel in SUBJECT:
        rel = "subj"
    elif rel in OBJECT:
        rel = "obj"
    elif rel in WHEN:
        rel = "when"
    elif rel == "appos" or rel in INSIDE:
        if head.lemma.lower() in DAY_PARTS and root.lemma.lower() in DATE_WORDS:
            return _slot(sentence, head)  # "on Friday night": the slot of "night"
        if rel == "appos" and {head.lemma.lower(), root.lemma.lower()} <= DATE_WORDS:
            return _slot(sentence, head)  # "on Thursday, April 23": both say when
        rel = "of"  # "the mayor, Ana Ruiz" / "FIFA President": the name of that noun
    if head.pos not in CONTENT_POS or head.pos in ANSWER_POS and rel == "of":
        return None
    return head, rel


#: Nouns that measure time: a figure they take followed by "old" is an age.
TIME_MEASURES = frozenset("year month week day".split())
#: The slot of an age in years (:func:`_slot_lemma`).
AGE_SLOT = "year old"


def _slot_lemma(toks: Sequence[Token], governor: Token) -> str:
    """The word a figure's slot is known by: the governor's lemma, and "year old" for an age
    ("the 30-year-old", "a 39-year-old woman", "30 years old"), which is not a count of years
    ("a two-year deal", "in two years"): the two answer each other in no source."""
    lemma = governor.lemma
    if lemma.lower() not in TIME_MEASURES:
        return lemma
    after = [t for t in toks[governor.i + 1 : governor.i + 4] if t.text not in ("-", "–")]
    return f"{lemma} old" if after and after[0].lemma.lower() == "old" else lemma


def _listed(toks: Sequence[Token], t: Token) -> bool:
    """Whether name ``t`` is a later item of a list of names: a conjunct, or an appositive
    that heads conjuncts of its own ("Fabregas, Matic and Oscar" read as Fabregas -appos->
    Matic -conj-> Oscar)."""
    if t.dep == "conj":
        return True
    return t.dep == "appos" and any(c.dep == "conj" and c.head == t.i != c.i for c in toks)


def _question(sentence: Sentence, span: Sequence[Token], governor: Token, wh: str) -> str:
    """The sentence around the slot, the answer replaced by its wh-word; "…" where cut."""
    toks = sentence.tokens
    lo = max(0, min(span[0].i, governor.i) - CONTEXT)
    hi = min(len(toks) - 1, max(span[-1].i, governor.i) + CONTEXT)
    base = sentence.start
    text = (
        sentence.text[toks[lo].start - base : span[0].start - base]
        + wh
        + sentence.text[span[-1].end - base : toks[hi].end - base]
    )
    return ("… " if lo > 0 else "") + text.strip() + (" …" if hi < len(toks) - 1 else "")


def _hedge(toks: Sequence[Token], start: int) -> str | None:
    """The hedge of a figure starting at token ``start``, from the three words before it: "up"
    ("more than"), "down" ("up to"), "near" ("about") or None."""
    before = {w.lemma for w in toks[max(0, start - 3) : start]}
    if before & AT_LEAST:
        return "up"
    if before & AT_MOST:
        return "down"
    return "near" if before & NEAR else None


def _dependents(toks: Sequence[Token], governor: int, dep: str) -> list[Token]:
    """The words that hang from token ``governor`` by relation ``dep``."""
    return [c for c in toks if c.head == governor and c.dep == dep and c.i != c.head]


def _negated(toks: Sequence[Token], governor: int) -> bool:
    """Whether the governing word of an answer is negated ("did not approve")."""
    return bool(_dependents(toks, governor, "neg"))


def _open(toks: Sequence[Token], governor: int) -> bool:
    """Whether the governing word of an answer heads a clause that asks or supposes rather than
    states ("whether Hungary would backtrack", "if Rovers win")."""
    return any(c.lemma.lower() in OPEN_MARKS for c in _dependents(toks, governor, "mark"))


def _shares(toks: Sequence[Token]) -> dict[int, int]:
    """The shares a sentence gives as two numbers ("seven in ten", "two out of five", "one in
    every four", "13 out of the 22"): {index of the first number: index of the second}."""
    out: dict[int, int] = {}
    for t in toks:
        if t.pos != "NUM":
            continue
        k = t.i + 1
        words = [w.text.lower() for w in toks[k : k + 3]]
        if words[:2] == ["out", "of"]:
            k += 2
        elif words[:1] == ["in"] and toks[k].head == t.i:
            k += 1  # "in" hangs on the first number; in "scored 2 in 10 minutes" on the verb
        else:
            continue
        if k < len(toks) and toks[k].text.lower() in ("every", "the"):
            k += 1  # "one in every four", "13 out of the 22 players"
        if k >= len(toks) or toks[k].pos != "NUM" or _kind([toks[k]]) == "year":
            continue
        top, bottom = number_value([t.text]), number_value([toks[k].text])
        if top is not None and bottom is not None and 0 < top < bottom:
            out[t.i] = k
    return out


def _share(sentence: Sentence, first: Token, second: Token, *, asked: bool = True) -> Answer | None:
    """A share given as two numbers, as one answer: its value in percent ("seven in ten": 70,
    read near, as the rounding it is), asked about in the slot of either number (None when
    neither has one, unless it is not ``asked``: a source's share answers wherever it is)."""
    toks = sentence.tokens
    top, bottom = number_value([first.text]), number_value([second.text])
    slot = _slot(sentence, first) or _slot(sentence, second)
    if slot is None and not asked:
        slot = (first, "share")
    if top is None or not bottom or slot is None:
        return None
    span = list(toks[first.i : second.i + 1])
    value = 100.0 * top / bottom
    return Answer(
        sentence=sentence.index,
        kind="share",
        words=("share", f"{value:g}"),
        value=value,
        hedge=_hedge(toks, first.i) or "near",
        text=sentence.text[first.start - sentence.start : second.end - sentence.start],
        governor=slot[0].i,
        lemma=slot[0].lemma,
        relation=slot[1],
        negated=_negated(toks, slot[0].i),
        open=_open(toks, slot[0].i),
        question=_question(sentence, span, slot[0], WH["share"]),
    )


def _answers(sentence: Sentence, *, shares: bool = True) -> list[Answer]:
    """A sentence's names and figures with their slots. ``shares``: a share given as two numbers
    is one answer (an output's); without, each number is one (a source's, which keeps its
    numbers' slots for the output's numbers and answers shares separately,
    :attr:`SourceIndex.shares`)."""
    toks = sentence.tokens
    out: list[Answer] = []
    in_shares: set[int] = set()
    for first, second in _shares(toks).items() if shares else ():
        share = _share(sentence, toks[first], toks[second])
        if share is not None:  # else its numbers are asked about one by one
            out.append(share)
            in_shares |= set(range(first, second + 1))
    for t in toks:
        if t.i in in_shares:
            continue  # a share's numbers: asked as one answer
        if t.pos not in ANSWER_POS or not any(c.isalnum() for c in t.text):
            continue
        if t.pos == "PROPN" and not t.text[:1].isupper():
            continue  # a lower-case word tagged as a name is a tagging slip, not a name
        if is_placeholder(t.text):
            continue  # a model's placeholder for a word it could not write: nothing to ask
        if DEMONYM.fullmatch(t.text):
            continue  # "the Frenchman": who someone is, not a name (the name is asked)
        if t.pos == "PROPN" and len(t.text) <= 4 and t.i and toks[t.i - 1].pos == "NUM":
            continue  # "1.2 MW", "500 Wh": a unit of the figure, which is asked about itself
        # the root of a name: not inside another name
        if t.head != t.i and t.dep in INSIDE and toks[t.head].pos in ANSWER_POS:
            continue
        slot = _slot(sentence, t)
        if slot is not None:
            out.append(_answer(sentence, t, *slot))
    return out


def _answer(sentence: Sentence, root: Token, governor: Token, relation: str) -> Answer:
    """The name or figure whose root is ``root``, as the answer to ``relation`` of
    ``governor``."""
    toks = sentence.tokens
    span = _span(sentence, root)
    kind = _kind(span)
    # a figure keeps the hyphen of a compound spaced apart ("17- year - old"): "17"
    figures = {w.i: w.text.rstrip(HYPHENS) for w in span if w.pos == "NUM"}
    nums = list(figures.values())
    start, end = span[0].start - sentence.start, span[-1].end - sentence.start
    return Answer(
        sentence=sentence.index,
        kind=kind,
        words=tuple(_number(figures[w.i]) if w.i in figures else w.text.lower() for w in span),
        value=number_value(nums) if nums and not _range(sentence.text[start:end]) else None,
        hedge=_hedge(toks, span[0].i),
        text=sentence.text[start:end],
        governor=governor.i,
        lemma=_slot_lemma(toks, governor) if kind == "number" else governor.lemma,
        relation=relation,
        negated=_negated(toks, governor.i),
        open=_open(toks, governor.i),
        question=_question(sentence, span, governor, WH[kind]),
    )


def _titled(sentence: Sentence) -> list[Answer]:
    """What a title before a name says in a source ("Harbour master Ines Volkova": the harbour
    master is Ines Volkova), as the answer that an output's appositive gives ("the harbour
    master, Ines Volkova"), which the parse frames the other way round: the name as the answer
    to the title noun's "of". Only a common-noun title (a capitalised one is read as part of
    the name)."""
    toks = sentence.tokens
    out: list[Answer] = []
    for t in toks:
        if t.pos != "PROPN" or not t.text[:1].isupper():
            continue
        if t.head != t.i and t.dep in INSIDE and toks[t.head].pos in ANSWER_POS:
            continue  # inside another name
        for c in toks[: t.i]:
            if c.head == t.i and c.dep == "compound" and c.pos == "NOUN":
                answer = _answer(sentence, t, c, "of")
                if answer.kind == "name":
                    out.append(answer)
    return out


def _rounds_to(a: Answer, source_value: float) -> bool:
    """Whether the output's figure ``a``, with its hedge, is true of the source's value."""
    if a.value is None:
        return False
    if a.value == source_value:
        return True
    if a.hedge == "up":
        return a.value <= source_value
    if a.hedge == "down":
        return a.value >= source_value
    return a.hedge == "near" and abs(a.value - source_value) <= ROUNDING * abs(source_value)


def _name_word(w: str) -> str:
    return w.removesuffix("'s").removesuffix("’s").rstrip("s")


def _joined(words: Sequence[str]) -> str:
    """A name's words run together, without hyphens: one name written as one word or two."""
    return "".join(words).replace("-", "")


def _same(a: Answer, b: Answer) -> bool:
    """Whether the source's answer ``b`` gives the output's ``a``."""
    if a.kind == "name":  # "Reyes" answers "Tomas Reyes", and the other way round
        shared = {_name_word(w) for w in a.words} & {_name_word(w) for w in b.words}
        return bool(shared) or _joined(a.words) == _joined(b.words)  # "Salaryman", "Salary Man"
    bounds = _range(b.text)
    if a.kind == "number" and bounds is not None:  # "10" or "10-11" for "10-11 year olds"
        inner = _range(a.text) or (a.value, a.value)
        return (
            inner[0] is not None
            and inner[1] is not None
            and bounds[0] <= inner[0] <= inner[1] <= bounds[1]
        )
    if a.kind == "number" and b.value is not None:
        score = _range(a.text)  # "3 - 2" against the "3" that the source's "3-2" is read as
        return _rounds_to(a, b.value) or (score is not None and score[0] == b.value)
    return set(a.words) <= set(b.words) or set(b.words) <= set(a.words)


def _comparable(a: Answer, b: Answer) -> bool:
    """Whether ``b`` may answer what ``a`` asks: a name for a name, a date for a date, and of
    dates a weekday for a weekday, a day of a month for a day of a month ("on April 23" is not
    answered by the "Thursday" of "on Thursday, April 23")."""
    if a.kind == "date" == b.kind:
        said, stated = _date_form(a), _date_form(b)
        return said == stated or bool(said & stated)
    return a.kind == b.kind


def _date_form(a: Answer) -> set[str]:
    """How a date says when: by its weekday, its month, or both."""
    words = {w.lower() for w in a.words}
    form = set()
    if words & WEEKDAYS:
        form.add("weekday")
    if words & (DATE_WORDS - WEEKDAYS):
        form.add("month")
    return form


Frame = tuple[int, int]  # (sentence, governor token): one event of the source


class SourceIndex:
    """The source's answers by slot, grouped by the event (governor) they belong to."""

    def __init__(self, source: ParsedText) -> None:
        self.by_slot: dict[tuple[str, str], list[Answer]] = {}
        self.frames: dict[Frame, list[Answer]] = {}
        self.texts = [s.text for s in source.sentences]
        self.words: set[str] = set()
        runs: list[list[str]] = []  # consecutive number words: one figure each
        #: the source's percentages and shares, which answer a share ("seven in ten")
        self.shares: list[Answer] = []
        for s in source.sentences:
            for a in _titled(s) + _answers(s, shares=False):
                self.by_slot.setdefault((a.lemma, a.relation), []).append(a)
                self.frames.setdefault(a.frame, []).append(a)
                if a.kind == "number" and a.relation == "of" and a.lemma in PERCENT:
                    self.shares.append(a)
            for first, second in _shares(s.tokens).items():
                share = _share(s, s.tokens[first], s.tokens[second], asked=False)
                if share is not None:
                    self.shares.append(share)
            run: list[str] = []
            for t in s.tokens:
                self.words.add(_number(t.text) if t.pos == "NUM" else t.text.lower())
                if t.pos == "NUM":
                    run.append(t.text)
                elif run:
                    runs.append(run)
                    run = []
            if run:
                runs.append(run)
        self.values = {v for r in runs if (v := number_value(r)) is not None}
        self.names = {_name_word(w) for w in self.words}
        # who speaks in each sentence: the named subjects of its verbs of saying, and whether a
        # "he"/"she" does
        self.sentence_words = [_words(s.text) for s in source.sentences]
        self.speakers: dict[int, list[Answer]] = {}
        for (lemma, relation), found in self.by_slot.items():
            if lemma in SPEECH and relation == "subj":
                for a in found:
                    if a.kind == "name":
                        self.speakers.setdefault(a.sentence, []).append(a)
        self.pronoun_speaker = {
            s.index
            for s in source.sentences
            for t in s.tokens
            if t.text.lower() in SPEAKER_PRONOUNS
            and t.dep in SUBJECT
            and s.tokens[t.head].lemma in SPEECH
        }

    @cached_property
    def ages(self) -> set[int]:
        """Every age the source gives anyone ("Henderson, 24,", "the 34-year-old"); read only
        where an age would conflict."""
        return {age for text in self.texts for age in stated_ages(text)}

    @cached_property
    def flat(self) -> list[str]:
        """Each source sentence without its spaces, where a run of figures is found again as
        copied; read only where a figure would conflict."""
        return [re.sub(r"\s+", "", text) for text in self.texts]

    def copied(self, text: str, f: Finding) -> Finding:
        """A figure's conflict (``f``, in output sentence ``text``) as the same answer where the
        run of figures it stands in is the source's, copied with other spacing: "prevailed 4 -
        6 7 - 6 ( 3 ) 6 - 3" of a source's "4-6 7-6(3) 6-3", "roughly 1,000 - 1,640 ft" of
        "1,000- 1,640ft" (:func:`figure_runs`); the parse of such a run pairs its figures with
        other words and sets one against another figure of the source. Every place the figure
        stands in the sentence must lie in such a run."""
        a = f.answer
        if f.value != OTHER or f.polarity or a.kind != "number":
            return f
        runs = figure_runs(text, a.text)
        found = [next((k for k, flat in enumerate(self.flat) if run in flat), None) for run in runs]
        if not found or None in found:
            return f
        return Finding(a, SAME, replace(a, sentence=found[0]))

    def speaker_of(self, quotation: tuple[str, ...]) -> Answer | None:
        """Who says these words in the source: the one named speaker of the sentence that holds
        them, or of the nearest sentence before it when that sentence's speaker is "he" or "she";
        None when the words are not in the source or the speaker is not clear."""
        found: list[Answer] = []
        for k, words in enumerate(self.sentence_words):
            if not _holds(words, quotation):
                continue
            named = self.speakers.get(k, [])
            if not named and k in self.pronoun_speaker:
                before = range(k - 1, max(-1, k - 1 - SPEAKER_BEFORE), -1)
                named = next((self.speakers[j] for j in before if j in self.speakers), [])
            if len({a.text for a in named}) != 1:
                return None  # nobody named, or two speakers: not clear
            found.append(named[-1])
        if len({a.text for a in found}) != 1:
            return None
        return found[0]

    def ask(
        self, a: Answer, siblings: Sequence[Answer], nearby: Collection[int] | None = None
    ) -> Finding:
        """Answer ``a``'s question; ``siblings`` are the other answers of its event, which pick
        the source's event when the same word governs several ("X won in 2001, Y in 2003").
        ``nearby``: the source sentences most relevant to the output sentence; a source event that
        shares none of ``siblings`` conflicts only there (None: anywhere).
        A share is answered by the source's nearest percentage or share when it rounds to it;
        else it is left undecided (the source may give it otherwise, or of something else)."""
        if a.kind == "share":
            share = a.value or 0.0
            near = [b for b in self.shares if b.value is not None and _rounds_to(a, b.value)]
            if near:
                return Finding(a, SAME, min(near, key=lambda b: abs((b.value or 0) - share)))
            return Finding(a, UNDECIDED, None)
        # the names listed beside this one ("Henderson and Mignolet played"), which take the
        # source's answers they give: "Henderson played" answers Henderson, not Mignolet
        mates = [o for o in siblings if o.relation == a.relation and o.kind == a.kind]
        # a source event whose one answer is a name the sentence gives another role of its event
        # ("Carlos Tevez has been told to …" against "Carlos Tevez has told Juventus …") is
        # another event: one person is seldom both sides of it, and nothing else ties the two
        others = [o for o in siblings if o.relation != a.relation]
        fillers = [
            b
            for b in self.by_slot.get((a.lemma, a.relation), [])
            if _comparable(a, b)
            and (_same(a, b) or not any(_same(m, b) for m in mates))
            and not (_alone(self.frames[b.frame], b) and any(_same(o, b) for o in others))
        ]
        if fillers:
            agreement = [  # how many of the event's other answers each filler's event shares
                sum(
                    any(c.relation == o.relation and _same(o, c) for c in self.frames[b.frame])
                    for o in siblings
                )
                for b in fillers
            ]
            best = max(agreement)
            fillers = [b for b, n in zip(fillers, agreement, strict=True) if n == best]
            for b in fillers:
                if _same(a, b):
                    # the same event: asked as a yes/no question, does the source agree?
                    # one side negates it, the other not: a conflict where both state it
                    if a.negated != b.negated and not (a.open or b.open):
                        return Finding(a, OTHER, b, polarity=True)
                    return Finding(a, SAME, b)
            if best == 0 and nearby is not None:
                # an event the source tells far from what the sentence draws on is another one
                # ("Hull were beaten 2-0" is not how far "Hull City are six points adrift")
                fillers = [b for b in fillers if b.sentence in nearby]
            if best == 0 and siblings:
                # no source event with this word shares an answer in its role: a conflict only
                # with one that could be this event (:meth:`_could_be`); "The US were beaten
                # 3-2" is another event than "Williams beat Errani 4-6"
                fillers = [b for b in fillers if self._could_be(b, siblings)]
            if fillers and a.lemma == AGE_SLOT and a.value in self.ages:
                # "the 24-year-old" of whom the source says "Henderson, 24,": another age in
                # the sentence the question finds ("when the 34-year-old departs") is
                # another person's, and who "the 24-year-old" is the question cannot tell
                return Finding(a, PRESENT, None)
            if a.negated and not any(b.negated for b in fillers):
                # "the grandson wasn't even born in Spain" against "was born in Flanders": what
                # the sentence denies is not what the source states, and no conflict; the answer
                # is looked for as any other the source does not give
                fillers = []
            if fillers:
                return Finding(a, OTHER, fillers[0])
        if a.kind == "name":
            present = any(_name_word(w) in self.names for w in a.words)
        elif a.kind == "number":
            present = any(_rounds_to(a, v) for v in self.values)
        else:
            present = all(w in self.words for w in a.words)
        if present:
            return Finding(a, PRESENT, None)
        # A figure the source does not state may still follow from it ("two in five" for 41%,
        # "fourteen years after" from two dates): without arithmetic it is left undecided.
        return Finding(a, ABSENT if a.kind == "name" else UNDECIDED, None)

    def _could_be(self, b: Answer, siblings: Sequence[Answer]) -> bool:
        """Whether the source event of answer ``b`` may be the output's event whose other
        answers are ``siblings``: it has no other answer, or it names one of their names in any
        role (``b`` included: "Vasquez beat Tanabe" against "Tanabe beat Vasquez"). Figures do
        not tie events: "3" is in "beat Errani 4-6 6-3" and in "were beaten 3-2"."""
        frame = self.frames[b.frame]
        if _alone(frame, b):
            return True
        return any(o.kind == c.kind == "name" and _same(o, c) for o in siblings for c in frame)


def _alone(frame: Sequence[Answer], b: Answer) -> bool:
    """Whether ``b`` is the only answer of its source event."""
    return all(c is b for c in frame)


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(text))


def _holds(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    n = len(part)
    return any(words[i : i + n] == part for i in range(len(words) - n + 1))


def quotations(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The quotations of a text long enough to find again (:data:`QUOTE_WORDS`): each as written
    and as its lower-cased words."""
    out = []
    for m in _QUOTATION.finditer(text):
        said = next(g for g in m.groups() if g).strip()
        words = _words(said)
        if len(words) >= QUOTE_WORDS:
            out.append((said, words))
    return out


def ask_speakers(
    sentence: Sentence, answers: Sequence[Answer], findings: list[Finding], index: SourceIndex
) -> list[Finding]:
    """The findings with each quotation's speaker asked about the quotation itself: "[who] said
    ‘…’?", answered by whoever says those words in the source (:meth:`SourceIndex.speaker_of`).
    Only a sentence with one named speaker is asked; the speaker's finding is replaced."""
    speakers = [
        a for a in answers if a.kind == "name" and a.relation == "subj" and a.lemma in SPEECH
    ]
    if len(speakers) != 1:
        return findings
    (a,) = speakers
    verb = sentence.tokens[a.governor].text
    for said, words in quotations(sentence.text):
        source = index.speaker_of(words)
        if source is None:
            continue
        # single marks inside: the window quotes the question in double ones
        asked = replace(a, question=f"[who] {verb} ‘{_first_words(said)}’?")
        verdict = Finding(asked, SAME if _same(a, source) else OTHER, source)
        return [verdict if f.answer is a else f for f in findings]
    return findings


def _first_words(text: str, words: int = QUOTED) -> str:
    cut = text.split()
    return " ".join(cut[:words]) + (" …" if len(cut) > words else "")


def quote(text: str, words: int = QUOTED) -> str:
    """The first words of a source sentence, to say where an answer was found: a quote finds
    the sentence in the source pane, where a number would clash with the evidence ranks."""
    return f"“{_first_words(text, words)}”"


#: The verdict marks that end each line of a sentence's ``detail`` (see :func:`describe`).
SAME_MARK, CONFLICT_MARK, NO_ANSWER_MARK = "✓", "✗", "?"
#: Why the source gives no answer, by outcome, as :func:`describe` words it.
NO_ANSWER = {
    PRESENT: "in the source, not in this role",
    UNDECIDED: "not stated in the source; it may follow from its figures",
    ABSENT: "nowhere in the source",
}
_NO_ANSWER_KIND = {PRESENT: "elsewhere", UNDECIDED: "undecided", ABSENT: "absent"}


def describe(f: Finding, source_texts: Sequence[str]) -> str:
    """One line for the editor: the question, both answers (where the source gives its answer)
    and the verdict (read back by :func:`read_detail`)."""
    q, a = f"Q: {f.answer.question}", f.answer.text
    if f.source is not None:
        where = f"(in {quote(source_texts[f.source.sentence])})"
        if f.polarity:
            said = "negates" if f.source.negated else "does not negate"
            change = "drops" if f.source.negated else "adds"
            return (
                f"{q} output: {a} · source: {f.source.text} {where}, but the source {said} "
                f"“{f.source.lemma}”: the output {change} a negation {CONFLICT_MARK}"
            )
        mark = SAME_MARK if f.value == SAME else CONFLICT_MARK
        return f"{q} output: {a} · source: {f.source.text} {where} {mark}"
    return f"{q} output: {a} · source: no answer ({a} {NO_ANSWER[f.value]}) {NO_ANSWER_MARK}"


@dataclass(frozen=True, slots=True)
class Said:
    """One line of a sentence's ``detail`` read back: what was asked, what each side says.

    ``verdict``: "same", "conflict", or, where the source gives no answer, "elsewhere" (the
    answer is in the source in another role), "undecided" (a figure the source may imply) or
    "absent" (nowhere in the source).
    """

    question: str
    output: str
    source: str | None  # the source's answer; None when it gives none
    where: str | None  # the source sentence it is in (its first words, quoted)
    verdict: str
    why: str = ""  # a negation conflict: what the source negates and the output does not

    @property
    def conflict(self) -> bool:
        return self.verdict == "conflict"


def read_detail(detail: str | None) -> list[Said | str]:
    """The lines of a sentence's ``detail``: each question line written by :func:`describe`
    as a :class:`Said`, any other line as it is (other checkers, older wordings)."""
    return [_read_line(line) for line in (detail or "").splitlines() if line.strip()]


def _read_line(line: str) -> Said | str:
    mark = line[-1:]
    if not line.startswith("Q: ") or mark not in (SAME_MARK, CONFLICT_MARK, NO_ANSWER_MARK):
        return line
    head, sep, rest = line[3:-1].rstrip().rpartition(" · source: ")
    question, sep2, output = head.rpartition(" output: ")
    if not sep or not sep2:
        return line
    if mark == NO_ANSWER_MARK:
        kind = next(
            (_NO_ANSWER_KIND[v] for v, words in NO_ANSWER.items() if rest.endswith(f"{words})")),
            None,
        )
        if kind is None or not rest.startswith("no answer ("):
            return line
        return Said(question, output, None, None, kind)
    answer, _sep, why = rest.partition(", but the source ")
    where = None
    if answer.endswith(")") and " (" in answer:
        answer, _sep, where = answer[:-1].rpartition(" (")
        where = where.removeprefix("in ")
    verdict = "same" if mark == SAME_MARK else "conflict"
    return Said(question, output, answer, where, verdict, f"the source {why}" if why else "")


class QuestionChecker(OnePairAtATime):
    """Questions on the output's names and figures, answered from the source's parse."""

    name = "questions"
    #: 2: a quotation's speaker is asked about the quotation (:func:`ask_speakers`); 3: a share
    #: given as two numbers ("seven in ten") is one answer (:func:`_shares`); 4: a title before a
    #: name answers who holds it (:func:`_titled`); 5-7: each name of a list fills its slot, a
    #: score copied with spaces is the source's, "UNK" and "the Frenchman" are not asked about;
    #: 8: a name listed beside another leaves it the source's answer that it gives, and a day in
    #: a time phrase ("on Friday night") is asked about the phrase's event; 9: a list read as
    #: an appositive heading the rest is a list, and a negation is no conflict with an event
    #: asked about or supposed ("whether Hungary would backtrack"); 10: a source event with the
    #: same word that shares no answer with the output's event conflicts only where it could be
    #: that event (:meth:`SourceIndex._could_be`); 11: an age ("the 30-year-old") is not a count
    #: of years ("a two-year deal"): its slot is "year old" (:func:`_slot_lemma`), and a name
    #: written as one word is the name written as two ("Salaryman", "Salary Man"); 12: such an
    #: event conflicts only in the :data:`NEAR_SENTENCES` most relevant source sentences; 13:
    #: "dozen" is a number (:data:`models.figures.SCALES`: "a dozen" is 12); 14: an age the
    #: source gives someone is no conflict with another person's age in the sentence found,
    #: a figure in a run of figures copied from the source is the source's
    #: (:meth:`SourceIndex.copied`), and a weekday and a day of a month do not answer each other
    #: (the day of the month of "Thursday, April 23" fills the weekday's slot too); 15: a name
    #: the sentence gives a title is a sibling of the title's other answers ("Council leader
    #: Maria Okafor": the source's Maria Okafor does not answer against "Council"); a source
    #: event whose one answer is a name the sentence gives another role is another event; a
    #: figure keeps its value where its compound was spaced apart ("17- year - old"); and
    #: another answer is no conflict with one the sentence denies ("wasn't born in Spain").
    version = f"15+{QA_REVISION}"
    display_name = "question-based check"
    grain: Grain = "sentence"

    def score_one(self, item: PairInput) -> PairScore:
        if not item.source.sentences:
            return pair_score(
                item.key,
                self,
                [
                    SentenceScore(s.index, None, not_checked="the source has no text")
                    for s in item.output.sentences
                ],
            )
        index = SourceIndex(item.source)
        judged = item.judged
        sentences: list[SentenceScore] = []
        for n, sentence in enumerate(item.output.sentences):
            claim = item.claim(sentence.index)
            if claim is not None and claim.kind == "yes/no":
                # its names and figures are the question's: asking them says nothing of the answer
                sentences.append(SentenceScore(sentence.index, None, not_checked=YES_NO))
                continue
            why = unchecked_reason(sentence) if sentence.arcs else None
            if why is not None:
                # "Q3 results:", a table's header, "Here is a summary:": nothing to ask about
                sentences.append(SentenceScore(sentence.index, None, not_checked=why))
                continue
            answers = _answers(judged[n])
            # a name the sentence gives a title ("Council leader Maria Okafor") is a sibling of
            # the title's other answers, not asked itself: the source's titled name then fills
            # the title's slot as the sentence's own, not against "Council"
            titled = _titled(judged[n])
            nearby = frozenset(
                by_relevance(text_relevance(index.texts, judged[n].text))[:NEAR_SENTENCES]
                if answers
                else ()
            )
            asked = [
                index.copied(
                    judged[n].text,
                    index.ask(
                        a,
                        [o for o in answers + titled if o.governor == a.governor and o is not a],
                        nearby,
                    ),
                )
                for a in answers
            ]
            # conflicts first: what the editor must look at
            findings = sorted(ask_speakers(judged[n], answers, asked, index), key=lambda f: f.value)
            if not findings:
                sentences.append(SentenceScore(sentence.index, None, not_checked=NOT_ASKED))
                continue
            evidence = tuple(sorted({f.source.sentence for f in findings if f.source is not None}))
            sentences.append(
                SentenceScore(
                    sentence.index,
                    min(f.value for f in findings),
                    None,
                    evidence,
                    detail="\n".join(describe(f, index.texts) for f in findings),
                )
            )
        return pair_score(item.key, self, sentences)
