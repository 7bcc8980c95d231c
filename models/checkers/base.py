"""The one checker interface and its result values.

A checker is batch-first and pure: ``score(batch, *, batch_size, progress, should_stop)`` reads
parsed pairs and returns frozen results; it never mutates its inputs, prints or writes files.
Scores are in [0, 1], higher meaning better supported. Results carry the checker's name and
version so that every stored score says what produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Literal, Protocol

from models.claims import Claim
from models.document import ParsedText, Sentence
from models.errors import Cancelled
from models.evidence import Evidence
from models.framing import framing
from models.language import foreign_sentence
from models.markdown import code_block, emphasised_whole, footnote, plain, table_header
from models.reasons import CODE, FRAMING, LEAD_IN, NO_CONTENT, not_english

Progress = Callable[[int, int], None]
ShouldStop = Callable[[], bool]
Grain = Literal["arc", "sentence"]


#: Part of every checker's version since answers are read with their question: a project
#: analysed before re-scores once (pairs without a question get the same scores as before).
#: ``qa2``: a lead-in ("Key points:") is not checked (:func:`has_content`); ``qa3``: nor a
#: heading that states nothing ("## Summary", a line in bold: :mod:`models.markdown`); ``qa4``:
#: nor a fenced code block.
QA_REVISION = "qa4"


@dataclass(frozen=True, slots=True)
class PairInput:
    """One source/output pair, parsed. ``key`` is the caller's identifier, returned unchanged.

    For an answer, ``question`` is its question and ``claims`` holds, per output sentence, what
    that sentence claims read with the question (:mod:`models.claims`; None for a sentence that
    stands alone). Build both with :func:`models.claims.pair_input`. Checkers score a sentence's
    claim where it has one (:meth:`judged`), and report arcs from the sentence's own words.
    """

    key: Hashable
    source: ParsedText
    output: ParsedText
    question: str | None = None
    claims: tuple[Claim | None, ...] = ()

    def claim(self, sentence: int) -> Claim | None:
        """The claim of output sentence ``sentence`` (index), None when it stands alone."""
        return self.claims[sentence] if sentence < len(self.claims) else None

    @property
    def judged(self) -> tuple[Sentence, ...]:
        """Per output sentence, what the checkers read: its claim, else the sentence itself."""
        out = []
        for s in self.output.sentences:
            c = self.claim(s.index)
            out.append(c.parsed if c is not None else s)
        return tuple(out)

    def checkable(self, sentence: Sentence) -> bool:
        """Whether a checker can judge this output sentence: it, or its claim, has content."""
        c = self.claim(sentence.index)
        return has_content(c.parsed if c is not None else sentence)


@dataclass(frozen=True, slots=True)
class ArcScore:
    """Entailment score of one arc: ``arc`` indexes ``output.sentences[sentence].arcs``."""

    sentence: int
    arc: int
    score: float


@dataclass(frozen=True, slots=True)
class SentenceScore:
    """Support of one output sentence.

    Attributes:
        sentence: index into ``output.sentences``.
        score: support in [0, 1]; None when the sentence was not checked.
        min_arc: lowest arc score, for arc checkers.
        evidence: source sentence indices the checker read.
        omitted: relevant source sentences left out of the window for length.
        not_checked: why the sentence was not checked, else None.
        detail: what the checker found, in words an editor reads beside the score (the
            question-based check's questions and the source's answers), else None.
    """

    sentence: int
    score: float | None
    min_arc: float | None = None
    evidence: tuple[int, ...] = ()
    omitted: int = 0
    not_checked: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class PairScore:
    """All scores of one pair from one checker.

    The pair score is the lowest sentence score (an output is as supported as its weakest
    sentence, as in SummaC); None when no sentence could be checked.
    """

    key: Hashable
    checker: str
    version: str
    score: float | None
    sentences: tuple[SentenceScore, ...]
    arcs: tuple[ArcScore, ...] = ()

    @property
    def not_checked(self) -> tuple[SentenceScore, ...]:
        return tuple(s for s in self.sentences if s.not_checked is not None)


class Checker(Protocol):
    """What the pipeline, the CLI and the window rely on."""

    name: str
    version: str
    display_name: str
    grain: Grain

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = ...,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]: ...


def check_stop(should_stop: ShouldStop | None) -> None:
    """Raise :class:`Cancelled` when the caller asked to stop."""
    if should_stop is not None and should_stop():
        raise Cancelled("analysis cancelled")


def score_each(
    batch: Sequence[PairInput],
    one: Callable[[PairInput], PairScore],
    *,
    batch_size: int,
    progress: Progress | None,
    should_stop: ShouldStop | None,
) -> list[PairScore]:
    """Score pairs one by one (checkers without a batched model): stop and progress per batch."""
    results: list[PairScore] = []
    for n, item in enumerate(batch):
        if n % batch_size == 0:
            check_stop(should_stop)
        results.append(one(item))
        if progress is not None and ((n + 1) % batch_size == 0 or n + 1 == len(batch)):
            progress(n + 1, len(batch))
    return results


class OnePairAtATime:
    """Base of the checkers without a batched model: :meth:`score` runs :meth:`score_one` over
    the batch, checking for a stop and reporting progress every ``batch_size`` pairs."""

    #: Pairs between two stop checks and progress reports, when the caller names none.
    batch_size = 64

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int | None = None,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        return score_each(
            batch,
            self.score_one,
            batch_size=batch_size or self.batch_size,
            progress=progress,
            should_stop=should_stop,
        )

    def score_one(self, item: PairInput) -> PairScore:
        raise NotImplementedError


_VERBS = ("VERB", "AUX")


def has_content(sentence: Sentence) -> bool:
    """Whether a sentence states anything checkable on its own: it has a content arc, and it is
    not a lead-in.

    A bare "Yes." or "No." (common in answers) has none; without its question no checker can
    judge it against the source, so every checker reports it not checked (AIS would call it not
    interpretable on its own) instead of scoring it. With its question it has a claim
    (:meth:`PairInput.checkable`), which is checked. A lead-in ("Key points:", "In short:", a
    verbless line that ends in a colon) names what follows and states nothing: its arcs are not
    content; nor are those of the answer's own framing ("Here is a summary of the article:", "I
    hope this helps!").
    """
    return bool(sentence.arcs) and unchecked_reason(sentence) is None


def unchecked_reason(sentence: Sentence) -> str | None:
    """Why a sentence is not checked (None: it has content arcs and states something): no
    content arcs, a lead-in (:func:`lead_in`) or the answer's own framing
    (:func:`models.framing.framing`); a fenced code block (:func:`models.markdown.code_block`)
    says so before anything else, then a sentence plainly in another language
    (:func:`models.language.foreign_sentence`: the models read English only), which, unlike the
    others, an editor judges."""
    if code_block(sentence.text):
        return CODE
    language = foreign_sentence(sentence.text)
    if language is not None:  # one sentence in another language in an English text
        return not_english("it", language)
    if not sentence.arcs:
        return NO_CONTENT
    if lead_in(sentence):
        return LEAD_IN
    if framing(sentence.text):
        return FRAMING
    return None


def lead_in(sentence: Sentence) -> bool:
    """Whether a sentence only introduces what follows or cites: a table's header row (it names
    the columns), a footnote's text ("[^1]: Company filing."), or a sentence with no verb that
    ends in a colon ("Key points:", "**Key points:**") or is a heading ("## Summary", a line in
    bold)."""
    tokens = sentence.tokens
    if tokens and (table_header(sentence.text) or footnote(sentence.text)):
        return True
    if not tokens or any(t.pos in _VERBS for t in tokens):
        return False
    # a heading's "#"s are punctuation in the parse (:mod:`models.parsing`) only at a line start
    heading = not tokens[0].text.strip("#") and tokens[0].pos == "PUNCT"
    return heading or emphasised_whole(sentence.text) or plain(sentence.text).rstrip().endswith(":")


def skipped_sentence(
    index: int, evidence: Evidence, sentence: Sentence | None = None
) -> SentenceScore:
    """The score of a sentence no model saw: why (an evidence problem, or what
    :func:`unchecked_reason` says of ``sentence``; "no content arcs" without it), no value."""
    if evidence.not_checked is not None:
        return SentenceScore(index, None, None, (), evidence.omitted, evidence.not_checked)
    why = (unchecked_reason(sentence) if sentence is not None else None) or NO_CONTENT
    return SentenceScore(index, None, None, evidence.sentence_indices, evidence.omitted, why)


def arc_sentence_score(
    index: int, arc_scores: Sequence[float], evidence: Evidence, sentence: Sentence | None = None
) -> SentenceScore:
    """Sentence support from its arcs: the mean, as the DAE paper, with the minimum beside it
    (none: not checked, why as :func:`skipped_sentence` says of ``sentence``)."""
    if evidence.not_checked is not None or not arc_scores:
        return skipped_sentence(index, evidence, sentence)
    return SentenceScore(
        index,
        fmean(arc_scores),
        min(arc_scores),
        evidence.sentence_indices,
        evidence.omitted,
    )


def pair_score(
    key: Hashable,
    checker: Checker,
    sentences: Sequence[SentenceScore],
    arcs: Sequence[ArcScore] = (),
) -> PairScore:
    """Assemble a :class:`PairScore`; the pair score is the minimum checked sentence score."""
    checked = [s.score for s in sentences if s.score is not None]
    return PairScore(
        key=key,
        checker=checker.name,
        version=checker.version,
        score=min(checked) if checked else None,
        sentences=tuple(sentences),
        arcs=tuple(arcs),
    )
