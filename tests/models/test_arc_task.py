"""The arc and support heads trained with the NLI model's encoder (models.training.arc_task), on
a tiny random MPNet built here, and the carried pack of a trained classifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.errors import ModelLoadError
from tests.models.conftest import LABELS, TINY_MPNET, arc_example, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _classifier_dir(path: Path) -> Path:
    """A tiny MPNet three-way classifier saved as a Hugging Face directory."""
    from models.training.nli_data import LABELS as NLI_LABELS

    torch.manual_seed(0)
    config = transformers.MPNetConfig(
        **TINY_MPNET,
        num_labels=3,
        id2label=dict(enumerate(NLI_LABELS)),
        label2id={n: i for i, n in enumerate(NLI_LABELS)},
    )
    transformers.MPNetForSequenceClassification(config).save_pretrained(str(path))
    (path / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    return path


def _heads_dir(path: Path, hidden: int = 32, label_dim: int = 8) -> Path:
    """Fitted heads alone (what nli_heads writes, less the encoder)."""
    from models.arc_model import KIND

    torch.manual_seed(1)
    path.mkdir(parents=True)
    n = len(LABELS) + 2
    state = {
        "label_embedding.weight": torch.randn(n, label_dim),
        "arc_out.weight": torch.randn(2, 2 * hidden + label_dim) * 0.1,
        "arc_out.bias": torch.zeros(2),
        "support_out.weight": torch.randn(2, hidden) * 0.1,
        "support_out.bias": torch.zeros(2),
    }
    torch.save(state, path / "model.pt")
    config = {"kind": KIND, "labels": LABELS, "label_dim": label_dim, "max_length": 64}
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path


def _examples() -> dict[str, list]:
    train = [
        arc_example("The council approved the budget.", "The council approved the new budget.", 1),
        arc_example("Prices rose.", "Prices fell sharply in May.", 0),
        arc_example("A dog barked.", "A dog barked loudly.", 1),
        arc_example("The firm hired staff.", "The firm sacked its staff.", 0),
        # the NLI benchmarks' pairs never train the heads beside the NLI model
        arc_example("A man sings.", "A man sings loudly.", 1, source="nli/snli_test_from_esnli"),
    ]
    return {"train": train, "dev": train[:2]}


def _pairs() -> list:
    from models.training.nli_data import NliPair

    words = [("today", "entailment"), ("never", "contradiction"), ("twice", "neutral")] * 4
    return [
        NliPair("s", f"The council met on day {n}.", f"The council met {w}.", label)
        for n, (w, label) in enumerate(words)
    ]


def _run(base: Path, out: Path, **overrides) -> dict:  # noqa: ANN003
    from models.training.nli_model import train

    settings = {
        "batch_size": 4,
        "max_length": 32,
        "precision": "fp32",
        "lora_rank": 4,
        "max_steps": 2,
        "log": lambda _: None,
        **overrides,
    }
    pairs = _pairs()
    return train(base, pairs, pairs[:4], out, **settings)


def test_the_heads_train_with_the_encoder_and_come_back_alone(tmp_path: Path) -> None:
    from models.training.arc_task import read_heads
    from models.training.lora import read_adapter

    base = _classifier_dir(tmp_path / "base")
    heads = _heads_dir(tmp_path / "heads")
    examples = _examples()
    record = _run(base, tmp_path / "arc", arc_examples=examples, arc_heads=heads)
    assert record["arc_heads"]["examples"] == 4  # the SNLI test example was left out
    assert record["arc_heads"]["seen"] > 0
    dev = record["arc_heads"]["dev"][-1][1]
    assert 0 <= dev["arc_accuracy"] <= 1 and dev["examples"] == 2
    # the heads come back alone: small, and they moved from where they started
    config, trained = read_heads(tmp_path / "arc" / "heads")
    _, start = read_heads(heads)
    assert set(trained) == set(start)
    assert config["labels"] == LABELS and config["heads_only"] is True
    assert any(not torch.allclose(trained[k], start[k]) for k in start)
    assert (tmp_path / "arc" / "heads" / "model.pt").stat().st_size < 20_000
    # the arc loss reaches the encoder: the same run without it trains other LoRA matrices
    _run(base, tmp_path / "plain")
    _, with_arcs = read_adapter(tmp_path / "arc" / "adapter")
    _, without = read_adapter(tmp_path / "plain" / "adapter")
    lora = [k for k in with_arcs if "lora_A" in k and "layer.0." in k]
    assert lora and any(not torch.allclose(with_arcs[k], without[k]) for k in lora)


def test_a_run_stopped_after_a_checkpoint_leaves_its_adapter_and_heads(tmp_path: Path) -> None:
    """On a lent machine a run may be stopped at its time limit: the small files that come back
    are written at every checkpoint, not only at the end."""
    from models.training.arc_task import read_heads
    from models.training.lora import read_adapter

    class Stopped(Exception):
        pass

    def stop_at_checkpoint(line: str) -> None:
        if line.startswith("checkpoint step"):
            raise Stopped

    base = _classifier_dir(tmp_path / "base")
    heads = _heads_dir(tmp_path / "heads")
    with pytest.raises(Stopped):
        _run(
            base,
            tmp_path / "run",
            arc_examples=_examples(),
            arc_heads=heads,
            max_steps=None,
            checkpoint_minutes=0.0,
            log=stop_at_checkpoint,
        )
    manifest, tensors = read_adapter(tmp_path / "run" / "adapter")
    assert manifest["steps"] >= 1 and manifest["pairs_seen"] == 4 * manifest["steps"]
    assert any("lora_A" in k for k in tensors)
    config, trained = read_heads(tmp_path / "run" / "heads")
    assert config["training"]["steps"] == manifest["steps"]
    assert set(trained) == set(read_heads(heads)[1])


def test_the_trained_heads_join_the_nli_graph(tmp_path: Path) -> None:
    """shared_encoder takes the heads that came back, as it takes nli_heads' output."""
    pytest.importorskip("onnx")
    from models.arc_runtime import ArcSupportRunner
    from models.training import shared_encoder
    from models.training.nli_model import export

    base = _classifier_dir(tmp_path / "base")
    _run(base, tmp_path / "arc", arc_examples=_examples(), arc_heads=_heads_dir(tmp_path / "h"))
    export(tmp_path / "arc" / "hf", tmp_path / "onnx", {"max_length": 64}, quantize=False)
    code = shared_encoder.main(
        [
            str(tmp_path / "onnx"),
            str(tmp_path / "arc" / "heads"),
            "--nli-out", str(tmp_path / "nli"),
            "--arc-out", str(tmp_path / "arc_support"),
        ]
    )  # fmt: skip
    assert code == 0
    ex = _examples()["train"][0]
    runner = ArcSupportRunner(tmp_path / "arc_support")
    arcs, support = runner.predict([(ex.evidence, ex.sentence, ex.arcs)])[0]
    assert len(arcs) == len(ex.arcs) and all(0 <= a <= 1 for a in arcs) and 0 <= support <= 1


def test_examples_travel_compressed_and_a_bad_file_is_named(tmp_path: Path) -> None:
    from models.training.arc_task import read_examples, write_examples

    path = tmp_path / "examples.pkl.xz"
    write_examples(path, _examples())
    back = read_examples(path)
    # the NLI benchmarks' examples do not travel
    assert [e.sentence for e in back["train"]] == [e.sentence for e in _examples()["train"][:4]]
    bad = tmp_path / "bad.pkl.xz"
    bad.write_bytes(b"not a pickle")
    with pytest.raises(ModelLoadError, match="bad.pkl.xz"):
        read_examples(bad)


def test_heads_without_a_part_are_refused_by_name(tmp_path: Path) -> None:
    from models.training.arc_task import read_heads

    heads = _heads_dir(tmp_path / "heads")
    state = torch.load(heads / "model.pt")
    del state["support_out.weight"], state["support_out.bias"]
    torch.save(state, heads / "model.pt")
    with pytest.raises(ModelLoadError, match="support_out"):
        read_heads(heads)


def test_a_packed_classifier_keeps_its_head_and_what_it_was(tmp_path: Path) -> None:
    """A shipped model rebuilt from its export travels with its three-way head and record."""
    from models.training.base_encoders import pack, unpack
    from models.training.unexport import ORIGIN_FILE

    src = _classifier_dir(tmp_path / "model")
    (src / ORIGIN_FILE).write_text(json.dumps({"version": "abc"}), encoding="utf-8")
    pack(src, tmp_path / "pack", part_mib=0.5, int8=True, int8_min_elements=64)
    out = unpack(tmp_path / "pack", tmp_path / "unpacked")
    assert json.loads((out / ORIGIN_FILE).read_text())["version"] == "abc"
    a = transformers.AutoModelForSequenceClassification.from_pretrained(str(src)).eval()
    b = transformers.AutoModelForSequenceClassification.from_pretrained(str(out)).eval()
    ids = torch.tensor([[0, 5, 6, 7, 2, 2, 8, 9, 2]])
    with torch.no_grad():
        x, y = a(input_ids=ids).logits, b(input_ids=ids).logits
    assert torch.allclose(x, y, atol=2e-2)


def test_the_card_says_whether_the_heads_trained_with_the_encoder() -> None:
    from models.training.card import _arc_encoder

    shared = {"model_file": "../nli/model.onnx"}
    assert "frozen" in _arc_encoder(shared)
    trained = _arc_encoder({**shared, "training": {"with_nli": True}})
    assert "trained with the heads" in trained and "frozen" not in trained
