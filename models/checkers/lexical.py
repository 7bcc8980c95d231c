"""The lexical arc-match baseline of the DAE paper.

An output arc counts as entailed when an arc with the same head lemma, label and child lemma
occurs in the evidence; the paper reports 74.8% ranking accuracy for this rule on the Falke et
al. 2019 set. It reads the whole source (no model input limit), so nothing is left unchecked for
length; the evidence it reports for a sentence is the source sentences where its arcs occur.
An answer sentence with a claim (read with its question, :mod:`models.claims`) is scored by the
claim's arcs; its own arcs are reported as always.
"""

from __future__ import annotations

from models.checkers.base import (
    QA_REVISION,
    ArcScore,
    Grain,
    OnePairAtATime,
    PairInput,
    PairScore,
    SentenceScore,
    arc_sentence_score,
    pair_score,
    skipped_sentence,
)
from models.evidence import Evidence, LexicalRetriever


class LexicalArcChecker(OnePairAtATime):
    """Arc entailment by exact lemma-level arc match against the source."""

    name = "lexical"
    version = f"2+{QA_REVISION}"
    display_name = "lexical baseline"
    grain: Grain = "arc"

    def score_one(self, item: PairInput) -> PairScore:
        src = item.source
        if not src.sentences:
            missing = Evidence((), "", 0, "the source has no text")
            unchecked = [arc_sentence_score(s.index, [], missing) for s in item.output.sentences]
            return pair_score(item.key, self, unchecked)
        # Where each arc occurs in the source: the matching sentences are the evidence shown.
        where: dict[tuple[str, str, str], set[int]] = {}
        for arc in src.arcs:
            where.setdefault(arc.key, set()).add(arc.sentence)
        judged = item.judged
        ranks = LexicalRetriever().rank(src, judged)
        sentences: list[SentenceScore] = []
        arcs: list[ArcScore] = []
        for n, sentence in enumerate(item.output.sentences):
            if not item.checkable(sentence):  # a bare "No.", a lead-in: nothing to check
                sentences.append(skipped_sentence(sentence.index, Evidence((), ""), sentence))
                continue
            values = [1.0 if arc.key in where else 0.0 for arc in sentence.arcs]
            arcs.extend(ArcScore(sentence.index, i, v) for i, v in enumerate(values))
            if judged[n] is not sentence:  # a claim: the sentence is as supported as it
                values = [1.0 if arc.key in where else 0.0 for arc in judged[n].arcs]
            matched = set().union(*(where.get(a.key, set()) for a in judged[n].arcs))
            if not matched:  # nothing matches: show the most similar sentence instead
                matched = {max(range(len(ranks[n])), key=lambda i: (ranks[n][i], -i))}
            chosen = tuple(sorted(matched))
            evidence = Evidence(chosen, " ".join(src.sentences[i].text for i in chosen))
            sentences.append(arc_sentence_score(sentence.index, values, evidence))
        return pair_score(item.key, self, sentences, arcs)
