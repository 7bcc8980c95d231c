"""The ``factdesk`` command line.

Public forms (scripts rely on them): ``new``, ``import``, ``add``, ``remove``, ``check``,
``analyze``, ``score``, ``export``,
``stats``, ``merge``, ``agreement``, ``familiarity``, ``report``, ``calibrate``, ``adapt``,
``demo``, ``open``, ``eval``; no subcommand opens the window. ``--json`` prints one JSON object
on stdout. Errors exit non-zero (:data:`EXIT_CODES`) with a one-line reason on stderr, or with
``--json`` as ``{"error": reason, "code": exit code}`` on stdout; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from app.terminal import shown, shown_json
from app.thresholds import DEFAULT_THRESHOLD, check_threshold
from app.wording import counted
from models.errors import FactDeskError, InputError, UsageError

# What the exit status says (README, "Exit codes").
EXIT_CODES = {
    0: "done",
    1: "stopped before the end (analyze cancelled); finished work is kept",
    2: "refused or failed: bad input, a file that cannot be read or written, a bad option",
    3: "an internal error (a bug): please report it with the command that caused it",
    4: "checked, and a pair is flagged (check --exit-code)",
    130: "interrupted (Ctrl-C); what was finished is kept, as the message says",
}
# Arguments that name a file or folder: an empty one is refused by name.
_PATH_ARGS = ("project", "file", "out", "input", "source", "output")


class _Parser(argparse.ArgumentParser):
    """Says what argparse cannot read in one line, like every other error (not usage + exit)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv  # until the arguments are read
    args: argparse.Namespace | None = None
    try:
        if argv[:1] == ["eval"]:
            # eval's own parser reads its options (argparse's REMAINDER refuses a leading --option)
            args = argparse.Namespace(func=_cmd_eval, rest=argv[1:], project=None)
        else:
            args = _parser().parse_args(argv)
            as_json = bool(getattr(args, "json", False))
        _refuse_empty_names(args)
        return int(args.func(args) or 0)
    except FactDeskError as exc:
        return _fail(_describe(exc), 2, as_json, also=_others(exc))
    except BrokenPipeError:  # output piped into head & co.: not an error of ours
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file we were asked to read or write: say which and why
        where = exc.filename if exc.filename is not None else getattr(args, "project", None)
        why = f"{exc.strerror or exc}; check the name and its permissions"
        return _fail(why if where is None else f"{where}: {why}", 2, as_json)
    except KeyboardInterrupt:
        left = _INTERRUPTED.get(args.func) if args is not None else None
        said = as_json and args is not None and getattr(args, "json_emitted", False)
        return _fail(
            "interrupted" + (f"; {left}" if left else ""), 130, as_json and not said, kind=""
        )
    except RecursionError:
        return _fail("input nested too deeply to read; nothing was changed", 2, as_json)
    except Exception as exc:  # noqa: BLE001 - a bug: one line, never a traceback
        if os.environ.get("FACTDESK_TRACEBACK"):
            raise
        return _fail(
            f"internal error ({_plain(exc)}); nothing more was done. Please report it with the "
            "command (FACTDESK_TRACEBACK=1 shows where it happened)",
            3,
            as_json,
        )


def _fail(
    message: str, code: int, as_json: bool, *, kind: str = "error", also: Sequence[str] = ()
) -> int:
    """Say why the command failed, once: a line on stderr (and an indented line for each other
    problem found with it), or a JSON object on stdout (the others under "also")."""
    if as_json:
        print(
            shown_json({"error": message, "code": code, **({"also": list(also)} if also else {})})
        )
    else:
        line = f"factdesk: {kind}: {message}" if kind else f"factdesk: {message}"
        print(shown(line), file=sys.stderr)
        for other in also:
            print(shown(f"  {other}"), file=sys.stderr)
    return code


def _plain(exc: BaseException) -> str:
    """An unexpected error's message without its class name (never shown to users)."""
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else "no message"


def _refuse_empty_names(args: argparse.Namespace) -> None:
    for name in _PATH_ARGS:
        if getattr(args, name, None) == "":
            raise UsageError(f"the {name.upper()} argument is empty; give a file name")
    if "" in (getattr(args, "others", None) or []):
        raise UsageError("an OTHER argument is empty; give a file name")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="factdesk", description="Check machine-written text against its source.")
    p.set_defaults(func=_cmd_window, project=None)
    sub = p.add_subparsers(title="commands", metavar="COMMAND")

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
        "--max-line-bytes",
        type=int,
        default=None,
        help="longest line (record) read (default: 64 MiB)",
    )
    c.add_argument(
        "--max-file-bytes",
        type=int,
        default=None,
        help="most bytes read from the file (default: 1 GiB; larger corpora: factdesk score)",
    )
    c.add_argument(
        "--reviewer",
        help="name restored judgments without an annotator are recorded under "
        "(default: your user name)",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_import)

    c = sub.add_parser(
        "add", help="add a pair to a project from two text files (or several outputs of a source)"
    )
    _text_pair_args(c, several="are each a pair")
    c.add_argument(
        "--id",
        dest="pair_id",
        help="the pair's id (default: one made from the texts); one output only",
    )
    c.add_argument(
        "--system",
        help="the system that wrote the output (default: none; of several outputs, each file's "
        "name)",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_add)

    c = sub.add_parser("remove", help="remove pairs added by mistake (never a judged one)")
    c.add_argument("project")
    c.add_argument("ids", metavar="ID", nargs="+", help="the pairs' ids, as imported")
    c.add_argument("--system", help="the system of the pairs (where ids repeat across systems)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_remove)

    c = sub.add_parser(
        "check",
        help="check one output (or several) against its source (text files) and print what the "
        "source does not support",
    )
    _text_pair_args(c, project=False, several="are each checked, then ranked")
    c.add_argument(
        "--project",
        help="also keep the pair and its analysis in this project file (created if missing); "
        "by default nothing is kept",
    )
    _checker_args(c)
    c.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"support below this is flagged ({DEFAULT_THRESHOLD})",
    )
    c.add_argument(
        "--exit-code",
        action="store_true",
        help="exit with 4 when the pair (of several outputs, any one) is flagged, 0 when not "
        "(for scripts)",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_check)

    c = sub.add_parser("analyze", help="score pairs that lack scores from the current checkers")
    c.add_argument("project")
    _checker_args(c)
    _engine_args(c)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_analyze)

    c = sub.add_parser(
        "score", help="score a JSON Lines corpus without a project, into files in the export format"
    )
    c.add_argument("input", help="a .jsonl file or a folder of them")
    c.add_argument("out", help="a folder of parts, or one .jsonl file")
    _checker_args(c)
    _engine_args(c)
    c.add_argument(
        "--pairs-per-part", type=int, default=10_000, help="records per output part (10,000)"
    )
    c.add_argument(
        "--skip-invalid", action="store_true", help="score valid records, report the rest"
    )
    c.add_argument(
        "--force", action="store_true", help="replace an existing OUT file (never the input)"
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


#: How many of the other invalid records an error lists beside the first (and how many pairs
#: not checked for one reason an analysis names one by one).
LISTED_PROBLEMS = 10


def _not_checked_lines(pairs: Sequence[Any]) -> list[str]:
    """A line per pair an analysis left unchecked, with why; where more than ten share a reason
    (a project of German texts), one line for them with their first ids (--json lists all)."""
    by_reason: dict[str, list[str]] = {}
    for n in pairs:
        by_reason.setdefault(n.reason, []).append(n.external_id)
    lines = []
    for reason, ids in by_reason.items():
        if len(ids) <= LISTED_PROBLEMS:
            lines += [f"not checked: {i}: {reason}" for i in ids]
        else:
            shown = ", ".join(ids[:LISTED_PROBLEMS])
            lines.append(f"not checked: {counted(len(ids), 'pair')} ({shown}, …): {reason}")
    return lines


def _others(exc: FactDeskError) -> list[str]:
    """A line for the other invalid records an input error carries: those with the first's
    problem as one line of their numbers (a wrong field name fails every record alike),
    each other one on its own (the first ten, then how many more); and what to do. None for
    other errors."""
    also = exc.also if isinstance(exc, InputError) else ()
    if not also:
        return []

    def problem(e: InputError) -> tuple[str | None, str | None, str]:
        # what is wrong, without the record's own details after a ";" (its fields, say)
        return e.path, e.field, e.reason.split(";")[0]

    alike = [o.line for o in also if problem(o) == problem(exc)]
    rest = [o for o in also if problem(o) != problem(exc)]
    lines = []
    if alike:
        shown = ", ".join(str(n) for n in alike[:LISTED_PROBLEMS])
        more = ", …" if len(alike) > LISTED_PROBLEMS else ""
        plural = "s" if len(alike) > 1 else ""
        lines.append(
            f"the same in {len(alike):,} other record{plural} (line{plural} {shown}{more})"
        )
    lines += [
        _describe(other)
        if other.path != exc.path
        else _describe(InputError(other.reason, line=other.line, field=other.field))
        for other in rest[:LISTED_PROBLEMS]
    ]
    if len(rest) > LISTED_PROBLEMS:
        lines.append(f"and {len(rest) - LISTED_PROBLEMS:,} more")
    lines.append(
        f"{len(also) + 1:,} invalid records in all; --skip-invalid reads the valid ones and "
        "lists these"
    )
    return lines


def _field_note(field: str | None) -> str:
    """ ", field 'x'" for a record's field; nothing for the record as a whole or the file."""
    if not field or field.startswith("__"):
        return ""
    return f", field '{field}'"


def _bar(desc: str, enabled: bool = True) -> tuple[Callable[..., None], Callable[[], None]]:
    """A tqdm progress bar on stderr, driven by ``(done, total)`` callbacks; ``what`` (a third
    argument) names the stage in the bar ("analysing the demo: Parsing")."""
    from tqdm import tqdm

    from app.analysis import LOADING

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
            bar.unit = "model" if what == LOADING else "pair"
            bar.total = total or None  # each stage counts its own pairs; 0: not known
        bar.n = done
        bar.refresh()

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """A command's result on stdout: ``data`` as JSON with --json, else ``text``; what comes from
    data is escaped either way (:mod:`app.terminal`)."""
    if getattr(args, "json", False):
        print(shown_json(data))
        args.json_emitted = True  # a failure after this (Ctrl-C) adds no second object
    else:
        print(shown(text, lines=True))


# ---------------------------------------------------------------------- commands
def _cmd_new(args: argparse.Namespace) -> int:
    from app.store import Project

    project = Project.create(args.project)
    project.close()
    print(f"created {shown(project.path)}")
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
    for option, value, unit in (
        ("--max-field-chars", args.max_field_chars, "characters"),
        ("--max-line-bytes", args.max_line_bytes, "bytes"),
        ("--max-file-bytes", args.max_file_bytes, "bytes"),
    ):
        if value is not None and value <= 0:
            raise FactDeskError(f"{option} must be a positive number of {unit}, not {value}")
    if Path(args.file).is_dir():
        raise InputError("is a folder; give a JSONL, CSV or TSV file to import", path=args.file)
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
                max_line_bytes=args.max_line_bytes,
                max_file_bytes=args.max_file_bytes,
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
    lines = [f"imported {counted(report.imported, 'pair')} from {args.file}"]
    if report.restored_pairs:
        lines.append(f"restored analysis and judgments of {counted(report.restored_pairs, 'pair')}")
    if report.duplicates:
        lines.append(f"{counted(len(report.duplicates), 'duplicate')} not imported again:")
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


def _text_pair_args(c: argparse.ArgumentParser, *, project: bool = True, several: str) -> None:
    """The arguments of pairs given as text files (add, check): a source and one or more outputs
    of it; ``several`` says what the command does with several."""
    if project:
        c.add_argument("project")
    c.add_argument(
        "source",
        help="the source as a file: plain text (UTF-8), .docx, .odt or a saved web page; "
        "- reads standard input",
    )
    c.add_argument(
        "output",
        nargs="+",
        help="the output (summary, answer, draft) as a file of the same kinds; several outputs "
        f"of the one source (drafts, systems) {several}",
    )
    c.add_argument(
        "--context", help="the question the output answers, or other context for it (text)"
    )


def _text_pairs(
    source_path: str, output_paths: Sequence[str], args: argparse.Namespace
) -> list[tuple[Any, str]]:
    """One pair a text file of ``output_paths``, each with the source at ``source_path``, and
    where each came from (for messages). Every file is read before any pair is made, so a file
    that cannot be read stops them all. Of several outputs, each pair's system is ``--system``
    where given, else its file's name (standard input: "standard input"; the path as given
    where two files share a name), which tells them apart in a project."""
    from app.io.text_pair import STDIN, read_text, text_record

    given = [source_path, *output_paths]
    if given.count(STDIN) > 1:
        raise UsageError("only one of SOURCE and OUTPUT can be standard input (-)")
    twice = sorted({p for p in output_paths if output_paths.count(p) > 1})
    if twice:
        raise UsageError(f"OUTPUT {twice[0]} is given twice")
    source = read_text(source_path, "source")
    outputs = [read_text(p, "output") for p in output_paths]
    several = len(output_paths) > 1
    # each output's file name tells the pairs apart (the window's System column shows it whole);
    # the paths as given where two files share a name
    names = {p: "standard input" if p == STDIN else Path(p).name for p in output_paths}
    systems = names if len(set(names.values())) == len(names) else {p: p for p in output_paths}
    return [
        (
            text_record(
                source,
                output,
                pair_id=getattr(args, "pair_id", None),
                system=getattr(args, "system", None) or (systems[path] if several else None),
                context=args.context,
            ),
            f"{source_path} + {path}",
        )
        for path, output in zip(output_paths, outputs, strict=True)
    ]


def _cmd_add(args: argparse.Namespace) -> int:
    from app.io.importer import add_pair
    from app.store import Project

    if args.pair_id is not None and len(args.output) > 1:
        raise UsageError("--id names one pair: give it with one OUTPUT, or leave it out")
    pairs = _text_pairs(args.source, args.output, args)
    with Project.open(args.project) as project:
        added = [add_pair(project, record, where) for record, where in pairs]
    rows = [
        {
            "id": a.external_id,
            "added": a.added,
            "source_chars": len(record.source),
            "output_chars": len(record.output),
        }
        for a, (record, _where) in zip(added, pairs, strict=True)
    ]
    lines = []
    for a, (record, where) in zip(added, pairs, strict=True):
        named = f" ({where.rsplit(' + ', 1)[-1]})" if len(pairs) > 1 else ""
        if a.added:
            lines.append(
                f"added pair '{a.external_id}'{named} to {args.project} (source "
                f"{len(record.source):,} characters, output {len(record.output):,})"
            )
        else:
            lines.append(
                f"not added{named}: the project has these texts already, as pair '{a.external_id}'"
            )
    new = sum(a.added for a in added)
    if new:
        lines.append(f"'factdesk analyze {args.project}' scores {'them' if new > 1 else 'it'}")
    _emit(args, rows[0] if len(rows) == 1 else rows, "\n".join(lines))
    return 0


def _cmd_remove(args: argparse.Namespace) -> int:
    from app.io.removal import pairs_named, remove_pairs
    from app.store import Project

    with Project.open(args.project) as project:
        removed = remove_pairs(project, pairs_named(project, args.ids, args.system))
    said = ", ".join(f"'{i}'" for i in removed.pairs)
    text = f"removed {len(removed.pairs)} pair{'s' if len(removed.pairs) != 1 else ''}: {said}"
    if removed.sources:
        text += (
            f" (and {removed.sources} source{'s' if removed.sources != 1 else ''} no pair reads)"
        )
    _emit(args, {"removed": list(removed.pairs), "sources_removed": removed.sources}, text)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    import tempfile

    from app.analysis import AnalysisReport, analyze
    from app.io.bundles import load_bundles, run_info, run_places
    from app.io.exporter import pair_record
    from app.io.importer import add_pair
    from app.store import Project

    threshold = check_threshold(args.threshold, name="--threshold")
    pairs = _text_pairs(args.source, args.output, args)
    checkers = load_checkers(args.checker, device=args.device, model_dir=args.model_dir)
    with tempfile.TemporaryDirectory(prefix="factdesk-check-") as tmp:
        path = Path(args.project) if args.project else Path(tmp) / "check.factdesk"
        if not path.exists():
            Project.create(path).close()
        with Project.open(path) as project:
            added = [add_pair(project, record, where) for record, where in pairs]
            ids = [a.output_id for a in added]
            report = analyze(project, checkers=checkers, report=AnalysisReport(), only=ids)
            by_id = {b.output.id: b for b in load_bundles(project, ids)}
            bundles = [by_id[i] for i in ids]  # in the order given
            runs = run_info(project)
            places = run_places(project)
            records = [pair_record(b, runs, places) for b in bundles]
            checked = [(b, check_lines(b, runs, threshold)) for b in bundles]
    scores = [b.scores[shown_checker(b)][0].score if b.scores else None for b, _lines in checked]
    if len(checked) == 1:
        lines = checked[0][1]
    else:
        lines = []
        for path_given, (_bundle, said) in zip(args.output, checked, strict=True):
            lines += [f"== {path_given}", *said, ""]
        lines += ranked_lines(args.output, scores, threshold, _shown_label(checked, runs))
    if report.cancelled:
        lines.append(
            "cancelled before the end: "
            + ("the pair is" if len(checked) == 1 else "not every output is")
            + " fully checked"
        )
    if args.project:
        kept = ", ".join(f"'{a.external_id}'" for a in added)
        lines.append(f"kept as pair{'s' if len(added) > 1 else ''} {kept} in {args.project}")
    _emit(args, records[0] if len(records) == 1 else records, "\n".join(lines))
    if report.cancelled:
        return 1
    flagged = any(score is not None and score < threshold for score in scores)
    return 4 if args.exit_code and flagged else 0


def _shown_label(checked: Sequence[tuple[Any, list[str]]], runs: dict[str, dict[str, Any]]) -> str:
    """The display name of the checker ``check`` ranks several outputs by."""
    bundle = next((b for b, _lines in checked if b.scores), None)
    if bundle is None:
        return "score"
    name = shown_checker(bundle)
    return runs.get(name, {}).get("display_name", name)


def ranked_lines(
    names: Sequence[str], scores: Sequence[float | None], threshold: float, label: str
) -> list[str]:
    """Several outputs of one source, most supported first by the shown score (those no checker
    could score last, in the order given), each with its verdict at ``threshold``."""
    order = sorted(
        range(len(names)),
        key=lambda k: (scores[k] is None, -(scores[k] or 0.0), k),
    )
    lines = [f"the outputs by {label}, most supported first:"]
    for rank, k in enumerate(order, 1):
        score = scores[k]
        if score is None:
            lines.append(f"  {rank}. ?  —     {names[k]} (not checked)")
        else:
            mark, said = ("✗", "flagged") if score < threshold else ("✔", "supported")
            lines.append(f"  {rank}. {mark}  {score:.2f}  {names[k]} ({said})")
    return lines


def shown_checker(bundle: Any) -> str:
    """The checker whose score ``check`` shows: the combined score, else the last one run."""
    return "combined" if "combined" in bundle.scores else next(reversed(bundle.scores))


def check_lines(bundle: Any, runs: dict[str, dict[str, Any]], threshold: float) -> list[str]:
    """What ``factdesk check`` prints of one analysed pair: the shown checker's (the combined
    score's, else the last one run) pair score and verdict; each output sentence with its mark
    (✔ supported, ✗ flagged, ? not checked; ⚠ beside it where the question-based check finds
    a conflict, counted in the verdict too), score, what the checker found and what any other
    checker that flags it found (as the window's prompt shows them), and the arcs it does not
    find entailed; then every other checker's pair score."""
    from app.store.findings import CONFLICT_GLYPH, QUESTIONS, finding_lines
    from models.reasons import NOTHING_TO_CHECK

    if not bundle.scores:
        return ["not scored: no checker ran"]
    shown_name = shown_checker(bundle)
    labels = {name: info.get("display_name", name) for name, info in runs.items()}
    pair, sents, arcs = bundle.scores[shown_name]
    label = labels.get(shown_name, shown_name)
    if pair.score is None:
        reason = getattr(pair, "reason", None)
        verdict = f"not checked ({reason})" if reason else "not checked"
    elif pair.score < threshold:
        verdict = f"{pair.score:.2f}, flagged (below {threshold:.2f})"
    else:
        verdict = f"{pair.score:.2f}, supported (at or above {threshold:.2f})"
    # sentences a model could not read (not those that state nothing): the verdict leaves them
    unread = [
        row
        for row in sents.values()
        if row.score is None and row.not_checked and row.not_checked not in NOTHING_TO_CHECK
    ]
    if pair.score is not None and unread:
        verdict += f"; {len(unread)} sentence{'s' if len(unread) != 1 else ''} not checked (?)"
    # the question-based check's conflicts, marked whichever checker is shown (as the window's
    # badge marks them)
    clash = {sentence.id for sentence in bundle.sentences if bundle.conflicts(sentence.id)}
    if clash and shown_name != QUESTIONS:
        n = len(clash)
        verdict += (
            f"; {n} sentence{'s' if n != 1 else ''} where the source gives a name or figure "
            f"otherwise ({CONFLICT_GLYPH})"
        )
    lines = [f"{label}: {verdict}"]
    for sentence in bundle.sentences:
        row = sents.get(sentence.id)
        text = " ".join(sentence.text.split())
        badge = CONFLICT_GLYPH if sentence.id in clash else " "
        if row is None or row.score is None:  # why: in the findings
            lines.append(f"  ?{badge} —     {sentence.idx + 1}. {text}")
        else:
            mark = "✗" if row.score < threshold else "✔"
            lines.append(f"  {mark}{badge} {row.score:.2f}  {sentence.idx + 1}. {text}")
        found: list[str] = []
        for who, detail in bundle.findings(shown_name, sentence.id, threshold, labels):
            said = finding_lines(detail)
            if who != label:
                said = [f"{who}:"] + [f"  {line}" for line in said]
            found += said
        lines += [f"           {line}" for line in found]
        if row is not None and row.score is not None and row.score < threshold:
            if not any("source sentence" in line for line in found):  # none named yet
                lines += [f"           {line}" for line in _closest(bundle, sentence, row)]
        weak = [
            a
            for a in bundle.arcs
            if a.sentence_id == sentence.id and arcs.get(a.id, 1.0) < threshold
        ]
        if weak:
            listed = ", ".join(f"{a.head_text} -{a.label}-> {a.child_text}" for a in weak[:8])
            more = f" and {len(weak) - 8} more" if len(weak) > 8 else ""
            lines.append(f"           not entailed: {listed}{more}")
    others = [
        f"{labels.get(name, name)} " + ("not checked" if p.score is None else f"{p.score:.2f}")
        for name, (p, _s, _a) in bundle.scores.items()
        if name != shown_name
    ]
    if others:
        lines.append("each checker's pair score: " + " · ".join(others))
    return lines


def _closest(bundle: Any, sentence: Any, row: Any) -> list[str]:
    """The source sentence that best matches a flagged output sentence, as the window marks it
    ▸1 (a bare answer through its question), for the editor to read beside the verdict."""
    from models.evidence import clipped

    shown = bundle.shown_evidence(sentence.text, row.evidence or (), k=1)
    return [f"closest in the source: sentence {i + 1}: “{clipped(text)}”" for i, text in shown]


def load_checkers(
    names: Sequence[str] | None, *, device: str = "auto", model_dir: str | None = None
) -> list[Any]:
    from app.analysis import load_checkers as load

    return list(load(names, device=device, model_dir=model_dir))


def _checker_args(c: argparse.ArgumentParser) -> None:
    """Which checkers score, with what model, where (analyze, score, check)."""
    c.add_argument(
        "--checker",
        action="append",
        help="checker name (repeatable); default: the default checkers",
    )
    c.add_argument(
        "--model-dir", help="own model directory for checkers that take one (nli, dae, support)"
    )
    c.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")


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
        "--connect-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds a Ray cluster has to start, or to answer at --address (60)",
    )
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

        timeout = {} if args.connect_timeout is None else {"connect_timeout": args.connect_timeout}
        return ray_analysis(
            args.checker,
            address=args.address,
            workers=args.workers,
            device=args.device,
            model_dir=args.model_dir,
            chunk_size=args.shard_size,
            **timeout,
        )
    if args.address is not None or args.workers is not None or args.connect_timeout is not None:
        raise FactDeskError("--address, --workers and --connect-timeout go with --engine ray")
    from app.analysis import analyze

    checkers = load_checkers(args.checker, device=args.device, model_dir=args.model_dir)
    return contextlib.nullcontext(
        (functools.partial(analyze, checkers=checkers, chunk_size=args.shard_size), checkers)
    )


def _cmd_analyze(args: argparse.Namespace) -> int:
    from app.analysis import AnalysisReport, unscored_pairs
    from app.store import Project

    report = AnalysisReport()
    try:
        with _engine(args) as (run, checkers), Project.open(args.project) as project:
            update, close = _bar("analysing", not args.json)
            # here (not on Ray workers) the bar names each stage from the first pair on, as the
            # demo's does, instead of standing at 0 until the first chunk is stored
            stages = (
                {}
                if args.engine == "ray"
                else {"step": lambda what, done, total: update(done, total, what)}
            )
            try:
                run(project, progress=update, report=report, **stages)
            finally:
                close()
                with contextlib.suppress(Exception):  # never hide why the run ended
                    report.pairs_left = unscored_pairs(project, checkers)
    except KeyboardInterrupt:
        # Whenever it comes (loading the checkers, planning, scoring), Ctrl-C ends the run
        # interrupted; scripts get their object with what was and was not scored.
        report.status, report.cancelled = "interrupted", True
        if args.json:
            _emit(args, report.to_json(), "")
        raise
    lines = []
    for c in report.checkers:
        lines.append(
            f"{c.display_name} ({c.name} {c.version}): scored {counted(c.scored, 'pair')}, "
            f"{c.already_scored:,} already scored, {c.not_checked_sentences:,} of "
            f"{counted(c.sentences, 'sentence')} not checked"
        )
    if report.left_to_others:
        lines.append(
            f"{counted(len(report.left_to_others), 'pair')} left to another analysis of this project "
            "running at the same time"
        )
    lines += _not_checked_lines(report.not_checked_pairs)
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
                force=args.force,
                progress=update,
            )
        finally:
            close()
    lines = [
        f"scored {counted(report.pairs_scored, 'pair')} into {report.out} "
        f"({counted(report.parts, 'part')}, {report.parts_done_before:,} done before); "
        f"{counted(report.not_checked_sentences, 'sentence')} "
        f"and {counted(report.not_checked_pairs, 'pair')} not checked"
    ]
    if report.duplicates:
        lines.append(f"{counted(report.duplicates, 'duplicate record')} not scored again")
    lines += [
        f"skipped {args.input} line {p.line}{_field_note(p.field)}: {p.reason}"
        for p in report.skipped
    ]
    _emit(args, report.to_json(), "\n".join(lines))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from app.io.exporter import export, not_analysed
    from app.io.output import output_target
    from app.store import Project

    output_target(args.out)  # refused before the project is opened
    with Project.open(args.project) as project:
        n = export(project, args.out, fmt=args.format)
        missing = not_analysed(project)
    text = f"wrote {n} records to {args.out}"
    if missing:
        how = {
            "csv": "one row each, with empty scores",
            "jsonl": "without scores",
            "dae-arcs": "not in this format: it needs their arcs",
        }[args.format]
        text += f"; {counted(missing, 'pair')} not analysed ({how}; run analyze to score them)"
    _emit(
        args,
        {"written": n, "path": args.out, "format": args.format, "not_analysed": missing},
        text,
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
    from app.review.agreement import agreement, agreement_text
    from app.store import Project

    check_threshold(args.threshold, name="--threshold")
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
            f"{info['display_name']} ({name} {info['version']}): "
            f"{counted(info['scored_pairs'], 'pair')} scored, "
            f"mean pair score {'-' if mean is None else f'{mean:.3f}'}, "
            f"{counted(info['not_checked_sentences'], 'sentence')} not checked"
        )
        if info.get("runs_on"):
            lines.append(
                "  scored on "
                + ", ".join(
                    f"{where} ({counted(n, 'pair')})" for where, n in info["runs_on"].items()
                )
            )
    if st["judgment_labels"]:
        lines.append(
            "judgments: " + ", ".join(f"{k} {v}" for k, v in st["judgment_labels"].items())
        )
    _emit(args, st, "\n".join(lines))
    return 0


def _cmd_familiarity(args: argparse.Namespace) -> int:
    from app.audit.familiarity import analyse, describe
    from app.store import Project

    check_threshold(args.threshold, name="--threshold")
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
    from app.audit.report import write_report
    from app.store import Project

    check_threshold(args.threshold, name="--threshold")
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


def print_findings(path: Path, threshold: float = DEFAULT_THRESHOLD) -> None:
    """The findings of every pair of a project (the demo's, without a window): its id, system
    and output, then what ``factdesk check`` prints of it (:func:`check_lines`)."""
    from app.io.bundles import iter_bundles, run_info
    from app.io.records import logical_id
    from app.store import Project

    def say(line: str) -> None:  # one line: data's own line breaks are shown escaped
        print(shown(line))

    with Project.open(path) as project:
        runs = run_info(project)
        for b in iter_bundles(project):
            print()
            system = f" [{b.output.system}]" if b.output.system else ""
            say(f"{logical_id(b.output.external_id, b.output.system)}{system}  {b.output.text}")
            for line in check_lines(b, runs, threshold):
                say(f"  {line}")


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
        print(f"\ndemo project: {shown(path)}")
        return 0
    return _window(str(path), demo=True)


def _cmd_window(args: argparse.Namespace) -> int:
    return _window(args.project)


def _window(project: str | None, *, demo: bool = False) -> int:
    from app.system_check import window_problem

    if problem := window_problem():  # missing X11 libraries: say which, before Qt aborts
        print(f"factdesk: error: {shown(problem)}", file=sys.stderr)
        return 2
    try:
        from app.gui.main import run
    except ImportError as exc:
        print(f"factdesk: error: the window cannot start: {shown(exc)}", file=sys.stderr)
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
    _cmd_merge: "nothing was merged (a merge is one transaction)",
}


if __name__ == "__main__":
    import multiprocessing

    # The packaged app is this script: a child process it spawns (app.process_job) starts here
    # and must run its job, not the command line.
    multiprocessing.freeze_support()
    sys.exit(main())
