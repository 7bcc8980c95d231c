"""Distillation on tiny random models: teacher labels cached and resumable; the student learns."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from models.training.examples import Example

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def _pool() -> list[Example]:
    from tests.models.test_training import _pool as pool

    return pool()


@pytest.fixture(scope="module")
def teacher_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random MPNet arc/support model with decided opinions (larger head weights)."""
    from models.arc_model import KIND, build_module
    from tests.models.conftest import LABELS
    from tests.models.test_base_encoders import tiny_mpnet_dir

    out = tmp_path_factory.mktemp("teacher")
    base = tiny_mpnet_dir(out / "base")
    encoder = json.loads((base / "config.json").read_text())
    encoder = {k: encoder[k] for k in ("model_type", "vocab_size", "hidden_size",
               "num_hidden_layers", "num_attention_heads", "intermediate_size",
               "max_position_embeddings")}  # fmt: skip
    torch.manual_seed(3)
    module = build_module(encoder, len(LABELS) + 2, 8)
    with torch.no_grad():
        module.arc_out.weight.mul_(6.0)
        module.support_out.weight.mul_(6.0)
    torch.save(module.state_dict(), out / "model.pt")
    (out / "tokenizer.json").write_bytes((base / "tokenizer.json").read_bytes())
    config = {"kind": KIND, "encoder": encoder, "labels": LABELS, "label_dim": 8,
              "max_length": 64, "word_piece": "first", "version": "teacher-1"}  # fmt: skip
    (out / "config.json").write_text(json.dumps(config))
    return out


def test_teacher_labels_are_cached_in_chunks_and_resume(teacher_dir: Path, tmp_path: Path) -> None:
    from models.training.distill import teacher_labels

    pool = _pool()
    cache = tmp_path / "teacher_labels"
    logged: list[str] = []
    first = teacher_labels(teacher_dir, pool, cache, chunk=6, device="cpu", log=logged.append)
    assert len(first) == len(pool) == 16
    assert [len(arcs) for arcs, _ in first] == [len(e.arcs) for e in pool]
    assert len(logged) == 3 and sorted(p.name for p in cache.iterdir()) == [
        "chunk-00000.npz", "chunk-00001.npz", "chunk-00002.npz", "meta.json",
    ]  # fmt: skip
    # an interrupted run: one chunk lost, one half-written; only those two are computed again
    (cache / "chunk-00001.npz").unlink()
    (cache / "chunk-00002.npz").write_bytes(b"PK\x03\x04 cut short")
    logged.clear()
    again = teacher_labels(teacher_dir, pool, cache, chunk=6, device="cpu", log=logged.append)
    assert [m.split(" (")[0] for m in logged] == [
        "teacher labels: chunk 2/3",
        "teacher labels: chunk 3/3",
    ]
    assert _same(again, first)
    # the same teacher and pool: nothing to compute
    logged.clear()
    assert _same(
        teacher_labels(teacher_dir, pool, cache, chunk=6, device="cpu", log=logged.append), first
    )
    assert logged == []
    # another pool: the cache is redone, not mixed
    logged.clear()
    teacher_labels(teacher_dir, pool[:5], cache, chunk=6, device="cpu", log=logged.append)
    assert "another teacher or pool" in logged[0]
    assert sorted(p.name for p in cache.iterdir()) == ["chunk-00000.npz", "meta.json"]


def _same(a: list, b: list) -> bool:
    def eq(x: float, y: float) -> bool:
        return (math.isnan(x) and math.isnan(y)) or abs(x - y) < 1e-6

    return len(a) == len(b) and all(
        eq(sa, sb) and len(aa) == len(ab) and all(eq(x, y) for x, y in zip(aa, ab, strict=True))
        for (aa, sa), (ab, sb) in zip(a, b, strict=True)
    )


def test_the_student_moves_toward_the_teacher(
    teacher_dir: Path, tiny_trainer_dir: Path, tmp_path: Path
) -> None:
    from models.training.distill import SoftPredictor, agreement, distill, teacher_labels

    pool = _pool()
    soft = teacher_labels(teacher_dir, pool, tmp_path / "labels", device="cpu")
    # the teacher is far from uniform, so agreeing with it is something to learn
    arcs = [p for a, _ in soft for p in a if not math.isnan(p)]
    assert max(arcs) - min(arcs) > 0.5
    before = agreement(SoftPredictor(tiny_trainer_dir, device="cpu").predict(pool), soft)
    student = distill(
        pool, soft, base_dir=tmp_path / "unused", out_dir=tmp_path / "student",
        init_dir=tiny_trainer_dir, temperature=2.0, gold_weight=0.0, max_length=64,
        max_epochs=5, batch_size=4, lr=3e-3, device="cpu",
    )  # fmt: skip
    after = agreement(SoftPredictor(student, device="cpu").predict(pool), soft)
    assert after["kl"] < 0.5 * before["kl"]
    assert after["arc_gap"] < before["arc_gap"] and after["support_gap"] < before["support_gap"]
    config = json.loads((student / "config.json").read_text())
    assert config["training"]["distilled"] == {"temperature": 2.0, "gold_weight": 0.0}
    assert config["encoder"]["hidden_size"] == 32  # the student keeps its own (BERT) shape


def test_the_distillation_loss_ignores_missing_targets_and_scales_with_temperature() -> None:
    from models.training.train import soft_loss

    logits = torch.tensor([[0.0, 2.0], [1.0, -1.0], [0.0, 0.0]])
    target = torch.tensor([0.9, float("nan"), 0.5])
    loss = soft_loss(logits, target, 1.0)
    expected = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor([2.0, 0.0]), torch.tensor([0.9, 0.5])
    )
    assert float(loss) == pytest.approx(float(expected), rel=1e-5)
    assert soft_loss(logits, torch.full((3,), float("nan")), 1.0) is None
    # at a temperature the student's and teacher's margins are both softened, and T² restores scale
    t2 = soft_loss(logits, target, 2.0)
    p = torch.sigmoid(torch.logit(torch.tensor([0.9, 0.5])) / 2.0)
    ref = torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor([1.0, 0.0]), p) * 4
    assert float(t2) == pytest.approx(float(ref), rel=1e-5)


def test_pool_builders_keep_unlabelled_inputs() -> None:
    from models.training.data import SummaryRecord, TextPair, split_of
    from models.training.distill import (
        dedupe,
        reverse_pair_examples,
        unlabelled_summary_examples,
    )
    from models.training.examples import ParseCache

    cache = ParseCache(None)
    pairs = [
        TextPair("snli", str(n), f"The {w} council approved the budget. It met on Monday.",
                 "The council met.", "entailment")
        for n, w in enumerate(["new", "old", "city", "town", "county", "state"])
    ]  # fmt: skip
    reverse = reverse_pair_examples(pairs, cache, "train")
    assert reverse and all(e.evidence == "The council met." for e in reverse)
    assert all(e.support == -1 and set(e.arc_y) == {-1} and e.arcs for e in reverse)
    assert len(reverse_pair_examples(pairs, cache, "train", limit=1)) == 2  # two sentences
    records = [
        SummaryRecord("xsumfaith", f"doc{n}", "sys", "The council approved the budget on Monday. "
                      "The mayor spoke.", "The council approved it. The mayor left.", None)
        for n in range(6)
    ]  # fmt: skip
    summaries = unlabelled_summary_examples(
        records, cache, "train", max_length=64, count_tokens=lambda t: len(t.split()),
        retriever=None,
    )  # fmt: skip
    trained = [r for r in records if split_of(r.doc_id) == "train"]
    assert len(summaries) == 2 * len(trained) > 0
    assert {e.sentence for e in summaries} == {"The council approved it.", "The mayor left."}
    assert all(e.support == -1 and set(e.arc_y) == {-1} for e in summaries)
    labelled = replace(summaries[0], support=1)
    kept = dedupe([labelled, *summaries])
    assert len(kept) == len(set((e.evidence, e.sentence) for e in summaries))
    assert kept[0].support == 1
