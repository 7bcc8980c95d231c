"""LoRA training for a GPU machine whose returned files are size-limited: the adapter is small,
carries back in parts and merges into exactly the model that trained (tiny random models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.models.conftest import TINY_ENCODER, tiny_bert_base, tokenizer_json

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("safetensors")


def _pairs() -> list:
    from models.training.nli_data import NliPair

    words = [("today", "entailment"), ("never", "contradiction"), ("twice", "neutral")]
    return [
        NliPair("s", f"The council met on day {n}.", f"The council met {w}.", label)
        for n, (w, label) in enumerate(words * 4)
    ]


def _logits(model, tokens: dict) -> torch.Tensor:
    with torch.no_grad():
        return model(**tokens).logits


def test_lora_trains_only_the_adapter_and_merges_into_the_trained_model(tmp_path: Path) -> None:
    from models.training.lora import ADAPTER_MANIFEST
    from models.training.nli_model import merge_adapter, train

    base = tiny_bert_base(tmp_path / "base")
    record = train(
        base,
        _pairs(),
        _pairs()[:3],
        tmp_path / "run",
        batch_size=4,
        max_steps=4,
        max_length=32,
        precision="fp32",
        lr=1e-2,
        epochs=2,
        lora_rank=2,
        log=lambda _: None,
    )
    assert record["lora_rank"] == 2 and record["steps"] == 4 and record["epochs"] == 1.33
    adapter = tmp_path / "run" / "adapter"
    manifest = json.loads((adapter / ADAPTER_MANIFEST).read_text(encoding="utf-8"))
    assert manifest["rank"] == 2 and manifest["parts"]
    adapter_bytes = sum((adapter / p).stat().st_size for p in manifest["parts"])
    full_bytes = (tmp_path / "run" / "hf" / "model.safetensors").stat().st_size
    assert adapter_bytes < full_bytes / 3  # the word embeddings and matrices stay behind

    trained = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "run" / "hf")
    ).eval()
    untouched = transformers.BertModel.from_pretrained(str(base))
    # frozen: the embeddings; trained: the attention matrices (through B @ A)
    assert torch.equal(
        trained.bert.embeddings.word_embeddings.weight, untouched.embeddings.word_embeddings.weight
    )
    q = "encoder.layer.0.attention.self.query.weight"
    assert not torch.allclose(trained.bert.state_dict()[q], untouched.state_dict()[q])

    # the adapter alone, merged into the base, rebuilds the trained model
    merge_adapter(base, adapter, tmp_path / "merged")
    merged = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(tmp_path / "merged")
    ).eval()
    tokens = {
        "input_ids": torch.tensor([[101, 2057, 2064, 102, 2009, 102]]),
        "attention_mask": torch.ones(1, 6, dtype=torch.long),
    }
    torch.testing.assert_close(_logits(merged, tokens), _logits(trained, tokens))


def test_an_adapter_with_a_missing_part_or_another_base_is_refused(tmp_path: Path) -> None:
    from models.errors import ModelLoadError, ModelNotFoundError
    from models.training.lora import add_lora, read_adapter, save_adapter
    from models.training.nli_model import build_classifier, merge_adapter

    base = tiny_bert_base(tmp_path / "base")
    model = build_classifier(base)
    add_lora(model, 2)
    save_adapter(model, tmp_path / "adapter", {"kind": "test"}, part_mib=0.01)
    manifest, tensors = read_adapter(tmp_path / "adapter")
    assert len(manifest["parts"]) > 1 and tensors
    other = tmp_path / "other"
    config = transformers.BertConfig(**{**TINY_ENCODER, "num_hidden_layers": 1})
    transformers.BertModel(config).save_pretrained(str(other))
    (other / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    with pytest.raises(ModelLoadError, match="does not fit this base"):
        merge_adapter(other, tmp_path / "adapter", tmp_path / "merged")
    (tmp_path / "adapter" / manifest["parts"][-1]).unlink()
    with pytest.raises(ModelNotFoundError, match=manifest["parts"][-1]):
        read_adapter(tmp_path / "adapter")


def test_a_carried_mix_keeps_its_sets_and_order_and_names_a_bad_line(tmp_path: Path) -> None:
    import lzma

    from models.errors import InputError
    from models.training.nli_data import read_mix, write_mix

    pairs = _pairs()
    path = tmp_path / "mix.jsonl.xz"
    write_mix(path, pairs[:8], pairs[8:10], {"nli/held.tsv": pairs[10:]})
    sets = read_mix(path)
    assert sets == {"train": pairs[:8], "dev": pairs[8:10], "nli/held.tsv": pairs[10:]}
    with lzma.open(path, "at", encoding="utf-8") as fh:
        fh.write('{"set": "train", "premise": "no path"}\n')
    with pytest.raises(InputError) as err:
        read_mix(path)
    assert err.value.line == 13
