"""A weight-space average of two NLI models of one lineage."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.models.conftest import tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("safetensors")


def _tiny(path: Path, seed: int, version: str) -> Path:
    torch.manual_seed(seed)
    config = transformers.MPNetConfig(
        vocab_size=30527, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=130, num_labels=3,
    )  # fmt: skip
    transformers.MPNetForSequenceClassification(config).save_pretrained(str(path))
    (path / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    record = {"version": version, "training": {"pairs_seen": seed}}
    (path / "rebuilt_from.json").write_text(json.dumps(record), encoding="utf-8")
    return path


def test_the_soup_is_the_weighted_mean_of_every_weight(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    from models.training.soup import main

    a, b = _tiny(tmp_path / "a", 1, "aaa"), _tiny(tmp_path / "b", 2, "bbb")
    assert main([str(a), str(b), "--weight", "0.25", "--out", str(tmp_path / "s")]) == 0
    wa, wb = load_file(a / "model.safetensors"), load_file(b / "model.safetensors")
    ws = load_file(tmp_path / "s" / "hf" / "model.safetensors")
    assert ws.keys() == wb.keys()
    name = "mpnet.encoder.layer.0.attention.attn.q.weight"
    assert not np.allclose(wa[name], wb[name])
    assert np.allclose(ws[name], 0.75 * wa[name] + 0.25 * wb[name], atol=1e-6)
    record = json.loads((tmp_path / "s" / "training.json").read_text(encoding="utf-8"))
    assert record["soup"] == {"earlier": "aaa", "later": "bbb", "weight_of_later": 0.25}
    assert record["pairs_seen"] == 2  # the later model's training record
    # the average loads as a model
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "s" / "hf")
    )
    assert model.config.num_labels == 3


def test_models_of_different_shapes_are_refused(tmp_path: Path, capsys) -> None:
    from models.training.soup import main

    a = _tiny(tmp_path / "a", 1, "aaa")
    b = tmp_path / "b"
    torch.manual_seed(3)
    config = transformers.MPNetConfig(
        vocab_size=30527, hidden_size=48, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=130, num_labels=3,
    )  # fmt: skip
    transformers.MPNetForSequenceClassification(config).save_pretrained(str(b))
    assert main([str(a), str(b), "--out", str(tmp_path / "s")]) == 2
    assert "shape" in capsys.readouterr().err
    assert main([str(a), str(tmp_path / "none"), "--out", str(tmp_path / "s")]) == 2
    with pytest.raises(SystemExit):
        main([str(a), str(a), "--weight", "1.5", "--out", str(tmp_path / "s")])
