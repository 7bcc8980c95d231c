"""The ``factdesk`` command line.

Public forms (scripts rely on them): ``new``, ``import``, ``analyze``, ``score``, ``export``,
``stats``, ``merge``, ``agreement``, ``familiarity``, ``report``, ``calibrate``, ``adapt``,
``demo``, ``open``, ``eval``; no subcommand opens the window. ``--json`` on import, analyze and
stats prints one JSON object on stdout. Errors exit non-zero with a one-line reason on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from models.errors import FactDeskError, InputError


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:
        # eval's own parser reads its options (argparse's REMAINDER refuses a leading --option)
        args = argparse.Namespace(func=_cmd_eval, rest=argv[1:], project=None)
    else:
        args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except FactDeskError as exc:
        print(f"factdesk: error: {_describe(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.: not an error of ours
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file we were asked to read or write: say which and why
        where = exc.filename if exc.filename is not None else getattr(args, "project", None)
        print(f"factdesk: error: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"factdesk: interrupted; {_INTERRUPTED.get(args.func, '')}".rstrip("; "),
            file=sys.stderr,
        )
        return 130


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="factdesk", description="Check machine-written text against its source."
    )
    p.set_defaults(func=_cmd_window, project=None)
    sub = p.add_subparsers(title="commands")

    c = sub.add_parser("new", help="create an empty project file")
    c.add_argument("project")
    c.set_defaults(func=_cmd_new)

    c = sub.add_parser("import", help="import pairs from JSONL, CSV or TSV")
    c.add_argument("project")
    c.add_argument("file")
    c.add_argument("--format", choices=["jsonl", "csv", "tsv"])
    c.add_argument("--source-field")
    c.add_argument("--output-field")
    c.add_argument("--id-field")
    c.add_argument("--system-field")
    c.add_argument("--context-field")
    c.add_argument(
        "--skip-invalid", action="store_true", help="import valid records, report the rest"
    )
    c.add_argument(
        "--max-field-chars",
        type=int,
        default=None,
        help="longest text accepted in a field (default: the importer's limit)",
    )
    c.add_argument(
        "--reviewer",
        help="name restored judgments without an annotator are recorded under "
        "(default: your user name)",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_import)

    c = sub.add_parser("analyze", help="score pairs that lack scores from the current checkers")
    c.add_argument("project")
    c.add_argument(
        "--checker",
        action="append",
        help="checker name (repeatable); default: the default checkers",
    )
    c.add_argument(
        "--model-dir", help="own model directory for checkers that take one (nli, dae, support)"
    )
    c.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    _engine_args(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_analyze)

    c = sub.add_parser(
        "score", help="score a JSON Lines corpus without a project, into files in the export format"
    )
    c.add_argument("input", help="a .jsonl file or a folder of them")
    c.add_argument("out", help="a folder of parts, or one .jsonl file")
    c.add_argument("--checker", action="append", help="checker name (repeatable)")
    c.add_argument("--model-dir", help="own model directory (nli, dae, support)")
    c.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    _engine_args(c)
    c.add_argument(
        "--pairs-per-part", type=int, default=10_000, help="records per output part (10,000)"
    )
    c.add_argument(
        "--skip-invalid", action="store_true", help="score valid records, report the rest"
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_score)

    c = sub.add_parser("export", help="export pairs, scores and judgments")
    c.add_argument("project")
    c.add_argument("out")
    c.add_argument(
        "--format", choices=["jsonl", "csv", "dae-arcs", "frank", "xsumfaith"], default="jsonl"
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_export)

    c = sub.add_parser(
        "merge", help="bring judgments from other project files or JSONL exports into TARGET"
    )
    c.add_argument("project", metavar="TARGET")
    c.add_argument("others", metavar="OTHER", nargs="+", help="project files or JSONL exports")
    c.add_argument(
        "--reviewer",
        help="who merges (audit log), and the reviewer of incoming judgments that name none "
        "(default: 'unnamed (FILE)')",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_merge)

    c = sub.add_parser(
        "agreement", help="reviewer agreement (kappa, alpha) per level and AIS stage, and vs model"
    )
    c.add_argument("project")
    c.add_argument("--checker", help="whose scores are the model's decisions (default: latest)")
    c.add_argument("--threshold", type=float, default=0.5, help="model flag threshold (0.5)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_agreement)

    c = sub.add_parser("stats", help="counts of pairs, sentences, arcs, scores and judgments")
    c.add_argument("project")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_stats)

    c = sub.add_parser(
        "familiarity", help="entities the outputs describe, familiar or not, and their errors"
    )
    c.add_argument("project")
    c.add_argument("--checker", help="whose arc scores give the verdicts (default: as shown)")
    c.add_argument("--threshold", type=float, default=0.5)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_familiarity)

    c = sub.add_parser("report", help="write the audit report: one self-contained HTML file")
    c.add_argument("project")
    c.add_argument("out")
    c.add_argument("--checker", help="the checker the report shows (default: as the window)")
    c.add_argument("--threshold", type=float, default=0.5)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_report)

    c = sub.add_parser("demo", help="analyse the bundled demo project and open it")
    c.add_argument(
        "--no-window", action="store_true", help="print the findings instead of opening the window"
    )
    c.add_argument("--reset", action="store_true", help="rebuild the demo project from scratch")
    c.add_argument("--project", help="where to keep the demo project")
    c.set_defaults(func=_cmd_demo)

    c = sub.add_parser("open", help="open a project in the window")
    c.add_argument("project")
    c.set_defaults(func=_cmd_window)

    from app.learning.cli import add_parsers as add_learning_parsers

    add_learning_parsers(sub)  # calibrate, adapt

    c = sub.add_parser("eval", help="measure the checkers on the shared evaluation data")
    c.add_argument("rest", nargs=argparse.REMAINDER)
    c.set_defaults(func=_cmd_eval)
    return p


# ---------------------------------------------------------------------- helpers
def _describe(exc: FactDeskError) -> str:
    """The one-line reason; an error about a whole file or record names no field."""
    if isinstance(exc, InputError) and (not exc.field or exc.field.startswith("__")):
        where = [str(x) for x in (exc.path,) if x is not None]
        if exc.line is not None:
            where.append(f"line {exc.line}")
        return f"{', '.join(where)}: {exc.reason}" if where else exc.reason
    return str(exc)


def _field_note(field: str | None) -> str:
    """ ", field 'x'" for a record's field; nothing for the record as a whole or the file."""
    if not field or field.startswith("__"):
        return ""
    return f", field '{field}'"


def _bar(desc: str, enabled: bool = True) -> tuple[Callable[..., None], Callable[[], None]]:
    """A tqdm progress bar on stderr, driven by ``(done, total)`` callbacks; ``what`` (a third
    argument) names the stage in the bar ("analysing the demo: Parsing")."""
    from tqdm import tqdm

    bar: Any = None

    def update(done: int, total: int, what: str | None = None) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(
                total=total,
                desc=desc,
                unit="pair",
                file=sys.stderr,
                disable=not enabled,
                leave=False,
                initial=done,  # work done before the first report does not inflate the rate
            )
        if what is not None:
            bar.set_description_str(f"{desc}: {what}", refresh=False)
            bar.total = total or None  # each stage counts its own pairs; 0: not known
        bar.n = done
        bar.refresh()

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(
        json.dumps(data, ensure_ascii=False, default=str) if getattr(args, "json", False) else text
    )


# ---------------------------------------------------------------------- commands
def _cmd_new(args: argparse.Namespace) -> int:
    from app.store import Project

    project = Project.create(args.project)
    project.close()
    print(f"created {project.path}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from app.io.importer import import_file
    from app.io.records import MAX_FIELD_CHARS, FieldMapping
    from app.store import Project

    mapping = FieldMapping(
        source=args.source_field,
        output=args.output_field,
        id=args.id_field,
        system=args.system_field,
        context=args.context_field,
    )
    if args.max_field_chars is not None and args.max_field_chars <= 0:
        raise FactDeskError(
            f"--max-field-chars must be a positive number of characters, not {args.max_field_chars}"
        )
    with Project.open(args.project) as project:
        if args.reviewer is not None:
            project.set_annotator(args.reviewer)
        project.refuse_output(args.file, action="import")
        update, close = _bar("importing", not args.json)
        try:
            report = import_file(
                project,
                args.file,
                fmt=args.format,
                mapping=mapping,
                skip_invalid=args.skip_invalid,
                max_field_chars=(
                    MAX_FIELD_CHARS if args.max_field_chars is None else args.max_field_chars
                ),
                progress=update,
            )
        except RecursionError as exc:  # json gives up on very deep nesting
            raise InputError(
                "a JSON record is nested too deeply to read; nothing was imported", path=args.file
            ) from exc
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
            raise InputError(
                "a JSON record holds an integer with more than 4,300 digits; nothing was imported",
                path=args.file,
            ) from exc
        finally:
            close()
    lines = [f"imported {report.imported} pairs from {args.file}"]
    if report.restored_pairs:
        lines.append(f"restored analysis and judgments of {report.restored_pairs} pairs")
    if report.duplicates:
        lines.append(f"{len(report.duplicates)} duplicates not imported again:")
        lines += [
            f"  line {d.line}: {d.reason}" + (f" ({d.id})" if d.id else "")
            for d in report.duplicates[:20]
        ]
        if len(report.duplicates) > 20:
            lines.append(f"  ... and {len(report.duplicates) - 20} more (see --json)")
    if report.skipped:
        lines.append(f"{len(report.skipped)} invalid records skipped:")
        lines += [f"  line {p.line}{_field_note(p.field)}: {p.reason}" for p in report.skipped]
    _emit(args, report.to_json(), "\n".join(lines))
    return 0


def load_checkers(
    names: Sequence[str] | None, *, device: str = "auto", model_dir: str | None = None
) -> list[Any]:
    from app.analysis import load_checkers as load

    return list(load(names, device=device, model_dir=model_dir))


def _engine_args(c: argparse.ArgumentParser) -> None:
    """--engine and its settings (analyze, score)."""
    c.add_argument(
        "--engine",
        choices=["local", "ray"],
        default="local",
        help="where to score: this process, or Ray workers (the 'ray' extra)",
    )
    c.add_argument("--address", help="Ray cluster to use (default: start one on this machine)")
    c.add_argument("--workers", type=int, help="Ray scoring workers (default: one per CPU)")
    c.add_argument(
        "--shard-size", type=int, default=32, help="pairs scored and written together (32)"
    )


def _engine(
    args: argparse.Namespace,
) -> contextlib.AbstractContextManager[tuple[Callable[..., Any], list[Any]]]:
    """The analysis to run, ``run(project, progress=, report=)``, here or on Ray workers, and
    the checkers it runs (name, version)."""
    if args.shard_size < 1:
        raise FactDeskError(f"--shard-size must be at least 1, not {args.shard_size}")
    if args.engine == "ray":
        from app.engines.ray_engine import ray_analysis

        return ray_analysis(
            args.checker,
            address=args.address,
            workers=args.workers,
            device=args.device,
            model_dir=args.model_dir,
            chunk_size=args.shard_size,
        )
    if args.address is not None or args.workers is not None:
        raise FactDeskError("--address and --workers go with --engine ray")
    from app.analysis import analyze

    checkers = load_checkers(args.checker, device=args.device, model_dir=args.model_dir)
    return contextlib.nullcontext(
        (functools.partial(analyze, checkers=checkers, chunk_size=args.shard_size), checkers)
    )


def _cmd_analyze(args: argparse.Namespace) -> int:
    from app.analysis import AnalysisReport
    from app.store import Project

    report = AnalysisReport()
    with _engine(args) as (run, _checkers), Project.open(args.project) as project:
        update, close = _bar("analysing", not args.json)
        try:
            run(project, progress=update, report=report)
        except KeyboardInterrupt:
            if args.json:  # scripts get their object on Ctrl-C too
                _emit(args, report.to_json(), "")
            raise
        finally:
            close()
    lines = []
    for c in report.checkers:
        lines.append(
            f"{c.display_name} ({c.name} {c.version}): scored {c.scored} pairs, "
            f"{c.already_scored} already scored, {c.not_checked_sentences} of {c.sentences} sentences not checked"
        )
    if report.left_to_others:
        lines.append(
            f"{len(report.left_to_others)} pairs left to another analysis of this project "
            "running at the same time"
        )
    for n in report.not_checked_pairs:
        lines.append(f"not checked: {n.external_id}: {n.reason}")
    if report.cancelled:
        lines.append("cancelled: finished pairs are saved; run analyze again to resume")
    _emit(args, report.to_json(), "\n".join(lines))
    return 1 if report.cancelled else 0


def _cmd_score(args: argparse.Namespace) -> int:
    from app.corpus import score_corpus

    with _engine(args) as (run, checkers):
        update, close = _bar("scoring", not args.json)
        try:
            report = score_corpus(
                args.input,
                args.out,
                run,
                settings={"checkers": [f"{c.name} {c.version}" for c in checkers]},
                pairs_per_part=args.pairs_per_part,
                skip_invalid=args.skip_invalid,
                progress=update,
            )
        finally:
            close()
    lines = [
        f"scored {report.pairs_scored} pairs into {report.out} ({report.parts} parts, "
        f"{report.parts_done_before} done before); {report.not_checked_sentences} sentences "
        f"and {report.not_checked_pairs} pairs not checked"
    ]
    if report.duplicates:
        lines.append(f"{report.duplicates} duplicate records not scored again")
    lines += [
        f"skipped {args.input} line {p.line}{_field_note(p.field)}: {p.reason}"
        for p in report.skipped
    ]
    _emit(args, report.to_json(), "\n".join(lines))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from app.io.exporter import export
    from app.store import Project

    out = Path(args.out)
    if out.is_dir():
        raise InputError("is a folder; give a file name to export to", path=args.out)
    if not out.absolute().parent.is_dir():
        raise InputError(f"no such folder {out.absolute().parent}", path=args.out)
    with Project.open(args.project) as project:
        project.refuse_output(args.out)
        try:
            n = export(project, args.out, fmt=args.format)
        except OSError as exc:  # disk full, no permission: the project itself is not touched
            raise InputError(
                f"cannot write the export ({exc.strerror or exc}); nothing was written",
                path=args.out,
            ) from exc
    _emit(
        args,
        {"written": n, "path": args.out, "format": args.format},
        f"wrote {n} records to {args.out}",
    )
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from app.io.merge import merge
    from app.store import Project

    with Project.open(args.project) as project:
        if args.reviewer is not None:
            project.set_annotator(args.reviewer)
        report = merge(project, args.others, unnamed=args.reviewer)
    _emit(args, report.to_json(), report.text())
    return 0


def _cmd_agreement(args: argparse.Namespace) -> int:
    from app.agreement import agreement, agreement_text
    from app.store import Project

    if not 0.0 <= args.threshold <= 1.0:
        raise FactDeskError(f"--threshold must be between 0 and 1, not {args.threshold}")
    with Project.open(args.project) as project:
        if args.checker is not None and args.checker not in project.current_versions():
            known = ", ".join(project.current_versions()) or "none (not analysed)"
            raise FactDeskError(
                f"{args.project}: no scores from checker {args.checker!r}; checkers: {known}"
            )
        result = agreement(project, checker=args.checker, threshold=args.threshold)
    _emit(args, result, agreement_text(result))
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from app.store import Project

    with Project.open(args.project) as project:
        st = project.stats()
    lines = [
        f"pairs {st['pairs']} (sources {st['sources']}, parsed {st['parsed_pairs']})",
        f"sentences {st['sentences']}, arcs {st['arcs']}, judgments {st['judgments']}",
    ]
    for name, info in st["checkers"].items():
        mean = info["mean_pair_score"]
        lines.append(
            f"{info['display_name']} ({name} {info['version']}): {info['scored_pairs']} pairs scored, "
            f"mean pair score {'-' if mean is None else f'{mean:.3f}'}, "
            f"{info['not_checked_sentences']} sentences not checked"
        )
        if info.get("runs_on"):
            lines.append(
                "  scored on "
                + ", ".join(f"{where} ({n} pairs)" for where, n in info["runs_on"].items())
            )
    if st["judgment_labels"]:
        lines.append(
            "judgments: " + ", ".join(f"{k} {v}" for k, v in st["judgment_labels"].items())
        )
    _emit(args, st, "\n".join(lines))
    return 0


def _cmd_familiarity(args: argparse.Namespace) -> int:
    from app.familiarity import analyse, describe
    from app.store import Project

    with Project.open(args.project) as project:
        update, close = _bar("finding entities", not args.json)
        try:
            report = analyse(
                project, checker=args.checker, threshold=args.threshold, progress=update
            )
        finally:
            close()
    _emit(args, report.to_json(), describe(report))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from app.report import write_report
    from app.store import Project

    out = Path(args.out)
    with Project.open(args.project) as project:
        update, close = _bar("finding entities", not args.json)
        try:
            write_report(
                project, out, checker=args.checker, threshold=args.threshold, progress=update
            )
        finally:
            close()
    _emit(args, {"path": args.out, "bytes": out.stat().st_size}, f"wrote the report to {args.out}")
    return 0


def print_findings(path: Path, threshold: float = 0.5) -> None:
    from app.io.bundles import iter_bundles, run_info
    from app.store import Project

    with Project.open(path) as project:
        runs = run_info(project)
        for b in iter_bundles(project):
            print(f"\n{b.output.external_id} [{b.output.system}]  {b.output.text}")
            for name, (pair, sents, arcs) in b.scores.items():
                label = runs[name]["display_name"]
                reason = getattr(pair, "reason", None)
                score = (
                    (f"not checked ({reason})" if reason else "not checked")
                    if pair.score is None
                    else f"{pair.score:.2f}"
                )
                print(f"  {label}: pair support {score}")
                by_id = {s.id: s for s in b.sentences}
                for sid, row in sents.items():
                    if row.not_checked:
                        print(f"    sentence {by_id[sid].idx + 1}: not checked ({row.not_checked})")
                    elif row.score is not None and row.score < threshold:
                        print(f"    sentence {by_id[sid].idx + 1}: low support {row.score:.2f}")
                    else:
                        continue
                    for line in (row.detail or "").splitlines():  # what the checker found
                        print(f"      {line}")
                weak = [a for a in b.arcs if arcs.get(a.id, 1.0) < threshold]
                if weak:
                    shown = ", ".join(
                        f"{a.head_text} -{a.label}-> {a.child_text}" for a in weak[:8]
                    )
                    print(f"    not entailed: {shown}" + (" ..." if len(weak) > 8 else ""))


def _has_display() -> bool:
    return bool(
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM")
        or sys.platform in ("win32", "darwin")
    )


def _cmd_demo(args: argparse.Namespace) -> int:
    from app.demo import demo_project_path, prepare_demo

    path = Path(args.project) if args.project else demo_project_path()
    update, close = _bar("preparing the demo")
    try:
        prepare_demo(
            path, reset=args.reset, step=lambda what, done, total: update(done, total, what)
        )
    finally:
        close()
    if args.no_window or not _has_display():
        if not args.no_window:
            print(
                "(no display found: printing the findings; run under a desktop or xvfb-run for the window)"
            )
        print_findings(path)
        print(f"\ndemo project: {path}")
        return 0
    return _window(str(path), demo=True)


def _cmd_window(args: argparse.Namespace) -> int:
    return _window(args.project)


def _window(project: str | None, *, demo: bool = False) -> int:
    from app.system_check import window_problem

    if problem := window_problem():  # missing X11 libraries: say which, before Qt aborts
        print(f"factdesk: error: {problem}", file=sys.stderr)
        return 2
    try:
        from app.gui.main import run
    except ImportError as exc:
        print(f"factdesk: error: the window cannot start: {exc}", file=sys.stderr)
        return 2
    return run(project, demo=demo)


def _cmd_eval(args: argparse.Namespace) -> int:
    from models.evaluation import main as eval_main

    return eval_main(args.rest)


# What an interrupted command leaves behind, said on Ctrl-C.
_INTERRUPTED: dict[Callable[[argparse.Namespace], int], str] = {
    _cmd_import: "nothing was imported (an import is all or nothing)",
    _cmd_analyze: "finished chunks are saved; run analyze again to resume",
    _cmd_export: "no export file was written",
    _cmd_report: "no report was written",
    _cmd_score: "finished parts and chunks are saved; run the same command again to resume",
    _cmd_demo: "finished work is saved; run demo again to resume",
}


if __name__ == "__main__":
    import multiprocessing

    # The packaged app is this script: a child process it spawns (app.process_job) starts here
    # and must run its job, not the command line.
    multiprocessing.freeze_support()
    sys.exit(main())
