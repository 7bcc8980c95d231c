"""The three-way NLI model: its training split, a two-step training run and the ONNX runtime,
on tiny random models built in the test (never the bundled one)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.checkers.base import PairInput
from models.parsing import parse
from models.training.data import TextPair, default_data_dir, split_of
from tests.models.conftest import TINY_ENCODER, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")


def _group_on(split: str, start: int = 0) -> str:
    """A group name that :func:`split_of` puts on ``split`` for the SNLI dev file."""
    n = start
    while split_of(f"nli/snli_dev_from_esnli.tsv{n}") != split:
        n += 1
    return str(n)


def test_training_pairs_are_three_way_and_train_side_only() -> None:
    from models.training.nli_model import training_pairs

    snli = "nli/snli_dev_from_esnli.tsv"
    train, dev = _group_on("train"), _group_on("dev")
    pairs = [
        TextPair(snli, train, "A man , sleeping .", "A man sleeps.", "entailment"),
        TextPair(snli, dev, "A dog runs.", "A cat runs.", "contradiction"),
        TextPair("nli/extra/fever_nli_binary.jsonl", train, "P.", "H.", "neutral"),
        TextPair("nli/paws_true_format.csv", train, "P.", "H.", "paraphrase"),
    ]
    got = training_pairs(pairs)
    # The dev pair, the binary file (its "neutral" hides contradictions) and paraphrases go.
    assert [(p.group, p.premise, p.label) for p in got] == [
        (train, "A man, sleeping.", "entailment")
    ]


def test_no_dev_item_is_in_the_training_set() -> None:
    from models.training.data import detokenize, read_pairs
    from models.training.nli_model import THREE_WAY_SOURCES, pair_split, training_pairs

    data = default_data_dir()
    if not (data / "nli").is_dir():
        pytest.skip("the shared data folder is not here")
    pairs = read_pairs(data)
    train = training_pairs(pairs)
    # Every dev-side pair (the QA builder's held-out items come from these) stays out.
    dev = [p for p in pairs if pair_split(p) == "dev"]
    assert train and dev
    assert {p.source for p in train} <= set(THREE_WAY_SOURCES)
    assert all(pair_split(p) == "train" for p in train)
    dev_keys = {(p.source, p.group) for p in dev}
    assert not any((p.source, p.group) in dev_keys for p in train)
    dev_premises = {detokenize(p.premise) for p in dev}
    assert not any(p.premise in dev_premises for p in train)


def _tiny_base(path: Path) -> Path:
    torch.manual_seed(0)
    transformers.BertModel(transformers.BertConfig(**TINY_ENCODER)).save_pretrained(str(path))
    (path / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    return path


def test_training_runs_two_steps_and_exports_a_runtime_model(tmp_path: Path) -> None:
    from models.checkers.nli import OnnxNLI
    from models.training.nli_model import LABELS, export, train

    base = _tiny_base(tmp_path / "base")
    pairs = [
        TextPair("s", str(n), f"The council met on day {n}.", f"The council met {w}.", label)
        for n, (w, label) in enumerate(
            [("today", "entailment"), ("never", "contradiction"), ("twice", "neutral")] * 4
        )
    ]
    logs: list[str] = []
    record = train(
        base, pairs, tmp_path / "hf", batch_size=4, max_steps=2, max_length=32, log=logs.append
    )
    assert record["steps"] == 2 and record["examples"] == 8
    assert any("step 2/2" in line for line in logs)
    onnx_dir = tmp_path / "onnx"
    export(tmp_path / "hf", onnx_dir, {"max_length": 32}, quantize=False)
    config = json.loads((onnx_dir / "config.json").read_text(encoding="utf-8"))
    assert config["id2label"] == {str(i): name for i, name in enumerate(LABELS)}
    assert config["max_length"] == 32 and config["version"] and config["kind"] == "factdesk-nli"
    # The exported graph gives the trained classifier's probabilities.
    runtime = OnnxNLI(onnx_dir)
    got = runtime.predict([p.premise for p in pairs[:3]], [p.hypothesis for p in pairs[:3]])
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "hf")
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
    from models.checkers.nli import NLISentenceChecker, OnnxNLI

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    assert checker._onnx is not None
    assert (checker._entail, checker._contradict) == (1, 0)
    assert checker.max_tokens == 64 and checker.name == "nli:onnx"
    src = parse("The mayor opened the bridge on Tuesday.")
    out = parse("The mayor opened the bridge.")
    (result,) = checker.score([PairInput(1, src, out)])
    probs = OnnxNLI(onnx_nli).predict([src.text], [out.sentences[0].text])[0]
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert result.sentences[0].score == pytest.approx(float(probs[1]), abs=1e-6)


def test_a_no_is_judged_by_the_contradiction_of_what_it_denies(onnx_nli: Path) -> None:
    from models.checkers.nli import NLISentenceChecker, OnnxNLI
    from models.claims import pair_input

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    src = parse("The mayor opened the bridge on Tuesday.")
    no = pair_input(1, src, parse("No."), "Did the mayor open the bridge?")
    yes = pair_input(2, src, parse("Yes."), "Did the mayor open the bridge?")
    (r_no, r_yes) = checker.score([no, yes])
    probs = OnnxNLI(onnx_nli).predict([src.text], ["The mayor opened the bridge."])[0]
    assert r_no.sentences[0].score == pytest.approx(float(probs[0]), abs=1e-6)
    assert r_yes.sentences[0].score == pytest.approx(float(probs[1]), abs=1e-6)


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


def test_a_sentence_longer_than_the_onnx_model_input_is_reported(onnx_nli: Path) -> None:
    from models.checkers.nli import NLISentenceChecker

    checker = NLISentenceChecker(onnx_nli, device="cpu")
    out = parse(" ".join(["the mayor of paris opened the bridge"] * 12) + ".")
    assert checker.count_tokens(out.text) > checker.max_tokens
    (result,) = checker.score([PairInput(1, parse("The mayor opened it."), out)])
    assert result.score is None
    assert "longer than the model input" in (result.sentences[0].not_checked or "")
