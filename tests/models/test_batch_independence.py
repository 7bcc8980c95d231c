"""A sequence's output does not depend on what runs with it, on tiny int8 models built here.

int8 dynamic quantisation scales activations over the whole input tensor: a sequence batched
(and padded) with a longer one would come out differently than alone (issue 27, item 7).
The NLI runtime's test is in test_nli_model.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.models.conftest import TINY_ENCODER, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

SHORT = "The mayor opened the new bridge on Tuesday."
LONG = "A very long text about the council budget and the new transport plan. " * 5


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT encoder directory (weights and tokenizer), as a base encoder."""
    torch.manual_seed(0)
    base = tmp_path_factory.mktemp("tiny_base")
    transformers.BertModel(transformers.BertConfig(**TINY_ENCODER)).save_pretrained(base)
    (base / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    return base


def test_an_arc_models_sentence_scores_do_not_depend_on_its_batch(
    tiny_trainer_dir: Path, tmp_path: Path
) -> None:
    from models.arc_model import load_torch, read_config
    from models.arc_runtime import ArcSupportRunner
    from models.encoding import ArcSlot
    from models.runtime import onnx_precision
    from models.training.export import export_arc_model

    module, _ = load_torch(tiny_trainer_dir)
    config = read_config(tiny_trainer_dir)
    export_arc_model(module, config, tiny_trainer_dir / "tokenizer.json", tmp_path, quantize=True)
    assert onnx_precision(tmp_path / "model.onnx") == "int8"
    short = (SHORT, "The mayor opened a bridge.", (ArcSlot((4, 9), (0, 3), "nsubj"),))
    long = (LONG, "The council met about the budget.", (ArcSlot((12, 15), (4, 11), "nsubj"),))
    alone = ArcSupportRunner(tmp_path).predict([short])[0]
    together = ArcSupportRunner(tmp_path).predict([long, short])[1]  # a fresh runner: no cache
    assert alone == together


def test_an_embedders_vectors_do_not_depend_on_its_batch(tiny_base: Path, tmp_path: Path) -> None:
    from models.embedder import SentenceEmbedder
    from models.runtime import onnx_precision
    from models.training.export import export_embedder

    export_embedder(tiny_base, tmp_path, quantize=True)
    assert onnx_precision(tmp_path / "model.onnx") == "int8"
    alone = SentenceEmbedder(tmp_path, device="cpu").embed([SHORT])[0]
    together = SentenceEmbedder(tmp_path, device="cpu").embed([LONG, SHORT])[1]  # no cache
    assert np.array_equal(alone, together)


def test_an_aligner_windows_states_do_not_depend_on_the_texts_other_windows(
    tiny_base: Path, tmp_path: Path
) -> None:
    from models.aligner import CONFIG_FILE, KIND, TokenEncoder
    from models.runtime import onnx_precision
    from models.training.aligner import export_token_encoder

    export_token_encoder(tiny_base, tmp_path, layer=1, quantize=True)
    assert onnx_precision(tmp_path / "model.onnx") == "int8"
    config = {
        "kind": KIND,
        "window": 16,
        "stride": 12,
        "sentence_scale": 20.0,
        "sentence_centre": 0.9,
        "word_scale": 20.0,
        "word_centre": 0.9,
        "version": "tiny",
    }
    (tmp_path / CONFIG_FILE).write_text(json.dumps(config))
    encoder = TokenEncoder(tmp_path, device="cpu")
    words = "the mayor opened the new bridge on tuesday and the council met in the town hall"
    short = encoder.encode(words)  # one window of 16 pieces
    longer = encoder.encode(f"{words} {LONG.lower()}")  # that window, then others
    assert len(short.ids) == 16 and np.array_equal(longer.ids[:16], short.ids)
    # The first 14 pieces sit furthest from an edge in the first window: the same input alone.
    assert np.array_equal(longer.states[:14], short.states[:14])


def test_an_embedder_runs_two_texts_at_a_time_in_order(tiny_base: Path, tmp_path: Path) -> None:
    import threading
    import time

    from models.embedder import SentenceEmbedder
    from models.training.export import export_embedder

    export_embedder(tiny_base, tmp_path, quantize=True)
    texts = [f"Sentence number {i} of the source, about the bridge." for i in range(6)]
    alone = [SentenceEmbedder(tmp_path, device="cpu").embed([t])[0] for t in texts]
    embedder = SentenceEmbedder(tmp_path, device="cpu")
    session, lock, state = embedder._session, threading.Lock(), {"now": 0, "most": 0}

    class Watched:
        def run(self, names: object, feed: dict[str, np.ndarray]) -> object:
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(0.05)  # long enough for the other thread's run to begin
            try:
                return session.run(names, feed)
            finally:
                with lock:
                    state["now"] -= 1

    embedder._session = Watched()
    together = embedder.embed(texts)
    assert state["most"] == 2
    np.testing.assert_array_equal(together, np.stack(alone))
