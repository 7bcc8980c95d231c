"""Rebuilding a trainable classifier from an exported NLI model, and padded training premises."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.models.conftest import TINY_ENCODER, TINY_MPNET, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")


def _exported(root: Path, model_type: str, quantize: bool) -> tuple[Path, Path]:
    """A tiny random three-way classifier, its base directory and its export."""
    from models.training.nli_model import export

    torch.manual_seed(5)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    common = {"num_labels": 3, "id2label": labels, "label2id": {v: k for k, v in labels.items()}}
    if model_type == "mpnet":
        config = transformers.MPNetConfig(
            **TINY_MPNET,
            **common,
        )
        model = transformers.MPNetForSequenceClassification(config)
        base = transformers.MPNetModel(config)
    else:
        config = transformers.BertConfig(**TINY_ENCODER, **common)
        model = transformers.BertForSequenceClassification(config)
        base = transformers.BertModel(config)
    base.save_pretrained(str(root / "base"))
    model.save_pretrained(str(root / "hf"))
    for d in ("base", "hf"):
        (root / d / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    export(root / "hf", root / "onnx", {"max_length": 64}, quantize=quantize)
    return root / "base", root / "onnx"


@pytest.mark.parametrize(
    ("model_type", "quantize"), [("bert", False), ("bert", True), ("mpnet", True)]
)
def test_a_rebuilt_model_has_the_exported_weights_and_answers_as_the_export(
    tmp_path: Path, model_type: str, quantize: bool
) -> None:
    from models.checkers.nli import OnnxNLI
    from models.training.unexport import rebuild

    base, onnx_dir = _exported(tmp_path, model_type, quantize)
    out = rebuild(onnx_dir, tmp_path / "rebuilt", base)
    # what it was is recorded without a path of this machine
    from models.training.unexport import ORIGIN_FILE

    origin = (out / ORIGIN_FILE).read_text(encoding="utf-8")
    assert str(tmp_path) not in origin and '"rebuilt_on": "local directory base"' in origin
    original = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "hf")
    ).eval()
    again = transformers.AutoModelForSequenceClassification.from_pretrained(str(out)).eval()
    want, got = original.state_dict(), again.state_dict()
    for key, value in want.items():
        if key.endswith(("position_ids", "token_type_ids")):
            continue
        # int8 rounding moves a weight by at most half a quantisation step
        tol = 1e-6 if not quantize else float(value.abs().max()) / 127
        assert torch.allclose(got[key], value, atol=tol), key
    assert again.config.id2label == original.config.id2label
    premises = ["The council met on Tuesday.", "A dog ran across the park."]
    hypotheses = ["The council met.", "A cat slept."]
    runtime = OnnxNLI(onnx_dir).predict(premises, hypotheses)
    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))
    rows = []
    with torch.no_grad():
        for p, h in zip(premises, hypotheses, strict=True):
            enc = tok([p], [h], return_tensors="pt")
            enc.pop("token_type_ids", None) if model_type == "mpnet" else None
            rows.append(torch.softmax(again(**enc).logits, -1)[0].numpy())
    np.testing.assert_allclose(np.array(rows), runtime, atol=0.02 if quantize else 1e-4)
    origin = json.loads((out / "rebuilt_from.json").read_text())
    assert origin["version"] == json.loads((onnx_dir / "config.json").read_text())["version"]


def test_a_base_of_another_shape_is_a_clear_error(tmp_path: Path) -> None:
    from models.errors import ModelLoadError
    from models.training.unexport import rebuild

    _, onnx_dir = _exported(tmp_path, "bert", False)
    wider = tmp_path / "wider"
    transformers.BertModel(
        transformers.BertConfig(**{**TINY_ENCODER, "hidden_size": 64})
    ).save_pretrained(str(wider))
    with pytest.raises(ModelLoadError, match="shape"):
        rebuild(onnx_dir, tmp_path / "out", wider)


def test_padded_premises_keep_the_premise_whole_and_draw_only_on_the_training_pairs() -> None:
    from models.training.nli_data import NliPair, pad_premises

    path = "nli/extra2/lingnli.jsonl"
    pairs = [
        NliPair(path, f"Premise number {n} says the hall opened in {1900 + n}.", f"H {n}.", lab)
        for n, lab in enumerate(["entailment", "neutral", "contradiction", "neutral"] * 10)
    ]
    padded = pad_premises(pairs, share=1.0, most=4, max_length=256, seed=1)
    assert len(padded) == len(pairs)
    own = {p.premise for p in pairs}
    grew = 0
    for before, after in zip(pairs, padded, strict=True):
        assert (after.hypothesis, after.label, after.path) == (
            before.hypothesis,
            before.label,
            before.path,
        )
        assert before.premise in after.premise
        added = after.premise.replace(before.premise, " ").split(". ")
        # every added sentence is another training premise, never its own
        for piece in added:
            piece = piece.strip()
            if piece:
                assert any(piece.rstrip(".") in o for o in own - {before.premise})
        grew += after.premise != before.premise
    assert grew > 30
    # share 0 changes nothing; the budget keeps a padded pair inside the model input
    assert pad_premises(pairs, share=0.0) == pairs
    tight = pad_premises(pairs, share=1.0, most=6, max_length=40, seed=1)
    assert all(len(p.premise.split()) + 3 <= 40 / 1.4 for p in tight if p not in pairs)


def test_a_cpu_batch_is_padded_to_few_widths() -> None:
    """oneDNN keeps kernels per input shape: on a CPU, batches are padded to a multiple of
    CPU_PAD_MULTIPLE word-pieces (a run whose batches took every length grew until killed)."""
    from models.training.nli_model import CPU_PAD_MULTIPLE, collate

    batch = [([5] * n, [0] * n, 1) for n in (3, 40, 17)]
    out = collate(batch, pad_id=1, multiple=CPU_PAD_MULTIPLE)
    assert out["input_ids"].shape == (3, 64) and CPU_PAD_MULTIPLE == 32
    assert out["attention_mask"].sum(1).tolist() == [3, 40, 17]
    assert int(out["input_ids"][0, 3]) == 1  # padding, masked out
    assert collate(batch, pad_id=1)["input_ids"].shape == (3, 40)
