"""Word-piece alignment, label vocabulary and batching."""

from __future__ import annotations

from models.encoding import ArcSlot, LabelVocab, collate, encode_pair, load_tokenizer
from tests.models.conftest import tokenizer_json


def test_first_word_piece_alignment() -> None:
    tok = load_tokenizer(tokenizer_json())
    sentence = "Unbelievably, Hogwood conducted."
    arcs = [ArcSlot((22, 31), (14, 21), "nsubj"), ArcSlot((22, 31), (0, 12), "advmod")]
    enc = encode_pair(tok, "Some evidence here.", sentence, arcs, LabelVocab(["nsubj"]), 64)
    full = tok.encode("Some evidence here.", sentence)
    # The head "conducted" and child "Hogwood" point at their first pieces in the 2nd sequence.
    for slot, h, c in zip(arcs, enc.arc_head, enc.arc_child, strict=True):
        assert full.sequence_ids[h] == 1 and full.sequence_ids[c] == 1
        assert full.offsets[h][0] == slot.head[0]
        assert full.offsets[c][0] == slot.child[0]
        # first piece: no earlier piece of the same word
        assert not any(
            full.sequence_ids[j] == 1 and slot.child[0] <= full.offsets[j][0] < slot.child[1]
            for j in range(c)
        )
    assert enc.arc_label == (2, 0)  # "nsubj" after the two buckets; "advmod" -> other


def test_truncation_cuts_evidence_not_sentence() -> None:
    tok = load_tokenizer(tokenizer_json())
    sentence = "The cat sat."
    enc = encode_pair(
        tok, "word " * 200, sentence, [ArcSlot((8, 11), (4, 7), "nsubj")], LabelVocab([]), 32
    )
    assert len(enc.ids) == 32
    assert enc.arc_head[0] >= 0 and enc.arc_child[0] >= 0


def test_prep_labels_share_a_bucket() -> None:
    vocab = LabelVocab(["nsubj", "prep_of"])
    assert vocab.index("prep_of") != vocab.index("prep_zzz")
    assert vocab.labels[vocab.index("prep_zzz")] == "prep_other"
    assert vocab.labels[vocab.index("weird")] == "other"


def test_collate_pads() -> None:
    tok = load_tokenizer(tokenizer_json())
    v = LabelVocab([])
    a = encode_pair(tok, "a b c", "d e", [], v, 32)
    b = encode_pair(tok, "a", "d e f g", [ArcSlot((0, 1), (2, 3), "x")] * 3, v, 32)
    batch = collate([a, b])
    assert batch["input_ids"].shape == (2, max(len(a.ids), len(b.ids)))
    assert batch["arc_head"].shape == (2, 3)
    assert batch["attention_mask"][0].sum() == len(a.ids)


def test_a_shared_tokenizer_is_loaded_once_per_file_and_length(tmp_path) -> None:  # noqa: ANN001
    import shutil

    from models.encoding import shared_tokenizer

    path = tmp_path / "tokenizer.json"
    shutil.copyfile(tokenizer_json(), path)
    whole = shared_tokenizer(path)
    assert shared_tokenizer(path) is whole
    cut = shared_tokenizer(path, 12)
    assert cut is not whole and shared_tokenizer(path, 12) is cut
    long = " ".join(["word"] * 40)
    assert len(whole.encode(long, "short one").ids) > 40  # not truncated
    ids = cut.encode(long, "short one")
    assert len(ids.ids) == 12 and "short" in ids.tokens  # the longer text gave way
    text = path.read_text()
    path.write_text(text + " ")  # written again in place: read anew
    assert shared_tokenizer(path) is not whole
