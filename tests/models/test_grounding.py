"""Grounding by factual ablation on a tiny model: the DAE score with and without the source."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from models.checkers.base import PairInput

parsing = pytest.importorskip("models.parsing")
pytest.importorskip("onnxruntime")


def _pair(source: str, output: str) -> PairInput:
    return PairInput("p", parsing.parse(source), parsing.parse(output))


def test_the_second_pass_reads_the_sentence_without_its_source() -> None:
    from models.checkers.dae import DAEChecker
    from models.checkers.grounding import SourceRemoved
    from models.evidence import Evidence

    item = _pair("The board approved the plan.", "The board approved the plan.")
    s = item.output.sentences[0]
    ev = Evidence((0,), "The board approved the plan.")
    text, out, slots = DAEChecker.reading(item, s, ev).job
    assert text == "The board approved the plan."
    assert SourceRemoved.reading(item, s, ev).job == ("", out, slots)


def test_grounding_is_the_halved_log_odds_difference(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker
    from models.checkers.grounding import GroundingChecker, SourceRemoved

    item = _pair(
        "The board approved the plan on Tuesday. The mayor opposed it.",
        "The board approved the plan. Yes.",
    )
    checker = GroundingChecker(tiny_onnx_dir, device="cpu", retriever=None)
    (result,) = checker.score([item])
    (full,) = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None).score([item])
    (alone,) = SourceRemoved(tiny_onnx_dir, device="cpu", retriever=None).score([item])
    w, a = full.sentences[0].score, alone.sentences[0].score
    assert w is not None and a is not None and w != a  # the source changes the model's input

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    first, bare = result.sentences
    assert first.score == pytest.approx(1 / (1 + math.exp(-(logit(w) - logit(a)) / 2)))
    assert first.detail is not None
    assert first.detail.startswith(f"arc entailment with the source {w:.2f}, without it {a:.2f}")
    assert first.evidence == full.sentences[0].evidence
    assert bare.score is None and bare.not_checked == "no content arcs"  # DAE's reason, kept
    assert result.score == first.score
    assert checker.name == "grounding:" + tiny_onnx_dir.name
    assert checker.version.endswith("+ablation1")


@pytest.mark.parametrize(
    ("with_source", "without", "says"),
    [
        (0.9, 0.1, "the source is what supports it"),
        (0.9, 0.8, "the source adds little"),
        (0.2, 0.8, "plausible, not backed"),
        (0.2, 0.1, "entailed neither way"),
    ],
)
def test_the_detail_says_what_the_difference_means(
    with_source: float, without: float, says: str
) -> None:
    from models.checkers.grounding import describe

    assert says in describe(with_source, without)
