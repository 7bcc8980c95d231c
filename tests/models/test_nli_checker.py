"""The HF sequence-classification checker, on a tiny random model written by the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.checkers.base import PairInput
from models.errors import ModelLoadError, ModelNotFoundError
from models.parsing import parse

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = (
    "the mayor of paris lyon opened closed bridge on tuesday it cost four million euros .".split()
)


def tiny_nli(path: Path, id2label: dict[int, str]) -> Path:
    path.mkdir()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    tok.model_max_length = 64
    tok.save_pretrained(str(path))
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(str(path))
    return path


def test_scores_every_sentence_by_its_support_margin(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker, support_margin

    model_dir = tiny_nli(tmp_path / "nli", {0: "contradiction", 1: "entailment", 2: "neutral"})
    checker = NLISentenceChecker(model_dir, device="cpu")
    src = parse("The mayor of Paris opened the bridge on Tuesday. It cost four million euros.")
    out = parse("The mayor of Lyon closed the bridge. It cost four million euros.")
    seen: list[tuple[int, int]] = []
    (result,) = checker.score(
        [PairInput(7, src, out)], batch_size=1, progress=lambda d, t: seen.append((d, t))
    )
    assert result.key == 7 and result.checker.startswith("nli:")
    assert len(result.sentences) == 2
    scores = [s.score for s in result.sentences]
    assert all(s is not None and 0.0 <= s <= 1.0 for s in scores)
    assert result.score == min(scores)
    assert seen[-1] == (1, 1)  # progress counts pairs

    # The checker reads the entailment and contradiction columns, against the most relevant
    # source sentence and against the five most relevant (here the whole source): as entailed
    # as the better window, as contradicted as the worse one less what the model reads into
    # the claim with no evidence: compare with the model.
    def probs(premise: str) -> tuple[float, float]:
        enc = checker._tokenizer(premise, out.sentences[0].text, return_tensors="pt")
        with torch.no_grad():
            row = torch.softmax(checker._model(**enc).logits, -1)[0]
        return float(row[1]), float(row[0])

    readings = [probs(src.sentences[0].text), probs(src.text)]
    _, alone = probs("")
    entail = max(e for e, _ in readings)
    contra = max(c - min(c, alone) for _, c in readings)
    assert scores[0] == pytest.approx(support_margin(entail, contra), abs=1e-5)
    read: list[tuple[str, str]] = []
    probs = checker._probs

    def recording(premises, hypotheses):
        read.extend(zip(premises, hypotheses, strict=True))
        return probs(premises, hypotheses)

    checker._probs = recording  # type: ignore[method-assign]
    checker.score([PairInput(8, src, out)])
    first = [p for p, h in read if h == out.sentences[0].text]
    assert first[:2] == [src.sentences[0].text, src.text]


def test_long_sentence_is_reported_not_truncated(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(
        tiny_nli(tmp_path / "nli", {0: "entailment", 1: "not_entailment"}), device="cpu"
    )
    out = parse(" ".join(["the mayor of paris opened the bridge"] * 12) + ".")
    (result,) = checker.score([PairInput(1, parse("The mayor opened it."), out)])
    assert result.score is None
    assert "longer than the model input" in (result.sentences[0].not_checked or "")


def test_sentence_without_content_is_reported_not_scored(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(
        tiny_nli(tmp_path / "nli", {0: "entailment", 1: "not_entailment"}), device="cpu"
    )
    src = parse("The mayor opened the bridge on Tuesday.")
    (result,) = checker.score([PairInput(1, src, parse("Yes. The mayor opened the bridge."))])
    yes, rest = result.sentences
    assert yes.score is None and yes.not_checked == "no content arcs"
    assert rest.score is not None and result.score == rest.score


def test_model_without_entailment_label_is_refused(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    with pytest.raises(ModelLoadError, match="entail"):
        NLISentenceChecker(tiny_nli(tmp_path / "nli", {0: "positive", 1: "negative"}), device="cpu")


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    with pytest.raises(ModelNotFoundError, match="config.json"):
        NLISentenceChecker(tmp_path / "nowhere")


def test_bare_answer_is_read_as_its_claim(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker
    from models.claims import pair_input

    checker = NLISentenceChecker(
        tiny_nli(tmp_path / "nli", {0: "entailment", 1: "not_entailment"}), device="cpu"
    )
    src = parse("The mayor opened the bridge on Tuesday.")
    out = parse("Yes. The mayor opened the bridge.")
    (plain, asked) = checker.score(
        [PairInput(1, src, out), pair_input(2, src, out, "Did the mayor open the bridge?")]
    )
    assert plain.sentences[0].not_checked == "no content arcs"
    assert asked.sentences[0].not_checked is None and asked.sentences[0].score is not None
    assert asked.sentences[1] == plain.sentences[1]
    enc = checker._tokenizer(src.text, "The mayor opened the bridge.", return_tensors="pt")
    with torch.no_grad():
        probs = torch.softmax(checker._model(**enc).logits, -1)[0]
    assert asked.sentences[0].score == pytest.approx(float(probs[0]), abs=1e-5)


def test_a_no_is_supported_when_the_evidence_contradicts_what_it_denies(tmp_path: Path) -> None:
    from models.checkers.nli import NLISentenceChecker, support_margin
    from models.claims import pair_input

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    src = parse("The mayor opened the bridge on Tuesday.")
    item = pair_input(1, src, parse("No."), "Did the mayor open the bridge?")
    claim = item.claim(0)
    assert claim is not None and claim.text == "The mayor did not open the bridge."
    assert claim.denies is not None and claim.denies.text == "The mayor opened the bridge."
    (result,) = checker.score([item])

    def probs(premise: str) -> torch.Tensor:
        enc = checker._tokenizer(premise, "The mayor opened the bridge.", return_tensors="pt")
        with torch.no_grad():
            return torch.softmax(checker._model(**enc).logits, -1)[0]

    read, alone = probs(src.text), probs("")
    # contradiction (less what the claim alone draws) over entailment
    contra = float(read[0]) - min(float(read[0]), float(alone[0]))
    want = support_margin(contra, float(read[1]))
    assert result.sentences[0].score == pytest.approx(want, abs=1e-5)


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ((0.05, 0.9, 0.05), ", but the source reads as saying it"),
        ((0.05, 0.15, 0.8), ", but the source does not say otherwise"),
        ((0.9, 0.05, 0.05), None),
    ],
)
def test_a_flagged_no_says_what_it_denies_and_what_the_source_does_with_it(
    tmp_path: Path, row: tuple[float, float, float], why: str | None
) -> None:
    from models.checkers.nli import NLISentenceChecker
    from models.claims import pair_input

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    # the claim alone (no evidence) reads neutral
    checker._probs = lambda premises, _: np.array(  # type: ignore[method-assign]
        [row if p else (0.05, 0.05, 0.9) for p in premises]
    )
    src = parse("The mayor opened the bridge on Tuesday.")
    item = pair_input(1, src, parse("No."), "Did the mayor open the bridge?")
    (result,) = checker.score([item])
    (sentence,) = result.sentences
    if why is None:  # the source contradicts what the "No" denies: supported, nothing to say
        assert sentence.score > 0.5 and sentence.detail is None
    else:
        assert sentence.score < 0.5
        assert sentence.detail == f"the “No” denies “The mayor opened the bridge.”{why}"


@pytest.mark.parametrize(
    ("explanation_read", "explanation_supported", "supported"),
    [
        ("contradiction", True, True),  # the answer says why, and the source bears that out
        ("contradiction", False, False),  # ... but the source does not say what it says
        ("entailment", True, False),  # the explanation does not rule the claim out
    ],
)
def test_a_no_stands_on_an_explanation_the_source_supports(
    tmp_path: Path, explanation_read: str, explanation_supported: bool, supported: bool
) -> None:
    """ "No. Only vehicles have to be booked ahead; …": the model reads the source as saying
    what the "No" denies (its words are the source's), but the answer's explanation rules it
    out, and the source says the explanation: the "No" is supported as far as both hold."""
    from models.checkers.nli import NLISentenceChecker
    from models.claims import pair_input

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    index = {name: k for k, name in labels.items()}
    source = parse(
        "Vehicles must be booked in advance, but foot passengers can buy tickets on the day."
    )
    explanation = "Only vehicles have to be booked ahead."
    denied = "Foot passengers need to book the ferry in advance."

    def scripted(premises, hypotheses):
        rows = np.full((len(hypotheses), 3), 0.02, np.float32)
        for row, premise, hypothesis in zip(rows, premises, hypotheses, strict=True):
            if not premise:
                row[:] = 0.0
                said = "neutral"
            elif hypothesis == denied:
                said = explanation_read if premise == explanation else "entailment"
            else:  # the explanation against the source
                said = "entailment" if explanation_supported else "neutral"
            row[index[said]] = 0.96
        return rows

    checker._probs = scripted  # type: ignore[method-assign]
    question = "Do foot passengers need to book the ferry in advance?"
    item = pair_input(1, source, parse(f"No. {explanation}"), question)
    assert item.claim(0) is not None and item.claim(0).denies.text == denied
    (result,) = checker.score([item])
    no, why = result.sentences
    assert (no.score >= 0.5) is supported
    assert no.score <= max(why.score, 0.05)  # never above what supports the explanation
    if not supported:  # a flag still says what the source does with the denied claim
        assert no.detail.endswith("but the source reads as saying it")
    # a bare "No" has nothing else to stand on
    (bare,) = checker.score([pair_input(2, source, parse("No."), question)])
    assert bare.sentences[0].score < 0.05


def _recording_checker(tmp_path: Path):
    """A tiny random NLI checker and the list of hypotheses its model reads, in order."""
    from models.checkers.nli import NLISentenceChecker

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    read: list[str] = []
    probs = checker._probs

    def recording(premises, hypotheses):
        read.extend(hypotheses)
        return probs(premises, hypotheses)

    checker._probs = recording  # type: ignore[method-assign]
    return checker, read


def test_a_hedged_figure_is_judged_as_the_source_states_it(tmp_path: Path) -> None:
    """ "About four million" of a source's 4.2 million is read as 4.2 million: the model judges
    the claim, not the rounding; a figure the source does not satisfy is read as written."""
    checker, read = _recording_checker(tmp_path)
    src = parse("The mayor opened the bridge on Tuesday. It cost 4.2 million euros.")
    hedged = parse("It cost about four million euros.")
    wrong = parse("It cost about nine million euros.")
    got = checker.score([PairInput(1, src, hedged), PairInput(2, src, wrong)])
    # each claim is read once per window; a flagged one again, sentence by sentence, to say why
    assert set(read) == {"It cost 4.2 million euros.", "It cost about nine million euros."}
    assert read[0] == "It cost 4.2 million euros."
    # a flagged claim says how its figures were read (the random model flags both)
    detail = got[0].sentences[0].detail
    assert got[0].sentences[0].score < 0.5 and detail is not None
    assert detail.endswith(
        "(its figures read as the source states them: “about four million” as 4.2 million)"
    )
    assert "figures read" not in (got[1].sentences[0].detail or "")
    assert all(r.sentences[0].score is not None for r in got)


def test_a_comparison_the_source_figures_bear_out_is_read_without_its_number(
    tmp_path: Path,
) -> None:
    """The model does no arithmetic: "two and a half times as many" of 312 and 120 is checked
    here and the claim read as "more"; the flagged claim's detail shows the figures."""
    checker, read = _recording_checker(tmp_path)
    src = parse("Ashford Primary has 312 pupils and Mill Lane has 120.")
    right = parse("Ashford has about two and a half times as many pupils as Mill Lane.")
    wrong = parse("Ashford has four times as many pupils as Mill Lane.")
    got = checker.score([PairInput(1, src, right), PairInput(2, src, wrong)])
    assert set(read) == {
        "Ashford has more pupils than Mill Lane.",
        "Ashford has four times as many pupils as Mill Lane.",
    }
    detail = got[0].sentences[0].detail
    assert got[0].sentences[0].score < 0.5 and detail is not None  # the random model flags it
    assert detail.endswith(
        "(its comparisons hold on the source's figures: "
        "“about two and a half times as many pupils as” (312 against 120))"
    )
    assert "comparisons hold" not in (got[1].sentences[0].detail or "")


def test_a_placeholder_is_read_as_written_and_named_in_the_note(tmp_path: Path) -> None:
    """An output's "UNK" (a word its writer lacked) is read as written; a flagged claim's note
    names it and the source word in its place, so the flag is not read as a wrong fact."""
    checker, read = _recording_checker(tmp_path)
    src = parse("The two boxers revealed a dozen oddities about themselves. The fight is in May.")
    out = parse("The two boxers revealed a dozen UNK about themselves.")
    (got,) = checker.score([PairInput(1, src, out)])
    assert read[0] == "The two boxers revealed a dozen UNK about themselves."
    detail = got.sentences[0].detail
    assert got.sentences[0].score < 0.5 and detail is not None  # the random model flags it
    assert detail.endswith(
        "(a placeholder for a word its writer lacked, read as written: "
        "“UNK” where the source has “oddities”)"
    )


def test_a_split_is_kept_only_when_the_sentence_entails_each_claim(tmp_path: Path) -> None:
    """A sentence the rules split into a claim it does not make (a misparse) is read whole;
    a split whose claims it entails is read claim by claim."""
    checker, read = _recording_checker(tmp_path)
    labels = checker._model.config.id2label
    entail = next(k for k, v in labels.items() if v == "entailment")
    contra = next(k for k, v in labels.items() if v == "contradiction")

    def probs(premises, hypotheses):
        read.extend(hypotheses)
        rows = np.full((len(premises), 3), 0.05, np.float32)
        for k, (p, h) in enumerate(zip(premises, hypotheses, strict=True)):
            # the sentence does not entail a claim about Lyon's bridge
            rows[k, contra if "closed" in h and p != h and "lyon" in p.lower() else entail] = 0.9
        return rows

    checker._probs = probs  # type: ignore[method-assign]
    src = parse("The mayor of Paris opened the bridge on Tuesday.")
    kept = parse("The mayor opened the bridge and closed it on Tuesday.")
    misparsed = parse("The mayor of Lyon opened the bridge and closed it on Tuesday.")
    # each claim is read as a statement, with a full stop
    assert [r.hypothesis for r in checker.readings(PairInput(1, src, kept))] == [
        "The mayor opened the bridge.",
        "The mayor closed it on Tuesday.",
    ]
    whole = checker.readings(PairInput(2, src, misparsed))
    assert [r.hypothesis for r in whole] == [misparsed.sentences[0].text]
    # the check reads each claim against its own sentence
    assert "The mayor of Lyon closed it on Tuesday" in read


def test_the_model_reads_text_without_a_tokenizers_marks(tmp_path: Path) -> None:
    """An output written as a word tokenizer left it ("did n't", "£ 4", "-lrb-") reaches the
    model as ordinary text; the sentence shown and quoted stays as written."""
    checker, _ = _recording_checker(tmp_path)
    seen: list[tuple[str, str]] = []
    tokenizer = checker._tokenizer

    def recording(texts, pairs=None, **kwargs):
        if pairs is not None:  # a model input, not a length count
            seen.extend(zip(texts, pairs, strict=True))
        return tokenizer(texts, pairs, **kwargs)

    checker._tokenizer = recording
    src = parse("The mayor of Paris did n't open the bridge -lrb- on Tuesday -rrb- .")
    out = parse("The mayor did n't open the bridge .")
    (got,) = checker.score([PairInput(1, src, out)])
    assert seen and all(h == "The mayor didn't open the bridge." for _, h in seen)
    evidence = [p for p, _ in seen if p]  # not the claim read with no evidence
    assert evidence and all(" -lrb- " not in p and "n't" in p and " n't" not in p for p in evidence)
    assert out.sentences[0].text == "The mayor did n't open the bridge ."
    assert got.sentences[0].score is not None


def _scripted_checker(tmp_path: Path, verdicts: dict[str, str]):
    """An NLI checker whose model reads a hypothesis as ``verdicts`` says against a premise that
    holds the source's first sentence (neutral against others), every other one as entailed (so
    too wherever the premise is the output sentence itself: the split guard), and the list of
    hypotheses it reads."""
    from models.checkers.nli import NLISentenceChecker

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    index = {name: k for k, name in labels.items()}
    read: list[str] = []

    def scripted(premises, hypotheses):
        read.extend(hypotheses)
        rows = np.full((len(hypotheses), 3), 0.02, np.float32)
        for row, premise, hypothesis in zip(rows, premises, hypotheses, strict=True):
            if not premise:  # the claim with no evidence: neutral, nothing to take off
                row[:] = 0.0
                said = "neutral"
            elif "the committee chair," in premise:  # the output sentence: the guard
                said = "entailment"
            elif (key := hypothesis if hypothesis in verdicts else hypothesis[:-1]) in verdicts:
                # what the source's first sentence does with it (a claim is read with a full stop)
                said = verdicts[key] if "chairs the committee" in premise else "neutral"
            else:
                said = "entailment"
            row[index[said]] = 0.96
        return rows

    checker._probs = scripted  # type: ignore[method-assign]
    return checker, read


def test_an_appositive_counts_only_where_the_source_contradicts_it(tmp_path: Path) -> None:
    """ "Councillor Tomas Reyes, the committee chair, proposed …" also says "Councillor Tomas
    Reyes is the committee chair": the source naming another chair flags the sentence with that
    claim; a source that does not say it (neutral) leaves the sentence as its other claims
    read it, so a description worded otherwise costs nothing."""
    src = parse(
        "Harbour master Ines Volkova chairs the committee. Councillor Tomas Reyes proposed the "
        "dredging plan in March."
    )
    out = parse("Councillor Tomas Reyes, the committee chair, proposed the dredging plan in March.")
    described = "Councillor Tomas Reyes is the committee chair"
    contradicted, read = _scripted_checker(tmp_path / "c", {described: "contradiction"})
    (got,) = contradicted.score([PairInput(1, src, out)])
    (sentence,) = got.sentences
    assert described in read and sentence.score < 0.05
    assert sentence.detail.startswith(f"claim “{described}”: contradicted by source sentence 1")
    unsaid, read = _scripted_checker(tmp_path / "n", {described: "neutral"})
    (got,) = unsaid.score([PairInput(1, src, out)])
    (sentence,) = got.sentences
    assert described in read and sentence.score == pytest.approx(0.05 + 0.95 * 0.94)
    assert sentence.detail is None
    # the sentence itself contradicted (first, as low): named as a one-claim sentence is
    whole = out.sentences[0].text
    both, _ = _scripted_checker(
        tmp_path / "b", {described: "contradiction", whole: "contradiction"}
    )
    (got,) = both.score([PairInput(1, src, out)])
    assert got.sentences[0].detail.startswith("contradicted by source sentence 1: “Harbour")
    # what the checker reads for training is the claims that count whatever the source says
    assert [r.hypothesis for r in unsaid.readings(PairInput(1, src, out))] == [
        "Councillor Tomas Reyes, the committee chair, proposed the dredging plan in March."
    ]


def test_an_event_dated_by_an_interval_is_judged_with_its_year(tmp_path: Path) -> None:
    """ "… in 1968, four years after the town lost its station" is read as two claims, the second
    "the town lost its station in 1964": a source that closed the station in 1966 contradicts
    it, and the editor is told which year was read. The split guard reads the event's own words
    (the sentence does not state 1964 in so many words)."""
    from models.checkers.nli import NLISentenceChecker

    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    index = {name: k for k, name in labels.items()}
    read: list[tuple[str, str]] = []

    def scripted(premises, hypotheses):
        read.extend(zip(premises, hypotheses, strict=True))
        rows = np.full((len(hypotheses), 3), 0.02, np.float32)
        for row, premise, hypothesis in zip(rows, premises, hypotheses, strict=True):
            wrong = hypothesis.endswith("in 1964.") and "closed in 1966" in premise
            row[index["contradiction" if wrong else "entailment"]] = 0.96
        return rows

    checker._probs = scripted  # type: ignore[method-assign]
    out = parse("The mill shut in 1968, four years after the town lost its railway station.")
    right = parse("The Tasker mill shut in 1968. The railway station was closed in 1964.")
    wrong = parse("The Tasker mill shut in 1968. The railway station was closed in 1966.")
    dated = "the town lost its railway station in 1964"
    assert [r.hypothesis for r in checker.readings(PairInput(1, right, out))] == [
        "The mill shut in 1968.",
        f"{dated}.",
    ]
    sentence_text = out.sentences[0].text
    assert (sentence_text, "the town lost its railway station") in read  # the guard
    (good,) = checker.score([PairInput(1, right, out)])
    (bad,) = checker.score([PairInput(2, wrong, out)])
    assert good.sentences[0].score > 0.9 and bad.sentences[0].score < 0.05
    assert bad.sentences[0].detail.startswith(f"claim “{dated}”: contradicted by source sentence 2")


def test_a_new_evidence_ranker_gives_a_new_version(tmp_path: Path) -> None:
    # Stored scores are current while their checker's version is: a checker whose windows an
    # embedding model picks must score anew when that model changes.
    from models.checkers.nli import NLISentenceChecker
    from models.evidence import LexicalRetriever

    class Ranker(LexicalRetriever):
        def __init__(self, version: str) -> None:
            self.version = version

    model_dir = tiny_nli(tmp_path / "nli", {0: "contradiction", 1: "entailment", 2: "neutral"})
    plain = NLISentenceChecker(model_dir, device="cpu").version
    lexical = NLISentenceChecker(model_dir, device="cpu", retriever=LexicalRetriever()).version
    old = NLISentenceChecker(model_dir, device="cpu", retriever=Ranker("9e45f1a191d4")).version
    new = NLISentenceChecker(model_dir, device="cpu", retriever=Ranker("8960d1307983")).version
    assert plain == lexical
    assert old == f"{plain}+ret9e45f1" and new == f"{plain}+ret8960d1"


def test_the_bundled_checkers_name_the_bundled_ranker() -> None:
    import json

    from models.embedder import BUNDLED_DIR, bundled_available
    from models.registry import default_checkers, load_checker

    if not bundled_available():
        pytest.skip("no bundled embedder")
    version = json.loads((BUNDLED_DIR / "config.json").read_text("utf-8"))["version"]
    default_checkers()
    for name in ("nli", "dae", "support"):
        assert load_checker(name).version.endswith(f"+ret{version[:6]}")


def test_pairs_read_in_batches_keep_their_order_and_their_probabilities(tmp_path: Path) -> None:
    """A Hugging Face model reads one pair at a time on a CPU and ``torch_batch`` at a time on
    a GPU, pairs of similar length together: each row still belongs to its own pair, and a pair
    reads the same in a padded batch as alone."""
    from models.checkers.nli import GPU_BATCH, NLISentenceChecker

    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    checker = NLISentenceChecker(tiny_nli(tmp_path / "nli", labels), device="cpu")
    assert checker.torch_batch == 1 and GPU_BATCH > 1
    with torch.no_grad():  # weights far from zero: distinct pairs read distinctly
        for weight in checker._model.parameters():
            weight.mul_(20)
    premises = [
        "the mayor of paris opened the bridge on tuesday it cost four million euros .",
        "the mayor closed it .",
        "lyon opened the bridge on tuesday .",
        "it cost four million euros .",
        "the mayor of lyon closed the bridge on tuesday .",
    ]
    hypotheses = [
        "the mayor opened it .",
        "paris closed the bridge .",
        "it cost euros .",
        "",
        "lyon",
    ]
    alone = checker._probs(premises, hypotheses)
    checker.torch_batch = 3  # lengths differ: batches are padded and taken out of order
    together = checker._probs(premises, hypotheses)
    assert together.shape == (5, 3)
    assert np.abs(together - alone).max() < 1e-5
    # the rows are the pairs' own: distinct pairs read differently, in the order given
    assert min(np.abs(alone[i] - alone[j]).max() for i in range(5) for j in range(i)) > 0.01
    reversed_rows = checker._probs(premises[::-1], hypotheses[::-1])
    assert np.abs(reversed_rows[::-1] - alone).max() < 1e-5
