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
) -> list[int]:
    """Labels of a corrupted sentence: arcs touching a changed span are not entailed.

    Args:
        edited: the corrupted sentence, re-parsed (offsets in its own text).
        changed: character spans of the edit in that text.
        supported: arc keys known to be entailed by the evidence.
        all_supported: every untouched arc is entailed (the base was a gold paraphrase).
    """
    out = []
    for a in edited.arcs:
        if arc_touches(a, changed):
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
    opposite of the source. Negations carried by ``do`` (``did not go``) are left alone, since
    undoing them needs the verb re-inflected.
    """
    toks = sentence.tokens
    for neg in toks:
        if neg.dep != "neg" or neg.text.lower() not in _DROPPABLE_NEG or neg.head == neg.i:
            continue
        head = toks[neg.head]
        helpers = [t for t in toks if t.head == head.i and t.dep in {"aux", "auxpass"}]
        if any(t.lemma == "do" for t in helpers) or (head.lemma == "do" and head.i < neg.i):
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
    if (
        root is not None
        and lead.head == root.i
        and lead.dep in {"nsubj", "nsubjpass"}
        and lead.text.lower() in _SUBJECT_PRONOUNS
    ):
        return f"{a[:-1]} and {b[lead.end - second.start :].lstrip()}"
    if lead.pos != "PROPN" and lead.text != "I" and not lead.text.isupper():
        b = b[:1].lower() + b[1:]
    return f"{a[:-1]}, and {b}"


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
