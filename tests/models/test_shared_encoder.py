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
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
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
    from models import nli_recent
    from models.checkers.nli import OnnxNLI

    root = shared["root"]
    nli_recent.forget()
    was = OnnxNLI(root / "before").predict([EVIDENCE], [SENTENCE])
    nli_recent.forget()
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


def test_the_heads_read_back_from_the_graph_are_the_ones_attached(shared: dict) -> None:
    from models.training.shared_encoder import read_heads

    state = shared["module"].state_dict()
    got = read_heads(shared["root"] / "nli" / "model.onnx")
    assert got.keys() == {k for k in state if not k.startswith("encoder.")}
    assert all(np.allclose(got[k], state[k].numpy()) for k in got)
    with pytest.raises(ValueError, match="no arc/support heads"):
        read_heads(shared["root"] / "before" / "model.onnx")


def test_the_nli_model_rebuilt_from_the_shared_graph_has_the_classifiers_weights_only(
    shared: dict,
) -> None:
    from models.training.unexport import weights_of

    root = shared["root"]
    was, now = weights_of(root / "before" / "model.onnx"), weights_of(root / "nli" / "model.onnx")
    assert was.keys() == now.keys()
    assert all(np.array_equal(was[k], now[k]) for k in was)


def test_the_heads_pass_gives_the_nli_models_probabilities_as_its_own_pass_does(
    shared: dict,
) -> None:
    from models import nli_recent
    from models.arc_runtime import ArcSupportRunner
    from models.checkers.nli import OnnxNLI

    root = shared["root"]
    nli = OnnxNLI(root / "nli")
    nli_recent.forget()
    own = nli.predict([EVIDENCE], [SENTENCE])[0]
    nli_recent.forget()
    runner = ArcSupportRunner(root / "arc", cache_size=0)
    assert runner.nli == (nli.version, nli.max_length)
    runner.predict([(EVIDENCE, SENTENCE, _slots())])
    kept = nli_recent.recall(nli.version, EVIDENCE, SENTENCE)
    assert kept is not None and np.array_equal(kept, own)


SOURCE = "Ann sang. Bob ran. The mayor opened the bridge. Cal slept. Dee ate. Eve swam. Fay read."
OUTPUT = "The mayor opened a bridge."


@pytest.fixture
def one_pass(shared: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The NLI, DAE and support checkers on the tiny shared graph, its heads reading the five
    most relevant sentences (as the NLI checker's widest window), and a count of graph runs."""
    import models.arc_runtime as arc_runtime
    from models import nli_recent
    from models.checkers.dae import DAEChecker
    from models.checkers.nli import NLISentenceChecker
    from models.checkers.support import SupportChecker

    root = shared["root"]
    heads = root / "arc5"
    heads.mkdir(exist_ok=True)
    config = json.loads((root / "arc" / "config.json").read_text())
    (heads / "config.json").write_text(json.dumps(dict(config, window_sentences=5)))
    monkeypatch.setattr(arc_runtime, "BUNDLED_DIR", heads)
    arc_runtime.get_runner.cache_clear()
    nli_recent.forget()
    checkers = {
        "nli": NLISentenceChecker(root / "nli"),
        "dae": DAEChecker(heads, retriever=None),
        "support": SupportChecker(heads, retriever=None),
    }
    session = checkers["nli"]._onnx.session
    assert checkers["dae"]._runner.runs_session(session)  # one graph, loaded once
    runs: list[int] = []
    real = session.run

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "run", counted)
    yield {"checkers": checkers, "runs": runs, "root": root}
    arc_runtime.get_runner.cache_clear()
    nli_recent.forget()


def _item():  # type: ignore[no-untyped-def]
    from models.checkers.base import PairInput
    from models.parsing import parse

    return PairInput("p", parse(SOURCE), parse(OUTPUT))


@pytest.mark.parametrize("first", ["nli", "dae"])
def test_one_pass_serves_the_nli_dae_and_support_checkers(one_pass: dict, first: str) -> None:
    from models import nli_recent
    from models.checkers.nli import NLISentenceChecker

    checkers, runs = one_pass["checkers"], one_pass["runs"]
    item = _item()
    nli = checkers["nli"]
    (claim,) = nli.readings(item)
    assert len(claim.windows) == 2  # the most relevant sentence, then the five most relevant
    scores = {}
    for name in [first, *(n for n in ("nli", "dae", "support") if n != first)]:
        scores[name] = checkers[name].score([item])[0]
    # a pass per window and one for the claim with no evidence: the widest window's pass also
    # gave the arcs and the support
    assert len(runs) == 3
    # the NLI scores are those of a checker that reads the graph alone
    nli_recent.forget()
    alone = NLISentenceChecker(one_pass["root"] / "nli")
    alone._heads = None
    assert alone.score([item])[0].score == scores["nli"].score
    assert scores["dae"].score is not None and scores["support"].score is not None


def test_heads_read_the_sentences_their_config_names(one_pass: dict) -> None:
    checkers = one_pass["checkers"]
    item = _item()
    (window,) = checkers["dae"]._runner.windows(item, None)
    # the five most relevant of seven (all would fit), the bridge sentence among them, in order
    assert len(window.sentence_indices) == 5 and 2 in window.sentence_indices
    assert list(window.sentence_indices) == sorted(window.sentence_indices)
    assert "+window5+" in checkers["dae"].version and "+window5+" in checkers["support"].version


@pytest.mark.parametrize("value", [0, "5", 2.5, True])
def test_a_bad_window_size_is_refused_naming_the_file(
    shared: dict, tmp_path: Path, value: object
) -> None:
    from models.arc_runtime import ArcSupportRunner
    from models.errors import ModelLoadError

    root = shared["root"]
    config = json.loads((root / "arc" / "config.json").read_text())
    heads = root / f"arc_bad_{type(value).__name__}"
    heads.mkdir(exist_ok=True)
    (heads / "config.json").write_text(json.dumps(dict(config, window_sentences=value)))
    with pytest.raises(ModelLoadError, match=r"arc_bad_\w+/config.json: window_sentences"):
        ArcSupportRunner(heads)


def test_the_window_size_is_written_to_the_heads_config(shared: dict, tmp_path: Path) -> None:
    from models.arc_runtime import ArcSupportRunner
    from models.training.shared_encoder import main

    root = shared["root"]
    argv = [str(root / "before"), str(root / "heads"), "--nli-out", str(tmp_path / "nli")]
    assert main([*argv, "--arc-out", str(tmp_path / "arc"), "--window-sentences", "5"]) == 0
    assert json.loads((tmp_path / "arc" / "config.json").read_text())["window_sentences"] == 5
    assert ArcSupportRunner(tmp_path / "arc").window == 5
    with pytest.raises(SystemExit):
        main([*argv, "--arc-out", str(tmp_path / "arc0"), "--window-sentences", "0"])
