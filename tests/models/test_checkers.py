"""The DAE and support checkers on a tiny model; the retriever; the bundled files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.checkers.base import PairInput
from models.document import ParsedText

parsing = pytest.importorskip("models.parsing")
pytest.importorskip("onnxruntime")


def _pair(source: str, output: str, key: str = "p") -> PairInput:
    return PairInput(key, parsing.parse(source), parsing.parse(output))


def test_dae_checker_scores_and_not_checked(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker

    checker = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None)
    long_sentence = "The committee " + "very " * 80 + "quickly approved the plan."
    item = _pair(
        "The committee approved the plan. It was late.",
        f"The committee approved the plan. {long_sentence} Yes.",
    )
    (result,) = checker.score([item])
    first, too_long, no_arcs = result.sentences
    assert first.not_checked is None and 0 <= first.score <= 1
    assert first.min_arc <= first.score
    assert too_long.score is None and "longer than the model input" in too_long.not_checked
    assert no_arcs.score is None and no_arcs.not_checked == "no content arcs"
    assert {a.sentence for a in result.arcs} == {0}
    assert len([a for a in result.arcs]) == len(item.output.sentences[0].arcs)
    assert result.score == first.score
    assert checker.name == "dae:" + tiny_onnx_dir.name and checker.version.endswith(
        "+onnx+qa4+alone1+read2+figs8"
    )


def test_a_lead_in_is_not_checked(tiny_onnx_dir: Path) -> None:
    """ "Key points:" above a list states nothing: no checker marks it (it would flag the pair);
    a line with a verb before its colon is a claim and is checked."""
    from models.checkers.base import LEAD_IN
    from models.checkers.dae import DAEChecker
    from models.checkers.lexical import LexicalArcChecker

    source = "The council approved the new bridge on Monday. It cost 6.2 million dollars."
    output = "Key points:\n- The council approved the bridge\n- The council said this: it cost 6.2"
    item = _pair(source, output)
    assert [s.text for s in item.output.sentences][0] == "Key points:"
    assert item.output.sentences[0].arcs  # "points -> Key": arcs, but no content
    for checker in (LexicalArcChecker(), DAEChecker(tiny_onnx_dir, device="cpu", retriever=None)):
        (result,) = checker.score([item])
        lead, listed, said = result.sentences
        assert lead.score is None and lead.not_checked == LEAD_IN
        assert listed.score is not None and said.score is not None
        assert 0 not in {a.sentence for a in result.arcs}


def test_dae_checker_empty_source(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker

    checker = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None)
    item = PairInput("e", ParsedText("", ()), parsing.parse("The cat sat on the mat."))
    (result,) = checker.score([item])
    assert result.score is None and result.sentences[0].not_checked == "the source has no text"


def test_torch_and_onnx_runtimes_agree(tiny_trainer_dir: Path, tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker

    item = _pair("Paris is the capital of France.", "Paris is the capital of Spain.")
    a = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None).score([item])[0]
    b = DAEChecker(tiny_trainer_dir, device="cpu", runtime="torch", retriever=None).score([item])[0]
    np.testing.assert_allclose([x.score for x in a.arcs], [x.score for x in b.arcs], atol=1e-4)


def test_support_checker_and_cancel(tiny_onnx_dir: Path) -> None:
    from models.checkers.support import load_support
    from models.errors import Cancelled

    checker = load_support(tiny_onnx_dir, "cpu", "onnx")
    item = _pair("Paris is the capital of France.", "Paris is in Europe. It is big.")
    (result,) = checker.score([item])
    assert len(result.sentences) == 2 and all(0 <= s.score <= 1 for s in result.sentences)
    assert result.score == min(s.score for s in result.sentences)
    # A bare answer word states nothing checkable without its question: reported, not scored,
    # and it does not drag the pair score down.
    answer = _pair("Paris is the capital of France.", "No. The capital of France is Paris.")
    (result,) = checker.score([answer])
    no, rest = result.sentences
    assert no.score is None and no.not_checked == "no content arcs"
    assert rest.not_checked is None and result.score == rest.score
    fresh = _pair("Rome is old.", "Rome is very old indeed.")
    with pytest.raises(Cancelled):
        checker.score([fresh], should_stop=lambda: True)


@pytest.mark.parametrize("kind", ["dae", "support"])
def test_batching_across_pairs_matches_pair_by_pair(tiny_onnx_dir: Path, kind: str) -> None:
    """Sentences of many pairs share batches; every pair must still get its own scores."""
    from models.arc_runtime import get_runner
    from models.checkers.dae import DAEChecker
    from models.checkers.multitask import arc_slots
    from models.checkers.support import SupportChecker

    cls = DAEChecker if kind == "dae" else SupportChecker
    checker = cls(tiny_onnx_dir, device="cpu", retriever=None)
    cities = ["Paris", "Rome", "Berlin", "Madrid", "Vienna", "Lisbon", "Oslo"]
    items = [
        _pair(
            f"{c} is a large city. The mayor of {c} opened a new bridge in {1990 + n}.",
            " ".join(
                [f"The mayor of {c} opened a bridge.", f"{c} built {n + 2} new roads.", "Yes."][
                    : 1 + n % 3
                ]
            ),
            key=f"k{n}",
        )
        for n, c in enumerate(cities)
    ]
    seen: list[tuple[int, int]] = []
    together = checker.score(items, batch_size=2, progress=lambda d, t: seen.append((d, t)))
    assert [r.key for r in together] == [i.key for i in items]
    assert seen[-1] == (len(items), len(items)) and len(seen) < len(items)
    # The oracle: each sentence run alone through a fresh runner (nothing cached).
    get_runner.cache_clear()
    runner = get_runner(tiny_onnx_dir, "onnx", "cpu")
    for item, result in zip(items, together, strict=True):
        windows = runner.windows(item, None)
        for s, ev, got in zip(item.output.sentences, windows, result.sentences, strict=True):
            if not s.arcs:
                continue
            ((arcs, support),) = runner.predict([(ev.text, s.text, arc_slots(s))])
            want = support if kind == "support" else sum(arcs) / len(arcs)
            assert got.score == pytest.approx(want, abs=1e-5)
            if kind == "dae":
                mine = [x.score for x in result.arcs if x.sentence == s.index]
                np.testing.assert_allclose(mine, arcs, atol=1e-5)


def test_flagged_words_rule() -> None:
    from models.checkers.dae import flagged_words

    sent = parsing.parse("The tall man bought a car.").sentences[0]
    scores = [0.1 if "tall" in (a.child_text, a.head_text) else 0.9 for a in sent.arcs]
    flagged = flagged_words(sent, scores)
    assert [sent.tokens[i].text for i in flagged] == ["tall"]


class _BagEmbedder:
    """A stand-in embedder: normalised bag of words over a fixed vocabulary."""

    def __init__(self, vocab: list[str]) -> None:
        self.vocab = {w: i for i, w in enumerate(vocab)}

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.vocab)), np.float32)
        for r, t in enumerate(texts):
            for w in t.lower().replace(".", "").split():
                if w in self.vocab:
                    out[r, self.vocab[w]] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


SOURCE = (
    "The weather was cold in the north. Shares in the bank fell sharply after the report. "
    "A new school opened in the town."
)


def test_embedding_retriever_ranks_relevant_first() -> None:
    from models.embedder import EmbeddingRetriever

    words = "weather cold north shares bank fell report school opened town".split()
    retriever = EmbeddingRetriever(_BagEmbedder(words))  # type: ignore[arg-type]
    source = parsing.parse(SOURCE)
    out = parsing.parse("The bank's shares fell.")
    (ranks,) = retriever.rank(source, out.sentences)
    assert int(np.argmax(ranks)) == 1
    assert all(0 <= r <= 1 for r in ranks)


def test_bundled_models_load_and_score() -> None:
    """The only test that reads the bundled files (skipped when they are absent)."""
    from models.arc_runtime import bundled_available
    from models.embedder import bundled_available as embedder_available
    from models.registry import default_checkers, load_checker

    if not (bundled_available() and embedder_available()):
        pytest.skip("bundled model files not present")
    from models.embedder import EmbeddingRetriever, SentenceEmbedder

    retriever = EmbeddingRetriever(SentenceEmbedder(device="cpu"))
    source = parsing.parse(SOURCE)
    (ranks,) = retriever.rank(source, parsing.parse("The bank's stock dropped.").sentences)
    assert int(np.argmax(ranks)) == 1
    assert {"dae", "support"} <= set(default_checkers())
    item = _pair(SOURCE, "Shares in the bank fell. A school closed in the city.")
    for name in ("dae", "support", "lexical"):
        (result,) = load_checker(name, device="cpu").score([item])
        values = [s.score for s in result.sentences if s.score is not None]
        assert values and all(0.0 <= v <= 1.0 for v in values)


def test_the_heads_read_figures_as_the_nli_model_does(tiny_onnx_dir: Path) -> None:
    """A hedge the source bears out is read as the source's figure, a comparison its figures
    bear out without its number; each arc keeps its own words in the rewrite, and the arcs of a
    dropped number get no score."""
    from models.arc_runtime import get_runner
    from models.checkers.dae import DAEChecker
    from models.checkers.multitask import reading
    from models.checkers.support import SupportChecker
    from models.evidence import Evidence

    source = (
        "In the ballot, 71 percent of union members backed the deal. "
        "The user base grew from 1.7 million to 2.3 million over the year."
    )
    item = _pair(
        source,
        "Seven in ten union members backed the deal. "
        "The user base grew by more than a third over the year.",
    )
    share, growth = item.output.sentences
    ev = Evidence((0, 1), source)
    read = reading(item, share, ev)
    assert read.job[1] == "71 percent of union members backed the deal."
    assert None not in read.placed and read.own == tuple(range(len(share.arcs)))
    rewritten = {"Seven", "in", "ten"}
    for arc, k in zip(share.arcs, read.placed, strict=True):
        slot = read.job[2][k]  # type: ignore[index]
        head = read.job[1][slot.head[0] : slot.head[1]]
        child = read.job[1][slot.child[0] : slot.child[1]]
        words = (
            item.output.text[arc.head_start : arc.head_end],
            item.output.text[arc.child_start : arc.child_end],
        )
        if not rewritten & set(words):
            assert (head, child) == words
    read = reading(item, growth, ev)
    assert read.job[1] == "The user base grew over the year."
    gone = {"by", "more", "than", "a", "third"}
    dropped = [k for k, arc in enumerate(growth.arcs) if {arc.head_text, arc.child_text} & gone]
    assert dropped and all(read.placed[k] is None for k in dropped)
    assert len(read.own) == len(growth.arcs) - len(dropped)

    (dae,) = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None).score([item])
    assert {(a.sentence, a.arc) for a in dae.arcs} == {(0, k) for k in range(len(share.arcs))} | {
        (1, k) for k in range(len(growth.arcs)) if k not in dropped
    }
    (support,) = SupportChecker(tiny_onnx_dir, device="cpu", retriever=None).score([item])
    runner = get_runner(tiny_onnx_dir, "onnx", "cpu")
    windows = runner.windows(item, None)
    expected = [
        runner.predict([reading(item, s, windows[s.index]).job])[0][1] for s in (share, growth)
    ]
    np.testing.assert_allclose([s.score for s in support.sentences], expected, atol=1e-6)
    # a hedge the source does not bear out is read as written
    other = _pair("In the ballot, 40 percent of union members backed the deal.", share.text)
    assert reading(other, other.output.sentences[0], ev).job[1] == share.text
