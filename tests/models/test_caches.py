"""Training caches survive a killed run, and a model directory's version follows its content."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from models.checkers.nli import _fingerprint
from models.training import examples as ex
from models.training.examples import ParseCache, read_pickle, write_pickle


def test_killed_write_keeps_the_previous_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parse_cache.pkl"
    write_pickle(path, {"old": 1})

    def dies_halfway(obj: object, fh, protocol: int | None = None) -> None:
        fh.write(pickle.dumps(obj)[:5])
        raise KeyboardInterrupt  # the run is killed mid-write

    cache = ParseCache(path)
    cache._data["new"] = None  # type: ignore[assignment]
    cache._dirty = True
    monkeypatch.setattr(ex.pickle, "dump", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        cache.save()
    monkeypatch.undo()
    assert read_pickle(path) == {"old": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["parse_cache.pkl"]  # no part file left


def test_truncated_cache_is_rebuilt_not_loaded(tmp_path: Path) -> None:
    path = tmp_path / "parse_cache.pkl"
    write_pickle(path, {f"k{i}": "x" * 50 for i in range(100)})
    whole = path.read_bytes()
    for cut in (0, 1, len(whole) // 2, len(whole) - 1):
        path.write_bytes(whole[:cut])
        assert read_pickle(path) is None
        cache = ParseCache(path)
        assert cache.discarded and cache._data == {}
    cache.save()  # the unreadable file is replaced by a readable (empty) one
    assert read_pickle(path) == {"parser": None, "texts": {}}
    assert not ParseCache(path).discarded
    assert read_pickle(tmp_path / "absent.pkl") is None


def test_parse_cache_holds_one_parser_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import models.parsing

    version = ["v1"]
    parsed: list[str] = []

    def parse_many(texts: list[str], **_: object) -> list[str]:
        parsed.extend(texts)
        return [f"{version[0]}:{t}" for t in texts]

    monkeypatch.setattr(models.parsing, "pipeline_version", lambda: version[0])
    monkeypatch.setattr(models.parsing, "parse_many", parse_many)
    path = tmp_path / "parse_cache.pkl"
    cache = ParseCache(path)
    assert cache.parse(["a", "b"]) == ["v1:a", "v1:b"]
    cache.save()
    cache = ParseCache(path)
    assert cache.parse(["a"]) == ["v1:a"] and parsed == ["a", "b"]  # read back, not parsed
    version[0] = "v2"  # another way of cutting sentences: parsed anew
    assert cache.parse(["a"]) == ["v2:a"] and parsed == ["a", "b", "a"]
    cache.save()
    # the file keeps the new version's parses only, not "b" of the old one
    assert read_pickle(path) == {"parser": "v2", "texts": {ParseCache._key("a"): "v2:a"}}


def test_model_dir_fingerprint_hashes_content(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "config.json").write_text('{"id2label": {}}')
    (a / "model.safetensors").write_bytes(b"weights-1")
    (b / "model.safetensors").write_bytes(b"weights-2")  # same size, other bytes
    for d in (a, b):
        for f in d.iterdir():
            os.utime(f, (1_700_000_000, 1_700_000_000))  # same times too
    assert _fingerprint(a) != _fingerprint(b)
    (b / "model.safetensors").write_bytes(b"weights-1")  # a copy: same bytes, a new mtime
    assert _fingerprint(a) == _fingerprint(b)


def test_reproduce_rebuilds_a_truncated_examples_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import models.embedder
    import models.encoding
    import models.training.train
    from models.training import reproduce

    out = tmp_path / "out"
    out.mkdir()
    for name in ("config.json", "tokenizer.json"):  # a base encoder directory (never read here)
        (tmp_path / name).write_text("{}", encoding="utf-8")
    write_pickle(out / "examples.pkl", {"train": ["old"] * 50, "dev": []})
    (out / "examples.pkl").write_bytes((out / "examples.pkl").read_bytes()[:-3])  # killed run
    fresh = {"train": ["fresh"], "dev": []}
    trained: list[object] = []
    monkeypatch.setattr(models.embedder, "SentenceEmbedder", lambda *a, **k: None)
    monkeypatch.setattr(models.embedder, "EmbeddingRetriever", lambda *a, **k: None)
    monkeypatch.setattr(models.encoding, "load_tokenizer", lambda *a, **k: None)
    monkeypatch.setattr(ex, "build_all", lambda *a, **k: fresh)
    monkeypatch.setattr(reproduce, "compact", lambda examples: examples)  # strings stand in
    monkeypatch.setattr(
        models.training.train, "train", lambda examples, **k: trained.append(examples)
    )
    args = [
        "--stages",
        "train",
        "--out",
        str(out),
        "--base",
        str(tmp_path),
        "--data",
        str(tmp_path),
    ]
    reproduce.main([*args, "--bundle", str(tmp_path / "bundle"), "--train-minutes", "1"])
    assert trained == [["fresh"]]  # rebuilt, not loaded in part
    assert read_pickle(out / "examples.pkl") == fresh
