"""Arc and support heads fitted on a frozen encoder's cached states (tiny random encoder)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.models.conftest import (
    LABELS,
    TINY_ENCODER,
    arc_example,
    tiny_bert_base,
    tokenizer_json,
)

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def _encoder(tmp_path: Path) -> object:
    from models.training.train import load_base

    return load_base(tiny_bert_base(tmp_path / "base"))


def test_states_hold_one_row_per_labelled_arc_and_one_per_example(tmp_path: Path) -> None:
    from models.encoding import LabelVocab, load_tokenizer
    from models.training.nli_heads import extract_states

    examples = [
        arc_example("The council approved the budget.", "The council approved the new budget."),
        arc_example("Prices rose.", "Prices rose sharply in May.", y=0),
        arc_example("A dog barked.", "A dog barked loudly."),
    ]
    states = extract_states(
        _encoder(tmp_path),
        load_tokenizer(tokenizer_json()),
        examples,
        LabelVocab(LABELS),
        max_length=64,
        batch_size=2,
    )
    assert states.examples == 3
    assert states.cls.shape == (3, TINY_ENCODER["hidden_size"])
    n_arcs = sum(len(e.arcs) for e in examples)
    assert states.head.shape == states.child.shape == (n_arcs, TINY_ENCODER["hidden_size"])
    # length-sorted batches inside a chunk: the labels travel with their states
    assert sorted(states.arc_y.tolist()) == sorted(y for e in examples for y in e.arc_y)
    assert sorted(states.support_y.tolist()) == [0, 1, 1]
    # head and child are different word-pieces' states, not copies
    assert not np.allclose(states.head, states.child)


def test_extraction_stops_when_its_time_is_spent(tmp_path: Path) -> None:
    from models.encoding import LabelVocab, load_tokenizer
    from models.training.nli_heads import extract_states

    examples = [arc_example("A dog barked.", "A dog barked loudly.")] * 4
    states = extract_states(
        _encoder(tmp_path), load_tokenizer(tokenizer_json()), examples, LabelVocab(LABELS),
        max_length=64, seconds=0.0,
    )  # fmt: skip
    assert states.examples == 0 and len(states.arc_y) == 0 and len(states.cls) == 0


def test_the_nli_benchmarks_are_never_examples() -> None:
    from models.training.examples import Example
    from models.training.nli_heads import usable

    def ex(source: str) -> Example:
        return Example("pair", source, "train", "e", "s", (), (), 1, ())

    kept = usable(
        [
            ex("nli/mnli_dev_matched_from_hans_repo.tsv"),
            ex("nli/snli_test_from_esnli.tsv"),
            ex("nli/snli_dev_from_esnli.tsv"),
            ex("xsumfaith"),
        ]
    )
    assert [e.source for e in kept] == ["nli/snli_dev_from_esnli.tsv", "xsumfaith"]


def _separable_states(n: int, hidden: int, seed: int = 0) -> object:
    from models.training.nli_heads import States

    rng = np.random.default_rng(seed)
    head = rng.normal(size=(n, hidden)).astype(np.float16)
    child = rng.normal(size=(n, hidden)).astype(np.float16)
    cls = rng.normal(size=(n, hidden)).astype(np.float16)
    arc_y = (head[:, 0] + child[:, 1] > 0).astype(np.int64)
    support_y = (cls[:, 2] > 0).astype(np.int64)
    support_y[: n // 10] = -1  # unknown support labels are left out of the loss
    return States(
        head=head, child=child, label=rng.integers(0, len(LABELS) + 2, n), arc_y=arc_y,
        cls=cls, support_y=support_y, examples=n,
    )  # fmt: skip


def test_heads_learn_from_cached_states_and_the_encoder_stays_as_it_was(tmp_path: Path) -> None:
    from models.arc_model import build_module
    from models.training.nli_heads import fit_heads, head_accuracy

    encoder = _encoder(tmp_path)
    module = build_module(encoder.config.to_dict(), len(LABELS) + 2, 8, encoder=encoder)
    before = {k: v.clone() for k, v in module.encoder.state_dict().items()}
    hidden = TINY_ENCODER["hidden_size"]
    train, dev = _separable_states(2000, hidden, 0), _separable_states(500, hidden, 1)
    untrained = head_accuracy(module, dev)
    fit_heads(module, train, epochs=15, lr=1e-2, batch_size=128)
    acc = head_accuracy(module, dev)
    assert acc["arc_accuracy"] > 0.9 and acc["support_accuracy"] > 0.9
    assert acc["arc_accuracy"] > untrained["arc_accuracy"] + 0.2
    assert acc["support_examples"] == 450
    after = module.encoder.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_the_saved_directory_runs_as_an_arc_support_model(tmp_path: Path) -> None:
    from models.arc_model import build_module
    from models.arc_runtime import ArcSupportRunner
    from models.training.nli_heads import write_model

    encoder = _encoder(tmp_path)
    module = build_module(encoder.config.to_dict(), len(LABELS) + 2, 8, encoder=encoder).eval()
    config = write_model(
        module, tmp_path / "heads", labels=LABELS, label_dim=8,
        tokenizer_file=tokenizer_json(), base="tiny", training={"heads_only": True},
    )  # fmt: skip
    saved = json.loads((tmp_path / "heads" / "config.json").read_text())
    assert saved == config and saved["encoder"]["hidden_size"] == TINY_ENCODER["hidden_size"]
    ex = arc_example("The council approved the budget.", "The council approved the new budget.")
    runner = ArcSupportRunner(tmp_path / "heads", runtime="torch", device="cpu")
    arcs, support = runner.predict([(ex.evidence, ex.sentence, ex.arcs)])[0]
    assert len(arcs) == len(ex.arcs) and all(a is not None and 0 <= a <= 1 for a in arcs)
    assert 0 <= support <= 1
