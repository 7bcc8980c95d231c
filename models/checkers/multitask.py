"""What the DAE and sentence-support checkers share: one multi-task model, batched across pairs.

Both checkers read the same model input per output sentence (evidence window + sentence + its
arcs), so the runner's cache lets one forward pass serve both. Sentences of several pairs are
batched together: a 1-sentence summary no longer runs as a batch of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from models.arc_runtime import BUNDLED_DIR, Prediction, Runtime, default_retriever, get_runner
from models.checkers.base import Grain, PairInput, PairScore, Progress, ShouldStop, has_content
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
        self.version = f"{self._runner.version}+{runtime}"
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
                    if ev.not_checked is None and has_content(s)
                ]
                rounds.append((item, windows, todo))
                pending += len(todo)
                stop += 1
            jobs = [
                (ev.text, s.text, arc_slots(s))
                for item, windows, todo in rounds
                for s in todo
                for ev in (windows[s.index],)
            ]
            preds = iter(self._runner.predict(jobs, batch_size=batch_size, should_stop=should_stop))
            for item, windows, todo in rounds:
                mine = {s.index: next(preds) for s in todo}
                results.append(self.assemble(item, windows, mine))
            start = stop
            if progress is not None:
                progress(len(results), len(batch))
        return results
