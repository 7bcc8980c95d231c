"""Arc and sentence labels derived automatically, as the DAE paper derives them and more.

Label values: 1 = entailed, 0 = not entailed, -1 = unknown (left out of the loss).

* Positives from entailed or paraphrase pairs: an arc of an NLI-entailed hypothesis is entailed
  when the same (head lemma, label, child lemma) arc occurs in the premise; every arc of a gold
  paraphrase (MRPC/PAWS positive) is entailed.
* Negatives from corruptions of real sentences (same-POS word swap, entity/number swap, negation
  added, or dropped: the arcs of the word that lost its negation):
  arcs touching the changed words are not entailed; the other arcs keep the label they had.
* Fusion (positives): a source sentence and the next one joined into one sentence; every arc
  is entailed, the support comes from two sentences.
* Span deletion: a span is removed from the premise; hypothesis arcs that were supported and lose
  their support (the arc and one of its words vanish from the premise) become not entailed.
* Human spans (XSumFaith, CLIFF, Goyal'21): arcs with a word inside a span marked by the
  annotators' majority are not entailed; arcs wholly outside every annotator's spans are
  entailed; arcs touching a minority-only span are unknown.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from models.document import Arc, ParsedText, Sentence, Token

Span = tuple[int, int]

SWAP_POS = ("NOUN", "VERB", "ADJ", "ADV")
ENTITY_POS = ("PROPN", "NUM")


def arc_keys(parsed: ParsedText) -> set[tuple[str, str, str]]:
    return {a.key for a in parsed.arcs}


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def arc_touches(arc: Arc, spans: Sequence[Span]) -> bool:
    """Whether the arc's head or child word overlaps any of the character spans."""
    words = ((arc.head_start, arc.head_end), (arc.child_start, arc.child_end))
    return any(_overlaps(w, s) for w in words for s in spans)


def pair_labels(premise: ParsedText, hypothesis: Sentence, *, paraphrase: bool) -> list[int]:
    """Labels of a hypothesis sentence entailed by (or paraphrasing) its premise."""
    if paraphrase:
        return [1] * len(hypothesis.arcs)
    known = arc_keys(premise)
    return [1 if a.key in known else -1 for a in hypothesis.arcs]


def edit_labels(
    edited: Sentence,
    changed: Sequence[Span],
    supported: set[tuple[str, str, str]],
    all_supported: bool = False,
    *,
    relation: bool = False,
) -> list[int]:
    """Labels of a corrupted sentence: arcs touching a changed span are not entailed.

    Args:
        edited: the corrupted sentence, re-parsed (offsets in its own text).
        changed: character spans of the edit in that text.
        supported: arc keys known to be entailed by the evidence.
        all_supported: every untouched arc is entailed (the base was a gold paraphrase).
        relation: the edit moved whole phrases that are in the source (role swap, moved
            detail): an arc inside one moved phrase (``Angela -compound- Merkel``) is not an
            error. A touching arc whose key the evidence has elsewhere stays an error: the
            key is lemma-level, and ``Macron -said-`` in the source does not make Macron the
            speaker of this sentence's words.
    """
    out = []
    for a in edited.arcs:
        inner = any(
            s[0] <= a.head_start and a.head_end <= s[1] and s[0] <= a.child_start
            and a.child_end <= s[1]
            for s in changed
        )  # fmt: skip
        if relation and inner:
            out.append(1 if all_supported or a.key in supported else -1)
        elif arc_touches(a, changed):
            out.append(0)
        elif all_supported or a.key in supported:
            out.append(1)
        else:
            out.append(-1)
    return out


def deletion_labels(hypothesis: Sentence, before: ParsedText, after: ParsedText) -> list[int]:
    """Labels after a span was deleted from the premise (``before`` -> ``after``)."""
    had, has = arc_keys(before), arc_keys(after)
    lemmas = {t.lemma for s in after.sentences for t in s.tokens}
    out = []
    for a in hypothesis.arcs:
        if a.key in has:
            out.append(1)
        elif a.key in had and (a.head_lemma not in lemmas or a.child_lemma not in lemmas):
            out.append(0)
        else:
            out.append(-1)
    return out


def span_labels(
    sentence: Sentence, annotators: Sequence[Sequence[Span]], majority: int
) -> list[int]:
    """Labels from human hallucination spans (character offsets into the whole summary).

    Args:
        sentence: a summary sentence (offsets into the summary text).
        annotators: each annotator's spans.
        majority: how many annotators must cover a character for it to count as hallucinated.
    """
    marked = [s for spans in annotators for s in spans]
    majority_spans = majority_chars(annotators, majority)
    out = []
    for a in sentence.arcs:
        if arc_touches(a, majority_spans):
            out.append(0)
        elif arc_touches(a, marked):
            out.append(-1)
        else:
            out.append(1)
    return out


def majority_chars(annotators: Sequence[Sequence[Span]], majority: int) -> list[Span]:
    """Character runs covered by at least ``majority`` annotators."""
    counts: dict[int, int] = {}
    for spans in annotators:
        covered = {i for a, b in spans for i in range(a, b)}
        for i in covered:
            counts[i] = counts.get(i, 0) + 1
    hits = sorted(i for i, c in counts.items() if c >= majority)
    runs: list[Span] = []
    for i in hits:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


# ---- corruptions: each returns (new text, changed spans in the new text) or None ----


def _replace(text: str, offset: int, tok: Token, new: str) -> tuple[str, list[Span]]:
    a, b = tok.start - offset, tok.end - offset
    return text[:a] + new + text[b:], [(a, a + len(new))]


def _arc_words(sentence: Sentence) -> set[int]:
    return {i for a in sentence.arcs for i in (a.head, a.child)}


def swap_word(
    sentence: Sentence,
    pool: dict[str, list[str]],
    rng: random.Random,
    pos: Sequence[str] = SWAP_POS,
) -> tuple[str, list[Span]] | None:
    """Replace one content word by another word of the same part of speech."""
    used = _arc_words(sentence)
    cands = [t for t in sentence.tokens if t.pos in pos and t.i in used and t.text.isalpha()]
    if not cands:
        return None
    tok = rng.choice(cands)
    options = [w for w in pool.get(tok.pos, ()) if w.lower() != tok.text.lower()]
    if not options:
        return None
    new = rng.choice(options)
    if tok.text[:1].isupper() and tok.pos != "PROPN":
        new = new[:1].upper() + new[1:]
    return _replace(sentence.text, sentence.start, tok, new)


def swap_entity(
    sentence: Sentence, pool: dict[str, list[str]], rng: random.Random
) -> tuple[str, list[Span]] | None:
    """Replace a proper noun or number by another one (from the same document when possible)."""
    used = _arc_words(sentence)
    cands = [t for t in sentence.tokens if t.pos in ENTITY_POS and t.i in used]
    if not cands:
        return None
    tok = rng.choice(cands)
    options = [w for w in pool.get(tok.pos, ()) if w.lower() != tok.text.lower()]
    if not options:
        if tok.pos == "NUM" and tok.text.replace(",", "").isdigit():
            value = int(tok.text.replace(",", ""))
            options = [str(value + rng.choice([-3, -2, -1, 1, 2, 5, 10]) * max(1, value // 10))]
        else:
            return None
    return _replace(sentence.text, sentence.start, tok, rng.choice(options))


# Contracted auxiliaries that spaCy splits before "n't" ("ca" + "n't" = "can't").
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_DROPPABLE_NEG = frozenset({"not", "n't", "never"})


def drop_negation(sentence: Sentence) -> tuple[str, list[Span]] | None:
    """Remove a ``not``/``n't``/``never`` (``was not seen`` -> ``was seen``).

    The changed span is the negated word: with its negation gone, the arcs it heads say the
    opposite of the source. Negations carried by ``do`` are undone with the verb re-inflected
    (``did not go`` -> ``went``: :func:`undo_do_negation`).
    """
    toks = sentence.tokens
    for neg in toks:
        if neg.dep != "neg" or neg.text.lower() not in _DROPPABLE_NEG or neg.head == neg.i:
            continue
        head = toks[neg.head]
        helpers = [t for t in toks if t.head == head.i and t.dep in {"aux", "auxpass"}]
        if any(t.lemma == "do" for t in helpers) or (head.lemma == "do" and head.i < neg.i):
            undone = undo_do_negation(sentence)
            if undone is not None:
                return undone
            continue
        text, off = sentence.text, sentence.start
        cut_a, cut_b, insert = neg.start - off, neg.end - off, ""
        if neg.text.lower() == "n't":
            prev = toks[neg.i - 1] if neg.i > 0 else None
            if prev is None or prev.end != neg.start:
                continue
            word = _CONTRACTED.get(prev.text.lower())
            if word is not None:  # "can't" -> "can": the auxiliary is rewritten too
                cut_a = prev.start - off
                insert = word.capitalize() if prev.text[:1].isupper() else word
        else:
            while cut_a > 0 and text[cut_a - 1] == " ":
                cut_a -= 1
        shift = (cut_b - cut_a) - len(insert)
        h0, h1 = head.start - off, head.end - off
        if h0 >= cut_b:
            h0, h1 = h0 - shift, h1 - shift
        elif h1 > cut_a:  # the head is the rewritten auxiliary itself
            h0, h1 = cut_a, cut_a + len(insert)
        return text[:cut_a] + insert + text[cut_b:], [(h0, h1)]
    return None


def negate(sentence: Sentence) -> tuple[str, list[Span]] | None:
    """Flip the main verb's polarity: add a negation (``is`` -> ``is not``, ``went`` ->
    ``did not go``), or, when the sentence already has one, drop it (``drop_negation``)."""
    toks = sentence.tokens
    root = next((t for t in toks if t.dep == "ROOT"), None)
    if root is None:
        return None
    if any(t.dep == "neg" for t in toks):
        return drop_negation(sentence)
    text, off = sentence.text, sentence.start
    aux = [t for t in toks if t.head == root.i and t.dep in {"aux", "auxpass"} and t.i < root.i]
    if aux:
        at = aux[0].end - off
        new = text[:at] + " not" + text[at:]
        return new, [(at + 1, at + 4)]
    if root.lemma == "be" or root.pos == "AUX":
        at = root.end - off
        return text[:at] + " not" + text[at:], [(at + 1, at + 4)]
    if root.pos == "VERB" and root.text.isalpha():
        verb = root.lemma
        aux_word = "did" if root.text.lower().endswith("ed") or root.text.lower() != verb else "do"
        if root.text.lower().endswith("s") and not root.text.lower().endswith("ss"):
            aux_word = "does"
        if root.text.lower().endswith("ed"):
            aux_word = "did"
        new_words = f"{aux_word} not {verb}"
        a = root.start - off
        return text[:a] + new_words + text[root.end - off :], [(a, a + len(new_words))]
    return None


def _subtree(sentence: Sentence, root: int) -> set[int]:
    """Token indices whose head chain reaches ``root`` (``root`` included)."""
    inside = {root}
    grew = True
    while grew:
        grew = False
        for t in sentence.tokens:
            if t.i not in inside and t.head in inside and t.head != t.i:
                inside.add(t.i)
                grew = True
    return inside


def delete_span(premise: ParsedText, hypothesis: Sentence, rng: random.Random) -> str | None:
    """The premise with the subtree of one word that supports a hypothesis arc removed."""
    known = {a.key: a for a in premise.arcs}
    supported = [known[a.key] for a in hypothesis.arcs if a.key in known]
    if not supported:
        return None
    arc = rng.choice(supported)
    sent = premise.sentences[arc.sentence]
    # The child's subtree (contiguous for projective parses; we take the covering range).
    inside = _subtree(sent, arc.child)
    lo, hi = min(inside), max(inside)
    if hi - lo + 1 >= len(sent.tokens) - 1:
        return None
    a, b = sent.tokens[lo].start, sent.tokens[hi].end
    text = premise.text
    out = (text[:a].rstrip() + " " + text[b:].lstrip()).strip()
    return out or None


OPTIONAL_DEPS = frozenset({"amod", "advmod", "appos", "prep", "relcl", "acl", "npadvmod", "advcl"})


def compress(sentence: Sentence, rng: random.Random) -> str | None:
    """The sentence with one optional modifier subtree removed: still fully supported.

    Used for positive examples over long evidence (CNN/DM-style extractive summaries).
    """
    toks = sentence.tokens
    cands = [t for t in toks if t.dep in OPTIONAL_DEPS and t.head != t.i]
    rng.shuffle(cands)
    for tok in cands:
        inside = _subtree(sentence, tok.i)
        lo, hi = min(inside), max(inside)
        if hi - lo + 1 != len(inside) or hi - lo + 1 > len(toks) // 2:
            continue
        text, off = sentence.text, sentence.start
        a, b = toks[lo].start - off, toks[hi].end - off
        out = (text[:a].rstrip() + " " + text[b:].lstrip()).strip()
        out = out.replace(" ,", ",").replace(" .", ".").replace(",,", ",")
        if out and out != text:
            return out
    return None


def splice(first: Sentence, second: Sentence) -> tuple[str, list[Span]] | None:
    """The subject of ``first`` joined to the predicate of ``second`` (two source sentences).

    The kind of error extractive-looking summaries make: every piece is in the source, but the
    new subject arc is not. Returns the text and the subject's span in it.
    """
    parts = []
    for sent in (first, second):
        root = next((t for t in sent.tokens if t.dep == "ROOT" and t.pos in {"VERB", "AUX"}), None)
        subj = (
            next((t for t in sent.tokens if t.head == root.i and t.dep == "nsubj"), None)
            if root
            else None
        )
        if root is None or subj is None:
            return None
        span = _subtree(sent, subj.i)
        lo, hi = min(span), max(span)
        if hi - lo + 1 != len(span) or hi >= root.i:
            return None
        parts.append((sent, subj, lo, hi))
    (s1, subj1, lo1, hi1), (s2, subj2, _, hi2) = parts
    if subj1.lemma == subj2.lemma:
        return None
    subject = s1.text[s1.tokens[lo1].start - s1.start : s1.tokens[hi1].end - s1.start]
    rest = s2.text[s2.tokens[hi2].end - s2.start :].lstrip()
    if not rest:
        return None
    subject = subject[:1].upper() + subject[1:]
    return f"{subject} {rest}", [(0, len(subject))]


_SUBJECT_PRONOUNS = {"he", "she", "it", "they"}


def fuse(first: Sentence, second: Sentence) -> str | None:
    """Two consecutive source sentences fused into one, as summaries do (a positive).

    A second sentence whose subject is a pronoun loses it and joins as a second predicate
    (``The museum opened in 1902. It is run by volunteers.`` -> ``The museum opened in 1902 and
    is run by volunteers.``); any other joins as a clause after ``, and``. Every fact is in the
    source, spread over two sentences. None for quotes or sentences not ending in a full stop.
    """
    a, b = first.text.rstrip(), second.text.rstrip()
    if '"' in a + b or not a.endswith(".") or not b.endswith(".") or a.endswith(".."):
        return None
    root = next((t for t in second.tokens if t.dep == "ROOT" and t.pos in {"VERB", "AUX"}), None)
    lead = second.tokens[0]
    # "But ...", "However, ...", "So ...": the link between the two is not a plain "and".
    if lead.pos in {"CCONJ", "SCONJ"} or (
        lead.pos == "ADV" and len(second.tokens) > 1 and second.tokens[1].text == ","
    ):
        return None
    if (
        root is not None
        and lead.head == root.i
        and lead.dep in {"nsubj", "nsubjpass"}
        and lead.text.lower() in _SUBJECT_PRONOUNS
        and _pronoun_agrees(lead.text.lower(), first)
    ):
        return f"{a[:-1]} and {b[lead.end - second.start :].lstrip()}"
    if lead.pos != "PROPN" and lead.text != "I" and not lead.text.isupper():
        b = b[:1].lower() + b[1:]
    return f"{a[:-1]}, and {b}"


def _pronoun_agrees(pronoun: str, first: Sentence) -> bool:
    """Whether a subject pronoun can stand for the first sentence's subject, so dropping it
    makes that subject its own (a plural pronoun for a plural or coordinated subject, ``it``
    for a singular thing, ``he``/``she`` for a name). Otherwise the pronoun is kept."""
    toks = first.tokens
    root = next((t for t in toks if t.dep == "ROOT"), None)
    subj = next(
        (t for t in toks if root and t.head == root.i and t.dep in {"nsubj", "nsubjpass"}), None
    )
    if subj is None or subj.pos not in {"NOUN", "PROPN"}:
        return False
    plural = subj.text.lower() != subj.lemma or any(
        t.head == subj.i and t.dep == "conj" for t in toks
    )
    if pronoun == "they":
        return plural
    if pronoun == "it":
        return not plural and subj.pos == "NOUN"
    return not plural and subj.pos == "PROPN"


def word_pool(
    parsed: Sequence[ParsedText], pos: Sequence[str], per_pos: int = 3000, seed: int = 0
) -> dict[str, list[str]]:
    """Frequent-enough alphabetic words per part of speech, for same-POS swaps."""
    seen: dict[str, dict[str, None]] = {p: {} for p in pos}
    for doc in parsed:
        for s in doc.sentences:
            for t in s.tokens:
                if t.pos in seen and (t.text.isalpha() or t.pos == "NUM"):
                    seen[t.pos].setdefault(t.text, None)
    rng = random.Random(seed)
    out = {}
    for p, words in seen.items():
        items = list(words)
        rng.shuffle(items)
        out[p] = items[:per_pos]
    return out


# ---- relation corruptions: every word stays in the source, the relation does not ----

# Dependents that fill a role of their head (who did what to whom, where, whose).
ROLE_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "dative", "pobj", "poss"})
# Predicates whose two participants can trade places without changing the meaning.
_SYMMETRIC = frozenset(
    {"meet", "marry", "divorce", "face", "play", "fight", "battle", "partner", "resemble"}
    | {"collaborate", "merge", "wed", "date", "negotiate", "debate", "talk", "chat", "compete"}
)
_SYMMETRIC_PREPS = frozenset({"with", "against", "between", "versus", "vs", "vs.", "and", "among"})
# Prepositions whose named object is a place ("to the BBC", "from Smith" are not).
_PLACE_PREPS = frozenset({"in", "at", "near", "across", "outside", "inside"})
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_CALENDAR = _MONTHS | _WEEKDAYS  # names, but of a date: moved as details, never as roles


def _chunk_root(sentence: Sentence, lo: int, hi: int) -> Token | None:
    """The one token of ``lo..hi`` whose head lies outside it, or None if there are several."""
    toks = sentence.tokens
    roots = [t for t in toks[lo : hi + 1] if not lo <= t.head <= hi or t.head == t.i]
    return roots[0] if len(roots) == 1 else None


def _glued(sentence: Sentence, lo: int, hi: int) -> bool:
    """Whether tokens ``lo..hi`` are part of a longer written word (``2015-16``,
    ``Martin-in-the-Fields``): a letter, digit or hyphen touches either end."""
    toks, text, off = sentence.tokens, sentence.text, sentence.start
    a, b = toks[lo].start - off, toks[hi].end - off
    before = text[a - 1] if a > 0 else " "
    after = text[b] if b < len(text) else " "
    return before.isalnum() or before in "-/" or after.isalnum() or after in "-/"


def _inside_name(sentence: Sentence, lo: int, hi: int, root: Token) -> bool:
    """Whether a run of proper nouns is one piece of a longer name (``Academy of Ancient
    Music``, ``Handel's Messiah``, ``North Cumbria Magistrates' Court``)."""
    toks = sentence.tokens
    head = toks[root.head]
    if root.head != root.i and head.pos == "PROPN":
        return True  # "Handel('s) Messiah": the run hangs off another name
    if root.dep == "pobj" and head.head != head.i and toks[head.head].pos == "PROPN":
        return True  # "Academy of [Ancient Music]"
    for t in toks:
        if lo <= t.i <= hi or t.pos != "PROPN" or t.head == t.i:
            continue
        up = toks[t.head]
        if lo <= up.i <= hi or (up.dep == "prep" and lo <= up.head <= hi):
            return True  # "[Academy] of Ancient Music", "Magistrates' [Court]"
    return False


def entity_chunks(sentence: Sentence) -> list[tuple[int, int]]:
    """Runs of proper nouns that form one whole name (``Angela Merkel``, ``the BBC``), as token
    ranges; a ``the`` in front belongs to the name. Pieces of longer names are left out."""
    toks, out = sentence.tokens, []
    i = 0
    while i < len(toks):
        if toks[i].pos != "PROPN":
            i += 1
            continue
        j = i
        while j + 1 < len(toks) and toks[j + 1].pos == "PROPN":
            j += 1
        root = _chunk_root(sentence, i, j)
        if (
            root is not None
            and not _glued(sentence, i, j)
            and not _inside_name(sentence, i, j, root)
        ):
            lo = i
            if i > 0 and toks[i - 1].dep == "det" and toks[i - 1].head == root.i:
                lo = i - 1
            out.append((lo, j))
        i = j + 1
    return out


def _chunk_text(sentence: Sentence, lo: int, hi: int) -> str:
    toks = sentence.tokens
    return sentence.text[toks[lo].start - sentence.start : toks[hi].end - sentence.start]


def _role_chunks(sentence: Sentence) -> list[tuple[int, int, Token]]:
    """Entity chunks that fill a role (ROLE_DEPS), with their root; coordinated ones and
    month or weekday names left out."""
    out = []
    for lo, hi in entity_chunks(sentence):
        root = _chunk_root(sentence, lo, hi)
        if root is None or root.dep not in ROLE_DEPS or _words(sentence, lo, hi) & _CALENDAR:
            continue
        if any(t.head == root.i and t.dep in {"conj", "cc"} for t in sentence.tokens):
            continue
        out.append((lo, hi, root))
    return out


def _governor(sentence: Sentence, tok: Token) -> Token:
    """The nearest verb (or the root) above a token, through prepositions and nouns."""
    toks, seen = sentence.tokens, set()
    cur = toks[tok.head]
    while cur.pos not in {"VERB", "AUX"} and cur.head != cur.i and cur.i not in seen:
        seen.add(cur.i)
        cur = toks[cur.head]
    return cur


def _symmetric_slot(sentence: Sentence, root: Token) -> bool:
    toks = sentence.tokens
    if root.dep == "pobj" and toks[root.head].text.lower() in _SYMMETRIC_PREPS:
        return True
    return _governor(sentence, root).lemma in _SYMMETRIC


def _words(sentence: Sentence, lo: int, hi: int) -> set[str]:
    return {t.text.lower() for t in sentence.tokens[lo : hi + 1] if t.dep != "det"}


def _fit(new: str, at_start: bool) -> str:
    """A moved phrase's first letter: upper case at the start of the sentence, and a leading
    article in lower case anywhere else (``The BBC`` -> ``the BBC``)."""
    if at_start:
        return new[:1].upper() + new[1:]
    first = new.split(" ", 1)[0]
    return new[:1].lower() + new[1:] if first in {"The", "A", "An"} else new


def _put(sentence: Sentence, edits: Sequence[tuple[int, int, str]]) -> tuple[str, list[Span]]:
    """Replace token ranges (non-overlapping, any order) by new strings; the new spans."""
    text, off, toks = sentence.text, sentence.start, sentence.tokens
    pieces, spans, at, shift = [], [], 0, 0
    for lo, hi, new in sorted(edits):
        a, b = toks[lo].start - off, toks[hi].end - off
        new = _fit(new, not text[:a].strip(" \n\"'“‘("))
        pieces.append(text[at:a] + new)
        spans.append((a + shift, a + shift + len(new)))
        shift += len(new) - (b - a)
        at = b
    pieces.append(text[at:])
    return "".join(pieces), spans


def swap_roles(sentence: Sentence, rng: random.Random) -> tuple[str, list[Span]] | None:
    """Two named entities of one sentence trade places (``Smith beat Jones`` -> ``Jones beat
    Smith``; ``drawn by Mercator for Ortelius`` -> ``drawn by Ortelius for Mercator``).

    Both names are in the source; who did what to whom is not. Coordinated names, names in one
    another, and symmetric predicates (``meet``, ``with``, ...) are left alone. The changed spans
    are the two names: arcs inside a name stay what they were (``edit_labels(relation=True)``).
    A place only trades with a place (the object of ``in``, ``at``, ...).
    """
    chunks = _role_chunks(sentence)
    pairs = [
        (a, b)
        for n, a in enumerate(chunks)
        for b in chunks[n + 1 :]
        if not _words(sentence, a[0], a[1]) & _words(sentence, b[0], b[1])
        and not _symmetric_slot(sentence, a[2])
        and not _symmetric_slot(sentence, b[2])
        and (a[2].dep, a[2].head) != (b[2].dep, b[2].head)
        and _slot_kind(sentence, a[2]) == _slot_kind(sentence, b[2])
    ]
    if not pairs:
        return None
    (lo1, hi1, _), (lo2, hi2, _) = rng.choice(pairs)
    t1, t2 = _chunk_text(sentence, lo1, hi1), _chunk_text(sentence, lo2, hi2)
    return _put(sentence, [(lo1, hi1, t2), (lo2, hi2, t1)])


def _slot_kind(sentence: Sentence, root: Token) -> str:
    """``place`` for the object of a locative preposition, else ``agent``."""
    toks = sentence.tokens
    if root.dep == "pobj" and toks[root.head].text.lower() in _PLACE_PREPS:
        return "place"
    return "agent"


def borrow_entity(
    sentence: Sentence, donors: Sequence[Sentence], rng: random.Random
) -> tuple[str, list[Span]] | None:
    """A named entity of another source sentence takes the role of one in this sentence
    (``The map was drawn by Mercator.`` with ``Ortelius`` elsewhere in the source -> ``The map
    was drawn by Ortelius.``). The name is in the source, in another event.

    Names sharing a word with any name of the sentence (``Merkel`` / ``Angela Merkel``) are not
    borrowed; a place only replaces a place (the object of ``in``, ``at``, ...).
    """
    targets = [c for c in _role_chunks(sentence) if not _symmetric_slot(sentence, c[2])]
    if not targets:
        return None
    present = {t.text.lower() for t in sentence.tokens if t.pos == "PROPN"}
    offers: dict[str, dict[str, None]] = {"place": {}, "agent": {}}
    for d in donors:
        if d.index == sentence.index and d.text == sentence.text:
            continue
        for lo, hi in entity_chunks(d):
            root = _chunk_root(d, lo, hi)
            words = _words(d, lo, hi)
            if root is None or words & (present | _CALENDAR) or root.dep not in ROLE_DEPS:
                continue
            offers[_slot_kind(d, root)].setdefault(_chunk_text(d, lo, hi), None)
    cands = [(c, name) for c in targets for name in offers[_slot_kind(sentence, c[2])]]
    if not cands:
        return None
    (lo, hi, _), name = rng.choice(cands)
    return _put(sentence, [(lo, hi, name)])


def _detail_kind(tok: Token) -> str | None:
    """The kind of a date or number token: year, month, weekday, digits, words."""
    low = tok.text.lower()
    if low in _MONTHS and tok.pos == "PROPN":
        return "month"
    if low in _WEEKDAYS:
        return "weekday"
    if tok.pos != "NUM" or low in {"one", "a"}:
        return None
    if re.fullmatch(r"1\d{3}|20\d{2}", low):
        return "year"
    if re.fullmatch(r"\d[\d,.]*", low):
        return "digits"
    return "words" if low.isalpha() else None


def _details(sentence: Sentence) -> list[tuple[int, int, str]]:
    """Token ranges of dates, numbers and places in a sentence, with their kind (a number
    next to a month name is a ``day``: ``31 March`` never takes a count of victims)."""
    toks = sentence.tokens
    out: list[tuple[int, int, str]] = []
    for t in toks:
        kind = _detail_kind(t)
        if kind is None or _glued(sentence, t.i, t.i):
            continue
        near = {toks[j].text.lower() for j in (t.i - 1, t.i + 1) if 0 <= j < len(toks)}
        out.append((t.i, t.i, "day" if kind == "digits" and near & _MONTHS else kind))
    for lo, hi in entity_chunks(sentence):
        root = _chunk_root(sentence, lo, hi)
        if root is None or any(_detail_kind(t) for t in sentence.tokens[lo : hi + 1]):
            continue
        if _slot_kind(sentence, root) == "place":
            out.append((lo, hi, "place"))
    return out


def move_detail(
    sentence: Sentence, donors: Sequence[Sentence], rng: random.Random
) -> tuple[str, list[Span]] | None:
    """A number, date or place replaced by one of the same kind from another source sentence
    (``opened in 1902`` -> ``opened in 1990`` when 1990 is the year of another event).

    The value is in the source, but it belongs to another event. Kinds: year, month, weekday,
    number in digits, number in words, place (the object of a locative preposition).
    """
    used = _arc_words(sentence)
    targets = [d for d in _details(sentence) if any(i in used for i in range(d[0], d[1] + 1))]
    if not targets:
        return None
    here = sentence.text.lower()
    offers: dict[str, dict[str, None]] = {}
    for d in donors:
        if d.index == sentence.index and d.text == sentence.text:
            continue
        for lo, hi, kind in _details(d):
            value = _chunk_text(d, lo, hi)
            if not re.search(rf"(?<!\w){re.escape(value.lower())}(?!\w)", here):
                offers.setdefault(kind, {}).setdefault(value, None)
    cands = [(t, v) for t in targets for v in offers.get(t[2], ())]
    if not cands:
        return None
    (lo, hi, _), value = rng.choice(cands)
    return _put(sentence, [(lo, hi, value)])


# Past tense and past participle are not needed: ``did not X`` only ever becomes the past.
_IRREGULAR_PAST = dict(
    pair.split(":")
    for pair in (
        "arise:arose awake:awoke be:was bear:bore beat:beat become:became begin:began bend:bent "
        "bet:bet bind:bound bite:bit bleed:bled blow:blew break:broke breed:bred bring:brought "
        "build:built burn:burned burst:burst buy:bought cast:cast catch:caught choose:chose "
        "cling:clung come:came cost:cost creep:crept cut:cut deal:dealt dig:dug do:did draw:drew "
        "drink:drank drive:drove eat:ate fall:fell feed:fed feel:felt fight:fought find:found "
        "flee:fled fling:flung fly:flew forbid:forbade forecast:forecast forget:forgot "
        "forgive:forgave freeze:froze get:got give:gave go:went grind:ground grow:grew "
        "hang:hung have:had hear:heard hide:hid hit:hit hold:held hurt:hurt keep:kept "
        "kneel:knelt know:knew lay:laid lead:led leave:left lend:lent let:let lie:lay light:lit "
        "lose:lost make:made mean:meant meet:met mislead:misled mistake:mistook overcome:overcame "
        "oversee:oversaw overtake:overtook overthrow:overthrew pay:paid prove:proved put:put "
        "quit:quit read:read rebuild:rebuilt rid:rid ride:rode ring:rang rise:rose run:ran "
        "say:said see:saw seek:sought sell:sold send:sent set:set shake:shook shed:shed "
        "shine:shone shoot:shot show:showed shrink:shrank shut:shut sing:sang sink:sank sit:sat "
        "sleep:slept slide:slid speak:spoke speed:sped spend:spent spin:spun split:split "
        "spread:spread spring:sprang stand:stood steal:stole stick:stuck sting:stung "
        "stink:stank strike:struck strive:strove swear:swore sweep:swept swim:swam swing:swung "
        "take:took teach:taught tear:tore tell:told think:thought throw:threw "
        "undergo:underwent understand:understood undertake:undertook upset:upset wake:woke "
        "wear:wore weave:wove weep:wept win:won wind:wound withdraw:withdrew write:wrote "
        "admit:admitted commit:committed submit:submitted permit:permitted omit:omitted "
        "prefer:preferred refer:referred occur:occurred regret:regretted control:controlled "
        "patrol:patrolled transfer:transferred equip:equipped compel:compelled "
        "expel:expelled propel:propelled panic:panicked"
    ).split()
)
_IRREGULAR_PRESENT = {"be": "is", "have": "has", "do": "does", "go": "goes"}


def past_tense(lemma: str) -> str | None:
    """The simple past of a verb lemma: the irregular table, else the regular spelling rules
    (``close`` -> ``closed``, ``carry`` -> ``carried``, ``stop`` -> ``stopped``)."""
    if not lemma.isalpha() or not lemma.islower():
        return None
    if lemma in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[lemma]
    if lemma.endswith("e"):
        return lemma + "d"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", lemma):  # one syllable ending in CVC
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def third_person(lemma: str) -> str | None:
    """The present third person singular (``go`` -> ``goes``, ``carry`` -> ``carries``)."""
    if not lemma.isalpha() or not lemma.islower():
        return None
    if lemma in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[lemma]
    if re.search(r"(s|x|z|ch|sh|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def undo_do_negation(sentence: Sentence) -> tuple[str, list[Span]] | None:
    """``did not win`` -> ``won``, ``does not own`` -> ``owns``, ``don't agree`` -> ``agree``.

    The verb is re-inflected from its lemma and the tense of ``do`` (irregular pasts from a
    table). Questions and a sentence-initial ``do`` are left alone. The changed span is the
    re-inflected verb, whose arcs now say the opposite of the source.
    """
    toks = sentence.tokens
    if sentence.text.rstrip().endswith("?"):
        return None
    for neg in toks:
        if neg.dep != "neg" or neg.text.lower() not in {"not", "n't"} or neg.head == neg.i:
            continue
        verb = toks[neg.head]
        aux = toks[neg.i - 1] if neg.i > 0 else None
        if (
            aux is None
            or aux.i == 0
            or aux.lemma != "do"
            or aux.head != verb.i
            or aux.dep != "aux"
            or verb.pos != "VERB"
            or verb.i <= neg.i
        ):
            continue
        tense = aux.text.lower()
        form = (
            past_tense(verb.lemma)
            if tense == "did"
            else third_person(verb.lemma)
            if tense == "does"
            else verb.lemma
            if tense == "do"
            else None
        )
        if form is None or not verb.text.isalpha():
            return None
        text, off = sentence.text, sentence.start
        cut_a, cut_b = aux.start - off, neg.end - off
        while cut_b < len(text) and text[cut_b] == " ":
            cut_b += 1
        v0, v1 = verb.start - off, verb.end - off
        out = text[:cut_a] + text[cut_b:v0] + form + text[v1:]
        at = v0 - (cut_b - cut_a)
        return out, [(at, at + len(form))]
    return None


def move_clause(sentence: Sentence) -> str | None:
    """A prepositional phrase of the main verb moved (a positive: every arc stays as it was).

    A phrase at the end goes to the front (``The council approved the budget on Monday.`` ->
    ``On Monday, the council approved the budget.``); a fronted one goes to the end. Only
    adjuncts move: ``in``/``on``/``at``/``after``/... phrases of a verb that has an object, or
    whose object is a date or number (``lives in Paris`` stays as it is).
    """
    toks = sentence.tokens
    if len(toks) < 5 or '"' in sentence.text:
        return None
    root = next((t for t in toks if t.dep == "ROOT" and t.pos in {"VERB", "AUX"}), None)
    end = toks[-1]
    if root is None or end.text != "." or end.head != root.i:
        return None
    text, off = sentence.text, sentence.start
    has_object = any(t.head == root.i and t.dep in {"dobj", "attr", "acomp"} for t in toks)
    for prep in toks:
        if prep.dep != "prep" or prep.head != root.i or prep.text.lower() not in _FRONTING:
            continue
        inside = _subtree(sentence, prep.i)
        lo, hi = min(inside), max(inside)
        obj = next((t for t in toks if t.head == prep.i and t.dep == "pobj"), None)
        if hi - lo + 1 != len(inside) or not 2 <= len(inside) <= 8 or obj is None:
            continue
        if not has_object and not (obj.pos == "NUM" or _detail_kind(obj)):
            continue
        phrase = text[toks[lo].start - off : toks[hi].end - off]
        if hi == end.i - 1 and lo > root.i:  # at the end: to the front
            first = toks[0]
            rest = text[: toks[lo].start - off].rstrip()
            if first.pos != "PROPN" and first.text != "I" and not first.text.isupper():
                rest = rest[:1].lower() + rest[1:]
            return f"{phrase[:1].upper()}{phrase[1:]}, {rest}."
        if lo == 0 and hi + 1 < end.i and toks[hi + 1].text == ",":  # fronted: to the end
            rest = text[toks[hi + 1].end - off : end.start - off].strip()
            if not rest:
                return None
            head = phrase[:1].lower() + phrase[1:] if toks[0].pos != "PROPN" else phrase
            return f"{rest[:1].upper()}{rest[1:]} {head}."
    return None


_FRONTING = frozenset(
    {"in", "on", "at", "after", "before", "during", "since", "until", "throughout", "near"}
    | {"outside", "inside", "within", "despite", "following", "across"}
)
