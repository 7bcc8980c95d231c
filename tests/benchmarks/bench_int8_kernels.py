"""The NLI graph's matrix products in four forms on this CPU: speed, and what each does to the
model's probabilities (prints).

    python tests/benchmarks/bench_int8_kernels.py [--pairs 300] [--model-dir DIR] [--repeats 7]

The reference is the weight-only int8 graph (``models.training.export.weight_only``): int8
weights times float inputs, which onnxruntime fuses into its 8-bit ``MatMulNBits`` kernel (the
input rounded per block of 32 values of a row). The bundled graphs were in that form until the
thirty-fourth session converted them to int8 rows with outliers in float (the last form below);
when ``--model-dir`` holds a converted graph, the weight-only one is read from the last commit
that bundled it (``git show``; a clone with its history). Beside that reference, the other forms
of the same weights are built in a temporary folder and timed on one unpadded input of 40 and of
250 word-pieces (the app's shapes: claims alone, and evidence windows), median of ``--repeats``:

- fp32: the int8 weights expanded to float once (the float model on the int8-rounded weights);
- int8 rows: each product's input rounded to int8 row by row, on its own scale (max |x| / 127),
  and multiplied in the integer kernel (``MatMulInteger``, u8s8, exact with VNNI or AMX). A
  row's numbers stay its own, as with the weight-only graph;
- int8 rows with outliers in float: the same, but the 0.5% of each product input's channels
  with the largest values (over 32 training-side inputs: WANLI training pairs, alone and with
  five premises joined) are taken out of the rounded rows and multiplied in float. Transformer
  inputs carry a few channels far larger than the rest; rounded in, they coarsen every other
  value of the row.

Then ``--pairs`` MultiNLI dev-matched pairs (never trained on) through each form, one at a time as
the app reads them: three-way accuracy, and how far the probabilities move from the weight-only
graph's (mean and largest |dP|, how often the top class changes). The figures decide whether a
faster kernel is worth what it moves; docs/history.md (thirtieth and thirty-first sessions) has the
runs, where int8 rows ran twice as fast on an Intel Xeon with AMX and cost the held-out summary
ranking 1.7 points on the 300-item samples (`bench_combiner.py --limit 300`), and rows with
outliers in float cost none of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.training.int8_rows import stored_weights  # noqa: E402

# the last commit whose bundled NLI graph was weight-only int8
WEIGHT_ONLY_COMMIT = "3ab06881edaf92c1fd883f4fb4fcf1f6110fcc3f"


def expanded_fp32(model: Any) -> int:
    """Replace each stored int8 weight's ``DequantizeLinear`` by the float weight (in place)."""
    from onnx import numpy_helper

    inits = {t.name: t for t in model.graph.initializer}
    dqs = {id(dq): dq for *_, dq in stored_weights(model).values()}
    for dq in dqs.values():
        weight, scale, zero = (numpy_helper.to_array(inits[n]) for n in dq.input)
        value = (weight.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)
        model.graph.initializer.append(numpy_helper.from_array(value, dq.output[0]))
    kept = [n for n in model.graph.node if id(n) not in dqs]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    return len(dqs)


def build_forms(
    model_file: Path, folder: Path, calibration: list[dict[str, np.ndarray]]
) -> dict[str, Path]:
    """The weight-only graph and the other forms, written to ``folder``; ``calibration``: the
    inputs whose largest values choose the outlier channels."""
    import onnx

    from models.training.int8_rows import OUTLIER_SHARE, input_maxima, int8_rows, outliers_in_float

    maxima = input_maxima(onnx.load(str(model_file)), calibration) if calibration else {}
    forms = {"weight-only int8": model_file}
    rewrites = [("fp32", expanded_fp32), ("int8 rows", int8_rows)]
    if maxima:
        rewrites.append(
            (
                f"int8 rows, {100 * OUTLIER_SHARE:g}% in float",
                lambda m: outliers_in_float(m, maxima, OUTLIER_SHARE),
            )
        )
    for name, rewrite in rewrites:
        model = onnx.load(str(model_file))
        count = rewrite(model)
        onnx.checker.check_model(model)
        forms[f"{name} ({count} products)"] = folder / f"form{len(forms)}.onnx"
        onnx.save(model, str(forms[f"{name} ({count} products)"]))
    return forms


def calibration_feeds(tokenizer: Any, data_dir: Path, count: int = 16) -> list[dict[str, Any]]:
    """Inputs that choose the outlier channels, from the training side (never evaluated on):
    ``count`` pairs of WANLI's training sample, and as many again with five premises joined
    (the length of the app's evidence windows)."""
    from models.readable import readable

    with (data_dir / "nli" / "wanli_train_sample.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    rng = np.random.default_rng(5)
    picked = [rows[i] for i in rng.choice(len(rows), 6 * count, replace=False)]
    texts = [(r["premise"], r["hypothesis"]) for r in picked[:count]]
    texts += [
        (" ".join(r["premise"] for r in picked[count + 5 * i : count + 5 * i + 5]), h)
        for i, (_, h) in enumerate(texts)
    ]
    feeds = []
    for premise, hypothesis in texts:
        e = tokenizer.encode(readable(premise), readable(hypothesis))
        ids = np.asarray([e.ids[:256]], np.int64)
        feeds.append(
            {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([e.type_ids[:256]], np.int64),
            }
        )
    return feeds


def weight_only_graph(model_file: Path, folder: Path) -> Path | None:
    """``model_file`` when it holds weight-only int8 products; else the bundled NLI graph of
    ``WEIGHT_ONLY_COMMIT`` written to ``folder`` (None, with a message, where git cannot)."""
    import subprocess

    import onnx

    if stored_weights(onnx.load(str(model_file))):
        return model_file
    rel = "resources/models/nli/model.onnx"
    out = folder / "weight_only.onnx"
    with out.open("wb") as fh:
        done = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{WEIGHT_ONLY_COMMIT}:{rel}"],
            stdout=fh,
            stderr=subprocess.PIPE,
            check=False,
        )
    if done.returncode != 0:
        print(
            f"{model_file}: converted already, and the weight-only graph ({rel} at "
            f"{WEIGHT_ONLY_COMMIT[:7]}) cannot be read: {done.stderr.decode().strip()}"
        )
        return None
    print(f"{model_file}: converted; the reference is {rel} at {WEIGHT_ONLY_COMMIT[:7]}")
    return out


def _feed(session: Any, ids: list[int], types: list[int]) -> dict[str, np.ndarray]:
    arr = np.asarray([ids], np.int64)
    feed = {
        "input_ids": arr,
        "attention_mask": np.ones_like(arr),
        "token_type_ids": np.asarray([types], np.int64),
    }
    wanted = {i.name for i in session.get_inputs()}
    return {k: v for k, v in feed.items() if k in wanted}


def main(argv: list[str] | None = None) -> int:
    from tokenizers import Tokenizer

    from models.readable import readable
    from models.runtime import _load_session
    from models.training.data import default_data_dir
    from models.training.nli_data import BENCHMARK_MNLI, held_out

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, default=REPO / "resources" / "models" / "nli")
    ap.add_argument("--pairs", type=int, default=300, help="MultiNLI dev-matched pairs (0: none)")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    model_file = args.model_dir / "model.onnx"
    if not model_file.is_file():
        print(f"{model_file}: no NLI model here")
        return 1
    config = json.loads((args.model_dir / "config.json").read_text(encoding="utf-8"))
    labels = {str(v).lower(): int(k) for k, v in config["id2label"].items()}
    tokenizer = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    with tempfile.TemporaryDirectory() as tmp:
        # the optimised copies of these temporary graphs go with them, not to the user's cache
        os.environ["FACTDESK_CACHE_DIR"] = str(Path(tmp) / "cache")
        model_file = weight_only_graph(model_file, Path(tmp))
        if model_file is None:
            return 1
        forms = build_forms(model_file, Path(tmp), calibration_feeds(tokenizer, default_data_dir()))
        sessions = {
            name: _load_session(path, ["CPUExecutionProvider"]) for name, path in forms.items()
        }
        names = [o.name for o in next(iter(sessions.values())).get_outputs()]
        output = "probs" if "probs" in names else names[0]
        rng = np.random.default_rng(0)
        print(f"{model_file}: one unpadded input at a time, median of {args.repeats} (ms)")
        print(f"{'form':44} {'40 word-pieces':>15} {'250 word-pieces':>16}")
        reference: list[float] = []
        for name, session in sessions.items():
            row = []
            for length in (40, 250):
                ids = [0, *rng.integers(1000, 20000, length - 2).tolist(), 2]
                feed = _feed(session, ids, [0] * length)
                session.run([output], feed)
                times = []
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    session.run([output], feed)
                    times.append(1000 * (time.perf_counter() - t))
                row.append(statistics.median(times))
            reference = reference or row
            ratio = " / ".join(f"{r / b:.2f}" for r, b in zip(row, reference, strict=True))
            print(
                f"{name:44} {row[0]:15.0f} {row[1]:16.0f}   "
                f"(time {ratio} of the weight-only graph's)"
            )
        if not args.pairs:
            return 0
        pairs = held_out(default_data_dir(), BENCHMARK_MNLI, args.pairs, 7)
        gold = np.array([labels[p.label] for p in pairs])
        probs: dict[str, np.ndarray] = {}
        for name, session in sessions.items():
            rows = []
            for p in pairs:
                e = tokenizer.encode(readable(p.premise), readable(p.hypothesis))
                rows.append(session.run([output], _feed(session, e.ids, e.type_ids))[0][0])
            probs[name] = np.array(rows)
        base = probs[next(iter(probs))]
        print(f"\n{len(pairs)} MultiNLI dev-matched pairs (reference: the weight-only graph)")
        for name, p in probs.items():
            moved = np.abs(p - base)
            print(
                f"{name:44} accuracy {100 * (p.argmax(1) == gold).mean():.2f}   "
                f"|dP| mean {moved.mean():.4f} max {moved.max():.3f}   "
                f"top class changed {100 * (p.argmax(1) != base.argmax(1)).mean():.1f}%"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
