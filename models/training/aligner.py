"""Build the bundled aligner: the base encoder cut at one layer, int8 ONNX, idf table, calibration.

``python -m models.training.aligner --data ../shared/data [--layer L] [--out DIR]`` exports
all-MiniLM-L6-v2's first ``L`` layers with L2-normalised word-piece states as the one output,
computes word-piece idf over the training-side source documents, and fits the two calibration
maps (sentence support, word support) on training-side labelled summaries only:

* sentence map: a logistic fit of the pair label on the pair's lowest sentence precision, so that
  0.5 sits where faithful and unfaithful outputs are best told apart;
* word map: the same slope, centred at the word similarity that best separates the words the
  XSumFaith annotators marked (majority) from the rest, on the training split.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.aligner import CONFIG_FILE, IDF_FILE, KIND, MODEL_FILE, TOKENIZER_FILE
from models.resources import resources_dir

Log = Callable[[str], None]


def export_token_encoder(
    base_dir: Path, out_dir: Path, layer: int, *, quantize: bool = True
) -> Path:
    """Write ``model.onnx``: input ids/mask/types → ``token_states`` of ``layer``, unit length."""
    import torch
    from transformers import AutoModel

    from models.training.export import export_encoder_graph

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    encoder = AutoModel.from_pretrained(str(base_dir), local_files_only=True).eval()
    if not 1 <= layer <= len(encoder.encoder.layer):
        raise ValueError(f"layer {layer} is outside 1..{len(encoder.encoder.layer)}")
    # Layers above the chosen one are never needed: drop them from the exported graph.
    encoder.encoder.layer = encoder.encoder.layer[:layer]
    encoder.config.num_hidden_layers = layer

    class States(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            states = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            return torch.nn.functional.normalize(states, p=2, dim=-1)

    return export_encoder_graph(
        States().eval(),
        base_dir,
        out_dir,
        "token_states",
        {0: "batch", 1: "seq"},
        quantize=quantize,
    )


def idf_table(
    documents: Sequence[str], tokenize: Callable[[str], list[int]], vocab: int
) -> np.ndarray:
    """Word-piece idf ``log((N + 1) / (df + 1))`` over documents; unseen pieces get the maximum."""
    df: Counter[int] = Counter()
    for d in documents:
        df.update(set(tokenize(d)))
    n = len(documents)
    table = np.full(vocab, math.log(n + 1), np.float32)
    for piece, count in df.items():
        if 0 <= piece < vocab:
            table[piece] = math.log((n + 1) / (count + 1))
    return table


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """1-D logistic fit ``p = σ(scale · (x − centre))``; returns scale and centre."""
    from models.training.logistic import fit

    x = np.asarray(x, np.float64)
    mu, sd = float(x.mean()), float(x.std()) or 1.0
    w, b = fit(((x - mu) / sd)[:, None], np.asarray(y), l2=1e-4, balanced=True)
    scale = float(w[0]) / sd
    centre = mu - b * sd / float(w[0]) if w[0] else mu
    return scale, float(centre)


def best_split(values: np.ndarray, positive: np.ndarray) -> float:
    """The cut that maximises balanced accuracy of ``values < cut`` for ``positive``."""
    from models.evaluation import balanced_accuracy

    cands = np.quantile(values, np.linspace(0.02, 0.98, 97))
    scores = [balanced_accuracy(positive, values < c) for c in cands]
    return float(cands[int(np.argmax(scores))])


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.aligner")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--layer", type=int, default=3)
    parser.add_argument("--idf", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--out", type=Path, default=resources_dir() / "models" / "aligner")
    parser.add_argument("--work", type=Path, default=Path("build/training"))
    parser.add_argument(
        "--calibrate-only",
        action="store_true",
        help="refit the calibration of the aligner already in --out (no export)",
    )
    args = parser.parse_args(argv)
    if args.calibrate_only:
        recalibrate(args.data, args.out, work=args.work, log=print)
    else:
        build(args.data, args.out, layer=args.layer, use_idf=args.idf, work=args.work, log=print)
    return 0


def recalibrate(data_dir: Path, model_dir: Path, *, work: Path, log: Log = print) -> dict[str, Any]:
    """Refit the calibration of an exported aligner in place (its weights are unchanged)."""
    from models.training.calibration_data import training_side_records

    config = json.loads((model_dir / CONFIG_FILE).read_text("utf-8"))
    fitted = fit_calibration(model_dir, training_side_records(data_dir), work, log)
    return _finish(model_dir, config, fitted, log)


def _finish(
    model_dir: Path, config: dict[str, Any], fitted: dict[str, float], log: Log
) -> dict[str, Any]:
    """Write the fitted calibration and a version naming both weights and calibration."""
    from models.training.export import file_hash

    config = dict(config, **fitted)
    config["version"] = (
        file_hash(model_dir / MODEL_FILE) + "-" + _short_hash(json.dumps(fitted, sort_keys=True))
    )
    _write_config(model_dir, config)
    log(f"aligner calibration in {model_dir}: {json.dumps(fitted)}")
    return config


def build(
    data_dir: Path, out_dir: Path, *, layer: int, use_idf: bool, work: Path, log: Log = print
) -> dict[str, Any]:
    """Export, idf and calibration; returns the written config."""
    from models.training.base_encoders import resolve_base

    base = resolve_base("minilm")
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    export_token_encoder(base, tmp, layer)
    from models.encoding import load_tokenizer
    from models.training.calibration_data import training_side_records

    tok = load_tokenizer(tmp / TOKENIZER_FILE)
    records = training_side_records(data_dir)
    docs = sorted({r.document for r in records})
    table = idf_table(
        docs, lambda t: tok.encode(t, add_special_tokens=False).ids, tok.get_vocab_size()
    )
    np.save(tmp / IDF_FILE, table.astype(np.float16))
    config: dict[str, Any] = {
        "kind": KIND,
        "base": "sentence-transformers/all-MiniLM-L6-v2",
        "layer": layer,
        "window": 254,
        "stride": 192,
        "use_idf": use_idf,
        "idf_documents": len(docs),
        # neutral until fitted below
        "sentence_scale": 1.0,
        "sentence_centre": 0.0,
        "word_scale": 1.0,
        "word_centre": 0.0,
    }
    _write_config(tmp, config)
    config = _finish(tmp, config, fit_calibration(tmp, records, work, log), log)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp.replace(out_dir)
    log(f"aligner written to {out_dir}")
    return config


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode()).hexdigest()[:6]


def _write_config(path: Path, config: dict[str, Any]) -> None:
    (path / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")


def fit_calibration(
    model_dir: Path, records: Sequence[Any], work: Path, log: Log
) -> dict[str, float]:
    """Sentence and word calibration of a freshly exported aligner on training-side records."""
    from models.checkers.align import AlignChecker
    from models.checkers.base import PairInput
    from models.training.calibration_data import parse_cache
    from models.training.labels import majority_chars

    checker = AlignChecker(model_dir, device="cpu")
    cache = parse_cache(work)
    labelled = [r for r in records if r.faithful is not None]
    docs = cache.parse([r.document for r in labelled], log)
    outs = cache.parse([r.summary for r in labelled], log)
    cache.save()
    log(f"aligner calibration on {len(labelled)} training-side outputs")
    batch = [PairInput(i, d, o) for i, (d, o) in enumerate(zip(docs, outs, strict=True))]
    x, y, word_raw, word_bad = [], [], [], []
    for r, item in zip(labelled, batch, strict=True):
        raws = checker.raw(item)
        checked = [s.precision for s in raws if s.precision is not None]
        if checked:  # the pair score is the lowest sentence score
            x.append(min(checked))
            y.append(r.faithful)
        if r.spans is None or r.dataset != "xsumfaith":
            continue
        # Words: XSumFaith training split, majority-marked words vs the rest.
        marked = majority_chars(r.spans, 2)
        for s, raw in zip(item.output.sentences, raws, strict=True):
            for t, v in zip(s.tokens, raw.words, strict=False):
                if t.pos == "PUNCT":
                    continue
                word_raw.append(v)
                word_bad.append(any(t.start < b and a < t.end for a, b in marked))
    scale, centre = fit_logistic(np.asarray(x), np.asarray(y))
    word_centre = best_split(np.asarray(word_raw), np.asarray(word_bad, bool))
    return {
        "sentence_scale": scale,
        "sentence_centre": centre,
        "word_scale": scale,
        "word_centre": word_centre,
        "calibration_outputs": len(x),
        "calibration_words": len(word_raw),
    }


if __name__ == "__main__":
    sys.exit(main())
