"""Training continued from a saved trainer directory (tiny random model, a few steps)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.models.conftest import LABELS, TINY_ENCODER

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def _examples() -> list:
    from models.checkers.multitask import arc_slots
    from models.parsing import parse
    from models.training.examples import Example

    s = parse("The council approved the new budget on Monday.").sentences[0]
    slots = arc_slots(s)
    ex = Example(
        "test", "test", "train", "The council rejected the budget.", s.text, slots,
        (0,) * len(slots), 0, (False,) * len(slots),
    )  # fmt: skip
    return [ex] * 8


def _arc_probs(model_dir: Path, examples: list) -> list[float]:
    from models.arc_runtime import ArcSupportRunner

    runner = ArcSupportRunner(model_dir, runtime="torch", device="cpu")
    arcs, support = runner.predict([(e.evidence, e.sentence, e.arcs) for e in examples[:1]])[0]
    return [p for p in arcs if p is not None] + [support]


def test_training_continues_from_a_trainer_directory(
    tiny_trainer_dir: Path, tmp_path: Path
) -> None:
    from models.training.train import train

    examples = _examples()
    before = _arc_probs(tiny_trainer_dir, examples)
    out = train(
        examples,
        base_dir=tmp_path / "no-base-needed",
        out_dir=tmp_path / "continued",
        max_length=64,
        max_epochs=15,
        batch_size=4,
        lr=5e-3,
        device="cpu",
        init_dir=tiny_trainer_dir,
    )
    config = json.loads((out / "config.json").read_text())
    # the starting model's shape and vocabulary are kept, and where it came from is recorded
    assert config["labels"] == LABELS and config["label_dim"] == 8
    assert config["encoder"]["hidden_size"] == 32
    assert config["training"]["continued_from"] == "tiny-test"
    after = _arc_probs(out, examples)
    # every label was "not entailed / not supported": the continued model learned it
    assert sum(after) / len(after) < sum(before) / len(before) - 0.2


def _pool() -> list:
    from models.checkers.multitask import arc_slots
    from models.parsing import parse_many
    from models.training.examples import Example

    texts = [
        "The council approved the new budget on Monday.",
        "The council rejected the budget.",
        "On Monday the new council approved the budget.",
        "The budget was approved.",
    ]
    out = []
    for n, parsed in enumerate(parse_many(texts)):
        s = parsed.sentences[0]
        slots = arc_slots(s)
        for m, evidence in enumerate(texts):
            out.append(
                Example(
                    "test",
                    "test",
                    "train",
                    evidence,
                    s.text,
                    slots,
                    tuple((n + m + k) % 2 for k in range(len(slots))),
                    (n + m) % 2,
                    (False,) * len(slots),
                )  # fmt: skip
            )
    return out


def _scores(model_dir: Path, examples: list, runtime: str) -> list[float]:
    from models.arc_runtime import ArcSupportRunner

    runner = ArcSupportRunner(model_dir, runtime=runtime, device="cpu")  # type: ignore[arg-type]
    preds = runner.predict([(e.evidence, e.sentence, e.arcs) for e in examples])
    return [p for arcs, support in preds for p in (*arcs, support) if p is not None]


def _export(trainer_dir: Path, out: Path, quantize: bool) -> Path:
    from models.arc_model import load_torch, read_config
    from models.training.export import export_arc_model

    module, _ = load_torch(trainer_dir)
    export_arc_model(
        module, read_config(trainer_dir), trainer_dir / "tokenizer.json", out, quantize=quantize
    )
    return out


@pytest.fixture(scope="module")
def tiny_mpnet_trainer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A multi-task model trained a few steps on a tiny random MPNet base."""
    from models.training.train import train
    from tests.models.test_base_encoders import tiny_mpnet_dir

    tmp = tmp_path_factory.mktemp("mpnet")
    base = tiny_mpnet_dir(tmp / "base")
    return train(
        _pool(), base_dir=base, out_dir=tmp / "trained", max_length=64, max_epochs=2,
        batch_size=4, lr=1e-3, label_dim=8, device="cpu", base_description="tiny mpnet",
    )  # fmt: skip


def test_the_multitask_model_trains_on_an_mpnet_encoder(tiny_mpnet_trainer: Path) -> None:
    from models.arc_model import load_torch

    config = json.loads((tiny_mpnet_trainer / "config.json").read_text())
    assert config["encoder"]["model_type"] == "mpnet" and config["base"] == "tiny mpnet"
    assert config["training"]["steps"] == 8
    module, _ = load_torch(tiny_mpnet_trainer)  # rebuilt from the saved config alone
    assert type(module.encoder).__name__ == "MPNetModel"
    # MPNet has no segment embedding: the segment ids must not change anything
    scores = _scores(tiny_mpnet_trainer, _pool()[:4], "torch")
    assert all(0.0 <= p <= 1.0 for p in scores) and len(set(scores)) > 1
    # padding in a batch (id 0, not MPNet's pad id 1) leaves every input's scores as alone
    alone = [p for e in _pool()[:4] for p in _scores(tiny_mpnet_trainer, [e], "torch")]
    assert alone == pytest.approx(scores, abs=1e-5)
    ids = torch.tensor([[0, 5, 6, 7, 2, 2, 8, 9, 2]])
    args = (torch.tensor([[1, 2]]), torch.tensor([[2, 3]]), torch.tensor([[1, 2]]))
    with torch.no_grad():
        a = module(ids, torch.ones_like(ids), torch.zeros_like(ids), *args)
        b = module(ids, torch.ones_like(ids), torch.ones_like(ids), *args)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    # and gradients reach the encoder from both heads
    module.train()
    arc, sup = module.logits(ids, torch.ones_like(ids), torch.zeros_like(ids), *args)
    (arc.sum() + sup.sum()).backward()
    grads = [p.grad for n, p in module.named_parameters() if n.startswith("encoder.encoder")]
    assert grads and all(g is not None and g.abs().sum() > 0 for g in grads)


@pytest.mark.parametrize("kind", ["bert", "mpnet"])
def test_int8_export_stays_within_01_of_fp32(
    kind: str, tiny_trainer_dir: Path, tiny_mpnet_trainer: Path, tmp_path: Path
) -> None:
    pytest.importorskip("onnxruntime")
    trainer = tiny_trainer_dir if kind == "bert" else tiny_mpnet_trainer
    pool = _pool()
    torch_scores = _scores(trainer, pool, "torch")
    fp32 = _scores(_export(trainer, tmp_path / "fp32", quantize=False), pool, "onnx")
    int8 = _scores(_export(trainer, tmp_path / "int8", quantize=True), pool, "onnx")
    assert len(torch_scores) == len(fp32) == len(int8) > 50
    assert max(abs(a - b) for a, b in zip(torch_scores, fp32, strict=True)) < 1e-4
    close = sum(abs(a - b) <= 0.1 for a, b in zip(fp32, int8, strict=True))
    assert close >= 0.95 * len(fp32)
    # the int8 graph is quantised (the test would pass on a copy of the fp32 one otherwise)
    import onnx

    ops = {n.op_type for n in onnx.load(str(tmp_path / "int8" / "model.onnx")).graph.node}
    assert "DequantizeLinear" in ops  # weight-only int8: no input is rounded over its tensor
    assert not ops & {"MatMulInteger", "DynamicQuantizeLinear"}
    assert fp32 != int8


def test_reproduce_runs_teacher_and_student_stages_on_tiny_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train (teacher) -> export -> labels -> distill -> student-export, from saved examples."""
    pytest.importorskip("onnxruntime")
    import pickle

    from transformers import BertConfig, BertModel

    from models.training import reproduce
    from tests.models.conftest import tokenizer_json
    from tests.models.test_base_encoders import tiny_mpnet_dir

    teacher_base = tiny_mpnet_dir(tmp_path / "mpnet")
    student_base = tmp_path / "minilm"
    BertModel(BertConfig(**TINY_ENCODER)).save_pretrained(student_base)
    (student_base / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    out, bundle = tmp_path / "work", tmp_path / "bundle"
    out.mkdir()
    pool = _pool()
    (out / "examples.pkl").write_bytes(pickle.dumps({"train": pool[:8], "dev": pool[8:]}))
    (out / "pool.pkl").write_bytes(pickle.dumps(pool))
    monkeypatch.setattr(reproduce, "MIN_TRAIN_MINUTES", 0.5)
    args = [
        "--teacher", str(teacher_base), "--student", str(student_base), "--out", str(out),
        "--bundle", str(bundle), "--epochs", "1", "--distill-epochs", "1", "--batch-size", "4",
    ]  # fmt: skip
    assert reproduce.main([*args, "--stages", "train,export"]) == 0
    teacher = json.loads((bundle / "arc_support_accurate" / "config.json").read_text())
    assert teacher["encoder"]["model_type"] == "mpnet" and teacher["onnx_int8"]
    assert reproduce.main([*args, "--stages", "labels,distill,student-export"]) == 0
    assert len(list((out / "teacher_labels").glob("chunk-*.npz"))) == 1
    student = json.loads((bundle / "arc_support" / "config.json").read_text())
    assert student["encoder"]["model_type"] == "bert"
    assert student["training"]["distilled"] == {"temperature": 2.0, "gold_weight": 1.0}
    assert set(json.loads((out / "distill.json").read_text())) >= {"kl", "arc_gap"}
    # the shipped student runs in the app's runtime
    assert len(_scores(bundle / "arc_support", pool[:2], "onnx")) > 5
    # stages that need a teacher are refused without one
    with pytest.raises(SystemExit):
        reproduce.main(["--out", str(out), "--stages", "distill"])


def test_saved_examples_share_repeated_texts(tmp_path: Path) -> None:
    import pickle

    from models.training.reproduce import _dump

    pool = [e for e in _pool() for _ in range(5)]
    copies = [replace(e, evidence="".join(e.evidence), sentence="".join(e.sentence)) for e in pool]
    plain = len(pickle.dumps(copies, protocol=pickle.HIGHEST_PROTOCOL))
    _dump({"train": copies}, tmp_path / "examples.pkl")
    assert (tmp_path / "examples.pkl").stat().st_size < 0.6 * plain
    assert pickle.loads((tmp_path / "examples.pkl").read_bytes())["train"] == copies
    assert not list(tmp_path.glob("*.tmp"))


def test_an_unknown_encoder_architecture_is_refused() -> None:
    from models.arc_model import build_encoder
    from models.errors import ModelLoadError

    with pytest.raises(ModelLoadError, match="'gpt2' is not supported"):
        build_encoder({"model_type": "gpt2", "vocab_size": 10})
    # configs saved before the architecture was recorded are BERT
    assert type(build_encoder(dict(TINY_ENCODER))).__name__ == "BertModel"


def test_the_teacher_gets_its_share_of_what_the_later_stages_leave() -> None:
    from models.training.reproduce import (
        EXPORT_RESERVE,
        LABELS_RESERVE,
        POOL_RESERVE,
        training_minutes,
    )

    later = {"export", "pool", "labels", "distill", "student-export"}
    reserve = 2 * EXPORT_RESERVE + POOL_RESERVE + LABELS_RESERVE
    assert training_minutes(60.0, 4.0, later, share=0.5) == pytest.approx((56.0 - reserve) / 2)
    # the student, trained last, gets all that is left but its export
    assert training_minutes(60.0, 30.0, {"student-export"}) == pytest.approx(28.0)
