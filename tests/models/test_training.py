"""Training continued from a saved trainer directory (tiny random model, a few steps)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.models.conftest import LABELS

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
