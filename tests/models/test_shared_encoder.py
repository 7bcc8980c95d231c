"""Arc/support heads added to the NLI model's graph: one encoder, both models' outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.models.conftest import LABELS, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")

EVIDENCE = "The council voted on Monday to approve the budget for the new library."
SENTENCE = "The council approved the library budget."


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A tiny random MPNet NLI export, heads on its encoder, and the two folders they make."""
    from models.arc_model import build_module
    from models.training.nli_heads import write_model
    from models.training.nli_model import export
    from models.training.shared_encoder import main
    from models.training.train import load_base

    root = tmp_path_factory.mktemp("shared")
    torch.manual_seed(5)
    config = transformers.MPNetConfig(
        vocab_size=30527, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=130, num_labels=3,
    )  # fmt: skip
    transformers.MPNetForSequenceClassification(config).save_pretrained(str(root / "hf"))
    (root / "hf" / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    export(root / "hf", root / "nli", {"max_length": 64}, quantize=False)
    encoder = load_base(root / "hf")
    module = build_module(encoder.config.to_dict(), len(LABELS) + 2, 8, encoder=encoder).eval()
    write_model(
        module, root / "heads", labels=LABELS, label_dim=8,
        tokenizer_file=root / "hf" / "tokenizer.json", base="tiny", training={},
    )  # fmt: skip
    before = (root / "nli" / "model.onnx").read_bytes()
    (root / "before").mkdir()
    for name in ("model.onnx", "config.json", "tokenizer.json"):
        (root / "before" / name).write_bytes((root / "nli" / name).read_bytes())
    assert main([str(root / "nli"), str(root / "heads"),
                 "--nli-out", str(root / "nli"), "--arc-out", str(root / "arc")]) == 0  # fmt: skip
    assert (root / "nli" / "model.onnx").read_bytes() != before
    return {"root": root, "module": module}


def _slots() -> tuple:
    from models.checkers.multitask import arc_slots
    from models.parsing import parse

    return arc_slots(parse(SENTENCE).sentences[0])


def test_the_nli_models_probabilities_do_not_move(shared: dict) -> None:
    from models.checkers.nli import _RECENT, OnnxNLI

    root = shared["root"]
    _RECENT.clear()
    was = OnnxNLI(root / "before").predict([EVIDENCE], [SENTENCE])
    _RECENT.clear()
    now = OnnxNLI(root / "nli").predict([EVIDENCE], [SENTENCE])
    assert np.array_equal(was, now)
    # the NLI config and its version are kept: same scores, same version
    assert (root / "nli" / "config.json").read_text() == (
        root / "before" / "config.json"
    ).read_text()


def test_the_heads_in_the_graph_give_the_torch_models_scores(shared: dict) -> None:
    from models.arc_runtime import ArcSupportRunner, bundled_available
    from models.encoding import LabelVocab, collate, encode_pair, load_tokenizer

    root, module = shared["root"], shared["module"]
    config = json.loads((root / "arc" / "config.json").read_text())
    # the heads' folder holds only a config that points at the NLI model's files
    assert sorted(p.name for p in (root / "arc").iterdir()) == ["config.json"]
    assert config["model_file"] == "../nli/model.onnx"
    assert config["tokenizer_file"] == "../nli/tokenizer.json"
    assert bundled_available(root / "arc")
    runner = ArcSupportRunner(root / "arc")
    slots = _slots()
    arcs, support = runner.predict([(EVIDENCE, SENTENCE, slots)])[0]
    enc = encode_pair(
        load_tokenizer(root / "hf" / "tokenizer.json"), EVIDENCE, SENTENCE, slots,
        LabelVocab(LABELS), 64,
    )  # fmt: skip
    feed = {k: torch.from_numpy(v) for k, v in collate([enc]).items()}
    with torch.inference_mode():
        want_arcs, want_support = module(**feed)
    np.testing.assert_allclose(arcs, want_arcs[0].numpy(), atol=1e-4)
    assert support == pytest.approx(float(want_support[0]), abs=1e-4)


def test_a_heads_folder_whose_graph_is_missing_is_not_available(
    shared: dict, tmp_path: Path
) -> None:
    from models.arc_runtime import bundled_available

    arc = tmp_path / "arc"
    arc.mkdir()
    (arc / "config.json").write_text((shared["root"] / "arc" / "config.json").read_text())
    assert not bundled_available(arc)  # ../nli/model.onnx is not beside it here


def test_heads_are_added_once(shared: dict, tmp_path: Path) -> None:
    from models.training.shared_encoder import attach_heads

    state = shared["module"].state_dict()
    heads = {k: v.numpy() for k, v in state.items() if not k.startswith("encoder.")}
    with pytest.raises(ValueError, match="already has inputs"):
        attach_heads(shared["root"] / "nli" / "model.onnx", heads, tmp_path / "twice.onnx")


def test_the_nli_model_rebuilt_from_the_shared_graph_has_the_classifiers_weights_only(
    shared: dict,
) -> None:
    from models.training.unexport import weights_of

    root = shared["root"]
    was, now = weights_of(root / "before" / "model.onnx"), weights_of(root / "nli" / "model.onnx")
    assert was.keys() == now.keys()
    assert all(np.array_equal(was[k], now[k]) for k in was)
