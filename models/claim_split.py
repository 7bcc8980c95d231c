"""Split an output sentence into the claims it makes, each checkable on its own.

A summary sentence often fuses several facts ("The mayor, who was elected in 2019, opened the
bridge and praised the workers."). Judged whole, one wrong fact hides among right ones and an
entailment model's score saturates; judged claim by claim, the sentence is as supported as its
weakest claim, and the editor is told which claim failed. The rules read the dependency parse:

* coordinated clauses of the main verb ("opened the bridge and praised the workers") become one
  claim each; a clause without its own subject borrows the main clause's subject and auxiliaries
  ("He was arrested and charged" -> "He was arrested", "He was charged"); a verb in a finite
  form of its own ("is bidding … and has a title shot") borrows the subject alone, and a verb
  that may belong to a reported clause before it ("says the rocket landed, but tipped over") is
  not split off;
* a relative clause whose pronoun is its subject ("the mayor, who was elected in 2019") becomes
  a claim about its noun ("the mayor was elected in 2019") and leaves the main claim; where that
  noun renames another, as a copula's attribute or an appositive, the claim is about the one it
  renames ("Knox was someone who read the Bible" -> "Knox read the Bible", not "someone read
  the Bible"); a clause that only says which ones its noun means (no comma before it, on a
  quantified noun, "every worker who applies", a pronoun for whoever fits it, "anyone who saw
  her", or a plural subject with no determiner, "Children who share iPads do better") is no
  claim of its own and stays in the main claim; the claim takes its noun as it stands before
  the clause (words the parse hangs on the noun after the clause belong to the sentence);
* a coordinated verb with its own object right after it takes no passive auxiliary of the main
  verb ("was courted by clubs but chose Arsenal" -> "chose Arsenal", not "was chose Arsenal");
* clauses joined by a semicolon, each with its own subject and verb, are split first;
* given the source, an event the sentence dates by an interval from its one year ("shut in
  1968, four years after the town lost its station") becomes a claim with the year the
  sentence's arithmetic gives it ("the town lost its station in 1964"), which an entailment
  model can check where it cannot count years.

Apart from the split, :func:`described_claims` gives what each appositive says of its noun
("Smith, the mayor, said …" -> "Smith is the mayor"), which the NLI checker reads beside the
claims and counts only where the source contradicts it.

Every claim keeps the original tokens (and their character offsets into the output), so what
is judged can be shown on the sentence. A split that would leave a claim without a verb or a
content arc is not made: the sentence is then its own single claim.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from functools import partial

from models.arcs import extract_arcs
from models.document import Sentence, Token
from models.figures import YEAR, words_value

#: At most this many claims per sentence (more are rare and cost a model call each).
MAX_CLAIMS = 5
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
AUXILIARIES = frozenset({"aux", "auxpass", "neg"})
RELATIVE_PRONOUNS = frozenset({"who", "which", "that", "whom"})
VERBAL = frozenset({"VERB", "AUX"})
#: Words that can name an event ("the flood", "it was sold").
NAMING = frozenset({"NOUN", "PROPN", "VERB"})


def split_claims(sentence: Sentence, source: str | None = None) -> tuple[Sentence, ...]:
    """The claims of one sentence, in order; the sentence itself when it makes one claim.

    Each claim is a :class:`Sentence` with the sentence's ``index`` and its own tokens (re-indexed
    from 0, heads inside the claim, character offsets into the original text), its content arcs,
    and a text joined from the kept words. Clauses joined by a semicolon are split first, then
    each by the rules below. With the ``source`` text, an event dated relative to one of the
    claim's years becomes a dated claim of its own (:func:`_dated_events`), unless the source
    states the same interval itself.
    """
    clauses = _semicolon_clauses(sentence)
    if len(clauses) == 1 and source is None:
        return _split_clause(sentence)
    claims: list[Sentence] = []
    for clause in clauses:
        main, dated = _dated_events(clause, source) if source is not None else (clause, ())
        claims += [*_split_clause(main), *dated]
    if len(claims) == 1:
        return (sentence,)
    return tuple(claims) if len(claims) <= MAX_CLAIMS else clauses


def as_written(claim: Sentence) -> str:
    """A claim's own words as the output has them (a dated claim's text adds its year)."""
    return _join(claim.tokens)


def _semicolon_clauses(sentence: Sentence) -> tuple[Sentence, ...]:
    """The clauses of a sentence that a semicolon joins ("The light was automated in 1979; the
    cottages now house a museum"), each a :class:`Sentence`; the sentence itself unless every
    part has a subject and a verb of its own (a list, "soup; salad; bread", is not split), or
    when there are more than :data:`MAX_CLAIMS`. spaCy often hangs the first clause off the
    second's verb as its complement, so the coordination rules alone would not see two claims.
    """
    toks = sentence.tokens
    quoted = _quoted(toks)
    depth, parts, current = 0, [], []
    for t in toks:
        depth += (t.text in CLOSING.values()) - (t.text in CLOSING)
        if t.text == ";" and depth <= 0 and t.i not in quoted:
            parts.append(current)
            current = []
        else:
            current.append(t.i)
    parts.append(current)
    if len(parts) == 1 or len(parts) > MAX_CLAIMS:
        return (sentence,)
    clauses = tuple(_as_sentence(sentence, part) for part in parts if part)
    if len(clauses) != len(parts) or not all(
        _states_something(c) and any(t.dep in SUBJECTS for t in c.tokens) for c in clauses
    ):
        return (sentence,)
    return clauses


def _split_clause(sentence: Sentence) -> tuple[Sentence, ...]:
    """The claims of a sentence (or of one clause of it): coordinated clauses of its main verb
    and subject relative clauses; itself when it makes one claim."""
    toks = sentence.tokens
    if not toks:
        return (sentence,)
    children = _children(toks)
    subtree = partial(_subtree, children)

    root = next((t.i for t in toks if t.head == t.i), 0)
    quoted = _quoted(toks)
    removed: set[int] = set()
    parts: list[set[int]] = []
    for t in toks:
        if t.dep != "relcl" or t.i in quoted:
            # words inside quotation marks are what someone said, not claims of the output
            continue
        pronoun = [
            c
            for c in children[t.i]
            if toks[c].dep in ("nsubj", "nsubjpass") and toks[c].lemma in RELATIVE_PRONOUNS
        ]
        if not pronoun or t.head == t.i or _unsure_which(toks, children, t.head, pronoun[0]):
            continue
        # the noun the claim is about, without the clause (or, "Knox was someone who read the
        # Bible" -> "Knox read the Bible", without the noun that renames it)
        named = _renamed(toks, children, t.head)
        if named is None and _restricts(toks, children, t.head, pronoun[0]):
            continue
        about, without = (t.head, t.i) if named is None else (named, t.head)
        span = subtree(t.i)
        body = span - {pronoun[0]}
        # the noun phrase as it stands before the clause: words the parse hangs on the noun
        # after it belong to the sentence ("suspects the 23-year-old, who is unemployed, of
        # stealing": not "the 23-year-old is unemployed of stealing")
        noun = subtree(about, skip=frozenset({without})) - _clauses_of(toks, children, about)
        parts.append({k for k in noun if k < min(span)} | body)
        before, after = min(span) - 1, max(span) + 1
        around = [k for k in (before, after) if 0 <= k < len(toks)]
        removed |= span | {k for k in around if toks[k].text == ","}
        if len(around) == 2 and CLOSING.get(toks[after].text) == toks[before].text:
            removed |= {before, after}  # "the council (which met on Monday)"
    conjs = [
        c
        for c in children[root]
        if toks[c].dep == "conj"
        and toks[c].pos in VERBAL
        and c not in quoted
        and not _may_join_reported(toks, children, root, c)
    ]
    main = subtree(root) - removed
    for c in conjs:
        main -= subtree(c)
    # the conjunctions that joined the clauses go with them (punctuation is trimmed)
    main -= {k for k in children[root] if toks[k].dep in ("cc", "preconj")}
    clauses = [main]
    subject = (
        set().union(*(subtree(k) for k in children[root] if toks[k].dep in SUBJECTS)) - removed
    )
    auxiliaries = {k for k in children[root] if toks[k].dep in AUXILIARIES}
    for c in conjs:
        claim = subtree(c) - removed
        own = {toks[k].dep for k in children[c]}
        if not own & SUBJECTS:
            claim |= subject
            if not own & AUXILIARIES:
                claim |= _shared_auxiliaries(toks, children, root, c, auxiliaries)
        clauses.append(claim)
    claims = [*clauses, *parts]
    if len(claims) == 1 or len(claims) > MAX_CLAIMS:
        return (sentence,)
    built = [_as_sentence(sentence, sorted(c)) for c in claims]
    if any(not _states_something(b) for b in built):
        return (sentence,)
    return tuple(built)


def _unsure_which(
    toks: tuple[Token, ...], children: dict[int, list[int]], noun: int, pronoun: int
) -> bool:
    """Whether a "which" clause after a comma may be about something other than the noun the
    parse hangs it on: a phrase of the noun comes between them ("Rao accused officials of
    corruption, which led to a comeback": the parse gives the clause to "officials", and it is
    about the accusation; "managers at the passport agency, which made a profit": the parse
    gives it to "managers", and it is the agency). Split off, the clause would be a claim the
    sentence does not make ("officials of corruption led to a comeback"), so it stays in its
    sentence's claim."""
    if toks[pronoun].lemma.lower() != "which" or pronoun == 0 or toks[pronoun - 1].text != ",":
        return False
    return any(toks[k].dep == "prep" and noun < k < pronoun for k in children[noun])


#: Determiners that make a noun a quantity, not a thing: a clause on it says which ones.
QUANTIFIERS = frozenset({"every", "each", "any", "all", "no", "few", "most"})
#: Pronouns that stand for whoever fits the clause after them ("anyone who saw her").
ANYONE = frozenset(
    {"anyone", "anybody", "everyone", "everybody", "someone", "somebody", "nobody", "those"}
)


def _restricts(
    toks: tuple[Token, ...], children: dict[int, list[int]], noun: int, pronoun: int
) -> bool:
    """Whether a relative clause only says which ones its noun means, and so states nothing
    of its own: no comma before it, and a noun that a quantifier governs ("every worker who
    applies", "no palaces that can be toured"), a pronoun that stands for whoever fits it
    ("anyone who may have had contact with her", "those who do not", "people who have autism")
    or a plural subject with no determiner, a kind of thing ("Children who share iPads do
    better"). Split off, it would
    be a claim the sentence does not make ("anyone may have had contact with her")."""
    if pronoun > 0 and toks[pronoun - 1].text == ",":
        return False
    t = toks[noun]
    if t.text.lower() in ANYONE:
        return True
    kids = [toks[k] for k in children[noun]]
    if any(k.dep in ("det", "predet") and k.text.lower() in QUANTIFIERS for k in kids):
        return True
    # a plural subject with no determiner speaks of a kind ("Children who share iPads do better")
    bare = not any(k.dep in ("det", "predet", "poss", "nummod") for k in kids)
    if bare and t.lemma.lower() == "people":
        return True  # "to understand people who have autism"
    plural = t.text.lower() != t.lemma.lower()
    return t.pos == "NOUN" and t.dep in SUBJECTS and bare and plural


def _renamed(toks: tuple[Token, ...], children: dict[int, list[int]], noun: int) -> int | None:
    """The noun that a common noun with a relative clause renames, whose claim the clause makes:
    the subject of a plain "is"/"was" whose attribute it is ("John Knox was someone who read
    the Bible": John Knox read it) or the noun it stands in apposition to ("Victims First, a
    charity which supports crime victims": Victims First supports them). None where the noun
    is a name (the clause is about it as it stands), the copula is negated or has an auxiliary
    ("was not a man who", "could be the man who": no such claim is made), the subject is
    "there" or a pronoun, or the noun renames nothing."""
    t = toks[noun]
    if t.pos not in ("NOUN", "PRON") or t.head == t.i:
        return None
    head = toks[t.head]
    if any(toks[k].dep == "prep" and k > noun for k in children[noun]):
        return None  # "the name of the queen's aunt, who died": whose clause, the parse cannot tell
    if t.dep == "appos":
        # the noun it renames ends right before it: "Victims First, a charity"
        before = min(_subtree(children, noun)) - 1
        while before > head.i and toks[before].pos == "PUNCT":
            before -= 1
        if before != head.i:
            return None
        named = head.i
    elif t.dep == "attr" and head.lemma.lower() == "be":
        if any(toks[k].dep in AUXILIARIES for k in children[head.i]):
            return None
        subjects = [k for k in children[head.i] if toks[k].dep in ("nsubj", "nsubjpass")]
        if len(subjects) != 1:
            return None
        named = subjects[0]
    else:
        return None
    return named if toks[named].pos in ("NOUN", "PROPN") else None


def _may_join_reported(
    toks: tuple[Token, ...], children: dict[int, list[int]], root: int, conj: int
) -> bool:
    """Whether a verb coordinated with the main verb may instead belong to a clause with its
    own subject just before it: "Musk says the rocket landed, but tipped over" (lower-cased,
    the parser joins "tipped" to "says"; it is the rocket that tipped over), "The rent lapsed
    once Lisse had taken over Corvo and declined to honour it" (the parser joins "declined" to
    "lapsed"; it is Lisse that declined). The verb has no subject of its own and follows a
    clause complement of the main verb that has one, or comes right after an adverbial clause
    or clause complement with a subject, at any depth, so the parse cannot tell whose verb it
    is; split off with the main verb's subject it would be a claim the sentence may not make
    ("Musk tipped over"), so it stays in the main claim."""
    if any(toks[k].dep in SUBJECTS for k in children[conj]):
        return False
    if any(
        toks[k].dep == "ccomp"
        and any(toks[s].dep in SUBJECTS for s in children[k])
        and max(_subtree(children, k)) < conj
        for k in children[root]
    ):
        return True
    before = conj - 1  # the end of what comes before the conjunction and its punctuation
    while before > root and (toks[before].dep in ("cc", "punct") or toks[before].pos == "PUNCT"):
        before -= 1
    # a clause that ends there holds that word: it is the word or one of the heads above it
    k = before
    while k not in (root, conj) and toks[k].head != k:
        if (
            toks[k].dep in ("ccomp", "advcl")
            and any(toks[s].dep in SUBJECTS for s in children[k])
            and max(_subtree(children, k)) == before
        ):
            return True
        k = toks[k].head
    return False


def described_claims(sentence: Sentence) -> tuple[Sentence, ...]:
    """The claims a sentence's appositives make about their nouns, in order: "Councillor Tomas
    Reyes, the committee chair, proposed …" -> "Councillor Tomas Reyes is the committee chair".

    An appositive counts when commas set it off (", the committee chair,"; or a comma and the
    sentence's end) and it describes a noun or name that is not a preposition's object (the
    parser attaches "the mayor of Dunlow, Beatrice Oyelaran" to "Dunlow") nor coordinated;
    words inside quotation marks are what someone said. Each claim's tokens are the noun
    phrase's and the appositive's (so it is shown where they stand) and its text puts "is" (or
    "are" after a plural common noun) between them. At most :data:`MAX_DESCRIBED`.
    """
    toks = sentence.tokens
    children = _children(toks)
    subtree = partial(_subtree, children)

    quoted = _quoted(toks)
    out: list[Sentence] = []
    for t in toks:
        if t.dep != "appos" or t.i in quoted or t.head == t.i:
            continue
        head = toks[t.head]
        span = subtree(t.i)
        before, after = min(span) - 1, max(span) + 1
        set_off = (
            before >= 0
            and toks[before].text == ","
            and (after >= len(toks) or toks[after].text in (",", ";", ".", "!", "?"))
        )
        if (
            not set_off
            or head.pos not in ("NOUN", "PROPN")
            or head.dep == "pobj"
            or any(toks[c].dep == "conj" for c in children[head.i])
        ):
            continue
        name = sorted(subtree(head.i, skip=frozenset({t.i})) - _clauses_of(toks, children, head.i))
        claim = _as_sentence(sentence, name + sorted(span))
        said = _trim(sentence, name), _trim(sentence, sorted(span))
        if claim.arcs and all(said):
            text = f"{_join(toks[k] for k in said[0])} {_copula(head)} "
            out.append(replace(claim, text=text + _join(toks[k] for k in said[1])))
    return tuple(out[:MAX_DESCRIBED])


#: At most this many appositive claims per sentence.
MAX_DESCRIBED = 3

#: An interval a text states: "four years after", "14 years before", "the year after".
INTERVAL = re.compile(
    r"\b(?P<n>an?|the|[a-z]+(?:-[a-z]+)?|\d{1,3})\s+years?\s+(?:after|before|earlier|later)\b",
    re.IGNORECASE,
)


def _dated_events(sentence: Sentence, source: str) -> tuple[Sentence, tuple[Sentence, ...]]:
    """The sentence without an event it dates by an interval from one of its years, and that
    event as a claim with its year: "… shut in 1968, four years after the town lost its railway
    station" -> "… shut in 1968" and "the town lost its railway station in 1964" ("the flood was
    in 1991" for a noun, "ten years after the flood"). An entailment model does not count years;
    the arithmetic is the sentence's own, so the two claims say what it says.

    Made only where the sentence holds one year, outside the phrase (the one the interval counts
    from); the phrase is whole and ends the sentence or runs to a punctuation mark (a parse that
    cuts a name short, "after her opera | The Salt Road premiered", is not read); nothing of it
    is inside quotation marks; and the source does not state the same interval itself (then the
    model reads it as written). At most one per sentence.
    """
    toks = sentence.tokens
    children = _children(toks)
    subtree = partial(_subtree, children)
    quoted = _quoted(toks)
    for t in toks:
        if t.dep != "npadvmod" or t.text.lower() not in ("year", "years") or t.i in quoted:
            continue
        count = _interval(toks, children, t)
        head = toks[t.head]
        if count is None or head.i == t.i:
            continue
        if head.text.lower() in ("after", "before") and head.dep == "prep":
            relation = head
            objects = [c for c in children[head.i] if toks[c].dep in ("pobj", "pcomp")]
            if len(objects) != 1:
                continue
            event = subtree(objects[0])
            phrase = subtree(head.i)
        else:
            marks = [
                c
                for c in children[head.i]
                if toks[c].dep == "mark" and toks[c].text.lower() in ("after", "before")
            ]
            if len(marks) != 1 or head.pos not in VERBAL:
                continue
            relation = toks[marks[0]]
            phrase = subtree(head.i)
            event = phrase - subtree(t.i) - {relation.i}
        end = max(phrase) + 1
        if len(phrase) != end - min(phrase) or (end < len(toks) and toks[end].pos != "PUNCT"):
            continue  # a phrase the parse breaks up or runs on from is not read
        years = [
            k for k in range(len(toks)) if toks[k].pos == "NUM" and YEAR.fullmatch(toks[k].text)
        ]
        if len(years) != 1 or years[0] in phrase or phrase & quoted:
            continue
        if _states_interval(source, count):
            continue
        year = int(toks[years[0]].text) + (count if relation.text.lower() == "before" else -count)
        rest = [k for k in range(len(toks)) if k not in phrase]
        main = _as_sentence(sentence, rest)
        dated = _as_sentence(sentence, sorted(event))
        if not _states_something(main) or not any(tok.pos in NAMING for tok in dated.tokens):
            continue
        verb = any(tok.pos in VERBAL for tok in dated.tokens)
        return main, (replace(dated, text=f"{dated.text}{'' if verb else ' was'} in {year}"),)
    return sentence, ()


def _interval(toks: tuple[Token, ...], children: dict[int, list[int]], year: Token) -> int | None:
    """How many years a "year(s)" token counts: "four years", "14 years", "a year", "the year"."""
    for c in children[year.i]:
        word = toks[c]
        if word.dep == "nummod":
            value = words_value(word.text)
            return int(value) if value is not None and value == int(value) and value > 0 else None
        if (
            word.dep == "det"
            and word.text.lower() in ("a", "an", "the")
            and year.text.lower() == "year"
        ):
            return 1
    return None


def _states_interval(source: str, count: int) -> bool:
    """Whether the source states an interval of ``count`` years itself ("four years after")."""
    for m in INTERVAL.finditer(source):
        n = m.group("n").lower()
        value = 1 if n in ("a", "an", "the") else words_value(n)
        if value == count:
            return True
    return False


def _copula(head: Token) -> str:
    """ "is", or "are" after a plural common noun ("the firms, both family-owned, …")."""
    text = head.text.lower()
    plural = head.pos == "NOUN" and text != head.lemma.lower() and text.endswith("s")
    return "are" if plural else "is"


QUOTES = frozenset({'"', "“", "”", "«", "»"})
#: A closing bracket and its opening one.
CLOSING = {")": "(", "]": "["}
#: Conjunctions that set a clause against the one before: its negation is not shared ("was not
#: arrested but charged" -> "was charged").
CONTRASTING = frozenset({"but", "yet"})


def _shared_auxiliaries(
    toks: tuple[Token, ...],
    children: dict[int, list[int]],
    root: int,
    clause: int,
    auxiliaries: set[int],
) -> set[int]:
    """The main verb's auxiliaries that a coordinated verb without its own shares.

    A verb in its own tense shares no "do" ("did not confirm … but insisted" -> "insisted",
    not "did not insisted"): "do" carries the tense and negation of a base-form verb only.
    After "but" or "yet" the negation is not shared.
    """
    verb = toks[clause]
    if _active(toks, children, clause):
        # "was courted by clubs but eventually chose Arsenal" -> "chose Arsenal", not "was chose"
        auxiliaries = {k for k in auxiliaries if toks[k].dep != "auxpass"}
    if any(toks[k].lemma.lower() == "do" for k in auxiliaries) and (
        verb.text.lower() != verb.lemma.lower()
    ):
        return set()
    if _finite_of_its_own(verb):
        # "is bidding for a fourth win and has a title shot" -> "has a title shot", not "is has"
        return set()
    between = range(min(root, clause) + 1, max(root, clause))
    contrast = any(
        toks[k].dep == "cc" and toks[k].text.lower() in CONTRASTING
        for k in children[root]
        if k in between
    )
    return {k for k in auxiliaries if not (contrast and toks[k].dep == "neg")}


#: Verbs whose passive keeps an object ("was handed a supervision order", "was given a medal").
TWO_OBJECTS = frozenset(
    "give hand award offer send tell show grant deny promise lend pay teach ask serve issue "
    "allow assign owe refuse fine charge cost bring leave sell".split()
)


def _active(toks: tuple[Token, ...], children: dict[int, list[int]], verb: int) -> bool:
    """Whether a verb coordinated with a passive one is active, so takes none of its passive
    auxiliary: its object or adjective comes right after it ("smelled musty", "received no
    bids", "suffered concussion") and it is not one whose passive keeps an object ("was handed
    a supervision order") nor has an agent of its own ("put on leave by the school")."""
    v = toks[verb]
    if v.lemma.lower() in TWO_OBJECTS or any(toks[k].dep == "agent" for k in children[verb]):
        return False
    nxt = verb + 1
    return any(
        toks[k].dep in ("dobj", "acomp") and nxt in _subtree(children, k) for k in children[verb]
    )


#: Finite forms of "be", "have" and "do", which carry their own tense.
FINITE_FORMS = frozenset({"is", "are", "am", "was", "were", "has", "does", "'s", "'re", "'m"})


def _finite_of_its_own(verb: Token) -> bool:
    """Whether a verb is in a finite form of its own: "is", "were", "has", "does", or a third
    person "-s" form ("acts", "carries"); such a verb takes no auxiliary of another. A form
    that may be a participle ("charged", "kept") or bare ("have") is not told apart here."""
    text, lemma = verb.text.lower(), verb.lemma.lower()
    if text in FINITE_FORMS:
        return True
    return text != lemma and text in (lemma + "s", lemma + "es", lemma[:-1] + "ies")


def _quoted(toks: tuple[Token, ...]) -> set[int]:
    """Indices of the tokens between quotation marks."""
    inside, out = False, set()
    for t in toks:
        if t.text in QUOTES:
            inside = not inside if t.text == '"' else t.text in ("“", "«")
            continue
        if inside:
            out.add(t.i)
    return out


def _children(toks: tuple[Token, ...]) -> dict[int, list[int]]:
    """Each token's dependents, by index."""
    children: dict[int, list[int]] = defaultdict(list)
    for t in toks:
        if t.head != t.i:
            children[t.head].append(t.i)
    return children


def _subtree(
    children: dict[int, list[int]], i: int, skip: frozenset[int] = frozenset()
) -> set[int]:
    """Token ``i`` and everything below it, without the subtrees of ``skip``."""
    out, stack = set(), [i]
    while stack:
        k = stack.pop()
        if k not in skip and k not in out:
            out.add(k)
            stack.extend(children[k])
    return out


def _clauses_of(toks: tuple[Token, ...], children: dict[int, list[int]], noun: int) -> set[int]:
    """Token indices of the clauses and appositions hanging off a noun (left out when the noun
    phrase is copied into a claim of its own)."""
    out: set[int] = set()
    for c in children[noun]:
        if toks[c].dep in ("relcl", "appos", "acl", "punct"):
            stack = [c]
            while stack:
                k = stack.pop()
                out.add(k)
                stack.extend(children[k])
    return out


def _states_something(claim: Sentence) -> bool:
    return any(t.pos in VERBAL for t in claim.tokens) and bool(claim.arcs)


def _trim(sentence: Sentence, kept: list[int]) -> list[int]:
    """Drop punctuation and conjunctions at either end, and doubled punctuation inside."""
    toks = sentence.tokens
    out = list(kept)
    while out and (toks[out[0]].pos in ("PUNCT", "CCONJ")):
        out.pop(0)
    while out and (toks[out[-1]].pos in ("PUNCT", "CCONJ")):
        out.pop()
    cleaned: list[int] = []
    for k in out:
        if toks[k].pos == "PUNCT" and cleaned and toks[cleaned[-1]].pos == "PUNCT":
            continue
        cleaned.append(k)
    return cleaned


def _as_sentence(sentence: Sentence, kept: list[int]) -> Sentence:
    """A claim made of some of a sentence's tokens, as a :class:`Sentence` of its own."""
    kept = _trim(sentence, kept)
    toks = sentence.tokens
    new_index = {k: n for n, k in enumerate(kept)}
    tokens = tuple(
        Token(
            new_index[k],
            toks[k].start,
            toks[k].end,
            toks[k].text,
            toks[k].lemma,
            toks[k].pos,
            toks[k].dep,
            new_index.get(toks[k].head, new_index[k]),
        )
        for k in kept
    )
    text = _join(toks[k] for k in kept)
    start = tokens[0].start if tokens else sentence.start
    end = tokens[-1].end if tokens else sentence.start
    return Sentence(sentence.index, start, end, text, tokens, extract_arcs(tokens, sentence.index))


def _join(tokens: Iterable[Token]) -> str:
    """The words of a claim with the spacing they had in the sentence (a gap becomes one space)."""
    out: list[str] = []
    last_end: int | None = None
    for t in tokens:
        if last_end is not None and t.start > last_end:
            out.append(" ")
        elif last_end is not None and t.start < last_end:
            out.append(" ")
        out.append(t.text)
        last_end = t.end
    return "".join(out)
