"""The three-way NLI model: its training split, a two-step training run and the ONNX runtime,
on tiny random models built in the test (never the bundled one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from models.checkers.base import PairInput
from models.parsing import parse
from models.training.data import default_data_dir, split_of
from tests.models.conftest import TINY_ENCODER, TINY_MPNET, tiny_bert_base, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")


def test_held_out_and_non_commercial_files_never_train() -> None:
    from models.training.nli_data import NLI_FILES, training_mix

    roles = {f.path: f.role for f in NLI_FILES}
    assert roles["nli/mnli_dev_matched_from_hans_repo.tsv"] == "benchmark"
    assert roles["nli/snli_test_from_esnli.tsv"] == "benchmark"
    assert roles["nli/extra2/anli_test_r1r2r3.jsonl"] == "eval"
    assert roles["nli/sick2014/SICK_test_annotated.txt"] == "eval"
    data = default_data_dir()
    if not (data / "nli" / "extra2").is_dir():
        pytest.skip("the shared data folder is not here")
    train, dev = training_mix(data, scale=0.05)
    used = {p.path for p in train}
    assert used and all(roles[p] == "train" for p in used)
    # multi-sentence evidence and two-way files are in the mix
    assert "nli/extra3/fever_train_evidence.jsonl" in used
    assert any(p.label == "not_entailment" for p in train)


def test_no_benchmark_premise_or_dev_slice_item_reaches_training() -> None:
    from models.training.nli_data import (
        BENCHMARK_MNLI,
        BENCHMARK_SNLI,
        held_out,
        split,
        training_mix,
    )

    data = default_data_dir()
    if not (data / "nli" / "extra2").is_dir():
        pytest.skip("the shared data folder is not here")
    train, dev = training_mix(data)
    premises = {p.premise for p in train}
    assert not premises & {p.premise for p in held_out(data, BENCHMARK_MNLI)}
    assert not premises & {p.premise for p in held_out(data, BENCHMARK_SNLI)}
    assert dev and not premises & {p.premise for p in dev}
    assert all(split(p) == "train" for p in train)


def test_files_the_qa_builder_reads_keep_its_split() -> None:
    from models.training.data import detokenize, read_pairs
    from models.training.nli_data import qa_dev_premises, training_mix

    data = default_data_dir()
    if not (data / "nli" / "extra2").is_dir():
        pytest.skip("the shared data folder is not here")
    # every premise the QA builder holds out (its held-out QA items are made from them)
    held = {
        detokenize(p.premise) for p in read_pairs(data) if split_of(p.source + p.group) == "dev"
    }
    assert held and {p for _, p in qa_dev_premises(data)} == held
    train, _ = training_mix(data)
    qa_dev = qa_dev_premises(data)
    # no pair of a file the QA builder reads is trained on where the builder holds it out ...
    assert not {(p.path, p.premise) for p in train} & qa_dev
    # ... and a premise another file also holds (FEVER files share evidence) is caught by the
    # QA evaluation, which drops every item whose passage the model trained on
    from models.evaluation import qa_items

    items = qa_items(data, 60)
    trained = {p.premise for p in train}
    assert items and not any(detokenize(i.passage) in trained for i in items)


def test_the_two_way_loss_is_the_log_of_not_entailed_mass() -> None:
    from models.training.nli_model import NOT_ENTAILED_TARGET, mixed_loss

    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    probs = torch.softmax(logits, -1)
    three = mixed_loss(logits[:1], torch.tensor([2]))
    assert three.item() == pytest.approx(-torch.log(probs[0, 2]).item(), rel=1e-5)
    binary = mixed_loss(logits[1:], torch.tensor([NOT_ENTAILED_TARGET]))
    assert binary.item() == pytest.approx(-torch.log(probs[1, 1] + probs[1, 2]).item(), rel=1e-5)


def _pairs() -> list:
    from models.training.nli_data import NliPair

    return [
        NliPair("s", f"The council met on day {n}.", f"The council met {w}.", label)
        for n, (w, label) in enumerate(
            [
                ("today", "entailment"),
                ("never", "contradiction"),
                ("twice", "neutral"),
                ("again", "not_entailment"),
            ]
            * 3
        )
    ]


def _tiny_run(base: Path, pairs: list, out: Path, **overrides):  # noqa: ANN003, ANN202
    """``train`` on the tiny pairs with the small settings every quick run here uses (batches of
    4, 32 word-pieces, fp32, quiet), ``overrides`` on top."""
    from models.training.nli_model import train

    settings = {
        "batch_size": 4,
        "max_length": 32,
        "precision": "fp32",
        "log": lambda _: None,
        **overrides,
    }
    return train(base, pairs, pairs[:4], out, **settings)


def test_training_runs_checkpoints_resumes_and_exports_a_runtime_model(tmp_path: Path) -> None:
    from models.checkers.nli import OnnxNLI
    from models.training.nli_data import LABELS
    from models.training.nli_model import export, train

    base = tiny_bert_base(tmp_path / "base")
    pairs = _pairs()
    logs: list[str] = []
    record = train(
        base,
        pairs,
        pairs[:4],
        tmp_path / "run",
        batch_size=4,
        max_steps=2,
        max_length=32,
        precision="fp32",
        log=logs.append,
    )
    assert record["steps"] == 2 and record["pairs_seen"] == 8
    assert any("step 2/2" in line for line in logs)
    assert any("checkpoint step 2/2  dev accuracy" in line for line in logs)
    assert (tmp_path / "run" / "ckpt" / "last.pt").is_file()
    assert (tmp_path / "run" / "ckpt" / "best.pt").is_file()
    # --resume goes on from the checkpoint: two more steps, not four
    more = train(
        base,
        pairs,
        pairs[:4],
        tmp_path / "run",
        batch_size=4,
        max_steps=3,
        max_length=32,
        precision="fp32",
        resume=True,
        log=logs.append,
    )
    assert more["steps"] == 3 and more["pairs_seen"] == 12
    assert any("resumed at step 2" in line for line in logs)
    onnx_dir = tmp_path / "onnx"
    export(tmp_path / "run" / "hf", onnx_dir, {"max_length": 32}, quantize=False)
    config = json.loads((onnx_dir / "config.json").read_text(encoding="utf-8"))
    assert config["id2label"] == {str(i): name for i, name in enumerate(LABELS)}
    assert config["max_length"] == 32 and config["version"] and config["kind"] == "factdesk-nli"
    # The exported graph gives the trained classifier's probabilities.
    runtime = OnnxNLI(onnx_dir)
    got = runtime.predict([p.premise for p in pairs[:3]], [p.hypothesis for p in pairs[:3]])
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "run" / "hf")
    ).eval()
    tok = transformers.BertTokenizerFast(tokenizer_file=str(base / "tokenizer.json"))
    enc = tok(
        [p.premise for p in pairs[:3]],
        [p.hypothesis for p in pairs[:3]],
        padding=True,
        return_tensors="pt",
    )
    with torch.no_grad():
        want = torch.softmax(model(**enc).logits, -1).numpy()
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_a_base_without_segment_embeddings_trains_and_exports(tmp_path: Path) -> None:
    """MPNet's forward takes no token_type_ids: the trainer and the export leave them out."""
    from models.checkers.nli import OnnxNLI
    from models.training.nli_model import export

    base = tmp_path / "mpnet"
    torch.manual_seed(0)
    config = transformers.MPNetConfig(
        **TINY_MPNET,
    )
    transformers.MPNetModel(config).save_pretrained(str(base))
    (base / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    record = _tiny_run(base, _pairs(), tmp_path / "run", max_steps=1)
    assert record["steps"] == 1
    export(tmp_path / "run" / "hf", tmp_path / "onnx", {"max_length": 32}, quantize=True)
    probs = OnnxNLI(tmp_path / "onnx").predict(["The council met."], ["It met."])
    assert probs.shape == (1, 3) and probs.sum() == pytest.approx(1.0, abs=1e-4)


def test_a_pairs_probabilities_do_not_depend_on_its_batch(tmp_path: Path) -> None:
    """int8 dynamic quantisation scales activations over the whole input: each pair runs alone."""
    from models import nli_recent
    from models.checkers.nli import OnnxNLI
    from models.training.nli_model import export

    root = tmp_path
    torch.manual_seed(3)
    config = transformers.BertConfig(**TINY_ENCODER, num_labels=3)
    transformers.BertForSequenceClassification(config).save_pretrained(str(root / "hf"))
    (root / "hf" / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    export(root / "hf", root / "onnx", {"max_length": 64}, quantize=True)
    runtime = OnnxNLI(root / "onnx")
    a = ("The mayor opened the new bridge on Tuesday.", "The bridge opened.")
    long = ("A very long premise about the council budget " * 5, "The council met.")
    nli_recent.forget()
    alone = runtime.predict([a[0]], [a[1]])[0]
    nli_recent.forget()
    together = runtime.predict([long[0], a[0]], [long[1], a[1]])[1]
    assert np.array_equal(alone, together)


@pytest.fixture(scope="module")
def onnx_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random three-way model exported as ours, with a shuffled class order."""
    from models.training.nli_model import export

    root = tmp_path_factory.mktemp("nli")
    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    config = transformers.BertConfig(
        **TINY_ENCODER, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()}
    )
    torch.manual_seed(1)
    transformers.BertForSequenceClassification(config).save_pretrained(str(root / "hf"))
    (root / "hf" / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    export(root / "hf", root / "onnx", {"max_length": 64}, quantize=False)
    return root / "onnx"


def test_the_onnx_runtime_reads_id2label(onnx_nli: Path) -> None:
    from models.checkers.nli import NLISentenceChecker, OnnxNLI, support_margin

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    assert checker._onnx is not None
    assert (checker._entail, checker._contradict) == (1, 0)
    assert checker.max_tokens == 64 and checker.name == "nli:onnx"
    src = parse("The mayor opened the bridge on Tuesday.")
    out = parse("The mayor opened the bridge.")
    (result,) = checker.score([PairInput(1, src, out)])
    probs, alone = OnnxNLI(onnx_nli).predict([src.text, ""], [out.sentences[0].text] * 2)
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    # entailment over contradiction, less the contradiction of the claim with no evidence
    want = support_margin(float(probs[1]), float(probs[0]) - min(probs[0], alone[0]))
    assert result.sentences[0].score == pytest.approx(want, abs=1e-6)


def test_the_support_margin_uses_the_contradiction_signal() -> None:
    from models.checkers.nli import support_margin

    # a near-copy with a wrong detail: high entailment, but contradiction mass too
    assert support_margin(0.9, 0.08) > 0.8
    assert support_margin(0.6, 0.38) < 0.5
    assert support_margin(0.2, 0.1) < 0.5  # neutral: not found in the source
    assert support_margin(0.0, 1.0) == 0.0 and support_margin(1.0, 0.0) == 1.0
    # monotone over the whole range, with 0.5 where entailment beats contradiction by 0.47
    xs = [support_margin(e / 20, c / 20) for e in range(21) for c in range(21 - e)]
    assert min(xs) >= 0.0 and max(xs) <= 1.0
    assert support_margin(0.5, 0.4) < support_margin(0.5, 0.3) < support_margin(0.6, 0.3)


def test_a_no_is_judged_by_the_contradiction_of_what_it_denies(onnx_nli: Path) -> None:
    from models.checkers.nli import NLISentenceChecker, OnnxNLI, support_margin
    from models.claims import pair_input

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    src = parse("The mayor opened the bridge on Tuesday.")
    no = pair_input(1, src, parse("No."), "Did the mayor open the bridge?")
    yes = pair_input(2, src, parse("Yes."), "Did the mayor open the bridge?")
    (r_no, r_yes) = checker.score([no, yes])
    probs, alone = OnnxNLI(onnx_nli).predict([src.text, ""], ["The mayor opened the bridge."] * 2)
    contra, entail = float(probs[0]) - min(float(probs[0]), float(alone[0])), float(probs[1])
    assert r_no.sentences[0].score == pytest.approx(support_margin(contra, entail), abs=1e-6)
    assert r_yes.sentences[0].score == pytest.approx(support_margin(entail, contra), abs=1e-6)


class _Rules:
    """Stands in for the model: a text entails any claim made of its own words (a sentence its
    claims); otherwise a claim with "2020" is contradicted by a sentence with "2019", one with
    "praised" is not in the source, the rest is entailed (columns: c, e, n). A claim read with
    no evidence is neutral."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def predict(self, premises, hypotheses, batch_size=16):  # noqa: ANN001, ANN201
        rows = []
        for premise, hypothesis in zip(premises, hypotheses, strict=True):
            self.calls.append((premise, hypothesis))
            if not premise:
                rows.append([0.0, 0.0, 1.0])
            elif set(re.findall(r"\w+", hypothesis)) <= set(re.findall(r"\w+", premise)):
                rows.append([0.02, 0.95, 0.03])
            elif "2020" in hypothesis and "2019" in premise:
                rows.append([0.9, 0.05, 0.05])
            elif "2020" in hypothesis:
                rows.append([0.4, 0.1, 0.5])
            elif "praised" in hypothesis:
                rows.append([0.1, 0.1, 0.8])
            elif "every day" in hypothesis:
                # contradicted only by two sentences together (Tuesday, and closed on Mondays)
                together = "Tuesday" in premise and "Mondays" in premise
                rows.append([0.9, 0.05, 0.05] if together else [0.1, 0.2, 0.7])
            else:
                rows.append([0.02, 0.95, 0.03])
        return np.asarray(rows, np.float32)


BRIDGE_SOURCE = (
    "The bridge was opened by the mayor on Tuesday. The crowd cheered. "
    "The mayor was elected in 2019."
)


def _rules_checker(onnx_nli: Path) -> tuple:
    """The NLI checker with its model replaced by the rules above (calls recorded)."""
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    rules = _Rules()
    checker._onnx.predict = rules.predict  # type: ignore[union-attr,method-assign]
    return checker, rules


def test_each_claim_is_judged_against_joined_evidence_and_the_weakest_says_why(
    onnx_nli: Path,
) -> None:
    from models.checkers.nli import support_margin

    checker, rules = _rules_checker(onnx_nli)
    src = parse(BRIDGE_SOURCE)
    out = parse(
        "The mayor, who was elected in 2020, opened the bridge. "
        "The mayor opened the bridge and praised the workers. The crowd cheered."
    )
    (result,) = checker.score([PairInput(1, src, out)])
    first, second, third = result.sentences
    # the relative clause is a claim of its own; it is contradicted by source sentence 3
    assert first.score == pytest.approx(support_margin(0.05, 0.9), abs=1e-6)
    assert first.detail == (
        "claim “The mayor was elected in 2020”: contradicted by source sentence 3: "
        "“The mayor was elected in 2019.”"
    )
    assert second.detail == "claim “The mayor praised the workers”: not found in the source"
    assert third.score > 0.9 and third.detail is None
    assert result.score == min(s.score for s in result.sentences)
    # every claim read the source joined in source order (it fits the model input whole), as
    # a statement with its full stop
    assert (src.text, "The mayor opened the bridge.") in rules.calls
    assert first.evidence == (0, 1, 2)


def test_a_contradicted_claim_names_the_most_relevant_sentence_that_contradicts_it(
    onnx_nli: Path,
) -> None:
    checker, rules = _rules_checker(onnx_nli)
    # two sentences contradict the claim read alone (both say 2019); the more relevant is named
    # and the other is not read alone: the explanation stops at the first that contradicts
    src = parse(
        "The mayor was elected in 2019. The crowd cheered. "
        "The mayor said in 2019 that the harbour wall would be rebuilt."
    )
    (result,) = checker.score([PairInput(1, src, parse("The mayor was elected in 2020."))])
    assert result.sentences[0].detail == (
        "contradicted by source sentence 1: “The mayor was elected in 2019.”"
    )
    claim = "The mayor was elected in 2020."
    assert (src.sentences[2].text, claim) not in rules.calls


def test_the_readings_are_what_scoring_reads(onnx_nli: Path) -> None:
    checker, rules = _rules_checker(onnx_nli)
    src = parse(BRIDGE_SOURCE)
    out = parse("The mayor, who was elected in 2020, opened the bridge. The crowd cheered.")
    readings = checker.readings(PairInput(1, src, out))
    assert [r.sentence for r in readings] == [0, 0, 1]
    assert [r.hypothesis for r in readings] == [
        "The mayor opened the bridge.",
        "The mayor was elected in 2020.",
        "The crowd cheered.",
    ]
    assert all(len(r.windows) == 2 and not r.denies for r in readings)
    assert all(len(r.windows[0]) <= len(r.windows[-1]) for r in readings)
    checker.score([PairInput(1, src, out)])
    read = {(w, r.hypothesis) for r in readings for w in r.windows}
    # scoring reads every reading and each claim with no evidence; beyond them only the checks
    # that the sentence entails each of its claims and the one-sentence checks of a flagged
    # claim's explanation
    assert read <= set(rules.calls)
    assert {("", r.hypothesis) for r in readings} <= set(rules.calls)
    sentence = out.sentences[0].text
    # the split guard reads each claim as written (no full stop of its own)
    guard = {(sentence, r.hypothesis.removesuffix(".")) for r in readings[:2]}
    assert guard <= set(rules.calls) - read
    assert all(
        p in ("", sentence) or h == "The mayor was elected in 2020."
        for p, h in set(rules.calls) - read
    )


def test_a_config_without_id2label_is_a_clear_error(onnx_nli: Path, tmp_path: Path) -> None:
    import shutil

    from models.checkers.nli import OnnxNLI
    from models.errors import ModelLoadError

    broken = tmp_path / "broken"
    shutil.copytree(onnx_nli, broken)
    config = json.loads((broken / "config.json").read_text(encoding="utf-8"))
    del config["id2label"]
    (broken / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelLoadError, match="id2label"):
        OnnxNLI(broken)


def test_the_card_names_the_nli_model_and_its_held_out_accuracy(tmp_path: Path) -> None:
    from models.training.card import nli_part

    assert nli_part(tmp_path) == []  # not installed: no bullet
    (tmp_path / "nli").mkdir()
    config = {
        "kind": "factdesk-nli",
        "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"},
        "max_length": 128,
        "version": "abc123",
        "training": {"examples": 12000, "steps": 375, "batch_size": 32, "sources": {"nli/x": 1}},
        "held_out": {"nli/mnli_dev_matched_from_hans_repo.tsv": {"accuracy": 0.513, "items": 1000}},
    }
    (tmp_path / "nli" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (line,) = nli_part(tmp_path)
    assert "`abc123`" in line and "entailment / neutral / contradiction" in line
    assert "`mnli_dev_matched_from_hans_repo.tsv` 51.3% (1000 items)" in line
    assert "Trained on 2 CPU cores" in line
    config["training"] |= {"device": "cuda", "lora_rank": 32, "epochs": 2.3}
    (tmp_path / "nli" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (line,) = nli_part(tmp_path)
    assert "Trained on a lent GPU (LoRA of rank 32 on every encoder matrix" in line
    assert "2.3 passes over the mix" in line
    # trained on here from that model, rebuilt from its export: the card tells both runs
    gpu = dict(config["training"])
    config["training"] = {
        "pairs_seen": 25000,
        "steps": 780,
        "pad_share": 0.5,
        "continued_from": {"version": "abc123", "training": gpu},
    }
    config["version"] = "def456"
    (tmp_path / "nli" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (line,) = nli_part(tmp_path)
    assert "First trained on a lent GPU (LoRA of rank 32" in line and "as version `abc123`" in line
    assert "rebuilt from that int8 export" in line and "on 2 CPU cores" in line
    assert "25000 pairs" in line and "50% of its premises read inside" in line


def test_a_sentence_longer_than_the_onnx_model_input_is_reported(onnx_nli: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    out = parse(" ".join(["the mayor of paris opened the bridge"] * 12) + ".")
    assert checker.count_tokens(out.text) > checker.max_tokens
    (result,) = checker.score([PairInput(1, parse("The mayor opened it."), out)])
    assert result.score is None
    assert "longer than the model input" in (result.sentences[0].not_checked or "")


def test_progress_counts_pairs_not_claims(onnx_nli: Path) -> None:
    from models.checkers.nli import WINDOW_SIZES, NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    src = parse("The mayor opened the bridge on Tuesday. The crowd cheered.")
    out = parse("The mayor opened the bridge and praised the workers. The crowd cheered.")
    seen: list[tuple[int, int]] = []
    checker.score(
        [PairInput(1, src, out), PairInput(2, src, out)],
        batch_size=1,
        progress=lambda d, t: seen.append((d, t)),
    )
    # a step per model call of a claim against an evidence window or against none (two or
    # three claims a pair, as the random model reads the split)
    claims = len(checker.readings(PairInput(1, src, out)))
    assert claims in (2, 3)
    assert len(seen) == 2 * claims * (len(WINDOW_SIZES) + 1)
    assert all(t == 2 and 0 <= d <= 2 for d, t in seen) and seen[-1] == (2, 2)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_the_fast_path_is_its_own_checker_and_not_a_default(
    onnx_nli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``nli-fast`` loads the model in ``resources/models/nli_fast`` under its own name (its
    scores are stored apart from ``nli``'s), and only when asked for. It reads each claim
    against its evidence only: its MiniLM model read the held-out summaries worse with the
    claim's no-evidence contradiction taken off, so it reads none."""
    import models.checkers.nli as nli
    from models import registry

    monkeypatch.setattr(nli, "FAST_DIR", onnx_nli)
    checker = registry.load_checker("nli-fast", device="cpu")
    assert checker.name == "nli-fast"
    assert checker.display_name == registry.FAST_DISPLAY != nli.NLISentenceChecker.display_name
    assert "nli-fast" not in registry.default_checkers()
    src, out = parse("The mayor opened the bridge."), parse("The mayor opened it.")
    premises: list[str] = []
    predict = checker._onnx.predict

    def recording(p, h, batch_size=16):  # noqa: ANN001, ANN202
        premises.extend(p)
        return predict(p, h, batch_size)

    checker._onnx.predict = recording
    (result,) = checker.score([PairInput(1, src, out)])
    assert result.score is not None
    assert premises and "" not in premises and "-plain+" in checker.version
    accurate = nli.NLISentenceChecker(onnx_nli, device="cpu")
    assert "-plain" not in accurate.version and accurate.version != checker.version
    monkeypatch.setattr(nli, "FAST_DIR", onnx_nli / "absent")
    assert not registry.CHECKERS["nli-fast"].available()
    from models.errors import UnknownCheckerError

    with pytest.raises(UnknownCheckerError, match="nli-fast"):
        registry.load_checker("nli-fast", device="cpu")


def test_a_sentence_is_quoted_only_when_it_contradicts_the_claim_alone(onnx_nli: Path) -> None:
    """A claim the joined evidence contradicts, though no sentence does by itself, names no
    sentence: quoting the 'most contradicting' one would point the editor at the wrong place."""
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    checker._onnx.predict = _Rules().predict  # type: ignore[union-attr,method-assign]
    src = parse("The bridge was opened by the mayor on Tuesday. The bridge is closed on Mondays.")
    (result,) = checker.score([PairInput(1, src, parse("The bridge is open every day."))])
    assert result.sentences[0].score < 0.05
    assert result.sentences[0].detail == (
        "contradicted by the source read as a whole (no one sentence alone)"
    )


def test_a_resumed_run_with_a_time_budget_goes_on_past_the_last_plan(tmp_path: Path) -> None:
    """A run that ended (its schedule at zero) and is resumed with a larger budget trains on: the
    plan is the new run's, not the checkpoint's (it once stopped at once, having "finished")."""
    from models.training.nli_model import train

    base = tiny_bert_base(tmp_path / "base")
    common = {"batch_size": 4, "max_length": 32, "precision": "fp32", "log": lambda _: None}
    first = train(base, _pairs(), _pairs()[:4], tmp_path / "run", max_steps=2, **common)
    assert first["steps"] == 2
    more = train(
        base, _pairs(), _pairs()[:4], tmp_path / "run", minutes=60, epochs=2, resume=True, **common
    )
    assert more["steps"] == 6 and more["pairs_seen"] == 24  # two passes over 12 pairs


def test_the_fast_paths_combined_score_reads_the_fast_model_with_its_own_weights(
    onnx_nli: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``combined-fast`` puts ``nli-fast`` in the combined score's ``nli`` slot, reads the
    MiniLM arc/support model, weighs them by its own combiner file, and is never a default (the fast path once ran the MPNet model
    inside ``combined``, as slow as the default path)."""
    import models.checkers.combined as combined
    import models.checkers.nli as nli
    from models import registry

    monkeypatch.setattr(nli, "FAST_DIR", onnx_nli)
    spec = json.loads(combined.FAST_FILE.read_text(encoding="utf-8"))
    assert spec["nli_checker"] == "nli-fast" and "nli" in spec["features"]
    spec["weights"] = [0.0] * len(spec["features"])
    spec["weights"][spec["features"].index("nli")] = 1.0  # only the fast model counts
    fast_file = tmp_path / "combiner_fast.json"
    fast_file.write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setattr(combined, "FAST_FILE", fast_file)
    checker = registry.load_checker("combined-fast", device="cpu")
    assert checker.name == "combined-fast" and "combined-fast" not in registry.default_checkers()
    fast = registry.load_checker("nli-fast", device="cpu")
    assert checker._components["nli"].version == fast.version
    # its arc/support scores come from the MiniLM model, not from heads on the MPNet encoder
    from models.bundled import FAST_ARC_DIR

    for name in ("dae", "support"):
        if name in checker._components:
            part = checker._components[name]
            assert part._runner.path == FAST_ARC_DIR and part.name == f"{name}-fast"
            assert part.version != registry.load_checker(name).version
            assert f"{name}-fast" not in registry.default_checkers()
    src, out = parse("The mayor opened the bridge."), parse("The mayor closed the bridge.")
    (got,) = checker.score([PairInput(1, src, out)])
    (alone,) = fast.score([PairInput(1, src, out)])
    k = spec["features"].index("nli")
    z = (combined.logit(np.array([alone.score])) - spec["mean"][k]) / spec["sd"][k]
    want = 1 / (1 + np.exp(-(z[0] + spec["bias"])))
    assert got.score == pytest.approx(float(want), abs=1e-6)


def test_frozen_layers_keep_their_weights_and_the_rest_trains(tmp_path: Path) -> None:
    from models.training.nli_model import freeze_lower

    base = tiny_bert_base(tmp_path / "base")
    before = transformers.AutoModelForSequenceClassification.from_pretrained(str(base))
    layers = before.config.num_hidden_layers
    assert layers >= 2
    record = _tiny_run(base, _pairs(), tmp_path / "run", max_steps=2, lr=1e-2, freeze_layers=1)
    assert record["steps"] == 2
    after = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "run" / "hf")
    )
    old, new = before.state_dict(), after.state_dict()
    frozen = [k for k in old if k.startswith(("bert.embeddings.", "bert.encoder.layer.0."))]
    moved = [k for k in old if k.startswith(f"bert.encoder.layer.{layers - 1}.")]
    assert frozen and moved
    assert all(torch.equal(old[k], new[k]) for k in frozen)
    assert any(not torch.equal(old[k], new[k]) for k in moved)
    with pytest.raises(ValueError, match="cannot freeze"):
        freeze_lower(after, layers + 1)


def test_in_domain_pairs_need_the_data_folder_not_a_mix_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from models.training.nli_model import main

    with pytest.raises(SystemExit):
        main(["--mix", str(tmp_path / "mix.jsonl.xz"), "--summary-pairs", "--out", str(tmp_path)])
    assert "write the mix with it" in capsys.readouterr().err


def test_the_record_counts_the_files_of_the_pairs_that_trained(tmp_path: Path) -> None:
    from models.training.nli_data import NliPair

    pairs = [
        NliPair(f"file{n % 3}", p.premise, p.hypothesis, p.label) for n, p in enumerate(_pairs())
    ]
    record = _tiny_run(
        tiny_bert_base(tmp_path / "base"), pairs, tmp_path / "run", epochs=2, max_steps=5
    )
    # five batches of four over two passes of twelve pairs: each pair counted as often as it
    # trained, so the counts add up to the pairs seen (20), not to the list's length (12)
    assert record["pairs_seen"] == 20
    assert sum(record["mix"].values()) == 20 and set(record["mix"]) <= {"file0", "file1", "file2"}


def test_the_contradiction_a_claim_draws_with_no_evidence_is_not_the_source_s(
    onnx_nli: Path,
) -> None:
    """A negated claim draws contradiction from the model whatever the premise (read with no
    evidence here: 0.4). That much is not counted against it: a source that says it is not
    flagged, one that says nothing of it is "not found" rather than "contradicted", and one
    that contradicts it beyond that still is."""
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")

    def predict(premises, hypotheses, batch_size=16):  # noqa: ANN001, ANN202
        rows = []  # columns: c, e, n
        for premise in premises:
            if "does not run" in premise:
                rows.append([0.4, 0.55, 0.05])
            elif "every day of the year" in premise:
                rows.append([0.9, 0.05, 0.05])
            else:  # no evidence, or a sentence that does not bear on it
                rows.append([0.4, 0.05, 0.55])
        return np.asarray(rows, np.float32)

    checker._onnx.predict = predict  # type: ignore[union-attr,method-assign]
    claim = parse("The ferry never sails in winter.")
    said, silent, contradicted = checker.score(
        [
            PairInput(1, parse("The ferry does not run between October and April."), claim),
            PairInput(2, parse("The ferry company was founded in 1950."), claim),
            PairInput(3, parse("The ferry sails every day of the year."), claim),
        ]
    )
    assert said.score > 0.5 and said.sentences[0].detail is None
    assert silent.score < 0.5 and silent.sentences[0].detail == "not found in the source"
    assert contradicted.score < 0.5
    assert (contradicted.sentences[0].detail or "").startswith("contradicted by source sentence 1")
