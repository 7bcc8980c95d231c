"""What the DAE and sentence-support checkers share: one multi-task model, one pair at a time.

Both checkers read the same model input per output sentence (evidence window + sentence + its
arcs), so the runner's cache lets one forward pass serve both. Each sentence runs on its own
(:meth:`models.arc_runtime.ArcSupportRunner.predict`): a pair's scores never depend on the pairs
analysed with it.

An answer sentence with a claim (:mod:`models.claims`) is read as its claim: the window is
chosen for the claim, the input is ``[CLS] evidence [SEP] claim [SEP]`` (the shape the model was
trained on; a question as a third segment would be an input it never saw), and the arc slots are
the claim's arcs followed by the sentence's own arcs where the claim copies their words, so one
pass gives the claim's support, the claim's arc scores (the sentence's DAE score) and the
scores of the sentence's own arcs. A "No" is scored as the denial of the claim it denies: one
minus that claim's support and arc scores (:attr:`models.claims.Claim.denies`).

What is read is rewritten as the NLI checker rewrites it (:func:`models.derived_figures.
read_against`): hedged figures as the source states them, comparisons the source's figures bear
out without their number, decades and centuries as the source's year. The heads, like the NLI model, do no arithmetic: read as written,
"Seven in ten union members backed the deal" against a source's 71 percent scored support 0.01,
read as "71 percent of union members …" 0.74. The arcs follow their words into the rewrite
(:func:`models.rewrite_spans.span_map`); an arc whose word the rewrite dropped ("by more than a
third" of a growth the source's figures bear out) gets no score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from models.arc_runtime import (
    BUNDLED_DIR,
    Job,
    Prediction,
    Runtime,
    default_retriever,
    get_runner,
)
from models.checkers.base import (
    QA_REVISION,
    Grain,
    OnePairAtATime,
    PairInput,
    PairScore,
)
from models.claims import Claim
from models.derived_figures import read_against
from models.document import Sentence
from models.encoding import ArcSlot
from models.evidence import Evidence, Retriever, retrieval_revision
from models.readable import READ_REVISION
from models.rewrite_spans import span_map
from models.runtime import ALONE_REVISION, DevicePref

_DEFAULT = object()
#: What the heads read: the sentence (or claim) with its figures read as the NLI model reads them
#: (figs8: restated from the evidence window first, "over 11 years" of "11 years" left as
#: written; figs7: comparisons sided by years and by
#: the source's own "compared with"; figs6: ages
#: given as a decade of life; figs5: shares that name what they count, durations
#: across units of time; figs4 was an experiment that also read vague counts).
FIGURES_REVISION = "figs8"


def arc_slots(sentence: Sentence) -> tuple[ArcSlot, ...]:
    """Arc word spans relative to the sentence text (what the model input holds)."""
    off = sentence.start
    return tuple(
        ArcSlot(
            (a.head_start - off, a.head_end - off),
            (a.child_start - off, a.child_end - off),
            a.label,
        )
        for a in sentence.arcs
    )


def claim_slots(
    claim: Claim, sentence: Sentence
) -> tuple[tuple[ArcSlot, ...], tuple[int | None, ...]]:
    """The model's arc slots for a sentence read as its claim, and where its own arcs went.

    Returns:
        The claim's arcs, then each of the sentence's arcs whose words the claim copies (and
        that the claim's parse does not already hold); and per sentence arc, its slot (None:
        its words are not in the claim, so it gets no score).
    """
    slots = list(arc_slots(claim.parsed))
    where = {(a.head, a.child, a.label): k for k, a in enumerate(slots)}
    placed: list[int | None] = []
    off = sentence.start
    for a in sentence.arcs:
        head = claim.locate(a.head_start - off, a.head_end - off)
        child = claim.locate(a.child_start - off, a.child_end - off)
        if head is None or child is None:
            placed.append(None)
            continue
        k = where.get((head, child, a.label))
        if k is None:
            k = len(slots)
            slots.append(ArcSlot(head, child, a.label))
            where[(head, child, a.label)] = k
        placed.append(k)
    return tuple(slots), tuple(placed)


@dataclass(frozen=True)
class Reading:
    """What the heads read for one output sentence, and where its own arcs are in it."""

    job: Job
    #: per arc of the sentence, its slot in ``job`` (None: the input does not hold its words)
    placed: tuple[int | None, ...]
    #: the slots whose scores make the sentence's arc score (a claim's own arcs)
    own: tuple[int, ...]


def reading(item: PairInput, sentence: Sentence, evidence: Evidence) -> Reading:
    """The heads' input for an output sentence: its evidence window and the sentence, or its
    claim (a "No": the claim it denies, whose arcs are not the sentence's), rewritten as the NLI
    model reads it (:func:`models.derived_figures.read_against`), with the arc slots carried
    into the rewrite."""
    claim = item.claim(sentence.index)
    if claim is None:
        text, slots = sentence.text, arc_slots(sentence)
        placed: tuple[int | None, ...] = tuple(range(len(slots)))
        own = tuple(range(len(slots)))
    elif claim.denies is not None:
        text, slots = claim.denies.text, arc_slots(claim.denies)
        placed, own = (None,) * len(sentence.arcs), tuple(range(len(slots)))
    else:
        text = claim.text
        slots, placed = claim_slots(claim, sentence)
        own = tuple(range(len(claim.parsed.arcs)))
    read = read_against(
        text, [s.text for s in item.source.sentences], evidence.sentence_indices
    ).text
    if read != text:
        carry = span_map(text, read)
        moved: dict[int, int] = {}
        kept: list[ArcSlot] = []
        for k, slot in enumerate(slots):
            head, child = carry(slot.head), carry(slot.child)
            if head is not None and child is not None:
                moved[k] = len(kept)
                kept.append(ArcSlot(head, child, slot.label))
        text, slots = read, tuple(kept)
        placed = tuple(None if k is None else moved.get(k) for k in placed)
        own = tuple(moved[k] for k in own if k in moved)
    return Reading((evidence.text, text, slots), placed, own)


class MultiTaskChecker(OnePairAtATime):
    """Base of the checkers on the multi-task arc/support model (bundled or a user's)."""

    short_name = ""
    display_name = ""
    grain: Grain = "sentence"
    #: Pairs between two stop checks and progress reports.
    batch_size = 16

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        device: DevicePref = "auto",
        runtime: Runtime = "onnx",
        retriever: Retriever | None | object = _DEFAULT,
    ) -> None:
        path = Path(model_dir) if model_dir is not None else BUNDLED_DIR
        self._runner = get_runner(path, runtime, device)
        self._retriever: Retriever | None = (
            default_retriever(device) if retriever is _DEFAULT else retriever  # type: ignore[assignment]
        )
        bundled = path.resolve() == BUNDLED_DIR.resolve()
        self.name = self.short_name if bundled else f"{self.short_name}:{path.name}"
        # a model that reads the most relevant sentences rather than a full window scores anew
        window = "" if self._runner.window is None else f"+window{self._runner.window}"
        self.version = (
            f"{self._runner.version}{window}+{runtime}+{QA_REVISION}+{ALONE_REVISION}"
            f"+{READ_REVISION}+{FIGURES_REVISION}{retrieval_revision(self._retriever)}"
        )
        self.runs_on: str = self._runner.runs_on
        self.max_tokens = self._runner.max_length

    def assemble(
        self,
        item: PairInput,
        windows: Sequence[Evidence],
        preds: dict[int, tuple[Reading, Prediction]],
    ) -> PairScore:
        """One pair's result from what each sentence read and its prediction (by index)."""
        raise NotImplementedError

    @staticmethod
    def reading(item: PairInput, sentence: Sentence, evidence: Evidence) -> Reading:
        """What the heads read for one output sentence (:func:`reading`)."""
        return reading(item, sentence, evidence)

    def score_one(self, item: PairInput) -> PairScore:
        """One pair: each checkable sentence (or its claim) read against its evidence window."""
        windows = self._runner.windows(item, self._retriever)
        todo = [
            s
            for s, ev in zip(item.output.sentences, windows, strict=True)
            if ev.not_checked is None and item.checkable(s)
        ]
        reads = [self.reading(item, s, windows[s.index]) for s in todo]
        preds = self._runner.predict([r.job for r in reads])
        return self.assemble(
            item,
            windows,
            {s.index: (r, p) for s, r, p in zip(todo, reads, preds, strict=True)},
        )
