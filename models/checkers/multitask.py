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
"""

from __future__ import annotations

from collections.abc import Sequence
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
from models.document import Sentence
from models.encoding import ArcSlot
from models.evidence import Evidence, Retriever
from models.readable import READ_REVISION
from models.runtime import ALONE_REVISION, DevicePref

_DEFAULT = object()


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
            f"+{READ_REVISION}"
        )
        self.runs_on: str = self._runner.runs_on
        self.max_tokens = self._runner.max_length

    def assemble(
        self,
        item: PairInput,
        windows: Sequence[Evidence],
        preds: dict[int, Prediction],
    ) -> PairScore:
        """One pair's result from the predictions of its sentences (by sentence index)."""
        raise NotImplementedError

    @staticmethod
    def job(item: PairInput, sentence: Sentence, evidence: Evidence) -> Job:
        """The model input of one output sentence: its evidence, text (or claim) and arcs."""
        claim = item.claim(sentence.index)
        if claim is None:
            return (evidence.text, sentence.text, arc_slots(sentence))
        if claim.denies is not None:  # a "No": what it denies is scored (see Claim.denies)
            return (evidence.text, claim.denies.text, arc_slots(claim.denies))
        return (evidence.text, claim.text, claim_slots(claim, sentence)[0])

    def score_one(self, item: PairInput) -> PairScore:
        """One pair: each checkable sentence (or its claim) read against its evidence window."""
        windows = self._runner.windows(item, self._retriever)
        todo = [
            s
            for s, ev in zip(item.output.sentences, windows, strict=True)
            if ev.not_checked is None and item.checkable(s)
        ]
        jobs = [self.job(item, s, windows[s.index]) for s in todo]
        preds = self._runner.predict(jobs)
        return self.assemble(item, windows, {s.index: p for s, p in zip(todo, preds, strict=True)})
