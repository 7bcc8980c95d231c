"""What the DAE and sentence-support checkers share: one multi-task model, batched across pairs.

Both checkers read the same model input per output sentence (evidence window + sentence + its
arcs), so the runner's cache lets one forward pass serve both. Sentences of several pairs are
batched together: a 1-sentence summary no longer runs as a batch of one.

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
    PairInput,
    PairScore,
    Progress,
    ShouldStop,
)
from models.claims import Claim
from models.document import Sentence
from models.encoding import ArcSlot
from models.evidence import Evidence, Retriever
from models.runtime import DevicePref

_DEFAULT = object()

# Output sentences gathered before the model runs, as a multiple of the batch size.
_SENTENCES_PER_ROUND = 4


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


class MultiTaskChecker:
    """Base of the checkers on the multi-task arc/support model (bundled or a user's)."""

    short_name = ""
    display_name = ""
    grain: Grain = "sentence"

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
        self.version = f"{self._runner.version}+{runtime}+{QA_REVISION}"
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

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        results: list[PairScore] = []
        start = 0
        while start < len(batch):
            # Gather whole pairs until there are enough sentences for a few full batches.
            stop, pending = start, 0
            rounds = []
            while stop < len(batch) and (
                stop == start or pending < _SENTENCES_PER_ROUND * batch_size
            ):
                item = batch[stop]
                windows = self._runner.windows(item, self._retriever)
                todo = [
                    s
                    for s, ev in zip(item.output.sentences, windows, strict=True)
                    if ev.not_checked is None and item.checkable(s)
                ]
                rounds.append((item, windows, todo))
                pending += sum(item.claim(s.index) is None for s in todo)
                stop += 1
            # Claims run in batches of their own: the int8 model's activation scales depend on
            # the batch, so sentences without a claim get exactly the scores they always had.
            keys = [
                (item.claim(s.index) is not None, r, s.index)
                for r, (item, _, todo) in enumerate(rounds)
                for s in todo
            ]
            preds: dict[tuple[bool, int, int], Prediction] = {}
            for claimed in (False, True):
                mine = [k for k in keys if k[0] is claimed]
                jobs = [
                    self.job(rounds[r][0], rounds[r][0].output.sentences[i], rounds[r][1][i])
                    for _, r, i in mine
                ]
                if jobs:
                    got = self._runner.predict(jobs, batch_size=batch_size, should_stop=should_stop)
                    preds.update(zip(mine, got, strict=True))
            for r, (item, windows, todo) in enumerate(rounds):
                found = {
                    s.index: preds[(item.claim(s.index) is not None, r, s.index)] for s in todo
                }
                results.append(self.assemble(item, windows, found))
            start = stop
            if progress is not None:
                progress(len(results), len(batch))
        return results
