"""The claim of an answer: what a question and an elliptical answer state together.

An answer is read with its question: "Do foot passengers need to book in advance?" + "No." claims
"Foot passengers do not need to book in advance."; "When did the library open?" + "In 1893."
claims "The library opened in 1893.". Checkers judge that claim instead of leaving a bare
"Yes."/"No." unchecked, and instead of judging a fragment ("In 1893.") as if it stood alone.

Only answer sentences that do not stand on their own get a claim: a bare yes/no, a yes/no with a
pro-form ("No, they don't."), or a fragment with no subject ("In 1893.", "Dr Helena Voss.").
A sentence with its own subject and predicate ("Only vehicles have to be booked ahead.") is
interpretable alone (AIS's first question) and is checked as written.

The rewrite works on the parser's tokens (no inflection model): yes/no questions lose their
inversion ("Can visitors camp?" → "Visitors can camp."), a "No" adds ``not`` after the
auxiliary, do-support is dropped for "Yes" by inflecting the main verb from the auxiliary's
form ("Did X open?" → "X opened"); wh-questions take the answer phrase in place of the wh-phrase
(subject questions) or at the gap (after the verb for objects, at the end otherwise). When no
rule applies the claim is the question and the answer as one text (``kind == "joined"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from models.arcs import extract_arcs
from models.document import ParsedText, Sentence, Token

if TYPE_CHECKING:
    from models.checkers.base import PairInput

ClaimKind = Literal["yes/no", "wh", "joined"]
Parse = Callable[[Sequence[str]], list[ParsedText]]

YES = frozenset({"yes", "yeah", "yep", "yup", "correct", "right", "true", "sure", "indeed"})
NO = frozenset({"no", "nope", "nah", "false", "incorrect", "wrong"})
WH = frozenset({"who", "whom", "whose", "what", "which", "when", "where", "why", "how"})
NEGATIONS = frozenset({"not", "n't", "never"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
# Children that leave a clause elliptical: "they do", "it is not", "we can".
PRO_FORM_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "neg", "advmod", "punct", "aux", "intj"})
DO_FORMS = {"do": "base", "does": "3sg", "did": "past"}
MODAL_NEGATIONS = {"can": "cannot"}
# A label before the question in a context field ("Question: ...", "Q: ...").
_LABEL = re.compile(r"^\s*(?:question|query|q)\s*[:.\-–]\s*", re.IGNORECASE)

_IRREGULAR_PAST = {
    "be": "was",
    "become": "became",
    "begin": "began",
    "break": "broke",
    "bring": "brought",
    "build": "built",
    "buy": "bought",
    "catch": "caught",
    "choose": "chose",
    "come": "came",
    "cost": "cost",
    "cut": "cut",
    "do": "did",
    "draw": "drew",
    "drink": "drank",
    "drive": "drove",
    "eat": "ate",
    "fall": "fell",
    "feel": "felt",
    "fight": "fought",
    "find": "found",
    "fly": "flew",
    "forget": "forgot",
    "get": "got",
    "give": "gave",
    "go": "went",
    "grow": "grew",
    "have": "had",
    "hear": "heard",
    "hide": "hid",
    "hit": "hit",
    "hold": "held",
    "hurt": "hurt",
    "keep": "kept",
    "know": "knew",
    "lay": "laid",
    "lead": "led",
    "leave": "left",
    "lend": "lent",
    "let": "let",
    "lie": "lay",
    "lose": "lost",
    "make": "made",
    "mean": "meant",
    "meet": "met",
    "pay": "paid",
    "put": "put",
    "read": "read",
    "ride": "rode",
    "ring": "rang",
    "rise": "rose",
    "run": "ran",
    "say": "said",
    "see": "saw",
    "sell": "sold",
    "send": "sent",
    "set": "set",
    "shut": "shut",
    "sing": "sang",
    "sink": "sank",
    "sit": "sat",
    "sleep": "slept",
    "speak": "spoke",
    "spend": "spent",
    "stand": "stood",
    "steal": "stole",
    "strike": "struck",
    "swim": "swam",
    "take": "took",
    "teach": "taught",
    "tell": "told",
    "think": "thought",
    "throw": "threw",
    "understand": "understood",
    "wake": "woke",
    "wear": "wore",
    "win": "won",
    "write": "wrote",
}
_IRREGULAR_3SG = {"be": "is", "have": "has", "do": "does", "go": "goes"}


@dataclass(frozen=True, slots=True)
class Claim:
    """What one answer sentence claims, read with its question.

    Attributes:
        sentence: index of the answer sentence in the output.
        text: the claim, one declarative sentence (or the question and answer joined).
        kind: how it was built: ``yes/no``, ``wh`` or ``joined``.
        parsed: the claim parsed as one sentence (offsets into ``text``, start 0), whose arcs
            the checkers score for the sentence; the answer's own arcs are reported as before.
        answer_at: where the copied part of the answer starts in ``text`` (None: not copied).
        answer_span: that part's (start, end) in the answer sentence's own text.
        denies: for a "No" to a yes/no question, the claim it denies ("Foot passengers need to
            book."), parsed like ``parsed``. The model checkers score a denial as one minus
            the support of what it denies: the arc/support model was trained to mark an added
            "not" as unsupported, so it cannot judge a negated claim on its own (on held-out
            QA items, "No" answers: balanced accuracy 78.9 this way, 62.2 on the negated text).
    """

    sentence: int
    text: str
    kind: ClaimKind
    parsed: Sentence
    answer_at: int | None = None
    answer_span: tuple[int, int] = (0, 0)
    denies: Sentence | None = None

    def locate(self, start: int, end: int) -> tuple[int, int] | None:
        """A span of the answer sentence (offsets in its text) in the claim, if it was copied."""
        a, b = self.answer_span
        if self.answer_at is None or start < a or end > b:
            return None
        return start - a + self.answer_at, end - a + self.answer_at


@dataclass(frozen=True, slots=True)
class Draft:
    """A claim before parsing: its text and where the answer's words went."""

    text: str
    kind: ClaimKind
    answer_at: int | None = None
    answer_span: tuple[int, int] = (0, 0)
    denies: str | None = None


def question_of(context: str | None, parsed: ParsedText | None) -> Sentence | None:
    """The question a context asks: its last sentence that ends in "?" or opens like a question.

    A label such as "Question:" in front is left out by :func:`strip_label` before parsing.
    """
    if not context or parsed is None:
        return None
    for s in reversed(parsed.sentences):
        if s.text.rstrip().endswith("?") or _opens_question(s.tokens):
            return s
    return None


def question_text(context: str | None) -> str | None:
    """The question of a pair's context, without a "Question:" label (None: no context)."""
    if not context or not context.strip():
        return None
    return strip_label(context)


def strip_label(context: str) -> str:
    """The context without a leading "Question:" / "Q:" label."""
    return _LABEL.sub("", context, count=1).strip()


def stands_alone(sentence: Sentence) -> bool:
    """Whether an answer sentence is interpretable without its question.

    It does when it has a subject and a predicate that says something beyond a pro-form: "They
    do." and "It is not." do not; "Only vehicles have to be booked." does.
    """
    toks = sentence.tokens
    for t in toks:
        if t.dep in SUBJECT_DEPS and t.head != t.i:
            verb = toks[t.head]
            children = [c for c in toks if c.head == verb.i and c.i != verb.i]
            pro_form = verb.lemma in {"do", "be", "have"} or verb.pos == "AUX"
            if pro_form and all(c.dep in PRO_FORM_DEPS for c in children):
                continue
            return True
    return False


def draft_claim(question: Sentence, answer: Sentence) -> Draft | None:
    """The claim text of one answer sentence, or None when the sentence stands alone."""
    if stands_alone(answer):
        return None
    words = [t for t in answer.tokens if t.pos != "PUNCT"]
    polarity: bool | None = None
    rest = list(answer.tokens)
    # A leading yes/no word (and the punctuation after it) gives the polarity.
    if words and words[0].text.lower() in YES | NO and words[0].dep in {"intj", "ROOT"}:
        polarity = words[0].text.lower() in YES
        rest = [t for t in answer.tokens if t.i > words[0].i]
        while rest and rest[0].pos == "PUNCT":
            rest = rest[1:]
    while rest and rest[-1].pos == "PUNCT":
        rest = rest[:-1]
    negated = any(t.lemma in NEGATIONS or t.text.lower() in NEGATIONS for t in rest)
    pro_form = bool(rest) and any(t.dep in SUBJECT_DEPS for t in rest)
    if pro_form and negated:
        polarity = False
    elif pro_form and polarity is None:
        polarity = True
    q = [t for t in question.tokens if t.pos != "PUNCT" or t.i not in _trailing(question)]
    if _opens_question(question.tokens) == "yes/no":
        if polarity is not None:
            text = _yes_no(q, polarity)
            if text is not None:
                return Draft(text, "yes/no", denies=None if polarity else _yes_no(q, True))
    elif _opens_question(question.tokens) == "wh" and rest and not pro_form:
        phrase = answer.text[rest[0].start - answer.start : rest[-1].end - answer.start]
        built = _wh(q, rest, phrase)
        if built is not None:
            text, at = built
            span = (rest[0].start - answer.start, rest[-1].end - answer.start)
            return Draft(text, "wh", at, span)
    joined = f"{question.text.strip()} {answer.text.strip()}"
    return Draft(joined, "joined", len(question.text.strip()) + 1, (0, len(answer.text.strip())))


def build_claims(
    context: str | None,
    output: ParsedText,
    parse: Parse,
) -> tuple[Claim | None, ...]:
    """One claim (or None) per output sentence; all None without a question.

    Args:
        context: the pair's question (or a context whose last question is used).
        output: the parsed answer.
        parse: the parser for the question and the claims (``models.parsing.parse_many``).
    """
    none: tuple[Claim | None, ...] = (None,) * len(output.sentences)
    if not context or not context.strip() or not output.sentences:
        return none
    text = strip_label(context)
    (parsed_context,) = parse([text])
    question = question_of(text, parsed_context)
    if question is None:
        return none
    drafts = [draft_claim(question, s) for s in output.sentences]
    wanted = [d for d in drafts if d is not None]
    if not wanted:
        return none
    parsed = parse([d.text for d in wanted])
    denied = [d.denies for d in wanted if d.denies is not None]
    denials = iter(parse(denied) if denied else [])
    claims: list[Claim | None] = []
    it = iter(parsed)
    for s, d in zip(output.sentences, drafts, strict=True):
        if d is None:
            claims.append(None)
            continue
        claims.append(
            Claim(
                s.index,
                d.text,
                d.kind,
                as_one_sentence(next(it), s.index),
                d.answer_at,
                d.answer_span,
                as_one_sentence(next(denials), s.index) if d.denies is not None else None,
            )
        )
    return tuple(claims)


def as_one_sentence(parsed: ParsedText, index: int) -> Sentence:
    """A parsed claim as one :class:`Sentence` starting at 0 (a joined claim parses as two)."""
    tokens: list[Token] = []
    for s in parsed.sentences:
        base = len(tokens)
        tokens.extend(
            Token(base + t.i, t.start, t.end, t.text, t.lemma, t.pos, t.dep, base + t.head)
            for t in s.tokens
        )
    text = parsed.text
    end = tokens[-1].end if tokens else len(text)
    return Sentence(index, 0, end, text[:end], tuple(tokens), extract_arcs(tokens, index))


# --- the rewrite rules --------------------------------------------------------------------


def _trailing(sentence: Sentence) -> set[int]:
    """Indices of the punctuation that ends a sentence ("?", "?!")."""
    out: set[int] = set()
    for t in reversed(sentence.tokens):
        if t.pos != "PUNCT":
            break
        out.add(t.i)
    return out


def _opens_question(tokens: Sequence[Token]) -> str | None:
    """``yes/no`` when the first word is an auxiliary, ``wh`` when a wh-word leads, else None."""
    words = [t for t in tokens if t.pos != "PUNCT"]
    if not words:
        return None
    first = words[0].text.lower()
    if first in WH or (words[0].pos == "ADP" and len(words) > 1 and words[1].text.lower() in WH):
        return "wh"
    if words[0].pos == "AUX" or first in DO_FORMS or words[0].lemma in {"be", "have"}:
        return "yes/no"
    return None


def _subtree(q: Sequence[Token], root: int, skip: frozenset[str] = frozenset()) -> set[int]:
    """Indices under ``q[root]`` (``q[k].i == k``), leaving out children labelled ``skip``."""
    ids = {root}
    grew = True
    while grew:
        grew = False
        for t in q:
            if t.i not in ids and t.head in ids and t.head != t.i and t.dep not in skip:
                ids.add(t.i)
                grew = True
    return ids


def _noun_phrase_end(q: Sequence[Token], start: int) -> int | None:
    """One past a plain noun phrase at ``q[start]`` (when the parser found no subject)."""
    k = start
    while k < len(q) and q[k].pos in {"DET", "NUM", "ADJ"}:
        k += 1
    if k >= len(q) or q[k].pos not in {"NOUN", "PROPN", "PRON"}:
        return None
    while k < len(q) and q[k].pos in {"NOUN", "PROPN"}:
        k += 1
    return max(k, start + 1)


def _subject_end(q: Sequence[Token], start: int) -> int | None:
    """Index (into ``q``) one past the subject that starts at ``q[start]``."""
    head = next((k for k in range(start, len(q)) if q[k].dep in SUBJECT_DEPS), None)
    if head is None:
        return _noun_phrase_end(q, start)
    if q[head].dep == "expl":
        return head + 1
    # The subject's own modifiers after its head ("the highest point on the trail"), but not a
    # clause the parser hung on it ("the mayor elected in 2001" is the predicate).
    ids = _subtree(q, head, frozenset({"acl", "relcl", "cc", "conj", "punct"}))
    end = head + 1
    while end < len(q) and end in ids:
        end += 1
    return end


def _words(tokens: Sequence[Token]) -> str:
    """The tokens as text, spaced as in the original where they were adjacent."""
    out = ""
    prev: Token | None = None
    for t in tokens:
        if prev is not None and t.start != prev.end:
            out += " "
        out += t.text
        prev = t
    return out


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(tokens: Sequence[Token], text: str) -> str:
    """Lower-case an inserted phrase's first letter unless it is a name or an acronym."""
    if not tokens or tokens[0].pos == "PROPN" or tokens[0].text.isupper() or tokens[0].text == "I":
        return text
    return text[:1].lower() + text[1:]


def inflect(lemma: str, form: str) -> str:
    """The verb form do-support carried: ``base``, ``3sg`` or ``past`` (regular rules + a table)."""
    if form == "base":
        return lemma
    if form == "past":
        if lemma in _IRREGULAR_PAST:
            return _IRREGULAR_PAST[lemma]
        if lemma.endswith("e"):
            return lemma + "d"
        if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", lemma):
            return lemma + lemma[-1] + "ed"  # stop → stopped
        if re.search(r"[^aeiou]y$", lemma):
            return lemma[:-1] + "ied"
        return lemma + "ed"
    if lemma in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[lemma]
    if re.search(r"(s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def _negate(aux: Token) -> str:
    low = aux.text.lower()
    return MODAL_NEGATIONS.get(low, f"{low} not")


def _declarative(q: Sequence[Token], aux_at: int, polarity: bool) -> tuple[str, str, str] | None:
    """Un-invert "AUX subject rest": (subject, verb group, what follows the main verb)."""
    aux = q[aux_at]
    end = _subject_end(q, aux_at + 1)
    if end is None or end <= aux_at + 1:
        return None
    subject = _words(q[aux_at + 1 : end])
    rest = [t for t in q[end:] if t.lemma not in NEGATIONS and t.text.lower() not in NEGATIONS]
    low = aux.text.lower()
    verb = next((k for k, t in enumerate(rest) if t.i == aux.head and t.i != aux.i), None)
    if low in DO_FORMS and polarity and verb is not None:
        group = [_words(rest[:verb]), inflect(rest[verb].lemma, DO_FORMS[low])]
    else:
        aux_text = low if polarity else _negate(aux)
        group = [aux_text, _words(rest[: verb + 1])] if verb is not None else [aux_text]
    after = _words(rest[verb + 1 :]) if verb is not None else _words(rest)
    return subject, " ".join(w for w in group if w), after


def _yes_no(q: Sequence[Token], polarity: bool) -> str | None:
    made = _declarative(q, 0, polarity)
    if made is None:
        return None
    return _capitalise(" ".join(w for w in made if w)) + "."


def _wh_phrase_end(q: Sequence[Token], start: int) -> int:
    """One past the wh-phrase: "how many people", "which team", "how high", "what year"."""
    wh = q[start]
    end = start + 1
    low = wh.text.lower()
    if low == "how" and end < len(q) and q[end].pos in {"ADJ", "ADV"}:
        end += 1
    if low in {"which", "what", "whose", "how"} and end < len(q):
        # A noun the wh-word (or "how many") determines: "which team", "how many people".
        while (
            end < len(q)
            and q[end].pos in {"ADJ", "NOUN", "PROPN", "NUM"}
            and q[end].dep
            in {
                "compound",
                "amod",
                "nsubj",
                "nsubjpass",
                "dobj",
                "attr",
                "npadvmod",
                "pobj",
                "pcomp",
                "nmod",
            }
        ):
            end += 1
            if q[end - 1].pos in {"NOUN", "PROPN"}:
                break
    return end


def _wh(q: Sequence[Token], answer: Sequence[Token], phrase: str) -> tuple[str, int] | None:
    """The claim of a wh-question and its answer phrase, and where the answer sits in it."""
    start = 0
    prep = ""
    if q and q[0].pos == "ADP":
        prep, start = q[0].text.lower(), 1
    if start >= len(q):
        return None
    end = _wh_phrase_end(q, start)
    wh_tokens = q[start:end]
    low = q[start].text.lower()
    prefix = f"{prep} " if prep and not phrase.lower().startswith(prep + " ") else ""
    # "how high" + "721 metres" → "721 metres high"; "how many people" + "300" → "300 people".
    tail = ""
    if low == "how" and len(wh_tokens) > 1:
        nouns = [t for t in wh_tokens[1:] if t.pos in {"NOUN", "PROPN"}]
        if nouns and not any(t.lemma == nouns[-1].lemma for t in answer):
            tail = " " + _words(nouns)
        elif not nouns and wh_tokens[1].text.lower() not in {"many", "much"}:
            tail = " " + wh_tokens[1].text
    inverted = (
        end < len(q)
        and q[end].pos == "AUX"
        and (q[end].dep != "ROOT" or not any(t.dep in SUBJECT_DEPS for t in wh_tokens))
    )
    if not inverted:
        # The wh-phrase is the subject: the answer takes its place ("Dr Voss produced the map").
        rest = _words(q[end:])
        if not rest:
            return None
        head = prefix + phrase
        return f"{_capitalise(head)}{tail} {rest}.", len(prefix)
    made = _declarative(q, end, True)
    if made is None:
        return None
    subject, group, after = made
    inserted = prefix + _lower_first(answer, phrase)
    if q[start].dep in {"dobj", "attr", "dative", "oprd"} and after:
        # Object questions: the answer right after the verb ("The shop sells tickets in June").
        lead = f"{_capitalise(subject)} {group} "
        return f"{lead}{inserted}{tail} {after}.", len(lead) + len(prefix)
    lead = " ".join(w for w in (_capitalise(subject), group, after) if w) + " "
    return f"{lead}{inserted}{tail}.", len(lead) + len(prefix)


def pair_input(
    key: Hashable,
    source: ParsedText,
    output: ParsedText,
    question: str | None = None,
    parse: Parse | None = None,
) -> PairInput:
    """A checker input for a pair, with the claims of its answer when it has a question.

    Args:
        key: the caller's identifier, returned unchanged.
        source, output: the parsed texts.
        question: the pair's question (its ``context``); None or blank for a plain pair, which
            gives exactly the input it always had.
        parse: the parser for the question and the claims (default: the spaCy pipeline).
    """
    from models.checkers.base import PairInput

    if question is None or not question.strip():
        return PairInput(key, source, output)
    if parse is None:
        from models.parsing import parse_many

        parse = parse_many
    claims = build_claims(question, output, parse)
    return PairInput(key, source, output, question, claims)
